"""Where the set rule's hashes wait: a spill directory and the plain pages' hashes.

Without numpy (a set without alternates never needs it): ``PlainHashes`` keeps the 64-bit
hashes of the pages without alternates in memory up to ``SPILL_BYTES``, then appends them
to a file; ``link_hashes`` reads them back a piece at a time when it judges the set.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from .._core import loc_hashes

Known = Callable[[list[str]], list[bool]]  # a set asked which locs it holds

SPILL_BYTES = 1 << 20  # bytes a table holds in memory before they go to a file


class SpillDir:
    """A temporary directory, made at the first file and removed on every exit path:
    ``close``, collection, or the end of the process."""

    def __init__(self) -> None:
        self.path: Path | None = None
        self._files = 0
        self._finalizer: weakref.finalize[Any, Any] | None = None

    def new_file(self) -> Path:
        if self.path is None:  # tempfile and shutil loaded with the first spill
            import shutil
            import tempfile

            self.path = Path(tempfile.mkdtemp(prefix="urlset-hreflang-"))
            self._finalizer = weakref.finalize(self, shutil.rmtree, self.path, True)
        self._files += 1
        return self.path / f"{self._files}.bin"

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()


class PlainHashes:
    """The hashes of the pages without alternates, as the core packs them (8 bytes each)."""

    def __init__(self, spill: SpillDir) -> None:
        self._spill = spill
        self._held = bytearray()
        self._file: Path | None = None

    def add(self, hashes: bytes | bytearray | memoryview) -> None:
        self._held += hashes
        if len(self._held) >= SPILL_BYTES:
            if self._file is None:
                self._file = self._spill.new_file()
            with open(self._file, "ab") as out:
                out.write(self._held)
            self._held = bytearray()

    def __bool__(self) -> bool:
        return bool(self._held) or self._file is not None

    def take(self) -> Iterator[bytes]:
        """Every hash added so far, a piece at a time, and none held any more."""
        if self._file is not None:
            path, self._file = self._file, None
            with open(path, "rb") as f:
                while piece := f.read(SPILL_BYTES):
                    yield piece
            path.unlink()
        held, self._held = self._held, bytearray()
        if held:
            yield bytes(held)


def hashes_of(locs: list[str]) -> bytes:
    """The core's 64-bit hash of each loc (a text that is not UTF-8, a lone surrogate, is
    hashed as its UTF-8 with U+FFFD: no URL holds one, and the core hashes UTF-8 only)."""
    try:
        return loc_hashes(locs)
    except UnicodeEncodeError:
        fixed = [loc.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for loc in locs]
        return loc_hashes(fixed)

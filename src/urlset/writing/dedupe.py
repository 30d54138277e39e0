"""De-duplication of a build's locs in ~2.3 bytes a URL, exactly.

``SeenLocs.first_seen`` takes a batch of locs and tells which are new. The work is the compiled
core's (``rust/core/src/write/dedupe.rs``): 64-bit XXH3 hashes of the locs (computed as the
core renders a batch, or by ``loc_hashes``) in a table in memory; every ``_SEAL_AT`` hashes
are sealed, sorted, to a ``.seen-N`` file in a spill directory (the build's staging
directory) and kept in memory as a trace (where each bucket of top bits starts, and a 16-bit tag per hash). A probe
whose tag matches is read back from the file, so the answer stays exact; sealed runs merge
file to file a chunk at a time. The GIL is released while a batch is looked up.
"""

from __future__ import annotations

from pathlib import Path

from .._core import SeenHashes, loc_hashes
from ..errors import PublishError

_SEAL_AT = 1 << 19  # hashes in memory before they go to disk (a table of 8 MiB)


class SeenLocs:
    """The locs written so far, as 64-bit hashes: exact, and 18 bits a loc in memory at scale.

    New hashes go into a table in memory (open addressing, at most half full). When it holds
    ``seal_at`` hashes they are sealed: sorted, written to a file in ``spill_dir`` and kept in
    memory as a trace (2.3 bytes a loc), so ten million URLs take ~25 MB, not 80; sealed runs
    merge file to file when a newer one grows to half the size of the one before it, so a
    lookup visits a few of them. Without a ``spill_dir`` every hash stays in the table.
    Two distinct locs share a 64-bit hash with probability about n**2 / 2**65 (3e-6 for ten
    million URLs); such a loc would be counted as a duplicate.
    """

    def __init__(self, spill_dir: Path | None = None, *, seal_at: int = _SEAL_AT) -> None:
        self._seen = SeenHashes(None if spill_dir is None else str(spill_dir), seal_at)

    def first_seen(self, locs: list[str]) -> list[bool]:
        """For each loc, whether it is new (not seen before, not earlier in this batch); records them."""
        return list(map(bool, self.first_seen_packed(loc_hashes(locs))))

    def known(self, locs: list[str]) -> list[bool]:
        """For each loc, whether it was seen; records the ones not seen (so ask it last)."""
        distinct = list(dict.fromkeys(locs))
        seen = dict(zip(distinct, (not new for new in self.first_seen(distinct)), strict=True))
        return [seen[loc] for loc in locs]

    def first_seen_packed(self, hashes: bytes) -> bytes:
        """``first_seen`` for the locs' hashes as the core packs them (``loc_hashes``,
        ``RenderedRows.hashes``): a byte per hash, 1 for a new one."""
        try:
            return self._seen.first_seen(hashes)
        except OSError as exc:
            raise PublishError(  # the core's error names the file
                f"the duplicate check could not keep its hashes on disk ({exc}); free space "
                "there, or turn de-duplication off (--no-dedupe, dedupe=False) for input known "
                "to be unique"
            ) from exc

    def close(self) -> None:
        """Remove the files of sealed runs."""
        self._seen.close()

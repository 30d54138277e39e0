"""De-duplication of a build's locs in ~2.3 bytes a URL, exactly.

``SeenLocs.first_seen`` takes a batch of locs and tells which are new. It keeps 64-bit hashes
in sorted numpy runs; runs past ``_SEAL_AT`` hashes are sealed to ``.seen-N`` files in a spill
directory (the build's staging directory) and kept in memory as a trace (where each bucket of
top bits starts, and a 16-bit tag per hash). A probe whose tag matches is read back from the
file, so the answer stays exact; sealed runs merge file to file a chunk at a time.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from .._core import loc_hashes
from ..errors import PublishError

_SEAL_AT = 1 << 19  # hashes in a run that goes to disk (4 MiB)
_READ_WHOLE_RUN = 512  # probes of one batch above which a sealed run is read whole
_CHUNK = 1 << 16  # hashes read from a sealed run at a time (512 KiB)


def _own_pages(count: int, dtype: type[np.generic]) -> np.ndarray[Any, Any]:
    """An array in its own anonymous mapping: long-lived traces of all sizes come and go as
    runs merge, and from malloc they would leave the heap fragmented (~13 MB at 10M URLs)."""
    size = count * np.dtype(dtype).itemsize
    return np.frombuffer(mmap.mmap(-1, max(size, 1)), dtype=dtype, count=count)


def _file_chunks(path: Path) -> Iterator[np.ndarray[Any, np.dtype[np.uint64]]]:
    with open(path, "rb") as file:
        while len(chunk := np.fromfile(file, dtype=np.uint64, count=_CHUNK)):
            yield chunk


def _merged(
    first: Iterator[np.ndarray[Any, np.dtype[np.uint64]]],
    second: Iterator[np.ndarray[Any, np.dtype[np.uint64]]],
) -> Iterator[np.ndarray[Any, np.dtype[np.uint64]]]:
    """Two streams of ascending chunks of hashes as one ascending stream (no hash in both)."""
    empty = np.empty(0, dtype=np.uint64)
    a, b = next(first, empty), next(second, empty)
    while len(a) and len(b):
        cut = min(a[-1], b[-1])  # everything up to it is in hand on both sides
        at_a, at_b = int(np.searchsorted(a, cut, "right")), int(np.searchsorted(b, cut, "right"))
        out = np.concatenate((a[:at_a], b[:at_b]))
        out.sort()
        yield out
        a, b = a[at_a:], b[at_b:]
        if not len(a):
            a = next(first, empty)
        if not len(b):
            b = next(second, empty)
    for rest, stream in ((a, first), (b, second)):
        if len(rest):
            yield rest
        yield from stream


class _SealedRun:
    """A sorted run of 64-bit hashes kept in a file, with 18 bits a hash in memory.

    The run is cut into about len/16 buckets by the hashes' top bits; memory holds where each
    bucket starts and, for every hash, the 16 bits after its bucket's (its tag). A probe whose
    bucket holds its tag (1 in ~4,096 for a loc never seen, every loc seen before) is read
    back from the file, so the answer stays exact. Built from ascending chunks of hashes,
    so that merging two runs never holds more than a few chunks of full hashes.
    """

    def __init__(
        self, path: Path, chunks: Iterable[np.ndarray[Any, np.dtype[np.uint64]]], count: int
    ) -> None:
        self.path, self.count = path, count
        bits = max(1, count.bit_length() - 5)
        self._shift = shift = 64 - bits
        self._starts = _own_pages((1 << bits) + 1, np.uint32)
        self._tags = _own_pages(count, np.uint16)
        done, bucket = 0, 0  # hashes written; buckets whose start is known
        try:
            with open(path, "wb") as file:
                for chunk in chunks:
                    file.write(np.ascontiguousarray(chunk).data)  # tofile loses the errno
                    ids = chunk >> shift
                    last = int(ids[-1]) + 1
                    # buckets up to the chunk's last start in it: earlier chunks hold only lower ones
                    self._starts[bucket:last] = done + np.searchsorted(ids, np.arange(bucket, last))
                    # storing into uint16 keeps the low 16 bits: the tag
                    self._tags[done : done + len(chunk)] = chunk >> (shift - 16)
                    done, bucket = done + len(chunk), last
        except OSError as exc:
            raise PublishError(
                f"{path}: the duplicate check could not keep its hashes on disk "
                f"({exc.strerror or exc}); free space there, or turn de-duplication off "
                "(--no-dedupe, dedupe=False) for input known to be unique"
            ) from exc
        self._starts[bucket:] = done
        self._depth = int(np.diff(self._starts).max()).bit_length()  # binary-search steps
        self._fd = os.open(path, os.O_RDONLY)

    def close(self) -> Path:
        """Close the file and give back its path (the trace goes with this object)."""
        os.close(self._fd)
        return self.path

    def holds(self, probes: np.ndarray[Any, np.dtype[np.uint64]]) -> np.ndarray[Any, Any]:
        """For each probe, whether it is in the run."""
        buckets = (probes >> self._shift).astype(np.intp)
        low = self._starts[buckets].astype(np.intp)
        end = self._starts[buckets + 1].astype(np.intp)
        tags = ((probes >> (self._shift - 16)) & 0xFFFF).astype(np.uint16)
        high, last = end.copy(), self.count - 1
        for _ in range(self._depth):  # the first tag >= the probe's, in its bucket
            middle = (low + high) >> 1
            open_ = low < high
            less = self._tags[np.minimum(middle, last)] < tags
            low = np.where(open_ & less, middle + 1, low)
            high = np.where(open_ & ~less, middle, high)
        maybe = np.flatnonzero((low < end) & (self._tags[np.minimum(low, last)] == tags))
        found = np.zeros(len(probes), dtype=bool)
        if len(maybe) > _READ_WHOLE_RUN:  # cheaper than that many reads
            wanted = probes[maybe]
            hit = np.zeros(len(maybe), dtype=bool)
            for chunk in _file_chunks(self.path):
                at = np.minimum(np.searchsorted(chunk, wanted), len(chunk) - 1)
                hit |= chunk[at] == wanted
            found[maybe] = hit
            return found
        for i in maybe.tolist():
            first = stop = int(low[i])
            while stop < end[i] and self._tags[stop] == tags[i]:
                stop += 1
            window = os.pread(self._fd, 8 * (stop - first), 8 * first)
            found[i] = probes[i] in np.frombuffer(window, dtype=np.uint64)
        return found


class SeenLocs:
    """The locs written so far, as 64-bit hashes: exact, and 18 bits a loc in memory at scale.

    New hashes go into sorted runs in memory, merged when a newer run grows to half the size
    of the one before it. A run that reaches ``seal_at`` hashes (4 MiB) is sealed: written to
    a file in ``spill_dir`` and kept in memory as a ``_SealedRun`` trace (2.3 bytes a loc),
    so ten million URLs take ~25 MB, not 80; sealed runs merge the same way, file to file, so
    a lookup visits a few of them. Without a ``spill_dir`` every run stays whole in memory.
    Two distinct locs share a 64-bit hash with probability about n**2 / 2**65 (3e-6 for ten
    million URLs); such a loc would be counted as a duplicate.
    """

    def __init__(self, spill_dir: Path | None = None, *, seal_at: int = _SEAL_AT) -> None:
        self._runs: list[np.ndarray[Any, np.dtype[np.uint64]]] = []
        self._sealed: list[_SealedRun] = []
        self._spill_dir = spill_dir
        self._seal_at = seal_at
        self._files = 0

    def first_seen(self, locs: list[str]) -> list[bool]:
        """For each loc, whether it is new (not seen before, not earlier in this batch); records them."""
        keep: list[bool] = self.first_seen_packed(loc_hashes(locs)).tolist()
        return keep

    def first_seen_packed(self, hashes: bytes) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """``first_seen`` for the locs' hashes as the compiled core packs them (``loc_hashes``,
        ``RenderedRows.hashes``: 64-bit XXH3, in the machine's byte order): a boolean array."""
        return self.first_seen_hashes(np.frombuffer(hashes, dtype=np.uint64))

    def first_seen_hashes(
        self, hashes: np.ndarray[Any, np.dtype[np.uint64]]
    ) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """``first_seen`` for the locs' hashes: a boolean array."""
        # look up each distinct hash once, in sorted order (cache-friendly), then map back
        ordered = np.sort(hashes)
        repeats = bool((ordered[1:] == ordered[:-1]).any())
        if repeats:  # a loc twice in the batch: the first one counts (argsort, 10x a sort)
            unique, first = np.unique(hashes, return_index=True)
        else:
            unique = ordered
        fresh = np.ones(len(unique), dtype=bool)
        for run in self._runs:
            at = np.minimum(np.searchsorted(run, unique), len(run) - 1)
            fresh &= run[at] != unique
        if self._sealed and fresh.any():
            fresh = self._not_sealed(unique, fresh)
        if repeats:
            keep = np.zeros(len(hashes), dtype=bool)
            keep[first[fresh]] = True
        elif fresh.all():
            keep = np.ones(len(hashes), dtype=bool)
        else:
            keep = np.isin(hashes, unique[fresh])
        if fresh.any():
            self._record(unique[fresh])
        return keep

    def _not_sealed(
        self, unique: np.ndarray[Any, np.dtype[np.uint64]], fresh: np.ndarray[Any, Any]
    ) -> np.ndarray[Any, Any]:
        """``fresh`` less the hashes some sealed run holds."""
        unsure = np.flatnonzero(fresh)
        for sealed in self._sealed:
            unsure = unsure[~sealed.holds(unique[unsure])]
        fresh = np.zeros(len(unique), dtype=bool)
        fresh[unsure] = True
        return fresh

    def _record(self, new: np.ndarray[Any, np.dtype[np.uint64]]) -> None:
        runs, seal_at = self._runs, self._seal_at
        runs.append(new)
        while len(runs) > 1 and 2 * len(runs[-1]) >= len(runs[-2]) and len(runs[-2]) < seal_at:
            newer = runs.pop()
            merged = np.concatenate((runs[-1], newer))
            merged.sort(kind="stable")  # two sorted runs: timsort merges them in one pass
            runs[-1] = merged
        while self._spill_dir is not None and runs and len(runs[0]) >= seal_at:
            hashes = runs.pop(0)  # in chunks: the trace's temporaries stay about a MiB
            self._seal((hashes[i : i + _CHUNK] for i in range(0, len(hashes), _CHUNK)), len(hashes))

    def _seal(self, chunks: Iterable[np.ndarray[Any, np.dtype[np.uint64]]], count: int) -> None:
        assert self._spill_dir is not None
        self._files += 1
        sealed = self._sealed
        sealed.append(_SealedRun(self._spill_dir / f".seen-{self._files}", chunks, count))
        if len(sealed) > 1 and 2 * sealed[-1].count >= sealed[-2].count:
            count = sealed[-1].count + sealed[-2].count
            newer, older = sealed.pop().close(), sealed.pop().close()  # traces freed first
            self._seal(_merged(_file_chunks(older), _file_chunks(newer)), count)
            older.unlink()
            newer.unlink()

    def close(self) -> None:
        """Close and remove the files of sealed runs."""
        for sealed in self._sealed:
            sealed.close().unlink()
        self._sealed.clear()

"""A full stable build's entries on disk, in sorted runs (driver).

The checked entries come in input order; the shards want them in key order. Each run of
``HELD`` entries is sorted by key and written to the staging directory in pickled chunks;
the runs are merged back in key order twice: once for the keys, sizes and news counts alone
(the plan: ``shards.split_summed`` over their running sums, 16 bytes a URL held in arrays),
once for the entries, a shard at a time. Memory is one run while writing, then the plan's
arrays and one chunk a run; it does not depend on how the keys spread, so a set whose
URLs crowd into one part of the key space (one section, one directory) costs what any
other does.
"""

from __future__ import annotations

import heapq
import pickle
from array import array
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

from ..errors import PublishError
from .document import uses_typed_prefix
from .shards import NEWS_TAG, Node, Sizing, entry_size, split_summed

HELD = 1 << 17  # entries held in memory before a run is written (~15-25 MB)
_CHUNK = 4096  # entries a pickled chunk holds (a run's reader holds one)
Plan = list[tuple[Node, int, int]]


class _Run:
    def __init__(self, path: Path, keys: array[int], sizes: array[int], news: dict[int, int]):
        self.path = path
        self.keys = keys
        self.sizes = sizes
        self.news = news  # the place of each entry that uses a typed prefix -> its news entries

    def summary(self) -> Iterator[tuple[int, int, int]]:
        """(key, size, news entries or -1 when not typed) of each entry, in key order."""
        news = self.news
        if not news:
            return zip(self.keys, self.sizes, [-1] * len(self.keys), strict=True)
        return (
            (key, size, news.get(i, -1))
            for i, (key, size) in enumerate(zip(self.keys, self.sizes, strict=True))
        )

    def entries(self) -> Iterator[tuple[int, str, str]]:
        with open(self.path, "rb") as file:
            while True:
                try:
                    chunk = pickle.load(file)
                except EOFError:
                    return
                yield from chunk


class SortedRuns:
    """Entries added as (key, loc, entry text) in any order; ``shards`` gives them back a
    shard at a time, in key order."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory
        self._held: list[tuple[int, str, str]] = []
        self._runs: list[_Run] = []

    def add(self, keys: list[int], locs: list[str], entries: list[str]) -> None:
        self._held += zip(keys, locs, entries, strict=True)
        if len(self._held) >= HELD:
            self._write_run()

    def _write_run(self) -> None:
        held, self._held = self._held, []
        if not held:
            return
        held.sort()
        texts = [entry for _, _, entry in held]
        news: dict[int, int] = {}
        if uses_typed_prefix("".join(texts)):
            news = {
                i: text.count(NEWS_TAG) for i, text in enumerate(texts) if uses_typed_prefix(text)
            }
        path = self._directory / f".run-{len(self._runs)}"
        try:
            with open(path, "wb") as file:
                for start in range(0, len(held), _CHUNK):
                    pickle.dump(held[start : start + _CHUNK], file, pickle.HIGHEST_PROTOCOL)
        except OSError as exc:
            raise spill_failed(path, exc) from exc
        keys = array("Q", [key for key, _, _ in held])
        self._runs.append(_Run(path, keys, array("L", map(entry_size, texts)), news))

    def shards(self, sizing: Sizing) -> Iterator[tuple[Node, dict[str, str], bool]]:
        """Every shard of the set in key order, with its entries (loc -> text) and whether
        one of them uses a typed prefix."""
        self._write_run()
        plan, typed_ends = self._plan(sizing)
        merged = heapq.merge(*(run.entries() for run in self._runs))
        for node, start, stop in plan:
            items = {loc: entry for _, loc, entry in islice(merged, stop - start)}
            typed = typed_ends is not None and typed_ends[stop] > typed_ends[start]
            yield node, items, typed

    def _plan(self, sizing: Sizing) -> tuple[Plan, array[int] | None]:
        keys, ends = array("Q"), array("Q", [0])
        typed = any(run.news for run in self._runs)
        typed_ends, news_ends = (array("Q", [0]), array("Q", [0])) if typed else (None, None)
        total = typed_count = news_count = 0
        for key, size, news in heapq.merge(*(run.summary() for run in self._runs)):
            keys.append(key)
            total += size
            ends.append(total)
            if typed_ends is not None and news_ends is not None:
                if news >= 0:
                    typed_count += 1
                    news_count += news
                typed_ends.append(typed_count)
                news_ends.append(news_count)
        return split_summed(Node(0, 0), keys, ends, typed_ends, news_ends, sizing), typed_ends


def spill_failed(path: Path, exc: OSError) -> PublishError:
    return PublishError(
        f"{path}: could not write the build's spill file ({exc.strerror or exc}); it holds "
        "the checked entries until they are sorted into shards, in --out's staging directory"
    )

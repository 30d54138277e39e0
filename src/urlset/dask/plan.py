"""How the Dask build divides the key space among its tasks (driver). Pure.

A stable set's keys crowd: the local layout puts a section in 24 bits of its name's hash and
a directory's pages side by side (``writing.shards``), so a fixed cut of the top key bits
puts a whole section (with sections) or the whole set (without: the top 24 bits are 0) in
one bucket. The buckets are trie nodes cut from the keys themselves instead: each input
partition returns an evenly spaced sample of its sorted keys, and a node is split while the
sample says it holds more than ``target`` URLs. The buckets cover the key space, so every
key has one, and a run of them is a task's share; how well the sample guesses only moves
work between tasks, never what is written: the shards are planned over the buckets' exact
counts (``plan_shards``), as a local build plans them over every key.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from itertools import accumulate

from ..writing.shards import KEY_BITS, Node, Sizing

Sample = tuple[list[int], int]  # a partition's sampled keys (sorted), and how many it had


def sample_of(keys: Sequence[int], size: int) -> list[int]:
    """About ``size`` keys of ``keys`` (sorted), evenly spaced."""
    step = max(1, len(keys) // size)
    return list(keys[step // 2 :: step])


def buckets_of(samples: Sequence[Sample], target: int) -> list[Node]:
    """Trie nodes that cover the key space, in key order, each holding about ``target``
    URLs or fewer by the samples (a node with one sampled key is not split: the sample
    cannot tell where its URLs lie)."""
    weighted = sorted((key, count / len(keys)) for keys, count in samples if keys for key in keys)
    keys = [key for key, _ in weighted]
    held = list(accumulate((weight for _, weight in weighted), initial=0.0))
    found: list[Node] = []
    todo = [Node(0, 0)]
    while todo:
        node = todo.pop()
        start, stop = bisect_left(keys, node.lo), bisect_left(keys, node.hi)
        if (
            held[stop] - held[start] <= target
            or keys[start] == keys[stop - 1]
            or node.depth == KEY_BITS
        ):
            found.append(node)
        else:
            low, high = node.children()
            todo += [high, low]
    return found


def estimates(buckets: Sequence[Node], samples: Sequence[Sample]) -> list[float]:
    """The URLs each bucket holds by the samples."""
    los = [bucket.lo for bucket in buckets]
    found = [0.0] * len(buckets)
    for keys, count in samples:
        for key in keys:
            found[bisect_left(los, key + 1) - 1] += count / len(keys)
    return found


def runs_of(estimated: Sequence[float], count: int) -> list[range]:
    """The buckets cut into at most ``count`` runs of about equal estimated URLs, in key
    order (none empty)."""
    total = sum(estimated) or 1.0
    runs: list[range] = []
    first = 0
    before = 0.0
    for i, urls in enumerate(estimated):
        before += urls
        if i + 1 == len(estimated) or (
            len(runs) < count - 1 and int(before * count / total) > len(runs)
        ):
            runs.append(range(first, i + 1))
            first = i + 1
    return runs


Plan = tuple[Node, range, bool, bool]  # a shard (or a bucket to split), its buckets, typed, fits


def plan_shards(
    buckets: Sequence[Node],
    urls: Sequence[int],
    body: Sequence[int],
    typed: Sequence[bool],
    sizing: Sizing,
) -> Iterator[Plan]:
    """The trie walked from the root down to ``buckets`` (nodes covering the key space, in
    key order), given each one's URL count, entry bytes and typed flag: in key order, each
    node that is a shard (``fits``) or a single bucket that is not, to be split by
    ``stable.split_shard``; with the buckets it covers and whether an entry in them uses a
    typed prefix. The same shards a local build finds over every key (``split_summed``):
    above the buckets, the sums are exact."""
    los = [bucket.lo for bucket in buckets]
    todo = [Node(0, 0)]
    while todo:
        node = todo.pop()
        covered = range(bisect_left(los, node.lo), bisect_left(los, node.hi))
        count = sum(urls[b] for b in covered)
        size = sum(body[b] for b in covered)
        any_typed = any(typed[b] for b in covered)
        fits = sizing.fits(count, size, any_typed, depth=node.depth)
        if fits or node.depth >= buckets[covered[0]].depth:
            yield node, covered, any_typed, fits
        else:
            low, high = node.children()
            todo += [high, low]

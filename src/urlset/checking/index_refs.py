"""The rules on a sitemap index's entries judged at once (``judge_refs``): an index of the
protocol's 50,000 refs costs a few C-speed passes over their locs and lastmods, not a
Python call per ref, and gives the findings ``EntryRules.value`` gives them one by one.

An index's entries meet only two rules here: its hosts' (counted once per authority, as
``EntryRules.records`` counts a run's; an index's children lie on its own site, so the
scope rule of a urlset's URLs does not apply) and its lastmods' (only the newest is kept
unless one may be flagged: then each is judged in order, as ``value`` judges it).
"""

from __future__ import annotations

import operator
from collections import Counter
from datetime import date, datetime
from itertools import repeat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..dates import Lastmod
    from ..model import SitemapRef
    from .entries import EntryRules

_LOC = operator.itemgetter(0)
_LASTMOD = operator.itemgetter(1)


def judge_refs(rules: EntryRules, refs: list[SitemapRef]) -> None:
    """``rules.value(ref)`` for each of ``refs`` (an index's entries, in document order)."""
    if not refs:
        return
    rules.value(refs[0])  # the first as a value: the rules turn to the index's site
    rest = refs[1:]
    if not rest:
        return
    first = rules.entries
    rules.refs.extend(rest)
    rules.entries += len(rest)
    rules.careful += len(rest)
    locs = list(map(_LOC, rest))
    _hosts(rules, locs, first)
    _lastmods(rules, locs, list(map(_LASTMOD, rest)), first)
    rules.found.entry = rules.entries - 1  # the last judged, as ``value`` leaves it


def all_start_with(texts: list[str], prefix: str) -> bool:
    """Whether every one of ``texts`` (not empty) starts with ``prefix``: the texts that do
    are one stretch of the sorted order, so their least and greatest tell (two C passes of
    comparisons; ``str.startswith`` a text parses its arguments: 800 instructions each)."""
    return min(texts).startswith(prefix) and max(texts).startswith(prefix)


def _hosts(rules: EntryRules, locs: list[str], first: int) -> None:
    """The host rules on ``locs`` (entries ``first`` on), each authority counted once at
    its first loc, in the order they first appear (``Hosts.check`` per loc, summed)."""
    hosts = rules.hosts
    one = locs[0]
    end = one.find("/", 8)
    if end >= 0 and all_start_with(locs, one[: end + 1]):
        hosts.count(one[:end], one, len(locs), first)  # one authority (every loc after it)
        return
    ends = list(map(str.find, locs, repeat("/"), repeat(8)))
    if -1 in ends:
        ends = [end if end >= 0 else len(loc) for end, loc in zip(ends, locs, strict=True)]
    authorities = list(map(str.__getitem__, locs, map(slice, repeat(None), ends)))
    # each authority's first entry: the reversed pairs leave the first one last
    at = dict(zip(reversed(authorities), range(len(authorities) - 1, -1, -1), strict=True))
    for authority, urls in Counter(authorities).items():
        hosts.count(authority, locs[at[authority]], urls, first + at[authority])


def _lastmods(
    rules: EntryRules, locs: list[str], lastmods: list[Lastmod | None], first: int
) -> None:
    """The newest lastmods kept; when one may be flagged (a time after now, a date after
    the latest day, a year or a month), each judged in order as ``value`` does."""
    kinds = set(map(type, lastmods))
    kinds.discard(type(None))
    if not kinds:
        return
    if kinds == {datetime}:
        newest = max(filter(None, lastmods))
        assert isinstance(newest, datetime)
        if rules.now is None or not newest > rules.now:
            if rules.newest_time is None or newest > rules.newest_time:
                rules.newest_time = newest
            return
    elif kinds == {date}:
        newest = max(filter(None, lastmods))
        if not newest > rules.day_limit:
            if rules.newest_date is None or newest > rules.newest_date:
                rules.newest_date = newest
            return
    found = rules.found
    for entry, loc, lastmod in zip(range(first, first + len(locs)), locs, lastmods, strict=True):
        if lastmod is not None:
            found.entry = entry
            rules._lastmod(lastmod, loc)

"""The rules on a sitemap index's entries judged at once (``judge_refs``): an index of the
protocol's 50,000 refs costs a few C-speed passes over their locs and lastmods, not a
Python call per ref, and gives the findings ``EntryRules.value`` gives them one by one.

An index's entries meet only two rules here: its hosts' (counted once per authority, as
``EntryRules.records`` counts a run's; an index's children lie on its own site, so the
scope rule of a urlset's URLs does not apply) and its lastmods' (only the newest is kept
unless one may be flagged: then each is judged in order, as ``value`` judges it).

The entries the reader's render lane read into columns (check reads an index as ``urlset
read`` does) are judged on the columns (``judge_ref_records``) and kept as the columns in
the index's ``IndexRefs``: its ``SitemapRef`` values are made only when something reads them
as a list (an index's children compared with it), its locs (``ref_locs``) and the count of
its entries without a lastmod (``without_lastmod``) without them.
"""

from __future__ import annotations

import operator
from array import array
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from itertools import repeat
from typing import TYPE_CHECKING, Any, SupportsIndex, overload

from .._core import column_texts_at
from ..dates import from_formatted
from ..model import SitemapRef
from .records import Records, _texts

if TYPE_CHECKING:
    from ..dates import Lastmod
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


def judge_ref_records(rules: EntryRules, run: Records, refs: IndexRefs) -> None:
    """``rules.value`` of each record of ``run`` (an index's entries the core read into
    columns), judged on the columns: the hosts an authority at a time, the lastmods in the
    core (``EntryRules._lastmods_of``: the newest kept, the ones a rule may flag judged in
    order). The run is kept in ``refs``, in its place."""
    if not rules.hosts.index:  # as ``value`` turns them: an index's children lie on its site
        rules.hosts = rules.hosts.of_index(rules.served)
        rules.prefix = None if rules.served is None else rules.served.prefix
    first = rules.entries
    rules.entries += run.count
    refs.add_run(_kept(run))
    if rules._hosts_each(run):
        _record_hosts(rules, run, first)
    flagged = sorted(set(rules._lastmods_of(run)))
    if flagged:
        found = rules.found
        locs = run.locs_at(flagged)
        texts = run.lastmod_texts_at(flagged)
        for i, loc, text in zip(flagged, locs, texts, strict=True):
            found.entry = first + i
            if len(text) in (4, 7):  # a year, a month: each a finding, the same per text
                rules._reduced_rules(text, loc)
            else:
                rules._lastmod_rules(from_formatted(text), loc)
    rules.found.entry = rules.entries - 1  # the last judged, as ``value`` leaves it


def _record_hosts(rules: EntryRules, run: Records, first: int) -> None:
    """``_hosts`` of a run's locs, from the loc column's buffers where they tell (an
    index's entries meet no scope rule: no record is looked at on its own for it)."""
    hosts = rules.hosts
    one = run.loc(0)
    end = one.find("/", 8)
    if end >= 0 and run.all_start_with(one[: end + 1]):
        hosts.count(one[:end], one, run.count, first)  # one authority
        return
    cut = run.authorities()  # (authority, its first record, its records), in the core
    if cut is None:
        _hosts(rules, run.locs, first)
        return
    for authority, at, urls in cut:
        hosts.count(authority, run.loc(at), urls, first + at)


def ref_locs(refs: list[SitemapRef]) -> list[str]:
    """The locs of an index's ``refs`` (of ``IndexRefs``, from its columns: no value made)."""
    if isinstance(refs, IndexRefs):
        return refs.locs()
    return list(map(_LOC, refs))


def starts_with_of(refs: list[SitemapRef]) -> Callable[[str], bool] | None:
    """Whether every loc of ``refs`` starts with a text, judged at once (``IndexRefs``);
    None for a list of values."""
    return refs.all_start_with if isinstance(refs, IndexRefs) and refs else None


def without_lastmod(refs: list[SitemapRef]) -> int:
    """How many of ``refs`` have no lastmod."""
    if isinstance(refs, IndexRefs):
        return refs.without_lastmod()
    return list(map(_LASTMOD, refs)).count(None)  # (C speed: 50,000 refs)


class IndexRefs(list[SitemapRef]):
    """An index's entries in document order: the reader's values and runs of the core's
    columns (``add_run``), made ``SitemapRef`` values, each lastmod read from its text
    once a distinct text, at the first look at them as a list (then a list like any)."""

    __slots__ = ("_locs", "_parts")

    def __init__(self, refs: Iterable[SitemapRef] = ()) -> None:
        super().__init__(refs)
        self._parts: list[list[SitemapRef] | Records] = []  # with a run: every entry
        self._locs: list[str] | None = None  # made once (the lines of refs, the children)

    def add_run(self, run: Records) -> None:
        self._locs = None
        if not self._parts:
            self._parts.append(list.copy(self))
            list.clear(self)
        self._parts.append(run)

    def append(self, ref: SitemapRef) -> None:
        self.extend((ref,))

    def extend(self, refs: Iterable[SitemapRef]) -> None:
        self._locs = None
        parts = self._parts
        if not parts:
            list.extend(self, refs)
        elif isinstance(parts[-1], list):
            parts[-1].extend(refs)
        else:
            parts.append(list(refs))

    def locs(self) -> list[str]:
        """Every entry's loc (the runs' from their loc column), made once."""
        if self._locs is None:
            if not self._parts:
                self._locs = list(map(_LOC, list.__iter__(self)))
            else:
                locs: list[str] = []
                for part in self._parts:
                    locs += list(map(_LOC, part)) if isinstance(part, list) else _locs(part)
                self._locs = locs
        return self._locs

    def all_start_with(self, prefix: str) -> bool:
        """Whether every entry's loc (at least one) starts with ``prefix``: the runs'
        judged on their loc column's buffers."""
        if not self._parts:
            return all_start_with(self.locs(), prefix)
        return all(
            (not part or all_start_with(list(map(_LOC, part)), prefix))
            if isinstance(part, list)
            else part.all_start_with(prefix)
            for part in self._parts
        )

    def without_lastmod(self) -> int:
        """How many entries have no lastmod (the runs' counted on their validity bits)."""
        if not self._parts:
            return list(map(_LASTMOD, list.__iter__(self))).count(None)
        return sum(
            list(map(_LASTMOD, part)).count(None)
            if isinstance(part, list)
            else _lastmods_missing(part)
            for part in self._parts
        )

    def _made(self) -> None:
        """The runs made values, in their places (once)."""
        if not self._parts:
            return
        parts, self._parts = self._parts, []
        texts: dict[str, Lastmod | None] = {"": None}
        for part in parts:
            if isinstance(part, list):
                list.extend(self, part)
                continue
            lastmods = _texts(part._lastmods, part._base, part._base + part.count)
            for text in set(lastmods).difference(texts):
                texts[text] = from_formatted(text)
            values = map(texts.__getitem__, lastmods)
            pairs = zip(_locs(part), values, strict=True)
            list.extend(self, map(tuple.__new__, repeat(SitemapRef), pairs))

    def __len__(self) -> int:
        if not self._parts:
            return list.__len__(self)
        return sum(len(part) if isinstance(part, list) else part.count for part in self._parts)

    def __bool__(self) -> bool:
        return len(self) > 0

    def __iter__(self) -> Iterator[SitemapRef]:
        self._made()
        return list.__iter__(self)

    def __reversed__(self) -> Iterator[SitemapRef]:
        self._made()
        return list.__reversed__(self)

    @overload
    def __getitem__(self, i: SupportsIndex) -> SitemapRef: ...
    @overload
    def __getitem__(self, i: slice) -> list[SitemapRef]: ...
    def __getitem__(self, i: SupportsIndex | slice) -> SitemapRef | list[SitemapRef]:
        self._made()
        return list.__getitem__(self, i)

    def __contains__(self, ref: object) -> bool:
        self._made()
        return list.__contains__(self, ref)

    def __eq__(self, other: object) -> bool:
        self._made()
        if isinstance(other, IndexRefs):
            other._made()
        return list.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        self._made()
        return list.__repr__(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return list, (list(self),)

    def count(self, ref: SitemapRef) -> int:
        self._made()
        return list.count(self, ref)

    def index(self, ref: SitemapRef, *args: Any) -> int:
        self._made()
        return list.index(self, ref, *args)

    def copy(self) -> list[SitemapRef]:
        self._made()
        return list.copy(self)

    def __iadd__(self, refs: Iterable[SitemapRef]) -> IndexRefs:  # type: ignore[override,misc]
        self.extend(refs)
        return self


def _as_list(name: str) -> Any:
    """``list``'s method ``name`` on the refs made values first."""
    method = getattr(list, name)

    def made_first(self: IndexRefs, *args: Any) -> Any:
        self._made()
        return method(self, *args)

    made_first.__name__ = name
    return made_first


for _name in (
    "__add__", "__mul__", "__rmul__", "__imul__", "__setitem__", "__delitem__", "__lt__",
    "__le__", "__gt__", "__ge__", "insert", "pop", "remove", "sort", "reverse", "clear",
):  # fmt: skip
    setattr(IndexRefs, _name, _as_list(_name))


def _kept(run: Records) -> Records:
    """``run`` with its loc and lastmod columns alone: what its refs are made of (the
    other buffers, instants, hashes, changefreqs, priorities, extensions, freed with the
    run)."""
    return Records(run._loc_buffers, run._lastmods, None, run.count, False, None, None, run._base)


def _locs(run: Records) -> list[str]:
    """Every record's loc, made in the core (``Records.locs`` slices them in Python)."""
    _, offsets, values = run._loc_buffers
    return column_texts_at(offsets, values or b"", run._base, _rows(run.count))


_ROWS = array("I")  # 0, 1, 2...: row numbers as the core reads them, grown as needed


def _rows(count: int) -> bytes:
    """The rows ``0`` to ``count`` (native-endian u32s), not made one int at a time."""
    if len(_ROWS) < count:
        _ROWS.extend(range(len(_ROWS), count))
    return _ROWS[:count].tobytes()


def _lastmods_missing(run: Records) -> int:
    """How many records of ``run`` have no lastmod: the zero bits of its rows in the
    lastmod column's validity bitmap (none: every row valid, or with nulls every row null)."""
    (validity, nulls), _, _ = run._lastmods
    if validity is None:
        return run.count if nulls else 0
    bits = int.from_bytes(validity, "little") >> run._base
    return run.count - (bits & ((1 << run.count) - 1)).bit_count()

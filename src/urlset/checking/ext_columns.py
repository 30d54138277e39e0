"""The extension rules on a run of the core's records, from the JSON the core wrote for them,
without a value per record.

The compiled core types and checks a record's images, videos, news and hreflang links as the
reader's careful lane does before it writes them as JSON, so the per-URL rules are all that
is left, and each reads one or two fields: ``image-deprecated-field`` and
``too-many-images``, ``video-loc-is-page``, ``news-too-old`` and ``news-repeated``,
``hreflang-missing-self`` and ``hreflang-duplicate``. The core reads those fields from each
record's JSON (``Records.judge_extensions``, ``core/src/check/ext_json.rs``: per record the
findings of each code, the typed extensions by kind, the news dates, whose window is judged
here once per distinct date). ``judged`` returns the records whose JSON is not the core's
usual shape: only those become ``Url`` values (``Records.url``) and go through
``rules.check_url``; and the records whose findings are listed (the first of each code up to
its cap), each with its codes: ``listed_issues`` words those with the rules of those codes'
extensions alone, on a value of those extensions' items alone. Every record judged in the
core, listed or not, is counted for the set rules here (its kinds; those with hreflang
links handed back by record, for the set rule to read their links from the columns in the
core, in document order; the rest plain pages to the set rules, as ``Reciprocity.add`` has
a page without alternates). An element of another namespace (the JSON's ``extensions``)
has no per-URL rule once the reader has said why it stayed raw.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable, Mapping
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from .._core import EXT_JSON_CODES, EXT_JSON_KINDS, old_news
from ..dates import from_formatted, instant
from ..model import Issue, Url
from .findings import Findings
from .records import Records, _extensions_from

if TYPE_CHECKING:
    from ..extensions.common import Rule


class Judged:
    """What ``judged`` found in a run: ``flagged``, the records whose JSON is not the core's
    usual shape (to be made values, in document order); ``listed``, the records judged in
    the core whose findings are listed, each with the codes of its findings
    (``listed_issues`` words them); ``links``, the records judged in the core that
    have hreflang links (for the set rule, which reads them from the columns:
    ``Reciprocity.add_json_rows``); ``plain``, a byte a record, 1 for those judged without
    alternates (plain pages to the set rules); ``without``, 1 for the records without
    extensions; ``counted``, the findings of the records not listed, by code, to be counted
    once the listed ones are added. ``links`` stays the core's native-endian u32s (a run's
    pages with alternates are not made ints, then words again)."""

    __slots__ = ("counted", "flagged", "links", "listed", "plain", "without")

    def __init__(self) -> None:
        self.flagged: list[int] = []
        self.listed: dict[int, set[str]] = {}  # record -> the codes of its findings
        self.counted: list[tuple[str, int]] = []  # findings past the caps, by code
        self.links: list[int] | bytes = b""
        self.plain = bytearray()
        self.without = b""


class NewsAges:
    """Whether a publication date (the core's JSON text) is older than the news window at
    ``now``, computed once per distinct text (a news sitemap repeats its dates)."""

    def __init__(self, now: datetime | None) -> None:
        self.now = now
        self._old: dict[str, bool] = {}

    def too_old(self, text: object) -> bool:
        if self.now is None:
            return False
        if not isinstance(text, str):
            return True  # not the core's text: the value's own rule judges it
        old = self._old.get(text)
        if old is None:
            from ..extensions.news import NEWS_MAX_AGE

            try:
                old = self.now - instant(from_formatted(text)) > NEWS_MAX_AGE
            except ValueError:
                old = True
            self._old[text] = old
        return old


def judged(
    run: Records,
    ages: NewsAges,
    kinds: Counter[str],
    found: Findings,
) -> Judged:
    """The records of ``run`` that have extensions judged by the per-URL rules (see the
    module doc); the typed extensions of the records not flagged counted in ``kinds``. A
    record whose every finding is past its code's cap in ``found`` is not listed: its
    findings are counted there (as listing them would count them). The core sorts the
    records (``_core.judge_extensions``), so only the flagged, those with findings and those
    with alternates are walked here."""
    rows, counted, news_records, news_dates, dates = run.judge_extensions()
    careful_rows, _, linked_rows, plain, without, totals, with_code, code_totals = rows
    counts = memoryview(counted).cast("I")
    old_rows, old_counts = _old_news(ages, dates, news_records, news_dates)
    out = Judged()
    out.plain, out.without = bytearray(plain), without
    # of the records with findings of a code that has room, the first that fill the room
    # are listed (each finding worded and added in document order); the others' findings,
    # like those of a code without room, are counted once the run's listed ones are added
    # (``Judged.counted``), so that none is counted before a listed one
    careful = set(_rows(careful_rows))
    listed: set[int] = set()
    for k, (code, where) in enumerate(zip(EXT_JSON_CODES, with_code, strict=True)):
        if where and (room := found.room(code)):
            listed.update(_filling(_rows(where), counts[k::_WIDTH].__getitem__, room))
    if old_rows and (room := found.room("news-too-old")):
        old = dict(zip(old_rows, old_counts, strict=True))
        listed.update(_filling(old_rows, old.__getitem__, room))
    # the records listed are judged in the core like the others (their kinds counted, their
    # links and plain pages given to the set rules from the columns); only their findings
    # are worded, from their JSON, by the rules of the extensions of the codes found
    unlisted = list(code_totals)  # each code's findings less the listed records'
    for i in sorted(listed):
        row = counts[i * _WIDTH : i * _WIDTH + _CODES].tolist()
        out.listed[i] = {EXT_JSON_CODES[k] for k, n in enumerate(row) if n}
        unlisted = list(map(operator.sub, unlisted, row))
    out.counted = list(zip(EXT_JSON_CODES, unlisted, strict=True))
    if old_rows:
        old_listed = 0
        for i, n in zip(old_rows, old_counts, strict=True) if listed else ():
            if i in listed:
                out.listed[i].add("news-too-old")
                old_listed += n
        out.counted.append(("news-too-old", sum(old_counts) - old_listed))
    out.flagged = sorted(careful)
    for k, kind in enumerate(EXT_JSON_KINDS):
        kinds[kind] += totals[k]
    out.links = linked_rows
    return out


def listed_issues(loc: str, text: str, codes: set[str], now: datetime | None) -> list[Issue]:
    """The per-URL rules' findings on the record ``loc`` whose extensions' JSON is ``text``
    (the core's, judged in the core), as ``rules.check_url`` gives them on its value: the
    rules of the extensions of ``codes`` alone (the core found no other code), in their
    order, each extension's on a value holding its items alone (a rule reads its own kind
    and the loc)."""
    loads, specs = _listing()
    fields = loads(text)
    out: list[Issue] = []
    for codes_of, kind, rules in specs:
        if not codes.isdisjoint(codes_of):
            url = Url._trusted(loc, None, None, None, _extensions_from({kind: fields[kind]}))
            for rule in rules:
                out.extend(rule(url, now))
    return out


@cache
def _listing() -> tuple[
    Callable[[str], Any], list[tuple[Mapping[str, Any], str, tuple[Rule, ...]]]
]:
    """``json.loads`` and each extension's codes, JSON key and per-URL rules, in the
    registry's order: loaded with the first listed record (a plain check loads none)."""
    import json

    from ..extensions import REGISTRY

    return json.loads, [(spec.codes, spec.value.kind, spec.rules) for spec in REGISTRY]


def _filling(rows: list[int], amount: Callable[[int], int], room: int) -> list[int]:
    """The first of ``rows`` whose amounts together reach ``room`` (all when they do not)."""
    total = 0
    for n, row in enumerate(rows):
        total += amount(row)
        if total >= room:
            return rows[: n + 1]
    return rows


def _rows(words: bytes) -> list[int]:
    """Row numbers from the core's native-endian u32s."""
    return memoryview(words).cast("I").tolist()


_CODES = len(EXT_JSON_CODES)
_WIDTH = _CODES + len(EXT_JSON_KINDS)


def _old_news(
    ages: NewsAges, dates: list[str], records: bytes, indexes: bytes
) -> tuple[list[int], list[int]]:
    """The records with news items older than the window (none without ``now``), and how
    many each has: each distinct date judged once here, an item without one as old (its
    value's rule says why), the items counted by record in the core (``_core.old_news``)."""
    if ages.now is None or not records:
        return [], []
    old = bytes([ages.too_old(date) for date in dates])
    rows, counts = old_news(records, indexes, old)
    return _rows(rows), _rows(counts)

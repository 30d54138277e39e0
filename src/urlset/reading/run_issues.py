"""The issues of a run of the compiled core's records, said in the order and words the
careful lane gives them before the run's entries are passed on: each value's whitespace around
it, its loc made a URI, its value the reader reports (a lenient or invalid lastmod, a
changefreq in another case, an invalid priority), its extension elements out of the schema's
order. The core notes them (record, line, ...); the sink's own methods word them, so one
problem has one code and one text whichever lane read it. Past the cap of a code an issue is
only counted, so the notes past it are counted at once.
"""

from __future__ import annotations

import sys
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from .._core import loc_read_iri_only
from ..model import SitemapRef, Url
from .sink import MAX_ISSUES_PER_CODE, Sink

if TYPE_CHECKING:
    from .._core import OrderNote, PadNote, RecordRenderer, UrlsetScanner, ValueNote


def converted_run(
    sink: Sink,
    found: Sequence[tuple[int, int, str | None, str]],
    more: int = 0,
    column: int = 0,
) -> None:
    """``Sink.converted`` for a run of (record, line, text, uri) the compiled core made URIs
    of (each differs from its text), the next records passed on: past the listed issues
    only counted, and none past the entry limit (reading stops there). A text is None
    only past the issues listed when the run was read (``Sink.converted_listed``); ``more``
    counts those the render lane gave no tuple for. ``column``: where each loc starts,
    when known (a text sitemap's line: 1)."""
    room = max(sink.limits.max_entries, sink.next_check) - sink.count  # see ``Sink.add``
    if found and found[-1][0] >= room:
        found = [c for c in found if c[0] < room]
    listed = sink.converted_listed()
    for _, line, text, uri in found[:listed]:
        assert text is not None, "a listed issue without its text"
        sink.converted(text, uri, line, column)
    sink.odd_made |= any(t[2] is None or not loc_read_iri_only(t[2]) for t in found)
    more += max(len(found) - listed, 0)
    if more:  # past the listed ones, without their texts: counted here
        sink.made_uris += more
        sink.per_code["normalized-url"] = sink.per_code.get("normalized-url", 0) + more


def add_each(
    sink: Sink,
    entries: Iterable[Url | SitemapRef],
    lines: Sequence[int],
    converted: list[tuple[int, int, str | None, str]],
    notes: Sequence[OrderNote] = (),
    values: tuple[Sequence[ValueNote], Sequence[int]] = ((), ()),
    pads: tuple[Sequence[PadNote], Sequence[int]] = ((), ()),
) -> bool:
    """``Sink.add`` for each of a run of entries with their lines, each with its issues just
    before it in the order the careful lane gives them: its values', element by element
    (one written padded, ``pads``, then its loc made a URI, ``converted``: record, line,
    text, uri, or its value the reader reports, ``values``), then its extension elements
    out of the schema's order (``notes``). The values and pads past their codes' caps are
    counted at the end (``scanned_notes``' counts: none is of the last entry, the one the
    entry limit may refuse). False when reading must stop."""
    said: dict[int, list[tuple[int, Any]]] = {}
    for pad in pads[0]:
        said.setdefault(pad[0], []).append((2 * pad[2], pad))
    for conversion in converted:
        said.setdefault(conversion[0], []).append((1, (0, *conversion[1:])))
    for value in values[0]:
        said.setdefault(value[0], []).append((2 * value[2] + 1, value))
    late: dict[int, list[OrderNote]] = {}
    for note in notes:
        late.setdefault(note[0], []).append(note)
    going = True
    for i, entry in enumerate(entries):
        for place, item in sorted(said.get(i, ()), key=_record):
            _SAY[place if place < 2 else 2 + place % 2](sink, [item])
        if i in late:
            order_notes(sink, late[i])
        if not sink.add(entry, lines[i]):
            going = False
            break
    _count_past(sink, values[1], pads[1])
    return going


_record = itemgetter(0)  # a conversion's or note's record, by which both are ordered


def run_issues(
    sink: Sink,
    converted: Sequence[tuple[int, int, str | None, str]],
    more: int = 0,
    notes: Sequence[OrderNote] = (),
    values: tuple[Sequence[ValueNote], Sequence[int]] = ((), ()),
    pads: tuple[Sequence[PadNote], Sequence[int]] = ((), ()),
) -> None:
    """A compiled run's issues before its entries are passed on, each record's in the order
    the careful lane gives them, element by element: a value's whitespace around it
    (``pads``: the listed ones and how many more of each element, ``pad_run``), then its loc
    made a URI (``converted_run``) or its value the reader reports (``values``: the listed
    ones and how many more of each code, ``value_run``); then its extension elements out of
    the schema's order (``notes``). None past the entry limit (reading stops there); past the
    cap of its code an issue is only counted, so those are counted at once, not put in
    order."""
    room = max(sink.limits.max_entries, sink.next_check) - sink.count  # see ``Sink.add``

    def before_limit(items: Sequence[Any]) -> Sequence[Any]:
        if not items or items[-1][0] < room:
            return items
        return items[: bisect_left(items, room, key=_record)]

    padded = before_limit(pads[0])
    past: Counter[str] = Counter()
    padded = _listed(sink, padded, "whitespace-in-value", past)
    judged = _listed(sink, before_limit(values[0]), _judged_code, past)
    # an element's issues in its place: its padding (even), then its value's (odd)
    places: list[list[Any]] = [[], list(before_limit(converted)), [], [], [], [], [], []]
    for pad in padded:
        places[2 * pad[2]].append(pad)
    for value in judged:
        places[2 * value[2] + 1].append(value)
    streams: list[tuple[Sequence[Any], Callable[[Sink, Any], None]]] = [
        (items, _SAY[place if place < 2 else 2 + place % 2])
        for place, items in enumerate(places)
        if items
    ]
    if notes:
        streams.append((_listed(sink, before_limit(notes), "extension-order", past), order_notes))
    if len(streams) == 1:
        streams[0][1](sink, streams[0][0])
    elif streams:
        _in_record_order(sink, streams)
    if more:
        converted_run(sink, (), more)
    per_code = sink.per_code
    for code, n in past.items():  # after those said: they fill the cap first
        if n:
            per_code[code] = per_code.get(code, 0) + n
    _count_past(sink, values[1], pads[1])


def scanned_notes(
    scanner: UrlsetScanner,
) -> tuple[list[OrderNote], tuple[list[ValueNote], list[int]], tuple[list[PadNote], list[int]]]:
    """The last scan's notes (extension elements out of order, values the reader reports,
    values written padded: the listed ones and how many more of each code), taken."""
    return (
        scanner.scanned_order_notes(),
        scanner.scanned_value_notes(),
        scanner.scanned_pad_notes(),
    )


def rendered_issues(
    sink: Sink,
    renderer: RecordRenderer,
    converted: Sequence[tuple[int, int, str | None, str]],
    more: int,
) -> None:
    """``run_issues`` of the render lane's last run: its conversions (``more`` past the
    listed ones) and the notes ``renderer`` took."""
    notes = renderer.order_notes()
    run_issues(sink, converted, more, notes, renderer.value_notes(), renderer.pad_notes())
    note_room(sink, renderer)


def note_room(sink: Sink, noter: RecordRenderer | UrlsetScanner) -> None:
    """Have the next takes of ``noter`` list only what the sink still lists: past a code's
    cap, no tuples."""
    noter.note_room(
        [_room(sink, code) for code in _JUDGED_CODES], _room(sink, "whitespace-in-value")
    )


def _count_past(sink: Sink, values: Sequence[int], pads: Sequence[int]) -> None:
    """Count the issues of a run's values past their codes' caps (``scanned_notes``' counts:
    each code's, and each element's padded)."""
    per_code = sink.per_code
    for code, n in (*zip(_JUDGED_CODES, values, strict=False), ("whitespace-in-value", sum(pads))):
        if n:
            per_code[code] = per_code.get(code, 0) + n


def _room(sink: Sink, code: str) -> int:
    """How many more issues of ``code`` the sink lists (none of the code no value has)."""
    return max(MAX_ISSUES_PER_CODE - sink.per_code.get(code, 0), 0) if code else 0


def _listed(
    sink: Sink,
    items: Sequence[tuple[Any, ...]],
    code_of: Callable[[Any], str] | str,
    past: Counter[str],
) -> Sequence[tuple[Any, ...]]:
    """The ``items`` whose issues are still listed (their code's cap not reached), in order;
    the others counted in ``past``. ``code_of``: the items' one code, or each one's."""
    if not items:
        return items
    codes = [code_of] if isinstance(code_of, str) else list({code_of(i) for i in items})
    left = {code: MAX_ISSUES_PER_CODE - sink.per_code.get(code, 0) for code in codes}
    if min(left.values()) >= len(items):
        return items
    if len(codes) == 1:  # a slice, not a loop: a take lists a thousand
        keep = max(left[codes[0]], 0)
        past[codes[0]] += len(items) - keep
        return items[:keep]
    assert callable(code_of)
    listed = []
    for item in items:
        code = code_of(item)
        if left[code] > 0:
            listed.append(item)
        else:
            past[code] += 1
        left[code] -= 1
    return listed


def _judged_code(note: ValueNote) -> str:
    return _JUDGED_CODES[2 * note[2] - 2 + note[4]]


def _in_record_order(
    sink: Sink, streams: list[tuple[Sequence[tuple[Any, ...]], Callable[[Sink, Any], None]]]
) -> None:
    """Each stream's issues (by record) said by its function, a record's in the streams'
    order: in stretches, by bisection (a run can hold thousands of each)."""
    at = [0] * len(streams)
    while True:
        # the next issue: of the lowest record, the earliest stream's on a tie
        best, record = -1, sys.maxsize
        for k, (items, _) in enumerate(streams):
            if at[k] < len(items) and items[at[k]][0] < record:
                best, record = k, items[at[k]][0]
        if best < 0:
            return
        items, say = streams[best]
        # on to the next record another stream comes first at
        stop = len(items)
        for k, (other, _) in enumerate(streams):
            if k != best and at[k] < len(other):
                bisect = bisect_left if k < best else bisect_right
                stop = min(stop, bisect(items, other[at[k]][0], lo=at[best], key=_record))
        say(sink, items[at[best] : stop])
        at[best] = stop


def value_run(sink: Sink, notes: Sequence[ValueNote]) -> None:
    """The issue of each value the compiled core judged as the reader does ((record, line,
    element, text, invalid) each): the sink's own for that value (past its code's cap
    counted by it)."""
    for _, line, element, text, _ in notes:
        if element == 1:
            sink.lastmod(text, line)
        elif element == 2:
            sink.changefreq(text, line)
        else:
            sink.priority(text, line)


# the codes of the values the core judges, by place (rust/core/src/read/records.rs
# JudgedValue::code: a lastmod's two, a changefreq's, a priority's invalid one)
_JUDGED_CODES = (
    "lenient-lastmod",
    "invalid-lastmod",
    "changefreq-case",
    "invalid-changefreq",
    "",
    "invalid-priority",
)
_PADDED = ("loc", "lastmod", "changefreq", "priority")


def pad_run(sink: Sink, notes: Sequence[PadNote]) -> None:
    """``whitespace-in-value`` for each value the compiled core read stripped ((record, line,
    element, text) each), in ``Sink.padded``'s words (past the cap counted by it)."""
    for _, line, element, text in notes:
        sink.padded(_PADDED[element], text, line)


# what says an element's issues: its padding, its loc made a URI, its value's (the even
# places of ``run_issues`` and ``add_each`` are paddings, 1 the loc's, the other odd a value's)
_SAY: tuple[Callable[[Sink, Any], None], ...] = (pad_run, converted_run, pad_run, value_run)


def order_notes(sink: Sink, notes: Sequence[OrderNote]) -> None:
    """``extension-order`` for each image, video, news article or publication whose children
    the compiled core read out of the schema's order (``OrderNote``s), worded as the
    extension's reader words it; past the listed ones counted, as ``Sink.issue`` counts."""
    from ..extensions import image, news, video
    from ..extensions.common import order_warning

    orders: tuple[tuple[str, Sequence[str]], ...] = (
        (image.PREFIX, image.IMAGE_CHILDREN),
        (video.PREFIX, video.VIDEO_CHILDREN),
        (news.PREFIX, news.NEWS_CHILDREN),
        (news.PREFIX, news.PUBLICATION_CHILDREN),
    )
    listed = max(MAX_ISSUES_PER_CODE - sink.per_code.get("extension-order", 0), 0)
    for _, line, kind, child, after in notes[:listed]:
        prefix, order = orders[kind]
        sink.issue("extension-order", order_warning(prefix, order, child, after), line)
    if len(notes) > listed:
        sink.per_code["extension-order"] += len(notes) - listed

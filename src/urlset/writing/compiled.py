"""A batch the compiled core rendered, cut into runs: the entries it rendered, and between
them the input rows it refused (``RenderedRows.refused``), which go the per-entry way on
their own, in their place. A row costs itself, never its batch or its file."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from .._core import RenderedRows
from ..model import Url, row_from_dict
from .document import render_rows
from .source_rows import SourceEntries, SourceRows
from .tables import TableBatch

Run = tuple[int, int, RenderedRows | None]  # input rows start..end: rendered, or None: refused
_ROW_KINDS = frozenset({TableBatch, tuple, Url, SourceRows})
_VALUE_KINDS = frozenset({tuple, Url})  # rows and Url values (with images at most)
_MAPPINGS = frozenset({dict})


def render_batch(
    given: Any,
    kinds: set[type],
    prefix: str,
    text: bool,
    left_core: Counter[str],
    bypass: str | None,
) -> RenderedRows | None:
    """A batch of rows rendered in the compiled core (its refused rows among them), or None
    when it is not rows or cannot go that way at all, counted in ``left_core`` by why
    (``bypass``: a build option that sends every row the per-entry way)."""
    if kinds == {SourceEntries}:
        left_core[given.reason] += len(given.entries)
        return None
    if not kinds or not kinds <= _ROW_KINDS:
        if not kinds.isdisjoint(_VALUE_KINDS):
            left_core["mixed-batch"] += sum(type(entry) in _VALUE_KINDS for entry in given)
        if not kinds.isdisjoint(_MAPPINGS):  # each read by row_from_dict, one by one
            left_core["mapping"] += sum(type(entry) in _MAPPINGS for entry in given)
        return None
    if bypass is not None:
        left_core[bypass] += len(given)
        return None
    # on two threads with gzip too: this thread is the critical path (ARCHITECTURE.md)
    if kinds == {TableBatch}:
        rendered: RenderedRows | None = given.render(prefix, text=text, beside=True)
        if rendered is None:
            left_core["column-type"] += len(given)
        return rendered
    if kinds <= _VALUE_KINDS:
        return render_rows(given, prefix, text=text, beside=True)
    source: SourceRows = given  # a source's rows: checked only there
    return source.render(prefix, text=text)


_CORE_KEYS = frozenset({"loc", "lastmod", "changefreq", "priority"})


def mapping_rows(given: list[Any]) -> list[tuple[Any, ...]] | None:
    """A batch of entry mappings as the rows ``model.row_from_dict`` makes of them, for the
    core to render as any rows (a refused one goes the per-entry way as a row, which reads it
    as it reads the mapping), when each is a dict of the core keys with a loc; else None (the
    per-entry way reads the mappings, and says what is wrong)."""
    for entry in given:
        if type(entry) is not dict or "loc" not in entry or not entry.keys() <= _CORE_KEYS:
            return None
    return list(map(row_from_dict, given))


def refused_runs(
    rendered: RenderedRows, count: int, refused: list[tuple[int, str]]
) -> Iterator[Run]:
    """The runs of a batch of ``count`` input rows, in order: ``refused`` holds the positions
    of the rows the core did not render (ascending), ``rendered`` the others' entries."""
    done = taken = 0  # input rows passed; entries used
    index = 0
    while index < len(refused):
        start = refused[index][0]
        if start > done:
            yield done, start, rendered.range(taken, taken + start - done)
            taken += start - done
        end = start + 1
        index += 1
        while index < len(refused) and refused[index][0] == end:
            end += 1
            index += 1
        yield start, end, None
        done = end
    if done < count:  # the whole batch as it is when the core refused none (no copy)
        yield done, count, rendered if not refused else rendered.range(taken, len(rendered))


def without_entries(
    rendered: RenderedRows, count: int, left: dict[int, str]
) -> tuple[RenderedRows, list[tuple[int, str]]]:
    """``rendered`` without the entries ``left`` names, each with why (a lastmod later than
    the build's now, which the per-entry way leaves out and reports; a news article outside
    the news window), those refused in their place."""
    refused = rendered.refused()
    taken = sorted({at for at, _ in refused} ^ set(range(count)))  # input row of each entry
    refused += [(taken[index], why) for index, why in left.items()]
    keep = bytearray(b"\x01") * len(rendered)
    for index in left:
        keep[index] = 0
    return rendered.select(bytes(keep)), sorted(refused)


def rows_between(given: Any, start: int, end: int) -> Any:
    """Input rows ``start..end`` of a batch, of the batch's own kind (a list of rows, a table
    batch or a source's rows, with the unreadable lines among them)."""
    if type(given) is TableBatch:
        return given.part(start, end)
    if type(given) is SourceRows:
        return given.part(start, end)
    return given[start:end]

"""A source's rows on their way to the build: ``SourceRows`` (a batch of rows not yet
checked, with their lines) and the per-row checks a batch falls back to when the compiled
core refuses it, so that every problem keeps its source line."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import tzinfo
from itertools import islice
from typing import Any

from ..errors import InputError, InvalidValue
from ..model import Url, url_keeping_loc, urls_from_rows
from .tables import TableBatch, is_table, table_batches

CoreRow = tuple[str, str | None, str | None, str | None]  # loc, lastmod, changefreq, priority


class SourceRows:
    """A batch of a source's (loc, lastmod, changefreq, priority) rows, not yet checked, with
    the line of each, and the lines the source could not read (``errors``: the number of rows
    before each, and its InputError). The build hands the rows to the compiled core, which
    checks every value while it renders them (checking them here first too cost twice the
    core's time); ``entries`` gives what ``iter_entries`` gives for the same lines, in order,
    for a batch the core refuses, so that each problem keeps its line."""

    __slots__ = ("default_tz", "errors", "numbers", "rows", "source")

    def __init__(
        self,
        rows: list[CoreRow],
        numbers: list[int],
        source: str,
        default_tz: tzinfo | None,
        errors: list[tuple[int, InputError]] | None = None,
    ) -> None:
        self.rows = rows
        self.numbers = numbers
        self.source = source
        self.default_tz = default_tz
        self.errors = errors or []

    def entries(self) -> list[Url | InputError]:
        """The rows checked one by one (``Url`` or ``InputError``), and the errors, in order."""
        checked = checked_rows(
            list(zip(self.numbers, self.rows, strict=True)), self.source, self.default_tz
        )
        if not self.errors:
            return checked
        out: list[Url | InputError] = []
        done = 0
        for before, error in self.errors:
            out += checked[done:before]
            out.append(error)
            done = before
        return out + checked[done:]


Row = CoreRow | SourceRows  # what a batch of ``iter_batches(rows=True)`` holds beside entries


def checked_rows(
    numbered: list[tuple[int, tuple[Any, ...]]], source: str, default_tz: tzinfo | None
) -> list[Url | InputError]:
    """Check a batch of (line number, row) column by column; failures keep their line."""
    results = urls_from_rows([row for _, row in numbered], default_tz=default_tz)
    if InvalidValue not in set(map(type, results)):
        return results  # type: ignore[return-value]  # all Urls
    return [
        result if type(result) is Url else kept_or_error(source, number, row, default_tz)
        for (number, row), result in zip(numbered, results, strict=True)
    ]


def written_without(exc: InvalidValue) -> str:
    return f"{exc} (written without its {exc.field})"


def kept_or_error(
    source: str, number: int, row: Sequence[Any], default_tz: tzinfo | None
) -> InputError:
    """Why a row failed; with the Url it still gives when only optional fields were bad."""
    try:
        kept, dropped = url_keeping_loc(row, default_tz=default_tz)
    except InvalidValue as exc:
        return InputError(source, number, str(exc), exc.field)
    except TypeError:
        return InputError(source, number, "a row is (loc, lastmod, changefreq, priority)")
    reason = "; ".join(map(written_without, dropped))
    return InputError(source, number, reason, dropped[0].field, kept=kept)


_SOURCE_PULL = 16  # entries pulled at once unless they are rows from Python
_TABLE_KINDS: set[type] = {TableBatch}
_SOURCE_KINDS: set[type] = {SourceRows}


def entry_batches(entries: Iterable[Any], size: int) -> Iterator[tuple[Any, set[type]]]:
    """A build's entries ``size`` at a time with the types in each batch: lists of entries, a
    table's rows as Arrow columns (``TableBatch``), or a source's ``SourceRows`` (a batch
    already) on its own.

    A batch that starts with a (loc, lastmod, changefreq, priority) tuple is pulled at once;
    other entries (``Url`` values, a source's errors, which ``SourceRows`` of thousands of
    rows each may follow) a few at a time and gathered, so that no more than a few
    ``SourceRows`` are ever held at once."""
    if is_table(entries):
        yield from ((batch, _TABLE_KINDS) for batch in table_batches(entries, size))
        return
    iterator = iter(entries)
    gathered: list[Any] = []
    kinds: set[type] = set()
    for first in iterator:
        if type(first) is SourceRows:  # on its own, with nothing read ahead of it
            if gathered:
                yield gathered, kinds
                gathered, kinds = [], set()
            yield first, _SOURCE_KINDS
            continue
        pull = size - len(gathered) if type(first) is tuple else _SOURCE_PULL
        batch = [first, *islice(iterator, max(pull, 1) - 1)]
        found = set(map(type, batch))
        if SourceRows in found:
            for entry in batch:
                if type(entry) is not SourceRows:
                    gathered.append(entry)
                    kinds.add(type(entry))
                    continue
                if gathered:
                    yield gathered, kinds
                    gathered, kinds = [], set()
                yield entry, _SOURCE_KINDS
            continue
        gathered = batch if not gathered else gathered + batch
        kinds |= found
        if len(gathered) >= size:
            yield gathered, kinds
            gathered, kinds = [], set()
    if gathered:
        yield gathered, kinds

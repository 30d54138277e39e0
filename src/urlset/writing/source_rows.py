"""A source's rows on their way to the build: ``SourceRows`` (a batch of rows parsed in the
compiled core, not yet checked, with their lines) and the per-row checks a batch falls back to
when the core refuses it, so that every problem keeps its source line."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import suppress
from datetime import tzinfo
from itertools import islice
from typing import Any, TypeVar

from .._core import RenderedRows, SourceBatch, render_rows, types_of
from ..dates import check_lastmod
from ..errors import InputError, InvalidValue, written_without
from ..limits import MAX_LOC_LENGTH
from ..model import OPTIONAL_FIELDS, Url, optional_faults, url_keeping_loc, urls_from_rows
from ..urls import resolved_loc
from .sections import COLUMN, DEFAULT, checked_name
from .tables import TableBatch, is_table, table_batches

CoreRow = tuple[
    str, str | None, str | None, str | float | None
]  # loc, lastmod, changefreq, priority
KeptWarning = tuple[str, str, str | None, int | None]  # code, message, source and line


class PythonRows:
    """Rows made in Python, with the methods of ``SourceBatch``."""

    __slots__ = ("_lines", "_rows")

    def __init__(self, rows: list[CoreRow], lines: list[int]) -> None:
        self._rows = rows
        self._lines = lines

    def __len__(self) -> int:
        return len(self._rows)

    def count(self) -> int:
        return len(self._rows)

    def lines(self) -> list[int]:
        return self._lines

    def problems(self) -> list[tuple[int, int, str]]:
        return []

    def long_rows(self, start: int, end: int) -> list[tuple[int, list[bytes]]]:
        return []

    def rows(self, at: list[int] | None = None) -> list[CoreRow]:
        return self._rows if at is None else [self._rows[index] for index in at]

    def render(self, prefix: str, max_length: int, text: bool) -> RenderedRows | None:
        return render_rows(self._rows, prefix, max_length, text) if self._rows else None


class SourceRows:
    """A batch of a source's (loc, lastmod, changefreq, priority) rows as the compiled reader
    parsed them (``urlset._core.SourceBatch``: the texts in one buffer, no object per row),
    not yet checked, with the line of each, and the lines the source could not read
    (``errors``: the number of rows before each, and its InputError). The build renders the
    rows in the compiled core (``render``), which checks every value; ``entries`` gives what
    ``iter_entries`` gives for the same lines, in order, for a batch the core refuses, so that
    each problem keeps its line. ``base``: the base directory a relative loc is resolved
    against when the rows are checked one by one (the build gives its own)."""

    __slots__ = (
        "_numbers",
        "_sections",
        "base",
        "batch",
        "default_tz",
        "errors",
        "read_long",
        "sections",
        "source",
    )

    def __init__(
        self,
        batch: SourceBatch | PythonRows,
        source: str,
        default_tz: tzinfo | None,
        read_long: LongReader | None = None,
        sections: dict[str, str] | None = None,
        base: str | None = None,
    ) -> None:
        self.batch = batch
        self.source = source
        self.default_tz = default_tz
        self.read_long = read_long
        # with a section column: loc -> section, filled as the rows are used
        self.sections = sections
        self._sections: tuple[list[str], Sequence[int]] | None = None
        self.base = base
        self._numbers: list[int] | None = None
        self.errors = [
            (before, InputError(source, line, reason)) for before, line, reason in batch.problems()
        ]

    def __len__(self) -> int:
        return len(self.batch)

    @property
    def rows(self) -> list[CoreRow]:
        """The rows as tuples (made on each call: only a refused batch needs them)."""
        return self.batch.rows()

    @property
    def numbers(self) -> list[int]:
        """The line of each row (made once: each row the core refuses asks for its own)."""
        if self._numbers is None:
            self._numbers = self.batch.lines()
        return self._numbers

    def section_codes(self) -> tuple[list[str], Sequence[int]] | None:
        """The sections the rows name (``SourceBatch.sections``: the names, each checked
        once, and per row its name's place plus one, 0 for none); None without any."""
        if self.sections is None or isinstance(self.batch, PythonRows):
            return None
        if self._sections is None:
            found = self.batch.sections()
            if found is None:
                return None
            names, given = found
            codes = memoryview(given).cast("I")
            checked = []
            for code, name in enumerate(names, 1):
                if not name.strip():  # blank: the default section, as a blank CSV cell is
                    checked.append(DEFAULT)
                    continue
                line = self.numbers[list(codes).index(code)] if not _safe(name) else 0
                checked.append(
                    checked_name(name.strip(), where=f"{COLUMN} at {self.source}:{line}")
                )
            self._sections = checked, codes
        return self._sections

    def note_sections(self, locs: Sequence[str], start: int, end: int) -> None:
        """Record the sections of rows ``start..end``, whose entries have ``locs``, in place
        of the last run's: the build takes a run's sections before it reads on, so memory
        holds one run's, not the set's."""
        if self.sections is not None:
            self.sections.clear()
        found = self.section_codes()
        if found is None or self.sections is None:
            return
        names, codes = found
        for loc, code in zip(locs, codes[start:end], strict=True):
            # a loc the run repeats keeps its first copy's section, as the build keeps it
            self.sections.setdefault(loc, names[code - 1] if code else DEFAULT)

    def render(self, prefix: str, *, text: bool = False) -> RenderedRows | None:
        """The rows rendered in the compiled core with the checks of ``document.render_rows``,
        each row that needs the long way refused in its place; None when there are none."""
        return self.batch.render(prefix, MAX_LOC_LENGTH, text)

    def repaired(self, at: list[int], default_tz: tzinfo | None = None) -> Repaired:
        """``repaired_rows`` of this batch's rows ``at`` (not a long row), each warning as
        the per-entry way reports the line (``kept_or_error``'s InputError: the code of its
        first fault, its line and every fault "written without")."""
        long = {index for index, _ in self.batch.long_rows(at[0], at[-1] + 1)} if at else set()
        places = [index for index in at if index not in long]
        numbers, source = self.numbers, self.source

        def warned(index: int, faults: list[InvalidValue]) -> tuple[KeptWarning, ...]:
            reason = "; ".join([written_without(fault, fault.field) for fault in faults])
            line = numbers[index]
            message = f"{source}:{line}: {reason}"  # str(InputError(source, line, reason))
            return ((f"invalid-{faults[0].field}", message, source, line),) if faults else ()

        return repaired_rows(self.batch.rows(places), places, warned, default_tz)

    def lines_by_loc(self, base: str | None = None) -> dict[str, int]:
        """The line of each row by its loc as written, a relative one resolved (where a loc
        the build leaves out later, outside the scope, came from)."""
        return self.part(0, len(self)).lines_by_loc(base)

    def entries(self, base: str | None = None) -> list[Url | InputError]:
        """The rows checked one by one (``Url`` or ``InputError``), and the errors, in order;
        a relative loc resolved against ``base`` (default: the source's)."""
        return self.part(0, len(self), whole=True).entries(base)

    def part(self, start: int, end: int, *, whole: bool = False) -> SourcePart:
        """Rows ``start..end``, with the unreadable lines among them (and, ``whole``, those
        before the first row and after the last)."""
        low, high = (-1, end + 1) if whole else (start, end)
        errors = [(before, error) for before, error in self.errors if low < before < high]
        return SourcePart(self, start, end, errors)


def _safe(name: str) -> bool:
    try:
        checked_name(name.strip())
    except InvalidValue:
        return False
    return True


# a long row's line, cells and the base directory its loc is resolved against
LongReader = Callable[[int, list[bytes], str | None], list[Url | InputError]]


class SourcePart:
    """Rows of a ``SourceRows`` checked one by one, in order: core rows as ``checked_rows``
    checks them, long rows (``SourceBatch.long_rows``) by the source's own reader."""

    __slots__ = ("end", "errors", "rows", "source", "start")

    def __init__(
        self, rows: SourceRows, start: int, end: int, errors: list[tuple[int, InputError]]
    ) -> None:
        self.rows = rows
        self.source = rows.source
        self.start = start
        self.end = end
        self.errors = errors

    def _long(self) -> dict[int, list[bytes]]:
        if self.rows.read_long is None:
            return {}
        return dict(self.rows.batch.long_rows(self.start, self.end))

    def _plain(
        self, long: dict[int, list[bytes]], base: str | None
    ) -> list[tuple[int, int, CoreRow]]:
        """(position, line, row) of each core row, a relative loc resolved against ``base``."""
        at = [index for index in range(self.start, self.end) if index not in long]
        numbers = self.rows.numbers
        rows = self.rows.batch.rows(at)
        if base is not None:
            rows = [resolved_row(row, base) for row in rows]
        return [(index, numbers[index], row) for index, row in zip(at, rows, strict=True)]

    def lines_by_loc(self, base: str | None = None) -> dict[str, int]:
        """The line of each core row by its loc (resolved against ``base``, default: the
        source's)."""
        plain = self._plain(self._long(), base or self.rows.base)
        return {row[0].strip(): number for _, number, row in plain if row[0]}

    def entries(self, base: str | None = None) -> list[Url | InputError]:
        """The rows checked one by one, in order; a relative loc resolved against ``base``
        (default: the source's)."""
        base = base or self.rows.base
        if self.rows.sections is not None:
            self.rows.sections.clear()  # the last run's are taken (``note_sections``)
        long = self._long()
        plain = self._plain(long, base)
        source, default_tz = self.source, self.rows.default_tz
        checked = checked_rows([(number, row) for _, number, row in plain], source, default_tz)
        found = self.rows.section_codes()
        if found is not None and self.rows.sections is not None:
            names, codes = found
            for (index, _, _), entry in zip(plain, checked, strict=True):
                url = entry if type(entry) is Url else getattr(entry, "kept", None)
                if codes[index] and url is not None:
                    self.rows.sections[url.loc] = names[codes[index] - 1]
        if not long and not self.errors:
            return checked
        by_index: dict[int, list[Url | InputError]] = {
            index: [entry] for (index, _, _), entry in zip(plain, checked, strict=True)
        }
        read_long = self.rows.read_long
        numbers = self.rows.numbers
        if read_long is not None:
            for index, cells in long.items():
                by_index[index] = read_long(numbers[index], cells, base)
        errors = iter(self.errors)
        error = next(errors, None)
        out: list[Url | InputError] = []
        for index in range(self.start, self.end):
            while error is not None and error[0] <= index:
                out.append(error[1])
                error = next(errors, None)
            out += by_index[index]
        if error is not None:
            out += [error[1], *(e for _, e in errors)]
        return out


class SourceEntries:
    """A source's entries read the per-entry way (``Url`` or ``InputError``), and why they
    left the compiled path (``reason``: the build counts them in ``BuildReport.left_core``)."""

    __slots__ = ("entries", "reason")

    def __init__(self, entries: list[Url | InputError], reason: str) -> None:
        self.entries = entries
        self.reason = reason


# what a batch of ``iter_batches(rows=True)`` holds beside entries
Row = CoreRow | SourceRows | SourceEntries


_ROW = TypeVar("_ROW", bound=tuple[Any, ...])


def resolved_row(row: _ROW, base: str | None) -> _ROW:
    """``row`` with its loc (first) resolved against ``base`` when relative
    (``urls.resolved_loc``, as the compiled core resolves it)."""
    loc = row[0] if row else None
    if base is None or type(loc) is not str or loc.startswith(base):
        return row
    resolved = resolved_loc(loc, base)
    return row if resolved is loc else (resolved, *row[1:])  # type: ignore[return-value]


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


def not_utf8(text: str) -> bool:
    """Whether text decoded with ``surrogateescape`` held bytes that are not UTF-8."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def without_extensions(
    source: str, number: int, row: Sequence[Any], exc: InvalidValue, default_tz: tzinfo | None
) -> InputError:
    """A line whose extension values are bad still gives its page, without them."""
    try:
        kept, dropped = url_keeping_loc(row[:4], default_tz=default_tz)
    except (InvalidValue, TypeError):
        return kept_or_error(source, number, row[:4], default_tz)  # the loc is bad too
    reasons = [written_without(exc, "extensions"), *(written_without(d, d.field) for d in dropped)]
    return InputError(source, number, "; ".join(reasons), exc.field, kept=kept)


def with_notes(
    source: str, number: int, row: Sequence[Any], notes: list[str], default_tz: tzinfo | None
) -> InputError:
    """A line written without the extension values ``notes`` name (each a ``Note`` with its
    code), and without any other optional value at fault; an error when its loc is bad."""
    try:
        kept, dropped = url_keeping_loc(row, default_tz=default_tz)
    except (InvalidValue, TypeError):
        return kept_or_error(source, number, row[:4], default_tz)  # the loc is bad too
    problems = (
        *((getattr(note, "code", "invalid-extensions"), str(note)) for note in notes),
        *((f"invalid-{exc.field}", written_without(exc, exc.field)) for exc in dropped),
    )
    reason = "; ".join(message for _, message in problems)
    return InputError(source, number, reason, "extensions", kept=kept, notes=problems)


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
    reason = "; ".join(written_without(exc, exc.field) for exc in dropped)
    return InputError(source, number, reason, dropped[0].field, kept=kept)


# rows the core refused for their values, some repaired: their places, their rows without
# the values at fault, and each one's warnings
Repaired = tuple[list[int], list[Any], list[tuple[KeptWarning, ...]]]


def _warned(_: int, faults: list[InvalidValue]) -> tuple[KeptWarning, ...]:
    """A Python row's warnings as ``checked._convert`` reports them: one a fault."""
    return tuple((f"invalid-{f.field}", written_without(f, f.field), None, None) for f in faults)


def repaired_rows(
    rows: Sequence[tuple[Any, ...]],
    at: list[int],
    warned: Callable[[int, list[InvalidValue]], tuple[KeptWarning, ...]] = _warned,
    default_tz: tzinfo | None = None,
) -> Repaired:
    """Of ``rows`` (at places ``at``), which the core refused for their values, those the
    per-entry way keeps without the values at fault (``model.optional_faults``; not one with
    a value of an unusual type): their places, their rows without those values (for the
    core to render after all) and their warnings (``warned``: of a place and its faults).
    With ``default_tz``, a lastmod text without a zone is the time Python makes it in that
    zone (the core writes a zoned time as Python writes it)."""
    taken: list[int] = []
    kept: list[Any] = []
    warnings: list[tuple[KeptWarning, ...]] = []
    for index, given in zip(at, rows, strict=True):
        row, zoned = given, False
        if default_tz is not None and type(given[1]) is str and given[1].strip():
            # read once (a file of them has a new text a row); a fault is found below
            with suppress(InvalidValue):
                row, zoned = (given[0], check_lastmod(given[1], default_tz), *given[2:]), True
        try:
            faults = optional_faults(row, default_tz)
        except TypeError:
            continue
        if not faults and not zoned:
            continue
        fields = list(row)
        for fault in faults:
            fields[OPTIONAL_FIELDS[fault.field]] = None
        taken.append(index)
        kept.append(tuple(fields))
        warnings.append(warned(index, faults))
    return taken, kept, warnings


_SOURCE_PULL = 16  # entries pulled at once unless they are rows from Python
_TABLE_KINDS: set[type] = {TableBatch}
_SOURCE_KINDS: set[type] = {SourceRows}
_ENTRIES_KINDS: set[type] = {SourceEntries}
_ON_THEIR_OWN = frozenset({SourceRows, SourceEntries})


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
        if type(first) in _ON_THEIR_OWN:  # on its own, with nothing read ahead of it
            if gathered:
                yield gathered, kinds
                gathered, kinds = [], set()
            yield first, (_SOURCE_KINDS if type(first) is SourceRows else _ENTRIES_KINDS)
            continue
        pull = size - len(gathered) if type(first) is tuple else _SOURCE_PULL
        batch = [first, *islice(iterator, max(pull, 1) - 1)]
        found = types_of(batch)  # set(map(type, batch)) at a tenth of the cost
        if not found.isdisjoint(_ON_THEIR_OWN):
            for entry in batch:
                if type(entry) not in _ON_THEIR_OWN:
                    gathered.append(entry)
                    kinds.add(type(entry))
                    continue
                if gathered:
                    yield gathered, kinds
                    gathered, kinds = [], set()
                yield entry, (_SOURCE_KINDS if type(entry) is SourceRows else _ENTRIES_KINDS)
            continue
        gathered = batch if not gathered else gathered + batch
        kinds |= found
        if len(gathered) >= size:
            yield gathered, kinds
            gathered, kinds = [], set()
    if gathered:
        yield gathered, kinds

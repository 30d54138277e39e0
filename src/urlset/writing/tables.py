"""Tables as build input: an Arrow table or record batch, a pandas or Polars DataFrame, or any
object exporting an Arrow stream, with the columns ``loc`` and optionally ``lastmod``,
``changefreq`` and ``priority``.

A table is cut into batches whose Arrow buffers go to the compiled core as they are
(``_core.render_columns``): no Python object is made per URL. A row with a value the core
does not take (a loc outside the scope or not a URL, an invalid or unusual value) becomes a
(loc, lastmod, changefreq, priority) row, which the build checks and reports on its own; a
column of a type the core does not read sends its batch that way.
pyarrow is imported only when a table is given.

Column types: ``loc`` text; ``lastmod`` text (W3C Datetime), a date, or a timestamp with a
time zone (written with its offset at that instant; a timestamp without a zone goes the
per-row way, where it needs ``default_tz``); ``changefreq`` text; ``priority`` a number or
text. Dictionary-encoded and view columns are decoded first.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from .._core import RenderedRows, render_columns
from ..errors import InvalidValue
from ..limits import MAX_LOC_LENGTH

if TYPE_CHECKING:
    import pyarrow as pa

COLUMNS = ("loc", "lastmod", "changefreq", "priority")
_FRAME_MODULES = {"pyarrow", "pandas", "polars"}


def is_table(entries: object) -> bool:
    """Whether ``entries`` is a table (not an iterable of entries), without importing pyarrow."""
    module = type(entries).__module__.partition(".")[0]
    return module in _FRAME_MODULES or hasattr(entries, "__arrow_c_stream__")


def as_arrow(entries: Any) -> pa.Table:
    """A table as an Arrow table (pyarrow, pandas, Polars, an Arrow stream)."""
    import pyarrow as pa

    if isinstance(entries, pa.Table):
        return entries
    if isinstance(entries, pa.RecordBatch):
        return pa.Table.from_batches([entries])
    module = type(entries).__module__.partition(".")[0]
    if module == "pandas":
        return pa.Table.from_pandas(entries, preserve_index=False)
    if module == "polars":
        return entries.to_arrow()
    return pa.table(entries)


class TableBatch:
    """Rows ``start`` to ``start + count`` of one chunk of a table; ``parts``: what
    ``render_columns`` reads of each of the four columns, made once for the chunk (None: the
    table has no such column; False: a type the core does not read)."""

    def __init__(self, chunk: pa.RecordBatch, parts: list[Any], start: int, count: int) -> None:
        self._chunk = chunk
        self._parts = parts
        self._start = start
        self._count = count

    def __len__(self) -> int:
        return self._count

    def part(self, start: int, end: int) -> TableBatch:
        """Rows ``start`` to ``end`` of this batch."""
        return TableBatch(self._chunk, self._parts, self._start + start, end - start)

    def render(self, prefix: str, *, text: bool, beside: bool = False) -> RenderedRows | None:
        """The rows rendered in the core, each one it cannot take refused in its place
        (``RenderedRows.refused``); None when a column has a type the core does not read.
        ``beside``: half of them on a second thread (as ``document.render_rows``)."""
        if any(part is False for part in self._parts):
            return None
        start = self._start
        parts = [
            None if part is None else (part[0], part[1] + start, *part[2:]) for part in self._parts
        ]
        loc, lastmod, changefreq, priority = parts
        return render_columns(
            self._count, loc, lastmod, changefreq, priority, prefix, MAX_LOC_LENGTH, text, beside
        )

    def rows(self) -> list[tuple[Any, ...]]:
        """The rows as (loc, lastmod, changefreq, priority) tuples of Python values."""
        rows = self._chunk.slice(self._start, self._count)
        names = rows.schema.names
        columns = [
            rows.column(name).to_pylist() if name in names else [None] * self._count
            for name in COLUMNS
        ]
        return list(zip(*columns, strict=True))


def _buffer(buffer: Any) -> bytes | None:
    return None if buffer is None else buffer.to_pybytes()


def _parts(array: Any, name: str) -> tuple[Any, ...] | bool:
    """What ``render_columns`` reads of a column: (kind, offset, validity, buffer, buffer);
    False for a type the core does not read."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = array.type
    if pa.types.is_dictionary(kind):
        array = array.dictionary_decode()
        kind = array.type
    if pa.types.is_null(kind):
        return ("floats", 0, bytes(len(array) // 8 + 1), bytes(8 * len(array)), None)
    if pa.types.is_string(kind) or pa.types.is_large_string(kind) or _is_view(kind):
        array = array.cast(pa.large_string())
        validity, offsets, data = array.buffers()
        return ("text", array.offset, _buffer(validity), _buffer(offsets), _buffer(data) or b"")
    if name == "lastmod" and pa.types.is_date32(kind):
        validity, values = array.buffers()
        return ("days", array.offset, _buffer(validity), _buffer(values), None)
    if name == "lastmod" and pa.types.is_date64(kind):
        return _parts(array.cast(pa.date32()), name)
    if name == "lastmod" and pa.types.is_timestamp(kind) and kind.tz is not None:
        utc = array.cast(pa.timestamp("us", kind.tz), safe=False)
        local = pc.local_timestamp(utc)
        validity, values = utc.buffers()
        return ("times", utc.offset, _buffer(validity), _buffer(values), _local(local, utc))
    if name == "priority" and (pa.types.is_floating(kind) or pa.types.is_integer(kind)):
        array = array.cast(pa.float64())
        validity, values = array.buffers()
        return ("floats", array.offset, _buffer(validity), _buffer(values), None)
    return False


def _local(local: Any, utc: Any) -> bytes:
    """The local times' values, laid out at the same offset as ``utc``'s."""
    import pyarrow as pa

    values = local.cast(pa.int64()).fill_null(0)
    data: bytes = values.buffers()[1].to_pybytes()
    return bytes(8 * utc.offset) + data[8 * values.offset : 8 * (values.offset + len(values))]


def _is_view(kind: Any) -> bool:
    import pyarrow as pa

    return bool(getattr(pa.types, "is_string_view", lambda _: False)(kind))


def table_batches(entries: object, size: int) -> Iterator[TableBatch]:
    """A table as batches of at most ``size`` rows; InvalidValue when it has no ``loc`` column
    or a column the protocol does not know."""
    table = as_arrow(entries)
    names = tuple(table.column_names)
    if "loc" not in names:
        raise InvalidValue("entries", names, "a table needs a 'loc' column")
    unknown = sorted(set(names) - set(COLUMNS))
    if unknown:
        raise InvalidValue("entries", unknown, f"unknown columns; a table has {', '.join(COLUMNS)}")
    for chunk in table.to_batches():
        parts = [_parts(chunk.column(name), name) if name in names else None for name in COLUMNS]
        for start in range(0, chunk.num_rows, size):
            yield TableBatch(chunk, parts, start, min(size, chunk.num_rows - start))

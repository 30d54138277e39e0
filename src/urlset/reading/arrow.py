"""A sitemap read into an Arrow table, without a Python object per entry on the plain path.

``read_arrow(source)`` gives a ``pyarrow.Table`` with the columns ``loc``, ``lastmod`` (the
W3C text of the value read, as ``dates.format_w3c`` writes it), ``lastmod_at`` (its instant,
UTC, as ``dates.instant`` gives it), ``changefreq`` (dictionary-encoded names), ``priority``
and, when ``sitemap`` is given, ``sitemap``: one row per entry, in document order, the same
entries ``urlset.read`` gives.

A document whose body is nothing but canonical records (the compiled lane's pattern: a
UTF-8 ``<urlset>`` in the sitemaps.org namespace, plain values, then only the root's end
tag) is read by the compiled scanner straight into Arrow buffers (offsets, values, validity)
that pyarrow wraps as they are. Any other document is read by ``urlset.read`` and its entries
become the same columns. Needs pyarrow (the ``tables`` extra).
"""

from __future__ import annotations

import os
import re
import zlib
from datetime import date, datetime
from typing import Any

from .._core import UrlsetScanner
from ..dates import format_w3c, instant
from ..limits import ReadLimits
from ..model import ChangeFreq
from .reader import read_bytes

ARROW_COLUMNS = ("loc", "lastmod", "lastmod_at", "changefreq", "priority")

# The root start tags read on the compiled path: the sitemaps.org namespace as the default,
# other namespaces and a schema location allowed; anything else goes the long way.
_PLAIN_HEAD = re.compile(
    rb"""\A(?:<\?xml\ version=["']1\.0["'](?:\ encoding=["']UTF-8["'])?\?>)?[ \t\r\n]*"""
    rb'<urlset[ \t\r\n]+xmlns="http://www\.sitemaps\.org/schemas/sitemap/0\.9"'
    rb'(?:[ \t\r\n]+(?:xmlns:[A-Za-z_][A-Za-z0-9_.-]*|xsi:schemaLocation)="[^"<&]*")*'
    rb"[ \t\r\n]*>",
    re.VERBOSE,
)
_GZIP_MAGIC = b"\x1f\x8b"


def read_arrow(
    source: str | os.PathLike[str] | bytes,
    *,
    sitemap: str | None = None,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
) -> Any:
    """``source`` (a sitemap file's path, or its bytes; gzip detected by content) as a
    ``pyarrow.Table``, one row per entry (see the module's docstring)."""
    import pyarrow as pa

    raw = source if isinstance(source, bytes) else _read_file(source)
    data = _gunzipped(raw, limits.max_decompressed_bytes)
    batches = None if data is None else _plain_batches(data, limits)
    if batches is None:
        name = "<bytes>" if isinstance(source, bytes) else os.fspath(source)
        batches = [_entries_batch(read_bytes(raw, source=name, limits=limits))]
    table = pa.Table.from_batches(batches, schema=_schema())
    if sitemap is not None:
        table = table.append_column("sitemap", pa.repeat(sitemap, table.num_rows))
    return table


def _read_file(path: str | os.PathLike[str]) -> bytes:
    with open(path, "rb") as f:
        return f.read()


def _gunzipped(raw: bytes, most: int) -> bytes | None:
    """The document's bytes; None when a gzip stream is damaged or inflates past ``most``
    (``urlset.read`` then reads it and says what is wrong)."""
    if not raw.startswith(_GZIP_MAGIC):
        return raw
    inflate = zlib.decompressobj(wbits=31)
    try:
        data = inflate.decompress(raw, most + 1)
    except zlib.error:
        return None
    if len(data) > most or not inflate.eof or inflate.unused_data:
        return None
    return data


def _plain_batches(data: bytes, limits: ReadLimits) -> list[Any] | None:
    """The records of a document that is nothing but canonical records, as Arrow record
    batches; None when it is anything else."""
    head = _PLAIN_HEAD.match(data)
    end = data.rfind(b"</url>") + len(b"</url>")
    plain_limits = limits.max_depth >= 3 and limits.max_value_length >= 2048
    if head is None or not plain_limits or len(data) > limits.max_decompressed_bytes:
        return None
    if end < head.end() or data[end:].strip(b" \t\r\n") != b"</urlset>":
        return None
    scanner = UrlsetScanner(
        False,
        limits.max_value_length,
        list(ChangeFreq),
        date.fromisoformat,
        datetime.fromisoformat,
    )
    pos, line, count, batches = head.end(), 1, 0, []
    while pos < end:
        left = limits.max_entries + 1 - count
        pos, line, stop, columns = scanner.scan_columns(data, pos, end, line, left)
        if stop is not None:
            return None  # a piece, an extension or a value to judge: the long way
        count += columns[0]
        if count > limits.max_entries:
            return None
        if columns[0]:
            batches.append(_batch(columns))
        elif pos < end:
            return None
    return batches


def _batch(columns: tuple[Any, ...]) -> Any:
    """One record batch from the scanner's buffers, wrapped as they are."""
    import pyarrow as pa

    n, loc, lastmod, lastmod_at, changefreq, priority = columns
    schema = _schema()
    arrays = [
        _array(pa.string(), n, loc),
        _array(pa.string(), n, lastmod),
        _array(schema.field("lastmod_at").type, n, lastmod_at),
        pa.DictionaryArray.from_arrays(_array(pa.int8(), n, changefreq), _changefreq_names()),
        _array(pa.float64(), n, priority),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _array(kind: Any, n: int, buffers: Any) -> Any:
    import pyarrow as pa

    (validity, nulls), first, second = buffers
    wrapped = [None if validity is None else pa.py_buffer(validity), pa.py_buffer(first)]
    if second is not None:
        wrapped.append(pa.py_buffer(second))
    return pa.Array.from_buffers(kind, n, wrapped, null_count=nulls)


def _entries_batch(entries: Any) -> Any:
    """Entries read by ``urlset.read`` (a urlset's or an index's) as one record batch."""
    import pyarrow as pa

    locs: list[str] = []
    lastmods: list[str | None] = []
    instants: list[datetime | None] = []
    changefreqs: list[int | None] = []
    priorities: list[float | None] = []
    freq_index = {c: i for i, c in enumerate(ChangeFreq)}
    for entry in entries:
        locs.append(entry.loc)
        lastmod = entry.lastmod
        lastmods.append(None if lastmod is None else format_w3c(lastmod))
        instants.append(None if lastmod is None else instant(lastmod))
        changefreq = getattr(entry, "changefreq", None)
        changefreqs.append(None if changefreq is None else freq_index[changefreq])
        priorities.append(getattr(entry, "priority", None))
    schema = _schema()
    arrays = [
        pa.array(locs, pa.string()),
        pa.array(lastmods, pa.string()),
        pa.array(instants, schema.field("lastmod_at").type),
        pa.DictionaryArray.from_arrays(pa.array(changefreqs, pa.int8()), _changefreq_names()),
        pa.array(priorities, pa.float64()),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _changefreq_names() -> Any:
    import pyarrow as pa

    return pa.array([c.value for c in ChangeFreq], pa.string())


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("loc", pa.string()),
            ("lastmod", pa.string()),
            ("lastmod_at", pa.timestamp("us", tz="UTC")),
            ("changefreq", pa.dictionary(pa.int8(), pa.string())),
            ("priority", pa.float64()),
        ]
    )

"""A sitemap read into an Arrow table, without a Python object per canonical entry.

``read_arrow(source)`` gives a ``pyarrow.Table`` with the columns ``loc``, ``lastmod`` (the
W3C text of the value read, as ``dates.format_w3c`` writes it), ``lastmod_at`` (its instant,
UTC, as ``dates.instant`` gives it), ``changefreq`` (dictionary-encoded names), ``priority``,
``extensions`` (the entry's extensions as the JSON object ``urlset read`` writes, e.g.
``{"images":[...]}``; null for none) and, when ``sitemap`` is given, ``sitemap``: one row per
entry, in document order, the same entries ``urlset.read`` gives.

The document is read by urlset's reader in the render lane (reading/rendered.py) with the
"arrow" format: runs of canonical records (plain images included) go from the compiled
scanner straight into Arrow buffers (offsets, values, validity) that pyarrow wraps as they
are (a sitemap index's records too: loc and lastmod; a text sitemap's lines: loc); any other entry (one whose values the
reader judges, one with other extensions, one in a piece lxml reads) comes as the reader's
value, in its place, and becomes the same columns. So an unusual entry costs itself, not the
document. Needs pyarrow (the ``arrow`` extra); every column is made
from buffers, never by pyarrow's conversion of Python values, which imports pandas.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
import threading
from array import array
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any, TypeVar

from ..dates import format_w3c, instant
from ..limits import ReadLimits
from ..model import ChangeFreq, Issue, SitemapRef, Url
from .output import CHANGEFREQ_TEXT, NO_PRIORITY, UrlColumns
from .reader import FILE_CHUNK, SitemapReader
from .rendered import RenderedRun, RenderSpec, in_order, take_order
from .sniff import free_core_from

E = TypeVar("E")
ARROW_COLUMNS = ("loc", "lastmod", "lastmod_at", "changefreq", "priority", "extensions")
# stretches of the reader's values up to which a document's batches are slices, not a take
SLICED_STRETCHES = 8
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def read_arrow(
    source: str | os.PathLike[str] | bytes,
    *,
    sitemap: str | None = None,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
) -> Any:
    """``source`` (a sitemap file's path, or its bytes; gzip detected by content) as a
    ``pyarrow.Table``, one row per entry (see the module's docstring)."""
    # one look at the machine for the import's thread and the read's own (the gzip inflated
    # ahead): a look the read took once the import ran counted that thread as another
    # program's load
    looked = (free_core_from(),)
    importing = _import_pyarrow_beside(looked[0])
    if importing is None:
        _import_pyarrow()  # before the read: a missing pyarrow is said before it
    batches, _ = read_batches(source, limits, looked=looked)
    if importing is not None:
        importing.join()
    import pyarrow as pa  # imported by now, or raising here what the import raised

    table = pa.Table.from_batches(batches, schema=_schema())
    if sitemap is not None:
        table = table.append_column("sitemap", _texts([sitemap] * table.num_rows))
    return table


def _import_pyarrow_beside(free: int | None) -> threading.Thread | None:
    """pyarrow imported on a thread of its own while the caller reads, when a core is free
    for it (None: imported already, or no core free: the caller imports it). Importing it
    (numpy with it) is ~0.15-0.25 s of CPU, as long as the core takes for a few hundred
    thousand entries, which it reads without the GIL: the two overlap instead of adding up.
    On a busy machine they only share a core and hand the GIL to and fro (measured at load
    5.5 on 2 cores: the 500k mix 0.09 s more CPU, no faster). A failed import is left for
    the caller's own ``import`` to raise. ``free``: ``sniff.free_core_from()`` as the caller
    found it."""
    if "pyarrow" in sys.modules or free is not None:
        return None

    def run() -> None:
        with contextlib.suppress(Exception):  # the caller's import raises it again
            _import_pyarrow()

    thread = threading.Thread(target=run, name="urlset-import-pyarrow", daemon=True)
    thread.start()
    return thread


def _import_pyarrow() -> None:
    """Import pyarrow (numpy with it) without the cyclic collector: the import makes objects
    that live as long as the process, and the collections their making sets off only walk
    them (10M of the import's 470M instructions). The collector is left as it was."""
    if "pyarrow" in sys.modules:
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        import pyarrow  # noqa: F401
    finally:
        if enabled:
            gc.enable()


def read_batches(
    source: str | os.PathLike[str] | bytes,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
    *,
    looked: tuple[int | None] | None = None,
) -> tuple[list[Any], int]:
    """The entries of ``source`` as Arrow record batches in document order, and how many of
    them the compiled core read into columns (the rest came through the reader's values).
    ``looked``: ``(sniff.free_core_from(),)`` as the caller found the machine, for the read's
    second threads (None: the read looks itself)."""
    name = "<bytes>" if isinstance(source, bytes) else os.fspath(source)
    spec = RenderSpec("arrow", "", indexes=True, texts=True, judged=False)
    spec.looked = looked
    reader = SitemapReader(name, limits=limits, render=spec)
    entries: list[Url | SitemapRef] = []
    for chunk in _chunks(source):
        entries.extend(e for e in reader.feed(chunk) if type(e) is not Issue)  # type: ignore[misc]
        if reader.done:
            break
    entries.extend(e for e in reader.close() if type(e) is not Issue)  # type: ignore[misc]
    return in_document_order(entries, spec, _batch, _entries_batch), spec.rendered


def in_document_order(
    values: Sequence[E],
    spec: RenderSpec,
    core_batch: Callable[[Any], Any],
    values_batch: Callable[[Sequence[E]], Any],
    runs: Sequence[RenderedRun] | None = None,
) -> list[Any]:
    """A document's entries as record batches in document order: the records the core read
    into columns (``spec``; one batch by ``core_batch``) and the ``values`` the reader gave
    (one batch by ``values_batch``). When both hold entries, a few stretches of values
    between the core's records are put in place by slices of the two batches (no copy),
    many by one ``take``. ``runs``: the spec's runs when the caller took them already (for
    its text too)."""
    import pyarrow as pa

    runs = spec.take() if runs is None else runs
    columns = spec.column_views()
    if columns is None:
        return [values_batch(values)]
    core = core_batch(columns)
    if not values:
        return [core]
    given = values_batch(values)
    sliced = _sliced(given, core, runs)
    if sliced is not None:
        return sliced
    order = take_order(len(values), runs)
    indices = pa.Array.from_buffers(pa.int64(), len(order), [None, pa.py_buffer(order)])
    table = pa.Table.from_batches([given, core])
    return list(table.take(indices).to_batches())


def _sliced(values: Any, core: Any, runs: Sequence[RenderedRun]) -> list[Any] | None:
    """``values`` and ``core`` (record batches) interleaved in document order as slices, or
    None when the values come in more than SLICED_STRETCHES stretches (a table of many
    small batches costs its users more than one ``take`` costs here)."""
    parts: list[Any] = []
    stretches = core_from = core_rows = 0
    for part in in_order(range(values.num_rows), runs):
        if isinstance(part, RenderedRun):
            core_rows += part.count
            continue
        stretches += 1
        if stretches > SLICED_STRETCHES:
            return None
        if core_rows:
            parts.append(core.slice(core_from, core_rows))
            core_from, core_rows = core_from + core_rows, 0
        parts.append(values.slice(part[0], len(part)))
    if core_rows:
        parts.append(core.slice(core_from, core_rows))
    return parts


# ----------------------------------------------------------------------------- fetch
# `urlset fetch --format parquet` writes `urlset read`'s columns and the sitemap's URL, text
# where read_arrow has values (lastmod as written by format_w3c, changefreq names,
# extensions as their JSON object); from the same core columns where entries are canonical.
FETCH_COLUMNS = ("loc", "lastmod", "changefreq", "priority", "extensions", "sitemap")


def fetch_schema() -> Any:
    import pyarrow as pa

    text = pa.string()
    return pa.schema(
        [(name, pa.float64() if name == "priority" else text) for name in FETCH_COLUMNS]
    )


def fetch_batches(
    urls: Sequence[Url],
    spec: RenderSpec,
    sitemap: str,
    runs: Sequence[RenderedRun] | None = None,
) -> list[Any]:
    """A fetched sitemap's Urls as record batches in FETCH_COLUMNS, in document order: the
    records the core read into columns (``spec``; ``runs`` when taken already) and ``urls``
    (the reader's values)."""
    return in_document_order(
        urls,
        spec,
        lambda columns: _fetch_run(columns, sitemap),
        lambda values: fetch_values_batch(UrlColumns.from_urls(values), sitemap),
        runs,
    )


def _fetch_run(columns: tuple[Any, ...], sitemap: str) -> Any:
    import pyarrow as pa

    n, loc, lastmod, _, changefreq, priority, extensions = columns
    codes = _array(pa.int8(), n, changefreq)
    arrays = [
        _array(pa.string(), n, loc),
        _array(pa.string(), n, lastmod),
        _changefreq_names().take(codes),
        _array(pa.float64(), n, priority),
        _array(pa.string(), n, extensions),
        _repeated(sitemap, n),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=fetch_schema())


def _repeated(text: str, n: int) -> Any:
    """A string array of ``text`` ``n`` times, from buffers (``pa.repeat`` converts a Python
    value, which imports pandas)."""
    import pyarrow as pa

    data = text.encode()
    size = len(data)
    offsets = array("i", range(0, (n + 1) * size, size) if size else bytes(4 * (n + 1)))
    return _array(pa.string(), n, ((None, 0), offsets, data * n))


def fetch_values_batch(columns: UrlColumns, sitemap: str | None) -> Any:
    """Urls (as columns of values) as one record batch in FETCH_COLUMNS, made from buffers
    (``from_pydict`` converts Python values, which imports pandas)."""
    import pyarrow as pa

    n = columns.count
    extensions = columns.extensions
    arrays = [
        _texts(columns.locs),
        _texts([t or None for t in columns.lastmods]),
        _texts([CHANGEFREQ_TEXT[c] or None for c in columns.changefreqs]),
        _fixed(pa.float64(), "d", [None if p == NO_PRIORITY else p for p in columns.priorities]),
        _texts([None] * n if extensions is None else list(map(_extensions_text, extensions))),
        _texts([None] * n) if sitemap is None else _repeated(sitemap, n),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=fetch_schema())


def _extensions_text(extensions: tuple[Any, ...]) -> str | None:
    """An entry's extensions as the JSON object ``urlset read`` writes (None for none)."""
    if not extensions:
        return None
    from ..extensions import json_fields

    return json.dumps(json_fields(extensions), ensure_ascii=False, separators=(",", ":"))


def _chunks(source: str | os.PathLike[str] | bytes) -> Iterator[bytes]:
    if isinstance(source, bytes):
        for i in range(0, len(source), FILE_CHUNK):
            yield source[i : i + FILE_CHUNK]
        return
    with open(source, "rb") as f:
        while chunk := f.read(FILE_CHUNK):
            yield chunk


def _batch(columns: tuple[Any, ...]) -> Any:
    """One record batch from the scanner's buffers, wrapped as they are."""
    import pyarrow as pa

    n, loc, lastmod, lastmod_at, changefreq, priority, extensions = columns
    schema = _schema()
    arrays = [
        _array(pa.string(), n, loc),
        _array(pa.string(), n, lastmod),
        _array(schema.field("lastmod_at").type, n, lastmod_at),
        # the core writes each index as a changefreq's place (0 under a null): pyarrow's
        # bounds check of every index (~40 instructions an entry) is skipped
        pa.DictionaryArray.from_arrays(
            _array(pa.int8(), n, changefreq), _changefreq_names(), safe=False
        ),
        _array(pa.float64(), n, priority),
        _array(pa.string(), n, extensions),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _array(kind: Any, n: int, buffers: Any) -> Any:
    import pyarrow as pa

    (validity, nulls), first, second = buffers
    wrapped = [None if validity is None else pa.py_buffer(validity), pa.py_buffer(first)]
    if second is not None:
        wrapped.append(pa.py_buffer(second))
    return pa.Array.from_buffers(kind, n, wrapped, null_count=nulls)


def _entries_batch(entries: Sequence[Url | SitemapRef]) -> Any:
    """Entries read by ``urlset.read`` (a urlset's or an index's) as one record batch, made
    from buffers: pyarrow's conversion of Python values imports pandas (a second or more)."""
    import pyarrow as pa

    locs: list[str] = []
    lastmods: list[str | None] = []
    instants: list[int | None] = []
    changefreqs: list[int | None] = []
    priorities: list[float | None] = []
    extensions: list[str | None] = []
    freq_index = {c: i for i, c in enumerate(ChangeFreq)}
    for entry in entries:
        locs.append(entry.loc)
        lastmod = entry.lastmod
        lastmods.append(None if lastmod is None else format_w3c(lastmod))
        instants.append(None if lastmod is None else (instant(lastmod) - _EPOCH) // _MICROSECOND)
        changefreq = getattr(entry, "changefreq", None)
        changefreqs.append(None if changefreq is None else freq_index[changefreq])
        priorities.append(getattr(entry, "priority", None))
        extensions.append(_extensions_text(getattr(entry, "extensions", ())))
    schema = _schema()
    arrays = [
        _texts(locs),
        _texts(lastmods),
        _fixed(schema.field("lastmod_at").type, "q", instants),
        pa.DictionaryArray.from_arrays(_fixed(pa.int8(), "b", changefreqs), _changefreq_names()),
        _fixed(pa.float64(), "d", priorities),
        _texts(extensions),
    ]
    return pa.RecordBatch.from_arrays(arrays, schema=schema)


def _validity(values: Sequence[object]) -> tuple[bytes | None, int]:
    """An Arrow validity bitmap of ``values`` (None: missing), and the count missing."""
    nulls = sum(1 for v in values if v is None)
    if not nulls:
        return None, 0
    bits = int("".join("0" if v is None else "1" for v in reversed(values)), 2)
    return bits.to_bytes((len(values) + 7) // 8, "little"), nulls


def _texts(values: Sequence[str | None]) -> Any:
    """A string array of ``values``, from buffers."""
    import pyarrow as pa

    data = [b"" if v is None else v.encode() for v in values]
    offsets = array("i", [0])
    offsets.extend(accumulate(map(len, data)))
    validity, nulls = _validity(values)
    buffers = [validity, offsets, b"".join(data)]
    return _array(pa.string(), len(values), ((validity, nulls), buffers[1], buffers[2]))


def _fixed(kind: Any, code: str, values: Sequence[float | int | None]) -> Any:
    """An array of ``kind`` (``code``: its ``array`` type code) of ``values``, from buffers."""
    validity, nulls = _validity(values)
    data = array(code, [0 if v is None else v for v in values])
    return _array(kind, len(values), ((validity, nulls), data, None))


def _changefreq_names() -> Any:
    return _texts([c.value for c in ChangeFreq])


def _schema() -> Any:
    import pyarrow as pa

    return pa.schema(
        [
            ("loc", pa.string()),
            ("lastmod", pa.string()),
            ("lastmod_at", pa.timestamp("us", tz="UTC")),
            ("changefreq", pa.dictionary(pa.int8(), pa.string())),
            ("priority", pa.float64()),
            ("extensions", pa.string()),
        ]
    )

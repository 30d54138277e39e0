"""Build inputs: URL lists as text, CSV, TSV or JSON Lines, turned into entries.

Each source yields ``Url`` values, and ``InputError`` values for lines it could not use
(source name, line number, reason), so the builder can skip and report them or, under
--strict, stop. Gzipped inputs (``.gz``) are read transparently. A file's bytes are read a
block at a time and parsed in the compiled core (``urlset._core.SourceReader``, the GIL
released) as Python's text, ``csv`` and ``json`` readers read them: UTF-8 with a byte order
mark skipped, lines ending at LF, CRLF or a lone CR, bytes that are not UTF-8 making their
line "not valid UTF-8". For the build command, a batch of core-column rows comes unchecked as
one ``SourceRows`` (rows and their lines, without a Python object per row), which the build
renders in the compiled core, checking every value there; a batch the core refuses is
checked row by row, each bad line an ``InputError`` with its line number as ever. Rows with
extension columns, and JSON Lines chunks with any line other than an object of the core keys
with plain values, are read one by one in Python (``source_tables``, ``json.loads``).

Extensions (images, videos, news, hreflang alternates; see ``urlset.extensions``):

JSON Lines: an object per URL with loc, lastmod, changefreq, priority and

- ``"images"``: a list of ``{"loc", "caption", "geo_location", "title", "license"}``
- ``"videos"``: a list of objects with the fields of ``extensions.Video`` (``thumbnail_loc``,
  ``title``, ``description``, ``content_loc``, ``player_loc``, ``duration``, ``tags`` as a
  list, ``restriction``/``platform`` as ``{"relationship": "allow", "values": ["US"]}``,
  ``prices`` as ``[{"amount": "1.99", "currency": "EUR"}]``, ...)
- ``"news"``: one object (or a list) with ``publication_name``, ``language``,
  ``publication_date``, ``title`` and optionally ``access``, ``genres``, ``keywords``,
  ``stock_tickers`` (lists or comma-separated strings)
- ``"alternates"``: a list of ``{"hreflang": "en-GB", "href": "https://..."}``
- ``"extensions"``: raw elements ``{"namespace", "name", "xml"}``, as ``urlset read`` writes
  them for namespaces urlset does not type; written back exactly as given.

CSV and TSV: columns beside loc, lastmod, changefreq, priority (empty cells mean "none"):

- images: ``image_loc`` and optionally ``image_caption``, ``image_title``,
  ``image_geo_location``, ``image_license``; several images are ``|``-separated, the n-th
  part of each column belonging to the n-th image (``a.jpg|b.jpg`` with ``|Title B``).
- any kind: an ``extensions`` column holding one JSON object with the JSON Lines fields
  above (``{"images": [...], "alternates": [...]}``), the cell ``urlset read`` writes, so
  its CSV and TSV output builds again.
- alternates: one ``alternate_<hreflang>`` column per language holding the href
  (``alternate_en-gb``, ``alternate_x-default``), and/or an ``alternates`` column of
  ``hreflang=href`` pairs separated by ``|`` (``en=https://e.com/en/|de=https://e.com/de/``).
- news (one article per row): ``news_name``, ``news_language``, ``news_publication_date``,
  ``news_title``, and optionally ``news_access``, ``news_genres``, ``news_keywords``,
  ``news_stock_tickers`` (comma-separated, as in the XML).
- video (one per row): ``video_<field>`` for the fields of ``extensions.Video``
  (``video_thumbnail_loc``, ``video_title``, ``video_description``, ``video_content_loc``,
  ``video_player_loc``, ``video_duration``, ...), with ``video_tags`` ``|``-separated and
  ``video_restriction`` / ``video_platform`` as the relationship then the values
  (``allow US CA``, ``deny tv``). Prices need JSON Lines.

A literal ``|`` cannot appear inside a ``|``-separated cell; use JSON Lines for such values.

Both: a ``section`` column or key names the URL's section when the build is given
``--section-by column:section`` (``iter_batches(..., sections=)``), and is unknown otherwise.
Both: a ``sitemap`` column or key (the sitemap a URL was found in, as ``urlset fetch`` writes
it) is ignored, so fetched URLs build again. Any other unknown column fails the build and an
unknown key rejects its line: a misspelt ``lastmod`` would otherwise be lost without a word.
"""

from __future__ import annotations

import gzip
import io
import queue
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import tzinfo
from pathlib import Path
from typing import IO, Any, TypeVar

from .._core import SourceBatch, SourceReader
from ..errors import InputError, InvalidValue
from ..extensions import JSON_KEYS, from_json_fields
from ..model import Url, row_from_dict
from .options import base_prefix
from .sections import COLUMN, note
from .source_rows import Row as Row  # what iter_batches(rows=True) yields beside entries
from .source_rows import (
    SourceRows,
    kept_or_error,
    not_utf8,
    resolved_row,
    with_notes,
    without_extensions,
)
from .source_tables import (
    COLUMNS,
    IGNORED_FIELDS,
    Record,
    extension_table,
    known_column,
)

FORMATS = ("text", "csv", "tsv", "jsonl")
_SUFFIXES = {".txt": "text", ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}
_ROWS_PER_CHECK = 4096
_BLOCK = 1 << 20  # bytes read at a time


def detect_format(name: str) -> str:
    """The input format a file name implies; InvalidValue when it implies none."""
    path = Path(name.removesuffix(".gz"))
    found = _SUFFIXES.get(path.suffix.lower())
    if found is None:
        raise InvalidValue(
            "input format",
            name,
            "cannot be told from the file name; name it with --input-format "
            f"({', '.join(FORMATS)})",
        )
    return found


def open_source(name: str) -> IO[str]:
    """Open a build input as text: a path (gzipped when it ends in .gz) or '-' for stdin.
    ``iter_batches`` reads such a stream's bytes (its ``buffer``) itself."""
    if name == "-":
        return io.TextIOWrapper(
            sys.stdin.buffer, encoding="utf-8-sig", errors="surrogateescape", newline=""
        )
    raw: IO[bytes] = gzip.open(name, "rb") if name.endswith(".gz") else open(name, "rb")  # type: ignore[assignment]  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline="")


def iter_entries(
    stream: IO[str],
    fmt: str,
    source: str,
    *,
    default_tz: tzinfo | None = None,
    base_url: str | None = None,
) -> Iterator[Url | InputError]:
    """Entries of one input stream; bad lines come as InputError values, in order. A
    relative loc (``/blog/post-1``, ``blog/post-1``) is resolved against ``base_url`` (the
    build's; without it, such a line is an InputError)."""
    for batch in iter_batches(stream, fmt, source, default_tz=default_tz, base_url=base_url):
        yield from batch  # type: ignore[misc]  # without rows=True: Urls and InputErrors only


def iter_batches(
    stream: IO[str],
    fmt: str,
    source: str,
    *,
    default_tz: tzinfo | None = None,
    rows: bool = False,
    sections: dict[str, str] | None = None,
    base_url: str | None = None,
) -> Iterator[Sequence[Url | InputError | Row]]:
    """``iter_entries`` a list at a time: a build takes them so, without a generator step
    per line (a table of the core columns is read a batch of rows at a time). With
    ``rows``, a batch of core-column rows comes as one ``SourceRows`` entry, unchecked:
    ``write_sitemaps`` renders it in the compiled core, which checks every value, and only
    when the core refuses it are its rows checked one by one (``SourceRows.entries``).
    ``sections``: a ``section`` column or key is read, and the section of each entry written
    recorded there by its loc (``Sections.by_column``); without it, it is an unknown one."""
    if fmt not in FORMATS:
        raise InvalidValue("input format", fmt, f"choose one of {', '.join(FORMATS)}")
    reader = _Bytes(stream, fmt)
    base = None if base_url is None else base_prefix(base_url)
    if fmt == "text":
        yield from _text(reader, source, default_tz, rows, base)
    elif fmt in ("csv", "tsv"):
        yield from _table(reader, source, default_tz, rows, sections, base)
    else:
        yield from _jsonl(reader, source, default_tz, rows, sections, base)


_T = TypeVar("_T")


class _Bytes:
    """A stream's bytes fed to a ``SourceReader`` a block at a time, as its reads ask."""

    def __init__(self, stream: IO[str], fmt: str) -> None:
        # a stream from open_source: its bytes (utf-8-sig skips a byte order mark); any
        # other text stream: its text as UTF-8 (a lone surrogate stays one: not UTF-8), its
        # lines ending where it ends them (an io.StringIO's at LF only)
        raw = getattr(stream, "buffer", None)
        ours = getattr(stream, "encoding", None) == "utf-8-sig" and raw is not None
        self.read: Callable[[], bytes] = (
            (lambda: raw.read(_BLOCK))  # type: ignore[union-attr]
            if ours
            else (lambda: stream.read(_BLOCK).encode("utf-8", "surrogatepass"))
        )
        lone_cr = not isinstance(stream, io.StringIO)
        self.reader = SourceReader(fmt, ours, _field_limit(fmt), lone_cr=lone_cr)

    def pull(self, read: Callable[[], _T | None]) -> _T:
        """What ``read`` gives once the reader has the bytes it needs."""
        while (got := read()) is None:
            block = self.read()
            if block:
                self.reader.feed(block)
            else:
                self.reader.finish()
        return got

    def batches(self) -> Iterator[SourceBatch]:
        """Batches of rows (text, or a table once its columns are set) until the end, read
        ahead on a thread (``ahead``)."""
        return ahead(self._next(lambda: self.reader.rows(_ROWS_PER_CHECK)))

    def chunks(self) -> Iterator[SourceBatch]:
        """JSON Lines a chunk of lines at a time until the end, read ahead on a thread."""
        return ahead(self._next(lambda: self.reader.json_chunk(_ROWS_PER_CHECK)))

    def _next(self, read: Callable[[], SourceBatch | None]) -> Iterator[SourceBatch]:
        while (batch := self.pull(read)).count():
            yield batch

    def records(self) -> Iterator[Record]:
        """A table's records, each cell text (decoded with surrogateescape when not UTF-8)."""
        while records := self.pull(lambda: self.reader.records(_ROWS_PER_CHECK)):
            for number, cells, unreadable in records:
                texts: list[str] | None = (
                    [c.decode("utf-8", "surrogateescape") if type(c) is bytes else c for c in cells]  # type: ignore[misc]
                    if cells and type(cells[0]) is bytes
                    else cells  # type: ignore[assignment]
                )
                yield number, texts, unreadable


_AHEAD = 2  # batches read ahead (4,096 rows each)


def ahead(batches: Iterator[_T]) -> Iterator[_T]:
    """``batches`` as they are, each read and parsed on a thread while the ones before it
    are used: the core parses a source's next rows (the GIL released) on one core, and
    renders them as the batch before them was rendered (``SourceReader.rows``), while the
    build de-duplicates, writes and hands out the rows before them on the other. An error
    reading (an OSError, a damaged gzip stream) comes where it happened, after every batch
    before it. Closed early, it stops the thread before returning (the stream is the
    caller's to close)."""
    box: queue.Queue[tuple[_T | None, BaseException | None]] = queue.Queue(_AHEAD)
    stop = threading.Event()
    end = (None, None)

    def read() -> None:
        try:
            for batch in batches:
                if stop.is_set():
                    return
                box.put((batch, None))
            box.put(end)
        except BaseException as exc:  # handed over in its place
            box.put((None, exc))

    reader = threading.Thread(target=read, name="urlset-source", daemon=True)
    reader.start()
    try:
        while (got := box.get()) is not end:
            batch, error = got
            if error is not None:
                raise error
            yield batch  # type: ignore[misc]
    finally:
        stop.set()
        while reader.is_alive():  # a put waiting for room: make room until it ends
            try:
                box.get_nowait()
            except queue.Empty:
                reader.join(0.01)


def _field_limit(fmt: str) -> int:
    """The characters a CSV or TSV cell may hold: the ``csv`` module's limit, which a program
    may have changed (``csv.field_size_limit``)."""
    if fmt not in ("csv", "tsv"):
        return 0
    import csv  # only for its limit: the core reads the table

    return csv.field_size_limit()


def _passed_on(rows: SourceRows, as_rows: bool) -> Sequence[Url | InputError | SourceRows]:
    """A batch as ``iter_batches`` yields it: the rows themselves, or their entries."""
    return [rows] if as_rows else rows.entries()


def _text(
    reader: _Bytes, source: str, default_tz: tzinfo | None, as_rows: bool, base: str | None
) -> Iterator[Sequence[Url | InputError | Row]]:
    """One URL a line, a batch of lines at a time ('#' comments and blank lines skipped)."""
    for batch in reader.batches():
        yield _passed_on(SourceRows(batch, source, default_tz, base=base), as_rows)


def _table(
    reader: _Bytes,
    source: str,
    default_tz: tzinfo | None,
    rows: bool = False,
    sections: dict[str, str] | None = None,
    base: str | None = None,
) -> Iterator[Sequence[Url | InputError | Row]]:
    cells, unreadable = reader.pull(reader.reader.header)
    if unreadable is not None:
        yield [InputError(source, 1, f"unreadable header ({unreadable})")]
        return
    if cells is None:
        return  # an empty file
    header = [cell.decode("utf-8", "surrogateescape").strip().lower() for cell in cells]
    known = {COLUMN} if sections is not None else set()
    unknown = [name for name in header if not known_column(name) and name not in known]
    if "loc" not in header or unknown:
        raise refused_header(f"{source}:1", unknown)
    positions = [header.index(name) if name in header else -1 for name in COLUMNS]
    section = header.index(COLUMN) if sections is not None and COLUMN in header else None
    extra = [
        (i, name)
        for i, name in enumerate(header)
        if name not in COLUMNS and name not in IGNORED_FIELDS and i != section
    ]
    width = len(header)
    json = [index for index, name in extra if name == "extensions"]  # the core reads its images
    reader.reader.set_columns(
        positions,
        width,
        [index for index, _ in extra],
        section,
        json[0] if len(json) == 1 else None,
    )

    def read_long(number: int, cells: list[bytes], base: str | None) -> list[Url | InputError]:
        """A row with extension cells, read on its own."""
        texts = [cell.decode("utf-8", "surrogateescape") for cell in cells]
        record = iter([(number, texts, None)])
        shape = (positions, extra, width)
        entries = list(extension_table(record, source, *shape, default_tz, 1, base))
        if sections is not None and section is not None and len(texts) == width:
            _note(sections, entries, texts[section], source, number)
        return entries

    for batch in reader.batches():
        yield _passed_on(SourceRows(batch, source, default_tz, read_long, sections, base), rows)


def unreadable(label: str, exc: Exception) -> str:
    """Why the source ``label`` could not be read (an OSError, or the EOFError and zlib.error
    gzip raises mid-read: a truncated or damaged .gz is not a short input); one message for a
    local build and ``build --dask`` (both exit 2)."""
    if isinstance(exc, OSError):
        return f"{label}: cannot read ({exc.strerror or exc})"
    return f"{label}: the gzip stream ends early or is damaged ({exc})"


def refused_header(where: str, unknown: Sequence[str]) -> InvalidValue:
    """The error of a header with ``unknown`` columns, or without loc when there are none
    (the build exits 1: the input is at fault), at ``where`` (file:1 when the file is
    known); one message for a local build and ``build --dask``."""
    wrong = f"unknown columns {list(unknown)}" if unknown else "no 'loc' column"
    if COLUMN in unknown:
        wrong += f" (a {COLUMN} column names each URL's section: --section-by column:{COLUMN})"
    return InvalidValue(
        "header",
        where,
        f"{wrong}; the columns are {', '.join(COLUMNS)} (loc required), and for "
        "extensions image_*, video_*, news_*, alternates and alternate_<hreflang> "
        "(see the urlset.writing.sources documentation)",
    )


def _note(
    sections: dict[str, str], entries: list[Url | InputError], name: object, source: str, line: int
) -> None:
    """The section of the entries of one line read on its own."""
    for entry in entries:
        url = entry if type(entry) is Url else getattr(entry, "kept", None)
        if url is not None:
            note(sections, url.loc, name, f"{COLUMN} at {source}:{line}")


_CORE_KEYS = frozenset(COLUMNS)
_FAST_KEYS = _CORE_KEYS | IGNORED_FIELDS  # lines passed on as rows
_JSON_KEYS = _CORE_KEYS | IGNORED_FIELDS | frozenset(JSON_KEYS)


def _jsonl(
    reader: _Bytes,
    source: str,
    default_tz: tzinfo | None,
    as_rows: bool,
    sections: dict[str, str] | None = None,
    base: str | None = None,
) -> Iterator[Sequence[Url | InputError | Row]]:
    """JSON Lines a chunk of lines at a time: an object of the core keys with plain values is
    a row the core reads; any other line is read alone here, in its place."""

    def read_long(number: int, cells: list[bytes], base: str | None) -> list[Url | InputError]:
        line = cells[0].decode("utf-8", "surrogateescape")
        return list(_json_lines([(number, line)], source, default_tz, sections, base))

    if sections is not None:
        reader.reader.read_sections()
    for chunk in reader.chunks():
        yield _passed_on(SourceRows(chunk, source, default_tz, read_long, sections, base), as_rows)


def _json_lines(
    numbered: Iterable[tuple[int, str]],
    source: str,
    default_tz: tzinfo | None,
    sections: dict[str, str] | None = None,
    base: str | None = None,
) -> Iterator[Url | InputError]:
    """One by one: each line's entry, or why it has none (with ``sections``, a ``section``
    key is read and recorded there)."""
    if sections is None:
        yield from _json_entries(numbered, source, default_tz, _JSON_KEYS, base)
        return
    for number, line in numbered:  # a line at a time: its entries are in its section
        entries = list(_json_entries([(number, line)], source, default_tz, _SECTIONED_KEYS, base))
        if any(type(e) is Url or getattr(e, "kept", None) is not None for e in entries):
            import json  # loaded by the first line read here, not by a CSV build

            data = json.loads(line)  # an object: it gave an entry
            _note(sections, entries, data.get(COLUMN), source, number)
        yield from entries


_SECTIONED_KEYS = _JSON_KEYS | {COLUMN}


def _json_entries(
    numbered: Iterable[tuple[int, str]],
    source: str,
    default_tz: tzinfo | None,
    keys: frozenset[str],
    base: str | None = None,
) -> Iterator[Url | InputError]:
    import json  # loaded by the first line read here, not by a CSV build

    for number, line in numbered:
        if not line.strip():
            continue
        if not_utf8(line):
            yield InputError(source, number, "not valid UTF-8")
            continue
        try:
            data: Any = json.loads(line)
        except json.JSONDecodeError as exc:
            yield InputError(source, number, f"not JSON ({exc.msg} at column {exc.colno})")
            continue
        if not isinstance(data, dict):
            yield InputError(source, number, "not a JSON object")
            continue
        if data.get("type", "url") != "url":
            yield InputError(source, number, f"a {data['type']!r} entry, not a URL")
            continue
        unknown = sorted(set(data) - keys - {"type"})
        if unknown:
            known = ", ".join(sorted(keys))
            message = f"unknown keys {unknown}; the keys are {known}"
            yield InputError(source, number, message, "keys")
            continue
        fields = {
            k: v for k, v in data.items() if k in ("loc", "lastmod", "changefreq", "priority")
        }
        try:
            row = resolved_row(row_from_dict(fields), base)
        except InvalidValue as exc:
            yield InputError(source, number, str(exc), exc.field)
            continue
        if len(data) > len(fields):
            notes: list[str] = []  # what is at fault is left out alone, as the reader does
            try:
                row = (*row[:4], from_json_fields(data, notes))
            except InvalidValue as exc:
                yield without_extensions(source, number, row, exc, default_tz)
                continue
            except (KeyError, TypeError) as exc:
                yield InputError(source, number, f"extensions: {exc}")
                continue
            if notes:
                yield with_notes(source, number, row, notes, default_tz)
                continue
        try:
            yield Url(*row, default_tz=default_tz)
        except InvalidValue:
            yield kept_or_error(source, number, row, default_tz)

"""Build inputs: URL lists as text, CSV, TSV or JSON Lines, turned into entries.

Each source yields ``Url`` values, and ``InputError`` values for lines it could not use
(source name, line number, reason), so the builder can skip and report them or, under
--strict, stop. Gzipped inputs (``.gz``) are read transparently. Lines are read and
checked a batch at a time (``iter_batches``); for the build command, a batch of core-column
rows comes unchecked as one ``SourceRows`` (rows and their lines), which the build renders in
the compiled core, checking every value there; a batch the core refuses is checked row by
row, each bad line an ``InputError`` with its line number as ever.

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

Both: a ``sitemap`` column or key (the sitemap a URL was found in, as ``urlset fetch`` writes
it) is ignored, so fetched URLs build again. Any other unknown column fails the build and an
unknown key rejects its line: a misspelt ``lastmod`` would otherwise be lost without a word.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from datetime import tzinfo
from itertools import chain, islice, repeat
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import IO, Any

from ..errors import InputError, InvalidValue
from ..extensions import (
    JSON_KEYS,
    Alternate,
    Extension,
    Image,
    News,
    Relationship,
    Video,
    from_json_fields,
)
from ..model import RawElement, Url, row_from_dict, url_keeping_loc
from .source_rows import CoreRow, SourceRows, checked_rows, kept_or_error, written_without
from .source_rows import Row as Row  # what iter_batches(rows=True) yields beside entries

FORMATS = ("text", "csv", "tsv", "jsonl")
IGNORED_FIELDS = frozenset({"sitemap"})  # where `urlset fetch` found the URL
COLUMNS = ("loc", "lastmod", "changefreq", "priority")
IMAGE_COLUMNS = ("image_loc", "image_caption", "image_geo_location", "image_title", "image_license")
NEWS_COLUMNS = (
    "news_name",
    "news_language",
    "news_publication_date",
    "news_title",
    "news_access",
    "news_genres",
    "news_keywords",
    "news_stock_tickers",
)
VIDEO_COLUMNS = tuple(f"video_{name}" for name in Video.__dataclass_fields__ if name != "prices")
# "extensions": one JSON object with the JSON Lines extension fields, the cell `urlset read`
# writes in CSV and TSV, so that its output builds again
EXTENSION_COLUMNS = (*IMAGE_COLUMNS, *NEWS_COLUMNS, *VIDEO_COLUMNS, "alternates", "extensions")
_SUFFIXES = {".txt": "text", ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


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
    """Open a build input as text: a path (gzipped when it ends in .gz) or '-' for stdin."""
    if name == "-":
        return io.TextIOWrapper(
            sys.stdin.buffer, encoding="utf-8-sig", errors="surrogateescape", newline=""
        )
    raw: IO[bytes] = gzip.open(name, "rb") if name.endswith(".gz") else open(name, "rb")  # type: ignore[assignment]  # noqa: SIM115
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline="")


def iter_entries(
    stream: IO[str], fmt: str, source: str, *, default_tz: tzinfo | None = None
) -> Iterator[Url | InputError]:
    """Entries of one input stream; bad lines come as InputError values, in order."""
    for batch in iter_batches(stream, fmt, source, default_tz=default_tz):
        yield from batch  # type: ignore[misc]  # without rows=True: Urls and InputErrors only


def iter_batches(
    stream: IO[str],
    fmt: str,
    source: str,
    *,
    default_tz: tzinfo | None = None,
    rows: bool = False,
) -> Iterator[Sequence[Url | InputError | Row]]:
    """``iter_entries`` a list at a time: a build takes them so, without a generator step
    per line (a table of the core columns is read a batch of rows at a time). With
    ``rows``, a batch of core-column rows comes as one ``SourceRows`` entry, unchecked:
    ``write_sitemaps`` renders it in the compiled core, which checks every value, and only
    when the core refuses it are its rows checked one by one (``SourceRows.entries``)."""
    if fmt == "text":
        yield from _text(stream, source, rows)
    elif fmt in ("csv", "tsv"):
        delimiter = "\t" if fmt == "tsv" else ","
        yield from _table(stream, source, delimiter, default_tz, rows)
    elif fmt == "jsonl":
        yield from _jsonl(stream, source, default_tz, rows)
    else:
        raise InvalidValue("input format", fmt, f"choose one of {', '.join(FORMATS)}")


def _batched(entries: Iterator[Url | InputError]) -> Iterator[list[Url | InputError]]:
    while batch := list(islice(entries, _ROWS_PER_CHECK)):
        yield batch


def _not_utf8(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_ROWS_PER_CHECK = 4096


def _without_extensions(
    source: str, number: int, row: Sequence[Any], exc: InvalidValue, default_tz: tzinfo | None
) -> InputError:
    """A line whose extension values are bad still gives its page, without them."""
    try:
        kept, dropped = url_keeping_loc(row[:4], default_tz=default_tz)
    except (InvalidValue, TypeError):
        return kept_or_error(source, number, row[:4], default_tz)  # the loc is bad too
    reasons = [f"{exc} (written without its extensions)", *map(written_without, dropped)]
    return InputError(source, number, "; ".join(reasons), exc.field, kept=kept)


def _text(
    stream: IO[str], source: str, as_rows: bool
) -> Iterator[Sequence[Url | InputError | Row]]:
    """One URL a line, a batch of lines at a time ('#' comments and blank lines skipped)."""
    rows = SourceRows([], [], source, None)
    for number, line in enumerate(stream, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if _not_utf8(text):
            rows.errors.append((len(rows.rows), InputError(source, number, "not valid UTF-8")))
            continue
        rows.rows.append((text, None, None, None))
        rows.numbers.append(number)
        if len(rows.rows) == _ROWS_PER_CHECK:
            yield _passed_on(rows, as_rows)
            rows = SourceRows([], [], source, None)
    if rows.rows or rows.errors:
        yield _passed_on(rows, as_rows)


def _passed_on(rows: SourceRows, as_rows: bool) -> Sequence[Url | InputError | SourceRows]:
    """A batch as ``iter_batches`` yields it: the rows themselves, or their entries."""
    return [rows] if as_rows else rows.entries()


def _table(
    stream: IO[str], source: str, delimiter: str, default_tz: tzinfo | None, rows: bool = False
) -> Iterator[Sequence[Url | InputError | Row]]:
    reader = csv.reader(stream, delimiter=delimiter)
    try:
        header = [name.strip().lower() for name in next(reader)]
    except StopIteration:
        return
    except csv.Error as exc:
        yield [InputError(source, 1, f"unreadable header ({exc})")]
        return
    unknown = [name for name in header if not _known_column(name)]
    if "loc" not in header or unknown:
        wrong = f"unknown columns {unknown}" if unknown else "no 'loc' column"
        raise InvalidValue(
            "header",
            f"{source}:1",
            f"{wrong}; the columns are {', '.join(COLUMNS)} (loc required), and for "
            "extensions image_*, video_*, news_*, alternates and alternate_<hreflang> "
            "(see the urlset.writing.sources documentation)",
        )
    positions = [header.index(name) if name in header else -1 for name in COLUMNS]
    extra = [
        (i, name)
        for i, name in enumerate(header)
        if name not in COLUMNS and name not in IGNORED_FIELDS
    ]
    width = len(header)
    if not extra:
        yield from _core_table(reader, source, positions, width, default_tz, rows)
    else:
        yield from _batched(_extension_table(reader, source, positions, extra, width, default_tz))


def _extension_table(
    reader: Any,
    source: str,
    positions: list[int],
    extra: list[tuple[int, str]],
    width: int,
    default_tz: tzinfo | None,
) -> Iterator[Url | InputError]:
    """The rows of a table with extension columns, one at a time."""
    batch: list[tuple[int, tuple[Any, ...]]] = []
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            yield InputError(source, reader.line_num, f"unreadable row ({exc})")
            continue
        number = reader.line_num
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        problem: str | None = None
        field = "line"
        extensions: tuple[Extension | RawElement, ...] = ()
        if len(row) != width:
            problem = f"has {len(row)} fields; the header has {width}"
        else:
            values = tuple(row[i].strip() or None if i >= 0 else None for i in positions)
            if any(v is not None and _not_utf8(v) for v in values):
                problem = "not valid UTF-8"
            elif extra:
                cells = {name: row[i].strip() for i, name in extra if row[i].strip()}
                if any(_not_utf8(v) for v in cells.values()):
                    problem = "not valid UTF-8"
                elif cells:
                    try:
                        extensions = table_extensions(cells)
                    except InvalidValue as exc:
                        yield from checked_rows(batch, source, default_tz)
                        batch.clear()
                        yield _without_extensions(source, number, values, exc, default_tz)
                        continue
        if problem is not None:
            yield from checked_rows(batch, source, default_tz)
            batch.clear()
            yield InputError(source, number, problem, field)
            continue
        if extensions:  # a 5-field row: urls_from_rows checks it with Url(*row)
            batch.append((number, (values[0] or "", *values[1:], extensions)))
        else:
            batch.append((number, (values[0] or "", *values[1:])))
        if len(batch) == _ROWS_PER_CHECK:
            yield from checked_rows(batch, source, default_tz)
            batch.clear()
    yield from checked_rows(batch, source, default_tz)


def _core_table(
    reader: Any,
    source: str,
    positions: list[int],
    width: int,
    default_tz: tzinfo | None,
    as_rows: bool,
) -> Iterator[Sequence[Url | InputError | Row]]:
    """The rows of a table with no extension columns, a list at a time: held raw, then
    stripped column by column (no per-row Python beyond the CSV reader's); lines it cannot
    read are kept in place as errors."""
    pending: list[tuple[int, list[str]]] = []
    errors: list[InputError] = []
    while True:
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            errors.append(InputError(source, reader.line_num, f"unreadable row ({exc})"))
        else:
            if len(row) <= 1 and (not row or not row[0].strip()):
                continue  # a blank line
            if len(row) != width:
                problem = f"has {len(row)} fields; the header has {width}"
                errors.append(InputError(source, reader.line_num, problem))
            else:
                pending.append((reader.line_num, row))
        if len(pending) + len(errors) >= _ROWS_PER_CHECK:
            yield _passed_on(_core_rows(pending, errors, positions, source, default_tz), as_rows)
            pending, errors = [], []
    if pending or errors:
        yield _passed_on(_core_rows(pending, errors, positions, source, default_tz), as_rows)


def _core_rows(
    pending: list[tuple[int, list[str]]],
    errors: list[InputError],
    positions: list[int],
    source: str,
    default_tz: tzinfo | None,
) -> SourceRows:
    """The (loc, lastmod, changefreq, priority) rows of raw table rows, stripped; a row that
    is not UTF-8 becomes an error in its place."""
    rows = [row for _, row in pending]
    if _not_utf8("".join(chain.from_iterable(rows))):  # rare: find the rows, keep the order
        bad = [number for number, row in pending if _not_utf8("".join(row))]
        errors = errors + [InputError(source, number, "not valid UTF-8") for number in bad]
        pending = [(number, row) for number, row in pending if not _not_utf8("".join(row))]
        rows = [row for _, row in pending]
    numbers = [number for number, _ in pending]
    columns: list[Any] = [
        [cell.strip() or None for cell in map(itemgetter(i), rows)] if i >= 0 else repeat(None)
        for i in positions
    ]
    columns[0] = [loc or "" for loc in columns[0]]
    stripped: list[CoreRow] = list(zip(*columns, strict=False))  # repeat(None) ends with locs
    placed = [
        (bisect_left(numbers, error.line), error)
        for error in sorted(errors, key=attrgetter("line"))
    ]
    return SourceRows(stripped, numbers, source, default_tz, placed)


def _known_column(name: str) -> bool:
    return (
        name in COLUMNS
        or name in EXTENSION_COLUMNS
        or name in IGNORED_FIELDS
        or name.startswith("alternate_")
    )


def _parts(cells: dict[str, str], column: str, count: int) -> list[str | None]:
    """The ``|``-separated parts of an optional per-image column, one per image."""
    text = cells.get(column)
    if text is None:
        return [None] * count
    parts = [p.strip() or None for p in text.split("|")]
    if len(parts) != count:
        raise InvalidValue(column, text, f"has {len(parts)} parts for {count} images in image_loc")
    return parts


def table_extensions(cells: dict[str, str]) -> tuple[Extension | RawElement, ...]:
    """The extensions of one CSV/TSV row, from its non-empty extension cells (name -> text)."""
    out: list[Extension | RawElement] = []
    if "extensions" in cells:
        try:
            data = json.loads(cells["extensions"])
            if not isinstance(data, dict):
                raise ValueError("not an object")
            out.extend(from_json_fields(data))
        except InvalidValue:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidValue(
                "extensions",
                cells["extensions"][:80],
                f"is not a JSON object of extension fields, as `urlset read` writes ({exc})",
            ) from None
    if "image_loc" in cells:
        locs = [p.strip() for p in cells["image_loc"].split("|")]
        n = len(locs)
        captions, geos, titles, licenses = (_parts(cells, c, n) for c in IMAGE_COLUMNS[1:])
        out.extend(
            Image(loc, captions[i], geos[i], titles[i], licenses[i]) for i, loc in enumerate(locs)
        )
    elif any(c in cells for c in IMAGE_COLUMNS):
        raise InvalidValue("image_loc", None, "is empty but other image columns are not")
    video: dict[str, Any] = {k[6:]: v for k, v in cells.items() if k.startswith("video_")}
    if video:
        if "tags" in video:
            video["tags"] = tuple(t.strip() for t in video["tags"].split("|") if t.strip())
        for name in ("restriction", "platform"):
            if name in video:
                relationship, _, rest = video[name].partition(" ")
                video[name] = Relationship(relationship, tuple(rest.split()))
        for name in ("thumbnail_loc", "title", "description"):
            if name not in video:
                raise InvalidValue(
                    f"video_{name}", None, "is empty but other video columns are not"
                )
        out.append(Video(**video))
    if any(c in cells for c in NEWS_COLUMNS):
        for name in NEWS_COLUMNS[:4]:
            if name not in cells:
                raise InvalidValue(name, None, "is empty but other news columns are not")
        news: dict[str, Any] = cells
        out.append(
            News(
                news["news_name"],
                news["news_language"],
                news["news_publication_date"],
                news["news_title"],
                news.get("news_access"),
                news.get("news_genres", ()),
                news.get("news_keywords", ()),
                news.get("news_stock_tickers", ()),
            )
        )
    for name, text in cells.items():
        if name.startswith("alternate_"):
            out.append(Alternate(name[len("alternate_") :], text))
    if "alternates" in cells:
        for pair in cells["alternates"].split("|"):
            if not pair.strip():
                continue
            code, sep, href = pair.partition("=")
            if not sep:
                raise InvalidValue("alternates", pair, "write hreflang=href pairs separated by |")
            out.append(Alternate(code, href))
    return tuple(out)


_CORE_KEYS = frozenset(COLUMNS)
_FAST_KEYS = _CORE_KEYS | IGNORED_FIELDS  # lines checked column by column
_JSON_KEYS = _CORE_KEYS | IGNORED_FIELDS | set(JSON_KEYS)


def _jsonl(
    stream: IO[str], source: str, default_tz: tzinfo | None, as_rows: bool
) -> Iterator[Sequence[Url | InputError | Row]]:
    """JSON Lines a batch of lines at a time: a batch of objects with the core keys only is
    passed on as rows with ``as_rows`` (else checked column by column); any other batch goes
    line by line."""
    numbered = enumerate(stream, 1)
    while chunk := list(islice(numbered, _ROWS_PER_CHECK)):
        lines = [line for _, line in chunk]
        try:
            if _not_utf8("".join(lines)):
                raise ValueError("not UTF-8")
            objects: list[Any] = list(map(json.loads, lines))  # a blank line fails too
        except ValueError:
            yield list(_json_lines(chunk, source, default_tz))
            continue
        if (
            set(map(type, objects)) != {dict}
            or not set(chain.from_iterable(objects)) <= _FAST_KEYS
            or not all(map(dict.__contains__, objects, repeat("loc")))
        ):
            yield list(_json_lines(chunk, source, default_tz))
            continue
        # empty values mean "none", as Url.from_dict reads them
        lastmods = [value or None for value in map(dict.get, objects, repeat("lastmod"))]
        freqs = [value or None for value in map(dict.get, objects, repeat("changefreq"))]
        prios = [
            None if value == "" else value for value in map(dict.get, objects, repeat("priority"))
        ]
        locs = map(dict.__getitem__, objects, repeat("loc"))
        rows: list[CoreRow] = list(zip(locs, lastmods, freqs, prios, strict=True))
        numbers = [number for number, _ in chunk]
        yield _passed_on(SourceRows(rows, numbers, source, default_tz), as_rows)


def _json_lines(
    numbered: Iterable[tuple[int, str]], source: str, default_tz: tzinfo | None
) -> Iterator[Url | InputError]:
    for number, line in numbered:
        if not line.strip():
            continue
        if _not_utf8(line):
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
        unknown = sorted(set(data) - _JSON_KEYS - {"type"})
        if unknown:
            known = ", ".join(sorted(_JSON_KEYS))
            message = f"unknown keys {unknown}; the keys are {known}"
            yield InputError(source, number, message, "keys")
            continue
        fields = {
            k: v for k, v in data.items() if k in ("loc", "lastmod", "changefreq", "priority")
        }
        try:
            row = row_from_dict(fields)
        except InvalidValue as exc:
            yield InputError(source, number, str(exc), exc.field)
            continue
        if len(data) > len(fields):
            try:
                row = (*row[:4], from_json_fields(data))
            except InvalidValue as exc:
                yield _without_extensions(source, number, row, exc, default_tz)
                continue
            except (KeyError, TypeError) as exc:
                yield InputError(source, number, f"extensions: {exc}")
                continue
        try:
            yield Url(*row, default_tz=default_tz)
        except InvalidValue:
            yield kept_or_error(source, number, row, default_tz)

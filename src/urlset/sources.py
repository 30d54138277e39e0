"""Build inputs: URL lists as text, CSV, TSV or JSON Lines, turned into entries.

Each source yields ``Url`` values, and ``InputError`` values for lines it could not use
(source name, line number, reason), so the builder can skip and report them or, under
--strict, stop. Gzipped inputs (``.gz``) are read transparently.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import sys
from collections.abc import Iterator
from datetime import tzinfo
from pathlib import Path
from typing import IO, Any

from .errors import InputError, InvalidValue
from .model import RawElement, Url, urls_from_rows

FORMATS = ("text", "csv", "tsv", "jsonl")
COLUMNS = ("loc", "lastmod", "changefreq", "priority")
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
    if fmt == "text":
        yield from _text(stream, source)
    elif fmt in ("csv", "tsv"):
        yield from _table(stream, source, "\t" if fmt == "tsv" else ",", default_tz)
    elif fmt == "jsonl":
        yield from _jsonl(stream, source, default_tz)
    else:
        raise InvalidValue("input format", fmt, f"choose one of {', '.join(FORMATS)}")


def _not_utf8(text: str) -> bool:
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_ROWS_PER_CHECK = 4096


def _checked_rows(
    numbered: list[tuple[int, tuple[Any, ...]]], source: str, default_tz: tzinfo | None
) -> Iterator[Url | InputError]:
    """Check a batch of (line number, row) column by column; failures keep their line."""
    results = urls_from_rows([row for _, row in numbered], default_tz=default_tz)
    for (number, _), result in zip(numbered, results, strict=True):
        if type(result) is Url:
            yield result
        else:
            assert isinstance(result, InvalidValue)
            yield InputError(source, number, str(result), result.field)


def _text(stream: IO[str], source: str) -> Iterator[Url | InputError]:
    batch: list[tuple[int, tuple[Any, ...]]] = []
    for number, line in enumerate(stream, 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if _not_utf8(text):
            yield from _checked_rows(batch, source, None)
            batch.clear()
            yield InputError(source, number, "not valid UTF-8")
            continue
        batch.append((number, (text, None, None, None)))
        if len(batch) == _ROWS_PER_CHECK:
            yield from _checked_rows(batch, source, None)
            batch.clear()
    yield from _checked_rows(batch, source, None)


def _table(
    stream: IO[str], source: str, delimiter: str, default_tz: tzinfo | None
) -> Iterator[Url | InputError]:
    reader = csv.reader(stream, delimiter=delimiter)
    try:
        header = [name.strip().lower() for name in next(reader)]
    except StopIteration:
        return
    except csv.Error as exc:
        yield InputError(source, 1, f"unreadable header ({exc})")
        return
    unknown = [name for name in header if name not in COLUMNS]
    if "loc" not in header or unknown:
        wrong = f"unknown columns {unknown}" if unknown else "no 'loc' column"
        raise InvalidValue(
            "header",
            f"{source}:1",
            f"{wrong}; the columns are {', '.join(COLUMNS)} (loc required)",
        )
    positions = [header.index(name) if name in header else -1 for name in COLUMNS]
    width = len(header)
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
        if len(row) != width:
            problem = f"has {len(row)} fields; the header has {width}"
        else:
            values = tuple(row[i].strip() or None if i >= 0 else None for i in positions)
            if any(v is not None and _not_utf8(v) for v in values):
                problem = "not valid UTF-8"
        if problem is not None:
            yield from _checked_rows(batch, source, default_tz)
            batch.clear()
            yield InputError(source, number, problem)
            continue
        batch.append((number, (values[0] or "", *values[1:])))
        if len(batch) == _ROWS_PER_CHECK:
            yield from _checked_rows(batch, source, default_tz)
            batch.clear()
    yield from _checked_rows(batch, source, default_tz)


def _jsonl(stream: IO[str], source: str, default_tz: tzinfo | None) -> Iterator[Url | InputError]:
    for number, line in enumerate(stream, 1):
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
        fields = {
            k: v for k, v in data.items() if k in ("loc", "lastmod", "changefreq", "priority")
        }
        try:
            extensions = tuple(
                RawElement(str(e["namespace"]), str(e["name"]), str(e["xml"]))
                for e in data.get("extensions") or ()
            )
            yield Url.from_dict({**fields, "extensions": extensions}, default_tz=default_tz)
        except InvalidValue as exc:
            yield InputError(source, number, str(exc), exc.field)
        except (KeyError, TypeError):
            yield InputError(source, number, "extensions must be objects with namespace, name, xml")

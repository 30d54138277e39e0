"""The build side's shape matrix: rows of one shape each (and a realistic mix), written as every
build input format, for the build benchmark (bench_build_shapes.py) and the test that holds
the compiled core to every shape (tests/test_build_shapes.py).

  plain       /products/item-N, one date
  iri         /café/N-€ (a raw non-ASCII path: the core makes it a URI)
  idn         https://bücher.example/N (a non-ASCII host under a non-ASCII base URL)
  amp         /search?q=N&page=2
  apostrophe  /search?q=it's-N
  pct         /caf%C3%A9/N (%-escapes kept)
  port        https://shop.example.com:44300/N (a 5-digit port, in the base URL too)
  date, utc, offset, fraction, micro, minutes, year, month
              one lastmod form each: 2024-05-06, ...Z, +01:00 / -05:00 / +05:30 in turn,
              .123 (milliseconds), .123456, hh:mm without seconds, 2024, 2024-05
  image, hreflang, video, news
              one extension on every row (the JSON of ``urlset read``'s extensions)
  mix         issue 26's CMS export: offsets and fractions, 5% raw IRI paths, 10% queries
              with & and ', an image on every 10th row

Every shape has changefreq and priority in half its rows. Input formats: csv, tsv, jsonl,
text (locs only), each also gzipped; Python rows (tuples; extensions as typed values), Url
values, and Arrow tables (the four core columns: no extensions). Imports only the standard
library until Python rows, Url values or tables are asked for.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from typing import Any

HOST = "https://www.example.com/"
LOCS = ("plain", "iri", "idn", "amp", "apostrophe", "pct", "port")
LASTMODS = ("date", "utc", "offset", "fraction", "micro", "minutes", "year", "month")
EXTENSIONS = ("image", "hreflang", "video", "news")
SHAPES = (*LOCS, *LASTMODS, *EXTENSIONS, "mix")
FILE_FORMATS = ("csv", "tsv", "jsonl", "text")
FORMATS = (*FILE_FORMATS, *(f"{fmt}.gz" for fmt in FILE_FORMATS), "rows", "urls", "arrow")
BASES = {"idn": "https://bücher.example/", "port": "https://shop.example.com:44300/"}
_OFFSETS = ("+01:00", "-05:00", "+05:30")
_FREQS = ("daily", "weekly", "monthly")

Entry = tuple[str, str | None, str | None, str | None, dict[str, Any] | None]


def base(shape: str) -> str:
    """The base URL a shape's set is built for."""
    return BASES.get(shape, HOST)


def _loc(kind: str, i: int) -> str:
    if kind == "iri":
        return f"{HOST}café/{i}-€"
    if kind == "idn":
        return f"{BASES['idn']}p/{i}"
    if kind == "amp":
        return f"{HOST}search?q={i}&page=2"
    if kind == "apostrophe":
        return f"{HOST}search?q=it's-{i}"
    if kind == "pct":
        return f"{HOST}caf%C3%A9/{i}"
    if kind == "port":
        return f"{BASES['port']}p/{i}"
    return f"{HOST}products/item-{i}"


def _lastmod(kind: str, i: int) -> str:
    day, second = divmod(i, 86_400)
    date = f"2024-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}"
    time = f"T{second // 3600:02d}:{second // 60 % 60:02d}:{second % 60:02d}"
    if kind == "utc":
        return f"{date}{time}Z"
    if kind == "offset":
        return f"{date}{time}{_OFFSETS[i % 3]}"
    if kind == "fraction":
        return f"{date}{time}.{i % 1000:03d}{_OFFSETS[i % 3]}"
    if kind == "micro":
        return f"{date}{time}.{i % 1_000_000:06d}Z"
    if kind == "minutes":
        return f"{date}{time[:6]}{_OFFSETS[i % 3]}"
    if kind == "year":
        return "2024"
    if kind == "month":
        return f"2024-{1 + i % 12:02d}"
    return "2024-05-06"


def _extensions(kind: str, i: int, loc: str) -> dict[str, Any]:
    if kind == "image":
        return {"images": [{"loc": f"{HOST}img/{i}.jpg", "title": f"Item {i}"}]}
    if kind == "hreflang":
        return {
            "alternates": [
                {"hreflang": "en", "href": loc},
                {"hreflang": "de", "href": f"{HOST}de/{i}"},
            ]
        }
    if kind == "video":
        return {
            "videos": [
                {
                    "thumbnail_loc": f"{HOST}thumbs/{i}.jpg",
                    "title": f"Video {i}",
                    "description": "A short film.",
                    "content_loc": f"{HOST}videos/{i}.mp4",
                }
            ]
        }
    return {
        "news": {
            "publication_name": "The Example Times",
            "language": "en",
            "publication_date": "2025-12-31T10:00:00Z",
            "title": f"Article {i}",
        }
    }


def _mix(i: int) -> Entry:
    """Row ``i`` of issue 26's CMS export (bench_cms_export.py's distribution)."""
    path = f"products/item-{i}"
    if i % 20 == 7:
        path = f"produkte/bücher-{i}/größe"
    query = f"?q=it's&page={i}" if i % 10 == 3 else ""
    lastmod = _lastmod(("utc", "fraction", "micro")[i % 3], i)
    freq, priority = (_FREQS[i % 3], f"0.{i % 10}") if i % 2 else (None, None)
    loc = f"{HOST}{path}{query}"
    return loc, lastmod, freq, priority, _extensions("image", i, loc) if i % 10 == 0 else None


def entry(shape: str, i: int) -> Entry:
    """Row ``i`` of a shape: (loc, lastmod, changefreq, priority, extensions JSON or None)."""
    if shape == "mix":
        return _mix(i)
    loc = _loc(shape, i)
    lastmod = _lastmod(shape, i) if shape in LASTMODS else "2024-05-06"
    freq, priority = (_FREQS[i % 3], f"0.{i % 10}") if i % 2 else (None, None)
    extensions = _extensions(shape, i, loc) if shape in EXTENSIONS else None
    return loc, lastmod, freq, priority, extensions


def entries(shape: str, n: int, start: int = 0) -> list[Entry]:
    return [entry(shape, i) for i in range(start, start + n)]


def applies(shape: str, fmt: str) -> str | None:
    """None when ``fmt`` can hold ``shape``; else why not."""
    kind = fmt.removesuffix(".gz")
    if kind == "text" and shape not in LOCS:
        return "a text source holds locs only"
    if kind == "arrow" and shape in (*EXTENSIONS, "mix"):
        return "a table takes the four core columns only"
    return None


def source_bytes(fmt: str, rows: list[Entry]) -> bytes:
    """The rows as a source file of ``fmt`` (csv, tsv, jsonl, text; ``.gz``: gzipped)."""
    kind = fmt.removesuffix(".gz")
    if kind == "text":
        data = "".join(loc + "\n" for loc, *_ in rows).encode()
    elif kind == "jsonl":
        lines = []
        for loc, lastmod, freq, priority, extensions in rows:
            item = {"loc": loc, "lastmod": lastmod, "changefreq": freq, "priority": priority}
            line = {key: value for key, value in item.items() if value is not None}
            lines.append(json.dumps({**line, **(extensions or {})}, ensure_ascii=False) + "\n")
        data = "".join(lines).encode()
    else:
        out = io.StringIO()
        writer = csv.writer(out, delimiter="," if kind == "csv" else "\t", lineterminator="\n")
        with_extensions = any(row[4] is not None for row in rows)
        header = ["loc", "lastmod", "changefreq", "priority"]
        writer.writerow([*header, "extensions"] if with_extensions else header)
        for loc, lastmod, freq, priority, extensions in rows:
            cells = [loc, lastmod or "", freq or "", priority or ""]
            if with_extensions:
                cells.append("" if extensions is None else json.dumps(extensions))
            writer.writerow(cells)
        data = out.getvalue().encode()
    return gzip.compress(data, 6, mtime=0) if fmt.endswith(".gz") else data


def python_rows(rows: list[Entry]) -> list[tuple[Any, ...]]:
    """The rows as Python tuples: (loc, lastmod, changefreq, priority), and the typed
    extension values fifth when a row has some."""
    from urlset.extensions.registry import from_json_fields

    out: list[tuple[Any, ...]] = []
    for loc, lastmod, freq, priority, extensions in rows:
        core = (loc, lastmod, freq, priority)
        out.append(core if extensions is None else (*core, from_json_fields(extensions)))
    return out


def url_values(rows: list[Entry]) -> list[Any]:
    """The rows as ``Url`` values."""
    from urlset import Url

    return [Url(*row) for row in python_rows(rows)]


def arrow_table(rows: list[Entry]) -> Any:
    """The rows' core columns as an Arrow table."""
    import pyarrow as pa

    names = ("loc", "lastmod", "changefreq", "priority")
    columns = [[row[n] for row in rows] for n in range(4)]
    return pa.table(dict(zip(names, columns, strict=True)))

"""The build side's input forms: the same rows written as real exporters write each build
input format (Excel's byte order mark and CRLF, every cell quoted, header names in other
case, a CMS's column order and blank cells, spreadsheet lastmods and priorities, JSON Lines
as PHP and Python's ``json`` escape it, text lists with comments...), for the test that
holds the compiled core to every accepted form (tests/test_build_forms.py) and the survey
that times each form against the plain one (bench_build_forms.py).

Each form is a function of the rows (bench/build_shapes.py's entries) to the bytes of a
source file; ``FORMS`` names them with their input format (csv, tsv, jsonl, text) and
whether the build takes every row of them (``refused``: why the build refuses the file or
each row, by design). Imports only the standard library.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections.abc import Callable
from typing import Any, NamedTuple

Entry = tuple[str, str | None, str | None, str | None, dict[str, Any] | None]
_HEADER = ("loc", "lastmod", "changefreq", "priority")


class Form(NamedTuple):
    """One way of writing rows as a source: its input format, the bytes, and, when the build
    refuses the file or its rows by design, why."""

    fmt: str
    make: Callable[[list[Entry]], bytes]
    refused: str | None = None


def _table(
    rows: list[Entry],
    *,
    delimiter: str = ",",
    header: tuple[str, ...] = _HEADER,
    order: tuple[int, ...] = (0, 1, 2, 3),
    quoting: Any = csv.QUOTE_MINIMAL,
    line_end: str = "\n",
    before: str = "",
    cell: Callable[[int, str], str] = lambda _, text: text,
    extra: tuple[str, ...] = (),
) -> bytes:
    """Rows as a delimited table: the columns of ``header`` (``order``: which of the four
    core values each holds), each cell given by ``cell`` (column, text), then ``extra``
    columns (a CMS's own: a title, an id, a status)."""
    out = io.StringIO()
    writer = csv.writer(out, delimiter=delimiter, quoting=quoting, lineterminator=line_end)
    writer.writerow([*header, *extra])
    for i, row in enumerate(rows):
        cells = [cell(n, str(row[n] or "")) for n in order]
        writer.writerow([*cells, *(f"{name} {i}" for name in extra)])
    return (before + out.getvalue()).encode()


def _jsonl(
    rows: list[Entry],
    *,
    line: Callable[[dict[str, Any]], str] = lambda item: json.dumps(item, ensure_ascii=False),
    value: Callable[[str, Any], Any] = lambda _, v: v,
    keys: tuple[str, ...] = _HEADER,
    nulls: bool = False,
    line_end: str = "\n",
) -> bytes:
    """Rows as JSON Lines: each object's keys in ``keys`` order (absent values left out, or
    null with ``nulls``), each value given by ``value`` (key, value), written by ``line``."""
    lines = []
    for row in rows:
        given = dict(zip(_HEADER, row[:4], strict=True))
        item = {k: value(k, given[k]) for k in keys if nulls or given[k] is not None}
        lines.append(line({**item, **(row[4] or {})}) + line_end)
    return "".join(lines).encode()


def _text(
    rows: list[Entry], *, line_end: str = "\n", every: Callable[[int, str], str] | None = None
) -> bytes:
    """Rows' locs one a line (``every``: the line of row i as a list holds it)."""
    lines = [(every(i, r[0]) if every else r[0]) + line_end for i, r in enumerate(rows)]
    return "".join(lines).encode()


def _spreadsheet_lastmod(_: int, text: str) -> str:
    """A lastmod as spreadsheets write a date and time: a space, no zone (``2024-01-02 10:00:00``)."""
    return text.replace("T", " ").removesuffix("Z") if "T" in text else text


def _every_other(change: Callable[[str], str]) -> Callable[[int, str], str]:
    return lambda n, text: change(text) if n else text


BOM = "\ufeff"
FORMS: dict[str, Form] = {
    # CSV as Excel, CMSs and databases export it
    "csv-plain": Form("csv", lambda rows: _table(rows)),
    "csv-bom": Form("csv", lambda rows: _table(rows, before=BOM)),
    "csv-crlf": Form("csv", lambda rows: _table(rows, line_end="\r\n")),
    "csv-bom-crlf": Form("csv", lambda rows: _table(rows, before=BOM, line_end="\r\n")),
    "csv-quote-all": Form("csv", lambda rows: _table(rows, quoting=csv.QUOTE_ALL)),
    "csv-quote-all-crlf": Form(
        "csv", lambda rows: _table(rows, quoting=csv.QUOTE_ALL, line_end="\r\n")
    ),
    "csv-quoted-comma": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: f"{t}&tags=a,b" if n == 0 else t)
    ),
    "csv-header-case": Form(
        "csv", lambda rows: _table(rows, header=("Loc", "LastMod", "ChangeFreq", "PRIORITY"))
    ),
    "csv-header-spaces": Form(
        "csv", lambda rows: _table(rows, header=(" loc", "lastmod ", " changefreq ", "priority"))
    ),
    "csv-column-order": Form(
        "csv",
        lambda rows: _table(
            rows, header=("priority", "changefreq", "loc", "lastmod"), order=(3, 2, 0, 1)
        ),
    ),
    "csv-loc-only": Form("csv", lambda rows: _table(rows, header=("loc",), order=(0,))),
    "csv-sitemap-column": Form(
        "csv", lambda rows: _table(rows, header=(*_HEADER, "sitemap"), order=(0, 1, 2, 3, 0))
    ),
    "csv-padded": Form("csv", lambda rows: _table(rows, cell=lambda _, t: f" {t} " if t else "")),
    "csv-blank-lines": Form("csv", lambda rows: _table(rows).replace(b"\n", b"\n\n")),
    "csv-lastmod-space": Form(
        "csv",
        lambda rows: _table(rows, cell=lambda n, t: _spreadsheet_lastmod(n, t) if n == 1 else t),
    ),
    "csv-lastmod-millis": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: t.replace("Z", ".000Z") if n == 1 else t)
    ),
    "csv-lastmod-no-colon": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: t.replace("Z", "+0100") if n == 1 else t)
    ),
    "csv-lastmod-date": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: t[:10] if n == 1 else t)
    ),
    "csv-lastmod-no-zone": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: t.removesuffix("Z") if n == 1 else t)
    ),
    "csv-priority-one": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: ("1" if t else t) if n == 3 else t)
    ),
    "csv-priority-bare": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: t.removeprefix("0") if n == 3 else t)
    ),
    "csv-priority-comma": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: t.replace(".", ",") if n == 3 else t)
    ),
    "csv-changefreq-caps": Form(
        "csv", lambda rows: _table(rows, cell=lambda n, t: t.capitalize() if n == 2 else t)
    ),
    # refused by design: the file's header says so
    "csv-sep-line": Form(
        "csv", lambda rows: _table(rows, before="sep=,\n"), "a first line sep=, is no header"
    ),
    "csv-semicolon": Form(
        "csv", lambda rows: _table(rows, delimiter=";"), "a ; table is read as one column"
    ),
    "csv-url-header": Form(
        "csv",
        lambda rows: _table(rows, header=("URL", "Last Modified", "Change Frequency", "Priority")),
        "unknown column names",
    ),
    "csv-extra-columns": Form(
        "csv", lambda rows: _table(rows, extra=("title", "id", "status")), "unknown columns"
    ),
    # TSV
    "tsv-plain": Form("tsv", lambda rows: _table(rows, delimiter="\t")),
    "tsv-bom-crlf": Form(
        "tsv", lambda rows: _table(rows, delimiter="\t", before=BOM, line_end="\r\n")
    ),
    "tsv-quote-all": Form("tsv", lambda rows: _table(rows, delimiter="\t", quoting=csv.QUOTE_ALL)),
    # JSON Lines as programs write it
    "jsonl-plain": Form("jsonl", lambda rows: _jsonl(rows)),
    "jsonl-compact": Form(
        "jsonl",
        lambda rows: _jsonl(
            rows, line=lambda o: json.dumps(o, separators=(",", ":"), ensure_ascii=False)
        ),
    ),
    "jsonl-ascii": Form("jsonl", lambda rows: _jsonl(rows, line=json.dumps)),
    "jsonl-slashes": Form(
        "jsonl", lambda rows: _jsonl(rows, line=lambda o: json.dumps(o).replace("/", "\\/"))
    ),
    "jsonl-key-order": Form(
        "jsonl", lambda rows: _jsonl(rows, keys=("priority", "changefreq", "lastmod", "loc"))
    ),
    "jsonl-nulls": Form("jsonl", lambda rows: _jsonl(rows, nulls=True)),
    "jsonl-priority-number": Form(
        "jsonl",
        lambda rows: _jsonl(rows, value=lambda k, v: float(v) if k == "priority" and v else v),
    ),
    "jsonl-priority-integer": Form(
        "jsonl",
        lambda rows: _jsonl(
            rows, value=lambda k, v: int(float(v) >= 0.5) if k == "priority" and v else v
        ),
    ),
    "jsonl-type-url": Form(
        "jsonl", lambda rows: _jsonl(rows, line=lambda o: json.dumps({"type": "url", **o}))
    ),
    "jsonl-crlf": Form("jsonl", lambda rows: _jsonl(rows, line_end="\r\n")),
    "jsonl-bom": Form("jsonl", lambda rows: BOM.encode() + _jsonl(rows)),
    "jsonl-pretty-spaces": Form(
        "jsonl",
        lambda rows: _jsonl(
            rows, line=lambda o: " " + json.dumps(o, indent=None, separators=(" , ", " : ")) + " "
        ),
    ),
    # text lists
    "text-plain": Form("text", lambda rows: _text(rows)),
    "text-bom-crlf": Form("text", lambda rows: BOM.encode() + _text(rows, line_end="\r\n")),
    "text-comments": Form(
        "text", lambda rows: _text(rows, every=lambda i, loc: f"# page {i}\n\n{loc}  ")
    ),
}


def source_bytes(form: str, rows: list[Entry], gzipped: bool = False) -> bytes:
    """The rows written in ``form`` (gzipped: as gzip -6 writes them)."""
    data = FORMS[form].make(rows)
    return gzip.compress(data, 6, mtime=0) if gzipped else data

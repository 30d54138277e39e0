"""The build's compiled lane owns every row it can: a row that needs the per-entry way costs
that row alone, in its place (never its batch or its file), and each such row is counted in
``BuildReport.left_core`` by why."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Any

import pytest

from urlset import Url, write_sitemaps
from urlset.writing.build import BuildReport
from urlset.writing.sources import detect_format, iter_batches, open_source

BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def _rows(n: int) -> list[tuple[Any, ...]]:
    return [
        (f"{BASE}p/{i}?a=1&b='{i}'", "2024-05-01T10:00:00+02:00", "daily", "0.5") for i in range(n)
    ]


@pytest.mark.parametrize("at", [0, 17, 4095, 4096, 9999])
def test_a_bad_row_costs_itself_in_its_place(tmp_path: Path, at: int) -> None:
    rows = _rows(10_000)
    rows[at] = (rows[at][0], "2024-02-30", "daily", "0.5")  # written without its lastmod
    problems: list[Any] = []
    report = write_sitemaps(
        rows, tmp_path / "rows", BASE, gzip=False, now=NOW, on_problem=problems.append
    )
    assert report.left_core == {}  # written by the core without its lastmod, warned of
    assert [p.code for p in problems] == ["invalid-lastmod"]
    urls = [
        (loc, None if n == at else "2024-05-01T10:00:00+02:00") for n, (loc, *_) in enumerate(rows)
    ]
    objects = [Url(loc, lastmod, "daily", 0.5) for loc, lastmod in urls]
    write_sitemaps(objects, tmp_path / "urls", BASE, gzip=False, now=NOW)
    assert _files(tmp_path / "rows") == _files(tmp_path / "urls")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "text"])
def test_a_source_s_bad_line_costs_itself(tmp_path: Path, fmt: str) -> None:
    """Two lines the core refuses in a file of 9,000 (a batch is 4,096): those two alone leave
    it, and the set is what the per-entry way writes."""
    locs = [f"{BASE}p/{i}" for i in range(9000)]
    locs[5000] = "mailto:someone@example.com"
    locs[6000] = f"{BASE}p/a/../b"  # a dot segment: rare, left to the WHATWG parse
    source = tmp_path / f"in.{'txt' if fmt == 'text' else fmt}"
    if fmt == "text":
        source.write_text("\n".join(locs) + "\n")
    elif fmt == "jsonl":
        source.write_text("".join(json.dumps({"loc": loc}) + "\n" for loc in locs))
    else:
        sep = "," if fmt == "csv" else "\t"
        source.write_text(
            "".join(f"{loc}{sep}2024-05-01\n" for loc in ["loc", *locs]).replace(
                f"loc{sep}2024-05-01", f"loc{sep}lastmod", 1
            )
        )
    report = _build_file(source, tmp_path / "out")
    assert report.left_core == {"loc": 2}
    assert report.rejected == {"invalid-loc": 1}
    assert report.urls == 8999


def _build_file(source: Path, out: Path, **options: Any) -> BuildReport:
    with open_source(str(source)) as stream:
        batches = iter_batches(stream, detect_format(source.name), source.name, rows=True)
        return write_sitemaps(
            chain.from_iterable(batches), out, BASE, gzip=False, now=NOW, **options
        )


def test_mappings_are_counted_as_they_leave_the_core(tmp_path: Path) -> None:
    """Entries given as mappings are read one by one in Python: counted, not hidden."""
    rows = [{"loc": f"{BASE}m/{n}", "lastmod": "2024-05-01"} for n in range(5)]
    report = write_sitemaps([*rows, (f"{BASE}t", None, None, None)], tmp_path, BASE, now=NOW)
    assert report.left_core == {"mapping": 5, "mixed-batch": 1}
    assert report.urls == 6


def test_runs_of_a_batch_are_its_entries_in_order_and_a_whole_batch_is_not_copied() -> None:
    """``refused_runs`` cuts a rendered batch around the rows the core refused; a batch it
    took whole is passed on as it is (a copy of ~1 MiB of XML a batch, the GIL held, was
    the build's for nothing)."""
    from urlset._core import render_rows
    from urlset.writing.compiled import refused_runs

    rows = [(f"https://www.example.com/{i}", None, None, None) for i in range(6)]
    whole = render_rows(rows, "https://www.example.com/", 2048, False)
    assert whole is not None and not whole.refused()
    ((start, end, run),) = list(refused_runs(whole, len(rows), []))
    assert (start, end, run) == (0, 6, whole) and run is whole
    rows[2] = ("not a url", None, None, None)
    cut = render_rows(rows, "https://www.example.com/", 2048, False)
    assert cut is not None
    runs = list(refused_runs(cut, len(rows), cut.refused()))
    assert [(s, e, None if r is None else r.locs) for s, e, r in runs] == [
        (0, 2, [row[0] for row in rows[:2]]),
        (2, 3, None),
        (3, 6, [row[0] for row in rows[3:]]),
    ]

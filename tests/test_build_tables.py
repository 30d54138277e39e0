"""Building from tables (Arrow, pandas, Polars): the same files, byte for byte, as the same rows
given as tuples of Python values, whatever the column types, chunking, nulls and bad rows."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from urlset import InvalidValue, write_sitemaps
from urlset.limits import CURRENT

BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _files(out: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir())}


def _same_as_rows(table: Any, rows: list[tuple[Any, ...]], tmp: Path, **options: Any) -> None:
    """``table`` builds what ``rows`` build: the files and the report's counts."""
    got = write_sitemaps(table, tmp / "table", BASE, now=NOW, **options)
    want = write_sitemaps(rows, tmp / "rows", BASE, now=NOW, **options)
    assert _files(tmp / "table") == _files(tmp / "rows")
    for name in ("urls", "duplicates", "rejected", "kept_without"):
        assert getattr(got, name) == getattr(want, name), name
    assert [f.lastmod for f in got.files] == [f.lastmod for f in want.files]


def _locs(n: int) -> list[str]:
    shapes = ["p/{}", "s?q={}&page=2", "q?x=it's-{}", "caf%C3%A9/{}"]
    return [BASE + shapes[i % 4].format(i) for i in range(n)]


def test_an_arrow_table_builds_what_its_rows_build(tmp_path: Path) -> None:
    n = 30_000
    locs = _locs(n) + _locs(500)  # duplicates at the end
    days = [date(2024, 1, 1) + timedelta(days=i % 400) for i in range(len(locs))]
    freqs = ["daily", "Weekly", None, " never "] * (len(locs) // 4)
    prios = [0.5, None, 1.0, 0.1234] * (len(locs) // 4)
    table = pa.table({"loc": locs, "lastmod": days, "changefreq": freqs, "priority": prios})
    rows = list(zip(locs, days, freqs, prios, strict=True))
    _same_as_rows(table, rows, tmp_path, limits=CURRENT.lowered(max_urls=7000))
    _same_as_rows(table.to_batches()[0], rows, tmp_path / "batch")
    # without gzip, both are rendered on two threads (``beside``): still the same bytes
    _same_as_rows(table, rows, tmp_path / "plain", gzip=False)


def test_bad_rows_deep_in_a_batch_rendered_beside_go_the_long_way(tmp_path: Path) -> None:
    """A bad loc or value after the first chunks of a batch that two threads render (plain
    output): the batch is refused and written row by row, as with gzip."""
    locs = _locs(6000)
    lastmods: list[str | None] = ["2024-01-01"] * 6000
    locs[5000] = BASE + "ä/b c"  # rendered by the second thread: the loc check refuses it
    lastmods[3000] = "2024-02-30"  # read by the first: the value check refuses it
    table = pa.table({"loc": locs, "lastmod": lastmods})
    rows = [(loc, lastmod, None, None) for loc, lastmod in zip(locs, lastmods, strict=True)]
    for gzip in (False, True):
        _same_as_rows(table, rows, tmp_path / str(gzip), gzip=gzip)
        plain = write_sitemaps(rows, tmp_path / f"again-{gzip}", BASE, now=NOW, gzip=gzip)
        assert plain.urls == 6000 and plain.kept_without["invalid-lastmod"] == 1


def test_dataframes_build_the_same(tmp_path: Path) -> None:
    locs = _locs(5000)
    lastmods = [f"2024-02-{1 + i % 28:02d}T10:00:00+02:00" for i in range(5000)]
    prios = ["0.5", "", "1", "0.25"] * 1250
    rows = list(zip(locs, lastmods, ["daily"] * 5000, prios, strict=True))
    frame = {"loc": locs, "lastmod": lastmods, "changefreq": ["daily"] * 5000, "priority": prios}
    _same_as_rows(pd.DataFrame(frame), rows, tmp_path / "pandas")
    _same_as_rows(pl.DataFrame(frame), rows, tmp_path / "polars")


@pytest.mark.parametrize("zone", ["UTC", "+05:30", "Europe/Paris", "America/St_Johns"])
def test_timestamps_are_written_in_their_zone(zone: str, tmp_path: Path) -> None:
    start = datetime(2023, 3, 20, tzinfo=UTC)  # across spring changes in both hemispheres
    instants = [start + timedelta(minutes=97 * i, microseconds=i % 3) for i in range(3000)]
    column = pa.array(instants, pa.timestamp("us", "UTC")).cast(pa.timestamp("us", zone))
    table = pa.table({"loc": _locs(3000), "lastmod": column})
    tz = timezone(timedelta(hours=5, minutes=30)) if zone == "+05:30" else ZoneInfo(zone)
    rows = [
        (loc, t.astimezone(tz), None, None) for loc, t in zip(_locs(3000), instants, strict=True)
    ]
    _same_as_rows(table, rows, tmp_path)


def test_column_encodings_chunks_and_slices(tmp_path: Path) -> None:
    n = 20_000
    locs = _locs(n)
    table = pa.table(
        {
            "loc": pa.array(locs, pa.large_string()),
            "changefreq": pa.array(["daily", "weekly"] * (n // 2)).dictionary_encode(),
            "priority": pa.array([0, 1] * (n // 2), pa.int8()),
            "lastmod": pa.array([None] * n, pa.null()),
        }
    )
    chunked = pa.concat_tables([table.slice(0, 7000), table.slice(7000)]).slice(3, n - 10)
    rows = [(loc, None, ["daily", "weekly"][i % 2], float(i % 2)) for i, loc in enumerate(locs)]
    _same_as_rows(chunked, rows[3 : n - 7], tmp_path)


def test_bad_rows_are_reported_as_the_rows_way_reports_them(tmp_path: Path) -> None:
    locs = [*_locs(100), "https://other.org/x", BASE + "ä/b c", "not a url", None]
    lastmods = ["2024-01-01"] * 100 + ["2024-02-30", "2999-01-01", None, None]
    table = pa.table({"loc": locs, "lastmod": lastmods})
    rows = [(loc, lastmod, None, None) for loc, lastmod in zip(locs, lastmods, strict=True)]
    _same_as_rows(table, rows, tmp_path, skip_out_of_scope=True)


def test_a_table_needs_known_columns(tmp_path: Path) -> None:
    with pytest.raises(InvalidValue, match="'loc' column"):
        write_sitemaps(pa.table({"url": [BASE]}), tmp_path, BASE)
    with pytest.raises(InvalidValue, match="unknown columns"):
        write_sitemaps(pa.table({"loc": [BASE], "title": ["x"]}), tmp_path, BASE)


@pytest.mark.parametrize(
    "table",
    [
        pa.table({"loc": [BASE + "a"], "lastmod": [date(2024, 1, 1)], "priority": [1]}),
        pa.table({"loc": [BASE + "a"], "lastmod": pa.array([NOW], pa.timestamp("ns", "UTC"))}),
        pl.DataFrame({"loc": [BASE + "a?b&c"], "changefreq": ["daily"], "priority": [0.5]}),
        pd.DataFrame({"loc": [BASE + "a"], "lastmod": ["2024-01-01T10:00+02:00"]}),
    ],
)
def test_good_tables_are_rendered_without_python_rows(table: Any) -> None:
    from urlset.writing.tables import table_batches

    (batch,) = table_batches(table, 10)
    assert batch.render(BASE, text=False) is not None

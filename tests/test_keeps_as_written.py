"""What the publisher wrote is kept: "'" in a query, and the precision of a W3C Datetime."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

from click.testing import CliRunner

from helpers import load
from urlset import CURRENT, Url, read_bytes, write_sitemaps
from urlset.cli import main
from urlset.dates import Year, YearMonth

BASE = "https://www.example.com/"
DOC = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    b"<url><loc>https://www.example.com/it&apos;s?q=o&apos;neil&amp;x=%27</loc>"
    b"<lastmod>2014-06</lastmod></url>\n"
    b"<url><loc>https://www.example.com/y</loc><lastmod>2014</lastmod></url>\n"
    b"<url><loc>https://www.example.com/z</loc><lastmod>2014-01-01</lastmod></url>\n"
    b"</urlset>\n"
)


def test_read_keeps_apostrophes_and_precision() -> None:
    entries = list(read_bytes(DOC))
    assert [e.loc for e in entries] == [
        BASE + "it's?q=o'neil&x=%27",  # a written %27 stays too
        BASE + "y",
        BASE + "z",
    ]
    assert [e.lastmod for e in entries] == [YearMonth(2014, 6), Year(2014), date(2014, 1, 1)]
    assert [type(e.lastmod).__name__ for e in entries] == ["YearMonth", "Year", "date"]


def test_read_prints_the_precision_as_written(tmp_path: Path) -> None:
    (tmp_path / "s.xml").write_bytes(DOC)
    result = CliRunner().invoke(main, ["read", str(tmp_path / "s.xml")])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["lastmod"] for line in lines] == ["2014-06", "2014", "2014-01-01"]
    assert lines[0]["loc"] == BASE + "it's?q=o'neil&x=%27"


def test_build_writes_them_as_given_and_round_trips(tmp_path: Path) -> None:
    urls = [
        Url(BASE + "it's?q=o'neil&a=1", "2014-06"),
        Url(BASE + "b?q='ü'", "2014"),
        Url(BASE + "c", "2014-01-01"),
    ]
    write_sitemaps(urls, tmp_path / "api", BASE, gzip=False)
    text = (tmp_path / "api" / "sitemap.xml").read_text("utf-8")
    assert "<loc>https://www.example.com/it&apos;s?q=o&apos;neil&amp;a=1</loc>" in text
    assert "<loc>https://www.example.com/b?q=&apos;%C3%BC&apos;</loc>" in text
    assert "<lastmod>2014-06</lastmod>" in text and "<lastmod>2014</lastmod>" in text
    assert list(read_bytes(load(tmp_path / "api" / "sitemap.xml"))) == urls

    src = tmp_path / "in.csv"
    src.write_text(f"loc,lastmod\n{BASE}it's?q=o'neil,2014-06\n{BASE}y,2014\n")
    args = ["build", str(src), "--base-url", BASE, "--out", str(tmp_path / "cli"), "--no-gzip"]
    assert CliRunner().invoke(main, args).exit_code == 0
    text = (tmp_path / "cli" / "sitemap.xml").read_text("utf-8")
    assert "it&apos;s?q=o&apos;neil</loc><lastmod>2014-06</lastmod>" in text
    assert "/y</loc><lastmod>2014</lastmod>" in text


def test_index_lastmod_is_the_newest_by_instant_in_its_own_spelling(tmp_path: Path) -> None:
    urls = [Url(BASE + "a", "2014"), Url(BASE + "b", "2013-12-31"), Url(BASE + "c", "2014-06")]
    report = write_sitemaps(urls, tmp_path, BASE, gzip=False, limits=CURRENT.lowered(max_urls=2))
    assert [f.lastmod for f in report.files] == [Year(2014), YearMonth(2014, 6)]
    index = (tmp_path / "sitemap.xml").read_text("utf-8")
    assert "<lastmod>2014</lastmod>" in index and "<lastmod>2014-06</lastmod>" in index


def test_check_orders_reduced_precision_by_instant() -> None:
    """A Year or YearMonth lastmod is a date to the checker: in the past it passes, in the
    future it draws future-lastmod (it once failed an assertion that a non-date is a datetime)."""
    from datetime import UTC, datetime

    from urlset.checking.checker import CheckOptions, check_document

    doc = DOC.replace(b"<lastmod>2014</lastmod>", b"<lastmod>2099</lastmod>")
    now = datetime(2026, 11, 23, tzinfo=UTC)
    issues = [
        i for i in check_document(doc, CheckOptions(now=now)).issues if i.code != "placeholder-host"
    ]
    future = [i for i in issues if i.code == "future-lastmod"]
    assert [(i.code, i.line) for i in future] == [("future-lastmod", 4)]
    assert "lastmod 2099 is after" in future[0].message
    # kept as written, and warned as build warns: sitemap.xsd needs a day
    assert {i.code for i in issues} == {"future-lastmod", "lastmod-without-day"}

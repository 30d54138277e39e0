"""The static HTML reports in a real browser (Debian's Chromium, headless, via Selenium): each
page renders from a file with nothing to fetch, its charts are drawn, its tables hold the
expected rows; a full-page screenshot of each is kept in out/screenshots/ (never compared)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from report_support import SITE, diffed_sides, fetched_site, site_rows, urlset_doc
from test_fetch_support import LoopbackServer
from urlset.cli import main

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

WIDTH = 1280


@pytest.fixture
def full_page(browser: WebDriver, screenshot: Callable[[], Path]) -> Iterator[Callable[[], Path]]:
    """A screenshot of the whole page: the window is made as tall as the page first."""

    def take() -> Path:
        height = int(browser.execute_script("return document.documentElement.scrollHeight"))
        browser.set_window_size(WIDTH, min(height + 120, 16_000))
        return screenshot()

    yield take
    browser.set_window_size(WIDTH, 900)


def charts(browser: WebDriver) -> list[dict[str, float]]:
    """Each inline SVG chart: its drawn size and how many shapes it holds."""
    script = """
        return [...document.querySelectorAll('svg.chart')].map(svg => {
            const box = svg.getBoundingClientRect();
            return {width: box.width, height: box.height,
                    shapes: svg.querySelectorAll('path, use, rect').length,
                    title: svg.querySelector('title').textContent};
        });"""
    found: list[dict[str, float]] = browser.execute_script(script)
    return found


def rows_of(browser: WebDriver, caption_start: str) -> list[list[str]]:
    script = """
        const table = [...document.querySelectorAll('table')]
            .find(t => t.caption && t.caption.textContent.startsWith(arguments[0]));
        if (!table) return null;
        return [...table.tBodies[0].rows].map(r => [...r.cells].map(c => c.innerText.trim()));"""
    rows: list[list[str]] | None = browser.execute_script(script, caption_start)
    assert rows is not None, f"no table whose caption starts {caption_start!r}"
    return rows


def test_check_report_renders_with_charts_and_tables(
    browser: WebDriver, full_page: Callable[[], Path], tmp_path: Path
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    rows = site_rows(60_000, 14)
    (site / "sitemap-1.xml").write_bytes(urlset_doc(rows[:40_000]))
    (site / "sitemap-2.xml").write_bytes(urlset_doc(rows[40_000:]))
    (site / "sitemap-3.xml").write_bytes(
        urlset_doc(
            [(f"{SITE}/blog/a b", "2024-02-30"), (f"{SITE}/blog/c", "2099-01-01")]
            + [(f"https://www.acme-outdoor.org/x/{i}", "2025-01-01") for i in range(3)]
        )
    )
    report = tmp_path / "check.html"
    result = CliRunner().invoke(
        main,
        [
            "check",
            str(site),
            "--base-url",
            f"{SITE}/",
            "--format",
            "html",
            "-o",
            str(report),
            "--now",
            "2026-01-01",
        ],
    )
    assert result.exit_code == 1, result.output
    browser.get(report.as_uri())
    assert browser.title == "Sitemap check"
    drawn = charts(browser)
    assert [c["title"] for c in drawn] == [
        "Issues by code",
        "Sitemaps against the limits",
        "URLs by lastmod",
        "URLs per section",
    ]
    for chart in drawn:
        assert chart["width"] > 600 and chart["height"] > 150
        assert chart["shapes"] > 10
    codes = [row[0].split("\n")[0] for row in rows_of(browser, "Each code once")]
    # errors first, then by count; the three URLs on another host are one finding
    assert codes == ["invalid-lastmod", "url-not-allowed", "url-not-escaped", "future-lastmod"]
    sections = rows_of(browser, "The 16 largest sections")
    assert sum(int(row[1].replace(",", "")) for row in sections) == 60_005
    files = rows_of(browser, "3 files")
    assert files[0][0].endswith("sitemap-3.xml")  # the one with errors first
    assert full_page().stat().st_size > 20_000


def test_fetch_report_renders_with_charts_and_tables(
    browser: WebDriver, full_page: Callable[[], Path], tmp_path: Path
) -> None:
    report = tmp_path / "fetch.html"
    with LoopbackServer() as server:
        fetched_site(server)
        args = ["fetch", server.base, "-o", str(tmp_path / "urls.jsonl"), "--report", str(report)]
        result = CliRunner().invoke(main, [*args, "-q", "--retries", "0", "--workers", "0"])
    assert result.exit_code == 1, result.output
    browser.get(report.as_uri())
    assert browser.title == "Sitemap fetch"
    drawn = charts(browser)
    assert [c["title"] for c in drawn] == [
        "Documents by state",
        "Issues by code",
        "Sitemaps against the URL limit",
        "URLs by lastmod",
        "URLs per section",
    ]
    for chart in drawn:
        assert chart["width"] > 600 and chart["height"] > 100
        assert chart["shapes"] > 5
    tree = rows_of(browser, "7 documents in document order")
    assert [row[0].strip() for row in tree][:2] == [
        f"{server.base}/robots.txt",
        f"{server.base}/index.xml",
    ]
    assert [row[1] for row in tree] == ["ok", "ok", "ok", "ok", "ok", "failed", "partial"]
    assert [row[3] for row in tree][2:5] == ["5,000", "3,000", "1,000"]
    problems = rows_of(browser, "2 documents failed or read in part")
    assert [row[0] for row in problems] == [
        f"{server.base}/missing.xml",
        f"{server.base}/cut.xml.gz",
    ]
    # a link in the tree leads to the sitemap itself
    link = browser.find_element("link text", f"{server.base}/s-1.xml")
    assert link.get_attribute("href") == f"{server.base}/s-1.xml"
    assert full_page().stat().st_size > 20_000


def test_diff_report_renders_with_charts_and_tables(
    browser: WebDriver, full_page: Callable[[], Path], tmp_path: Path
) -> None:
    pytest.importorskip("duckdb")
    old, new = diffed_sides(tmp_path)
    report = tmp_path / "diff.html"
    result = CliRunner().invoke(
        main, ["diff", str(old), str(new), "--format", "html", "-o", str(report)]
    )
    assert result.exit_code == 1, result.output
    browser.get(report.as_uri())
    assert browser.title == "Sitemap diff"
    drawn = charts(browser)
    assert [c["title"] for c in drawn] == [
        "Changes by kind",
        "What changed in changed entries",
        "Changes per section",
        "URLs by lastmod",
    ]
    for chart in drawn:
        assert chart["width"] > 600 and chart["height"] > 100
        assert chart["shapes"] > 5
    sections = rows_of(browser, "Changes per section, by kind")
    by_name = {row[0]: row for row in sections}
    assert by_name["/new/"][1:] == [
        "300",
        "0",
        "0",
        "0",
        "300",
    ]  # added, removed, changed, moved, all
    added = rows_of(browser, "added: the first 15 of 300 by loc")
    assert len(added) == 15 and all(row[0].startswith(f"{SITE}/new/page-") for row in added)
    assert full_page().stat().st_size > 20_000

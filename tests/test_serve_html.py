"""The HTML view: browsers get a table, crawlers the XML; paged; in a real browser too."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from serve_support import fetch, uvicorn_server
from urlset import CURRENT, Url, write_sitemaps
from urlset.extensions.hreflang import Alternate
from urlset.extensions.image import Image
from urlset.extensions.news import News
from urlset.serve import Request, asgi_app, sitemap_app

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

BASE = "https://example.com/"
NOW = datetime(2026, 11, 25, tzinfo=UTC)
BROWSER = {
    "accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "sec-fetch-dest": "document",
}
# what Googlebot sends: text/html ranked first too, but no browser navigation
CRAWLER = {"accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}


def _entries() -> list[Url]:
    rich = Url(
        f"{BASE}news/élan?a=1&b=<2>",
        date(2026, 11, 20),
        "hourly",
        0.8,
        (
            Image(f"{BASE}img/1.jpg"),
            Image(f"{BASE}img/2.jpg"),
            News("The Example Times", "en", date(2026, 11, 20), "Élan & more"),
            Alternate("en", f"{BASE}news/élan?a=1&b=<2>"),
            Alternate("de", f"{BASE}de/news/elan"),
        ),
    )
    plain = [Url(f"{BASE}p/{i}", date(2026, 10, 1 + i % 28)) for i in range(2499)]
    return [rich, *plain]


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("html")
    write_sitemaps(_entries(), out, BASE, limits=CURRENT.lowered(max_urls=1000), now=NOW)
    return out


def _view(published: Path, path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
    path, _, query = path.partition("?")
    response = sitemap_app(published).respond(Request("GET", path, headers, query))
    body = b"".join(response.body).decode()
    return response.status, {k.lower(): v for k, v in response.headers}, body


def _cells(html: str) -> list[list[str]]:
    body = html.split("<tbody>")[1].split("</tbody>")[0]
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in body.split("</tr>")[:-1]]


def test_browsers_get_html_and_crawlers_xml(published: Path) -> None:
    status, headers, html = _view(published, "/sitemap.xml", BROWSER)
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert "Accept" in headers["vary"] and headers["x-robots-tag"] == "noindex"
    assert "3 sitemaps" in html
    _, headers, xml = _view(published, "/sitemap.xml", CRAWLER)
    assert headers["content-type"] == "application/xml; charset=utf-8"
    assert xml.startswith("<?xml")
    _, headers, _ = _view(published, "/sitemap.xml?view=xml", BROWSER)
    assert headers["content-type"].startswith("application/xml")
    _, headers, _ = _view(published, "/sitemap.xml?view=html", {})
    assert headers["content-type"].startswith("text/html")


def test_the_index_view_links_each_child_to_its_view(published: Path) -> None:
    _, _, html = _view(published, "/sitemap.xml", BROWSER)
    children = sorted(p.name for p in published.glob("sitemap-*.xml.gz"))
    links = re.findall(r'<td class="url"><a href="([^"]+)">', html)
    assert sorted(links) == ["/" + child for child in children]


def test_the_url_table_counts_extensions_and_lists_hreflang(published: Path) -> None:
    for child in sorted(published.glob("sitemap-*.xml.gz")):
        _, _, html = _view(published, f"/{child.name}", BROWSER)
        rows = _cells(html)
        rich = [row for row in rows if "news/%C3%A9lan" in row[1]]
        if rich:
            break
    else:
        pytest.fail("the rich entry is in no sitemap")
    (row,) = rich
    assert "a=1&amp;b=%3C2%3E" in row[1]  # escaped: no markup from the sitemap gets through
    assert row[2:8] == ["2026-11-20", "hourly", "0.8", "2", "", "1"]
    assert re.findall(r">(\w+)</a>", row[8]) == ["en", "de"]


def test_paging_through_50000_rows(tmp_path: Path) -> None:
    out = tmp_path / "big"
    write_sitemaps([(f"{BASE}item/{i}",) for i in range(50_000)], out, BASE, gzip=False)
    _, _, first = _view(out, "/sitemap.xml", BROWSER)
    assert "50,000 URLs; rows 1-1,000; page 1 of 50." in first
    assert len(_cells(first)) == 1000
    _, headers, last = _view(out, "/sitemap.xml?page=50", BROWSER)
    rows = _cells(last)
    assert len(rows) == 1000 and rows[-1][0] == "50,000"
    assert 'rel="previous" href="?page=49"' in last and "<span>next</span>" in last
    again = sitemap_app(out).respond(
        Request("GET", "/sitemap.xml", {**BROWSER, "if-none-match": headers["etag"]}, "page=50")
    )
    assert again.status == 304


@pytest.fixture(scope="module")
def server(published: Path) -> Iterator[str]:
    with uvicorn_server(asgi_app(published)) as base:
        yield base


def test_in_a_real_browser_the_index_opens_a_shard_view(
    browser: WebDriver, server: str, screenshot: Callable[[], Path], published: Path
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{server}/sitemap.xml")
    assert "3 sitemaps" in browser.find_element(By.ID, "summary").text
    links = browser.find_elements(By.CSS_SELECTOR, "#entries td.url a")
    assert len(links) == 3
    target = links[0].get_attribute("href")
    assert target is not None
    links[0].click()
    assert browser.current_url == target
    rows = browser.find_elements(By.CSS_SELECTOR, "#entries tbody tr")
    summary = browser.find_element(By.ID, "summary").text
    total = int(summary.split()[0].replace(",", ""))
    assert len(rows) == min(total, 1000) and total > 0
    assert screenshot().stat().st_size > 5000
    # the same URL still gives a crawler the gzip file the index names
    status, headers, _ = fetch(server, "/" + target.rsplit("/", 1)[1], headers=CRAWLER)
    assert status == 200 and headers["content-type"] == "application/gzip"


def test_the_root_lists_the_files_for_a_browser_only(published: Path) -> None:
    status, _, html = _view(published, "/", BROWSER)
    assert status == 200
    names = re.findall(r'<li><a href="([^"]+)">', html)
    assert sorted(names) == sorted("/" + p.name for p in published.iterdir())
    assert "sitemap.xml.gz</a> (entry point)" in html
    status, _, text = _view(published, "/", CRAWLER)
    assert status == 404 and "sitemap.xml.gz" in text


def test_values_and_counts_are_written_as_the_build_and_the_reports_write_them(
    tmp_path: Path,
) -> None:
    rows = [(f"{BASE}p/{i}", None, None, ("0", "1", "0.5", "0.25")[i % 4]) for i in range(1000)]
    write_sitemaps(rows, tmp_path / "many", BASE, gzip=False)
    _, _, html = _view(tmp_path / "many", "/sitemap.xml", BROWSER)
    assert "1,000 URLs; rows 1-1,000; page 1 of 1." in html
    written = re.findall(
        rb"<priority>([^<]*)</priority>", (tmp_path / "many/sitemap.xml").read_bytes()
    )
    shown = [row[4] for row in _cells(html)]
    assert shown[:4] == ["0.0", "1.0", "0.5", "0.25"]
    assert shown == [value.decode() for value in written]  # one spelling: the build's
    write_sitemaps([(f"{BASE}only",)], tmp_path / "one", BASE, gzip=False)
    _, _, html = _view(tmp_path / "one", "/sitemap.xml", BROWSER)
    assert "1 URL; rows 1-1; page 1 of 1." in html


def test_the_view_has_the_reports_look(published: Path) -> None:
    from urlset.reports.page import document
    from urlset.writing.page_style import PAGE_CSS

    _, headers, html = _view(published, "/sitemap.xml", BROWSER)
    report = document("title", "subtitle", [], "made")
    style = re.compile(r"<style>(.*?)</style>", re.S)
    assert style.findall(html) == style.findall(report) == [PAGE_CSS]
    assert "style-src 'unsafe-inline'" in headers["content-security-policy"]


@pytest.mark.parametrize("name", ["sitemap.xml", "sitemap.xml.gz"])
def test_the_xml_link_of_a_gzip_set_shows_the_xml(published: Path, name: str) -> None:
    _, _, html = _view(published, f"/{name}", BROWSER)
    (link,) = re.findall(r'<a href="([^"]+)">XML</a>', html)
    assert link == f"/{name}?view=xml"
    status, headers, xml = _view(published, link, BROWSER)
    assert status == 200 and headers["content-type"] == "application/xml; charset=utf-8"
    assert xml.startswith("<?xml") and "<sitemapindex" in xml
    # without ?view=xml, the .gz name is still the gzip file it is
    response = sitemap_app(published).respond(Request("GET", "/sitemap.xml.gz", CRAWLER))
    assert response.header("Content-Type") == "application/gzip"
    response.close()

"""urlset's XSL stylesheet: published beside a set by ``build --stylesheet``, applied by a real
XSLT processor (libxslt through lxml) and by Chromium where it still applies XSLT."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner
from lxml import etree

from serve_support import uvicorn_server
from urlset.cli import main
from urlset.writing.stylesheet import publish_stylesheet, stylesheet_bytes

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

BASE = "https://example.com/"
JSONL = "\n".join(
    [
        '{"loc": "https://example.com/a?x=1&y=2", "lastmod": "2026-11-01", "priority": 0.4,'
        ' "images": [{"loc": "https://example.com/1.jpg"}, {"loc": "https://example.com/2.jpg"}],'
        ' "alternates": [{"hreflang": "en", "href": "https://example.com/a?x=1&y=2"},'
        ' {"hreflang": "fr", "href": "https://example.com/fr/a"}]}',
        *[f'{{"loc": "https://example.com/p/{i}", "changefreq": "daily"}}' for i in range(30)],
    ]
)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("xsl")
    source = root / "urls.jsonl"
    source.write_text(JSONL + "\n", encoding="utf-8")
    out = root / "out"
    args = ["build", str(source), "--base-url", BASE, "--out", str(out), "--no-gzip"]
    result = CliRunner().invoke(main, [*args, "--stylesheet", "--max-urls", "20", "-q"])
    assert result.exit_code == 0, result.output
    return out


def _transform(document: Path, directory: Path) -> etree._XSLTResultTree:
    stylesheet = etree.XSLT(etree.parse(str(directory / "sitemap.xsl")))
    return stylesheet(etree.parse(str(document)))


def test_build_publishes_and_references_the_stylesheet(built: Path) -> None:
    assert (built / "sitemap.xsl").read_bytes() == stylesheet_bytes()
    for document in built.glob("sitemap*.xml"):
        assert b'<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>' in document.read_bytes()


def test_libxslt_renders_the_index_and_each_sitemap(built: Path) -> None:
    index = _transform(built / "sitemap.xml", built)
    children = index.xpath("//table[@id='entries']/tbody/tr/td[2]/a/@href")
    assert len(children) == 2 and all(c.startswith(BASE + "sitemap-") for c in children)
    rows = []
    for child in sorted(built.glob("sitemap-*.xml")):
        rows += _transform(child, built).xpath("//table[@id='entries']/tbody/tr")
    assert len(rows) == 31
    (rich,) = [r for r in rows if r.xpath("string(td[2])") == "https://example.com/a?x=1&y=2"]
    cells = [rich.xpath(f"normalize-space(td[{i}])") for i in range(3, 10)]
    assert cells == ["2026-11-01", "", "0.4", "2", "", "", "en fr"]


def test_the_stylesheet_has_the_look_and_spelling_of_the_other_pages(
    built: Path, tmp_path: Path
) -> None:
    from urlset.writing.page_style import PAGE_CSS

    index = _transform(built / "sitemap.xml", built)
    assert index.xpath("string(//style)") == PAGE_CSS
    assert index.xpath("string(//p[@id='summary'])") == "2 sitemaps"
    assert index.xpath("//table[@id='entries']//td[@class='url']")
    one = tmp_path / "one.xml"
    one.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "<url><loc>https://example.com/a</loc><priority>0.0</priority></url>" * 1
        + "</urlset>"
    )
    assert _transform(one, built).xpath("string(//p[@id='summary'])") == "1 URL"
    many = tmp_path / "many.xml"
    many.write_text(
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + "<url><loc>https://example.com/a</loc></url>" * 1200
        + "</urlset>"
    )
    page = _transform(many, built)
    assert page.xpath("string(//p[@id='summary'])") == "1,200 URLs"
    assert page.xpath("string(//tbody/tr[last()]/td[1])") == "1,200"


def test_stylesheet_usage_errors(tmp_path: Path) -> None:
    source = tmp_path / "u.txt"
    source.write_text(f"{BASE}a\n")
    common = ["build", str(source), "--base-url", BASE, "--out", str(tmp_path / "o")]
    both = CliRunner().invoke(main, [*common, "--stylesheet", "--xsl", "/s.xsl"])
    assert both.exit_code == 2 and "leave out --xsl" in both.output
    text = CliRunner().invoke(main, [*common, "--stylesheet", "--format", "text"])
    assert text.exit_code == 2 and "text sitemaps" in text.output


def test_publish_stylesheet_writes_it_atomically(tmp_path: Path) -> None:
    path = publish_stylesheet(tmp_path / "new")
    assert path.read_bytes() == stylesheet_bytes()
    assert sorted(p.name for p in path.parent.iterdir()) == ["sitemap.xsl"]


@pytest.fixture
def xml_server(built: Path) -> Iterator[str]:
    from urlset.serve import asgi_app

    with uvicorn_server(asgi_app(built, html=False)) as base:  # the browser gets the XML
        yield base


def test_chromium_applies_the_stylesheet(
    browser: WebDriver, xml_server: str, screenshot: Callable[[], Path]
) -> None:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(f"{xml_server}/sitemap.xml")
    try:
        WebDriverWait(browser, 15).until(lambda b: b.find_elements(By.ID, "entries"))
    except TimeoutException:
        if browser.execute_script("return typeof XSLTProcessor") == "undefined":
            pytest.skip("this Chromium has XSLT turned off (the HTML view is the way there)")
        raise
    assert len(browser.find_elements(By.CSS_SELECTOR, "#entries tbody tr")) == 2
    assert screenshot().stat().st_size > 2000

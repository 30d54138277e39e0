"""The crawler against a generated site on a loopback server the test starts: link cycles,
noindex pages, canonicals, robots.txt disallows, a slow page, a redirect chain, a 500."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from click.testing import CliRunner

from sources_support import PAGES, assert_valid_set, html_page, site_page
from test_fetch_support import LAST_MODIFIED, LoopbackServer, fast_http, urlset
from urlset.cli import main
from urlset.sources.crawl import Crawl, CrawlOptions, http_date_lastmod
from urlset.sources.report import SourceError

HTML = "text/html; charset=utf-8"


def _serve_site(server: LoopbackServer) -> None:
    base = server.base
    home_links = [
        "/p/0.html",
        "/noindex.html",
        "/header-noindex.html",
        "/dup.html",
        "/private/secret.html",
        "/slow.html",
        "/hop1",
        "/error.html",
        "/manual.pdf",
        "/missing.html",
        "/leave",
    ]
    home = html_page(body="".join(f'<a href="{link}">x</a>' for link in home_links))
    server.add("/", home.encode(), HTML)
    for i in range(PAGES):
        server.add(f"/p/{i}.html", site_page(i).encode(), HTML)
    server.add(
        "/noindex.html",
        html_page(
            head='<meta name="robots" content="noindex,follow">',
            body='<a href="/only-from-noindex.html">x</a>',
        ).encode(),
        HTML,
    )
    server.add("/only-from-noindex.html", html_page().encode(), HTML)
    server.add(
        "/header-noindex.html", html_page().encode(), HTML, headers={"X-Robots-Tag": "noindex"}
    )
    server.add(
        "/dup.html", html_page(head='<link rel="canonical" href="/p/0.html">').encode(), HTML
    )
    server.add("/private/secret.html", html_page().encode(), HTML)
    server.add("/nofollow-target.html", html_page().encode(), HTML)
    server.add("/orphan.html", html_page().encode(), HTML)  # linked only from the sitemap
    server.add("/manual.pdf", b"%PDF-1.4", "application/pdf")
    server.add(
        "/robots.txt",
        f"User-agent: *\nDisallow: /private/\nSitemap: {base}/sitemap.xml\n".encode(),
        "text/plain",
    )
    server.add("/sitemap.xml", urlset([f"{base}/orphan.html", f"{base}/p/1.html"]))

    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(0.3)
        return web.Response(body=html_page(title="slow").encode(), content_type="text/html")

    async def error(request: web.Request) -> web.StreamResponse:
        return web.Response(status=500, text="boom")

    def redirect(to: str) -> object:
        async def handler(request: web.Request) -> web.StreamResponse:
            return web.Response(status=301, headers={"Location": to})

        return handler

    server.handle("/slow.html", slow)
    server.handle("/error.html", error)
    server.handle("/hop1", redirect("/hop2"))  # type: ignore[arg-type]
    server.handle("/hop2", redirect("/p/5.html"))  # type: ignore[arg-type]
    server.handle("/leave", redirect(f"http://localhost:{server.port}/p/2.html"))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        _serve_site(server)
        yield server


def _options(**overrides: object) -> CrawlOptions:
    values: dict[str, object] = {"http": fast_http(), "concurrency": 8}
    values.update(overrides)
    return CrawlOptions(**values)  # type: ignore[arg-type]


def test_crawl_lists_each_indexable_page_once(site: LoopbackServer) -> None:
    site.hits.clear()
    crawl = Crawl(site.url("/"), _options())
    pages = crawl.run_sync()
    urls = sorted(page.url for page in pages)
    expected = sorted(
        [
            site.url("/"),
            site.url("/slow.html"),
            site.url("/orphan.html"),
            site.url("/only-from-noindex.html"),
        ]
        + [site.url(f"/p/{i}.html") for i in range(PAGES)]
    )
    assert urls == expected
    left = crawl.report.left_out
    assert left['noindex (<meta name="robots"> or X-Robots-Tag)'] == 2
    assert left["canonical is another URL"] == 1
    assert left["disallowed by robots.txt (not requested)"] == 1
    assert left["could not be read"] == 1  # the 500, after its retries
    assert left["not an HTML page"] == 1
    assert left["HTTP 404"] == 1
    assert left["redirected off the site (not requested)"] == 1
    assert crawl.failed == 1
    # never requested: disallowed, nofollow, off-site; every page fetched once (retries aside)
    assert site.hits["/private/secret.html"] == 0
    assert site.hits["/nofollow-target.html"] == 0
    assert site.hits["/p/7.html"] == 1
    assert site.hits["/error.html"] == 3  # fast_http: 3 attempts
    # the chain ends at a page also linked directly: listed once (fetched twice when the
    # direct link is fetched first, since the redirect is only known once followed)
    assert site.hits["/hop1"] == 1 and site.hits["/hop2"] == 1
    assert site.hits["/p/5.html"] in (1, 2)
    page = next(p for p in pages if p.url == site.url("/p/50.html"))
    assert page.lastmod == "2024-01-01T00:00:00+00:00"  # Last-Modified
    assert page.facts.alternates == (
        ("en", site.url("/p/50.html")),
        ("de", site.url("/p/50.html?lang=de")),
    )


def test_limits(site: LoopbackServer) -> None:
    crawl = Crawl(site.url("/"), _options(max_pages=10, sitemaps=False))
    crawl.run_sync()
    assert crawl.requested == 10
    assert any("--max-pages 10 was reached" in note for note in crawl.report.notes)
    shallow = Crawl(site.url("/p/0.html"), _options(max_depth=1, sitemaps=False))
    found = {page.url for page in shallow.run_sync()}
    # depth 1 from /p/0.html, within its directory /p/ (the link to / is outside it)
    assert found == {site.url(p) for p in ("/p/0.html", "/p/1.html", "/p/3.html", "/p/13.html")}
    started = time.monotonic()
    timed = Crawl(site.url("/"), _options(max_seconds=0.5, rate=20.0))
    timed.run_sync()
    assert time.monotonic() - started < 3
    assert 0 < timed.requested <= 12  # 20 a second for half a second, plus the robots.txt


def test_crawl_delay_spaces_requests() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", b"User-agent: *\nCrawl-delay: 0.2\n", "text/plain")
        server.add("/", html_page(body='<a href="/a">a</a><a href="/b">b</a>').encode(), HTML)
        server.add("/a", html_page().encode(), HTML)
        server.add("/b", html_page().encode(), HTML)
        started = time.monotonic()
        crawl = Crawl(server.url("/"), _options(sitemaps=False, concurrency=4))
        assert len(crawl.run_sync()) == 3
        assert time.monotonic() - started >= 0.4  # three requests, 0.2 s apart
        assert "robots.txt asks for 0.2 s between requests" in crawl.report.notes


def test_unreadable_robots_txt_stops_the_crawl() -> None:
    async def unavailable(request: web.Request) -> web.StreamResponse:
        return web.Response(status=503)

    with LoopbackServer() as server:
        server.handle("/robots.txt", unavailable)
        server.add("/", html_page().encode(), HTML)
        with pytest.raises(SourceError, match="RFC 9309"):
            Crawl(server.url("/"), _options()).run_sync()
        assert server.hits["/"] == 0


def test_last_modified() -> None:
    assert http_date_lastmod(LAST_MODIFIED) == "2024-01-01T00:00:00+00:00"
    assert http_date_lastmod("Tue, 15 Nov 1994 08:12:31 +0200") == "1994-11-15T06:12:31+00:00"
    assert http_date_lastmod("yesterday") is None


def test_crawl_command_writes_what_build_reads(site: LoopbackServer, tmp_path: Path) -> None:
    pages = tmp_path / "pages.jsonl"
    args = ["crawl", site.url("/"), "--out", str(pages), "--concurrency", "8", "--images"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output  # the 500 page could not be read
    assert "left out 1: could not be read" in result.output
    lines = [json.loads(line) for line in pages.read_text().splitlines()]
    assert len(lines) == PAGES + 4
    p50 = next(line for line in lines if line["loc"] == site.url("/p/50.html"))
    assert p50["alternates"][1] == {"hreflang": "de", "href": site.url("/p/50.html?lang=de")}
    assert p50["images"] == [{"loc": site.url("/i/50.png")}]
    out = tmp_path / "out"
    built = CliRunner().invoke(
        main, ["build", str(pages), "--base-url", site.url("/"), "--out", str(out)]
    )
    assert built.exit_code == 0, built.output
    assert len(assert_valid_set(out)) == PAGES + 4


def test_build_crawl_is_valid(site: LoopbackServer, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = ["build", "--crawl", site.url("/"), "--base-url", site.url("/"), "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--max-pages", "50", "--no-sitemaps"])
    assert result.exit_code == 0, result.output
    locs = assert_valid_set(out)
    assert site.url("/") in locs and len(locs) <= 50
    assert "50 pages requested" in result.output


# -- robots.txt is tested on the URL as requested, whatever its spelling
SPELLINGS = [
    "/public/%2e%2e/private/x.html",
    "/public/%2E%2E/private/x.html",
    "/public/.%2e/private/x.html",
    "/public/%2e./private/x.html",
    "/public/../private/x.html",
    "/public/./../private/x.html",
    "/public/sub/../../private/x.html",
    "/%70rivate/x.html",
    "/pr%69vate/x.html",
    "/%2e/private/x.html",
]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_every_spelling_of_a_path_has_one_form(spelling: str) -> None:
    from urlset.sources.crawl import robots_form

    assert robots_form("http://h.example" + spelling) == "http://h.example/private/x.html"


def test_robots_form_keeps_reserved_escapes_and_upper_cases_them() -> None:
    from urlset.sources.crawl import robots_form

    assert robots_form("http://h.example/a%2fb?q=%7e%2f") == "http://h.example/a%2Fb?q=~%2F"
    assert robots_form("http://h.example/a/./b/../c/") == "http://h.example/a/c/"
    assert robots_form("http://h.example/..") == "http://h.example/"


def test_no_spelling_of_a_disallowed_path_is_requested() -> None:
    with LoopbackServer() as server:
        links = "".join(f'<a href="{s}">x</a>' for s in [*SPELLINGS, "/jump", "/leave"])
        server.add("/", html_page(body=links).encode(), HTML)
        server.add("/private/x.html", html_page().encode(), HTML)
        server.add("/private/y.html", html_page().encode(), HTML)
        server.add("/robots.txt", b"User-agent: *\nDisallow: /private/\n", "text/plain")

        def redirect(to: str) -> object:
            async def handler(request: web.Request) -> web.StreamResponse:
                return web.Response(status=302, headers={"Location": to})

            return handler

        server.handle("/jump", redirect("/public/%2e%2e/private/y.html"))  # type: ignore[arg-type]
        server.handle("/leave", redirect(f"http://localhost:{server.port}/private/z.html"))  # type: ignore[arg-type]
        crawl = Crawl(server.url("/"), _options(sitemaps=False))
        pages = crawl.run_sync()
        hits = dict(server.hits)
    assert [p.url for p in pages] == [server.url("/")]
    # neither the disallowed page nor the off-site target was asked for, by any path
    assert not any(path.startswith(("/private", "/public", "/%")) for path in hits), hits
    left = crawl.report.left_out
    assert left["disallowed by robots.txt (not requested)"] == 1  # all spellings: one URL
    assert left["redirected to a URL robots.txt disallows (not requested)"] == 1
    assert left["redirected off the site (not requested)"] == 1
    assert crawl.report.examples["redirected off the site (not requested)"] == [
        f"{server.url('/leave')} -> http://localhost:{server.port}/private/z.html"
    ]

"""The audit host by host, against loopback servers the tests start: a slow host (its
Crawl-delay) never holds the other hosts' URLs; a redirect to another host is one request
under that host's robots.txt and pacing; HEAD is asked first only where the body is not
needed, and a host that answers HEAD with 405 or unlike GET is asked with GET."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Any

from aiohttp import web

from sources_support import html_page
from test_audit_politeness import Timed
from test_fetch_support import NS, LoopbackServer, fast_http
from urlset.auditing.driver import Audit, AuditOptions
from urlset.auditing.output import text_lines
from urlset.auditing.visit import looks_not_html

PAGE = html_page().encode()
HTML = "text/html; charset=utf-8"


class MethodServer(LoopbackServer):
    """The loopback server answering every method (HEAD too), counting (method, path)."""

    route_methods = "*"

    def __init__(self) -> None:
        super().__init__()
        self.methods: Counter[tuple[str, str]] = Counter()

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        self.methods[request.method, request.path] += 1
        return await super()._dispatch(request)


def _sitemap_file(folder: Path, locs: list[str]) -> str:
    body = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
    path = folder / "sitemap.xml"
    path.write_text(f"<urlset {NS}>\n{body}</urlset>\n")
    return str(path)


def _audit(target: str, **options: Any) -> Audit:
    http = fast_http(allow_private=True)
    audit = Audit(target, AuditOptions(http=http, **options))
    audit.run_sync()
    return audit


def test_a_slow_host_never_holds_the_other_hosts(tmp_path: Path) -> None:
    """Six URLs of a host asking 0.5 s between requests come first in the list; the other
    host's twenty are all answered while the slow one is still at its second."""
    slow, fast = Timed(), Timed()
    with LoopbackServer() as a, LoopbackServer() as b:
        a.add("/robots.txt", b"User-agent: *\nCrawl-delay: 0.5\n", "text/plain")
        b.add("/robots.txt", b"User-agent: *\nAllow: /\n", "text/plain")
        for i in range(6):
            a.handle(f"/p/{i}", slow)
        for i in range(20):
            b.handle(f"/p/{i}", fast)
        locs = [a.url(f"/p/{i}") for i in range(6)] + [b.url(f"/p/{i}") for i in range(20)]
        audit = _audit(_sitemap_file(tmp_path, locs), concurrency=4, per_host=4)
    assert audit.report.status_mix == {"2xx": 26}
    slow.assert_spaced(0.5)  # the slow host's own pace held
    assert len(fast.starts) == 20
    # every fast URL asked before the slow host's third turn (1 s after its first)
    assert max(fast.starts) < sorted(slow.starts)[2]


def test_cross_host_redirect_obeys_the_target_hosts_robots_txt(tmp_path: Path) -> None:
    async def to_b_private(request: web.Request) -> web.StreamResponse:
        raise web.HTTPMovedPermanently(b.url("/private/page"))

    async def to_b_open(request: web.Request) -> web.StreamResponse:
        index = request.path.rsplit("/", 1)[1]
        raise web.HTTPFound(b.url(f"/open/{index}"))

    landed = Timed()
    with LoopbackServer() as a, LoopbackServer() as b:
        a.add("/robots.txt", b"User-agent: *\nAllow: /\n", "text/plain")
        b.add(
            "/robots.txt", b"User-agent: *\nDisallow: /private/\nCrawl-delay: 0.3\n", "text/plain"
        )
        b.add("/private/page", PAGE, HTML)
        a.handle("/go-private", to_b_private)
        for i in range(4):
            a.handle(f"/go/{i}", to_b_open)
            b.handle(f"/open/{i}", landed)
        locs = [a.url("/go-private")] + [a.url(f"/go/{i}") for i in range(4)]
        audit = _audit(_sitemap_file(tmp_path, locs), concurrency=8, per_host=8)
        assert b.hits["/private/page"] == 0  # disallowed on its own host: never requested
        assert b.hits["/robots.txt"] == 1
    report = audit.report
    assert report.counts["page-disallowed"] == 1
    message = report.examples["page-disallowed"][0].message
    assert b.url("/private/page") in message and "robots.txt disallows" in message
    assert report.counts["page-redirect"] == 4
    assert len(landed.starts) == 4
    landed.assert_spaced(0.3)  # the target host's Crawl-delay, not the source's pace


def test_a_redirect_loop_across_hosts_is_caught(tmp_path: Path) -> None:
    with LoopbackServer() as a, LoopbackServer() as b:

        async def to_b(request: web.Request) -> web.StreamResponse:
            raise web.HTTPFound(b.url("/back"))

        async def to_a(request: web.Request) -> web.StreamResponse:
            raise web.HTTPFound(a.url("/loop"))

        a.handle("/loop", to_b)
        b.handle("/back", to_a)
        audit = _audit(_sitemap_file(tmp_path, [a.url("/loop")]))
        assert a.hits["/loop"] == 1 and b.hits["/back"] == 1
    assert audit.report.counts["page-redirect-loop"] == 1
    assert "/back" in audit.report.examples["page-redirect-loop"][0].message


def test_looks_not_html() -> None:
    assert looks_not_html("https://example.com/files/Report.PDF")
    assert looks_not_html("https://example.com/a/photo.jpg?size=2#top")
    assert not looks_not_html("https://example.com/page.html")
    assert not looks_not_html("https://example.com/blog/")
    assert not looks_not_html("https://example.com/v1.2/intro")
    assert not looks_not_html("https://example.pdf/")


def _head_site(server: MethodServer) -> None:
    server.add("/robots.txt", b"User-agent: *\nAllow: /\n", "text/plain")
    server.add("/page.html", PAGE, HTML)
    server.add("/doc.pdf", b"%PDF-1.4", "application/pdf")
    noindex = html_page(head='<meta name="robots" content="noindex">').encode()
    server.add("/really-html.pdf", noindex, HTML)


def test_head_first_only_where_the_body_is_not_needed(tmp_path: Path) -> None:
    with MethodServer() as server:
        _head_site(server)
        locs = [server.url(p) for p in ("/page.html", "/doc.pdf", "/really-html.pdf")]
        audit = _audit(_sitemap_file(tmp_path, locs))
        methods = dict(server.methods)
    assert methods[("GET", "/page.html")] == 1 and ("HEAD", "/page.html") not in methods
    assert methods[("HEAD", "/doc.pdf")] == 1 and ("GET", "/doc.pdf") not in methods
    # HEAD said HTML after all: the GET reads its meta robots
    assert methods[("HEAD", "/really-html.pdf")] == 1 and methods[("GET", "/really-html.pdf")] == 1
    assert audit.report.counts["page-noindex"] == 1 and audit.report.counts["page-not-html"] == 1
    assert audit.report.methods == {"HEAD": 2, "GET": 2}
    lines = text_lines(audit.report)
    assert "  pages requested: 2 HEAD, 2 GET (HEAD where the body was not needed, --head)" in lines


def test_head_always_and_never(tmp_path: Path) -> None:
    with MethodServer() as server:
        _head_site(server)
        locs = [server.url(p) for p in ("/page.html", "/doc.pdf")]
        _audit(_sitemap_file(tmp_path, locs), head="always")
        assert (
            server.methods["HEAD", "/page.html"] == 1 and server.methods["GET", "/page.html"] == 1
        )
        server.methods.clear()
        _audit(_sitemap_file(tmp_path, locs), head="never")
        pages = {key for key in server.methods if key[1] != "/robots.txt"}
        assert pages == {("GET", "/page.html"), ("GET", "/doc.pdf")}


def test_head_refused_with_405_means_get_for_the_host(tmp_path: Path) -> None:
    async def no_head(request: web.Request) -> web.StreamResponse:
        if request.method == "HEAD":
            return web.Response(status=405, headers={"Allow": "GET"})
        return web.Response(body=b"%PDF-1.4", content_type="application/pdf")

    with MethodServer() as server:
        server.add("/robots.txt", b"User-agent: *\nAllow: /\n", "text/plain")
        for i in range(3):
            server.handle(f"/f{i}.pdf", no_head)
        locs = [server.url(f"/f{i}.pdf") for i in range(3)]
        audit = _audit(_sitemap_file(tmp_path, locs), concurrency=1)
        heads = sum(n for (method, _), n in server.methods.items() if method == "HEAD")
    assert heads == 1  # the first; then GET only
    assert audit.report.counts["page-not-html"] == 3 and audit.report.status_mix == {"2xx": 3}
    assert any("answers HEAD with 405" in note for note in audit.report.notes)


def test_head_answered_unlike_get_is_not_believed(tmp_path: Path) -> None:
    async def head_lies(request: web.Request) -> web.StreamResponse:
        if request.method == "HEAD":
            return web.Response(status=404)
        return web.Response(body=b"PK", content_type="application/zip")

    with MethodServer() as server:
        server.add("/robots.txt", b"User-agent: *\nAllow: /\n", "text/plain")
        for i in range(3):
            server.handle(f"/a{i}.zip", head_lies)
        locs = [server.url(f"/a{i}.zip") for i in range(3)]
        audit = _audit(_sitemap_file(tmp_path, locs), concurrency=1)
        heads = sum(n for (method, _), n in server.methods.items() if method == "HEAD")
    assert heads == 1
    assert audit.report.counts["page-not-found"] == 0 and audit.report.status_mix == {"2xx": 3}
    assert any("answers HEAD unlike GET (HEAD 404, GET 200" in n for n in audit.report.notes)


def test_head_404_confirmed_by_get_keeps_head(tmp_path: Path) -> None:
    with MethodServer() as server:
        server.add("/robots.txt", b"User-agent: *\nAllow: /\n", "text/plain")
        locs = [server.url(f"/gone{i}.pdf") for i in range(5)]
        audit = _audit(_sitemap_file(tmp_path, locs), concurrency=1)
        gets = sum(
            n for (method, p), n in server.methods.items() if p != "/robots.txt" and method == "GET"
        )
        heads = sum(n for (method, _), n in server.methods.items() if method == "HEAD")
    assert audit.report.counts["page-not-found"] == 5
    assert heads == 5 and gets == 3  # the first three checked with GET, then HEAD believed
    assert not any("HEAD" in note for note in audit.report.notes)


def test_per_host_limit_holds_across_hosts_and_hops(tmp_path: Path) -> None:
    """Redirect hops count against the target host's limit like first requests."""
    held = Timed(hold=0.1)

    async def hop(request: web.Request) -> web.StreamResponse:
        raise web.HTTPFound(b.url("/to" + request.path))

    with LoopbackServer() as a, LoopbackServer() as b:
        for i in range(12):
            a.handle(f"/r/{i}", hop)
            b.handle(f"/to/r/{i}", held)
            b.handle(f"/p/{i}", held)
        locs = [a.url(f"/r/{i}") for i in range(12)] + [b.url(f"/p/{i}") for i in range(12)]
        started = time.monotonic()
        audit = _audit(_sitemap_file(tmp_path, locs), concurrency=16, per_host=3)
        took = time.monotonic() - started
    assert audit.report.audited == 24 and len(held.starts) == 24
    assert held.most == 3
    assert took >= 24 / 3 * 0.1

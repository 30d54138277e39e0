"""The audit is polite, proven against a loopback server that times every request: never
more than the per-host limit in flight, never faster than --rate or Crawl-delay, a 429's
Retry-After waited for, a robots.txt disallow never requested, an unreadable robots.txt
keeping the whole host unrequested."""

from __future__ import annotations

import asyncio
import time

from aiohttp import web

from sources_support import html_page
from test_fetch_support import NS, LoopbackServer, fast_http
from urlset.auditing.driver import Audit, AuditOptions

PAGE = html_page().encode()


class Timed:
    """A handler that records when each request came and how many were in flight."""

    def __init__(self, hold: float = 0.0) -> None:
        self.hold = hold
        self.starts: list[float] = []
        self.in_flight = 0
        self.most = 0

    async def __call__(self, request: web.Request) -> web.StreamResponse:
        self.starts.append(time.monotonic())
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        try:
            await asyncio.sleep(self.hold)
            return web.Response(body=PAGE, content_type="text/html")
        finally:
            self.in_flight -= 1

    def assert_spaced(self, interval: float) -> None:
        """Any run of k requests spans at least (k - 1) intervals, less one arrival's jitter
        (the pacer spaces the sends; the loopback delivers each a few ms late or early)."""
        starts = sorted(self.starts)
        for i in range(len(starts)):
            for j in range(i + 1, len(starts)):
                assert starts[j] - starts[i] >= (j - i) * interval - 0.03, (i, j)


def _site(server: LoopbackServer, handler: Timed, count: int, robots: bytes = b"") -> str:
    for i in range(count):
        server.handle(f"/p/{i}", handler)
    server.add("/robots.txt", robots or b"User-agent: *\nAllow: /\n", "text/plain")
    body = "".join(f"<url><loc>{server.url(f'/p/{i}')}</loc></url>" for i in range(count))
    server.add("/sitemap.xml", f"<urlset {NS}>{body}</urlset>".encode())
    return server.url("/sitemap.xml")


def _audit(target: str, **options: object) -> Audit:
    audit = Audit(target, AuditOptions(http=fast_http(), **options))  # type: ignore[arg-type]
    audit.run_sync()
    return audit


def test_never_above_the_per_host_limit() -> None:
    handler = Timed(hold=0.05)
    with LoopbackServer() as server:
        target = _site(server, handler, 40)
        audit = _audit(target, concurrency=16, per_host=3)
    assert audit.report.audited == 40 and len(handler.starts) == 40
    assert handler.most == 3  # the limit, and used


def test_rate_spaces_requests() -> None:
    handler = Timed()
    with LoopbackServer() as server:
        target = _site(server, handler, 8)
        started = time.monotonic()
        _audit(target, concurrency=8, rate=20.0)
        took = time.monotonic() - started
    assert len(handler.starts) == 8
    handler.assert_spaced(1 / 20)
    assert took >= 7 / 20


def test_crawl_delay_is_honoured_and_slower_than_rate_wins() -> None:
    handler = Timed()
    robots = b"User-agent: *\nCrawl-delay: 0.2\n"
    with LoopbackServer() as server:
        target = _site(server, handler, 4, robots)
        audit = _audit(target, concurrency=4, rate=100.0)
    handler.assert_spaced(0.2)
    assert any("0.2 s between requests" in note for note in audit.report.notes)


def test_429_retry_after_is_waited_for() -> None:
    asked: list[float] = []

    async def busy(request: web.Request) -> web.StreamResponse:
        asked.append(time.monotonic())
        if len(asked) == 1:
            return web.Response(status=429, headers={"Retry-After": "1"})
        return web.Response(body=PAGE, content_type="text/html")

    with LoopbackServer() as server:
        target = _site(server, Timed(), 0)
        server.handle("/p/0", busy)
        server.add(
            "/sitemap.xml",
            f"<urlset {NS}><url><loc>{server.url('/p/0')}</loc></url></urlset>".encode(),
        )
        audit = _audit(target)
    assert len(asked) == 2 and asked[1] - asked[0] >= 0.95
    assert audit.report.status_mix == {"2xx": 1}


def test_retry_after_holds_the_whole_host() -> None:
    """A 429's Retry-After is the server's word for the host: no new request to it goes
    out until the time has passed, whichever URL it is for."""
    arrivals: list[tuple[float, str]] = []

    async def answer(request: web.Request) -> web.StreamResponse:
        arrivals.append((time.monotonic(), request.path))
        if request.path == "/p/0" and sum(p == "/p/0" for _, p in arrivals) == 1:
            return web.Response(status=429, headers={"Retry-After": "1"})
        return web.Response(body=PAGE, content_type="text/html")

    with LoopbackServer() as server:
        target = _site(server, Timed(), 0)
        for i in range(12):
            server.handle(f"/p/{i}", answer)
        body = "".join(f"<url><loc>{server.url(f'/p/{i}')}</loc></url>" for i in range(12))
        server.add("/sitemap.xml", f"<urlset {NS}>{body}</urlset>".encode())
        audit = _audit(target, concurrency=2, per_host=2, rate=20.0)
    assert audit.report.status_mix == {"2xx": 12}
    told = arrivals[0][0]  # /p/0, the first, answered 429
    early = [p for at, p in arrivals[1:] if told + 0.1 < at < told + 0.95]
    assert early == []  # one request may have been on its way; none went out later


def test_disallowed_urls_are_never_requested() -> None:
    handler = Timed()
    robots = b"User-agent: *\nDisallow: /p/1\n\nUser-agent: otherbot\nDisallow: /\n"
    with LoopbackServer() as server:
        target = _site(server, handler, 3)
        server.add("/robots.txt", robots, "text/plain")
        audit = _audit(target)
        assert server.hits["/p/1"] == 0 and server.hits["/p/0"] == 1
    assert audit.report.counts["page-disallowed"] == 1  # /p/1 only: otherbot is not us


def test_unreadable_robots_txt_disallows_the_host() -> None:
    async def unavailable(request: web.Request) -> web.StreamResponse:
        return web.Response(status=503)

    handler = Timed()
    with LoopbackServer() as server:
        target = _site(server, handler, 3)
        server.handle("/robots.txt", unavailable)
        audit = _audit(target)
    assert handler.starts == []
    assert audit.report.counts["page-disallowed"] == 3
    example = audit.report.examples["page-disallowed"][0].message
    assert "RFC 9309" in example and "HTTP 503" in example


def test_deadline_counts_what_was_not_requested() -> None:
    handler = Timed()
    with LoopbackServer() as server:
        target = _site(server, handler, 50)
        audit = Audit(
            target,
            AuditOptions(http=fast_http(deadline=0.6), concurrency=2, rate=10.0),
        )
        report = audit.run_sync()
    assert 0 < report.audited < 50
    assert report.audited + report.not_requested == 50

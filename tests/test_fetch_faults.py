"""Fetching from a real server on 127.0.0.1 that misbehaves in every way the issue lists.

One site holds good sitemaps beside faulty ones and is fetched once; each test then checks
one fault: bounded (the run ends; small timeouts), reported (a clear issue on that
sitemap), and contained (the good sitemaps are read in full). Faults that need their own
site or settings have their own tests below.
"""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import Iterator
from datetime import UTC, datetime

import aiohttp
import pytest
from aiohttp import web

from test_fetch_support import (
    LoopbackServer,
    Run,
    fast_http,
    gz,
    run_fetch,
    sitemapindex,
    urlset,
)
from urlset.fetching.discovery import FetchRequest, FetchResponse, NodeState
from urlset.fetching.h1 import LeanSession
from urlset.fetching.http import Fetcher, RetryPolicy, parse_retry_after
from urlset.model import Severity

GOOD = {
    "/good1.xml": 120,
    "/good2.xml.gz": 80,  # a gzip file, served as application/gzip
    "/double.xml.gz": 30,  # a gzip file served with Content-Encoding: gzip on top
    "/encoded.xml": 25,  # plain XML served with Content-Encoding: gzip
    "/wrong-type.xml": 15,  # served as text/html
    "/flaky500.xml": 11,  # 500 first, then 200
    "/busy429.xml": 12,  # 429 with Retry-After: 1 first, then 200
    "/reset-once.xml": 13,  # connection reset mid-body once, then whole
    "/index-loop-leaf.xml": 7,
}
FAULTY = [
    "/drip.xml",
    "/reset.xml",
    "/missing.xml",
    "/forbidden.xml",
    "/loop-a.xml",
    "/error-page.xml",
    "/bomb.xml.gz",
    "/bomb-encoded.xml",
    "/truncated.xml.gz",
]
BOMB_SIZE = 24_000_000  # limit in these tests: 4,000,000 decompressed bytes


def locs(server: LoopbackServer, name: str, n: int) -> list[str]:
    stem = name.strip("/").replace(".", "-")
    return [server.url(f"/page/{stem}/{i}") for i in range(n)]


async def drip(request: web.Request) -> web.StreamResponse:
    """Headers at once, then one byte every 0.1 s, forever: only a total timeout stops it."""
    resp = web.StreamResponse(headers={"Content-Type": "application/xml"})
    await resp.prepare(request)
    await resp.write(b'<?xml version="1.0"?>\n<urlset>')
    try:
        for _ in range(10_000):
            await asyncio.sleep(0.1)
            await resp.write(b" ")
    except (ConnectionError, RuntimeError):
        pass
    return resp


def resetting(body: bytes, times: int | None) -> web.RequestHandler:  # type: ignore[name-defined]
    """Send half the body, then reset the connection (RST); ``times`` None: always."""
    count = 0

    async def handler(request: web.Request) -> web.StreamResponse:
        nonlocal count
        count += 1
        if times is not None and count > times:
            return web.Response(body=body, content_type="application/xml")
        resp = web.StreamResponse(
            headers={"Content-Type": "application/xml", "Content-Length": str(len(body))}
        )
        await resp.prepare(request)
        await resp.write(body[: len(body) // 2])
        await asyncio.sleep(0.05)
        transport = request.transport
        assert transport is not None
        sock = transport.get_extra_info("socket")
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        transport.abort()
        return resp

    return handler


def failing_first(body: bytes, status: int, headers: dict[str, str], times: int = 1):  # type: ignore[no-untyped-def]
    count = 0

    async def handler(request: web.Request) -> web.StreamResponse:
        nonlocal count
        count += 1
        if count <= times:
            return web.Response(status=status, text="try later", headers=headers)
        return web.Response(body=body, content_type="application/xml")

    return handler


def redirect(to: str):  # type: ignore[no-untyped-def]
    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(status=302, headers={"Location": to})

    return handler


def build_faulty_site(server: LoopbackServer) -> None:
    bodies = {name: urlset(locs(server, name, n)) for name, n in GOOD.items()}
    server.add("/good1.xml", bodies["/good1.xml"])
    server.add("/good2.xml.gz", gz(bodies["/good2.xml.gz"]), "application/gzip")
    server.add(
        "/double.xml.gz",
        gz(gz(bodies["/double.xml.gz"])),
        "application/gzip",
        headers={"Content-Encoding": "gzip"},
    )
    server.add("/encoded.xml", gz(bodies["/encoded.xml"]), headers={"Content-Encoding": "gzip"})
    server.add("/wrong-type.xml", bodies["/wrong-type.xml"], "text/html; charset=utf-8")
    server.handle("/flaky500.xml", failing_first(bodies["/flaky500.xml"], 500, {}))
    server.handle("/busy429.xml", failing_first(bodies["/busy429.xml"], 429, {"Retry-After": "1"}))
    server.handle("/reset-once.xml", resetting(bodies["/reset-once.xml"], 1))
    server.add("/index-loop-leaf.xml", bodies["/index-loop-leaf.xml"])

    server.handle("/drip.xml", drip)
    server.handle("/reset.xml", resetting(urlset(locs(server, "/reset.xml", 2000)), None))
    server.handle(
        "/forbidden.xml",
        failing_first(b"", 403, {}, times=1_000),
    )
    server.handle("/loop-a.xml", redirect("/loop-b.xml"))
    server.handle("/loop-b.xml", redirect(server.url("/loop-a.xml")))
    server.add(
        "/error-page.xml",
        b"<!DOCTYPE html><html><head><title>Error</title></head>"
        b"<body><h1>Something went wrong</h1></body></html>",
        "text/html",
    )
    bomb = gz(
        b'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        + b" " * BOMB_SIZE
        + b"</urlset>"
    )
    server.add("/bomb.xml.gz", bomb, "application/gzip")
    server.add("/bomb-encoded.xml", bomb, headers={"Content-Encoding": "gzip"})
    truncated = gz(urlset(locs(server, "/truncated.xml.gz", 3000)))
    server.add("/truncated.xml.gz", truncated[: len(truncated) // 2], "application/gzip")

    # index loop: a -> b -> a, and b also lists a good leaf
    server.add("/index-loop-a.xml", sitemapindex([server.url("/index-loop-b.xml")]))
    server.add(
        "/index-loop-b.xml",
        sitemapindex([server.url("/index-loop-a.xml"), server.url("/index-loop-leaf.xml")]),
    )

    listed = [n for n in GOOD if n not in ("/index-loop-leaf.xml", "/good1.xml")] + FAULTY
    server.add("/index.xml", sitemapindex([server.url(n) for n in listed]))
    # a huge robots.txt: the sitemaps up front (one relative), 2 MB of rules, and one more
    # Sitemap: line beyond the part that is read
    rules = "".join(f"User-agent: bot{i}\nDisallow: /private/{i}/\n" for i in range(60_000))
    server.add(
        "/robots.txt",
        (
            "User-agent: *\nDisallow: /admin/\n"
            f"Sitemap: {server.url('/index.xml')}\n"
            "Sitemap: /good1.xml\n"
            f"Sitemap: {server.url('/index-loop-a.xml')}\n" + rules + "Sitemap: /beyond.xml\n"
        ).encode(),
        "text/plain",
    )
    server.add("/beyond.xml", urlset(locs(server, "/beyond.xml", 3)))


@pytest.fixture(scope="module", params=["lean", "aiohttp"])
def faulty(request: pytest.FixtureRequest) -> Iterator[tuple[LoopbackServer, Run]]:
    """The faulty site fetched over the lean client, and over aiohttp alone."""
    with LoopbackServer() as server:
        build_faulty_site(server)
        http = fast_http(total_timeout=2.0, lean=request.param == "lean")
        run = run_fetch(server.base + "/", http=http)
        yield server, run


def test_good_sitemaps_read_in_full(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    for name, n in GOOD.items():
        assert run.locs_from(server.url(name)) == locs(server, name, n), name
        assert run.node(server.url(name)).state is NodeState.OK, name
    assert run.result.partial
    assert not run.result.nothing


def test_every_fault_is_reported_on_its_sitemap(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    failed = {n.url for n in run.result.failed}
    for name in FAULTY:
        node = run.node(server.url(name))
        assert node.issues, name
        if name in ("/truncated.xml.gz", "/bomb.xml.gz", "/bomb-encoded.xml", "/reset.xml"):
            assert node in run.result.incomplete or node in run.result.failed, name
        else:
            assert server.url(name) in failed, name


def test_slow_drip_is_cut_off_by_the_total_timeout(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    node = run.node(server.url("/drip.xml"))
    assert node.failed
    (issue,) = [i for i in node.issues if i.code == "fetch-timeout"]
    assert "whole-download timeout" in issue.message
    assert server.hits["/drip.xml"] == 1  # a total timeout is not retried


def test_connection_reset_mid_body(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    node = run.node(server.url("/reset.xml"))
    # reset every time: what was read before the reset is kept, labelled partial
    assert node.state is NodeState.PARTIAL and node in run.result.incomplete
    (issue,) = [i for i in node.issues if i.code == "fetch-partial"]
    assert "reset" in issue.message and "after 3 attempts" in issue.message
    assert server.hits["/reset.xml"] == 3
    kept = run.locs_from(server.url("/reset.xml"))
    assert 0 < len(kept) < 2000 and kept == locs(server, "/reset.xml", 2000)[: len(kept)]
    # reset once, then whole: read on the second attempt
    assert server.hits["/reset-once.xml"] == 2
    assert "fetch-retried" in run.codes(server.url("/reset-once.xml"))


def test_500_then_200_and_429_are_retried(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    assert server.hits["/flaky500.xml"] == 2
    assert server.hits["/busy429.xml"] == 2
    for name in ("/flaky500.xml", "/busy429.xml"):
        retried = [i for i in run.node(server.url(name)).issues if i.code == "fetch-retried"]
        assert retried and retried[0].severity is Severity.INFO


def test_4xx_is_not_retried(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    assert server.hits["/missing.xml"] == 1
    assert server.hits["/forbidden.xml"] == 1
    missing = run.node(server.url("/missing.xml"))
    assert missing.status == 404 and run.codes(server.url("/missing.xml")) == ["http-status"]
    assert run.node(server.url("/forbidden.xml")).status == 403


def test_redirect_loop(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    node = run.node(server.url("/loop-a.xml"))
    (issue,) = [i for i in node.issues if i.code == "redirect-loop"]
    assert "/loop-b.xml" in issue.message
    assert server.hits["/loop-a.xml"] == 1  # a loop is not retried


def test_index_loop(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    assert server.hits["/index-loop-a.xml"] == 1 and server.hits["/index-loop-b.xml"] == 1
    b = run.node(server.url("/index-loop-b.xml"))
    loop = [c for c in b.children if c.url == server.url("/index-loop-a.xml")]
    assert loop and loop[0].state is NodeState.SKIPPED
    assert [i.code for i in loop[0].issues] == ["index-loop"]
    assert len(run.locs_from(server.url("/index-loop-leaf.xml"))) == 7


def test_html_error_page_with_200(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    node = run.node(server.url("/error-page.xml"))
    assert node.failed and node.status == 200 and node.format == "html"
    assert "not-a-sitemap" in run.codes(server.url("/error-page.xml"))


def test_wrong_content_type_is_reported_but_read(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    assert "content-type" in run.codes(server.url("/wrong-type.xml"))
    assert len(run.locs_from(server.url("/wrong-type.xml"))) == 15


def test_gzip_bombs_are_stopped(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    as_file = run.node(server.url("/bomb.xml.gz"))
    assert as_file.state in (NodeState.PARTIAL, NodeState.FAILED)
    assert as_file.url_count == 0
    assert "decompressed-size-limit" in run.codes(server.url("/bomb.xml.gz"))
    # the same bomb under Content-Encoding: the reader meets its limit the same way (and
    # the download stops there)
    encoded = run.node(server.url("/bomb-encoded.xml"))
    assert encoded.state is as_file.state and encoded.url_count == 0
    assert "decompressed-size-limit" in run.codes(server.url("/bomb-encoded.xml"))
    assert encoded.bytes <= 4_000_000 + 1_000_000  # stopped near the limit, not at 24 MB


def test_truncated_gzip_body(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    node = run.node(server.url("/truncated.xml.gz"))
    assert node.state in (NodeState.PARTIAL, NodeState.FAILED)
    assert {"gzip-truncated", "truncated"} & set(run.codes(server.url("/truncated.xml.gz")))
    assert node in run.result.incomplete or node in run.result.failed
    assert len(run.locs_from(server.url("/truncated.xml.gz"))) < 3000


def test_huge_robots_txt(faulty: tuple[LoopbackServer, Run]) -> None:
    server, run = faulty
    robots = run.result.roots[0]
    assert robots.kind == "robots" and robots.ok
    assert "robots-too-large" in [i.code for i in robots.issues]
    assert robots.bytes == 512 * 1024
    assert server.hits["/beyond.xml"] == 0
    # the relative Sitemap: line was resolved against robots.txt
    assert "robots-relative-sitemap" in [i.code for i in robots.issues]
    assert len(run.locs_from(server.url("/good1.xml"))) == 120


@pytest.mark.usefixtures("either_client")
def test_robots_with_only_relative_sitemap_paths() -> None:
    with LoopbackServer() as server:
        server.add(
            "/robots.txt",
            b"\xef\xbb\xbfSitemap: /a.xml\nUser-agent: *\nDisallow:\nsitemap: sub/b.xml\n",
            "text/plain",
        )
        server.add("/a.xml", urlset(locs(server, "a", 3)))
        server.add("/sub/b.xml", urlset(locs(server, "b", 4)))
        run = run_fetch(server.base)
    assert len(run.rows) == 7 and not run.result.partial
    robots = run.result.roots[0]
    assert [c.url for c in robots.children] == [server.url("/a.xml"), server.url("/sub/b.xml")]
    assert server.hits["/sitemap.xml"] == 0  # no well-known probing: robots.txt named some


@pytest.mark.usefixtures("either_client")
def test_no_robots_uses_well_known_locations() -> None:
    with LoopbackServer() as server:
        server.add("/sitemap_index.xml", sitemapindex([server.url("/s.xml")]))
        server.add("/s.xml", urlset(locs(server, "s", 5)))
        run = run_fetch(server.base)
    assert len(run.rows) == 5 and not run.result.partial
    assert server.hits["/sitemap.xml"] == 1 and server.hits["/wp-sitemap.xml"] == 1


@pytest.mark.usefixtures("either_client")
def test_cross_host_redirect_is_reported() -> None:
    with LoopbackServer() as server:
        target = f"http://localhost:{server.port}/target.xml"
        server.handle("/moved.xml", redirect(target))
        server.add("/target.xml", urlset(locs(server, "t", 2)))
        run = run_fetch(server.url("/moved.xml"))
    node = run.result.roots[0]
    assert node.final_url == target and node.ok
    assert "cross-host-redirect" in [i.code for i in node.issues]


@pytest.mark.usefixtures("either_client")
def test_too_many_redirects() -> None:
    with LoopbackServer() as server:
        for i in range(10):
            server.handle(f"/r{i}.xml", redirect(f"/r{i + 1}.xml"))
        run = run_fetch(server.url("/r0.xml"))
    node = run.result.roots[0]
    assert node.failed and "too-many-redirects" in [i.code for i in node.issues]
    assert run.result.nothing


@pytest.mark.usefixtures("either_client")
def test_connection_refused_is_reported_at_once() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, not listening: connections are refused
        run = run_fetch(f"http://127.0.0.1:{port}/sitemap.xml")
    node = run.result.roots[0]
    assert node.failed
    (issue,) = [i for i in node.issues if i.code == "fetch-failed"]
    # nothing listens: asking again would be refused again
    assert issue.message == f"could not connect to 127.0.0.1:{port} (connection refused)"


@pytest.mark.usefixtures("either_client")
def test_persistent_5xx_gives_up_after_the_attempts() -> None:
    with LoopbackServer() as server:
        server.handle("/down.xml", failing_first(b"", 503, {}, times=1_000))
        run = run_fetch(server.url("/down.xml"))
        assert server.hits["/down.xml"] == 3
    node = run.result.roots[0]
    assert node.failed and node.status == 503


# ----------------------------------------------------------------------------- retry policy
@pytest.mark.parametrize("lean", [True, False], ids=["lean", "aiohttp"])
def test_retry_after_is_honoured_up_to_the_cap_and_past_it_given_up(lean: bool) -> None:
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def fetch_each(*urls: str) -> list[FetchResponse]:
        retry = RetryPolicy(attempts=3, max_retry_after=5.0)
        http = fast_http(total_timeout=10.0, retry=retry, lean=lean)
        async with aiohttp.ClientSession() as session:
            client = LeanSession(http, urls[:1]) if lean else session
            fetcher = Fetcher(client, http, sleep=sleep)
            answers = [await fetcher.fetch(FetchRequest(url, "sitemap")) for url in urls]
            if isinstance(client, LeanSession):
                assert not client.fell_back  # every answer was the lean client's
                await client.aclose()
            return answers

    with LoopbackServer() as server:
        body = urlset(locs(server, "x", 1))
        server.handle("/a.xml", failing_first(body, 429, {"Retry-After": "2"}))
        server.handle("/b.xml", failing_first(body, 503, {"Retry-After": "3600"}))
        # 2,300,430,000 s: 73 years, an absurd wait seen in the wild
        server.handle("/c.xml", failing_first(body, 503, {"Retry-After": "2300430000"}))
        a, b, c = asyncio.run(fetch_each(*(server.url(p) for p in ("/a.xml", "/b.xml", "/c.xml"))))
        assert server.hits["/b.xml"] == server.hits["/c.xml"] == 1
    assert [a.status, b.status, c.status] == [200, 503, 503]
    assert slept == [2.0]  # a wait past the cap is not slept (nor cut to the cap): given up
    assert "asks to wait 1 h before trying again" in (b.error or "")
    assert "asks to wait 72.9 years" in (c.error or "") and "e+" not in (c.error or "")
    assert "more than the 5 s waited at most; not tried again" in (c.error or "")


def test_backoff_is_exponential_with_jitter_and_capped() -> None:
    policy = RetryPolicy(backoff=1.0, max_backoff=8.0)
    assert [policy.delay(n, rand=lambda: 0.0) for n in (1, 2, 3, 4, 5)] == [0.5, 1, 2, 4, 4]
    assert [policy.delay(n, rand=lambda: 1.0) for n in (1, 2, 3, 4, 5)] == [1, 2, 4, 8, 8]
    assert policy.delay(1, retry_after=7.5) == 7.5
    assert policy.delay(1, retry_after=10_000) == policy.max_retry_after


def test_parse_retry_after() -> None:
    now = datetime(2024, 1, 1, 0, 0, 0, tzinfo=UTC)
    assert parse_retry_after("120", now) == 120.0
    assert parse_retry_after("Mon, 01 Jan 2024 00:00:30 GMT", now) == 30.0
    assert parse_retry_after("Sun, 31 Dec 2023 00:00:00 GMT", now) == 0.0
    assert parse_retry_after("soon", now) is None
    assert parse_retry_after(None, now) is None


@pytest.mark.usefixtures("either_client")
def test_robots_txt_may_move_to_another_host() -> None:
    with LoopbackServer() as server:
        other = f"http://localhost:{server.port}"
        server.handle("/robots.txt", redirect(f"{other}/real-robots.txt"))
        server.add("/real-robots.txt", b"Sitemap: /s.xml\n", "text/plain")
        server.add("/s.xml", urlset(locs(server, "s", 2)))
        run = run_fetch(server.base)
    robots = run.result.roots[0]
    assert robots.final_url == f"{other}/real-robots.txt"
    assert [i.code for i in robots.issues] == ["robots-relative-sitemap"]
    # the relative Sitemap: value is resolved against where robots.txt was found
    assert [c.url for c in robots.children] == [f"{other}/s.xml"]
    assert len(run.rows) == 2 and not run.result.partial

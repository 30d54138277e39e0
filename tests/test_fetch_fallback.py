"""A start without a scheme: https first, http when https cannot be connected to at all.

The rule is discovery's (sans-I/O, driven here by plain functions); what counts as "cannot
be connected to" is the HTTP driver's (real sockets on 127.0.0.1); the CLI decides which
starts may fall back (only those typed without a scheme).
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterator

import aiohttp
import pytest
from aiohttp import web
from click.testing import CliRunner, Result

from test_fetch_support import LoopbackServer, fast_http, urlset
from urlset.cli import main
from urlset.fetching.discovery import (
    DiscoveryOptions,
    FetchRequest,
    FetchResponse,
    NodeState,
    discover,
    drive,
)
from urlset.fetching.http import Fetcher, HttpOptions, RetryPolicy
from urlset.model import Url

H = "example.com"
FALLBACK = DiscoveryOptions(http_fallback=True)


class Site:
    """Answers by URL; a URL in ``unreachable`` gets no connection, one in ``errors`` a
    failure after connecting."""

    def __init__(
        self,
        unreachable: frozenset[str] | set[str] = frozenset(),
        errors: dict[str, str] | None = None,
        status: dict[str, int] | None = None,
    ) -> None:
        self.unreachable = unreachable
        self.errors = errors or {}
        self.status = status or {}
        self.requests: list[FetchRequest] = []

    def __call__(self, request: FetchRequest) -> FetchResponse:
        self.requests.append(request)
        url = request.url
        if url in self.unreachable:
            return FetchResponse(
                request, url, None, error="could not connect (refused)", unreachable=True
            )
        if url in self.errors:
            return FetchResponse(request, url, None, error=self.errors[url])
        if url in self.status:
            return FetchResponse(request, url, self.status[url])
        if request.kind == "robots":
            scheme = url.split(":", 1)[0]
            body = f"Sitemap: {scheme}://{H}/sitemap.xml\n".encode()
            return FetchResponse(request, url, 200, body=body)
        items = [Url(url.rsplit("/", 1)[0] + "/page")]
        return FetchResponse(request, url, 200, items=items, format="urlset")


def test_unreachable_https_site_falls_back_to_http() -> None:
    site = Site(unreachable={f"https://{H}/robots.txt"})
    result = drive(discover(f"https://{H}/", FALLBACK), site)
    assert [r.url for r in site.requests] == [
        f"https://{H}/robots.txt",
        f"http://{H}/robots.txt",
        f"http://{H}/sitemap.xml",
    ]
    # the first request may not retry connecting: http is its retry
    assert [r.retry_unreachable for r in site.requests] == [False, True, True]
    https, http = result.roots
    assert https.state is NodeState.UNREACHABLE and not https.failed
    assert [str(i.severity) for i in https.issues] == ["info"] * len(https.issues)
    assert http.state is NodeState.OK and http.children[0].state is NodeState.OK
    (issue,) = result.issues
    assert issue.code == "http-fallback" and str(issue.severity) == "warning"
    assert f"fell back to http://{H}" in issue.message and "refused" in issue.message
    assert result.url_count == 1 and not result.partial and not result.nothing


def test_unreachable_https_sitemap_start_falls_back_too() -> None:
    site = Site(unreachable={f"https://{H}/sitemap.xml"})
    result = drive(discover(f"https://{H}/sitemap.xml", FALLBACK), site)
    assert [r.url for r in site.requests] == [f"https://{H}/sitemap.xml", f"http://{H}/sitemap.xml"]
    assert [n.state for n in result.roots] == [NodeState.UNREACHABLE, NodeState.OK]
    assert result.sitemaps_read == 1 and not result.failed and not result.partial
    assert [i.code for i in result.issues] == ["http-fallback"]


@pytest.mark.parametrize(
    "site",
    [
        Site(status={f"https://{H}/robots.txt": 503}),  # an HTTP answer: https works
        Site(status={f"https://{H}/robots.txt": 404}),
        Site(errors={f"https://{H}/robots.txt": "the connection was reset"}),  # connected
    ],
)
def test_https_that_answers_or_fails_later_is_kept(site: Site) -> None:
    result = drive(discover(f"https://{H}/", FALLBACK), site)
    assert all(r.url.startswith("https://") for r in site.requests)
    assert not any(i.code == "http-fallback" for i in result.issues)
    assert len(result.roots) == 1


def test_without_the_option_nothing_falls_back() -> None:
    site = Site(unreachable={f"https://{H}/robots.txt", f"https://{H}/sitemap.xml"})
    result = drive(discover(f"https://{H}/"), site)
    assert all(r.url.startswith("https://") for r in site.requests)
    assert all(r.retry_unreachable for r in site.requests)
    assert len(result.roots) == 1 and not any(i.code == "http-fallback" for i in result.issues)


def test_an_http_start_and_children_never_change() -> None:
    site = Site(unreachable={f"http://{H}/robots.txt"})
    drive(discover(f"http://{H}/", FALLBACK), site)
    assert all(r.url.startswith("http://") for r in site.requests)
    # an unreachable child sitemap is a failure, not a reason to switch schemes
    site = Site(unreachable={f"https://{H}/sitemap.xml"})
    result = drive(discover(f"https://{H}/", FALLBACK), site)
    assert [r.url for r in site.requests] == [f"https://{H}/robots.txt", f"https://{H}/sitemap.xml"]
    assert result.failed and not result.issues


def test_falls_back_once() -> None:
    site = Site(unreachable={f"https://{H}/robots.txt", f"http://{H}/robots.txt"})
    result = drive(discover(f"https://{H}/", FALLBACK), site)
    robots = [r.url for r in site.requests if r.kind == "robots"]
    assert robots == [f"https://{H}/robots.txt", f"http://{H}/robots.txt"]
    # http cannot be connected to either: its well-known places would fail alike, so
    # none is tried, and the run says it could not connect
    assert [r for r in site.requests if r.kind == "sitemap"] == []
    assert [i.code for i in result.issues] == ["http-fallback", "fetch-failed"]
    assert [n.state for n in result.roots] == [NodeState.UNREACHABLE, NodeState.FAILED]


# ----------------------------------------------------------------------------- the driver
def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def fetch_once(url: str, options: HttpOptions, retry_unreachable: bool) -> FetchResponse:
    timeout = aiohttp.ClientTimeout(connect=options.connect_timeout, sock_read=options.read_timeout)
    async with aiohttp.ClientSession(timeout=timeout) as session:
        fetcher = Fetcher(session, options)
        request = FetchRequest(url, "robots", retry_unreachable=retry_unreachable)
        return await fetcher.fetch(request)


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that accepts TCP connections into its backlog but never answers."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        yield sock.getsockname()[1]


def test_refused_is_unreachable_and_not_retried_when_asked() -> None:
    url = f"https://127.0.0.1:{free_port()}/robots.txt"
    options = fast_http()
    once = asyncio.run(fetch_once(url, options, retry_unreachable=False))
    assert once.unreachable and once.status is None and "could not connect" in (once.error or "")
    assert "attempts" not in (once.error or "")  # given up at once
    # nothing listens there: refused again if asked again, so never retried
    retried = asyncio.run(fetch_once(url, options, retry_unreachable=True))
    assert retried.unreachable and "attempts" not in (retried.error or "")
    assert "(connection refused)" in (retried.error or "")


def test_tls_handshake_failure_is_unreachable() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", b"Sitemap: /s.xml\n", "text/plain")
        response = asyncio.run(
            fetch_once(f"https://127.0.0.1:{server.port}/robots.txt", fast_http(), False)
        )
        assert server.hits["/robots.txt"] == 0
    assert response.unreachable and response.status is None


def test_connect_timeout_is_unreachable(silent_port: int) -> None:
    options = fast_http(connect_timeout=0.3)
    response = asyncio.run(
        fetch_once(f"https://127.0.0.1:{silent_port}/robots.txt", options, False)
    )
    assert response.unreachable and "could not connect in 0.3 s" in (response.error or "")


def test_failures_after_connecting_are_not_unreachable(silent_port: int) -> None:
    options = fast_http(read_timeout=0.3, retry=RetryPolicy(attempts=1))
    # connected over plain http, then no answer: a read timeout
    response = asyncio.run(fetch_once(f"http://127.0.0.1:{silent_port}/robots.txt", options, False))
    assert response.status is None and not response.unreachable
    # answered with a redirect, then the target refuses: the start itself was reachable
    with LoopbackServer() as server:
        target = f"http://127.0.0.1:{free_port()}/robots.txt"

        async def moved(_: web.Request) -> web.Response:
            return web.Response(status=301, headers={"Location": target})

        server.handle("/robots.txt", moved)
        response = asyncio.run(fetch_once(server.url("/robots.txt"), options, False))
    assert response.status is None and "could not connect" in (response.error or "")
    assert not response.unreachable


# ----------------------------------------------------------------------------- the command
FAST = ["--timeout", "3", "--read-timeout", "1", "--retries", "1"]


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["fetch", *args, *FAST], catch_exceptions=False)


@pytest.fixture
def http_only() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.add("/robots.txt", f"Sitemap: {server.url('/sitemap.xml')}\n".encode(), "text/plain")
        server.add("/sitemap.xml", urlset([server.url("/a"), server.url("/b")]))
        yield server


def test_bare_host_falls_back_to_http(http_only: LoopbackServer) -> None:
    host = f"127.0.0.1:{http_only.port}"
    result = invoke(host)
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines() == [
        f'{{"loc":"http://{host}/a","sitemap":"http://{host}/sitemap.xml"}}',
        f'{{"loc":"http://{host}/b","sitemap":"http://{host}/sitemap.xml"}}',
    ]
    assert f"warning http-fallback: no connection to https://{host}" in result.stderr
    assert f"fell back to http://{host}" in result.stderr
    assert "complete" in result.stderr and "PARTIAL" not in result.stderr
    assert http_only.hits["/robots.txt"] == 1  # the https attempt never became a request
    tree = invoke(host, "--tree")
    assert tree.exit_code == 0, tree.output
    lines = tree.stdout.splitlines()
    assert lines[0].startswith(f"https://{host}/robots.txt  [unreachable]")
    assert any(ln.startswith(f"http://{host}/robots.txt  [ok]") for ln in lines)
    assert any(f"http://{host}/sitemap.xml" in ln and "2 URLs" in ln for ln in lines)
    assert any(ln.startswith("warning http-fallback:") for ln in lines)
    assert lines[-1].endswith(": complete")


def test_bare_sitemap_url_falls_back_too(http_only: LoopbackServer) -> None:
    result = invoke(f"127.0.0.1:{http_only.port}/sitemap.xml")
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 2 and "http-fallback" in result.stderr


def test_explicit_scheme_is_never_changed(http_only: LoopbackServer) -> None:
    result = invoke(f"https://127.0.0.1:{http_only.port}")
    assert result.exit_code == 2
    assert result.stdout == "" and "http-fallback" not in result.stderr
    assert sum(http_only.hits.values()) == 0  # nothing was asked over http
    plain = invoke(f"http://127.0.0.1:{http_only.port}")
    assert plain.exit_code == 0 and "http-fallback" not in plain.stderr


def test_a_rejected_certificate_is_not_retried() -> None:
    """A server whose certificate the client does not trust (a CA of its own, as a
    misconfigured site has) fails at once with the reason: trying again cannot help."""
    import ssl

    import trustme

    ca = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server_context)
    options = fast_http(retry=RetryPolicy(attempts=4, backoff=5.0))
    with LoopbackServer(ssl_context=server_context) as server:
        server.add("/robots.txt", b"User-agent: *\n", "text/plain")
        started = time.monotonic()
        response = asyncio.run(fetch_once(server.url("/robots.txt"), options, True))
        elapsed = time.monotonic() - started
    assert response.status is None and server.hits["/robots.txt"] == 0
    assert "certificate was rejected" in (response.error or "")
    assert "attempts" not in (response.error or "") and elapsed < 5.0  # no backoff waited

"""The lean HTTP/1.1 client (fetching/h1.py) answers as the aiohttp session does.

A raw asyncio server on 127.0.0.1 answers each path with exact bytes; each case is fetched by
a Fetcher over aiohttp and by one over the lean client, and the two answers must agree
(status, final URL, kept headers, body, truncation, error and issue codes). The cases are
the family of ways an HTTP/1.x answer is framed, encoded or cut off (RFC 9112 6.3's body
length rules, 1xx, HEAD, 204, Content-Encoding, a connection that ends or stalls at each
point, what is not HTTP), enumerated from the parser's branches.
"""

from __future__ import annotations

import asyncio
import gzip
import socket
import ssl
import struct
import zlib
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any

import pytest
import yarl

from test_fetch_support import LoopbackServer, fast_http, gz, run_fetch, sitemapindex, urlset
from urlset.fetching.fetcher import Fetcher
from urlset.fetching.h1 import LeanSession, request_target
from urlset.fetching.http import client_session, lean_session
from urlset.fetching.http_options import HttpOptions, RetryPolicy
from urlset.fetching.values import FetchRequest, FetchResponse

HTML = b"<!DOCTYPE html><html><head><title>t</title></head><body>" + b"x" * 300 + b"</body></html>"


def _answer(status: str, headers: list[str], body: bytes = b"") -> bytes:
    return (
        f"HTTP/1.1 {status}\r\n" + "".join(h + "\r\n" for h in headers) + "\r\n"
    ).encode() + body


def _sized(body: bytes, *extra: str, kind: str = "text/html") -> bytes:
    return _answer(
        "200 OK", [f"Content-Type: {kind}", f"Content-Length: {len(body)}", *extra], body
    )


def _chunked(body: bytes) -> bytes:
    parts = b"".join(
        b"%x;ext=1\r\n%s\r\n" % (len(body[i : i + 100]), body[i : i + 100])
        for i in range(0, len(body), 100)
    )
    head = _answer("200 OK", ["Content-Type: text/html", "Transfer-Encoding: chunked"])
    return head + parts + b"0\r\nX-Trailer: 1\r\n\r\n"


# path -> what the server does: bytes to send (then keep the connection), or a tuple
# (bytes, "close" | "reset" | "stall") to send and then end or stall the connection
CASES: dict[str, Any] = {
    "/length": _sized(HTML),
    "/chunked": _chunked(HTML),
    "/eof": (_answer("200 OK", ["Content-Type: text/html", "Connection: close"], HTML), "close"),
    "/gzip": _sized(gzip.compress(HTML), "Content-Encoding: gzip"),
    "/deflate-zlib": _sized(zlib.compress(HTML), "Content-Encoding: deflate"),
    "/deflate-raw": _sized(
        zlib.compressobj(wbits=-zlib.MAX_WBITS).compress(HTML)
        + zlib.compressobj(wbits=-zlib.MAX_WBITS).flush(),
        "Content-Encoding: deflate",
    ),
    "/bad-gzip": _sized(b"not gzip at all", "Content-Encoding: gzip"),
    "/br": _sized(b"\x0b\x02\x80hello\x03", "Content-Encoding: br"),
    "/no-content": _answer("204 No Content", []),
    "/continue": _answer("100 Continue", []) + _sized(HTML),
    "/http10": (b"HTTP/1.0 200 OK\r\nContent-Type: text/html\r\n\r\n" + HTML, "close"),
    "/not-found": _answer("404 Not Found", ["Content-Length: 9"], b"not found"),
    "/moved": _answer("301 Moved", ["Location: /length", "Content-Length: 0"]),
    "/pdf": _sized(b"%PDF" + b"0" * 200_000, kind="application/pdf"),
    "/large": _sized(b"<html>" + b"y" * 300_000, kind="text/html"),
    "/busy": _answer("503 Busy", ["Retry-After: 0", "Content-Length: 0"]),
    "/noindex": _sized(
        HTML, "X-Robots-Tag: noindex", "Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT"
    ),
    "/short": (
        _answer("200 OK", ["Content-Type: text/html", "Content-Length: 1000"], HTML[:10]),
        "close",
    ),
    "/chunk-cut": (_chunked(HTML)[:120], "close"),
    "/bad-chunk": (
        _answer("200 OK", ["Content-Type: text/html", "Transfer-Encoding: chunked"]) + b"zz\r\n",
        "close",
    ),
    "/closed": (b"", "close"),
    "/reset": (b"", "reset"),
    "/half-head": (b"HTTP/1.1 200 OK\r\nContent-Ty", "close"),
    "/stall-head": (b"", "stall"),
    "/stall-body": (
        _answer("200 OK", ["Content-Type: text/html", "Content-Length: 1000"], HTML[:10]),
        "stall",
    ),
    "/garbage": (b"HELLO THERE\r\n\r\n", "close"),
    "/two-lengths": _answer("200 OK", ["Content-Length: 3", "Content-Length: 4"], b"abcd"),
}


class RawServer:
    """Answers each request with CASES[path]; counts connections and requests."""

    def __init__(self) -> None:
        self.connections = 0
        self.requests: list[str] = []
        self.server: asyncio.Server | None = None
        self.port = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                method, path, _ = head.split(b" ", 2)
                self.requests.append(f"{method.decode()} {path.decode()}")
                action = CASES[path.decode()]
                data, then = action if isinstance(action, tuple) else (action, None)
                if method == b"HEAD" and then is None:
                    data = data[: data.index(b"\r\n\r\n") + 4]
                writer.write(data)
                await writer.drain()
                if then == "stall":  # past the client's read timeout (0.5 s)
                    await asyncio.sleep(1.5)
                if then == "reset":
                    sock = writer.get_extra_info("socket")
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                if then is not None:
                    break
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.CancelledError):
            pass  # the client went, or the test ended with this connection stalled
        finally:
            writer.close()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"


@asynccontextmanager
async def raw_server() -> AsyncIterator[RawServer]:
    raw = RawServer()
    raw.server = await asyncio.start_server(raw.handle, "127.0.0.1", 0)
    raw.port = raw.server.sockets[0].getsockname()[1]
    async with raw.server:
        yield raw


def _options() -> HttpOptions:
    return fast_http(
        read_timeout=0.5,
        total_timeout=3.0,
        max_page_bytes=256 * 1024,
        retry=RetryPolicy(attempts=2, backoff=0.01, max_backoff=0.02),
    )


def _seen(response: FetchResponse) -> dict[str, Any]:
    return {
        "status": response.status,
        "url": response.url,
        "headers": dict(response.headers),
        "body": response.body,
        "truncated": response.truncated,
        "error": response.error,
        "codes": [i.code for i in response.issues],
        "messages": [i.message for i in response.issues],
    }


async def _both(
    path: str, method: str = "GET", kind: str = "page"
) -> tuple[dict[str, Any], dict[str, Any], LeanSession]:
    http = _options()
    async with raw_server() as raw:
        url = raw.url(path)
        async with client_session(http, (url,)) as session:
            request = FetchRequest(url, kind=kind, method=method)  # type: ignore[arg-type]
            by_aiohttp = await Fetcher(session, http).fetch(request)
            lean = lean_session(session, http, (url,))
            by_lean = await Fetcher(lean, http).fetch(request)
            lean.close()
    return _seen(by_aiohttp), _seen(by_lean), lean


@pytest.mark.parametrize("path", sorted(CASES))
def test_lean_client_answers_as_aiohttp(path: str) -> None:
    ours_theirs = asyncio.run(_both(path))
    assert ours_theirs[1] == ours_theirs[0]


@pytest.mark.parametrize("path", ["/length", "/pdf", "/not-found", "/moved", "/chunked"])
def test_lean_client_answers_head_as_aiohttp(path: str) -> None:
    theirs, ours, _ = asyncio.run(_both(path, method="HEAD"))
    assert ours == theirs


@pytest.mark.parametrize("path", ["/length", "/gzip", "/large"])
def test_lean_client_reads_robots_as_aiohttp(path: str) -> None:
    theirs, ours, _ = asyncio.run(_both(path, kind="robots"))
    assert ours == theirs


@pytest.mark.parametrize(
    ("path", "delegated"),
    [("/length", 0), ("/chunked", 0), ("/br", 1), ("/garbage", 1), ("/two-lengths", 1)],
)
def test_lean_client_leaves_to_aiohttp_only_what_it_does_not_read(
    path: str, delegated: int
) -> None:
    """An answer in another encoding or not plain HTTP is asked again through aiohttp (once
    an attempt; not HTTP is not tried again), so that its error reads as before; the plain
    ones never are."""
    _, _, lean = asyncio.run(_both(path))
    assert lean.delegated == delegated


def test_lean_client_keeps_one_connection_alive_for_many_requests() -> None:
    """Answers read to the end, a short unread 404 body and a redirect included, leave the
    connection in the pool; a body left unread (a PDF) closes it."""

    async def run() -> tuple[int, int]:
        http = _options()
        async with raw_server() as raw, client_session(http, (raw.url("/"),)) as session:
            lean = lean_session(session, http, (raw.url("/"),))
            fetcher = Fetcher(lean, http)
            for path in ["/length", "/not-found", "/chunked", "/gzip", "/noindex"] * 5:
                response = await fetcher.fetch(FetchRequest(raw.url(path), kind="page"))
                assert response.status in (200, 404)
            kept = raw.connections
            await fetcher.fetch(FetchRequest(raw.url("/pdf"), kind="page"))
            await fetcher.fetch(FetchRequest(raw.url("/length"), kind="page"))
            lean.close()
            return kept, raw.connections

    kept, after_pdf = asyncio.run(run())
    assert kept == 1
    assert after_pdf == 2


def test_lean_client_asks_a_dropped_keep_alive_request_once_more_as_aiohttp_does() -> None:
    async def run() -> list[str]:
        http = _options()
        async with raw_server() as raw, client_session(http, (raw.url("/"),)) as session:
            lean = lean_session(session, http, (raw.url("/"),))
            response = await Fetcher(lean, http).fetch(
                FetchRequest(raw.url("/closed"), kind="page")
            )
            lean.close()
            assert response.status is None
            return raw.requests

    # two attempts (the retry policy), each asked twice (aiohttp's own second try)
    assert asyncio.run(run()) == ["GET /closed"] * 4


URLS = [
    "http://example.com",
    "http://example.com/",
    "http://example.com:8080/a/b?c=d&e=f",
    "https://example.com/p/%C3%A9t%C3%A9?q=%20x",
    "https://example.com:443/a",
    "http://example.com:80/a",
    "https://a-b.example.com/~user/file.html;v=1?x=:@/?",
    "https://example.com/a?b=c+d",
]
NOT_PLAIN = [
    "https://Example.com/a",  # yarl lower-cases the host
    "https://example.com/a#top",  # the fragment is not sent
    "https://user:pw@example.com/",  # credentials go in a header
    "http://[::1]:8000/",  # an IPv6 literal
    "https://example.com/a b",  # yarl quotes a space
    "https://example.com/é",  # and what is not ASCII
    "https://example.com/a/../b",  # and removes dot segments
    "https://example.com/./b",
    "https://example.com/%c3%a9",  # and upper-cases percent escapes
    "https://example.com/%zz",
    "https://example.com/a|b",
    "ftp://example.com/a",
    "https://example.com:99999/a",
    "https://bücher.example/",
]


@pytest.mark.parametrize("url", URLS)
def test_request_target_is_what_aiohttp_sends(url: str) -> None:
    parsed = yarl.URL(url)
    target = request_target(url)
    assert target is not None
    scheme, host, port, host_header, path = target
    assert (scheme, host, port, path) == (
        parsed.scheme,
        parsed.host,
        parsed.port,
        parsed.raw_path_qs,
    )
    default = 443 if scheme == "https" else 80
    assert host_header == (host if port == default else f"{host}:{port}")


@pytest.mark.parametrize("url", NOT_PLAIN)
def test_request_target_leaves_to_aiohttp_what_yarl_would_rewrite(url: str) -> None:
    assert request_target(url) is None


def test_fetcher_gates_a_url_by_its_host_as_host_of_reads_it() -> None:
    """The per-host semaphore is found by the URL's authority, then memoised: every form
    of a host (case, port, user info, no path, a query or fragment right after it) gets
    the gate ``host_of`` names."""
    from urlset.fetching.fetcher import _HostGates
    from urlset.urls import host_of

    gates = _HostGates(2)
    forms = [
        "http://Example.com/a",
        "http://example.com:8080/b",
        "https://user@EXAMPLE.com",
        "http://example.com?q=1",
        "http://example.com#top",
        "http://other.example/",
        "http://[::1]:8000/x",
        "http://[::1]/y",
    ]
    for url in forms * 2:
        assert gates.of(url) is gates.gates[host_of(url)]
    assert sorted(gates.gates) == ["::1", "example.com", "other.example"]


def test_lean_client_pools_at_most_concurrency_idle_connections_over_all_hosts() -> None:
    async def run() -> tuple[int, list[int]]:
        http = replace(_options(), concurrency=2)
        async with raw_server() as a, raw_server() as b, raw_server() as c:
            servers = [a, b, c]
            async with client_session(http, (a.url("/"),)) as session:
                lean = lean_session(session, http, (a.url("/"),))
                fetcher = Fetcher(lean, http)
                for _ in range(2):
                    for raw in servers:
                        answer = await fetcher.fetch(FetchRequest(raw.url("/length"), kind="page"))
                        assert answer.status == 200
                pooled = lean.idle
                lean.close()
            return pooled, [raw.connections for raw in servers]

    pooled, connections = asyncio.run(run())
    assert pooled == 2
    assert sum(connections) > 3  # a host's connection was closed, not pooled, at least once


def test_lean_client_does_not_reuse_a_connection_idle_past_keep_alive(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from urlset.fetching import h1

    monkeypatch.setattr(h1, "KEEP_ALIVE", 0.0)

    async def run() -> int:
        http = _options()
        async with raw_server() as raw, client_session(http, (raw.url("/"),)) as session:
            lean = lean_session(session, http, (raw.url("/"),))
            for _ in range(3):
                answer = await Fetcher(lean, http).fetch(
                    FetchRequest(raw.url("/length"), kind="page")
                )
                assert answer.status == 200
            lean.close()
            return raw.connections

    assert asyncio.run(run()) == 3


@pytest.fixture(scope="module")
def tls_server_context() -> Iterator[tuple[str, ssl.SSLContext]]:
    trustme = pytest.importorskip("trustme")
    authority = trustme.CA()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(context)
    with authority.cert_pem.tempfile() as pem:
        yield pem, context


async def _over_tls(context: ssl.SSLContext) -> tuple[FetchResponse, LeanSession]:
    raw = RawServer()
    server = await asyncio.start_server(raw.handle, "127.0.0.1", 0, ssl=context)
    raw.port = server.sockets[0].getsockname()[1]
    url = f"https://127.0.0.1:{raw.port}/length"
    http = _options()
    async with server, client_session(http, (url,)) as session:
        lean = lean_session(session, http, (url,))
        response = await Fetcher(lean, http).fetch(FetchRequest(url, kind="page"))
        lean.close()
    return response, lean


def test_lean_client_speaks_tls_and_verifies_the_certificate(
    tls_server_context: tuple[str, ssl.SSLContext], monkeypatch: pytest.MonkeyPatch
) -> None:
    pem, context = tls_server_context
    monkeypatch.setenv("SSL_CERT_FILE", pem)  # the test CA trusted (read when loaded)
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    response, lean = asyncio.run(_over_tls(context))
    assert (response.status, response.body) == (200, HTML)
    assert lean.delegated == 0


def test_lean_client_leaves_an_untrusted_certificate_to_aiohttp_to_reject(
    tls_server_context: tuple[str, ssl.SSLContext], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SSL_CERT_FILE", raising=False)
    response, lean = asyncio.run(_over_tls(tls_server_context[1]))
    assert response.status is None
    assert response.error is not None and "certificate was rejected" in response.error
    assert lean.delegated == 1


@pytest.mark.usefixtures("either_client")
@pytest.mark.parametrize("workers", [0, 2])
def test_a_larger_fetch_keeps_its_connections_alive_within_the_per_host_limit(
    workers: int,
) -> None:
    """A run of many sitemaps, one of them megabytes (the client stops reading the socket
    while a megabyte waits), parsed here or on parse threads: every URL read, over no more
    connections than the per-host limit, whichever client."""
    with LoopbackServer() as server:
        sizes = {f"/s{n}.xml.gz": 50 for n in range(40)} | {"/big.xml.gz": 30_000}
        server.add("/index.xml", sitemapindex([server.url(name) for name in sizes]))
        for name, size in sizes.items():
            body = gz(urlset(server.url(f"/p{name}/{i}") for i in range(size)))
            server.add(name, body, "application/gzip")
        run = run_fetch(server.url("/index.xml"), http=fast_http(per_host=4), workers=workers)
        connections = len(server.peers)
    assert not run.result.partial
    for name, size in sizes.items():
        assert run.locs_from(server.url(name)) == [server.url(f"/p{name}/{i}") for i in range(size)]
    assert 1 <= connections <= 4

"""Every way a connection fails, over real sockets: the words the fetch uses and whether it
tries again.

The family (enumerated from where a request can fail before an HTTP answer): the port
refuses; the connection is reset; DNS has no address for the name; the TLS handshake fails
because the other side does not speak TLS; the certificate is rejected (unknown authority,
another name, expired); no data comes in time; the answer's Content-Encoding cannot be
decoded here; the server asks to wait longer than the run waits. What cannot change by
trying again at once is not tried again; the rest is, with backoff.
"""

from __future__ import annotations

import asyncio
import datetime
import socket
import ssl
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from aiohttp import web

from test_fetch_support import LoopbackServer, fast_http, urlset
from urlset.fetching.h1 import LeanSession
from urlset.fetching.http import Fetcher, HttpOptions, client_session
from urlset.fetching.values import FetchRequest, FetchResponse

trustme = pytest.importorskip("trustme")
UTC = datetime.UTC
# every case over the lean client and over aiohttp alone: the same words, the same retries
pytestmark = pytest.mark.usefixtures("either_client")


def fetch(url: str, options: HttpOptions | None = None) -> tuple[FetchResponse, list[float]]:
    """One sitemap request; the waits between attempts are recorded, not slept."""
    slept: list[float] = []

    async def sleep(seconds: float) -> None:
        slept.append(seconds)

    async def run() -> FetchResponse:
        http = options or fast_http()
        if http.lean:
            lean = LeanSession(http, (url,))
            try:
                return await Fetcher(lean, http, sleep=sleep).fetch(FetchRequest(url, "sitemap"))
            finally:
                await lean.aclose()
        async with client_session(http, (url,)) as session:
            fetcher = Fetcher(session, http, sleep=sleep)
            return await fetcher.fetch(FetchRequest(url, "sitemap"))

    return asyncio.run(run()), slept


@pytest.fixture(scope="module")
def authority() -> Iterator[Any]:
    """A test CA that this process's default verifying context trusts."""
    ca = trustme.CA()
    from urlset.fetching.tls import load_aiohttp

    loaded = load_aiohttp()

    verified: ssl.SSLContext = loaded.connector._SSL_CONTEXT_VERIFIED
    verified.load_verify_locations(cadata=ca.cert_pem.bytes().decode())
    yield ca


def serving(cert: Any) -> ssl.SSLContext:
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert.configure_cert(context)
    return context


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_refused_is_not_tried_again() -> None:
    port = free_port()
    response, slept = fetch(f"http://127.0.0.1:{port}/s.xml")
    assert response.error == f"could not connect to 127.0.0.1:{port} (connection refused)"
    assert slept == []


class Resetting:
    """A TCP server that accepts and resets each connection at once (RST, not FIN)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            conn.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
            )
            conn.recv(1024)
            conn.close()

    def __enter__(self) -> Resetting:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()


def test_a_reset_is_tried_again() -> None:
    with Resetting() as server:
        response, slept = fetch(f"http://127.0.0.1:{server.port}/s.xml")
        # fast_http: 3 attempts (aiohttp itself may try a reset connection twice each)
        assert server.accepted in (3, 6)
    assert len(slept) == 2
    assert response.error == "the connection was reset (after 3 attempts)"


def test_a_name_without_address_is_named_and_not_tried_again() -> None:
    # RFC 6761: .invalid names never resolve
    response, slept = fetch("http://no-such-host.invalid/sitemap.xml")
    if "temporary failure" in (response.error or ""):
        pytest.skip("no name service answers here")
    assert response.error == "name not found: DNS has no address for no-such-host.invalid"
    assert slept == []


def test_tls_to_a_plain_http_port_says_so_and_is_not_tried_again() -> None:
    with LoopbackServer() as server:
        response, slept = fetch(f"https://127.0.0.1:{server.port}/s.xml")
        assert server.hits == {}
    assert response.error == (
        f"TLS handshake failed: the server does not speak TLS on 127.0.0.1:{server.port} "
        "(plain http on that port? try the http:// URL)"
    )
    assert "operation not permitted" not in response.error and slept == []


def certificate_case(name: str, authority: Any) -> ssl.SSLContext:
    if name == "unknown authority":
        return serving(trustme.CA().issue_cert("127.0.0.1"))
    if name == "another name":
        return serving(authority.issue_cert("www.example.org"))
    past = datetime.datetime(2020, 1, 1, tzinfo=UTC)
    return serving(
        authority.issue_cert("127.0.0.1", not_before=past.replace(year=2019), not_after=past)
    )


@pytest.mark.parametrize(
    ("case", "why"),
    [
        ("unknown authority", "it is not signed by an authority this system trusts"),
        ("another name", "it is not valid for 127.0.0.1 (it was issued for another name)"),
        ("expired", "it has expired"),
    ],
)
def test_a_rejected_certificate_says_why_and_is_not_tried_again(
    authority: Any, case: str, why: str
) -> None:
    with LoopbackServer(ssl_context=certificate_case(case, authority)) as server:
        response, slept = fetch(server.url("/s.xml"))
        assert server.hits == {}
    error = response.error or ""
    assert error.startswith("could not connect: the server's TLS certificate was rejected (")
    assert why in error and slept == []


def test_a_trusted_certificate_is_read(authority: Any) -> None:
    with LoopbackServer(ssl_context=serving(authority.issue_cert("127.0.0.1"))) as server:
        server.add("/s.xml", urlset(["https://127.0.0.1/a"]))
        response, _ = fetch(server.url("/s.xml"))
    assert response.status == 200 and response.error is None


def test_silence_is_a_timeout_and_tried_again() -> None:
    async def silent(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(5)
        return web.Response(text="late")

    with LoopbackServer() as server:
        server.handle("/s.xml", silent)
        response, slept = fetch(server.url("/s.xml"), fast_http(read_timeout=0.3, total_timeout=10))
        assert server.hits["/s.xml"] == 3
    assert "no data for 0.3 s" in (response.error or "") and len(slept) == 2


def test_silence_in_the_body_is_a_timeout_and_tried_again() -> None:
    async def stalls(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/xml"})
        await resp.prepare(request)
        await resp.write(b'<?xml version="1.0"?>\n<urlset>')
        await asyncio.sleep(5)
        return resp

    with LoopbackServer() as server:
        server.handle("/s.xml", stalls)
        response, slept = fetch(server.url("/s.xml"), fast_http(read_timeout=0.3, total_timeout=10))
        assert server.hits["/s.xml"] == 3
    assert response.error == (
        "no data during the body for longer than the read timeout (after 3 attempts)"
    )
    assert [i.code for i in response.issues] == ["fetch-timeout"] and len(slept) == 2


@pytest.mark.parametrize("encoding", ["gzip", "deflate"])
def test_a_body_not_valid_in_its_encoding_says_so_and_is_not_tried_again(encoding: str) -> None:
    """Asking again brings the same bytes: one request, and words that name the encoding
    (aiohttp's ClientPayloadError once read "the body ended early", tried three times)."""
    with LoopbackServer() as server:
        server.add("/s.xml", b"\x00\x01 not compressed", headers={"Content-Encoding": encoding})
        response, slept = fetch(server.url("/s.xml"))
        assert server.hits["/s.xml"] == 1
    assert response.error == (
        f"the body is not valid {encoding} (its Content-Encoding), so it cannot be read"
    )
    assert response.status is None and slept == []


@pytest.mark.parametrize(("encoding", "package"), [("br", "Brotli"), ("zstd", "backports.zstd")])
def test_an_encoding_that_cannot_be_decoded_keeps_the_real_status(
    encoding: str, package: str, either_client: str
) -> None:
    pytest.importorskip("aiohttp")
    with LoopbackServer() as server:
        server.add("/s.xml", b"\x8b\x00 not decodable", headers={"Content-Encoding": encoding})
        response, slept = fetch(server.url("/s.xml"))
        # one request decoded, one to learn the status: never the three attempts (the lean
        # client's own request first, which leaves the answer to aiohttp)
        assert server.hits["/s.xml"] <= 2 + (either_client == "lean")
    if response.status is None and "cannot be decoded" not in (response.error or ""):
        pytest.skip(f"this aiohttp decodes {encoding}")
    assert response.status == 200 and slept == []
    assert response.error == (
        f"HTTP 200, but the body is in Content-Encoding {encoding}, which was not asked for "
        f"(Accept-Encoding: gzip, deflate) and cannot be decoded here; not read (pip install "
        f"{package} adds the decoder, or have the server send gzip)"
    )
    assert "400" not in response.error


def test_counts_are_in_the_right_number() -> None:
    from urlset.codes import plural
    from urlset.fetching.report import render_tree, summary

    assert [plural(n, "attempt") for n in (0, 1, 2)] == [
        "0 attempts",
        "1 attempt",
        "2 attempts",
    ]
    assert plural(1_000, "entry", "entries") == "1,000 entries"
    with LoopbackServer() as server:
        server.add("/robots.txt", f"Sitemap: {server.url('/s.xml')}\n".encode(), "text/plain")
        server.add("/s.xml", urlset([server.url("/a")]))
        from test_fetch_support import run_fetch

        run = run_fetch(server.url("/"))
    text = render_tree(run.result)
    assert "1 sitemap named" in text and "1 URL " in text and "1 URLs" not in text
    assert summary(run.result).startswith("1 sitemap read, 1 URL")


class Garbage(Resetting):
    """A TCP server that answers every request with a line that is no HTTP."""

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            self.accepted += 1
            conn.recv(1024)
            conn.sendall(b"HELLO THERE\r\n\r\n")
            conn.close()


def test_an_answer_that_is_no_http_is_a_failure_not_an_internal_error(either_client: str) -> None:
    with Garbage() as server:
        response, slept = fetch(f"http://127.0.0.1:{server.port}/s.xml")
        # not tried again: it would answer the same (the lean client leaves the answer it
        # cannot read to aiohttp, whose words name what is wrong: one connection more)
        assert server.accepted == 1 + (either_client == "lean")
    assert response.status is None and slept == []
    assert response.error == ("the answer is not HTTP that can be read (Bad status line)")

"""A lean HTTP/1.1 keep-alive client: every request of a fetch and of an audit's visits.

Why: a fetch or an audit makes small requests, and aiohttp costs more than they do: importing
it is most of a tiny site's fetch (BENCHMARKS.md, "Fetch start-up"), and its request and
response machinery (yarl URLs, tracing, cookies, the connector's layers) more CPU than the
rest of an audit together (BENCHMARKS.md, "Audit"). This speaks HTTP/1.1 on asyncio
protocols with the standard library only: a pool of keep-alive connections per origin, the
status line and headers split once, the body framed by Content-Length, chunks or the
connection's end, and gzip or deflate decoded. The Fetcher (fetcher.py, body.py) uses it as
it uses an aiohttp session, so retries, redirects, body caps, whole-download timeouts and
the run's deadline stay its own; the connect and read timeouts are kept here as aiohttp
keeps them, and its failures are this module's exceptions, worded by failures.py as
aiohttp's are.

Whatever it does not do as aiohttp does, aiohttp does (imported then, and only then: tls.py):
a URL that is not plain ASCII (yarl requotes it) or has a fragment, user info or an IPv6
literal, an answer in another Content-Encoding, an answer it cannot parse, and every
connection that cannot be made (a name DNS does not know, an address the run may not reach,
a refused port, a failed TLS handshake) are asked again through an aiohttp session of the
same options, so that their errors read as they always did. Names are resolved as aiohttp
resolves them (``--resolve`` first, the AddressGuard on every address) and kept 300 s, as
the aiohttp connector keeps them.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
import time
import zlib
from collections.abc import AsyncIterator, Iterable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .addresses import AddressGuard
from .http_options import HttpOptions
from .wire import (
    ENCODINGS,
    BodyCut,
    ConnectTimeout,
    Disconnected,
    Dropped,
    Headers,
    NotHttp,
    ReadTimeout,
    Undecodable,
    is_reset,
    request_target,
    unsafe_in_header,
)

if TYPE_CHECKING:
    import aiohttp

DNS_TTL = 300.0  # seconds a name's addresses are kept (aiohttp's ttl_dns_cache)
KEEP_ALIVE = 15.0  # seconds an idle connection is kept for reuse (aiohttp's keepalive_timeout)
_HEAD_LIMIT = 64 * 1024  # bytes of status line and headers at most (then aiohttp reads it)
_PAUSE = 1024 * 1024  # bytes buffered before the socket is no longer read
_NO_BODY = (204, 304)


class _Delegate(Exception):
    """This request is aiohttp's to make (see the module's docstring)."""


class _Connection(asyncio.Protocol):
    """One keep-alive connection: bytes in a buffer, a waiter woken when more come."""

    def __init__(self) -> None:
        self.transport: Any = None  # asyncio's or uvloop's transport
        self.buffer = bytearray()
        self.closed = False
        self.error: BaseException | None = None
        self.waiter: asyncio.Future[None] | None = None
        self.paused = False
        self.idle_since = 0.0  # when it went back to its pool

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > _PAUSE and self.transport is not None and not self.paused:
            self.paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool | None:
        self.closed = True
        self._wake()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.error = exc
        self._wake()

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def more(self, timeout: float) -> bool:
        """Wait for more bytes (False: the connection ended); raises ReadTimeout when none
        came for ``timeout`` seconds, as aiohttp raises its SocketTimeoutError."""
        if self.closed:
            return False
        if self.paused and self.transport is not None:
            self.paused = False
            self.transport.resume_reading()
        loop = asyncio.get_running_loop()
        waiter = self.waiter = loop.create_future()
        timer = loop.call_later(timeout, _expire, waiter)
        try:
            await waiter
        finally:
            timer.cancel()
            self.waiter = None
        return not self.closed or bool(self.buffer)

    def take(self, size: int) -> bytes:
        if size >= len(self.buffer):
            data = bytes(self.buffer)
            self.buffer.clear()
            return data
        data = bytes(self.buffer[:size])
        del self.buffer[:size]
        return data

    def close(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.close()


def _expire(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_exception(ReadTimeout("Timeout on reading data from socket"))


class LeanContent(AsyncIterator[bytes]):
    """The body as ``resp.content`` gives it to the Fetcher: ``iter_any()``, ``at_eof()``."""

    def __init__(self, response: LeanResponse) -> None:
        self._response = response

    def iter_any(self) -> AsyncIterator[bytes]:
        return self

    def __aiter__(self) -> AsyncIterator[bytes]:
        return self

    async def __anext__(self) -> bytes:
        # a class, not an async generator: no finalizer hook to register for each answer
        chunk = await self._response.next_chunk()
        if chunk is None:
            raise StopAsyncIteration
        return chunk

    def at_eof(self) -> bool:
        return self._response.done


class LeanResponse:
    """One answer: ``status``, ``headers`` (case-insensitive) and ``content``."""

    def __init__(
        self,
        connection: _Connection,
        status: int,
        headers: Headers,
        method: str,
        read_timeout: float,
        url: str,
    ) -> None:
        self.connection = connection
        self.method = method
        self.url = url
        self.status = status
        self.headers = headers
        self.content = LeanContent(self)
        self.read_timeout = read_timeout
        self.length: int | None = None  # bytes of the body left (Content-Length)
        self.chunked = False
        self.chunk_left = 0  # bytes of the current chunk not read yet
        self.chunk_seen = False  # a chunk's size line was read (its data's end comes next)
        self.keep_alive = headers.get("Connection", "").lower() != "close"
        if method == "HEAD" or status in _NO_BODY or 100 <= status < 200:
            self.length = 0
        elif "chunked" in headers.get("Transfer-Encoding", "").lower():
            self.chunked = True
        elif "Content-Length" in headers:
            self.length = int(headers["Content-Length"])
        else:
            self.keep_alive = False  # read to the connection's end
        self.done = self.length == 0
        self.received = 0
        self.key: tuple[str, str, int] = ("", "", 0)  # its origin in the session's pool
        encoding = headers.get("Content-Encoding", "").strip().lower()
        self._decoder: Any = None
        if encoding == "gzip":
            self._decoder = zlib.decompressobj(16 + zlib.MAX_WBITS)
        elif encoding == "deflate":
            self._decoder = _Deflate()

    async def next_chunk(self) -> bytes | None:
        """The body's next bytes, decoded from gzip or deflate; None at its end."""
        while (raw := await self._next_raw()) is not None:
            if self._decoder is None:
                return raw
            try:
                data: bytes = self._decoder.decompress(raw)
            except zlib.error:
                self.keep_alive = False
                raise Undecodable(
                    self.headers.get("Content-Encoding", "").strip().lower()
                ) from None
            if data:
                return data
        return None

    async def _next_raw(self) -> bytes | None:
        if self.done:
            return None
        connection = self.connection
        if self.chunked and not self.chunk_left:
            await self._chunk_size()
            if self.done:
                return None
        if not connection.buffer and not await connection.more(self.read_timeout):
            if self.length is None and not self.chunked:
                self.done = True  # the body ends with the connection
                return None
            raise self._cut_off()
        size = len(connection.buffer)
        if self.chunked:
            size = min(size, self.chunk_left)
            self.chunk_left -= size
        elif self.length is not None:
            size = min(size, self.length)
            self.length -= size
            self.done = self.length == 0
        self.received += size
        return connection.take(size)

    async def _chunk_size(self) -> None:
        """The next chunk's size line read (the end of the one before first); the trailer
        read and the body done at the last chunk."""
        if self.chunk_seen:
            await self._line()
        self.chunk_seen = True
        line = await self._line()
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            self.keep_alive = False
            raise NotHttp("Invalid character in chunk size") from None
        if size == 0:
            while await self._line():  # trailers, up to the empty line
                pass
            self.done = True
        self.chunk_left = size

    async def _line(self) -> bytes:
        connection = self.connection
        while (end := connection.buffer.find(b"\r\n")) < 0:
            if len(connection.buffer) > _HEAD_LIMIT or not await connection.more(self.read_timeout):
                raise self._cut_off()
        return connection.take(end + 2)[:-2]

    def _cut_off(self) -> BodyCut:
        self.keep_alive = False
        expected = None if self.length is None else self.received + self.length
        return BodyCut(self.received, expected, is_reset(self.connection.error))


class _Deflate:
    """Content-Encoding deflate: zlib's format, or the raw one some servers send."""

    def __init__(self) -> None:
        self._inner: Any = None

    def decompress(self, data: bytes) -> bytes:
        if self._inner is None:
            raw = bool(data) and (data[0] & 0x0F) != 8
            self._inner = zlib.decompressobj(-zlib.MAX_WBITS if raw else zlib.MAX_WBITS)
        return bytes(self._inner.decompress(data))


class _Origin:
    """The keep-alive connections to one scheme, host and port, and its addresses."""

    __slots__ = ("addresses", "idle", "resolved")

    def __init__(self) -> None:
        self.idle: list[_Connection] = []
        self.addresses: list[str] = []
        self.resolved = 0.0


class LeanSession:
    """Requests as ``aiohttp.ClientSession.request`` makes them, for the Fetcher; what it
    does not do goes to an aiohttp session of the same options and starts (see the
    module's docstring)."""

    def __init__(
        self,
        http: HttpOptions,
        starts: Iterable[str] = (),
        fallback: aiohttp.ClientSession | None = None,
    ) -> None:
        """``starts``: the run's start URLs (their hosts may be private: addresses.py);
        ``fallback``: the aiohttp session to leave requests to (its owner closes it), else
        one made of the same options on first need, closed by ``aclose``."""
        self.options = http
        self.starts = tuple(starts)
        self.guard = AddressGuard.starting_at(self.starts, http.allow_private)
        self.hosts = {name.lower().rstrip("."): address for name, address in http.resolve}
        self._fallback = fallback
        self._owns_fallback = fallback is None
        self.origins: dict[tuple[str, str, int], _Origin] = {}
        self.idle = 0  # connections in the pools, all origins together (``concurrency`` at most)
        self._ssl: ssl.SSLContext | None = None
        self.delegated = 0  # requests aiohttp made instead (for the tests and the benchmark)
        # a user agent that cannot go in a header as it is: aiohttp's to send (or refuse)
        self.usable = not unsafe_in_header(http.user_agent)

    def request(
        self,
        method: str,
        url: str,
        *,
        headers: Mapping[str, str] | None = None,
        allow_redirects: bool = False,
    ) -> LeanRequest:
        assert not allow_redirects, "the Fetcher follows redirects itself"
        return LeanRequest(self, method, url, dict(headers or {}))

    @property
    def fallback(self) -> aiohttp.ClientSession:
        """The aiohttp session requests are left to (aiohttp imported on first need)."""
        if self._fallback is None:
            from .aio import client_session

            self._fallback = client_session(self.options, self.starts)
        return self._fallback

    @property
    def fell_back(self) -> bool:
        """Whether an aiohttp session was needed (given, or made on a request's need)."""
        return self._fallback is not None

    def get(self, url: str, **kwargs: Any) -> Any:
        """aiohttp's, as it is (the Fetcher's second look at an undecodable answer)."""
        return self.fallback.get(url, **kwargs)

    def close(self) -> None:
        """The idle connections closed (a fallback given is its owner's to close)."""
        for origin in self.origins.values():
            for connection in origin.idle:
                connection.close()
            origin.idle.clear()
        self.idle = 0

    async def aclose(self) -> None:
        """The idle connections closed, and the aiohttp session made here."""
        self.close()
        if self._owns_fallback and self._fallback is not None:
            await self._fallback.close()
            self._fallback = None

    async def send(self, method: str, url: str, headers: dict[str, str]) -> LeanResponse:
        """The answer's status line and headers read (its body is read as it is asked for);
        raises _Delegate for what aiohttp is to send."""
        target = request_target(url)
        if target is None or method not in ("GET", "HEAD") or not self.usable:
            raise _Delegate
        scheme, host, port, host_header, path = target
        lines = [
            f"{method} {path} HTTP/1.1",
            f"Host: {host_header}",
            f"User-Agent: {self.options.user_agent}",
            "Accept: */*",
            "Accept-Encoding: gzip, deflate",
            *(f"{name}: {value}" for name, value in headers.items()),
        ]
        if headers and any(unsafe_in_header(f"{k}{v}") for k, v in headers.items()):
            raise _Delegate  # a line break in a header: aiohttp refuses it in its words
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
        key = (scheme, host, port)
        origin = self.origins.get(key)
        if origin is None:
            origin = self.origins[key] = _Origin()
        retried = False  # as aiohttp: once more on a new connection when one was dropped
        while True:
            connection = None
            while origin.idle and connection is None:
                connection = origin.idle.pop()
                self.idle -= 1
                stale = time.monotonic() - connection.idle_since > KEEP_ALIVE
                if connection.closed or connection.buffer or stale:
                    connection.close()
                    connection = None
            if connection is None:
                connection = await self._connect(origin, scheme, host, port)
            assert connection.transport is not None
            connection.transport.write(data)
            try:
                return await self._head(connection, key, method, url)
            except (Disconnected, Dropped):
                if retried:
                    raise
                retried = True

    async def _connect(self, origin: _Origin, scheme: str, host: str, port: int) -> _Connection:
        """A new connection to one of the host's addresses; aiohttp's to make when none can
        be made (its errors say why), ConnectTimeout when that takes too long."""
        if time.monotonic() - origin.resolved > DNS_TTL or not origin.addresses:
            origin.addresses = await self._resolve(host, port)
            origin.resolved = time.monotonic()
        context = self._context() if scheme == "https" else None
        loop = asyncio.get_running_loop()
        for address in origin.addresses:
            try:
                async with asyncio.timeout(self.options.connect_timeout):
                    _, connection = await loop.create_connection(
                        _Connection,
                        address,
                        port,
                        ssl=context,
                        server_hostname=host if context is not None else None,
                    )
            except TimeoutError:
                raise ConnectTimeout(
                    f"Connection timeout to host {scheme}://{host}:{port}"
                ) from None
            except (OSError, ssl.SSLError):
                continue
            return connection
        raise _Delegate

    async def _resolve(self, host: str, port: int) -> list[str]:
        """The host's addresses the run may connect to, found as the aiohttp session finds
        them: ``HttpOptions.resolve`` first (curl's --resolve), then DNS, the guard on each."""
        if host.replace(".", "").isdigit():  # an IP literal: no resolver, the guard only
            if self.guard.refusal(None, host) is not None:
                raise _Delegate
            return [host]
        given = self.hosts.get(host.rstrip("."))
        if given is not None:
            found = [given]
        else:
            loop = asyncio.get_running_loop()
            try:
                infos = await loop.getaddrinfo(
                    host, port, type=socket.SOCK_STREAM, flags=socket.AI_ADDRCONFIG
                )
            except OSError:
                raise _Delegate from None
            found = list(dict.fromkeys(str(info[4][0]) for info in infos))
        addresses = [each for each in found if self.guard.refusal(host, each) is None]
        if not addresses:
            raise _Delegate
        return addresses

    def _context(self) -> ssl.SSLContext:
        if self._ssl is None:
            self._ssl = ssl.create_default_context()
        return self._ssl

    async def _head(
        self, connection: _Connection, key: tuple[str, str, int], method: str, url: str
    ) -> LeanResponse:
        """The status line and headers (a 1xx skipped); aiohttp's errors for a connection
        that ends first, _Delegate for an answer this client does not read."""
        timeout = self.options.read_timeout
        try:
            while True:
                while (end := connection.buffer.find(b"\r\n\r\n")) < 0:
                    if len(connection.buffer) > _HEAD_LIMIT:
                        raise _Delegate
                    if not await connection.more(timeout) or (
                        connection.closed and connection.buffer.find(b"\r\n\r\n") < 0
                    ):
                        raise _ended(connection)
                head = connection.take(end + 4)
                response = _parsed(connection, head, method, timeout, url)
                if not 100 <= response.status < 200:
                    response.key = key
                    return response
        except BaseException:
            connection.close()
            raise

    def release(self, response: LeanResponse) -> None:
        """The connection back in its origin's pool when its answer was read to the end
        (or all of it is here), else closed."""
        connection = response.connection
        left = response.length
        if not response.done and left is not None and left <= len(connection.buffer):
            connection.take(left)  # a short body left unread
            response.length = 0
            response.done = True
        origin = self.origins.get(response.key)
        if (
            response.done
            and response.keep_alive
            and not connection.closed
            and not connection.buffer
            and origin is not None
            and self.idle < self.options.concurrency
        ):
            connection.idle_since = time.monotonic()
            origin.idle.append(connection)
            self.idle += 1
        else:
            connection.close()


def _ended(connection: _Connection) -> Exception:
    """What a connection that ends before an answer's headers raises."""
    error = connection.error
    if connection.buffer:  # part of an answer, then the end: aiohttp's to describe
        return _Delegate()
    if isinstance(error, OSError):
        return Dropped(error.errno, error.strerror or str(error))
    return Disconnected()


def _parsed(
    connection: _Connection, head: bytes, method: str, timeout: float, url: str
) -> LeanResponse:
    """An answer's status line and headers (_Delegate when they are not plain HTTP/1.x)."""
    lines = head[:-4].decode("latin-1").split("\r\n")
    version, _, rest = lines[0].partition(" ")
    code = rest[:3]
    if version not in ("HTTP/1.1", "HTTP/1.0") or not code.isdigit() or rest[3:4] not in ("", " "):
        raise _Delegate
    pairs = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip() or " " in name:
            raise _Delegate
        pairs.append((name, value.strip()))
    headers = Headers(pairs)
    length = headers.get("Content-Length")
    coding = headers.get("Transfer-Encoding")
    if (
        (length is not None and not length.isdigit())
        or (coding is not None and coding.strip().lower() != "chunked")
        or headers.get("Content-Encoding", "").strip().lower() not in ENCODINGS
        or headers.count("Content-Length") > 1
    ):
        raise _Delegate
    response = LeanResponse(connection, int(code), headers, method, timeout, url)
    if version == "HTTP/1.0" and headers.get("Connection", "").lower() != "keep-alive":
        response.keep_alive = False
    return response


class LeanRequest:
    """``async with session.request(...) as resp``: this client's answer, or aiohttp's."""

    def __init__(self, session: LeanSession, method: str, url: str, headers: dict[str, str]):
        self.session = session
        self.method = method
        self.url = url
        self.headers = headers
        self.response: LeanResponse | None = None
        self.delegated: Any = None

    async def __aenter__(self) -> LeanResponse | aiohttp.ClientResponse:
        try:
            self.response = await self.session.send(self.method, self.url, self.headers)
        except _Delegate:
            self.session.delegated += 1
            self.delegated = self.session.fallback.request(
                self.method, self.url, headers=self.headers, allow_redirects=False
            )
            answer: aiohttp.ClientResponse = await self.delegated.__aenter__()
            return answer
        return self.response

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        if self.delegated is not None:
            await self.delegated.__aexit__(kind, exc, trace)
        elif self.response is not None:
            self.session.release(self.response)

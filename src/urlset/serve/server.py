"""The HTTP/1.1 server behind ``urlset serve``: connections on one asyncio loop, the sans-I/O
core (``SitemapApp.respond``) and its file reads on a fixed pool of worker threads.

A connection costs the pool nothing until a whole request head has arrived, so idle and slow
clients cannot exhaust it; each wait has its own bound (``Timeouts``): the next request on a
kept-alive connection, the head once its first byte came (then 408), a request body, each
piece of the response reaching the client. At ``max_connections`` a new connection takes
the place of the one idle longest (closed, as its idle timeout would); with none idle, it is
answered 503 and closed (a lingering close, as every refusal: ``SitemapServer._refuse``).
Request heads are read by ``http1`` (every odd request line gets a status line and a status).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from .app import SitemapApp
from .http import REASONS, Request, Response, plain
from .http1 import (
    KNOWN_METHODS,
    MAX_BODY,
    MAX_FIELDS,
    MAX_HEAD,
    MAX_LINE,
    Refused,
    RequestLine,
    header_field,
    request_line,
)

# seconds a refused connection is read after its answer, until the client closes it too
LINGER = 1.0


@dataclass(frozen=True)
class Timeouts:
    """Seconds each wait may take before the connection is closed."""

    idle: float = 5.0  # for the next request on a kept-alive connection (or the first)
    head: float = 10.0  # for the whole request head once its first byte arrived (then 408)
    body: float = 10.0  # for a request body (read and dropped)
    send: float = 30.0  # for each piece of the response to be taken by the client


class SitemapServer:
    """``core`` over HTTP/1.1 on ``host``:``port`` (0: any free port)."""

    def __init__(
        self,
        core: SitemapApp,
        *,
        workers: int = 8,
        max_connections: int = 512,
        timeouts: Timeouts | None = None,
    ) -> None:
        self.core = core
        self.timeouts = timeouts or Timeouts()
        self.max_connections = max_connections
        self.open = 0  # connections now open
        self._writers: set[asyncio.StreamWriter] = set()
        # the handlers waiting for a request, oldest first
        self._idle: dict[asyncio.StreamWriter, asyncio.Task[None] | None] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="urlset-serve")
        self._server: asyncio.Server | None = None

    async def start(self, host: str, port: int) -> int:
        """Listen (raises OSError when it cannot); the port listened on."""
        self._server = await asyncio.start_server(self._connection, host, port, limit=MAX_LINE)
        return int(self._server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        """Stop listening, end the open connections, and let running work finish."""
        if self._server is not None:
            self._server.close()
            for writer in list(self._writers):
                writer.close()
            if self._tasks:  # each ends on its closed connection
                await asyncio.wait(list(self._tasks), timeout=5)
            await self._server.wait_closed()
        self._pool.shutdown(wait=True, cancel_futures=True)

    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.open += 1
        self._writers.add(writer)
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            if self.open > self.max_connections:
                if not self._idle:
                    await self._refuse(
                        reader, writer, 503, "too many connections; try again shortly"
                    )
                    return
                oldest = next(iter(self._idle))
                waiting = self._idle.pop(oldest)
                if waiting is not None:
                    waiting.cancel()  # it closes its connection as it ends
                oldest.close()
            while await self._exchange(reader, writer):
                pass
        except (OSError, asyncio.IncompleteReadError, TimeoutError, asyncio.CancelledError):
            pass  # the client went away or stalled, or made room for another: it is closed
        finally:
            self.open -= 1
            self._writers.discard(writer)
            if task is not None:
                self._tasks.discard(task)
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 1)

    async def _exchange(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """One request and its response; whether the connection stays open for another."""
        self._idle[writer] = asyncio.current_task()
        try:
            first = await asyncio.wait_for(reader.readexactly(1), self.timeouts.idle)
        except (TimeoutError, asyncio.IncompleteReadError):
            return False  # idle: closed without a word, as servers do
        finally:
            self._idle.pop(writer, None)
        try:
            async with asyncio.timeout(self.timeouts.head):
                line, headers = await _head(first, reader)
            keep = line.minor >= 1 and "close" not in headers.get("connection", "").lower()
            if line.minor >= 1 and "host" not in headers:
                raise Refused(400, "an HTTP/1.1 request needs a Host header")
            async with asyncio.timeout(self.timeouts.body):
                await _drop_body(reader, headers)
        except Refused as refused:
            await self._refuse(reader, writer, refused.status, refused.reason)
            return False
        except TimeoutError:
            await self._refuse(reader, writer, 408, "the request (its head or body) took too long")
            return False
        if line.method not in KNOWN_METHODS:
            await self._refuse(
                reader, writer, 501, f"{line.method} is not a method this server knows"
            )
            return False
        request = Request(line.method, line.path, headers, line.query)
        loop = asyncio.get_running_loop()
        response = await loop.run_in_executor(self._pool, self.core.respond, request)
        try:
            return await self._send(writer, response, line, keep)
        finally:
            response.close()

    async def _send(
        self, writer: asyncio.StreamWriter, response: Response, line: RequestLine, keep: bool
    ) -> bool:
        """The response, chunked when its length is not known (close-delimited for 1.0)."""
        headers = list(response.headers)
        bodiless = line.method == "HEAD" or response.status in (204, 304)
        chunked = not bodiless and response.header("Content-Length") is None and line.minor >= 1
        if not bodiless and response.header("Content-Length") is None and not chunked:
            keep = False
        if chunked:
            headers.append(("Transfer-Encoding", "chunked"))
        headers.append(("Connection", "keep-alive" if keep else "close"))
        writer.write(_status_and_headers(response.status, headers))
        if not bodiless:
            loop = asyncio.get_running_loop()
            chunks: Iterator[bytes] = iter(response.body)
            while (chunk := await loop.run_in_executor(self._pool, next, chunks, None)) is not None:
                if chunk:
                    writer.write(b"%x\r\n%b\r\n" % (len(chunk), chunk) if chunked else chunk)
                    await asyncio.wait_for(writer.drain(), self.timeouts.send)
            if chunked:
                writer.write(b"0\r\n\r\n")
        await asyncio.wait_for(writer.drain(), self.timeouts.send)
        return keep

    async def _refuse(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, status: int, reason: str
    ) -> None:
        """Answer ``status`` and end the connection with a lingering close: the sending side
        shut first, then what the client still sends read and dropped until it closes too
        (at most ``LINGER`` seconds), as RFC 9112 section 9.6 asks. A close with unread input
        sends a reset, which can destroy the answer before the client reads it (a refused
        request's head is often unread: the 503 at the connection cap reads none of it)."""
        response = plain(status, reason + "\n")
        headers = [*response.headers, ("Connection", "close")]
        if status == 405:
            headers.append(("Allow", "GET, HEAD"))
        writer.write(_status_and_headers(status, headers) + b"".join(response.body))
        with contextlib.suppress(OSError, TimeoutError):
            await asyncio.wait_for(writer.drain(), self.timeouts.send)
            if writer.can_write_eof():
                writer.write_eof()
            async with asyncio.timeout(LINGER):
                while await reader.read(65_536):
                    pass


def _status_and_headers(status: int, headers: list[tuple[str, str]]) -> bytes:
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'Unknown')}"]
    lines += [f"{name}: {value}" for name, value in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def _head(first: bytes, reader: asyncio.StreamReader) -> tuple[RequestLine, dict[str, str]]:
    """The request line (one empty line before it forgiven, RFC 9112 section 2.2) and the
    header fields, repeated names joined with ", "."""
    raw = first + await _line(reader, 414, "the request line is longer than 8 KiB")
    if raw in (b"\r\n", b"\n"):
        raw = await _line(reader, 414, "the request line is longer than 8 KiB")
    line = request_line(raw.rstrip(b"\r\n"))
    headers: dict[str, str] = {}
    size = fields = 0
    while (raw := await _line(reader, 431, "a header line is longer than 8 KiB")) not in (
        b"\r\n",
        b"\n",
    ):
        size += len(raw)
        fields += 1
        if size > MAX_HEAD or fields > MAX_FIELDS:
            raise Refused(431, "the request's header fields are too large")
        name, value = header_field(raw.rstrip(b"\r\n"))
        if name == "host" and name in headers:
            raise Refused(400, "more than one Host header")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    return line, headers


async def _line(reader: asyncio.StreamReader, status: int, too_long: str) -> bytes:
    try:
        return await reader.readuntil(b"\n")
    except asyncio.LimitOverrunError:
        raise Refused(status, too_long) from None


async def _drop_body(reader: asyncio.StreamReader, headers: dict[str, str]) -> None:
    """Read and drop a request body (a GET has none worth reading), or refuse it."""
    if "transfer-encoding" in headers:
        raise Refused(400, "a request body in Transfer-Encoding is not accepted here")
    length = headers.get("content-length")
    if length is None:
        return
    if not length.isdigit():
        raise Refused(400, "Content-Length is not a number")
    if int(length) > MAX_BODY:
        raise Refused(413, "a request body is not accepted here")
    await reader.readexactly(int(length))


async def serve_until(server: SitemapServer, stop: asyncio.Event, seconds: float | None) -> None:
    """Serve until ``stop`` is set or ``seconds`` pass, then close."""
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
    await server.close()

"""The HTTP driver: runs the discovery flow (discovery.py) over aiohttp.

Each fetch is short: connect, follow redirects by hand (to see loops and host changes),
stream the body chunk by chunk into a SitemapReader, hand the reader's events back to the
flow. What the core cannot know lives here: timeouts, retries, concurrency, the cache.

- Timeouts: ``connect_timeout`` bounds connecting, ``read_timeout`` each wait for data, and
  ``total_timeout`` the whole download including redirects (a server that drips bytes
  forever is cut off). A whole-download timeout is not retried; the others are.
- Retries: connection errors, read/connect timeouts, 5xx and 429, with exponential backoff
  and jitter, or the server's Retry-After (capped). Never other 4xx.
- Memory: the body is never held whole; the reader decompresses and parses as chunks come.
  A body that aiohttp decoded from Content-Encoding is counted here against the reader's
  decompressed-size limit; a gzip file inside that encoding is the reader's to unpack.
- Cores: with ``workers`` > 0 the readers run in a ParsePool of worker processes (see the
  section "parse workers" below); the event loop keeps all the I/O.

    fetch_sitemaps(start, ...)      the whole run: discovery flow + Fetcher (+ ParsePool)
    run_flow(flow, fetch, ...)      any flow, any async fetch function, N in flight
    Fetcher.fetch(request)          one FetchRequest -> FetchResponse; never raises
"""

from __future__ import annotations

import asyncio
import contextlib
import email.utils
import random
import re
import sys
import threading
import time
from array import array
from collections import deque
from collections.abc import (
    AsyncIterator,
    Awaitable,
    Callable,
    Generator,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass, field
from datetime import UTC, datetime
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, Protocol, overload
from urllib.parse import urljoin, urlsplit

import aiohttp

from ..errors import InvalidValue
from ..limits import ReadLimits
from ..model import Issue, Severity, SitemapRef, Url
from ..reading.output import Render, UrlColumns
from ..urls import to_uri
from .discovery import (
    CONTENT_TYPE,
    CROSS_HOST_REDIRECT,
    FETCH_FAILED,
    FETCH_RETRIED,
    FETCH_TIMEOUT,
    HTTP_STATUS,
    REDIRECT_LOOP,
    TOO_MANY_REDIRECTS,
    CacheRecord,
    DiscoveryOptions,
    DiscoveryResult,
    Event,
    FetchRequest,
    FetchResponse,
    SitemapRead,
    discover,
    fetch_issue,
)

if TYPE_CHECKING:
    from .cache import FetchCache

BODY_TOO_LARGE = "body-too-large"

DEFAULT_USER_AGENT = "urlset/0.1 (sitemap fetcher; +https://www.sitemaps.org/protocol.html)"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
# Types a sitemap may come with: XML (any +xml), plain text, gzip or an unnamed binary.
_SITEMAP_TYPES = frozenset(
    {
        "application/xml",
        "text/xml",
        "text/plain",
        "application/gzip",
        "application/x-gzip",
        "application/gzip-compressed",
        "application/octet-stream",
        "binary/octet-stream",
    }
)
# Reader codes after which it reads no more of the document.
_STOP_CODES = frozenset({"decompressed-size-limit", "entry-limit"})
_KEPT_HEADERS = ("ETag", "Last-Modified", "Content-Type", "Content-Encoding", "Retry-After")


class ReaderLike(Protocol):
    """What the driver needs of the reader (urlset.reading.reader.SitemapReader)."""

    def feed(self, data: bytes) -> list[Url | SitemapRef | Issue]: ...

    def close(self) -> list[Url | SitemapRef | Issue]: ...

    @property
    def format(self) -> str | None: ...

    @property
    def fatal(self) -> bool: ...


# (source URL, base URL for relative locs, limits) -> a fresh reader
ReaderFactory = Callable[[str, str, ReadLimits], ReaderLike]


def _sitemap_reader(source: str, base_url: str, limits: ReadLimits) -> ReaderLike:
    from ..reading.reader import SitemapReader

    reader: ReaderLike = SitemapReader(source, base_url=base_url, limits=limits)
    return reader


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to try again."""

    attempts: int = 4  # tries in all, the first included
    backoff: float = 0.5  # seconds before the first retry (before jitter)
    max_backoff: float = 30.0
    max_retry_after: float = 120.0  # a longer Retry-After is cut to this

    def delay(
        self,
        retry: int,
        retry_after: float | None = None,
        rand: Callable[[], float] = random.random,
    ) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first).

        Retry-After wins when given (capped); otherwise exponential backoff with "equal
        jitter": half the step fixed, half random, so many clients do not retry in step.
        """
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        step = min(self.max_backoff, self.backoff * 2.0 ** (retry - 1))
        return step / 2 + rand() * step / 2


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as seconds from ``now``: delta-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


@dataclass(frozen=True, slots=True)
class HttpOptions:
    user_agent: str = DEFAULT_USER_AGENT
    concurrency: int = 16  # requests in flight in all
    per_host: int = 6  # requests in flight per host
    connect_timeout: float = 10.0
    read_timeout: float = 30.0  # each wait for data
    total_timeout: float = 300.0  # one whole download, redirects included
    max_redirects: int = 5
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    read_limits: ReadLimits = field(default_factory=ReadLimits)
    max_robots_bytes: int = 512 * 1024  # Google reads the first 500 KiB of a robots.txt


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    queued: int
    urls: int
    bytes: int


class _Retry(Exception):
    """This attempt failed in a way worth trying again."""

    def __init__(self, reason: str, code: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.retry_after = retry_after


class _Unconditional(Exception):
    """A 304 came but the stored result is gone: ask again without validators."""


def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def _kept(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: headers[name] for name in _KEPT_HEADERS if name in headers}


def _media_type(headers: Mapping[str, str]) -> str:
    return headers.get("Content-Type", "").split(";", 1)[0].strip().lower()


class Fetcher:
    """Answers FetchRequests over one aiohttp session; never raises."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        options: HttpOptions = HttpOptions(),
        *,
        cache: FetchCache | None = None,
        reader_factory: ReaderFactory = _sitemap_reader,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        pool: ParsePool | None = None,
    ) -> None:
        self.session = session
        self.pool = pool
        self.options = options
        self.cache = cache
        self.reader_factory = reader_factory
        self._sleep = sleep
        self._hosts: dict[str, asyncio.Semaphore] = {}

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        started = time.monotonic()
        try:
            if request.cached_only:
                response = self._from_cache(request, request.url, 200, {})
            else:
                host = _host(request.url)
                gate = self._hosts.get(host)
                if gate is None:
                    gate = self._hosts[host] = asyncio.Semaphore(self.options.per_host)
                async with gate:
                    response = await self._with_retries(request)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a driver bug must not end the run
            response = FetchResponse(
                request,
                request.url,
                None,
                error=f"internal error: {type(exc).__name__}: {exc}",
                issues=[
                    fetch_issue(
                        FETCH_FAILED,
                        Severity.ERROR,
                        f"internal error while fetching: {type(exc).__name__}: {exc}",
                        request.url,
                    )
                ],
            )
        response.seconds = time.monotonic() - started
        return response

    def _from_cache(
        self, request: FetchRequest, url: str, status: int, headers: Mapping[str, str]
    ) -> FetchResponse:
        stored = self.cache.load(request.url) if self.cache is not None else None
        if stored is None:
            return FetchResponse(request, url, None, error="no stored result in the cache")
        return FetchResponse(
            request,
            stored.final_url,
            status,
            headers,
            items=stored.items,
            format=stored.format,
            from_cache=True,
        )

    async def _with_retries(self, request: FetchRequest) -> FetchResponse:
        policy = self.options.retry
        issues: list[Issue] = []
        headers = dict(request.headers)
        attempt = 0
        while True:
            attempt += 1
            deadline = asyncio.timeout(self.options.total_timeout)
            hops: list[str] = []  # the URLs this attempt asked for (redirects followed)
            unreachable = False  # no connection to request.url could be made at all
            final = False  # a failure that trying again cannot change
            try:
                async with deadline:
                    response = await self._once(request, headers, issues, hops)
            except _Unconditional:
                headers = {}
                attempt -= 1
                continue
            except _Retry as retry:
                failure: tuple[str, str, float | None] = (
                    retry.reason,
                    retry.code,
                    retry.retry_after,
                )
            except TimeoutError as exc:
                if deadline.expired():
                    return self._failed(
                        request,
                        FETCH_TIMEOUT,
                        f"the download took longer than {self.options.total_timeout:g} s "
                        "(whole-download timeout); cut off",
                        issues,
                        attempt,
                    )
                if isinstance(exc, aiohttp.ConnectionTimeoutError):
                    reason = f"could not connect in {self.options.connect_timeout:g} s"
                    unreachable = len(hops) == 1
                else:
                    reason = (
                        f"no data for {self.options.read_timeout:g} s or could not connect in "
                        f"{self.options.connect_timeout:g} s"
                    )
                failure = (reason, FETCH_TIMEOUT, None)
            except (aiohttp.ClientError, OSError) as exc:
                failure = (_describe(exc), FETCH_FAILED, None)
                unreachable = _cannot_connect(exc) and len(hops) == 1
                # a certificate the client rejects is rejected again: no retry
                final = isinstance(exc, aiohttp.ClientConnectorCertificateError)
            else:
                if attempt > 1:
                    response.issues = [
                        *response.issues,
                        fetch_issue(
                            FETCH_RETRIED,
                            Severity.INFO,
                            f"read on attempt {attempt} of {policy.attempts}",
                            request.url,
                        ),
                    ]
                return response
            reason, code, retry_after = failure
            if (
                final
                or attempt >= policy.attempts
                or (unreachable and not request.retry_unreachable)
            ):
                failed = self._failed(request, code, reason, issues, attempt)
                failed.unreachable = unreachable
                return failed
            await self._sleep(policy.delay(attempt, retry_after))

    def _failed(
        self, request: FetchRequest, code: str, reason: str, issues: list[Issue], attempts: int
    ) -> FetchResponse:
        tries = f" (after {attempts} attempts)" if attempts > 1 else ""
        status = None
        if reason.startswith("HTTP "):
            status = int(reason.split()[1])
        issue = fetch_issue(code, Severity.ERROR, reason + tries, request.url)
        return FetchResponse(
            request,
            request.url,
            status,
            error=reason + tries,
            issues=[*issues, issue],
        )

    async def _once(
        self,
        request: FetchRequest,
        conditional: Mapping[str, str],
        issues: list[Issue],
        hops: list[str],
    ) -> FetchResponse:
        """One attempt: follow redirects, then read the answer. ``hops`` is told each URL
        asked for."""
        current = request.url
        visited = [current]
        origin = _host(request.url)
        redirect_issues: list[Issue] = []
        for _ in range(self.options.max_redirects + 1):
            hops.append(current)
            async with self.session.get(
                current, headers=conditional, allow_redirects=False
            ) as resp:
                location = resp.headers.get("Location")
                if resp.status in _REDIRECTS and location:
                    try:
                        target = to_uri(urljoin(current, location), field="Location")
                    except InvalidValue as exc:
                        return self._error(
                            request,
                            current,
                            resp.status,
                            FETCH_FAILED,
                            f"redirect to an unusable Location ({exc.reason})",
                            redirect_issues,
                        )
                    if target in visited:
                        return self._error(
                            request,
                            current,
                            resp.status,
                            REDIRECT_LOOP,
                            "redirect loop: " + " -> ".join([*visited, target]),
                            redirect_issues,
                        )
                    # a sitemap's host matters (its URLs must be on it); robots.txt may move
                    if (
                        request.kind == "sitemap"
                        and _host(target) != origin
                        and not any(i.code == CROSS_HOST_REDIRECT for i in redirect_issues)
                    ):
                        redirect_issues.append(
                            fetch_issue(
                                CROSS_HOST_REDIRECT,
                                Severity.WARNING,
                                f"redirected from {origin} to another host: {target}; "
                                "a sitemap's URLs must be on the host it is served from",
                                request.url,
                            )
                        )
                    visited.append(target)
                    current = target
                    continue
                return await self._answer(request, current, resp, redirect_issues, conditional)
        return self._error(
            request,
            current,
            None,
            TOO_MANY_REDIRECTS,
            f"more than {self.options.max_redirects} redirects: " + " -> ".join(visited),
            redirect_issues,
        )

    def _error(
        self,
        request: FetchRequest,
        url: str,
        status: int | None,
        code: str,
        reason: str,
        issues: list[Issue],
    ) -> FetchResponse:
        return FetchResponse(
            request,
            url,
            None,
            error=reason,
            issues=[*issues, fetch_issue(code, Severity.ERROR, reason, request.url)],
        )

    async def _answer(
        self,
        request: FetchRequest,
        url: str,
        resp: aiohttp.ClientResponse,
        issues: list[Issue],
        conditional: Mapping[str, str],
    ) -> FetchResponse:
        status = resp.status
        headers = _kept(resp.headers)
        if status == 429 or status >= 500:
            raise _Retry(
                f"HTTP {status}",
                HTTP_STATUS,
                parse_retry_after(resp.headers.get("Retry-After")),
            )
        if status == 304 and request.kind == "sitemap" and conditional:
            cached = self._from_cache(request, url, 304, headers)
            if cached.error is not None:
                raise _Unconditional
            cached.issues = issues
            return cached
        if not 200 <= status < 300:
            return FetchResponse(request, url, status, headers, issues=issues)
        if request.kind == "robots":
            return await self._robots(request, url, resp, headers, issues)
        return await self._sitemap(request, url, resp, headers, issues)

    async def _robots(
        self,
        request: FetchRequest,
        url: str,
        resp: aiohttp.ClientResponse,
        headers: dict[str, str],
        issues: list[Issue],
    ) -> FetchResponse:
        limit = self.options.max_robots_bytes
        parts: list[bytes] = []
        size = 0
        truncated = False
        try:
            async for chunk in resp.content.iter_any():
                parts.append(chunk)
                size += len(chunk)
                if size > limit:
                    truncated = True
                    break
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError) as exc:
            raise _retry_for(exc) from None
        body = b"".join(parts)[:limit]
        return FetchResponse(
            request,
            url,
            resp.status,
            headers,
            body=body,
            truncated=truncated,
            issues=issues,
            bytes_received=len(body),
        )

    async def _sitemap(
        self,
        request: FetchRequest,
        url: str,
        resp: aiohttp.ClientResponse,
        headers: dict[str, str],
        issues: list[Issue],
    ) -> FetchResponse:
        limits = self.options.read_limits
        received = 0

        def count(size: int) -> bool:
            nonlocal received
            received += size
            return received <= limits.max_decompressed_bytes

        urls: Sequence[Url] | None = None
        items: list[Url | SitemapRef | Issue]
        try:
            parsed = None
            if self.pool is not None:
                parsed = await self.pool.parse(
                    request.url, url, limits, resp.content.iter_any(), count
                )
            if parsed is not None:
                fmt, fatal, others, urls = parsed
                items = list(others)
            else:
                fmt, fatal, items = await self._read_here(request, url, resp, count)
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError) as exc:
            raise _retry_for(exc) from None
        except WorkerLost as exc:
            reason = f"{exc}; this sitemap was not read"
            return FetchResponse(
                request,
                url,
                resp.status,
                headers,
                error=reason,
                issues=[*issues, fetch_issue(FETCH_FAILED, Severity.ERROR, reason, url)],
                bytes_received=received,
            )
        if received > limits.max_decompressed_bytes:
            reason = (
                f"the body is larger than {limits.max_decompressed_bytes:,} bytes "
                "(after Content-Encoding); cut off"
            )
            return FetchResponse(
                request,
                url,
                resp.status,
                headers,
                error=reason,
                issues=[*issues, fetch_issue(BODY_TOO_LARGE, Severity.ERROR, reason, url)],
                bytes_received=received,
            )
        media = _media_type(headers)
        if (
            media
            and media not in _SITEMAP_TYPES
            and not media.endswith("+xml")
            and fmt not in ("html", "unknown", None)
        ):
            issues = [
                *issues,
                fetch_issue(
                    CONTENT_TYPE,
                    Severity.WARNING,
                    f"served as {media}; a sitemap should be served as XML, text or gzip",
                    url,
                ),
            ]
        response = FetchResponse(
            request,
            url,
            resp.status,
            headers,
            items=items,
            format=fmt,
            fatal=fatal,
            issues=issues,
            bytes_received=received,
            urls=urls,
        )
        if self.cache is not None and not fatal and fmt not in ("html", "unknown"):
            self.cache.store(
                request.url,
                final_url=url,
                headers=headers,
                index_lastmod=request.index_lastmod,
                format=fmt,
                items=[*items, *urls] if urls is not None else items,
            )
        return response

    async def _read_here(
        self,
        request: FetchRequest,
        url: str,
        resp: aiohttp.ClientResponse,
        count: Callable[[int], bool],
    ) -> tuple[str | None, bool, list[Url | SitemapRef | Issue]]:
        """Feed the body to a reader in this process, chunk by chunk as it arrives."""
        reader = self.reader_factory(request.url, url, self.options.read_limits)
        items: list[Url | SitemapRef | Issue] = []
        async for chunk in resp.content.iter_any():
            if not count(len(chunk)):
                break
            new = reader.feed(chunk)
            if new:
                items.extend(new)
                # the reader stops consuming at a limit; stop downloading too
                if any(type(i) is Issue and i.code in _STOP_CODES for i in new[-4:]):
                    break
            if reader.fatal:
                break
        items.extend(reader.close())
        return reader.format, reader.fatal, items


_RECEIVED = re.compile(r"received (\d+) of (\d+) bytes")


def _retry_for(exc: BaseException) -> _Retry:
    if isinstance(exc, TimeoutError):
        return _Retry(f"no data for a while during the body ({_describe(exc)})", FETCH_TIMEOUT)
    return _Retry(_describe(exc), FETCH_FAILED)


def _cannot_connect(exc: BaseException) -> bool:
    """No connection could be made: refused, unreachable, the TLS handshake failed. A DNS
    failure is not counted: the name fails whatever the scheme."""
    return isinstance(exc, aiohttp.ClientConnectorError) and not isinstance(
        exc, aiohttp.ClientConnectorDNSError
    )


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    if isinstance(exc, aiohttp.ClientPayloadError):
        counts = _RECEIVED.search(text)
        detail = f" after {counts.group(1)} of {counts.group(2)} bytes" if counts else ""
        if "ConnectionResetError" in text or "reset" in text.lower():
            return f"the connection was reset in the middle of the body{detail}"
        return f"the body ended early{detail} ({type(exc).__name__})"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        reason = getattr(exc.certificate_error, "verify_message", None) or exc.certificate_error
        return f"could not connect: the server's TLS certificate was rejected ({reason})"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"could not connect ({exc.os_error.strerror or text or name})"
    return f"{name}: {text}" if text else name


# ----------------------------------------------------------------------------- parse workers
# Parsing is the CPU cost of a fetch (the download is cheap on a fast link), and the reader
# is Python: one core reads ~150k URLs/s. A ParsePool runs readers in worker processes, so a
# fetch uses every core. The event loop still does all the I/O; each body's chunks are sent
# to one worker as they arrive (coalesced, acknowledged: constant memory, and the download
# stops when the worker's reader stops at a limit). The Urls come back as columns, which
# pickle at C speed, and, when the caller names a renderer, already rendered as output bytes,
# so the main process does no per-URL work at all unless someone looks at the Urls. A worker
# that dies costs the sitemap it was reading (reported); with none left, parsing moves back
# into the main process.

_COALESCE = 256 * 1024


class UrlBatch(Sequence[Url]):
    """Urls from a parse worker: compact columns, made into Url values only when looked at.

    ``rendered`` is the output of these Urls (UTF-8, one line per Url) when the pool was given
    a renderer, and ``render`` its name; slicing from the start keeps it in step.
    """

    __slots__ = ("_urls", "columns", "render", "rendered")

    def __init__(
        self, columns: UrlColumns, render: str | None = None, rendered: bytes | None = None
    ) -> None:
        self.columns = columns
        self._urls: list[Url] | None = None
        self.render = render
        self.rendered = rendered

    def __len__(self) -> int:
        return self.columns.count

    def _all(self) -> list[Url]:
        if self._urls is None:
            self._urls = self.columns.urls()
        return self._urls

    @overload
    def __getitem__(self, index: int) -> Url: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Url]: ...

    def __getitem__(self, index: int | slice) -> Url | Sequence[Url]:
        if isinstance(index, slice) and index.start in (None, 0) and index.step in (None, 1):
            stop = len(self) if index.stop is None else max(0, min(index.stop, len(self)))
            rendered = None
            if self.rendered is not None:
                end = 0
                for _ in range(stop):
                    end = self.rendered.index(b"\n", end) + 1
                rendered = self.rendered[:end]
            return UrlBatch(self.columns.head(stop), self.render, rendered)
        return self._all()[index]

    def __iter__(self) -> Iterator[Url]:
        return iter(self._all())


def _pool_worker(conn: Connection, render: tuple[str, Render] | None) -> None:
    """A parse worker: ("o", source, base, limits) opens a reader, ("d", bytes) feeds it
    (answered True while it reads on), ("c",) closes it (answered with the result).

    Urls become columns as each chunk is read, so the worker holds no Url objects."""
    from ..reading.reader import SitemapReader

    reader: SitemapReader | None = None
    parts: list[UrlColumns] = []
    others: list[SitemapRef | Issue] = []
    sitemap = ""

    def take(events: list[Url | SitemapRef | Issue]) -> bool:
        rest = [e for e in events if type(e) is not Url]
        if rest:
            others.extend(rest)  # type: ignore[arg-type]
            events = [e for e in events if type(e) is Url]
        if events:
            parts.append(UrlColumns.from_urls(events))  # type: ignore[arg-type]
        return any(type(i) is Issue and i.code in _STOP_CODES for i in rest)

    conn.send("ready")
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        kind = message[0]
        if kind == "d" and reader is not None:
            stopped = take(reader.feed(message[1]))
            conn.send(not (stopped or reader.fatal))
        elif kind == "o":
            reader = SitemapReader(message[1], base_url=message[2], limits=message[3])
            parts, others, sitemap = [], [], message[1]
        elif kind == "c" and reader is not None:
            take(reader.close())
            columns = _concat(parts)
            refs = [(r[0], r[1]) for r in others if type(r) is SitemapRef]
            issues = [i for i in others if type(i) is Issue]
            rendered = None
            if render is not None and columns.count:
                rendered = render[1](columns, sitemap).encode("utf-8")
            conn.send((reader.format, reader.fatal, columns, refs, issues, rendered))
            reader, parts, others = None, [], []
        else:
            return


def _concat(parts: list[UrlColumns]) -> UrlColumns:
    if len(parts) == 1:
        return parts[0]
    extensions: list[tuple[Any, ...]] | None = None
    if any(p.extensions is not None for p in parts):
        extensions = []
        for p in parts:
            extensions.extend(p.extensions if p.extensions is not None else [()] * p.count)
    priorities: array[float] = array("d")
    for p in parts:
        priorities.extend(p.priorities)
    return UrlColumns(
        [loc for p in parts for loc in p.locs],
        [t for p in parts for t in p.lastmods],
        b"".join(p.changefreqs for p in parts),
        priorities,
        extensions,
    )


def fork_is_safe() -> bool:
    """Forking is cheap (workers share the modules already imported) but safe only while
    this process has a single thread, and only on Linux (macOS system libraries are not
    fork-safe; Python itself spawns there)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


class _Worker:
    __slots__ = ("conn", "lock", "process")

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.lock = threading.Lock()  # one exchange at a time, from whichever thread

    def exchange(self, message: tuple[Any, ...]) -> Any:
        with self.lock:
            self.conn.send(message)
            return self.conn.recv()

    def reset(self) -> bool:
        """Close whatever document the worker holds (after a failed download); False when
        the worker is gone."""
        with self.lock:
            try:
                self.conn.send(("c",))
                self.conn.recv()
            except (OSError, EOFError):
                return False
        return True


class WorkerLost(Exception):
    """A parse worker process ended while it read a document."""


class ParsePool:
    """Worker processes running SitemapReaders; see the section comment above."""

    def __init__(self, workers: int, render: tuple[str, Render] | None = None) -> None:
        import multiprocessing

        from ..reading import reader as _reader  # imported before forking, so workers have it

        del _reader
        method = "fork" if fork_is_safe() else "spawn"
        context: Any = multiprocessing.get_context(method)
        self.render = render
        self._workers: list[_Worker] = []
        for _ in range(workers):
            parent, child = context.Pipe()
            process = context.Process(target=_pool_worker, args=(child, render), daemon=True)
            process.start()
            child.close()
            self._workers.append(_Worker(process, parent))
        self._free: asyncio.Queue[_Worker | None] | None = None
        self._alive = len(self._workers)

    async def start(self) -> None:
        """Wait until every worker is ready (a spawned one imports urlset first), so that
        no download's timeout runs while a worker starts."""
        loop = asyncio.get_running_loop()
        for worker in self._workers:
            await loop.run_in_executor(None, worker.conn.recv)

    async def _acquire(self) -> _Worker | None:
        """A free worker, or None once every worker has died."""
        if self._free is None:
            self._free = asyncio.Queue()
            for each in self._workers:
                self._free.put_nowait(each)
            self._alive = len(self._workers)
        if self._alive == 0:
            return None
        worker = await self._free.get()
        if worker is None:
            self._free.put_nowait(None)  # wake the next waiter too
        return worker

    def _release(self, worker: _Worker, alive: bool) -> None:
        assert self._free is not None
        if alive:
            self._free.put_nowait(worker)
            return
        self._alive -= 1
        if self._alive == 0:
            self._free.put_nowait(None)

    def close(self) -> None:
        for worker in self._workers:
            with contextlib.suppress(OSError):
                worker.conn.send(("q",))
        for worker in self._workers:
            worker.process.join(2)
            if worker.process.is_alive():
                worker.process.kill()
            worker.conn.close()
        self._workers = []

    async def parse(
        self,
        source: str,
        base_url: str,
        limits: ReadLimits,
        chunks: AsyncIterator[bytes],
        count: Callable[[int], bool],
    ) -> tuple[str | None, bool, list[SitemapRef | Issue], UrlBatch] | None:
        """Stream ``chunks`` to a worker; ``count(n)`` is told each chunk's size and returns
        False to stop. Returns (format, fatal, refs and issues, Urls), or None without
        touching ``chunks`` when no worker is left. Raises WorkerLost if the worker dies."""
        worker = await self._acquire()
        if worker is None:
            return None
        loop = asyncio.get_running_loop()
        healthy: bool | None = False
        try:
            with worker.lock:
                worker.conn.send(("o", source, base_url, limits, source))
            pending: list[bytes] = []
            size = 0
            going = True
            async for chunk in chunks:
                if not count(len(chunk)):
                    break
                pending.append(chunk)
                size += len(chunk)
                if size >= _COALESCE:
                    message = ("d", b"".join(pending))
                    pending, size = [], 0
                    going = await loop.run_in_executor(None, worker.exchange, message)
                    if not going:
                        break
            if pending and going:
                await loop.run_in_executor(None, worker.exchange, ("d", b"".join(pending)))
            result = await loop.run_in_executor(None, worker.exchange, ("c",))
            healthy = True
        except (OSError, EOFError) as exc:
            self._release(worker, False)
            healthy = None
            raise WorkerLost(f"the parse worker ended ({type(exc).__name__})") from None
        finally:
            if healthy:
                self._release(worker, True)
            elif healthy is False:
                # a download that failed halfway leaves the worker inside a document
                done = loop.run_in_executor(None, worker.reset)
                done.add_done_callback(lambda f: self._release(worker, f.result()))
        fmt, fatal, columns, refs, issues, rendered = result
        others: list[SitemapRef | Issue] = [SitemapRef._trusted(loc, lm) for loc, lm in refs]
        others.extend(issues)
        name = self.render[0] if self.render is not None else None
        return fmt, fatal, others, UrlBatch(columns, name, rendered)


async def run_flow(
    flow: Generator[Event, FetchResponse | None, DiscoveryResult],
    fetch: Callable[[FetchRequest], Awaitable[FetchResponse]],
    *,
    concurrency: int = 16,
    on_read: Callable[[SitemapRead], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> DiscoveryResult:
    """Run a discovery flow with up to ``concurrency`` fetches in flight."""
    waiting: deque[FetchRequest] = deque()
    running: set[asyncio.Task[FetchResponse]] = set()
    done = urls = received = 0
    try:
        event = next(flow)
        while True:
            if isinstance(event, FetchRequest):
                waiting.append(event)
                event = flow.send(None)
            elif isinstance(event, SitemapRead):
                urls += len(event.urls)
                if on_read is not None:
                    on_read(event)
                if on_progress is not None:
                    on_progress(Progress(done, len(waiting) + len(running), urls, received))
                event = flow.send(None)
            else:
                while waiting and len(running) < concurrency:
                    running.add(asyncio.ensure_future(fetch(waiting.popleft())))
                finished, _ = await asyncio.wait(running, return_when=asyncio.FIRST_COMPLETED)
                task = finished.pop()
                running.discard(task)
                response = task.result()
                done += 1
                received += response.bytes_received
                if on_progress is not None:
                    on_progress(Progress(done, len(waiting) + len(running), urls, received))
                event = flow.send(response)
    except StopIteration as stop:
        result: DiscoveryResult = stop.value
        return result
    finally:
        for task in running:
            task.cancel()
        if running:
            await asyncio.gather(*running, return_exceptions=True)


async def fetch_sitemaps(
    start: str,
    *,
    discovery: DiscoveryOptions | None = None,
    http: HttpOptions | None = None,
    cache_dir: str | None = None,
    on_read: Callable[[SitemapRead], None] | None = None,
    on_progress: Callable[[Progress], None] | None = None,
    reader_factory: ReaderFactory = _sitemap_reader,
    workers: int = 0,
    render: tuple[str, Render] | None = None,
) -> DiscoveryResult:
    """Discover and read every sitemap of ``start`` (a site, robots.txt or sitemap URL).

    ``workers`` > 0 parses in that many worker processes (``reader_factory`` is then not
    used); ``render`` (a name and a top-level function) has them render the URLs as output
    text too, handed on as ``UrlBatch.rendered``.
    """
    discovery = discovery or DiscoveryOptions()
    http = http or HttpOptions()
    cache = None
    known: dict[str, CacheRecord] | None = None
    if cache_dir is not None:
        from .cache import FetchCache

        cache = FetchCache(cache_dir)
        known = cache.records()
    flow = discover(start, discovery, known)
    pool = ParsePool(workers, render) if workers > 0 else None
    try:
        if pool is not None:
            try:
                await pool.start()
            except (EOFError, OSError):  # a worker could not start: parse here instead
                pool.close()
                pool = None
        return await _run_session(flow, http, cache, reader_factory, pool, on_read, on_progress)
    finally:
        if pool is not None:
            pool.close()


async def _run_session(
    flow: Generator[Event, FetchResponse | None, DiscoveryResult],
    http: HttpOptions,
    cache: FetchCache | None,
    reader_factory: ReaderFactory,
    pool: ParsePool | None,
    on_read: Callable[[SitemapRead], None] | None,
    on_progress: Callable[[Progress], None] | None,
) -> DiscoveryResult:
    connector = aiohttp.TCPConnector(
        limit=http.concurrency, limit_per_host=http.per_host, ttl_dns_cache=300
    )
    timeout = aiohttp.ClientTimeout(
        total=None,
        connect=http.connect_timeout,
        sock_connect=http.connect_timeout,
        sock_read=http.read_timeout,
    )
    async with aiohttp.ClientSession(
        connector=connector,
        timeout=timeout,
        headers={"User-Agent": http.user_agent},
        auto_decompress=True,
    ) as session:
        fetcher = Fetcher(session, http, cache=cache, reader_factory=reader_factory, pool=pool)
        return await run_flow(
            flow,
            fetcher.fetch,
            concurrency=http.concurrency,
            on_read=on_read,
            on_progress=on_progress,
        )


def fetch_sitemaps_sync(
    start: str,
    *,
    discovery: DiscoveryOptions | None = None,
    http: HttpOptions | None = None,
    cache_dir: str | None = None,
    on_read: Callable[[SitemapRead], None] | None = None,
    workers: int = 0,
) -> DiscoveryResult:
    """``fetch_sitemaps`` for code without an event loop."""
    return asyncio.run(
        fetch_sitemaps(
            start,
            discovery=discovery,
            http=http,
            cache_dir=cache_dir,
            on_read=on_read,
            workers=workers,
        )
    )


__all__ = [
    "BODY_TOO_LARGE",
    "DEFAULT_USER_AGENT",
    "Fetcher",
    "HttpOptions",
    "ParsePool",
    "Progress",
    "ReaderLike",
    "RetryPolicy",
    "UrlBatch",
    "fetch_sitemaps",
    "fetch_sitemaps_sync",
    "fork_is_safe",
    "parse_retry_after",
    "run_flow",
]

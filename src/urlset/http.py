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
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
from collections import deque
from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urljoin, urlsplit

import aiohttp

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
from .errors import InvalidValue
from .limits import ReadLimits
from .model import Issue, Severity, SitemapRef, Url
from .urls import to_uri

if TYPE_CHECKING:
    from .fetchcache import FetchCache

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
_STOP_CODES = frozenset({"decompressed-size-limit", "entry-limit", "too-many-errors"})
_KEPT_HEADERS = ("ETag", "Last-Modified", "Content-Type", "Content-Encoding", "Retry-After")


class ReaderLike(Protocol):
    """What the driver needs of the reader (urlset.reader.SitemapReader)."""

    def feed(self, data: bytes) -> list[Url | SitemapRef | Issue]: ...

    def close(self) -> list[Url | SitemapRef | Issue]: ...

    @property
    def format(self) -> str | None: ...

    @property
    def fatal(self) -> bool: ...


# (source URL, base URL for relative locs, limits) -> a fresh reader
ReaderFactory = Callable[[str, str, ReadLimits], ReaderLike]


def _sitemap_reader(source: str, base_url: str, limits: ReadLimits) -> ReaderLike:
    from .reader import SitemapReader

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
    ) -> None:
        self.session = session
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
            try:
                async with deadline:
                    response = await self._once(request, headers, issues)
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
            except TimeoutError:
                if deadline.expired():
                    return self._failed(
                        request,
                        FETCH_TIMEOUT,
                        f"the download took longer than {self.options.total_timeout:g} s "
                        "(whole-download timeout); cut off",
                        issues,
                        attempt,
                    )
                failure = (
                    f"no data for {self.options.read_timeout:g} s or could not connect in "
                    f"{self.options.connect_timeout:g} s",
                    FETCH_TIMEOUT,
                    None,
                )
            except (aiohttp.ClientError, OSError) as exc:
                failure = (_describe(exc), FETCH_FAILED, None)
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
            if attempt >= policy.attempts:
                return self._failed(request, code, reason, issues, attempt)
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
        self, request: FetchRequest, conditional: Mapping[str, str], issues: list[Issue]
    ) -> FetchResponse:
        """One attempt: follow redirects, then read the answer."""
        current = request.url
        visited = [current]
        origin = _host(request.url)
        redirect_issues: list[Issue] = []
        for _ in range(self.options.max_redirects + 1):
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
                    if _host(target) != origin and not any(
                        i.code == CROSS_HOST_REDIRECT for i in redirect_issues
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
        reader = self.reader_factory(request.url, url, limits)
        items: list[Url | SitemapRef | Issue] = []
        received = 0
        try:
            async for chunk in resp.content.iter_any():
                received += len(chunk)
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
                new = reader.feed(chunk)
                if new:
                    items.extend(new)
                    # the reader stops consuming at a limit; stop downloading too
                    if any(type(i) is Issue and i.code in _STOP_CODES for i in new[-4:]):
                        break
                if reader.fatal:
                    break
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError) as exc:
            raise _retry_for(exc) from None
        items.extend(reader.close())
        media = _media_type(headers)
        if (
            media
            and media not in _SITEMAP_TYPES
            and not media.endswith("+xml")
            and reader.format not in ("html", "unknown", None)
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
            format=reader.format,
            fatal=reader.fatal,
            issues=issues,
            bytes_received=received,
        )
        if self.cache is not None and not reader.fatal and reader.format not in ("html", "unknown"):
            self.cache.store(
                request.url,
                final_url=url,
                headers=headers,
                index_lastmod=request.index_lastmod,
                format=reader.format,
                items=items,
            )
        return response


def _retry_for(exc: BaseException) -> _Retry:
    if isinstance(exc, TimeoutError):
        return _Retry(f"no data for a while during the body ({_describe(exc)})", FETCH_TIMEOUT)
    return _Retry(_describe(exc), FETCH_FAILED)


def _describe(exc: BaseException) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    if isinstance(exc, aiohttp.ClientPayloadError):
        return f"the body ended early ({text or name}): connection reset or truncated"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"could not connect ({exc.os_error.strerror or text or name})"
    return f"{name}: {text}" if text else name


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
) -> DiscoveryResult:
    """Discover and read every sitemap of ``start`` (a site, robots.txt or sitemap URL)."""
    discovery = discovery or DiscoveryOptions()
    http = http or HttpOptions()
    cache = None
    known: dict[str, CacheRecord] | None = None
    if cache_dir is not None:
        from .fetchcache import FetchCache

        cache = FetchCache(cache_dir)
        known = cache.records()
    flow = discover(start, discovery, known)
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
        fetcher = Fetcher(session, http, cache=cache, reader_factory=reader_factory)
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
) -> DiscoveryResult:
    """``fetch_sitemaps`` for code without an event loop."""
    return asyncio.run(
        fetch_sitemaps(start, discovery=discovery, http=http, cache_dir=cache_dir, on_read=on_read)
    )


__all__ = [
    "BODY_TOO_LARGE",
    "DEFAULT_USER_AGENT",
    "Fetcher",
    "HttpOptions",
    "Progress",
    "ReaderLike",
    "RetryPolicy",
    "fetch_sitemaps",
    "fetch_sitemaps_sync",
    "parse_retry_after",
    "run_flow",
]

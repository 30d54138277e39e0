"""Reading an HTTP answer: a robots.txt's bytes, or a sitemap streamed into a reader.

In: the response the Fetcher settled on (redirects followed), the lean client's or
aiohttp's. Out: a FetchResponse with the reader's events (parsed on the event loop, or on
the ParsePool's threads) and the driver's findings (too large, content type); a 304
answered from the cache, which also stores each sitemap read. Raises Retry for a 429/5xx
or a body cut short, Unconditional when a 304's stored result is gone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..codes import plural
from ..limits import ReadLimits
from ..model import Issue, Severity, SitemapRef, Url
from .failures import Retry, Unconditional, body_errors, retry_for
from .http_options import HttpOptions, parse_retry_after
from .issues import CONTENT_TYPE, FETCH_PARTIAL, HTTP_STATUS, fetch_issue
from .parse_pool import ParsePool
from .values import FetchRequest, FetchResponse

if TYPE_CHECKING:
    import aiohttp

    from .cache import FetchCache
    from .h1 import LeanResponse

    # an answer as aiohttp or the lean client (h1.py) gives it
    Response = aiohttp.ClientResponse | LeanResponse

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
_KEPT_HEADERS = (
    "ETag",
    "Last-Modified",
    "Content-Type",
    "Content-Encoding",
    "Retry-After",
    "X-Robots-Tag",
)
_HTML_TYPES = ("text/html", "application/xhtml+xml")


class ReaderLike(Protocol):
    """What the driver needs of the reader (urlset.reading.reader.SitemapReader)."""

    def feed(self, data: bytes) -> list[Url | SitemapRef | Issue]: ...

    def close(self) -> list[Url | SitemapRef | Issue]: ...

    @property
    def format(self) -> str | None: ...

    @property
    def fatal(self) -> bool: ...

    @property
    def done(self) -> bool:
        """True once the reader has stopped early (a limit, fatal input): feed no more."""
        ...


# (source URL, base URL for relative locs, limits) -> a fresh reader
ReaderFactory = Callable[[str, str, ReadLimits], ReaderLike]


def sitemap_reader(source: str, base_url: str, limits: ReadLimits) -> ReaderLike:
    from ..reading.reader import SitemapReader

    reader: ReaderLike = SitemapReader(source, base_url=base_url, limits=limits)
    return reader


def _kept(headers: Mapping[str, str]) -> dict[str, str]:
    return {name: headers[name] for name in _KEPT_HEADERS if name in headers}


def _content_type_issue(headers: Mapping[str, str], fmt: str | None, url: str) -> Issue | None:
    """A warning when a readable sitemap came with a type a sitemap is not served as."""
    media = headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
    if (
        media
        and media not in _SITEMAP_TYPES
        and not media.endswith("+xml")
        and fmt not in ("html", "unknown", None)
    ):
        return fetch_issue(
            CONTENT_TYPE,
            Severity.WARNING,
            f"served as {media}; a sitemap should be served as XML, text or gzip",
            url,
        )
    return None


@dataclass(slots=True)
class _Body:
    """One sitemap body being read: its size so far, and the answers made of it."""

    request: FetchRequest
    url: str
    status: int
    headers: dict[str, str]
    issues: list[Issue]
    cut: list[FetchResponse]  # told what was read when the body is cut off
    limits: ReadLimits
    received: int = 0

    def count(self, size: int) -> bool:
        """Count a chunk (after the reader was fed it); False once the body is over the size
        limit (a backstop: the reader's own limit stops it first)."""
        self.received += size
        return self.received <= self.limits.max_decompressed_bytes

    def keep(
        self,
        fmt: str | None,
        items: list[Url | SitemapRef | Issue],
        urls: Sequence[Url] | None = None,
    ) -> None:
        """What was read before the body was cut off (a reset, a timeout)."""
        self.cut.append(
            FetchResponse(
                self.request,
                self.url,
                self.status,
                self.headers,
                items=items,
                format=fmt,
                issues=list(self.issues),
                bytes_received=self.received,
                urls=urls,
            )
        )


class BodyReading:
    """The Fetcher's reading of an answer (a mixin: the Fetcher sets these attributes)."""

    options: HttpOptions
    cache: FetchCache | None
    pool: ParsePool | None
    reader_factory: ReaderFactory

    def _from_cache(
        self, request: FetchRequest, url: str, status: int | None, headers: Mapping[str, str]
    ) -> FetchResponse:
        """The stored result; ``status`` is the answer's (304), None when nothing was asked."""
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

    async def _answer(
        self,
        request: FetchRequest,
        url: str,
        resp: Response,
        issues: list[Issue],
        conditional: Mapping[str, str],
        cut: list[FetchResponse],
    ) -> FetchResponse:
        """The answer read; a body cut off midway leaves what was read of it in ``cut``."""
        status = resp.status
        headers = _kept(resp.headers)
        if status == 429 or status >= 500:
            raise Retry(
                f"HTTP {status}",
                HTTP_STATUS,
                parse_retry_after(resp.headers.get("Retry-After")),
            )
        if status == 304 and conditional:
            if request.kind == "robots":
                cached = self._robots_from_cache(request, url, headers)
            else:
                cached = self._from_cache(request, url, 304, headers)
            if cached.error is not None:
                raise Unconditional
            cached.issues = issues
            return cached
        if not 200 <= status < 300:
            return FetchResponse(request, url, status, headers, issues=issues)
        if request.kind == "robots":
            return await self._robots(request, url, resp, headers, issues)
        if request.kind == "page":
            return await self._page(request, url, resp, headers, issues)
        return await self._sitemap(request, url, resp, headers, issues, cut)

    def _robots_from_cache(
        self, request: FetchRequest, url: str, headers: Mapping[str, str]
    ) -> FetchResponse:
        body = self.cache.load_robots(request.url) if self.cache is not None else None
        if body is None:
            return FetchResponse(request, url, None, error="no stored robots.txt in the cache")
        return FetchResponse(request, url, 304, headers, body=body, from_cache=True)

    async def _robots(
        self,
        request: FetchRequest,
        url: str,
        resp: Response,
        headers: dict[str, str],
        issues: list[Issue],
    ) -> FetchResponse:
        body, truncated = await _capped(resp, self.options.max_robots_bytes)
        if self.cache is not None and not truncated:
            self.cache.store_robots(request.url, headers=headers, body=body)
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

    async def _page(
        self,
        request: FetchRequest,
        url: str,
        resp: Response,
        headers: dict[str, str],
        issues: list[Issue],
    ) -> FetchResponse:
        """An HTML page's bytes (up to ``max_page_bytes``); a body of another type is not
        read (its Content-Type says what it was)."""
        media = headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        body, truncated = b"", False
        if media in _HTML_TYPES:
            body, truncated = await _capped(resp, self.options.max_page_bytes)
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
        resp: Response,
        headers: dict[str, str],
        issues: list[Issue],
        cut: list[FetchResponse],
    ) -> FetchResponse:
        limits = self.options.read_limits
        body = _Body(request, url, resp.status, headers, issues, cut, limits)
        urls: Sequence[Url] | None = None
        items: list[Url | SitemapRef | Issue]
        try:
            if self.pool is not None:
                fmt, fatal, others, urls = await self.pool.parse(
                    request.url, url, limits, resp.content.iter_any(), body.count, body.keep
                )
                items = list(others)
            else:
                fmt, fatal, items = await self._read_here(request, url, resp, body.count, body.keep)
        except body_errors() as exc:
            raise retry_for(exc) from None
        if not fatal and not resp.content.at_eof():
            issues = [*issues, _stopped_early(body, limits, items, urls, url)]
        wrong_type = _content_type_issue(headers, fmt, url)
        if wrong_type is not None:
            issues = [*issues, wrong_type]
        response = FetchResponse(
            request,
            url,
            resp.status,
            headers,
            items=items,
            format=fmt,
            fatal=fatal,
            issues=issues,
            bytes_received=body.received,
            urls=urls,
        )
        if self.cache is not None and not fatal and fmt not in ("html", "unknown"):
            _store(self.cache, request, url, headers, fmt, items, urls)
        return response

    async def _read_here(
        self,
        request: FetchRequest,
        url: str,
        resp: Response,
        count: Callable[[int], bool],
        keep: Callable[[str | None, list[Url | SitemapRef | Issue]], None],
    ) -> tuple[str | None, bool, list[Url | SitemapRef | Issue]]:
        """Feed the body to a reader in this process, chunk by chunk as it arrives; when the
        body is cut off, ``keep`` is given what was read."""
        reader = self.reader_factory(request.url, url, self.options.read_limits)
        items: list[Url | SitemapRef | Issue] = []
        try:
            async for chunk in resp.content.iter_any():
                new = reader.feed(chunk)
                if new:
                    items.extend(new)
                # the reader stops at a limit or on fatal input: stop downloading too
                if reader.done or reader.fatal or not count(len(chunk)):
                    break
        except BaseException:  # a reset, a timeout, the run's deadline: keep what was read
            if not reader.fatal:
                items.extend(reader.close())
                keep(reader.format, items)
            raise
        items.extend(reader.close())
        return reader.format, reader.fatal, items


def _stopped_early(
    body: _Body,
    limits: ReadLimits,
    items: Sequence[Url | SitemapRef | Issue],
    urls: Sequence[Url] | None,
    url: str,
) -> Issue:
    """The download was stopped before the body's end, because the reader stopped (or, as a
    backstop, the body passed the size limit): what was read is kept, labelled partial."""
    kept = len(urls or ()) + sum(1 for i in items if type(i) is not Issue)
    stops = [i.code for i in items if type(i) is Issue and i.severity is Severity.ERROR]
    if stops:
        why = f"the reader stopped ({stops[-1]})"
    elif body.received > limits.max_decompressed_bytes:
        why = (
            f"the body is larger than {limits.max_decompressed_bytes:,} bytes "
            "(after Content-Encoding)"
        )
    else:
        why = "the reader stopped"
    return fetch_issue(
        FETCH_PARTIAL,
        Severity.ERROR,
        f"{why}, so the download was stopped after {plural(body.received, 'byte')}; "
        f"{plural(kept, 'entry', 'entries')} read {'is' if kept == 1 else 'are'} kept",
        url,
    )


async def _capped(resp: Response, limit: int) -> tuple[bytes, bool]:
    """The body's first ``limit`` bytes, and whether there was more (not downloaded)."""
    parts: list[bytes] = []
    size = 0
    try:
        async for chunk in resp.content.iter_any():
            parts.append(chunk)
            size += len(chunk)
            if size > limit:
                return b"".join(parts)[:limit], True
    except body_errors() as exc:
        raise retry_for(exc) from None
    return b"".join(parts), False


def _store(
    cache: FetchCache,
    request: FetchRequest,
    url: str,
    headers: dict[str, str],
    fmt: str | None,
    items: list[Url | SitemapRef | Issue],
    urls: Sequence[Url] | None,
) -> None:
    """Keep a sitemap's validators and entries for the next run's conditional fetch."""
    cache.store(
        request.url,
        final_url=url,
        headers=headers,
        index_lastmod=request.index_lastmod,
        format=fmt,
        items=items,
        urls=urls or (),
    )

"""A polite crawler: a running site -> build entries (driver over the fetcher's HTTP layer).

It starts from the start URL (and, unless told not to, the URLs of the site's existing
sitemaps, found by the fetcher's discovery flow), follows the links of each HTML page that
stay on the site (the start URL's scheme, host, port and directory, plus hosts it is
explicitly given), and lists every page that answered 2xx with HTML, may be indexed
(``<meta name="robots">``, ``X-Robots-Tag``) and is its own canonical URL.

Politeness: robots.txt is read first (protego) and a disallowed URL is never requested;
its Crawl-delay (or ``rate``, whichever is slower) spaces requests; ``concurrency`` bounds
requests in flight; links of a ``nofollow`` page and ``rel="nofollow"`` links are not
followed. Limits: ``max_depth`` (links from the start page), ``max_pages`` (requests) and
``max_seconds`` (the whole crawl: downloads under way are cut off). A robots.txt that
answers 5xx or not at all stops the crawl before it starts (RFC 9309 2.3.1.4: assume
everything is disallowed).

Every request goes through ``fetching.Fetcher`` (timeouts, retries with backoff and
Retry-After, redirects followed by hand with loops caught, the body capped at
``HttpOptions.max_page_bytes``). A page is listed under the URL it was finally served at;
a redirect that leaves the site is reported, never followed further.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..codes import plural
from ..dates import parse_http_date
from ..errors import InputError, InvalidValue
from ..fetching.discovery import DiscoveryOptions, discover
from ..fetching.fetcher import Fetcher
from ..fetching.http import client_session, run_flow
from ..fetching.http_options import HttpOptions
from ..fetching.running import run_loop
from ..fetching.values import FetchRequest, FetchResponse, SitemapRead
from ..model import Url
from ..patterns import lazy
from ..urls import to_uri
from .entries import Row, page_entry, same_url
from .page import PageFacts, read_page
from .report import SourceError, SourceReport

_ESCAPE = lazy(r"%([0-9A-Fa-f]{2})")
CRAWL_USER_AGENT = "urlset/0.1 (sitemap crawler; +https://www.sitemaps.org/protocol.html)"
_BATCH = 2048


def _crawl_http() -> HttpOptions:
    return HttpOptions(user_agent=CRAWL_USER_AGENT, total_timeout=60.0)


@dataclass(frozen=True, slots=True)
class CrawlOptions:
    """How far and how fast to crawl (see the module's docstring)."""

    concurrency: int = 8
    rate: float | None = None  # requests a second at most (robots.txt's Crawl-delay also holds)
    max_depth: int | None = None
    max_pages: int = 10_000
    max_seconds: float | None = None
    images: bool = False
    sitemaps: bool = True
    hosts: tuple[str, ...] = ()  # other hosts (host or host:port) the crawl may enter
    http: HttpOptions = field(default_factory=_crawl_http)


@dataclass(frozen=True, slots=True)
class CrawledPage:
    """A page to list: the URL it was served at, lastmod from Last-Modified, its facts
    (without its links), the depth it was found at."""

    url: str
    lastmod: str | None
    facts: PageFacts
    depth: int


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")


def _escape(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _UNRESERVED else "%" + match.group(1).upper()


def _without_dot_segments(path: str) -> str:
    """RFC 3986 5.2.4: "." and ".." segments resolved."""
    out: list[str] = []
    segments = path.split("/")
    for i, segment in enumerate(segments):
        last = i == len(segments) - 1
        if segment == ".":
            if last:
                out.append("")
        elif segment == "..":
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
        else:
            out.append(segment)
    return "/".join(out) or "/"


def robots_form(url: str) -> str:
    """``url`` as a crawler compares and requests it: escapes of unreserved characters
    decoded (``%2e`` is ".", ``%70`` is "p"), the rest in upper case, and then the dot
    segments resolved (RFC 3986 6.2.2), so that no spelling of a disallowed path
    (``/public/%2e%2e/private/``, ``/public/.%2E/private/``, ``/%70rivate/``) passes the
    robots.txt test as another path. A URL that is not one is given back as it is."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    path = _without_dot_segments(_ESCAPE.sub(_escape, parts.path))
    query = _ESCAPE.sub(_escape, parts.query)
    return urlunsplit((parts.scheme, parts.netloc, path, query, ""))


def http_date_lastmod(value: str | None) -> str | None:
    """A Last-Modified header as a W3C Datetime; None when absent or unreadable."""
    when = parse_http_date(value) if value else None
    return None if when is None else when.astimezone(UTC).isoformat(timespec="seconds")


class Crawl:
    """One crawl of ``start``: ``run()`` (async) or ``run_sync()`` fills ``pages`` and
    ``report``; ``batches()`` gives the build its entries."""

    def __init__(self, start: str, options: CrawlOptions = CrawlOptions()) -> None:
        try:
            start = to_uri(start if "://" in start else "https://" + start, field="site")
        except InvalidValue as exc:
            raise SourceError(f"cannot crawl {start!r}: {exc.reason}") from exc
        parts = urlsplit(start)
        self.start = start if parts.path else start + "/"
        self.origin = f"{parts.scheme}://{parts.netloc}"
        directory = (parts.path or "/").rpartition("/")[0] + "/"
        others = [f"{scheme}://{host}/" for host in options.hosts for scheme in ("https", "http")]
        self.prefixes = (self.origin + directory, *others)
        self.options = options
        self.report = SourceReport(self.start)
        self.pages: list[CrawledPage] = []
        self.failed = 0  # pages that could not be read (5xx, timeouts, connection errors)
        self.requested = 0
        self.seen: set[str] = set()
        self._queue: asyncio.Queue[tuple[str, int]] = asyncio.Queue()
        self._robots: Any = None  # protego.Protego once read
        self._interval = 1.0 / options.rate if options.rate else 0.0
        self._next_slot = 0.0
        self._ends: float | None = None
        self._unvisited = 0

    def in_scope(self, url: str) -> bool:
        return url.startswith(self.prefixes)

    def _refused_target(self, target: str) -> str | None:
        """Why a redirect to ``target`` is not followed (decided before it is requested)."""
        target = robots_form(target)
        if not self.in_scope(target):
            return "redirected off the site (not requested)"
        if self._robots is not None and not self._robots.can_fetch(
            target, self.options.http.user_agent
        ):
            return "redirected to a URL robots.txt disallows (not requested)"
        return None

    def run_sync(self) -> list[CrawledPage]:
        return run_loop(self.run())

    async def run(self) -> list[CrawledPage]:
        options = self.options
        http = options.http
        http = replace(http, concurrency=options.concurrency, per_host=options.concurrency)
        if options.max_seconds is not None:
            http = replace(http, deadline=options.max_seconds)
            self._ends = time.monotonic() + options.max_seconds
        # the start and the hosts it may enter may be private (a staging site); the rest not
        async with client_session(http, self.prefixes) as session:
            fetcher = Fetcher(session, http, may_follow=self._refused_target)
            await self._read_robots(fetcher)
            self._discover(self.start, 0)
            if options.sitemaps:
                await self._seed_from_sitemaps(fetcher)
            workers = [
                asyncio.create_task(self._worker(fetcher)) for _ in range(options.concurrency)
            ]
            try:
                await self._queue.join()
            finally:
                for worker in workers:
                    worker.cancel()
                await asyncio.gather(*workers, return_exceptions=True)
        self._notes()
        return self.pages

    def batches(self) -> Iterator[list[Url | Row | InputError]]:
        batch: list[Url | Row | InputError] = []
        for page in self.pages:
            batch.append(
                page_entry(page.url, page.url, page.lastmod, page.facts, images=self.options.images)
            )
            if len(batch) >= _BATCH:
                yield batch
                batch = []
        if batch:
            yield batch

    async def _read_robots(self, fetcher: Fetcher) -> None:
        from protego import Protego

        url = self.origin + "/robots.txt"
        response = await fetcher.fetch(FetchRequest(url, kind="robots", probe=True))
        status = response.status
        if status is None or status >= 500:
            why = response.error or f"HTTP {status}"
            raise SourceError(
                f"{url}: robots.txt could not be read ({why}); a crawler must then assume "
                "the whole site is disallowed (RFC 9309), so nothing was crawled"
            )
        if 200 <= status < 300:
            self._robots = Protego.parse(response.body.decode("utf-8-sig", errors="replace"))
            agent = self.options.http.user_agent
            delay = self._robots.crawl_delay(agent)
            if delay:
                self._interval = max(self._interval, float(delay))
                self.report.notes.append(f"robots.txt asks for {float(delay):g} s between requests")

    async def _seed_from_sitemaps(self, fetcher: Fetcher) -> None:
        """The URLs of the site's existing sitemaps (robots.txt Sitemap: lines, else the
        usual locations) join the crawl as if linked from the start page."""
        found = 0

        def collect(event: SitemapRead) -> None:
            nonlocal found
            for url in event.urls:
                found += 1
                self._discover(url.loc, 1)

        discovery = DiscoveryOptions(max_urls=self.options.max_pages, max_sitemaps=100)
        await run_flow(discover(self.origin + "/", discovery), fetcher.fetch, on_read=collect)
        if found:
            self.report.notes.append(f"{plural(found, 'URL')} found in the site's sitemaps")

    def _discover(self, url: str, depth: int) -> None:
        """A URL found (a link, a canonical, a sitemap entry): queued once if it may be
        crawled, in the form it is tested against robots.txt and requested in."""
        url = robots_form(url)
        if url in self.seen:
            return
        self.seen.add(url)
        if not self.in_scope(url):
            return
        if self._robots is not None and not self._robots.can_fetch(
            url, self.options.http.user_agent
        ):
            self.report.leave_out("disallowed by robots.txt (not requested)", url)
            return
        self._queue.put_nowait((url, depth))

    async def _worker(self, fetcher: Fetcher) -> None:
        while True:
            url, depth = await self._queue.get()
            try:
                if self._may_request():
                    await self._visit(fetcher, url, depth)
                else:
                    self._unvisited += 1
            except Exception as exc:  # a page must not end the crawl
                self.failed += 1
                self.report.leave_out("could not be read", f"{url} (internal error: {exc!r})")
            finally:
                self._queue.task_done()

    def _may_request(self) -> bool:
        if self.requested >= self.options.max_pages:
            return False
        return self._ends is None or time.monotonic() < self._ends

    async def _turn(self) -> None:
        """Wait for this request's slot: requests are spaced by the rate or Crawl-delay."""
        if self._interval <= 0:
            return
        now = time.monotonic()
        slot = max(now, self._next_slot)
        self._next_slot = slot + self._interval
        if slot > now:
            await asyncio.sleep(slot - now)

    async def _visit(self, fetcher: Fetcher, url: str, depth: int) -> None:
        await self._turn()
        if not self._may_request():
            self._unvisited += 1
            return
        self.requested += 1
        response = await fetcher.fetch(FetchRequest(url, kind="page"))
        final = self._answered(url, response)
        if final is None:
            return
        facts = read_page(
            response.body,
            final,
            links=True,
            images=self.options.images,
            header_robots=response.headers.get("X-Robots-Tag"),
        )
        max_depth = self.options.max_depth
        if not facts.nofollow and (max_depth is None or depth < max_depth):
            for link in facts.links:
                self._discover(link, depth + 1)
        if facts.noindex:
            self.report.leave_out('noindex (<meta name="robots"> or X-Robots-Tag)', final)
        elif facts.canonical is not None and not same_url(facts.canonical, final):
            self.report.leave_out("canonical is another URL", f"{final} -> {facts.canonical}")
            self._discover(facts.canonical, depth)
        else:
            lastmod = http_date_lastmod(response.headers.get("Last-Modified"))
            self.pages.append(CrawledPage(final, lastmod, replace(facts, links=()), depth))
            self.report.entries += 1

    def _answered(self, url: str, response: FetchResponse) -> str | None:
        """The URL a page was served at when it is one to read; None (reported) otherwise."""
        if response.unfollowed is not None:
            self.report.leave_out(response.error or "redirect", f"{url} -> {response.unfollowed}")
            return None
        status = response.status
        if status is None or status >= 500 or status == 429:
            self.failed += 1
            self.report.leave_out("could not be read", f"{url} ({response.error or status})")
            return None
        if not 200 <= status < 300:
            self.report.leave_out(f"HTTP {status}", url)
            return None
        final = robots_form(response.url)
        if final != url:
            if not self.in_scope(final):  # not reached: may_follow stops it at the redirect
                self.report.leave_out("redirected off the site (not requested)", final)
                return None
            if final in self.seen:  # listed (or to be) under its own URL
                return None
            self.seen.add(final)
        if not response.body:
            media = response.headers.get("Content-Type", "no Content-Type")
            self.report.leave_out("not an HTML page", f"{final} ({media})")
            return None
        if response.truncated:
            self.report.notes.append(f"{final}: cut off at {plural(len(response.body), 'byte')}")
        return final

    def _notes(self) -> None:
        if self._unvisited:
            limit = (
                f"--max-pages {self.options.max_pages:,}"
                if self.requested >= self.options.max_pages
                else "the time limit"
            )
            self.report.notes.append(
                f"{plural(self._unvisited, 'URL')} found "
                f"{'was' if self._unvisited == 1 else 'were'} not requested: {limit} was reached"
            )
        self.report.notes.append(f"{plural(self.requested, 'page')} requested")

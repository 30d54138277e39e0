"""The HTTP driver: runs the discovery flow (discovery.py) over the lean client or aiohttp.

The lean HTTP/1.1 client (h1.py, standard library only) makes every request it can speak,
and leaves the rest to an aiohttp session made on first need (``HttpOptions.lean`` False:
aiohttp for every request). A tiny site's fetch then never imports aiohttp, most of what it
cost to start (BENCHMARKS.md, "Fetch start-up").

Each fetch is short: connect, follow redirects by hand (to see loops and host changes),
stream the body chunk by chunk into a SitemapReader, hand the reader's events back to the
flow. What the core cannot know lives here: timeouts, retries, concurrency, the cache.

- Timeouts: ``connect_timeout`` bounds connecting, ``read_timeout`` each wait for data, and
  ``total_timeout`` the whole download including redirects and the waits between attempts
  (a server that drips bytes forever is cut off). A whole-download timeout is not retried;
  the others are. ``deadline`` bounds the whole run: downloads under way are cut off, and
  requests not yet sent are answered at once as not requested.
- Retries: connection errors, read/connect timeouts, 5xx and 429, with exponential backoff
  and jitter, or the server's Retry-After (capped); a wait that would pass the timeout is
  not begun. Never other 4xx, nor what would fail the same at once (failures.py): a
  connection refused, a name DNS has no address for, a failed TLS handshake or a rejected
  certificate, a Content-Encoding that cannot be decoded, a Retry-After past the cap.
- Cut off: the entries read of a body before a reset or a timeout are kept (the most an
  attempt read), labelled partial.
- Memory: the body is never held whole; the reader decompresses and parses as chunks come.
  A body decoded from Content-Encoding is counted here against the reader's
  decompressed-size limit; a gzip file inside that encoding is the reader's to unpack.
- Cores: with ``workers`` > 0 the readers run on a ParsePool's parse threads
  (parse_pool.py; the scan and gzip inflation release the GIL); the event loop keeps all
  the I/O.

    fetch_sitemaps(start, ...)      the whole run: discovery flow + Fetcher (+ ParsePool)
    run_flow(flow, fetch, ...)      any flow, any async fetch function, N in flight
    Fetcher.fetch(request)          one FetchRequest -> FetchResponse; never raises

The parts: ``http_options`` (HttpOptions, RetryPolicy), ``fetcher`` (per-host limits,
redirects, retries), ``failures`` (what is retried, how a failure reads), ``body`` (reading
an answer into a reader, the cache), ``parse_pool`` (the parse threads), ``h1`` and ``wire``
(the lean client), ``aio`` (the aiohttp session); here the run itself, re-exporting the
names callers import from this module.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable, Generator, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..reading.output import Render
from .body import ReaderFactory, ReaderLike, sitemap_reader
from .discovery import discover
from .fetcher import Fetcher
from .h1 import LeanSession
from .http_options import DEFAULT_USER_AGENT, HttpOptions, RetryPolicy, parse_retry_after
from .parse_pool import ParsePool, UrlBatch
from .running import run_loop
from .values import (
    CacheRecord,
    DiscoveryOptions,
    DiscoveryResult,
    Event,
    FetchRequest,
    FetchResponse,
    SitemapRead,
)

if TYPE_CHECKING:
    import aiohttp

    from .cache import FetchCache


@dataclass(frozen=True, slots=True)
class Progress:
    done: int
    queued: int
    urls: int
    bytes: int


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
    reader_factory: ReaderFactory = sitemap_reader,
    workers: int = 0,
    render: tuple[str, Render | None] | None = None,
    rendered_only: bool = False,
    columns: bool = False,
    values: bool = False,
) -> DiscoveryResult:
    """Discover and read every sitemap of ``start`` (a site, robots.txt or sitemap URL).

    ``workers`` > 0 parses on that many parse threads; ``render`` (a name and a function)
    has them render the URLs as output text too, handed on as ``UrlBatch.rendered``;
    ``rendered_only``: the render lane reads canonical records straight into that text (on
    the event loop when ``workers`` is 0), and nothing but the text holds them unless asked
    for: with
    ``columns`` into Arrow record batches too (``UrlBatch.batches``, for a snapshot store);
    with ``values`` into UrlColumns too (``UrlBatch.columns``: for a report, the cache or any
    other reader of the Urls). ``reader_factory`` is used only without either.
    """
    discovery = discovery or DiscoveryOptions()
    http = http or HttpOptions()
    if discovery.since is not None:  # entries are chosen by their lastmod: Url values, no text
        render, rendered_only, columns, values = None, False, False, True
    cache = None
    known: dict[str, CacheRecord] | None = None
    if cache_dir is not None:
        from .cache import FetchCache

        cache = FetchCache(cache_dir)
        known = cache.records()
    flow = discover(start, discovery, known)
    # with no parse thread, the render lane still runs (on the event loop) when it may
    pool = (
        ParsePool(workers, render, rendered_only, columns, values)
        if workers > 0 or rendered_only
        else None
    )
    try:
        return await _run_session(
            start, flow, http, cache, reader_factory, pool, on_read, on_progress
        )
    finally:
        if pool is not None:
            pool.close()


def client_session(http: HttpOptions, starts: Iterable[str] = ()) -> aiohttp.ClientSession:
    """The aiohttp session of ``http`` and the run's ``starts`` (aio.py; imports aiohttp)."""
    from .aio import client_session as made

    return made(http, starts)


def lean_session(
    fallback: aiohttp.ClientSession, http: HttpOptions, starts: Iterable[str]
) -> LeanSession:
    """The lean HTTP/1.1 client (h1.py) beside ``fallback``, the session ``client_session``
    made of the same options and starts: the same guard and resolver rules, its own pool."""
    return LeanSession(http, starts, fallback)


async def _run_session(
    start: str,
    flow: Generator[Event, FetchResponse | None, DiscoveryResult],
    http: HttpOptions,
    cache: FetchCache | None,
    reader_factory: ReaderFactory,
    pool: ParsePool | None,
    on_read: Callable[[SitemapRead], None] | None,
    on_progress: Callable[[Progress], None] | None,
) -> DiscoveryResult:
    """The flow run over the lean client (aiohttp made when it leaves a request to it), or
    over aiohttp alone."""
    session: LeanSession | aiohttp.ClientSession
    session = LeanSession(http, (start,)) if http.lean else client_session(http, (start,))
    try:
        fetcher = Fetcher(session, http, cache=cache, reader_factory=reader_factory, pool=pool)
        return await run_flow(
            flow,
            fetcher.fetch,
            concurrency=http.concurrency,
            on_read=on_read,
            on_progress=on_progress,
        )
    finally:
        if isinstance(session, LeanSession):
            await session.aclose()
        else:
            await session.close()


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
    return run_loop(
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
    "parse_retry_after",
    "run_flow",
]

"""A real HTTP server on 127.0.0.1 for the fetch tests, and helpers to build sitemaps.

The server runs aiohttp.web in its own thread and event loop on a free port, so the code
under test runs its own loop (as the CLI does) in the test's thread. It counts requests and
bodies served per path, which is how the tests see retries and conditional requests.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import ssl
import threading
from collections import Counter
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Self

from aiohttp import web

from urlset.fetching.discovery import DiscoveryOptions, DiscoveryResult, SitemapNode, SitemapRead
from urlset.fetching.http import HttpOptions, RetryPolicy, fetch_sitemaps_sync
from urlset.limits import ReadLimits

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
LAST_MODIFIED = "Mon, 01 Jan 2024 00:00:00 GMT"
# the client fast_http's options choose (HttpOptions.lean); the either_client fixture
# (conftest.py) runs a test over both
LEAN = True


def urlset(locs: Iterable[str]) -> bytes:
    body = "".join(f"<url><loc>{loc}</loc></url>\n" for loc in locs)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{body}</urlset>\n'.encode()


def sitemapindex(locs: Iterable[str | tuple[str, str]]) -> bytes:
    parts = []
    for item in locs:
        loc, lastmod = (item, None) if isinstance(item, str) else item
        extra = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
        parts.append(f"<sitemap><loc>{loc}</loc>{extra}</sitemap>\n")
    body = "".join(parts)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {NS}>\n{body}</sitemapindex>\n'
    ).encode()


def gz(data: bytes) -> bytes:
    return gzip.compress(data, mtime=0)


@dataclass
class Served:
    body: bytes
    content_type: str
    headers: dict[str, str] = field(default_factory=dict)
    conditional: bool = True


class ThreadedServer:
    """An aiohttp app in its own thread and event loop on a free loopback port, routing
    ``route_methods`` of every path to ``_dispatch``; used as a context manager."""

    route_methods = "GET"

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        self.ssl_context = ssl_context  # serve https with it
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> Self:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(10)
        return self

    def __exit__(self, *exc: object) -> None:
        asyncio.run_coroutine_threadsafe(self._stop(), self._loop).result(10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    async def _start(self) -> None:
        app = web.Application()
        app.router.add_route(self.route_methods, "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0, ssl_context=self.ssl_context)
        await site.start()
        server: Any = site._server
        self.port = server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        """Stops the runner and finishes every task left on the loop: a handler still sleeping
        after its client went is no longer tracked by aiohttp, and would otherwise be destroyed
        pending with the loop, its socket reported unclosed (an unraisable warning) in
        whichever test runs next."""
        if self._runner is not None:
            await self._runner.cleanup()
        current = asyncio.current_task()
        left = [task for task in asyncio.all_tasks() if task is not current]
        for task in left:
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        await asyncio.sleep(0)  # the cancelled handlers' transports close on the next turn

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        raise NotImplementedError


class LoopbackServer(ThreadedServer):
    """Serves registered files and handlers; unknown paths are 404."""

    def __init__(self, ssl_context: ssl.SSLContext | None = None) -> None:
        super().__init__(ssl_context)
        self.files: dict[str, Served] = {}
        self.handlers: dict[str, Handler] = {}
        self.hits: Counter[str] = Counter()  # requests per path
        self.bodies: Counter[str] = Counter()  # 200 answers with a body, per path
        self.request_headers: dict[str, list[dict[str, str]]] = {}
        self.peers: set[tuple[str, int]] = set()  # the clients' ends: one a connection

    @property
    def base(self) -> str:
        scheme = "http" if self.ssl_context is None else "https"
        return f"{scheme}://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        return self.base + path

    # -- content
    def add(
        self,
        path: str,
        body: bytes,
        content_type: str = "application/xml",
        headers: dict[str, str] | None = None,
        conditional: bool = True,
    ) -> None:
        self.files[path] = Served(body, content_type, headers or {}, conditional)

    def handle(self, path: str, handler: Handler) -> None:
        self.handlers[path] = handler

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        path = request.path
        self.hits[path] += 1
        if request.transport is not None:
            self.peers.add(request.transport.get_extra_info("peername")[:2])
        self.request_headers.setdefault(path, []).append(dict(request.headers))
        handler = self.handlers.get(path)
        if handler is not None:
            return await handler(request)
        served = self.files.get(path)
        if served is None:
            return web.Response(status=404, text="not found", content_type="text/plain")
        etag = '"' + hashlib.sha1(served.body).hexdigest()[:16] + '"'
        if served.conditional:
            # RFC 9110 13.2.2: If-None-Match, when present, decides; If-Modified-Since only without it
            inm = request.headers.get("If-None-Match")
            ims = request.headers.get("If-Modified-Since")
            if (inm == etag) if inm is not None else (ims == LAST_MODIFIED):
                return web.Response(status=304, headers={"ETag": etag})
        self.bodies[path] += 1
        headers = {"Content-Type": served.content_type, **served.headers}
        if served.conditional:
            headers |= {"ETag": etag, "Last-Modified": LAST_MODIFIED}
        return web.Response(body=served.body, headers=headers)


def fast_http(**overrides: Any) -> HttpOptions:
    """Small timeouts and short backoff, so fault tests finish quickly."""
    values: dict[str, Any] = {
        "connect_timeout": 2.0,
        "read_timeout": 1.0,
        "total_timeout": 3.0,
        "retry": RetryPolicy(attempts=3, backoff=0.05, max_backoff=0.2, max_retry_after=2.0),
        # a large value limit, so that a bomb of blanks meets the size limit first
        "read_limits": ReadLimits(max_decompressed_bytes=4_000_000, max_value_length=50_000_000),
        "lean": LEAN,
    }
    values.update(overrides)
    return HttpOptions(**values)


@dataclass
class Run:
    result: DiscoveryResult
    rows: list[tuple[str, str]]  # (loc, sitemap)

    def node(self, url: str) -> SitemapNode:
        for node in self.result.nodes():
            if node.url == url:
                return node
        raise KeyError(url)

    def codes(self, url: str) -> list[str]:
        return [i.code for i in self.node(url).issues]

    def locs_from(self, url: str) -> list[str]:
        return [loc for loc, sitemap in self.rows if sitemap == url]


def run_fetch(
    start: str,
    *,
    http: HttpOptions | None = None,
    discovery: DiscoveryOptions | None = None,
    cache_dir: str | None = None,
    workers: int = 0,
) -> Run:
    rows: list[tuple[str, str]] = []

    def collect(event: SitemapRead) -> None:
        rows.extend((u.loc, event.node.url) for u in event.urls)

    result = fetch_sitemaps_sync(
        start,
        discovery=discovery or DiscoveryOptions(),
        http=http or fast_http(),
        cache_dir=cache_dir,
        on_read=collect,
        workers=workers,
    )
    return Run(result, rows)

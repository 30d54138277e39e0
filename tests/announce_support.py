"""A loopback server that answers as ping and IndexNow endpoints document (any method).

Each path has a script of answers, used in order (the last one repeats): a status, headers,
a body, and a delay before answering (a slow endpoint). Every request is recorded with its
method, query and body, which is how the tests see what was sent.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from test_fetch_support import stop_runner


@dataclass(frozen=True)
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    content_type: str = "text/plain"


@dataclass(frozen=True)
class Seen:
    method: str
    path: str
    query: dict[str, str]
    body: bytes
    headers: dict[str, str]
    raw_path: str = ""  # the path and query as they came on the request line


class Endpoints:
    """aiohttp.web in its own thread on 127.0.0.1; ``script(path, replies)`` sets the answers."""

    def __init__(self) -> None:
        self.scripts: dict[str, list[Reply]] = {}
        self.handlers: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = {}
        self.seen: list[Seen] = []
        self.port = 0
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._runner: web.AppRunner | None = None

    def __enter__(self) -> Endpoints:
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
        app.router.add_route("*", "/{tail:.*}", self._dispatch)
        self._runner = web.AppRunner(app, handle_signals=False, shutdown_timeout=0.5)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server
        self.port = server.sockets[0].getsockname()[1]

    async def _stop(self) -> None:
        await stop_runner(self._runner)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def script(self, path: str, *replies: Reply) -> None:
        self.scripts[path] = list(replies)

    def serve(self, path: str, body: bytes, content_type: str = "application/xml") -> None:
        self.scripts[path] = [Reply(200, body, content_type=content_type)]

    def requests(self, path: str) -> list[Seen]:
        return [s for s in self.seen if s.path == path]

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        body = await request.read()
        self.seen.append(
            Seen(
                request.method,
                request.path,
                dict(request.query),
                body,
                dict(request.headers),
                request.raw_path,
            )
        )
        handler = self.handlers.get(request.path)
        if handler is not None:
            return await handler(request)
        script = self.scripts.get(request.path)
        if not script:
            return web.Response(status=404, text="not found")
        reply = script.pop(0) if len(script) > 1 else script[0]
        if reply.delay:
            await asyncio.sleep(reply.delay)
        return web.Response(
            status=reply.status,
            body=reply.body,
            headers=reply.headers,
            content_type=reply.content_type,
        )

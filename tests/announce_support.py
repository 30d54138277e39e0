"""A loopback server that answers as ping and IndexNow endpoints document (any method).

Each path has a script of answers, used in order (the last one repeats): a status, headers,
a body, and a delay before answering (a slow endpoint). Every request is recorded with its
method, query and body, which is how the tests see what was sent.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from aiohttp import web

from test_fetch_support import ThreadedServer


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


class Endpoints(ThreadedServer):
    """aiohttp.web in its own thread on 127.0.0.1; ``script(path, replies)`` sets the answers."""

    route_methods = "*"

    def __init__(self) -> None:
        super().__init__()
        self.scripts: dict[str, list[Reply]] = {}
        self.handlers: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = {}
        self.seen: list[Seen] = []

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

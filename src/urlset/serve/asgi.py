"""The ASGI driver: a scope in, ``SitemapApp.respond``, the response sent as it streams.

File work (stat, the first hash of a document, reading and compressing chunks, a live
source's snapshot) runs on worker threads, so the event loop never waits on a disk.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator, MutableMapping
from typing import Any

from .app import SitemapApp
from .http import Request, Response

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


def request_of(scope: Scope) -> Request:
    """The request an HTTP scope describes, its path relative to ``root_path`` (a mount)."""
    path: str = scope.get("path", "/")
    root: str = scope.get("root_path", "")
    if root and path.startswith(root):
        path = path[len(root) :]
    headers: dict[str, str] = {}
    for raw_name, raw_value in scope.get("headers", ()):
        name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    query = scope.get("query_string", b"").decode("latin-1")
    return Request(scope.get("method", "GET"), path or "/", headers, query, root)


class AsgiApp:
    """An ASGI 3 application serving ``core`` (lifespan events are answered, others ignored)."""

    def __init__(self, core: SitemapApp) -> None:
        self.core = core

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        response = await asyncio.to_thread(self.core.respond, request_of(scope))
        try:
            await send(
                {
                    "type": "http.response.start",
                    "status": response.status,
                    "headers": [
                        (k.lower().encode(), v.encode("latin-1")) for k, v in response.headers
                    ],
                }
            )
            await _send_body(response, receive, send)
        finally:
            response.close()


async def _send_body(response: Response, receive: Receive, send: Send) -> None:
    if isinstance(response.body, list | tuple):  # already in memory
        for chunk in response.body:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
    else:
        # a client that goes away stops the reading (servers may drop what is sent after)
        gone = asyncio.Event()
        watcher = asyncio.create_task(_watch_disconnect(receive, gone))
        try:
            chunks: Iterator[bytes] = iter(response.body)
            while not gone.is_set():
                chunk = await asyncio.to_thread(next, chunks, None)
                if chunk is None:
                    break
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
        finally:
            watcher.cancel()
        if gone.is_set():
            return
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _watch_disconnect(receive: Receive, gone: asyncio.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass  # the rest of a request body: a GET has none worth reading
    gone.set()


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return

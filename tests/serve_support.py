"""Real servers on loopback for the serve tests: uvicorn (ASGI), waitress and wsgiref (WSGI),
each on a port the system picks, on a thread, stopped when the test ends; apps set once the
server's address is known; a crawler's walk of a served set and `urlset check` of it."""

from __future__ import annotations

import gc
import gzip
import http.client
import json
import socket
import sys
import threading
import time
import types
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

from click.testing import CliRunner

from urlset import SitemapRef, read_bytes
from urlset.cli import main


@contextmanager
def uvicorn_server(app: Any) -> Iterator[str]:
    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
        sock.close()
        gc.collect()


@contextmanager
def waitress_server(app: Callable[..., Any]) -> Iterator[str]:
    from waitress.server import create_server

    server = create_server(app, host="127.0.0.1", port=0, threads=4)
    stopping = threading.Event()

    def run() -> None:
        try:
            server.run()
        except OSError:  # its select() on the socket closed under it, when stopping
            if not stopping.is_set():
                raise

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.effective_port}"
    finally:
        stopping.set()
        server.task_dispatcher.shutdown()
        for channel in list(server._map.values()):  # the listener and open connections
            channel.close()
        thread.join(timeout=20)
        gc.collect()  # a socket left open would warn here, in the test that opened it


@contextmanager
def wsgiref_server(app: Callable[..., Any]) -> Iterator[str]:
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = make_server("127.0.0.1", 0, app, handler_class=Quiet)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=20)
        gc.collect()


def fetch(
    base: str, path: str, method: str = "GET", headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request over a fresh connection: status, headers (lower-case names), raw body."""
    host, port = base.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        connection.request(method, path, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body
    finally:
        connection.close()


CRAWLER = {"Accept-Encoding": "gzip"}


class LaterWsgi:
    """A WSGI app set once the server's address is known (the docs' code names the site,
    which is that address)."""

    app: Any = None

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        return self.app(environ, start_response)


class LaterAsgi:
    """The same for ASGI: lifespan events are answered until the app is set."""

    app: Any = None

    async def __call__(self, scope: Any, receive: Callable[[], Awaitable[Any]], send: Any) -> None:
        if scope["type"] == "lifespan" and self.app is None:
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                else:
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        await self.app(scope, receive, send)


def crawl(base: str, entry: str) -> list[str]:
    """The entry point and every child it names, as a crawler requests them (plain and
    gzip-coded): all 200, each child at the URL the index names; the URLs read."""
    status, _, body = fetch(base, entry)
    assert status == 200, (entry, body[:200])
    assert body == gzip_coded(base, entry)
    entries = list(read_bytes(body))
    refs = [e for e in entries if isinstance(e, SitemapRef)]
    urls = [e.loc for e in entries if not isinstance(e, SitemapRef)]
    for ref in refs:
        assert ref.loc.startswith(base + "/"), ref.loc
        path = ref.loc.removeprefix(base)
        status, _, child = fetch(base, path)
        assert status == 200, (ref.loc, child[:200])
        assert inflated(child) == gzip_coded(base, path)
        urls += [url.loc for url in read_bytes(child)]
    assert urls
    return urls


def inflated(body: bytes) -> bytes:
    return gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body


def gzip_coded(base: str, path: str) -> bytes:
    """The body asked for with Accept-Encoding: gzip, inflated (gzip-coded or a .gz file)."""
    status, headers, body = fetch(base, path, headers=CRAWLER)
    assert status == 200
    if headers.get("content-encoding") == "gzip" or headers["content-type"] == "application/gzip":
        return gzip.decompress(body)
    return body


def check_errors(url: str) -> set[str]:
    """``urlset check URL``: the codes of its errors."""
    result = CliRunner().invoke(main, ["check", url, "--format", "json"])
    assert result.exit_code in (0, 1), result.output
    report = json.loads(result.output)
    return {
        issue["code"]
        for file in report["files"]
        for issue in file["issues"]
        if issue["severity"] == "error"
    }


def configure_django() -> None:
    """Django's settings for every serve test (one configuration per process)."""
    from django.conf import settings

    if not settings.configured:
        settings.configure(
            DEBUG=False,
            SECRET_KEY="urlset-tests",
            ALLOWED_HOSTS=["127.0.0.1"],
            ROOT_URLCONF="urlset_test_django_urls",
            INSTALLED_APPS=["django.contrib.sitemaps"],
            MIDDLEWARE=["django.middleware.common.CommonMiddleware"],
            USE_TZ=True,
            USE_I18N=True,
            LANGUAGE_CODE="en",
            LANGUAGES=[("en", "English"), ("de", "German")],
        )
    import django

    django.setup()


@contextmanager
def django_urls(patterns: list[Any]) -> Iterator[Any]:
    """Django, configured, with ``patterns`` as its URLconf: its WSGI application."""
    configure_django()
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application
    from django.urls import clear_url_caches

    module = types.ModuleType(f"urlset_test_urls_{id(patterns)}")
    module.urlpatterns = patterns  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    previous = settings.ROOT_URLCONF
    settings.ROOT_URLCONF = module.__name__
    clear_url_caches()
    try:
        yield get_wsgi_application()
    finally:
        settings.ROOT_URLCONF = previous
        clear_url_caches()
        del sys.modules[module.__name__]

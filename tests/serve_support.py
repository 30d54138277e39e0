"""Real servers on loopback for the serve tests: uvicorn (ASGI), waitress and wsgiref (WSGI),
each on a port the system picks, on a thread, stopped when the test ends."""

from __future__ import annotations

import gc
import http.client
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


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

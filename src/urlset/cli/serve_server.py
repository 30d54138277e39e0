"""The HTTP server behind ``urlset serve``: the standard library's WSGI server with a bounded
pool of worker threads. Its own module so that wsgiref loads only when a server starts, not
with ``urlset serve --help``.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer


class _Quiet(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # a request line per request is noise in a preview; errors still go to stderr


class PooledServer(WSGIServer):
    """A WSGI server that answers each connection on a fixed pool of threads."""

    daemon_threads = True

    def __init__(self, address: tuple[str, int], workers: int) -> None:
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="urlset-serve")
        super().__init__(address, _Quiet)  # binds: closes the server (and pool) if it fails

    def process_request(self, request: Any, client_address: Any) -> None:
        self._pool.submit(self._answer, request, client_address)

    def _answer(self, request: Any, client_address: Any) -> None:
        try:
            self.finish_request(request, client_address)
        except Exception:
            self.handle_error(request, client_address)
        finally:
            self.shutdown_request(request)

    def server_close(self) -> None:
        super().server_close()
        self._pool.shutdown(wait=True, cancel_futures=True)

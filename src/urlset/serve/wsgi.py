"""The WSGI driver (PEP 3333): an environ in, ``SitemapApp.respond``, the body as an iterable
the server sends chunk by chunk (and closes, which closes the file behind it)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from .app import SitemapApp
from .http import REASONS, Request, Response

StartResponse = Callable[..., Any]


def request_of(environ: dict[str, Any]) -> Request:
    """The request a WSGI environ describes, its path relative to SCRIPT_NAME (a mount)."""
    headers = {
        key[5:].replace("_", "-").lower(): value
        for key, value in environ.items()
        if key.startswith("HTTP_")
    }
    path = environ.get("PATH_INFO", "") or "/"
    method = environ.get("REQUEST_METHOD", "GET")
    query = environ.get("QUERY_STRING", "")
    return Request(method, path, headers, query, environ.get("SCRIPT_NAME", ""))


class _Body:
    """The body as WSGI wants it: iterable, with a ``close`` the server calls at the end."""

    def __init__(self, response: Response) -> None:
        self._response = response

    def __iter__(self) -> Iterator[bytes]:
        return iter(self._response.body)

    def close(self) -> None:
        self._response.close()


class WsgiApp:
    """A WSGI application serving ``core``."""

    def __init__(self, core: SitemapApp) -> None:
        self.core = core

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        response = self.core.respond(request_of(environ))
        status = f"{response.status} {REASONS.get(response.status, 'Unknown')}"
        start_response(status, list(response.headers))
        return _Body(response)

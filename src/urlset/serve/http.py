"""HTTP semantics for serving sitemaps, sans-I/O: requests and responses as values.

Nothing here reads a socket or the clock. The drivers (``asgi``, ``wsgi``) turn what their
server gives into a ``Request``, pass it to ``SitemapApp.respond`` and send the ``Response``
back; a response body is an iterable of byte chunks, so a large shard streams in bounded
memory whichever server sends it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import format_datetime
from functools import lru_cache
from urllib.parse import parse_qs

from ..dates import parse_http_date

CHUNK = 64 * 1024  # bytes read, compressed and sent at a time


@dataclass(frozen=True)
class Request:
    """One request: ``path`` relative to where the app is mounted (starting with "/"),
    ``headers`` with lower-case names (repeated ones joined with ", " as RFC 9110 allows),
    ``root`` the path the app is mounted at ("" at the site's root; decoded, as WSGI's
    SCRIPT_NAME and ASGI's root_path are)."""

    method: str
    path: str
    headers: Mapping[str, str] = field(default_factory=dict)
    query: str = ""
    root: str = ""

    def header(self, name: str) -> str:
        return self.headers.get(name, "")

    def param(self, name: str) -> str | None:
        if not self.query:
            return None
        values = parse_qs(self.query).get(name)
        return values[-1] if values else None


@dataclass
class Response:
    """Status, headers (name, value) in order, and the body as byte chunks (none for HEAD)."""

    status: int
    headers: list[tuple[str, str]]
    body: Iterable[bytes] = ()

    def header(self, name: str) -> str | None:
        lower = name.lower()
        return next((v for k, v in self.headers if k.lower() == lower), None)

    def close(self) -> None:
        """Release what the body holds (an open file) when it is not sent to its end."""
        close = getattr(self.body, "close", None)
        if close is not None:
            close()


REASONS = {
    200: "OK",
    304: "Not Modified",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    408: "Request Timeout",
    413: "Content Too Large",
    414: "URI Too Long",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
    501: "Not Implemented",
    503: "Service Unavailable",
    505: "HTTP Version Not Supported",
}


def plain(status: int, text: str, extra: Iterable[tuple[str, str]] = ()) -> Response:
    """A short text answer (errors, 405)."""
    data = text.encode()
    headers = [
        ("Content-Type", "text/plain; charset=utf-8"),
        ("Content-Length", str(len(data))),
        ("Cache-Control", "no-store"),
        *extra,
    ]
    return Response(status, headers, [data])


@lru_cache(maxsize=1024)
def http_date(moment: datetime) -> str:
    """An IMF-fixdate (RFC 9110 section 5.6.7): ``Wed, 25 Nov 2026 10:00:00 GMT``."""
    return format_datetime(moment.astimezone(UTC).replace(microsecond=0), usegmt=True)


_ETAG = re.compile(r'\s*(?:W/)?("[^"]*"|\*)\s*(?:,|$)')


def etag_matches(if_none_match: str, etag: str) -> bool:
    """Whether an If-None-Match list names ``etag`` (weak comparison, RFC 9110 13.1.2)."""
    position = 0
    while position < len(if_none_match):
        found = _ETAG.match(if_none_match, position)
        if found is None:
            return False  # a malformed list matches nothing: the full answer is safe
        if found[1] == "*" or found[1] == etag:
            return True
        position = found.end()
    return False


def not_modified(request: Request, etag: str, last_modified: datetime | None) -> bool:
    """RFC 9110 13.2.2: If-None-Match decides when present; otherwise If-Modified-Since."""
    if_none_match = request.header("if-none-match")
    if if_none_match:
        return etag_matches(if_none_match, etag)
    since = request.header("if-modified-since")
    if since and last_modified is not None:
        moment = parse_http_date(since)
        return moment is not None and last_modified.replace(microsecond=0) <= moment
    return False


def _weights(header: str) -> dict[str, float]:
    """``Accept``-style list -> token (lower case) -> q value."""
    found: dict[str, float] = {}
    for item in header.split(","):
        token, *params = item.strip().split(";")
        token = token.strip().lower()
        if not token:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        found[token] = q
    return found


def accepts_gzip(request: Request) -> bool:
    """Whether Accept-Encoding allows gzip (``gzip`` or ``*`` with q > 0)."""
    weights = _weights(request.header("accept-encoding"))
    q = weights.get("gzip", weights.get("x-gzip", weights.get("*", 0.0)))
    return q > 0


def prefers_html(request: Request) -> bool:
    """Whether to answer with the HTML view: ``?view=html``, or a browser's navigation
    (``Sec-Fetch-Dest: document``) whose Accept ranks text/html above XML. Accept alone does
    not decide: crawlers send browser-like Accept headers too, and must get the XML."""
    view = request.param("view")
    if view is not None:
        return view == "html"
    if request.header("sec-fetch-dest") != "document":
        return False
    weights = _weights(request.header("accept"))
    html = weights.get("text/html", 0.0)
    xml = max(weights.get("application/xml", 0.0), weights.get("text/xml", 0.0))
    return html > 0 and html > xml

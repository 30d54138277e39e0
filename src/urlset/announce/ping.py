"""The protocol's ping: ``<endpoint>?sitemap=<sitemap URL, percent-encoded>``.

"To submit your Sitemap using an HTTP request ... issue your request to the following URL:
<searchengine_URL>/ping?sitemap=sitemap_url ... URL encode everything after the
/ping?sitemap= ... A successful request will return an HTTP 200 response code; if you
receive a different response, you should resubmit your request" (sitemaps.org 0.9,
"Submitting your Sitemap via an HTTP request"). A 2xx status counts as received.

There are no default endpoints: Google retired its ping endpoint (deprecated June 2023, no
longer served by the end of 2023) and Bing retired its own in 2022 in favour of IndexNow.

In: a sitemap URL and endpoint URLs. Out: one ``PingResult`` per endpoint. ``ping_request``
and ``ping_result`` are pure; ``ping_sitemap`` drives them over aiohttp (announce.http).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from ..fetching.http_options import HttpOptions
from ..urls import to_uri
from .http import Answer, announce_options, open_session, send


def ping_request(endpoint: str, sitemap_url: str) -> str:
    """The URL to request: ``endpoint`` with ``sitemap=`` and the whole sitemap URL
    percent-encoded (``http%3A%2F%2Fwww.example.com%2Fsitemap.gz``). InvalidValue when
    either is not an absolute http(s) URL."""
    base = to_uri(endpoint, field="ping endpoint")
    sitemap = to_uri(sitemap_url, field="sitemap URL")
    joiner = "&" if "?" in base else "?"
    return f"{base}{joiner}sitemap={quote(sitemap, safe='')}"


@dataclass(frozen=True, slots=True)
class PingResult:
    endpoint: str
    request: str  # the URL requested
    received: bool  # a 2xx status came back
    status: int | None
    message: str  # the answer, or why none came
    attempts: int
    seconds: float


def ping_result(endpoint: str, answer: Answer) -> PingResult:
    """How one endpoint answered."""
    received = answer.status is not None and 200 <= answer.status < 300
    message = answer.describe()
    if answer.status is not None and not received:
        if answer.status in (404, 410):
            message += " (this endpoint does not exist, or no longer does)"
        elif answer.status >= 500 or answer.status == 429:
            message += " (not received; send it again later)"
    if answer.note:
        message += f"; {answer.note}"
    return PingResult(
        endpoint,
        answer.url,
        received,
        answer.status,
        message,
        answer.attempts,
        answer.seconds,
    )


async def ping_sitemap(
    sitemap_url: str,
    endpoints: Sequence[str],
    *,
    http: HttpOptions | None = None,
    deadline: float = 60.0,
) -> list[PingResult]:
    """Ping every endpoint (concurrently) with ``sitemap_url``; each answer within
    ``deadline`` seconds, retries included. InvalidValue for a URL that is not absolute."""
    requests = [(endpoint, ping_request(endpoint, sitemap_url)) for endpoint in endpoints]
    options = http or announce_options()
    end = time.monotonic() + deadline
    async with open_session(options, endpoints) as session:
        answers = await asyncio.gather(
            *(send(session, "GET", url, options=options, deadline=end) for _, url in requests)
        )
    return [ping_result(endpoint, a) for (endpoint, _), a in zip(requests, answers, strict=True)]


def ping_sitemap_sync(
    sitemap_url: str,
    endpoints: Sequence[str],
    *,
    http: HttpOptions | None = None,
    deadline: float = 60.0,
) -> list[PingResult]:
    """``ping_sitemap`` for code without an event loop (a deploy script)."""
    return asyncio.run(ping_sitemap(sitemap_url, endpoints, http=http, deadline=deadline))

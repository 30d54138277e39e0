"""The HTTP driver's settings: HttpOptions, and the RetryPolicy with its Retry-After reading.

In: what the caller asks for (user agent, concurrency, timeouts, retries, read limits). Out:
frozen values the Fetcher and fetch_sitemaps read, and ``RetryPolicy.delay``, the wait before
each retry.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from ..dates import parse_http_date
from ..limits import ReadLimits

DEFAULT_USER_AGENT = "urlset/0.1 (sitemap fetcher; +https://www.sitemaps.org/protocol.html)"


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """How often and how patiently to try again."""

    attempts: int = 4  # tries in all, the first included
    backoff: float = 0.5  # seconds before the first retry (before jitter)
    max_backoff: float = 30.0
    max_retry_after: float = 120.0  # a longer Retry-After is cut to this

    def delay(
        self,
        retry: int,
        retry_after: float | None = None,
        rand: Callable[[], float] = random.random,
    ) -> float:
        """Seconds to wait before retry number ``retry`` (1 for the first).

        Retry-After wins when given (capped); otherwise exponential backoff with "equal
        jitter": half the step fixed, half random, so many clients do not retry in step.
        """
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        step = min(self.max_backoff, self.backoff * 2.0 ** (retry - 1))
        return step / 2 + rand() * step / 2


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """Retry-After as seconds from ``now``: delta-seconds or an HTTP-date (RFC 9110 10.2.3)."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    when = parse_http_date(value)
    if when is None:
        return None
    now = now or datetime.now(UTC)
    return max(0.0, (when - now).total_seconds())


@dataclass(frozen=True, slots=True)
class HttpOptions:
    user_agent: str = DEFAULT_USER_AGENT
    concurrency: int = 16  # requests in flight in all
    per_host: int = 6  # requests in flight per host
    connect_timeout: float = 10.0
    read_timeout: float = 30.0  # each wait for data
    total_timeout: float = 300.0  # one whole download, redirects included
    max_redirects: int = 5
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    read_limits: ReadLimits = field(default_factory=ReadLimits)
    max_robots_bytes: int = 512 * 1024  # Google reads the first 500 KiB of a robots.txt
    max_page_bytes: int = 4 * 1024 * 1024  # an HTML page a crawl reads (the rest is cut off)
    # seconds for the whole run: what is not read by then is cut off (kept as read) or not
    # requested, and the result is partial
    deadline: float | None = None
    # (host, address) pairs: connect to the address instead of asking DNS, as curl's
    # --resolve (loopback test sites under many names; a host known to sit elsewhere)
    resolve: tuple[tuple[str, str], ...] = ()

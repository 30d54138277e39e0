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
    max_retry_after: float = 120.0  # a longer Retry-After is not waited for: given up

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


def plain_duration(seconds: float) -> str:
    """A wait in words a person reads at a glance: "45 s", "12 min", "3.5 h", "26 days",
    "73 years"."""
    for unit, size in (("years", 365.25 * 86400), ("days", 86400.0), ("h", 3600.0)):
        if seconds >= 2 * size or (unit == "h" and seconds >= size):
            return f"{seconds / size:.3g} {unit}"
    if seconds >= 120:
        return f"{seconds / 60:.3g} min"
    return f"{seconds:.3g} s"


def retry_after_refused(policy: RetryPolicy, retry_after: float | None) -> str | None:
    """Why a Retry-After is not waited for (longer than the policy waits at most), in plain
    words; None when it may be waited for."""
    if retry_after is None or retry_after <= policy.max_retry_after:
        return None
    return (
        f"the server asks to wait {plain_duration(retry_after)} before trying again "
        f"(Retry-After), more than the {plain_duration(policy.max_retry_after)} waited at "
        "most; not tried again (try again later)"
    )


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
    """How a fetch speaks HTTP: user agent, limits, timeouts, retries, read limits, the
    address guard. Requests go over the lean HTTP/1.1 client (standard library only; aiohttp
    is imported only for what that client leaves to it), or with ``lean=False`` over aiohttp
    alone; both answer alike (the same retries, redirects, limits and words)."""

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
    # connect to private, loopback, link-local and other special addresses too (by default
    # only the run's own start may be on one: fetching/addresses.py)
    allow_private: bool = False
    # the lean HTTP/1.1 client (fetching/h1.py) for every request it speaks, aiohttp for
    # the rest; False: aiohttp for every request (a fetch; the audit has its own switch)
    lean: bool = True

"""One announcement request over aiohttp, tried again within a deadline (the driver ping and
IndexNow share).

In: a method, a URL, an optional JSON body, the HttpOptions (user agent, connect and read
timeouts, the RetryPolicy) and a deadline. Out: an ``Answer`` (status, headers, the first
bytes of the body, attempts, seconds, or why no answer came); it never raises for network
trouble. Connection failures, timeouts, 5xx and 429 are tried again with the fetcher's
RetryPolicy, honouring Retry-After (``parse_retry_after``), but never past the deadline: a
wait that would end after it gives up at once and says so.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import aiohttp
import yarl

from ..codes import plural
from ..fetching.failures import (
    describe_failure,
    final_failure,
    undecodable,
    undecodable_reason,
)
from ..fetching.http import client_session
from ..fetching.http_options import (
    HttpOptions,
    RetryPolicy,
    parse_retry_after,
    plain_duration,
    retry_after_refused,
)

USER_AGENT = "urlset/0.1 (sitemap announcer; +https://www.sitemaps.org/protocol.html)"
BODY_SHOWN = 4096  # bytes of an answer's body kept for the report
JSON_TYPE = "application/json; charset=utf-8"


def announce_options(**changes: Any) -> HttpOptions:
    """HttpOptions for announcing: urlset's announcer user agent, short timeouts."""
    values: dict[str, Any] = {
        "user_agent": USER_AGENT,
        "connect_timeout": 10.0,
        "read_timeout": 20.0,
        "retry": RetryPolicy(attempts=4, backoff=1.0, max_backoff=20.0, max_retry_after=120.0),
    }
    values.update(changes)
    return HttpOptions(**values)


@dataclass(frozen=True, slots=True)
class Answer:
    """What came back for one request, after the retries."""

    url: str
    status: int | None  # None: no HTTP answer (``error`` says why)
    headers: Mapping[str, str] = field(default_factory=dict)
    body: bytes = b""  # the first BODY_SHOWN bytes
    attempts: int = 1
    seconds: float = 0.0
    error: str | None = None
    note: str | None = None  # why it stopped trying again (the deadline, a long Retry-After)

    def describe(self) -> str:
        if self.status is None:
            return self.error or "no answer"
        text = self.body.decode("utf-8", errors="replace").strip().replace("\n", " ")
        location = self.headers.get("Location") if 300 <= self.status < 400 else None
        said = f"HTTP {self.status}" + (f" to {location}" if location else "")
        return said + (f": {text[:200]}" if text else "")


def retryable(status: int) -> bool:
    return status == 429 or status >= 500


def open_session(options: HttpOptions, starts: Iterable[str]) -> aiohttp.ClientSession:
    """The fetcher's session (its AddressGuard included): the endpoints a run is given are
    its start, so an endpoint on a private address may be used, but no redirect from one
    leads to another private address."""
    return client_session(options, starts)


async def send(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    json_body: Any = None,
    headers: Mapping[str, str] | None = None,
    follow_redirects: bool = True,
    options: HttpOptions,
    deadline: float,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
) -> Answer:
    """Send one request until it is answered with a status not worth retrying, the attempts
    run out, or ``deadline`` (a ``clock`` reading) comes. ``follow_redirects`` False: a
    redirect is the answer (a submission redirected is not a submission accepted)."""
    policy = options.retry
    started = clock()
    # as the IndexNow documentation writes it: "Content-Type: application/json; charset=utf-8"
    data = None if json_body is None else json.dumps(json_body).encode("utf-8")
    headers_out = {} if data is None else {"Content-Type": JSON_TYPE}
    headers_out.update(headers or {})  # an API's Authorization, for one
    attempt = 0
    while True:
        attempt += 1
        left = deadline - clock()
        if left <= 0:
            return Answer(
                url, None, attempts=attempt - 1, seconds=clock() - started, error="deadline passed"
            )
        status: int | None = None
        headers_in: dict[str, str] = {}
        body = b""
        error = None
        hopeless = False  # trying again at once cannot change it
        try:
            async with asyncio.timeout(left):
                async with session.request(
                    method,
                    yarl.URL(url, encoded=True),  # as built: yarl would decode %3A and %2F
                    data=data,
                    headers=headers_out,
                    allow_redirects=follow_redirects,
                ) as resp:
                    status, headers_in = resp.status, dict(resp.headers)
                    body = await resp.content.read(BODY_SHOWN)
        except TimeoutError:
            error = (
                f"no answer before the deadline ({left:.1f} s left)"
                if clock() >= deadline - 0.01
                else f"no data for {options.read_timeout:g} s or no connection in "
                f"{options.connect_timeout:g} s"
            )
        except (aiohttp.ClientError, OSError, ValueError) as exc:
            encoding = undecodable(exc)
            if encoding is not None:
                error = undecodable_reason(None, *encoding)
            else:
                error = describe_failure(exc)
            hopeless = encoding is not None or final_failure(exc)
        answer = Answer(url, status, headers_in, body, attempt, clock() - started, error)
        if (status is not None and not retryable(status)) or hopeless:
            return answer
        if attempt >= policy.attempts:
            return replace(answer, note=f"gave up after {plural(attempt, 'attempt')}")
        retry_after = parse_retry_after(headers_in.get("Retry-After")) if status else None
        too_long = retry_after_refused(policy, retry_after)
        if too_long is not None:
            return replace(answer, note=too_long)
        wait = policy.delay(attempt, retry_after)
        if clock() + wait >= deadline:
            return replace(
                answer,
                note=f"the next try (in {plain_duration(wait)}) would pass the deadline; "
                "try again later",
            )
        await sleep(wait)

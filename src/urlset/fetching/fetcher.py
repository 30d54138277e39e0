"""The Fetcher: one FetchRequest in, one FetchResponse out, over an aiohttp session.

It keeps to a per-host limit, follows redirects by hand (loops, host changes, too many),
retries what is worth retrying (failures.py, with the RetryPolicy's waits) within the
whole-download timeout, and answers ``cached_only`` requests from the cache; the answer's
body is read by BodyReading (body.py). It never raises.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import urljoin

import aiohttp

from ..errors import InvalidValue
from ..model import Issue, Severity
from ..urls import host_of, to_uri
from .body import BodyReading, ReaderFactory, sitemap_reader
from .failures import Retry, Unconditional, cannot_connect, describe_failure
from .http_options import HttpOptions
from .issues import (
    CROSS_HOST_REDIRECT,
    FETCH_FAILED,
    FETCH_RETRIED,
    FETCH_TIMEOUT,
    REDIRECT_LOOP,
    TOO_MANY_REDIRECTS,
    fetch_issue,
)
from .parse_pool import ParsePool
from .values import FetchRequest, FetchResponse

if TYPE_CHECKING:
    from .cache import FetchCache

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


class Fetcher(BodyReading):
    """Answers FetchRequests over one aiohttp session; never raises."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        options: HttpOptions = HttpOptions(),  # noqa: B008 (frozen: one shared default is safe)
        *,
        cache: FetchCache | None = None,
        reader_factory: ReaderFactory = sitemap_reader,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        pool: ParsePool | None = None,
    ) -> None:
        self.session = session
        self.pool = pool
        self.options = options
        self.cache = cache
        self.reader_factory = reader_factory
        self._sleep = sleep
        self._hosts: dict[str, asyncio.Semaphore] = {}

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        started = time.monotonic()
        try:
            if request.cached_only:
                response = self._from_cache(request, request.url, 200, {})
            else:
                host = host_of(request.url)
                gate = self._hosts.get(host)
                if gate is None:
                    gate = self._hosts[host] = asyncio.Semaphore(self.options.per_host)
                async with gate:
                    response = await self._with_retries(request)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a driver bug must not end the run
            response = FetchResponse(
                request,
                request.url,
                None,
                error=f"internal error: {type(exc).__name__}: {exc}",
                issues=[
                    fetch_issue(
                        FETCH_FAILED,
                        Severity.ERROR,
                        f"internal error while fetching: {type(exc).__name__}: {exc}",
                        request.url,
                    )
                ],
            )
        response.seconds = time.monotonic() - started
        return response

    async def _with_retries(self, request: FetchRequest) -> FetchResponse:
        policy = self.options.retry
        issues: list[Issue] = []
        headers = dict(request.headers)
        attempt = 0
        while True:
            attempt += 1
            deadline = asyncio.timeout(self.options.total_timeout)
            hops: list[str] = []  # the URLs this attempt asked for (redirects followed)
            unreachable = False  # no connection to request.url could be made at all
            final = False  # a failure that trying again cannot change
            try:
                async with deadline:
                    response = await self._once(request, headers, issues, hops)
            except Unconditional:
                headers = {}
                attempt -= 1
                continue
            except Retry as retry:
                failure: tuple[str, str, float | None] = (
                    retry.reason,
                    retry.code,
                    retry.retry_after,
                )
            except TimeoutError as exc:
                if deadline.expired():
                    return self._failed(
                        request,
                        FETCH_TIMEOUT,
                        f"the download took longer than {self.options.total_timeout:g} s "
                        "(whole-download timeout); cut off",
                        issues,
                        attempt,
                    )
                if isinstance(exc, aiohttp.ConnectionTimeoutError):
                    reason = f"could not connect in {self.options.connect_timeout:g} s"
                    unreachable = len(hops) == 1
                else:
                    reason = (
                        f"no data for {self.options.read_timeout:g} s or could not connect in "
                        f"{self.options.connect_timeout:g} s"
                    )
                failure = (reason, FETCH_TIMEOUT, None)
            except (aiohttp.ClientError, OSError) as exc:
                failure = (describe_failure(exc), FETCH_FAILED, None)
                unreachable = cannot_connect(exc) and len(hops) == 1
                # a certificate the client rejects is rejected again: no retry
                final = isinstance(exc, aiohttp.ClientConnectorCertificateError)
            else:
                if attempt > 1:
                    response.issues = [
                        *response.issues,
                        fetch_issue(
                            FETCH_RETRIED,
                            Severity.INFO,
                            f"read on attempt {attempt} of {policy.attempts}",
                            request.url,
                        ),
                    ]
                return response
            reason, code, retry_after = failure
            if (
                final
                or attempt >= policy.attempts
                or (unreachable and not request.retry_unreachable)
            ):
                failed = self._failed(request, code, reason, issues, attempt)
                failed.unreachable = unreachable
                return failed
            await self._sleep(policy.delay(attempt, retry_after))

    def _failed(
        self, request: FetchRequest, code: str, reason: str, issues: list[Issue], attempts: int
    ) -> FetchResponse:
        tries = f" (after {attempts} attempts)" if attempts > 1 else ""
        status = None
        if reason.startswith("HTTP "):
            status = int(reason.split()[1])
        issue = fetch_issue(code, Severity.ERROR, reason + tries, request.url)
        return FetchResponse(
            request,
            request.url,
            status,
            error=reason + tries,
            issues=[*issues, issue],
        )

    async def _once(
        self,
        request: FetchRequest,
        conditional: Mapping[str, str],
        issues: list[Issue],
        hops: list[str],
    ) -> FetchResponse:
        """One attempt: follow redirects, then read the answer. ``hops`` is told each URL
        asked for."""
        current = request.url
        visited = [current]
        origin = host_of(request.url)
        redirect_issues: list[Issue] = []
        for _ in range(self.options.max_redirects + 1):
            hops.append(current)
            async with self.session.get(
                current, headers=conditional, allow_redirects=False
            ) as resp:
                location = resp.headers.get("Location")
                if resp.status in _REDIRECTS and location:
                    try:
                        target = to_uri(urljoin(current, location), field="Location")
                    except InvalidValue as exc:
                        return self._error(
                            request,
                            current,
                            resp.status,
                            FETCH_FAILED,
                            f"redirect to an unusable Location ({exc.reason})",
                            redirect_issues,
                        )
                    if target in visited:
                        return self._error(
                            request,
                            current,
                            resp.status,
                            REDIRECT_LOOP,
                            "redirect loop: " + " -> ".join([*visited, target]),
                            redirect_issues,
                        )
                    # a sitemap's host matters (its URLs must be on it); robots.txt may move
                    if (
                        request.kind == "sitemap"
                        and host_of(target) != origin
                        and not any(i.code == CROSS_HOST_REDIRECT for i in redirect_issues)
                    ):
                        redirect_issues.append(
                            fetch_issue(
                                CROSS_HOST_REDIRECT,
                                Severity.WARNING,
                                f"redirected from {origin} to another host: {target}; "
                                "a sitemap's URLs must be on the host it is served from",
                                request.url,
                            )
                        )
                    visited.append(target)
                    current = target
                    continue
                return await self._answer(request, current, resp, redirect_issues, conditional)
        return self._error(
            request,
            current,
            None,
            TOO_MANY_REDIRECTS,
            f"more than {self.options.max_redirects} redirects: " + " -> ".join(visited),
            redirect_issues,
        )

    def _error(
        self,
        request: FetchRequest,
        url: str,
        status: int | None,
        code: str,
        reason: str,
        issues: list[Issue],
    ) -> FetchResponse:
        return FetchResponse(
            request,
            url,
            None,
            error=reason,
            issues=[*issues, fetch_issue(code, Severity.ERROR, reason, request.url)],
        )

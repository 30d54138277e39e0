"""The Fetcher: one FetchRequest in, one FetchResponse out, over the lean client (h1.py)
or an aiohttp session.

It keeps to a per-host limit, follows redirects by hand (loops, host changes, too many),
retries what is worth retrying (failures.py, with the RetryPolicy's waits), every attempt
and wait within the whole-download timeout and the run's deadline, keeps what was read of
a body cut off, and answers ``cached_only`` requests from the cache; the answer's body is
read by BodyReading (body.py). It never raises.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urljoin

from ..codes import plural
from ..errors import InvalidValue
from ..model import Issue, Severity
from ..urls import host_of, to_uri
from .body import BodyReading, ReaderFactory, sitemap_reader
from .failures import (
    Retry,
    Unconditional,
    cannot_connect,
    connect_timeout,
    describe_failure,
    final_failure,
    transport_errors,
    undecodable,
    undecodable_reason,
)
from .h1 import LeanSession
from .http_options import HttpOptions, plain_duration, retry_after_refused
from .issues import (
    CROSS_HOST_REDIRECT,
    DEADLINE,
    FETCH_FAILED,
    FETCH_PARTIAL,
    FETCH_RETRIED,
    FETCH_TIMEOUT,
    REDIRECT_LOOP,
    TOO_MANY_REDIRECTS,
    fetch_issue,
)
from .parse_pool import ParsePool
from .values import FetchRequest, FetchResponse, site_of

if TYPE_CHECKING:
    import aiohttp

    from .cache import FetchCache

_REDIRECTS = frozenset({301, 302, 303, 307, 308})


@dataclass(slots=True)
class _Failure:
    """How an attempt failed: the words, the issue code, and what that allows next."""

    reason: str
    code: str
    retry_after: float | None = None
    unreachable: bool = False  # no connection to the request's URL could be made at all
    final: bool = False  # trying again cannot change it


def _most(best: FetchResponse | None, cut: list[FetchResponse]) -> FetchResponse | None:
    """The partial read holding the most entries (a read with none is no use)."""
    for each in cut:
        size = len(each.items) + len(each.urls or ())
        useful = bool(each.urls) or any(type(i) is not Issue for i in each.items)
        if useful and (best is None or size > len(best.items) + len(best.urls or ())):
            best = each
    return best


class _HostGates:
    """A semaphore per host: ``per_host`` requests in flight to it at most."""

    def __init__(self, per_host: int) -> None:
        self.per_host = per_host
        self.gates: dict[str, asyncio.Semaphore] = {}
        self.host_by_authority: dict[str, str] = {}

    def of(self, url: str) -> asyncio.Semaphore:
        """The URL's host's semaphore, its host found by the URL's authority (scheme, user
        info, host, port: all ``host_of`` reads), so that a run's millionth URL of one host
        is not split again."""
        start = url.find("//") + 2
        end = len(url)
        for mark in ("/", "?", "#"):
            found = url.find(mark, start)
            if 0 <= found < end:
                end = found
        authority = url[:end]
        host = self.host_by_authority.get(authority)
        if host is None:
            if len(self.host_by_authority) >= 10_000:  # a crawl of many hosts: bounded
                self.host_by_authority.clear()
            host = self.host_by_authority[authority] = host_of(url)
        gate = self.gates.get(host)
        if gate is None:
            gate = self.gates[host] = asyncio.Semaphore(self.per_host)
        return gate


class Fetcher(BodyReading):
    """Answers FetchRequests over one session (lean or aiohttp); never raises."""

    def __init__(
        self,
        session: aiohttp.ClientSession | LeanSession,
        options: HttpOptions = HttpOptions(),  # noqa: B008 (frozen: one shared default is safe)
        *,
        cache: FetchCache | None = None,
        reader_factory: ReaderFactory = sitemap_reader,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        pool: ParsePool | None = None,
        may_follow: Callable[[str], str | None] | None = None,
    ) -> None:
        """``may_follow(target)``: why a redirect to ``target`` must not be followed (the
        answer is then the redirect, its target not requested), or None to follow it."""
        self.may_follow = may_follow
        self.session = session
        self.pool = pool
        self.options = options
        self.cache = cache
        self.reader_factory = reader_factory
        self._sleep = sleep
        self._gates = _HostGates(options.per_host)
        # told (URL, seconds) when a server asks to wait (Retry-After), so that a caller
        # pacing a host's requests can hold them all back, not only this one's retry
        self.on_retry_after: Callable[[str, float], None] | None = None
        # the run's deadline, on the monotonic clock (the run starts with its Fetcher)
        self.run_ends = None if options.deadline is None else time.monotonic() + options.deadline

    async def fetch(self, request: FetchRequest) -> FetchResponse:
        started = time.monotonic()
        try:
            if request.cached_only:
                response = self._from_cache(request, request.url, None, {})
            elif self.run_ends is not None and time.monotonic() >= self.run_ends:
                response = self._past_deadline(request)
            else:
                gate = self._gates.of(request.url)
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

    def _past_deadline(self, request: FetchRequest) -> FetchResponse:
        reason = f"not requested: the run's deadline ({self.options.deadline:g} s) had passed"
        return FetchResponse(
            request,
            request.url,
            None,
            error=reason,
            issues=[fetch_issue(DEADLINE, Severity.ERROR, reason, request.url)],
            requested=False,
        )

    async def _with_retries(self, request: FetchRequest) -> FetchResponse:
        """Attempts until one answers, a failure is final, the attempts are used up, or the
        time is: every wait (a download, a backoff, a Retry-After) ends within the request's
        whole-download timeout and the run's deadline."""
        policy = self.options.retry
        issues: list[Issue] = []
        headers = dict(request.headers)
        ends = time.monotonic() + self.options.total_timeout
        if self.run_ends is not None and self.run_ends < ends:
            ends = self.run_ends
        best: FetchResponse | None = None  # the most read of a body cut off
        attempt = 0
        while True:
            attempt += 1
            left = ends - time.monotonic()
            if left <= 0 and attempt == 1 and ends == self.run_ends:
                return self._past_deadline(request)  # waited for a connection till too late
            if left <= 0:
                return self._out_of_time(request, issues, attempt - 1, ends, best)
            hops: list[str] = []  # the URLs this attempt asked for (redirects followed)
            cut: list[FetchResponse] = []  # what was read of a body before it was cut off
            deadline = asyncio.timeout(left)
            try:
                async with deadline:
                    response = await self._once(request, headers, issues, hops, cut)
            except Unconditional:
                headers = {}
                attempt -= 1
                continue
            except Retry as retry:
                failure = _Failure(retry.reason, retry.code, retry.retry_after, final=retry.final)
            except TimeoutError as exc:
                best = _most(best, cut)
                if deadline.expired():
                    return self._out_of_time(request, issues, attempt, ends, best)
                failure = self._timed_out(exc, hops)
            except transport_errors() as exc:
                encoding = undecodable(exc)
                if encoding is not None:  # would come the same way again
                    return await _undecodable(
                        self.session, self.options, request, hops[-1], headers, issues, *encoding
                    )
                failure = _Failure(
                    describe_failure(exc),
                    FETCH_FAILED,
                    unreachable=cannot_connect(exc) and len(hops) == 1,
                    # a refused port, a name without address, a failed TLS handshake or
                    # certificate: the same again at once, so no retry
                    final=final_failure(exc),
                )
            else:
                return self._answered(request, response, attempt)
            best = _most(best, cut)
            too_long = retry_after_refused(policy, failure.retry_after)
            if too_long is not None:
                failure.reason += f"; {too_long}"
                return _given_up(request, failure, issues, attempt, best)
            if (
                failure.final
                or attempt >= policy.attempts
                or request.probe  # a guess at a location: one request, not retried
                or (failure.unreachable and not request.retry_unreachable)
            ):
                return _given_up(request, failure, issues, attempt, best)
            wait = policy.delay(attempt, failure.retry_after)
            if failure.retry_after is not None and self.on_retry_after is not None:
                self.on_retry_after(request.url, wait)  # the server's word is for its host
            if time.monotonic() + wait >= ends:
                if failure.retry_after is not None:
                    what = f"the {plain_duration(wait)} the server asked for (Retry-After)"
                else:
                    what = f"a backoff of {plain_duration(wait)}"
                failure.reason += f"; not tried again: waiting {what} would pass the " + (
                    self._limit(ends)
                )
                return _given_up(request, failure, issues, attempt, best)
            await self._sleep(wait)

    def _limit(self, ends: float) -> str:
        if self.run_ends is not None and ends == self.run_ends:
            return f"run's deadline ({self.options.deadline:g} s)"
        return f"whole-download timeout ({self.options.total_timeout:g} s)"

    def _timed_out(self, exc: TimeoutError, hops: list[str]) -> _Failure:
        if connect_timeout(exc):
            reason = f"could not connect in {self.options.connect_timeout:g} s"
            return _Failure(reason, FETCH_TIMEOUT, unreachable=len(hops) == 1)
        reason = (
            f"no data for {self.options.read_timeout:g} s or could not connect in "
            f"{self.options.connect_timeout:g} s"
        )
        return _Failure(reason, FETCH_TIMEOUT)

    def _answered(
        self, request: FetchRequest, response: FetchResponse, attempt: int
    ) -> FetchResponse:
        if attempt > 1:
            response.issues = [
                *response.issues,
                fetch_issue(
                    FETCH_RETRIED,
                    Severity.INFO,
                    f"read on attempt {attempt} of {self.options.retry.attempts}",
                    request.url,
                ),
            ]
        return response

    def _out_of_time(
        self,
        request: FetchRequest,
        issues: list[Issue],
        attempts: int,
        ends: float,
        best: FetchResponse | None,
    ) -> FetchResponse:
        if self.run_ends is not None and ends == self.run_ends:
            failure = _Failure(
                f"the run's deadline ({self.options.deadline:g} s) was reached; cut off",
                DEADLINE,
            )
        else:
            failure = _Failure(
                f"the download took longer than {self.options.total_timeout:g} s "
                "(whole-download timeout); cut off",
                FETCH_TIMEOUT,
            )
        return _given_up(request, failure, issues, max(attempts, 1), best)

    async def _once(
        self,
        request: FetchRequest,
        conditional: Mapping[str, str],
        issues: list[Issue],
        hops: list[str],
        cut: list[FetchResponse],
    ) -> FetchResponse:
        """One attempt: follow redirects, then read the answer. ``hops`` is told each URL
        asked for, ``cut`` what was read of a body cut off."""
        current = request.url
        visited = [current]
        redirect_issues: list[Issue] = []
        followed: list[tuple[int, str]] = []
        for _ in range(self.options.max_redirects + 1):
            hops.append(current)
            async with self.session.request(
                request.method, current, headers=conditional, allow_redirects=False
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
                    refused = self.may_follow(target) if self.may_follow else None
                    if refused is not None:
                        return FetchResponse(
                            request,
                            current,
                            resp.status,
                            {"Location": target},
                            error=refused,
                            issues=redirect_issues,
                            unfollowed=target,
                        )
                    _note_cross_host(request, target, redirect_issues)
                    visited.append(target)
                    followed.append((resp.status, target))
                    current = target
                    continue
                answer = await self._answer(
                    request, current, resp, redirect_issues, conditional, cut
                )
                answer.redirects = followed
                return answer
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


async def _undecodable(
    session: aiohttp.ClientSession | LeanSession,
    options: HttpOptions,
    request: FetchRequest,
    url: str,
    conditional: Mapping[str, str],
    issues: list[Issue],
    encoding: str,
    package: str,
) -> FetchResponse:
    """An answer in a Content-Encoding that cannot be decoded here: not retried (it
    would come the same way); asked once more without decoding, for its real status."""
    status: int | None = None
    try:
        async with asyncio.timeout(options.connect_timeout + options.read_timeout):
            async with session.get(
                url, headers=conditional, allow_redirects=False, auto_decompress=False
            ) as resp:
                status = resp.status
    except transport_errors():  # TimeoutError is an OSError
        pass
    reason = undecodable_reason(status, encoding, package)
    issue = fetch_issue(FETCH_FAILED, Severity.ERROR, reason, request.url)
    return FetchResponse(request, url, status, error=reason, issues=[*issues, issue])


def _given_up(
    request: FetchRequest,
    failure: _Failure,
    issues: list[Issue],
    attempts: int,
    best: FetchResponse | None,
) -> FetchResponse:
    """The answer after the last attempt: what was read of a body cut off, labelled
    partial, or the failure."""
    tries = f" (after {plural(attempts, 'attempt')})" if attempts > 1 else ""
    if best is not None:
        kept = sum(1 for i in best.items if type(i) is not Issue) + len(best.urls or ())
        message = (
            f"{failure.reason}{tries}; the {plural(kept, 'entry', 'entries')} read from "
            f"the first {plural(best.bytes_received, 'byte')} "
            f"{'is' if kept == 1 else 'are'} kept"
        )
        # labelled partial: cut off by the run's deadline, or by a reset or a timeout
        code = DEADLINE if failure.code == DEADLINE else FETCH_PARTIAL
        best.issues = [
            *issues,
            *best.issues,
            fetch_issue(code, Severity.ERROR, message, request.url),
        ]
        return best
    status = None
    if failure.reason.startswith("HTTP "):
        status = int(failure.reason.split()[1].rstrip(";"))
    issue = fetch_issue(failure.code, Severity.ERROR, failure.reason + tries, request.url)
    response = FetchResponse(
        request,
        request.url,
        status,
        error=failure.reason + tries,
        issues=[*issues, issue],
    )
    response.unreachable = failure.unreachable
    return response


def _note_cross_host(request: FetchRequest, target: str, issues: list[Issue]) -> None:
    """A sitemap redirected to another site is told once: its host matters (its URLs must
    be on it); robots.txt may move."""
    if request.kind != "sitemap":
        return
    origin = site_of(request.url)
    if site_of(target) != origin and not any(i.code == CROSS_HOST_REDIRECT for i in issues):
        issues.append(
            fetch_issue(
                CROSS_HOST_REDIRECT,
                Severity.WARNING,
                f"redirected from {origin} to another site: {target}; a sitemap's URLs must "
                "be on the host (and port) it is served from",
                request.url,
            )
        )

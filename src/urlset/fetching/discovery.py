"""Discovery: robots.txt -> sitemaps -> index children, as a generator of fetch requests.

The logic never touches a socket, a file or the clock (sans-I/O, like h11 and httpx auth
flows). A driver runs it:

    flow = discover(start, options)
    event = next(flow)
    while True:                                     # until StopIteration
        FetchRequest   -> start fetching it;            event = flow.send(None)
        SitemapRead    -> write event.urls somewhere;   event = flow.send(None)
        NEED_RESPONSE  -> event = flow.send(<a FetchResponse for any started request>)
    StopIteration.value is the DiscoveryResult: the sitemap tree, counts and issues.

Requests may be answered in any order, so a driver can keep many in flight (``http.py``)
or answer them one by one (``drive`` below, which tests use with a plain function). The
SitemapReads still come in document order (robots.txt's sitemaps, each index's children as
listed): URLs read ahead of a document still awaited are held, and while
``DiscoveryOptions.hold_urls`` are held no request but the awaited one is passed on (and
never more than ``ahead`` at once), so what is held stays bounded.

Rules enforced here, with the protocol sentence they come from:
- robots.txt ``Sitemap:`` lines name sitemaps on any host ("Specifying the Sitemap
  location in your robots.txt file"); relative values are resolved against robots.txt and
  reported, since the protocol asks for a full URL.
- "A Sitemap index file can only specify Sitemaps that are found on the same site as the
  Sitemap index file": a child on another host is reported and, unless allowed, not fetched.
- "If a Sitemap index lists a Sitemap index, ..." nesting is not part of the protocol, but
  real sites do it; it is followed up to ``max_depth``, with loops and repeats refused.

A start given without a scheme (``example.com``) is tried over https; with
``DiscoveryOptions.http_fallback`` (the CLI sets it for such a start) a start that cannot
be connected to over https at all (refused, TLS handshake failed, connect timeout; not an
HTTP error status) is tried once more over http, and the run reports that it fell back. A
start URL given with its scheme is never changed.

The parts: ``values`` (what goes in and out), ``issues`` (the codes reported),
``admission`` (the run's state; which sitemaps are requested, and how), ``robots`` and
``sitemap_stage`` (reading each kind of answer); here the flow itself, ``discover`` and
``drive``, re-exporting the names callers import from this module.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Mapping
from typing import Literal
from urllib.parse import urlsplit

from ..codes import plural
from ..model import Severity
from .issues import (
    CACHE_OUTDATED,
    CONTENT_TYPE,
    CROSS_HOST_REDIRECT,
    CROSS_HOST_SITEMAP,
    DEADLINE,
    DEPTH_LIMIT,
    DUPLICATE_SITEMAP,
    FETCH_CODES,
    FETCH_FAILED,
    FETCH_PARTIAL,
    FETCH_RETRIED,
    FETCH_TIMEOUT,
    HTTP_FALLBACK,
    HTTP_STATUS,
    INCOMPLETE_CODES,
    INDEX_LOOP,
    NO_SITEMAPS,
    NOT_A_SITEMAP,
    NOT_MODIFIED,
    REDIRECT_LOOP,
    ROBOTS_BAD_SITEMAP,
    ROBOTS_NO_SITEMAPS,
    ROBOTS_RELATIVE_SITEMAP,
    ROBOTS_TOO_LARGE,
    ROBOTS_UNAVAILABLE,
    SITEMAP_LIMIT,
    TOO_MANY_REDIRECTS,
    UNCHANGED,
    URL_LIMIT,
    fetch_issue,
    quiet,
)
from .robots import RobotsStage, robots_sitemaps, robots_url
from .sitemap_stage import SitemapStage
from .values import (
    NEED_RESPONSE,
    WELL_KNOWN,
    CacheRecord,
    DiscoveryOptions,
    DiscoveryResult,
    Event,
    FetchRequest,
    FetchResponse,
    NodeState,
    SitemapNode,
    SitemapRead,
)


def start_kind(url: str) -> Literal["site", "robots", "sitemap"]:
    """How a start URL is read: a site root, a robots.txt, or a sitemap."""
    parts = urlsplit(url)
    path = parts.path
    if path in ("", "/") and not parts.query:  # "/?sitemap=1" names a (CMS) sitemap
        return "site"
    if path == "/robots.txt":
        return "robots"
    return "sitemap"


class Discovery(RobotsStage, SitemapStage):
    """The discovery state machine; ``run()`` is the generator described in the module doc.

    Its state and admission rules are Admission's; the robots.txt and sitemap answers are
    read by the two stages; here are the flow itself, the start, the http fallback and the
    result."""

    # -- generator protocol
    def run(self) -> Generator[Event, FetchResponse | None, DiscoveryResult]:
        self._begin()
        self._release()
        pending: deque[FetchResponse] = deque()
        while True:
            while self._outbox:
                got = yield self._outbox.popleft()
                if got is not None:
                    pending.append(got)
            if pending:
                self._handle(pending.popleft())
                self._release()
                continue
            if not self._in_flight:
                return self._result()
            got = yield NEED_RESPONSE
            if got is None:
                raise RuntimeError("discovery is waiting for the response to a request it made")
            self._handle(got)
            self._release()

    def _release(self) -> None:
        """Pass on the URLs read in document order, whatever order the answers came in: a
        sitemap's once every document before it in the tree is settled, so that every run
        writes the same output in the same order (a stored result comes back at once)."""
        stack = self._cursor
        waiting_for: SitemapNode | None = None
        while True:
            frame = stack[-1]
            siblings, at = frame
            if at >= len(siblings):
                if len(stack) == 1:
                    break  # the roots: a fallback may add one later
                stack.pop()
                continue
            node = siblings[at]
            if node.state is NodeState.PENDING:
                waiting_for = node
                break
            frame[1] = at + 1
            read = self._held.pop(node, None)
            if read is not None:
                self._held_urls -= len(read.urls)
                self._outbox.append(read)
            if node.children:  # all there: a node's children are added when it is settled
                stack.append([node.children, 0])
        # requests go out in the order they were made, up to ``ahead`` at once and while
        # little is held; the one everything waits for goes out whatever is held
        first = self._deferred.pop(waiting_for, None) if waiting_for is not None else None
        if first is not None:
            self._outbox.append(first)
            self._passed += 1
        options = self.options
        while (
            self._deferred
            and self._held_urls < options.hold_urls
            and self._passed < max(1, options.ahead)
        ):
            request = self._deferred.pop(self._deferred_order.popleft(), None)
            if request is not None:  # (None: passed on already, as the one awaited)
                self._outbox.append(request)
                self._passed += 1

    # -- starting
    def _begin(self) -> None:
        self._start(self.start)

    def _start(self, start: str) -> None:
        kind = start_kind(start)
        # with a fallback ahead, an unreachable https start is not retried: http is the retry
        retry = not (self.options.http_fallback and start.startswith("https://"))
        if kind == "sitemap":
            node = SitemapNode(start, "sitemap", "start", 0)
            self.roots.append(node)
            self._request(node, retry_unreachable=retry)
            return
        url = start if kind == "robots" else robots_url(start)
        node = SitemapNode(url, "robots", "start", 0)
        self.roots.append(node)
        self._send(
            FetchRequest(url, "robots", self._validators(url), retry_unreachable=retry), node
        )

    # -- responses
    def _handle(self, response: FetchResponse) -> None:
        node = self._in_flight.pop(response.request, None)
        if node is None or self._deferred.get(node) is response.request:
            raise RuntimeError(
                f"a response for a request discovery did not make: {response.request}"
            )
        self._passed -= 1
        node.final_url = response.url
        node.status = response.status
        node.bytes += response.bytes_received
        node.seconds += response.seconds
        node.from_cache = response.from_cache
        node.requested = node.requested or (response.requested and not response.request.cached_only)
        node.issues.extend(response.issues)
        if any(i.code == DEADLINE for i in response.issues):
            self._hit(DEADLINE)
        if (
            response.unreachable
            and node.parent is None
            and self.options.http_fallback
            and not self._fell_back
            and node.url.startswith("https://")
        ):
            self._fall_back(node, response)
            return
        if node.kind == "robots":
            self._handle_robots(node, response)
        else:
            self._handle_sitemap(node, response)
            if response.request.probe and not (
                response.request.cached_only and node.state is NodeState.PENDING
            ):
                self._probes_open -= 1
                if node.ok:
                    self._found_by_probe += 1
                named = node.parent is not None and node.parent.ref_count > 0
                if self._probes_open == 0 and self._found_by_probe == 0 and not named:
                    self._nothing_found(node.parent)

    def _fall_back(self, node: SitemapNode, response: FetchResponse) -> None:
        """The https start could not be connected to: start again over http, and say so."""
        self._fell_back = True
        node.state = NodeState.UNREACHABLE
        node.issues = [quiet(i) for i in node.issues]  # expected now: kept, as information
        if node.kind == "sitemap":
            self.sitemaps_requested -= 1
        start = "http://" + self.start.removeprefix("https://")
        origin = urlsplit(self.start)
        self.issues.append(
            fetch_issue(
                HTTP_FALLBACK,
                Severity.WARNING,
                f"no connection to https://{origin.netloc} "
                f"({response.error or 'no answer'}); fell back to http://{origin.netloc}",
                self.start,
                "the site is read over plain HTTP; give the URL with its scheme "
                "(https:// or http://) to try only that",
            )
        )
        self._start(start)

    def _result(self) -> DiscoveryResult:
        nodes = [n for root in self.roots for n in root.walk()]
        read = [n for n in nodes if n.kind == "sitemap" and n.ok]
        failed = [n for n in nodes if n.kind == "sitemap" and n.failed]
        incomplete = [n for n in nodes if n.state is NodeState.PARTIAL]
        issues = list(self.issues)
        if SITEMAP_LIMIT in self.limits_hit or (
            URL_LIMIT in self.limits_hit and self._skipped_by_cap
        ):
            code = SITEMAP_LIMIT if SITEMAP_LIMIT in self.limits_hit else URL_LIMIT
            issues.append(
                fetch_issue(
                    code,
                    Severity.WARNING,
                    f"{plural(self._skipped_by_cap, 'listed sitemap')} "
                    f"{'was' if self._skipped_by_cap == 1 else 'were'} not fetched: the cap of "
                    + (
                        plural(self.options.max_sitemaps, "sitemap")
                        if code == SITEMAP_LIMIT
                        else plural(self.options.max_urls, "URL")
                    )
                    + " was reached",
                    self.start,
                    "raise --max-sitemaps" if code == SITEMAP_LIMIT else "raise --max-urls",
                )
            )
        if URL_LIMIT in self.limits_hit and not any(i.code == URL_LIMIT for i in issues):
            issues.append(
                fetch_issue(
                    URL_LIMIT,
                    Severity.WARNING,
                    f"the URL cap of {self.options.max_urls:,} was reached; the rest is left out",
                    self.start,
                    "raise --max-urls",
                )
            )
        if DEADLINE in self.limits_hit:
            cut = [n for n in nodes if any(i.code == DEADLINE for i in n.issues)]
            issues.append(
                fetch_issue(
                    DEADLINE,
                    Severity.WARNING,
                    f"the run's deadline was reached: {len(cut):,} documents were cut off or "
                    "not requested; what was read by then is kept",
                    self.start,
                    "raise --deadline",
                )
            )
        if DEPTH_LIMIT in self.limits_hit:
            issues.append(
                fetch_issue(
                    DEPTH_LIMIT,
                    Severity.WARNING,
                    f"indexes nested deeper than {self.options.max_depth} were not followed",
                    self.start,
                    "raise --max-depth",
                )
            )
        return DiscoveryResult(
            start=self.start,
            roots=self.roots,
            issues=issues,
            url_count=self.url_count,
            sitemaps_read=len(read),
            failed=failed,
            incomplete=incomplete,
            limits_hit=list(self.limits_hit),
            not_followed=self.not_followed,
            older_sitemaps=self.older_sitemaps,
            older_urls=self.older_urls,
        )


def discover(
    start: str,
    options: DiscoveryOptions | None = None,
    known: Mapping[str, CacheRecord] | None = None,
) -> Generator[Event, FetchResponse | None, DiscoveryResult]:
    """The discovery flow for ``start`` (a site, a robots.txt, or a sitemap URL)."""
    return Discovery(start, options, known).run()


def drive(
    flow: Generator[Event, FetchResponse | None, DiscoveryResult],
    fetch: Callable[[FetchRequest], FetchResponse],
    on_read: Callable[[SitemapRead], None] | None = None,
) -> DiscoveryResult:
    """Run a flow to the end with a synchronous ``fetch``, one request at a time, in order."""
    queue: deque[FetchRequest] = deque()
    try:
        event = next(flow)
        while True:
            if isinstance(event, FetchRequest):
                queue.append(event)
                event = flow.send(None)
            elif isinstance(event, SitemapRead):
                if on_read is not None:
                    on_read(event)
                event = flow.send(None)
            else:
                event = flow.send(fetch(queue.popleft()))
    except StopIteration as stop:
        result: DiscoveryResult = stop.value
        return result


# the flow's values, codes and helpers are imported from here by the driver, the CLI and tests
__all__ = [
    "CACHE_OUTDATED",
    "CONTENT_TYPE",
    "CROSS_HOST_REDIRECT",
    "CROSS_HOST_SITEMAP",
    "DEADLINE",
    "DEPTH_LIMIT",
    "DUPLICATE_SITEMAP",
    "FETCH_CODES",
    "FETCH_FAILED",
    "FETCH_PARTIAL",
    "FETCH_RETRIED",
    "FETCH_TIMEOUT",
    "HTTP_FALLBACK",
    "HTTP_STATUS",
    "INCOMPLETE_CODES",
    "INDEX_LOOP",
    "NEED_RESPONSE",
    "NOT_A_SITEMAP",
    "NOT_MODIFIED",
    "NO_SITEMAPS",
    "REDIRECT_LOOP",
    "ROBOTS_BAD_SITEMAP",
    "ROBOTS_NO_SITEMAPS",
    "ROBOTS_RELATIVE_SITEMAP",
    "ROBOTS_TOO_LARGE",
    "ROBOTS_UNAVAILABLE",
    "SITEMAP_LIMIT",
    "TOO_MANY_REDIRECTS",
    "UNCHANGED",
    "URL_LIMIT",
    "WELL_KNOWN",
    "CacheRecord",
    "Discovery",
    "DiscoveryOptions",
    "DiscoveryResult",
    "Event",
    "FetchRequest",
    "FetchResponse",
    "NodeState",
    "SitemapNode",
    "SitemapRead",
    "discover",
    "drive",
    "fetch_issue",
    "robots_sitemaps",
    "robots_url",
    "start_kind",
]

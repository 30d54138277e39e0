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
or answer them one by one (``drive`` below, which tests use with a plain function).

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
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from enum import StrEnum
from typing import Literal
from urllib.parse import urljoin, urlsplit

from ..dates import Lastmod
from ..errors import InvalidValue
from ..model import Issue, Severity, SitemapRef, Url
from ..urls import to_uri

# ----------------------------------------------------------------------------- issue codes
# Fetch-specific codes; the reader's own codes (codes.py) pass through unchanged.
HTTP_STATUS = "http-status"  # the server answered with an error status
FETCH_FAILED = "fetch-failed"  # connection refused, reset, DNS, ... after the retries
FETCH_TIMEOUT = "fetch-timeout"  # connect, a read, or the whole download took too long
FETCH_RETRIED = "fetch-retried"  # succeeded or failed only after retrying
REDIRECT_LOOP = "redirect-loop"
TOO_MANY_REDIRECTS = "too-many-redirects"
CROSS_HOST_REDIRECT = "cross-host-redirect"
CONTENT_TYPE = "content-type"  # a sitemap served with a type that is not XML/text/gzip
NOT_A_SITEMAP = "not-a-sitemap"  # a 200 answer that is an HTML page or unreadable
INDEX_LOOP = "index-loop"  # an index lists itself or an ancestor, or redirects to one
DUPLICATE_SITEMAP = "duplicate-sitemap"
CROSS_HOST_SITEMAP = "cross-host-sitemap"
DEPTH_LIMIT = "index-depth-limit"  # (the reader's "depth-limit" is XML nesting)
SITEMAP_LIMIT = "sitemap-limit"
URL_LIMIT = "url-limit"
UNCHANGED = "unchanged"  # skipped: the index's lastmod says it did not change since the cache
NOT_MODIFIED = "not-modified"  # 304: the stored result was reused
HTTP_FALLBACK = "http-fallback"  # https could not be connected to: the start was read over http
CACHE_OUTDATED = "cache-outdated"  # a stored result in a format this version does not reuse
ROBOTS_UNAVAILABLE = "robots-unavailable"
ROBOTS_TOO_LARGE = "robots-too-large"
ROBOTS_RELATIVE_SITEMAP = "robots-relative-sitemap"
ROBOTS_BAD_SITEMAP = "robots-bad-sitemap"
ROBOTS_NO_SITEMAPS = "robots-no-sitemaps"
NO_SITEMAPS = "no-sitemaps"

FETCH_CODES = (
    HTTP_STATUS,
    FETCH_FAILED,
    FETCH_TIMEOUT,
    FETCH_RETRIED,
    REDIRECT_LOOP,
    TOO_MANY_REDIRECTS,
    CROSS_HOST_REDIRECT,
    CONTENT_TYPE,
    NOT_A_SITEMAP,
    INDEX_LOOP,
    DUPLICATE_SITEMAP,
    CROSS_HOST_SITEMAP,
    DEPTH_LIMIT,
    SITEMAP_LIMIT,
    URL_LIMIT,
    UNCHANGED,
    NOT_MODIFIED,
    HTTP_FALLBACK,
    CACHE_OUTDATED,
    ROBOTS_UNAVAILABLE,
    ROBOTS_TOO_LARGE,
    ROBOTS_RELATIVE_SITEMAP,
    ROBOTS_BAD_SITEMAP,
    ROBOTS_NO_SITEMAPS,
    NO_SITEMAPS,
)


def fetch_issue(
    code: str, severity: Severity, message: str, source: str = "", hint: str = ""
) -> Issue:
    """An Issue about fetching (no line or column: it concerns the whole document)."""
    return Issue(code, severity, message, 0, 0, source, hint)


# Places sites put sitemaps when robots.txt names none (configurable).
WELL_KNOWN: tuple[str, ...] = (
    "/sitemap.xml",
    "/sitemap_index.xml",
    "/sitemap-index.xml",
    "/sitemap.xml.gz",
    "/wp-sitemap.xml",
    "/sitemap.txt",
)

# Reader codes that mean a document was read only in part: its entries are kept, and the
# result is labelled partial.
INCOMPLETE_CODES = frozenset(
    {
        "truncated",
        "truncated-entry",
        "gzip-truncated",
        "gzip-corrupt",
        "decompressed-size-limit",
        "entry-limit",
        "depth-limit",  # the reader's: XML nested too deeply
        "not-well-formed",  # the parser recovered; entries at the break may be lost
    }
)

# Formats the reader reports that hold entries; "html" and "unknown" do not.
_USABLE_FORMATS = frozenset({"urlset", "sitemapindex", "rss", "atom", "text"})


# ----------------------------------------------------------------------------- values
@dataclass(frozen=True, slots=True)
class DiscoveryOptions:
    """What discovery follows and where it stops; every cap is reported when hit."""

    max_depth: int = 5  # index nesting below the first sitemap (0: only the first level)
    max_sitemaps: int = 10_000
    max_urls: int = 50_000_000
    well_known: tuple[str, ...] = WELL_KNOWN
    follow_cross_host: bool = False  # follow index children on another host
    # an https start that cannot be connected to is tried over http (a start the user gave
    # without a scheme); the run reports it
    http_fallback: bool = False


@dataclass(frozen=True, slots=True)
class CacheRecord:
    """What a previous run stored about one sitemap (see fetchcache.py)."""

    url: str
    etag: str | None = None
    last_modified: str | None = None  # the HTTP header, as sent by the server
    index_lastmod: Lastmod | None = None  # the parent index's <lastmod> at that fetch
    has_result: bool = True  # parsed entries are stored and can be reused
    outdated: str | None = None  # why a stored result is not reused (an older cache format)


@dataclass(frozen=True, slots=True)
class FetchRequest:
    """Fetch ``url``. ``kind`` says what the body is; ``cached_only``: do not go to the network,
    answer from the stored result of an earlier run."""

    url: str
    kind: Literal["robots", "sitemap"]
    headers: tuple[tuple[str, str], ...] = ()
    probe: bool = False  # a well-known location: absence is normal, not a failure
    index_lastmod: Lastmod | None = None  # to store with the result
    cached_only: bool = False
    # False: when no connection can be made, give up at once (another way will be tried)
    retry_unreachable: bool = True


@dataclass(slots=True)
class FetchResponse:
    """What a driver learned about a FetchRequest.

    ``status`` is None when no HTTP answer arrived (then ``error`` says why). For a sitemap,
    ``items`` are the reader's events for the whole body and ``format``/``fatal`` its verdict;
    for robots.txt, ``body`` holds the (possibly truncated) bytes. ``issues`` are the driver's
    own findings (retries, redirects, timeouts, content type).
    """

    request: FetchRequest
    url: str  # final URL after redirects
    status: int | None
    headers: Mapping[str, str] = field(default_factory=dict)
    items: Sequence[Url | SitemapRef | Issue] = ()
    format: str | None = None
    fatal: bool = False
    body: bytes = b""
    truncated: bool = False
    error: str | None = None
    issues: Sequence[Issue] = ()
    bytes_received: int = 0
    seconds: float = 0.0
    from_cache: bool = False
    # the Urls, when a driver delivers them apart from ``items`` (a parse worker's batch)
    urls: Sequence[Url] | None = None
    # no connection could be made at all (refused, TLS handshake, connect timeout), so no
    # HTTP exchange took place; a failed DNS lookup is not counted (no scheme would help)
    unreachable: bool = False


class NodeState(StrEnum):
    PENDING = "pending"
    OK = "ok"
    NOT_MODIFIED = "not-modified"  # 304, stored result reused
    UNCHANGED = "unchanged"  # not fetched: index lastmod unchanged, stored result reused
    PARTIAL = "partial"  # read only in part (truncated, a size limit): what was read is kept
    FAILED = "failed"
    ABSENT = "absent"  # a well-known location that does not exist
    SKIPPED = "skipped"  # not fetched: loop, cap, depth, host rule
    DUPLICATE = "duplicate"  # redirected to a sitemap already read
    UNREACHABLE = "unreachable"  # an https start that could not be connected to; read over http

    def __str__(self) -> str:
        return self.value


_DONE_OK = (NodeState.OK, NodeState.NOT_MODIFIED, NodeState.UNCHANGED, NodeState.PARTIAL)


@dataclass(slots=True, eq=False)
class SitemapNode:
    """One document in the tree: robots.txt, an index, or a sitemap."""

    url: str
    kind: Literal["robots", "sitemap"]
    via: Literal["start", "robots", "index", "well-known"]
    depth: int
    parent: SitemapNode | None = None
    state: NodeState = NodeState.PENDING
    final_url: str | None = None
    status: int | None = None
    format: str | None = None
    url_count: int = 0
    ref_count: int = 0
    bytes: int = 0
    seconds: float = 0.0
    from_cache: bool = False
    issues: list[Issue] = field(default_factory=list)
    children: list[SitemapNode] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.state in _DONE_OK

    @property
    def failed(self) -> bool:
        return self.state is NodeState.FAILED

    def walk(self) -> Iterable[SitemapNode]:
        yield self
        for child in self.children:
            yield from child.walk()


@dataclass(frozen=True, slots=True)
class SitemapRead:
    """A sitemap was read: its URLs (after the caps), ready to be written out."""

    node: SitemapNode
    urls: Sequence[Url]


class _NeedResponse:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NEED_RESPONSE"


NEED_RESPONSE = _NeedResponse()
Event = FetchRequest | SitemapRead | _NeedResponse


@dataclass(slots=True)
class DiscoveryResult:
    """The outcome: the tree (``roots``), totals, and what went wrong."""

    start: str
    roots: list[SitemapNode]
    issues: list[Issue]  # about the run as a whole (caps, nothing found)
    url_count: int
    sitemaps_read: int
    failed: list[SitemapNode]
    incomplete: list[SitemapNode]  # read only in part
    limits_hit: list[str]  # issue codes of the caps that cut the result short

    @property
    def partial(self) -> bool:
        """Some sitemap failed or was read only in part, or a cap cut the result short."""
        return bool(self.failed or self.incomplete or self.limits_hit)

    @property
    def nothing(self) -> bool:
        """Not a single sitemap could be read."""
        return self.sitemaps_read == 0

    def nodes(self) -> Iterable[SitemapNode]:
        for root in self.roots:
            yield from root.walk()


# ----------------------------------------------------------------------------- helpers
def _host(url: str) -> str:
    return (urlsplit(url).hostname or "").lower()


def robots_url(url: str) -> str:
    """The robots.txt of the site ``url`` is on."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def start_kind(url: str) -> Literal["site", "robots", "sitemap"]:
    """How a start URL is read: a site root, a robots.txt, or a sitemap."""
    parts = urlsplit(url)
    path = parts.path
    if path in ("", "/") and not parts.query:  # "/?sitemap=1" names a (CMS) sitemap
        return "site"
    if path == "/robots.txt":
        return "robots"
    return "sitemap"


def _instant(value: Lastmod) -> datetime:
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    assert isinstance(value, date)
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


def _not_newer(lastmod: Lastmod, than: Lastmod) -> bool:
    return _instant(lastmod) <= _instant(than)


# ----------------------------------------------------------------------------- the core
class Discovery:
    """The discovery state machine; ``run()`` is the generator described in the module doc."""

    def __init__(
        self,
        start: str,
        options: DiscoveryOptions | None = None,
        known: Mapping[str, CacheRecord] | None = None,
    ) -> None:
        self.start = to_uri(start, field="start URL")
        self.options = options or DiscoveryOptions()
        self.known: Mapping[str, CacheRecord] = known or {}
        self.roots: list[SitemapNode] = []
        self.issues: list[Issue] = []
        self.url_count = 0
        self.sitemaps_requested = 0
        self.limits_hit: list[str] = []
        self._skipped_by_cap = 0
        self._outbox: deque[Event] = deque()
        self._in_flight: dict[FetchRequest, SitemapNode] = {}
        # every sitemap URL requested or reached by a redirect -> its node
        self._seen: dict[str, SitemapNode] = {}
        self._probes_open = 0
        self._found_by_probe = 0
        self._retried_uncached: set[str] = set()
        self._fell_back = False

    # -- generator protocol
    def run(self) -> Generator[Event, FetchResponse | None, DiscoveryResult]:
        self._begin()
        pending: deque[FetchResponse] = deque()
        while True:
            while self._outbox:
                got = yield self._outbox.popleft()
                if got is not None:
                    pending.append(got)
            if pending:
                self._handle(pending.popleft())
                continue
            if not self._in_flight:
                return self._result()
            got = yield NEED_RESPONSE
            if got is None:
                raise RuntimeError("discovery is waiting for the response to a request it made")
            self._handle(got)

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
        self._send(FetchRequest(url, "robots", retry_unreachable=retry), node)

    def _send(self, request: FetchRequest, node: SitemapNode) -> None:
        self._in_flight[request] = node
        self._outbox.append(request)

    def _request(
        self,
        node: SitemapNode,
        *,
        probe: bool = False,
        index_lastmod: Lastmod | None = None,
        retry_unreachable: bool = True,
    ) -> None:
        self._seen[node.url] = node
        if not probe:
            self.sitemaps_requested += 1
        record = self.known.get(node.url)
        headers: list[tuple[str, str]] = []
        cached_only = False
        if record is not None and record.outdated:
            node.issues.append(
                fetch_issue(CACHE_OUTDATED, Severity.INFO, record.outdated, node.url)
            )
        if record is not None and record.has_result:
            if (
                index_lastmod is not None
                and record.index_lastmod is not None
                and _not_newer(index_lastmod, record.index_lastmod)
                and node.url not in self._retried_uncached
            ):
                cached_only = True
            if record.etag:
                headers.append(("If-None-Match", record.etag))
            if record.last_modified:
                headers.append(("If-Modified-Since", record.last_modified))
        self._send(
            FetchRequest(
                node.url,
                "sitemap",
                tuple(headers),
                probe=probe,
                index_lastmod=index_lastmod,
                cached_only=cached_only,
                retry_unreachable=retry_unreachable,
            ),
            node,
        )

    def _add_sitemap(
        self,
        parent: SitemapNode,
        loc: str,
        via: Literal["robots", "index", "well-known"],
        lastmod: Lastmod | None = None,
    ) -> None:
        """A sitemap named by robots.txt, an index, or a well-known location."""
        depth = parent.depth + 1 if parent.kind == "sitemap" else 0
        if via == "well-known":
            node = SitemapNode(loc, "sitemap", via, depth, parent)
            parent.children.append(node)
            if loc in self._seen:
                node.state = NodeState.DUPLICATE
                return
            self._probes_open += 1
            self._request(node, probe=True)
            return
        if via == "index" and self._is_ancestor(loc, parent):
            what = "itself" if loc in (parent.url, parent.final_url) else "an index above it"
            skipped = SitemapNode(loc, "sitemap", via, depth, parent, NodeState.SKIPPED)
            skipped.issues.append(
                fetch_issue(
                    INDEX_LOOP,
                    Severity.ERROR,
                    f"the index lists {what}; not followed",
                    parent.url,
                )
            )
            parent.children.append(skipped)
            return
        if loc in self._seen:
            parent.issues.append(
                fetch_issue(
                    DUPLICATE_SITEMAP,
                    Severity.INFO,
                    f"{loc} is already listed elsewhere; read once",
                    parent.url,
                )
            )
            return
        node = SitemapNode(loc, "sitemap", via, depth, parent)
        if (
            via == "index"
            and not self.options.follow_cross_host
            and _host(loc) != _host(parent.final_url or parent.url)
        ):
            node.state = NodeState.SKIPPED
            node.issues.append(
                fetch_issue(
                    CROSS_HOST_SITEMAP,
                    Severity.WARNING,
                    f"the index on {_host(parent.final_url or parent.url)} lists a sitemap on "
                    f"{_host(loc)}; an index may only list sitemaps of its own site",
                    loc,
                    "use --follow-cross-host to fetch it anyway",
                )
            )
            parent.children.append(node)
            return
        if depth > self.options.max_depth:
            node.state = NodeState.SKIPPED
            node.issues.append(
                fetch_issue(
                    DEPTH_LIMIT,
                    Severity.WARNING,
                    f"index nesting deeper than {self.options.max_depth}; not followed",
                    loc,
                    "raise --max-depth",
                )
            )
            parent.children.append(node)
            self._hit(DEPTH_LIMIT)
            return
        if self.sitemaps_requested >= self.options.max_sitemaps or self._url_cap_reached():
            self._skipped_by_cap += 1
            self._hit(
                URL_LIMIT if self._url_cap_reached() else SITEMAP_LIMIT,
            )
            return
        parent.children.append(node)
        self._request(node, index_lastmod=lastmod)

    def _is_ancestor(self, loc: str, node: SitemapNode) -> bool:
        current: SitemapNode | None = node
        while current is not None:
            if loc == current.url or loc == current.final_url:
                return True
            current = current.parent
        return False

    def _url_cap_reached(self) -> bool:
        return self.url_count >= self.options.max_urls

    def _hit(self, code: str) -> None:
        if code not in self.limits_hit:
            self.limits_hit.append(code)

    # -- responses
    def _handle(self, response: FetchResponse) -> None:
        node = self._in_flight.pop(response.request, None)
        if node is None:
            raise RuntimeError(
                f"a response for a request discovery did not make: {response.request}"
            )
        node.final_url = response.url
        node.status = response.status
        node.bytes += response.bytes_received
        node.seconds += response.seconds
        node.from_cache = response.from_cache
        node.issues.extend(response.issues)
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
                if self._probes_open == 0 and self._found_by_probe == 0:
                    self._nothing_found(node.parent)

    def _fall_back(self, node: SitemapNode, response: FetchResponse) -> None:
        """The https start could not be connected to: start again over http, and say so."""
        self._fell_back = True
        node.state = NodeState.UNREACHABLE
        node.issues = [_quiet(i) for i in node.issues]  # expected now: kept, as information
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

    def _handle_robots(self, node: SitemapNode, response: FetchResponse) -> None:
        status = response.status
        if response.error is not None or status is None or not 200 <= status < 300:
            node.state = NodeState.ABSENT if status in (404, 410) else NodeState.FAILED
            reason = response.error or f"HTTP {status}"
            severity = Severity.INFO if node.state is NodeState.ABSENT else Severity.WARNING
            node.issues.append(
                fetch_issue(
                    ROBOTS_UNAVAILABLE,
                    severity,
                    f"robots.txt could not be read ({reason}); trying well-known locations",
                    node.url,
                )
            )
            # a missing robots.txt is normal; trying the usual places is the best effort
            if node.state is NodeState.FAILED:
                node.state = NodeState.ABSENT
            self._probe_well_known(node)
            return
        node.state = NodeState.OK
        if response.truncated:
            node.issues.append(
                fetch_issue(
                    ROBOTS_TOO_LARGE,
                    Severity.WARNING,
                    f"robots.txt is larger than the {response.bytes_received:,} bytes read; "
                    "the rest was ignored",
                    node.url,
                )
            )
        base = response.url or node.url
        found = 0
        for value in robots_sitemaps(response.body):
            if "{{" in value or "{%" in value:
                node.issues.append(
                    fetch_issue(
                        ROBOTS_BAD_SITEMAP,
                        Severity.WARNING,
                        f"Sitemap: {value!r} is an unrendered template placeholder; skipped",
                        node.url,
                    )
                )
                continue
            absolute = urljoin(base, value)
            try:
                loc = to_uri(absolute, field="Sitemap")
            except InvalidValue as exc:
                node.issues.append(
                    fetch_issue(
                        ROBOTS_BAD_SITEMAP,
                        Severity.WARNING,
                        f"Sitemap: {value!r} is not a usable URL ({exc.reason})",
                        node.url,
                    )
                )
                continue
            if not urlsplit(value).scheme:
                node.issues.append(
                    fetch_issue(
                        ROBOTS_RELATIVE_SITEMAP,
                        Severity.WARNING,
                        f"Sitemap: {value!r} is relative; read as {loc}",
                        node.url,
                        "write the full URL, as the protocol asks",
                    )
                )
            found += 1
            self._add_sitemap(node, loc, "robots")
        node.ref_count = found
        if not found:
            node.issues.append(
                fetch_issue(
                    ROBOTS_NO_SITEMAPS,
                    Severity.INFO,
                    "robots.txt names no sitemap; trying well-known locations",
                    node.url,
                )
            )
            self._probe_well_known(node)

    def _probe_well_known(self, robots: SitemapNode) -> None:
        base = robots.final_url or robots.url
        paths = self.options.well_known
        for path in paths:
            try:
                loc = to_uri(urljoin(base, path), field="well-known location")
            except InvalidValue:
                continue
            self._add_sitemap(robots, loc, "well-known")
        if not paths or self._probes_open == 0:
            self._nothing_found(robots)

    def _nothing_found(self, robots: SitemapNode | None) -> None:
        # say why robots.txt gave nothing: a site without one differs from one unreachable
        unread = (
            [] if robots is None else [i for i in robots.issues if i.code == ROBOTS_UNAVAILABLE]
        )
        if not unread:
            why = "robots.txt names none"
        elif unread[0].severity is Severity.INFO:
            why = "there is no robots.txt"
        else:
            why = "robots.txt could not be read"
        self.issues.append(
            fetch_issue(
                NO_SITEMAPS,
                Severity.ERROR,
                f"no sitemap found: {why} and no well-known location has one",
                robots.url if robots is not None else self.start,
                "give the sitemap URL directly",
            )
        )

    def _handle_sitemap(self, node: SitemapNode, response: FetchResponse) -> None:
        request = response.request
        status = response.status
        if request.cached_only and response.error is not None:
            # the stored result is gone: fetch it for real
            node.issues = [i for i in node.issues if i not in response.issues]
            self._retried_uncached.add(node.url)
            if not request.probe:
                self.sitemaps_requested -= 1
            self._request(node, probe=request.probe, index_lastmod=request.index_lastmod)
            return
        if response.error is not None or status is None:
            node.state = NodeState.ABSENT if request.probe else NodeState.FAILED
            if not any(i.severity is Severity.ERROR for i in response.issues):
                node.issues.append(
                    fetch_issue(
                        FETCH_FAILED, Severity.ERROR, response.error or "no answer", node.url
                    )
                )
            if request.probe:
                node.issues = [_quiet(i) for i in node.issues]
            return
        final = response.url
        if final != node.url:
            if self._is_ancestor(final, node.parent) if node.parent else False:
                node.state = NodeState.FAILED
                node.issues.append(
                    fetch_issue(
                        INDEX_LOOP,
                        Severity.ERROR,
                        f"redirects to {final}, an index above it; not read",
                        node.url,
                    )
                )
                return
            other = self._seen.get(final)
            if other is not None and other is not node:
                node.state = NodeState.DUPLICATE
                node.issues.append(
                    fetch_issue(
                        DUPLICATE_SITEMAP,
                        Severity.INFO,
                        f"redirects to {final}, which is read already",
                        node.url,
                    )
                )
                return
            self._seen[final] = node
        if not (200 <= status < 300 or (status == 304 and response.from_cache)):
            if request.probe:
                node.state = NodeState.ABSENT
                return
            node.state = NodeState.FAILED
            node.issues.append(fetch_issue(HTTP_STATUS, Severity.ERROR, f"HTTP {status}", node.url))
            return
        node.format = response.format
        if response.fatal or response.format not in _USABLE_FORMATS:
            if request.probe:
                node.state = NodeState.ABSENT
                return
            node.state = NodeState.FAILED
            if response.format in _USABLE_FORMATS:
                message = f"the {response.format} document could not be read; no entries kept"
            else:
                what = {"html": "an HTML page", None: "empty"}.get(response.format, "not a sitemap")
                message = f"HTTP {status} but the body is {what}; no entries read"
            node.issues.append(fetch_issue(NOT_A_SITEMAP, Severity.ERROR, message, node.url))
            node.issues.extend(i for i in response.items if isinstance(i, Issue))
            return
        if request.cached_only:
            node.state = NodeState.UNCHANGED
            node.issues.append(
                fetch_issue(
                    UNCHANGED,
                    Severity.INFO,
                    "not fetched: the index's lastmod is unchanged since the cached copy",
                    node.url,
                )
            )
        elif status == 304:
            node.state = NodeState.NOT_MODIFIED
            node.issues.append(
                fetch_issue(NOT_MODIFIED, Severity.INFO, "304: the cached copy is reused", node.url)
            )
        else:
            node.state = NodeState.OK
        self._take_items(node, response.items, response.urls)

    def _take_items(
        self,
        node: SitemapNode,
        items: Sequence[Url | SitemapRef | Issue],
        given: Sequence[Url] | None = None,
    ) -> None:
        # the reader's events are nearly all Urls: split them off in two C-speed passes
        others = [item for item in items if type(item) is not Url]
        urls: Sequence[Url]
        if given is not None and len(others) == len(items):
            urls = given
        elif not others:
            urls = items if isinstance(items, list) else list(items)  # type: ignore[arg-type]
        else:
            urls = [item for item in items if type(item) is Url]
        refs: list[SitemapRef] = []
        for item in others:
            if type(item) is SitemapRef:
                refs.append(item)
            else:
                node.issues.append(item)  # type: ignore[arg-type]
                if item.code in INCOMPLETE_CODES:  # type: ignore[union-attr]
                    node.state = NodeState.PARTIAL
        room = max(0, self.options.max_urls - self.url_count)
        dropped = 0
        if len(urls) > room:
            dropped = len(urls) - room
            urls = urls[:room]
        node.url_count = len(urls)
        node.ref_count = len(refs)
        self.url_count += len(urls)
        if dropped:
            self._hit(URL_LIMIT)
            node.issues.append(
                fetch_issue(
                    URL_LIMIT,
                    Severity.WARNING,
                    f"the URL cap ({self.options.max_urls:,}) was reached; "
                    f"{dropped:,} URLs of this sitemap were left out",
                    node.url,
                    "raise --max-urls",
                )
            )
        if urls:
            self._outbox.append(SitemapRead(node, urls))
        for ref in refs:
            self._add_sitemap(node, ref.loc, "index", ref.lastmod)

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
                    f"{self._skipped_by_cap:,} listed sitemaps were not fetched: the cap of "
                    + (
                        f"{self.options.max_sitemaps:,} sitemaps"
                        if code == SITEMAP_LIMIT
                        else f"{self.options.max_urls:,} URLs"
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
        )


def _quiet(issue: Issue) -> Issue:
    """A probe's failure is expected: keep it, as information."""
    return issue._replace(severity=Severity.INFO)


def robots_sitemaps(body: bytes) -> list[str]:
    """The ``Sitemap:`` values of a robots.txt, in order, as written (protego's parse).

    Decoded with utf-8-sig: a byte-order mark would otherwise hide the first line.
    """
    from protego import Protego

    text = body.decode("utf-8-sig", errors="replace")
    parsed = Protego.parse(text)
    values: list[str] = []
    for value in parsed.sitemaps:
        value = str(value).strip()
        if value and value not in values:
            values.append(value)
    return values


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

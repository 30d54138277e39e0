"""The values the discovery flow takes in and gives out (no logic beyond their own).

In: DiscoveryOptions (what to follow, where to stop) and CacheRecords (what an earlier run
stored). Exchanged with a driver: FetchRequest out, FetchResponse back, NEED_RESPONSE when the
flow waits. Out: SitemapRead (URLs ready to write) and the DiscoveryResult, a tree of
SitemapNodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Literal
from urllib.parse import urlsplit

from ..dates import Lastmod
from ..model import Issue, Severity, SitemapRef, Url

# Places sites put sitemaps when robots.txt names none (configurable).
# Where sites without a robots.txt Sitemap: line keep their sitemaps, most common first: the
# generic names, gzipped ones, CMS defaults (WordPress core, Yoast and Rank Math's
# post-/page- children, Drupal's xmlsitemap without clean URLs, PHP generators), a folder,
# the text form, and Google News sitemaps under their usual names. Each is one request, not
# retried; a sitemap already found (named, listed or reached by a redirect) is read once.
WELL_KNOWN: tuple[str, ...] = (
    "/sitemap.xml",
    "/sitemap_index.xml",
    "/sitemap-index.xml",
    "/sitemap.xml.gz",
    "/sitemap_index.xml.gz",
    "/wp-sitemap.xml",
    "/sitemap.php",
    "/sitemap.txt",
    "/sitemap/sitemap.xml",
    "/sitemap/index.xml",
    "/sitemaps.xml",
    "/index.php?q=sitemap.xml",
    "/post-sitemap.xml",
    "/page-sitemap.xml",
    "/sitemap_news.xml",
    "/sitemap-news.xml",
    "/news-sitemap.xml",
)


_DEFAULT_PORTS = {"http": 80, "https": 443}


def site_of(url: str) -> str:
    """The host of a URL with its port when that is not its scheme's default: what a
    sitemap index's children and a sitemap's redirect must keep ("If you submit a Sitemap
    using a path with a port number, you must include that port number ... in each URL",
    sitemaps.org 0.9). Another port of the same host is another site (cross-submission)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None or port == _DEFAULT_PORTS.get(parts.scheme.lower()):
        return host
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


@dataclass(frozen=True, slots=True)
class DiscoveryOptions:
    """What discovery follows and where it stops; every cap is reported when hit."""

    max_depth: int = 5  # index nesting below the first sitemap (0: only the first level)
    max_sitemaps: int = 10_000
    max_urls: int = 50_000_000
    well_known: tuple[str, ...] = WELL_KNOWN
    # try the well-known locations even when robots.txt names sitemaps (those it names, and
    # their children, are still read once)
    probe_always: bool = False
    follow_cross_host: bool = False  # follow index children on another host
    # an https start that cannot be connected to is tried over http (a start the user gave
    # without a scheme); the run reports it
    http_fallback: bool = False
    # with a cache: ask for every child conditionally, even when its index's lastmod says it
    # did not change (for publishers whose index lastmod is not kept up to date)
    revalidate: bool = False
    # URLs are passed on in document order; those read ahead of a document still awaited are
    # held, and above this many no further request is made until it comes; with at most
    # ``ahead`` requests out at once, what is held stays bounded
    hold_urls: int = 50_000
    ahead: int = 64
    # selective fetch (Scrapy's sitemap_follow and sitemap_filter): only the index children
    # whose URL this regular expression matches (re.search) are downloaded; robots.txt's
    # sitemaps and the start always are
    follow: str | None = None
    # only entries with a lastmod at or after this (an aware datetime; a date-only lastmod
    # counts as the start of its day, UTC); an index child whose lastmod is before it is not
    # downloaded (one without a lastmod is: it may hold news)
    since: datetime | None = None


@dataclass(frozen=True, slots=True)
class CacheRecord:
    """What a previous run stored about one sitemap (see cache.py)."""

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
    # "page": an HTML page for a crawl; its body is kept as bytes (up to max_page_bytes)
    kind: Literal["robots", "sitemap", "page"]
    headers: tuple[tuple[str, str], ...] = ()
    probe: bool = False  # a well-known location: absence is normal, not a failure
    index_lastmod: Lastmod | None = None  # to store with the result
    cached_only: bool = False
    # False: when no connection can be made, give up at once (another way will be tried)
    retry_unreachable: bool = True
    # "HEAD": a page's status and headers without its body (the audit asks so first where
    # the body is not needed)
    method: Literal["GET", "HEAD"] = "GET"


@dataclass(slots=True)
class FetchResponse:
    """What a driver learned about a FetchRequest.

    ``status`` is None when no HTTP answer arrived (then ``error`` says why). For a sitemap,
    ``items`` are the reader's events for the whole body and ``format``/``fatal`` its verdict;
    for robots.txt and an HTML page, ``body`` holds the (possibly truncated) bytes. ``issues`` are the driver's
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
    # False: no request went out (answered from the cache alone, or the run's deadline had
    # passed)
    requested: bool = True
    # a redirect the Fetcher's ``may_follow`` refused: its target, not requested (``error``
    # says why)
    unfollowed: str | None = None
    # each redirect followed on the way to ``url``: (its status, the URL it pointed to)
    redirects: Sequence[tuple[int, str]] = ()


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
    # "page": an HTML page for a crawl; its body is kept as bytes (up to max_page_bytes)
    kind: Literal["robots", "sitemap", "page"]
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
    requested: bool = False  # a request for it went out (not: unchanged, skipped, too late)
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
    # left out on purpose by DiscoveryOptions.follow and .since (not a partial result)
    not_followed: int = 0  # index children whose URL --follow does not match
    older_sitemaps: int = 0  # index children whose lastmod is before --since
    older_urls: int = 0  # entries whose lastmod is before --since, or that have none

    @property
    def errors(self) -> list[Issue]:
        """Every error found, on any document or about the run (an index loop, an entry the
        reader could not keep, a sitemap that failed)."""
        found = [i for i in self.issues if i.severity is Severity.ERROR]
        for node in self.nodes():
            found.extend(i for i in node.issues if i.severity is Severity.ERROR)
        return found

    @property
    def partial(self) -> bool:
        """Some sitemap failed or was read only in part, a cap cut the result short, or
        something was found in error: the result is not the whole of what was asked for."""
        return bool(self.failed or self.incomplete or self.limits_hit or self.errors)

    @property
    def nothing(self) -> bool:
        """Not a single sitemap could be read."""
        return self.sitemaps_read == 0

    def nodes(self) -> Iterable[SitemapNode]:
        for root in self.roots:
            yield from root.walk()

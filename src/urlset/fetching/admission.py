"""What discovery asks for: the run's state, and which sitemaps are admitted and how.

In: a sitemap named by robots.txt, an index or a well-known location, with the parent node it
came from. Out: a node in the tree and, when it is admitted, a FetchRequest in the outbox,
conditional on the cache (validators, or the stored result alone when the index's lastmod
says it did not change). Refused: loops, repeats, other hosts, too deep, over a cap, each
reported on the node.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping
from datetime import UTC
from typing import Any, Literal

from ..dates import Lastmod, instant
from ..model import Issue, Severity
from ..urls import to_uri
from .issues import (
    CACHE_OUTDATED,
    CROSS_HOST_SITEMAP,
    DEPTH_LIMIT,
    DUPLICATE_SITEMAP,
    INDEX_LOOP,
    SITEMAP_LIMIT,
    URL_LIMIT,
    fetch_issue,
)
from .values import (
    CacheRecord,
    DiscoveryOptions,
    Event,
    FetchRequest,
    NodeState,
    SitemapNode,
    SitemapRead,
    site_of,
)


def _not_newer(lastmod: Lastmod, than: Lastmod) -> bool:
    return instant(lastmod) <= instant(than)


class Admission:
    """The state of one discovery run, and the requests it makes for the sitemaps it admits.

    The stages (robots.py, sitemap_stage.py) and the Discovery flow build on it."""

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
        follow = self.options.follow
        self._follow = re.compile(follow) if follow else None
        since = self.options.since
        if since is not None and since.tzinfo is None:  # a time without a zone is UTC's
            since = since.replace(tzinfo=UTC)
        self.since = since
        self.not_followed = 0
        self.older_sitemaps = 0
        self.older_urls = 0
        self._outbox: deque[Event] = deque()
        self._in_flight: dict[FetchRequest, SitemapNode] = {}
        # every sitemap URL requested or reached by a redirect -> its node
        self._seen: dict[str, SitemapNode] = {}
        self._probes_open = 0
        self._found_by_probe = 0
        self._retried_uncached: set[str] = set()
        self._fell_back = False
        # URLs read but not yet passed on (see Discovery._release), and where it has got to
        self._held: dict[SitemapNode, SitemapRead] = {}
        self._held_urls = 0
        self._deferred: dict[SitemapNode, FetchRequest] = {}  # requests not yet passed on
        self._deferred_order: deque[SitemapNode] = deque()  # their order (may hold passed ones)
        self._passed = 0  # requests passed on and not yet answered
        self._cursor: list[list[Any]] = [[self.roots, 0]]

    def _send(self, request: FetchRequest, node: SitemapNode) -> None:
        self._in_flight[request] = node
        self._deferred[node] = request  # passed on by Discovery._release, in order
        self._deferred_order.append(node)

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
        cached_only = False
        if record is not None and record.outdated:
            node.issues.append(
                fetch_issue(CACHE_OUTDATED, Severity.INFO, record.outdated, node.url)
            )
        if (
            record is not None
            and record.has_result
            and not self.options.revalidate
            and index_lastmod is not None
            and record.index_lastmod is not None
            and _not_newer(index_lastmod, record.index_lastmod)
            and node.url not in self._retried_uncached
        ):
            cached_only = True
        self._send(
            FetchRequest(
                node.url,
                "sitemap",
                self._validators(node.url),
                probe=probe,
                index_lastmod=index_lastmod,
                cached_only=cached_only,
                retry_unreachable=retry_unreachable,
            ),
            node,
        )

    def _validators(self, url: str) -> tuple[tuple[str, str], ...]:
        """The headers that make a request conditional on the stored copy, if there is one."""
        record = self.known.get(url)
        headers: list[tuple[str, str]] = []
        if record is not None and record.has_result:
            if record.etag:
                headers.append(("If-None-Match", record.etag))
            if record.last_modified:
                headers.append(("If-Modified-Since", record.last_modified))
        return tuple(headers)

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
            self._add_probe(parent, loc, depth)
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
        if via == "index" and not self._selected(loc, lastmod):
            return
        node = SitemapNode(loc, "sitemap", via, depth, parent)
        home = site_of(parent.final_url or parent.url)
        if via == "index" and not self.options.follow_cross_host and site_of(loc) != home:
            node.state = NodeState.SKIPPED
            node.issues.append(
                fetch_issue(
                    CROSS_HOST_SITEMAP,
                    Severity.WARNING,
                    f"the index on {home} lists a sitemap on {site_of(loc)}; an index may "
                    "only list sitemaps of its own site (host and port)",
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

    def _selected(self, loc: str, lastmod: Lastmod | None) -> bool:
        """Whether an index child is wanted: its URL matches ``follow`` and its lastmod (when
        given) is not before ``since``; those left out are counted, not fetched."""
        if self._follow is not None and self._follow.search(loc) is None:
            self.not_followed += 1
            return False
        since = self.since
        if since is not None and lastmod is not None and instant(lastmod) < since:
            self.older_sitemaps += 1
            return False
        return True

    def _add_probe(self, parent: SitemapNode, loc: str, depth: int) -> None:
        """A well-known location, asked for unless it is already (its absence is normal)."""
        node = SitemapNode(loc, "sitemap", "well-known", depth, parent)
        parent.children.append(node)
        if loc in self._seen:
            node.state = NodeState.DUPLICATE
            return
        self._probes_open += 1
        self._request(node, probe=True)

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

"""The sitemap stage: a sitemap's answer judged, its URLs counted, its children admitted.

In: the answer to a sitemap request (the reader's events, or the stored result). Out: the
node's state and issues, a SitemapRead with the URLs under the URL cap, and each child of an
index admitted (Admission). A stored result that is gone is asked for again over the network.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..codes import plural
from ..dates import instant
from ..model import Issue, Severity, SitemapRef, Url
from .admission import Admission
from .issues import (
    DUPLICATE_SITEMAP,
    FETCH_FAILED,
    HTTP_STATUS,
    INCOMPLETE_CODES,
    INDEX_LOOP,
    NOT_A_SITEMAP,
    NOT_MODIFIED,
    UNCHANGED,
    URL_LIMIT,
    fetch_issue,
    quiet,
)
from .values import FetchResponse, NodeState, SitemapNode, SitemapRead

# Formats the reader reports that hold entries; "html" and "unknown" do not.
_USABLE_FORMATS = frozenset({"urlset", "sitemapindex", "rss", "atom", "text"})


class SitemapStage(Admission):
    """Reads sitemap answers into the tree (mixed into Discovery)."""

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
        if request.cached_only:
            if response.url == node.url or self._redirect_admitted(node, response.url):
                self._unchanged(node, response)
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
                node.issues = [quiet(i) for i in node.issues]
            return
        final = response.url
        if final != node.url and not self._redirect_admitted(node, final):
            return
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
        if status == 304:
            node.state = NodeState.NOT_MODIFIED
            node.issues.append(
                fetch_issue(NOT_MODIFIED, Severity.INFO, "304: the cached copy is reused", node.url)
            )
        else:
            node.state = NodeState.OK
        if any(i.code in INCOMPLETE_CODES for i in response.issues):
            node.state = NodeState.PARTIAL  # cut off: what was read is kept
        self._take_items(node, response.items, response.urls)

    def _unchanged(self, node: SitemapNode, response: FetchResponse) -> None:
        """Not requested: the index's lastmod says it did not change; the stored result is
        reused as it is (the protocol's incremental fetching)."""
        node.state = NodeState.UNCHANGED
        node.format = response.format
        node.status = None
        node.issues.append(
            fetch_issue(
                UNCHANGED,
                Severity.INFO,
                "not requested: the index's lastmod is unchanged since the cached copy, "
                "which is reused",
                node.url,
                "use --revalidate to ask the server anyway",
            )
        )
        self._take_items(node, response.items, response.urls)

    def _redirect_admitted(self, node: SitemapNode, final: str) -> bool:
        """Whether a sitemap that redirected to ``final`` is read: not when that is an index
        above it or a sitemap read already (the node's state and issue say which)."""
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
            return False
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
            return False
        self._seen[final] = node
        return True

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
        since = self.since
        if since is not None:  # entries of that moment or later (the fetch's render lane is off)
            newer = [u for u in urls if u.lastmod is not None and instant(u.lastmod) >= since]
            self.older_urls += len(urls) - len(newer)
            urls = newer
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
                    f"{plural(dropped, 'URL')} of this sitemap "
                    f"{'was' if dropped == 1 else 'were'} left out",
                    node.url,
                    "raise --max-urls",
                )
            )
        if urls:
            self._held[node] = SitemapRead(node, urls)  # passed on in document order
            self._held_urls += len(urls)
        for ref in refs:
            self._add_sitemap(node, ref.loc, "index", ref.lastmod)

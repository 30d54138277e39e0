"""The newest lastmod of sitemaps another generator publishes, for the index entries a build
lists them by (``urlset build --include-sitemap URL --include-fetch``).

Each sitemap is downloaded by the fetcher (GET; its timeouts, retries, size limits and
address guard; an index's children one level down, at most ``MAX_CHILDREN``), and its
URLs' newest lastmod, by check's ordering, becomes the entry's lastmod, so ``check`` finds
no stale index lastmod. A sitemap that cannot be read, or lists no lastmod, keeps the
lastmod it was given (none from the command line) and says why.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..dates import Lastmod, latest_moment
from ..model import SitemapRef
from .http import fetch_sitemaps_sync
from .http_options import HttpOptions
from .values import DiscoveryOptions, SitemapRead

MAX_CHILDREN = 100  # an included index's children read for their lastmods
DEADLINE = 60.0  # seconds for each included sitemap, its children too


def with_newest_lastmods(
    refs: Iterable[SitemapRef], http: HttpOptions | None = None
) -> tuple[list[SitemapRef], list[str]]:
    """``refs`` with the newest lastmod each sitemap lists, and a message for each one whose
    lastmod stays as given (not read, or without any lastmod)."""
    http = http or HttpOptions()
    if http.deadline is None:
        http = replace(http, deadline=DEADLINE)
    discovery = DiscoveryOptions(max_depth=1, max_sitemaps=1 + MAX_CHILDREN, well_known=())
    out: list[SitemapRef] = []
    problems: list[str] = []
    for ref in refs:
        newest: list[Lastmod] = []

        def on_read(read: SitemapRead, newest: list[Lastmod] = newest) -> None:
            found = [url.lastmod for url in read.urls if url.lastmod is not None]
            if found:
                newest.append(max([*newest, *found], key=latest_moment))
                del newest[:-1]

        result = fetch_sitemaps_sync(ref.loc, discovery=discovery, http=http, on_read=on_read)
        failed = [node for node in result.failed if node.url == ref.loc] or result.failed
        if failed and not result.sitemaps_read:
            why = "; ".join(issue.message for issue in failed[0].issues) or "not read"
            problems.append(f"{ref.loc}: {why}; listed with the lastmod it was given")
        elif not newest:
            problems.append(f"{ref.loc}: lists no lastmod; listed with the lastmod it was given")
        out.append(SitemapRef._trusted(ref.loc, newest[0]) if newest else ref)
    return out, problems

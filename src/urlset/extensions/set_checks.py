"""The extension rules that need more than one URL: news per sitemap, hreflang reciprocity.

Every check builds one ``SetChecks``, documents with extensions or not (a plain page can be
the return link another file's alternate needs), so this module loads none of the
extensions: ``news``, ``hreflang`` and the issue codes load with the first URL that has
extensions, or the first finding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from ..model import Issue, Url
from . import EXT_CODES
from .reciprocity import Reciprocity, describe


def issue(code: str, message: str, *, source: str = "") -> Issue:
    """An Issue with the severity and hint of ``code`` (from EXT_CODES)."""
    from .common import coded_issue

    return coded_issue(EXT_CODES, code, message, source=source)


class SetChecks:
    """Rules that need more than one URL. ``add`` each URL (with the sitemap it is in), then
    ``finish()``: news per sitemap (at most 1,000) and hreflang reciprocity over all URLs."""

    def __init__(self, *, max_examples: int = 1_000) -> None:
        self.reciprocity = Reciprocity()
        self._news: Counter[str] = Counter()
        self._max_examples = max_examples

    def add(self, url: Url, *, source: str = "") -> None:
        if url.extensions:
            from .news import News

            news = sum(1 for e in url.extensions if type(e) is News)
            if news:
                self._news[source] += news
        self.reciprocity.add(url)

    def add_all(self, urls: Iterable[Url], *, source: str = "") -> None:
        for url in urls:
            self.add(url, source=source)

    def finish(self) -> list[Issue]:
        out = []
        if self._news:
            from .news import MAX_NEWS_PER_SITEMAP

            out = [
                issue(
                    "too-many-news",
                    f"{count:,} news entries; the limit is {MAX_NEWS_PER_SITEMAP:,} per sitemap",
                    source=source,
                )
                for source, count in self._news.items()
                if count > MAX_NEWS_PER_SITEMAP
            ]
        return out + hreflang_findings(self.reciprocity, self._max_examples)


def hreflang_findings(reciprocity: Reciprocity, max_examples: int = 1_000) -> list[Issue]:
    """The hreflang findings across a set (check's, and build's on what it wrote): each
    missing return link (the first ``max_examples``, then a count), each variant in the set
    without alternates, each variant outside it (not verified)."""
    out = []
    missing = 0
    for link in reciprocity.missing(include_self=False):
        missing += 1
        if missing <= max_examples:
            out.append(issue("hreflang-not-reciprocal", describe(link)))
    if missing > max_examples:
        out.append(
            issue(
                "hreflang-not-reciprocal",
                f"{missing - max_examples:,} more missing return links not shown",
            )
        )
    for unlisted in reciprocity.unlisted():
        code = "hreflang-unlisted" if unlisted.in_set else "hreflang-unverified"
        what = (
            "is in this set but lists no alternates"
            if unlisted.in_set
            else "is not in this set; its return links were not checked"
        )
        out.append(
            issue(
                code,
                f"{unlisted.variant} (hreflang {unlisted.hreflang!r} of {unlisted.named_by}) "
                + what,
            )
        )
    return out

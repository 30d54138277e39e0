"""The extension rules that need more than one URL: news per sitemap, hreflang reciprocity.

Every check builds one ``SetChecks``, documents with extensions or not (a plain page can be
the return link another file's alternate needs), so this module loads none of the
extensions: ``news``, ``hreflang`` and the issue codes load with the first URL that has
extensions, or the first finding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from functools import partial

from ..model import Issue, Url
from . import EXT_CODES, KINDS
from .reciprocity import Reciprocity, Unlisted, describe


def issue(code: str, message: str, *, source: str = "") -> Issue:
    """An Issue with the severity and hint of ``code`` (from EXT_CODES)."""
    from .common import coded_issue

    return coded_issue(EXT_CODES, code, message, source=source)


class SetChecks:
    """Rules that need more than one URL. ``add`` each URL (with the sitemap it is in), then
    ``finish()``: news per sitemap (at most 1,000) and hreflang reciprocity over all URLs."""

    def __init__(self, *, max_examples: int = 1_000) -> None:
        self.reciprocity = Reciprocity()
        # typed extensions per sitemap and kind ("images", ..., as KINDS): the news limit
        # is judged on them, and check reports them (Search Console's "discovered" counts)
        self._kinds: dict[str, Counter[str]] = {}
        self._max_examples = max_examples

    def add(self, url: Url, *, source: str = "") -> None:
        if url.extensions:
            kinds = self._kinds.get(source)
            if kinds is None:
                kinds = self._kinds[source] = Counter()
            kinds.update(kind for e in url.extensions if (kind := getattr(e, "kind", None)))
        self.reciprocity.add(url)

    def add_plain_images(self, locs: Sequence[str], images: int, *, source: str = "") -> None:
        """``add`` for pages whose extensions are ``images`` images in all, each with its
        loc only (no alternates, nothing a set rule reads): counted, the pages plain."""
        kinds = self._kinds.get(source)
        if kinds is None:
            kinds = self._kinds[source] = Counter()
        kinds["images"] += images
        self.reciprocity.add_plain_many(locs)

    def discovered(self, source: str = "") -> dict[str, int]:
        """The typed extensions the URLs of ``source`` hold, by kind (each of KINDS)."""
        kinds = self._kinds.get(source, Counter())
        return {kind: kinds[kind] for kind in KINDS}

    def add_all(self, urls: Iterable[Url], *, source: str = "") -> None:
        for url in urls:
            self.add(url, source=source)

    def finish(self) -> list[Issue]:
        out = []
        if self._kinds:
            from .news import MAX_NEWS_PER_SITEMAP

            out = [
                issue(
                    "too-many-news",
                    f"{kinds['news']:,} news entries; the limit is {MAX_NEWS_PER_SITEMAP:,} "
                    "per sitemap",
                    source=source,
                )
                for source, kinds in self._kinds.items()
                if kinds["news"] > MAX_NEWS_PER_SITEMAP
            ]
        return out + hreflang_findings(self.reciprocity, self._max_examples)


def hreflang_findings(reciprocity: Reciprocity, max_examples: int = 1_000) -> list[Issue]:
    """The hreflang findings across a set (check's, and build's on what it wrote): each
    missing return link (the first ``max_examples``, then a count), each variant in the set
    without alternates, each variant outside it (not verified)."""
    return [issue(code, message()) for code, message in hreflang_found(reciprocity, max_examples)]


def hreflang_found(
    reciprocity: Reciprocity, max_examples: int = 1_000
) -> Iterator[tuple[str, Callable[[], str]]]:
    """``hreflang_findings`` as (code, its message when asked), in order: a build that only
    counts most of them (``BuildReport.count_flag``) makes no message for those."""
    missing = 0
    for link in reciprocity.missing(include_self=False):
        missing += 1
        if missing <= max_examples:
            yield "hreflang-not-reciprocal", partial(describe, link)
    if missing > max_examples:
        more = f"{missing - max_examples:,} more missing return links not shown"
        yield "hreflang-not-reciprocal", partial(str, more)
    for unlisted in reciprocity.unlisted():
        code = "hreflang-unlisted" if unlisted.in_set else "hreflang-unverified"
        yield code, partial(_unlisted_message, unlisted)


def _unlisted_message(unlisted: Unlisted) -> str:
    what = (
        "is in this set but lists no alternates"
        if unlisted.in_set
        else "is not in this set; its return links were not checked"
    )
    return f"{unlisted.variant} (hreflang {unlisted.hreflang!r} of {unlisted.named_by}) {what}"

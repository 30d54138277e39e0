"""The extension rules that need more than one URL: news per sitemap, hreflang reciprocity.

Every check builds one ``SetChecks``, documents with extensions or not (a plain page can be
the return link another file's alternate needs), so this module loads none of the
extensions: ``news``, ``hreflang`` and the issue codes load with the first URL that has
extensions, or the first finding.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple

from ..model import Issue, Url
from . import EXT_CODES, KINDS
from .reciprocity import MissingLink, Reciprocity, describe


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

    def add_kinds(self, counted: Counter[str], *, source: str = "") -> None:
        """Typed extensions counted elsewhere (check's runs of the core's records), by kind."""
        if counted:
            kinds = self._kinds.get(source)
            if kinds is None:
                kinds = self._kinds[source] = Counter()
            kinds.update(counted)

    def discovered(self, source: str = "") -> dict[str, int]:
        """The typed extensions the URLs of ``source`` hold, by kind (each of KINDS)."""
        kinds = self._kinds.get(source, Counter())
        return {kind: kinds[kind] for kind in KINDS}

    def add_all(self, urls: Iterable[Url], *, source: str = "") -> None:
        for url in urls:
            self.add(url, source=source)

    def finish(self) -> list[Issue]:
        """Every finding, the missing return links past ``max_examples`` in one line."""
        return self._news() + hreflang_findings(self.reciprocity, self._max_examples)

    def findings(self, max_per_code: int) -> SetFindings:
        """The findings as check lists every code's: at most ``max_per_code`` of each,
        in order, and how many more of each were found (held as counts only)."""
        listed, more = capped_hreflang_findings(self.reciprocity, max_per_code)
        return SetFindings(self._news() + listed, {("", code): n for code, n in more.items()})

    def _news(self) -> list[Issue]:
        """A sitemap's news past the limit (one finding a sitemap)."""
        if not self._kinds:
            return []
        from .news import MAX_NEWS_PER_SITEMAP

        return [
            issue(
                "too-many-news",
                f"{kinds['news']:,} news entries; the limit is {MAX_NEWS_PER_SITEMAP:,} "
                "per sitemap",
                source=source,
            )
            for source, kinds in self._kinds.items()
            if kinds["news"] > MAX_NEWS_PER_SITEMAP
        ]


class SetFindings(NamedTuple):
    """``SetChecks.findings``: the findings listed, and per (source, code) how many more."""

    listed: list[Issue]
    unlisted: dict[tuple[str, str], int]


def hreflang_findings(reciprocity: Reciprocity, max_examples: int = 1_000) -> list[Issue]:
    """The hreflang findings across a set (check's, and build's on what it wrote): each
    missing return link (the first ``max_examples``, then a count), each variant in the set
    without alternates, each variant outside it (not verified)."""
    found = HreflangFound(reciprocity, max_examples)
    return [issue(code, found.message(index)) for index, code in enumerate(found.codes)]


class HreflangFound:
    """``hreflang_findings`` as columns: ``codes`` in order, and ``message(index)`` made
    when asked. A build that only counts most of them (``BuildReport.flag_each``) makes
    no message, nor any object, for those."""

    def __init__(self, reciprocity: Reciprocity, max_examples: int = 1_000) -> None:
        self._links: list[MissingLink] = []
        missing = 0
        for link in reciprocity.missing(include_self=False):
            missing += 1
            if missing <= max_examples:
                self._links.append(link)
        self._more = missing - max_examples
        self._unlisted, in_set = reciprocity.unlisted_found()
        self._in_set = in_set
        self.codes = ["hreflang-not-reciprocal"] * (len(self._links) + (self._more > 0))
        self.codes += ["hreflang-unlisted" if x else "hreflang-unverified" for x in in_set]

    def message(self, index: int) -> str:
        """The message of finding ``index``."""
        if index < len(self._links):
            return describe(self._links[index])
        index -= len(self._links)
        if self._more > 0:
            if index == 0:
                return f"{self._more:,} more missing return links not shown"
            index -= 1
        variant, hreflang, named_by = self._unlisted[index]
        return unlisted_sentence(variant, hreflang, named_by, self._in_set[index])


def unlisted_sentence(variant: str, hreflang: str, named_by: str, in_set: bool) -> str:
    """The message of a variant that lists no alternates (``hreflang-unlisted`` when it is in
    the set, ``hreflang-unverified`` when not)."""
    what = (
        "is in this set but lists no alternates"
        if in_set
        else "is not in this set; its return links were not checked"
    )
    return f"{variant} (hreflang {hreflang!r} of {named_by}) {what}"


def capped_hreflang_findings(
    reciprocity: Reciprocity, max_per_code: int
) -> tuple[list[Issue], dict[str, int]]:
    """``hreflang_findings`` with at most ``max_per_code`` of each code made, in order, and
    how many more of each code there are: the rest are counted, never made, so a set of
    200,000 variants outside it holds no message for them."""
    listed: list[Issue] = []
    missing = 0
    for link in reciprocity.missing(include_self=False):
        missing += 1
        if missing <= max_per_code:
            listed.append(issue("hreflang-not-reciprocal", describe(link)))
    more = {"hreflang-not-reciprocal": missing - max_per_code}
    variants, counts = reciprocity.unlisted_capped(max_per_code)
    for variant in variants:
        code = "hreflang-unlisted" if variant.in_set else "hreflang-unverified"
        listed.append(issue(code, unlisted_sentence(*variant)))
    more["hreflang-unlisted"] = counts[True] - max_per_code
    more["hreflang-unverified"] = counts[False] - max_per_code
    return listed, {code: n for code, n in more.items() if n > 0}

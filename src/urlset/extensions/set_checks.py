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
from .reciprocity import Reciprocity, describe


def issue(code: str, message: str, *, source: str = "") -> Issue:
    """An Issue with the severity and hint of ``code`` (from EXT_CODES)."""
    from .common import coded_issue

    return coded_issue(EXT_CODES, code, message, source=source)


class SetChecks:
    """Rules that need more than one URL. ``add`` each URL (with the sitemap it is in), then
    ``finish()``: news per sitemap (at most 1,000) and hreflang reciprocity over all URLs."""

    def __init__(self, *, max_examples: int | None = None) -> None:
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
        """Every finding (with ``max_examples``, the first that many of each hreflang code;
        ``findings`` says how many more)."""
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


def hreflang_findings(reciprocity: Reciprocity, max_examples: int | None = None) -> list[Issue]:
    """The hreflang findings across a set: each missing return link, each variant in the set
    without alternates, each variant outside it (not verified); with ``max_examples``, the
    first that many of each code."""
    found = HreflangFound(reciprocity, max_examples)
    return [issue(code, found.message(index)) for index, code in enumerate(found.codes)]


class HreflangFound:
    """The hreflang findings as columns, as check lists them: ``codes`` of the first ``cap``
    of each code (all without one) in order, ``message(index)`` made when asked, and
    ``more``: how many more of each code were found, counted only."""

    def __init__(self, reciprocity: Reciprocity, cap: int | None = None) -> None:
        said = reciprocity.judged(cap)
        self._links = said.missing
        self._unlisted = said.unlisted
        self.codes = ["hreflang-not-reciprocal"] * len(self._links)
        self.codes += [_unlisted_code(u.in_set) for u in self._unlisted]
        more = {
            "hreflang-not-reciprocal": said.missing_count - len(self._links),
            "hreflang-unlisted": said.unlisted_counts[True],
            "hreflang-unverified": said.unlisted_counts[False],
        }
        for code in self.codes[len(self._links) :]:
            more[code] -= 1
        self.more = {code: n for code, n in more.items() if n > 0}

    def message(self, index: int) -> str:
        """The message of finding ``index``."""
        if index < len(self._links):
            return describe(self._links[index])
        return unlisted_sentence(*self._unlisted[index - len(self._links)])


def _unlisted_code(in_set: bool) -> str:
    return "hreflang-unlisted" if in_set else "hreflang-unverified"


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
    found = HreflangFound(reciprocity, max_per_code)
    listed = [issue(code, found.message(index)) for index, code in enumerate(found.codes)]
    return listed, found.more

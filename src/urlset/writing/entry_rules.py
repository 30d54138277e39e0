"""The rules a build shares with ``urlset check``, so that a set built without a word also
passes the check without a warning.

Batches of entries in, the same entries out, each problem in the report: a lastmod later
than the build's ``now`` is left out (a search engine ignores it; check's ``future-lastmod``,
same threshold); a lastmod naming a year or a month alone is written as given and reported
(check's ``lastmod-without-day``); each extension rule of ``extensions.rules.check_url``
is reported with check's code and severity: a warning or an info (news older than two days,
deprecated image fields, hreflang self-links, ...) with the entry written as given, an error
(more than 1,000 images, a video on the page's own URL, an hreflang given two hrefs) with the
entry written without what breaks the rule (``extensions.rules.repaired``). News entries per
sitemap (at most 1,000) are the documents' to count (``SitemapDocument``).

With a news window (``--news-window 2d``), an article published before ``now`` less the
window is written without its ``<news:news>`` (the page stays, as in a regular sitemap) and
counted in ``BuildReport.news_outside_window``: what stays is what a news sitemap may hold,
so check finds no ``news-too-old``.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from ..codes import rule
from ..dates import Lastmod, future_lastmod, instant, lastmod_without_day, parse_w3c
from ..errors import InvalidValue
from ..model import Issue, Url

if TYPE_CHECKING:
    from .options import BuildOptions
    from .report import BuildReport

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_NEWS_MAX_AGE_MICROS = 2 * 86_400 * 1_000_000  # news.NEWS_MAX_AGE, held equal by a test
_KNOWN_MAX = 4096  # distinct lastmods remembered between batches (a site has few)
_UNKNOWN = ""  # not yet judged (a reason is never empty)


def news_window_checked(window: timedelta) -> timedelta:
    """``window`` when it is one a news sitemap allows: positive, at most two days."""
    from ..extensions.news import NEWS_MAX_AGE

    if not timedelta(0) < window <= NEWS_MAX_AGE:
        raise InvalidValue(
            "news window",
            str(window),
            "must be more than nothing and at most two days: news sitemaps list the articles "
            "of the last two days",
        )
    return window


class EntryRules:
    """Applies the shared rules at ``now`` (an aware datetime) and reports to ``report``."""

    def __init__(
        self,
        now: datetime,
        report: BuildReport,
        *,
        strict: bool,
        news_window: timedelta | None = None,
    ) -> None:
        self.now = now
        self.report = report
        self.strict = strict
        # articles published before this lose their news element (None: all are written)
        self.news_since = None if news_window is None else now - news_window_checked(news_window)
        # news published before this are older than two days (microseconds since 1970 UTC)
        self.news_too_old_before = (now - _EPOCH) // _MICROSECOND - _NEWS_MAX_AGE_MICROS
        self._future: dict[Lastmod, str | None] = {}  # lastmod -> why it is in the future
        self._without_day: dict[str, str | None] = {}  # lastmod text -> why it has no day

    @classmethod
    def of(cls, opts: BuildOptions, report: BuildReport) -> EntryRules:
        """The rules of a build with ``opts`` (its ``now``, or the clock)."""
        now = opts.now or datetime.now(UTC)
        return cls(now, report, strict=opts.strict, news_window=opts.news_window)

    def _why_future(self, lastmod: Lastmod) -> str | None:
        known = self._future
        if lastmod in known:
            return known[lastmod]
        if len(known) >= _KNOWN_MAX:
            known.clear()
        why = known[lastmod] = future_lastmod(lastmod, self.now)
        return why

    def apply(self, urls: list[Url]) -> list[Url]:
        """``urls`` with future lastmods left out; every problem reported."""
        out = urls
        for n, url in enumerate(urls):
            lastmod = url[1]
            if lastmod is not None and (why := self._why_future(lastmod)) is not None:
                self._problem("future-lastmod", f"{url[0]}: {why} (written without it)", left=True)
                if out is urls:
                    out = list(urls)
                out[n] = url = url._replace(lastmod=None)
            elif lastmod is not None and (why := lastmod_without_day(lastmod)) is not None:
                self._problem("lastmod-without-day", f"{url[0]}: {why}", left=False)
            if url[4] and self.news_since is not None:
                kept = self._within_news_window(url, self.news_since)
                if kept is not url:
                    if out is urls:
                        out = list(urls)
                    out[n] = url = kept
            if url[4]:
                from ..extensions.rules import check_url, repaired  # with the first extension

                for issue in check_url(url, now=self.now, raw=False):
                    message = issue.message
                    if url[0] not in message:
                        message = f"{url[0]}: {message}"
                    fixed = repaired(url, issue.code) if issue.severity == "error" else None
                    if fixed is None:
                        self._problem(issue.code, message, left=False, severity=issue.severity)
                        continue
                    # what check would call an error is not written: the rest of the page is
                    if self.strict:
                        raise InvalidValue("entry", message, f"{issue.code} (--strict)")
                    url, left_out = fixed
                    self.report.warn(issue.code, f"{message}; {left_out}", severity="error")
                    if out is urls:
                        out = list(urls)
                    out[n] = url
        return out

    def _within_news_window(self, url: Url, since: datetime) -> Url:
        """``url`` without the news articles published before ``since`` (itself when none)."""
        from ..extensions.news import News  # only with extensions

        kept = tuple(
            e for e in url[4] if type(e) is not News or instant(e.publication_date) >= since
        )
        if len(kept) == len(url[4]):
            return url
        self.report.news_outside_window += len(url[4]) - len(kept)
        return url._replace(extensions=kept)

    def without_day(self, loc: str, lastmod: str) -> None:
        """An entry the core wrote whose lastmod (its text) is a year or a month alone."""
        why = self.why_without_day(lastmod)
        if why is not None and not self.counted("lastmod-without-day", "warning"):
            self._problem("lastmod-without-day", f"{loc}: {why}", left=False)

    def why_without_day(self, lastmod: str) -> str | None:
        """What check says of a lastmod text naming a year or a month alone (None: nothing)."""
        known = self._without_day
        why = known.get(lastmod, _UNKNOWN)
        if why is _UNKNOWN:  # a site has few such lastmods: each judged once
            if len(known) >= _KNOWN_MAX:
                known.clear()
            why = known[lastmod] = lastmod_without_day(parse_w3c(lastmod))
        return why

    def counts_only(self, counts: Mapping[str, int]) -> bool:
        """``counted`` for many findings at once (how many each code has): True when all
        are counted; False (none counted) when the caller must report each whole."""
        counts = {code: n for code, n in counts.items() if n}
        severities = {code: _severity(code) for code in counts}
        if self.strict and any(severity != "info" for severity in severities.values()):
            return False
        return self.report.count_flags(counts, severities)

    def news_too_old(self, loc: str, title: str, published: int) -> None:
        """An article the core wrote published ``published`` (microseconds since 1970 UTC)
        that is older than two days: ``news-too-old``, as the news rule says it."""
        if self.counted("news-too-old", _severity("news-too-old")):
            return
        from ..extensions.news import too_old_issue  # only with old news

        age = self.now - (_EPOCH + timedelta(microseconds=published))
        issue = too_old_issue(loc, title, age, self.now)
        self._problem(issue.code, issue.message, left=False, severity=issue.severity)

    def core_findings(self, found: Iterable[tuple[str, str, str]]) -> None:
        """What the per-URL extension rules found in entries the core wrote as given,
        (loc, code, text) each: the issue the Python rule makes of it (the text is what
        the core named: image fields Google no longer reads, an hreflang's codes)."""
        for loc, code, text in found:
            if self.counted(code, _severity(code)):
                continue
            issue = _core_issue(code, loc, text)
            self._problem(issue.code, issue.message, left=False, severity=issue.severity)

    def counted(self, code: str, severity: str) -> bool:
        """Count one finding of an entry written as given when its message is read by
        nothing (``BuildReport.count_flag``; not under --strict, which stops at it): True;
        False when the caller must report it whole."""
        if self.strict and severity != "info":
            return False
        return self.report.count_flag(code, severity)

    def _problem(self, code: str, message: str, *, left: bool, severity: str = "warning") -> None:
        if self.strict and severity != "info":
            raise InvalidValue("entry", message, f"{code} (--strict)")
        if left:
            self.report.warn(code, message)
        else:
            self.report.flag(code, message, severity)


@functools.cache
def _severity(code: str) -> str:
    """The severity check gives ``code`` (an extension's: loaded with the extensions)."""
    return str(rule(code).severity)


def _core_issue(code: str, loc: str, text: str) -> Issue:
    """The issue of rule ``code`` for the page ``loc`` of what the core named (``text``); each
    extension module loaded only when its rule found something."""
    if code == "image-deprecated-field":
        from ..extensions.image import deprecated_fields_issue

        return deprecated_fields_issue(loc, text)
    if code == "news-repeated":
        from ..extensions.news import repeated_issue

        return repeated_issue(loc, int(text))
    if code == "hreflang-missing-self":
        from ..extensions.hreflang import missing_self_issue

        return missing_self_issue(loc, text)
    raise ValueError(f"the compiled core found {code!r}, which no rule here makes")

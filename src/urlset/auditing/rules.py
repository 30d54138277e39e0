"""The audit's rules (pure: no I/O, no clock): one listed URL and the answer to it -> findings.

In: what the sitemap said of a URL (``Listed``) and what the server answered (``Answer``:
status, the redirects followed, the headers and head facts that decide indexability). Out:
``Issue`` values whose codes are rows of the one code table (``checking/rules.py``), with
the Search Console wording there. ``SetRules`` holds what needs the whole list (the same
lastmod everywhere, a URL in several sitemaps, several forms that lead to one page) in
bounded memory: keys of 64 bits, first examples only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from ..checking.rules import make_issue
from ..dates import Lastmod, format_w3c, future_lastmod, instant, latest_moment, parse_http_date
from ..fetching.issues import DEADLINE, REDIRECT_LOOP, TOO_MANY_REDIRECTS
from ..model import Issue

# a lastmod this far from Last-Modified disagrees with it (servers round, builds lag a little)
LASTMOD_SLACK = timedelta(days=1)
UNIFORM_FROM = 10  # fewer URLs sharing one lastmod may well have changed together
HTML_TYPES = ("text/html", "application/xhtml+xml")


@dataclass(frozen=True, slots=True)
class Listed:
    """A URL as a sitemap lists it."""

    loc: str
    lastmod: Lastmod | None
    sitemap: str


@dataclass(frozen=True, slots=True)
class Answer:
    """What one request for a listed URL found. ``status`` is None when no HTTP answer came
    (``error`` and ``error_code``, the fetcher's issue code, say why); ``disallowed`` means it
    was not requested (robots.txt)."""

    status: int | None
    final: str
    redirects: tuple[tuple[int, str], ...] = ()
    error: str | None = None
    error_code: str | None = None
    content_type: str = ""
    last_modified: str | None = None
    noindex: bool = False
    noindex_by: str = ""  # "meta", "header" or both
    canonical: str | None = None
    seconds: float = 0.0
    disallowed: str | None = None  # why robots.txt keeps the URL from being requested

    @property
    def html(self) -> bool:
        return self.content_type.split(";", 1)[0].strip().lower() in HTML_TYPES


CUT_OFF = "cut off (deadline)"  # the bucket of a request the run's deadline cut


def status_class(answer: Answer) -> str:
    """The status mix's bucket: 2xx, 3xx (a redirect ending in an error), 4xx, 5xx, or why
    there was no answer (disallowed, timeout, error, deadline)."""
    if answer.disallowed is not None:
        return "disallowed"
    if answer.status is None:
        if answer.error_code in (REDIRECT_LOOP, TOO_MANY_REDIRECTS):
            return "redirect-loop"
        if answer.error_code == DEADLINE:
            return CUT_OFF
        return "timeout" if answer.error_code == "fetch-timeout" else "no answer"
    return f"{answer.status // 100}xx"


def page_findings(listed: Listed, answer: Answer, is_listed: Callable[[str], bool]) -> list[Issue]:
    """The findings of one listed URL (``is_listed`` answers for any URL of the sitemaps)."""
    loc = listed.loc

    def issue(code: str, message: str) -> Issue:
        return make_issue(code, message, source=loc)

    if answer.disallowed is not None:
        return [issue("page-disallowed", answer.disallowed)]
    found: list[Issue] = []
    status = answer.status
    if status is None:
        if answer.error_code in (REDIRECT_LOOP, TOO_MANY_REDIRECTS):
            return [issue("page-redirect-loop", answer.error or "redirect loop")]
        if answer.error_code == DEADLINE:
            return []  # cut off by the run's deadline: not a fault of the page
        return [issue("page-unreachable", answer.error or "no answer")]
    if answer.redirects:
        found.extend(_redirect_findings(loc, answer, is_listed))
    if status == 429:  # Google treats it as a server's "not now", not as the page's fault
        message = "HTTP 429 after the retries: the server asks for fewer requests (--rate)"
        found.append(issue("page-unreachable", message))
    elif status in (404, 410):
        found.append(issue("page-not-found", f"HTTP {status}" + _at(answer)))
    elif status in (401, 403):
        found.append(issue("page-unauthorized", f"HTTP {status}" + _at(answer)))
    elif 400 <= status < 500:
        found.append(issue("page-client-error", f"HTTP {status}" + _at(answer)))
    elif status >= 500:
        found.append(issue("page-server-error", f"HTTP {status}" + _at(answer)))
    elif 200 <= status < 300:
        found.extend(_indexability(listed, answer))
    return found


def _at(answer: Answer) -> str:
    return f" at {answer.final}" if answer.redirects else ""


def _redirect_findings(loc: str, answer: Answer, is_listed: Callable[[str], bool]) -> list[Issue]:
    hops = " -> ".join(f"{target} ({status})" for status, target in answer.redirects)
    final = answer.redirects[-1][1]
    listed = "listed too" if is_listed(final) else "not listed"
    if len(answer.redirects) > 1:
        message = f"{len(answer.redirects)} redirects: -> {hops}; the target is {listed}"
        return [make_issue("page-redirect-chain", message, source=loc)]
    message = f"redirects to {hops}; the target is {listed}"
    return [make_issue("page-redirect", message, source=loc)]


def _indexability(listed: Listed, answer: Answer) -> list[Issue]:
    loc = listed.loc
    found: list[Issue] = []
    if not answer.html:
        kind = answer.content_type.split(";", 1)[0].strip() or "no Content-Type"
        found.append(make_issue("page-not-html", f"served as {kind}", source=loc))
    if answer.noindex:
        found.append(make_issue("page-noindex", f"noindex by {answer.noindex_by}", source=loc))
    canonical = answer.canonical
    if canonical is not None and not same_page(canonical, answer.final):
        message = f"canonical is {canonical}"
        found.append(make_issue("page-canonical-elsewhere", message, source=loc))
    if listed.lastmod is not None and answer.last_modified:
        mismatch = lastmod_mismatch(listed.lastmod, answer.last_modified)
        if mismatch is not None:
            found.append(make_issue("lastmod-mismatch", mismatch, source=loc))
    return found


def same_page(a: str, b: str) -> bool:
    """Two URLs of one page as a canonical tag means it: equal, or but for a trailing '/'
    on the path."""
    return a == b or a.rstrip("/") == b.rstrip("/")


def lastmod_mismatch(lastmod: Lastmod, last_modified: str) -> str | None:
    """The sitemap's lastmod against the server's Last-Modified: older by more than a day
    (the page changed since) or newer by more than a day (a date the server does not know)."""
    served = _served(last_modified)
    if served is None:
        return None
    if latest_moment(lastmod) + LASTMOD_SLACK < served:
        return f"lastmod {format_w3c(lastmod)} is older than Last-Modified {last_modified}"
    if instant(lastmod) - LASTMOD_SLACK > served:
        return f"lastmod {format_w3c(lastmod)} is newer than Last-Modified {last_modified}"
    return None


@lru_cache(maxsize=4096)  # a site's pages share few Last-Modified values
def _served(last_modified: str) -> datetime | None:
    return parse_http_date(last_modified)


def future_finding(listed: Listed, now: datetime) -> Issue | None:
    """The checker's ``future-lastmod`` (one code for one problem), judged at ``now``."""
    if listed.lastmod is None:
        return None
    message = future_lastmod(listed.lastmod, now)
    return None if message is None else make_issue("future-lastmod", message, source=listed.loc)


def variant_key(url: str) -> str:
    """A URL without what its forms differ in: the scheme, a leading www., a trailing '/'."""
    rest = url.partition("://")[2]
    host, slash, path = rest.partition("/")
    host = host.lower().removeprefix("www.")
    return host + slash + path.rstrip("/")


class SetRules:
    """The rules over the whole list: fed each listed URL (``add``), then the list whole
    (``freeze``), then each answer; ``findings()`` at the end. Memory: the locs are the
    driver's; here a sorted array of their 64-bit keys (8 bytes a URL)."""

    def __init__(self) -> None:
        self.sitemaps: list[str] = []
        self._sitemap_index: dict[str, int] = {}
        self._keys: Any = None  # numpy int64, sorted, once frozen
        self.lastmods = 0
        self.first_lastmod: Lastmod | None = None
        self.lastmod_differs = False
        self.arrived: dict[str, str] = {}  # a redirect's final URL -> the first listed URL there

    def add(self, listed: Listed) -> int:
        """One listed URL: the index of its sitemap."""
        index = self._sitemap_index.get(listed.sitemap)
        if index is None:
            index = self._sitemap_index[listed.sitemap] = len(self.sitemaps)
            self.sitemaps.append(listed.sitemap)
        if listed.lastmod is not None:
            self.lastmods += 1
            if self.first_lastmod is None:
                self.first_lastmod = listed.lastmod
            elif listed.lastmod != self.first_lastmod:
                self.lastmod_differs = True
        return index

    def freeze(
        self, locs: Sequence[str], sitemap_of: Sequence[int], found: Callable[[Issue], None]
    ) -> set[int]:
        """The list read whole: the indexes of the locs listed before (each URL is audited
        once, under its first listing); ``found`` is told of each one listed in another
        sitemap than the first."""
        import numpy as np

        keys = np.fromiter((hash(loc) for loc in locs), dtype=np.int64, count=len(locs))
        order = np.argsort(keys, kind="stable")  # equal keys keep the list's order
        ordered = keys[order]
        del keys
        again: set[int] = set()
        for position in (np.flatnonzero(ordered[1:] == ordered[:-1]) + 1).tolist():
            start = position
            while start > 0 and ordered[start - 1] == ordered[position]:
                start -= 1
            first, index = int(order[start]), int(order[position])
            if locs[first] != locs[index]:
                continue  # two URLs whose keys collide: both are audited
            again.add(index)
            if sitemap_of[first] != sitemap_of[index]:
                message = f"also listed in {self.sitemaps[sitemap_of[first]]}"
                found(make_issue("listed-in-several-sitemaps", message, source=locs[index]))
        self._keys = np.unique(ordered)
        return again

    def is_listed(self, url: str) -> bool:
        keys = self._keys
        if keys is None:
            return False
        key = hash(url)
        at = int(keys.searchsorted(key))
        return at < len(keys) and int(keys[at]) == key

    def answered(self, loc: str, answer: Answer) -> Issue | None:
        """A listed URL that redirects to a page listed (or reached) under another form."""
        if not answer.redirects or answer.status is None:
            return None
        final = answer.final
        if variant_key(final) != variant_key(loc):
            return None
        other = final if self.is_listed(final) else self.arrived.get(final)
        if other is None:
            self.arrived.setdefault(final, loc)
            return None
        message = f"{loc} and {other} are one page ({final})"
        return make_issue("listed-variants", message, source=loc)

    def findings(self) -> list[Issue]:
        found: list[Issue] = []
        if self.lastmods >= UNIFORM_FROM and not self.lastmod_differs and self.first_lastmod:
            message = (
                f"all {self.lastmods:,} lastmods are {format_w3c(self.first_lastmod)}: "
                "a build time, not a change time"
            )
            found.append(make_issue("uniform-lastmod", message))
        return found

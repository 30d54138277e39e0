"""Where the reader's entries and issues go, and what a value means.

A ``Sink`` takes entries (``Url`` or ``SitemapRef``) and issues from whichever part read them
(the XML lanes, the text reader) and gives out the list the reader hands back from
``feed``/``close``: it counts entries, finds duplicates, applies the entry limits, caps the
issues of one code, and decides what a loc, lastmod, changefreq or priority text means for
every lane and format. The ``fast_*`` checks say cheaply when a text is already in the form
those decisions would give.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from .._core import RecordRenderer, SeenLocs
from ..codes import CODES, rule, unlisted_message
from ..dates import Lastmod, parse_lenient
from ..errors import InvalidValue
from ..limits import MAX_LOC_LENGTH, MAX_SITEMAPS_PER_INDEX, MAX_URLS_PER_SITEMAP, ReadLimits
from ..model import ChangeFreq, Issue, Severity, SitemapRef, Url, issue_of
from ..patterns import lazy
from ..urls import PLAIN_HOST, made_uri_finding, non_production_host, to_uri, userinfo_shown
from .columns import RecentLines

if TYPE_CHECKING:
    from .rendered import RenderSpec

Event = Url | SitemapRef | Issue

# At most this many issues of one code are listed; the rest are counted in a summary.
MAX_ISSUES_PER_CODE = 1000

# --- values: one place that decides what a value means, for every lane and format --------

# A URL this matches is already what urls.to_uri returns for it: a strict subset of
# urls.is_plain_uri (the same host rule; "'" kept as it keeps it, no dot segment, '%' only in
# an escape other than %2E). Anything else goes through to_uri. tests/test_read_property.py
# checks the inclusion. urls.PLAIN_HOST, and a port of 1-65535 without leading zeros, other than the
# defaults (which WHATWG drops). Every pattern using HOST has a '/' right after it.
PORT = r"(?:[1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5])"
HOST = PLAIN_HOST + rf"(?::(?!80/|443/){PORT})?"
ESCAPE = r"%(?!2[eE])[0-9A-Fa-f]{2}"
# the path's runs of plain characters matched possessively: a path is a run or an escape at
# each step ('%' is in no run), so the language is the alternation's, at a third of its cost
_FAST_URI = lazy(rf"https?://{HOST}/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]++|{ESCAPE})*+")
SCHEME = lazy(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_FAST_DATE = lazy(r"\d{4}-\d{2}-\d{2}")
_FAST_DATETIME = lazy(
    r"\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):\d{2}:\d{2}(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)"
)
_FAST_PRIORITY = lazy(r"0(?:\.\d{1,4})?|1(?:\.0{1,4})?")
CHANGEFREQ: dict[str | None, ChangeFreq | None] = {c.value: c for c in ChangeFreq}
# a datetime whose only letters are a lower-case 't' or 'z' (read as upper case, reported)
_LOWER_TZ = lazy(r"[0-9\-]+[tT][0-9:.]+(?:[zZ]|[+\-][0-9:]+)?")


def relative(text: str) -> bool:
    """True when ``text`` (a URL as written, stripped) names no scheme, or no host
    (``//host/path``): a relative reference, resolved against the document's URL."""
    return not SCHEME.match(text) or text.startswith("//")


def _host_of(origin: str) -> str:
    """The host of ``scheme://authority/`` (lower case already: a loc as read)."""
    authority = origin[origin.find("//") + 2 : -1].rpartition("@")[2]
    if authority[:1] == "[":
        return authority[: authority.find("]") + 1]
    return authority.partition(":")[0]


def fast_uri(text: str) -> bool:
    """True when ``text`` is a URI that ``to_uri`` would return unchanged (cheap check)."""
    return (
        len(text) <= MAX_LOC_LENGTH and "/." not in text and _FAST_URI.fullmatch(text) is not None
    )


def fast_lastmod(text: str) -> Lastmod | None:
    """The lastmod of a plain W3C date or second-precision datetime, else None.

    Gives exactly what ``dates.parse_lenient`` gives for these forms, only faster.
    """
    try:
        if len(text) == 10 and _FAST_DATE.fullmatch(text):
            return date.fromisoformat(text)
        if _FAST_DATETIME.fullmatch(text):
            return datetime.fromisoformat(text)
    except ValueError:
        return None
    return None


def fast_priority(text: str) -> float | None:
    return float(text) if _FAST_PRIORITY.fullmatch(text) else None


class Sink:
    """Collects what the lanes produce: entry bookkeeping (count, duplicates, limits) and issues.

    ``out`` is the list the reader hands back from ``feed``/``close``.
    """

    def __init__(self, source: str, limits: ReadLimits, base_url: str | None) -> None:
        self.source = source
        self.limits = limits
        self.base_url = base_url
        self.out: list[Event] = []
        self.count = 0
        # duplicate detection: a 64-bit hash per loc, in the compiled core (read/seen.rs);
        # the render lane puts its renderer in place, which keeps them with its own
        # (reading/rendered.py)
        self.seen: SeenLocs | RecordRenderer = SeenLocs()
        self.render: RenderSpec | None = None
        # the render lane's entries passed on here, per ``reason`` (rendered.LEFT_REASONS)
        self.left: dict[str, int] = {}
        self.reason = "careful"
        # the entry count at which the slow bookkeeping in ``counted`` must run: the
        # protocol's count, or the entry limit when it is lower
        self.next_check = min(MAX_URLS_PER_SITEMAP, limits.max_entries)
        self.stopped = False
        # the entry limit: the line (its start tag's) and loc of the entry it refused; the
        # issues said from ``hold_from`` entries on, until one is refused (``_refuse``)
        self.entry_stop: tuple[int, str] | None = None
        self.held: list[Issue] = []
        self.hold_from = limits.max_entries
        # origins (scheme://authority/) whose host was judged, hosts reported as not
        # production (each once per document)
        self.origins: set[str] = set()
        self.dev_hosts: set[str] = set()
        self.per_code: dict[str, int] = {}
        # locs made URIs so far (issues of either code): the compiled core gives the texts
        # of the first MAX_ISSUES_PER_CODE of them (``converted_listed``)
        self.made_uris = 0
        self.odd_made = False  # a loc made a URI check reads again (the renderer: its own)
        # a shift applied to positions when text before the XML was skipped
        self.line_shift = 0
        self.col_shift = 0
        # the lines of elements libxml2 read past xml_lines.LINE_CAP (xml_lines.LateLines),
        # while their entries are read
        self.late: dict[Any, int] = {}
        # the bytes being read, for the columns of findings made with a line only
        self.recent = RecentLines()
        self.fatal = False

    # -- issues --
    def issue(self, code: str, message: str, line: int = 0, column: int = 0) -> None:
        n = self.per_code.get(code, 0) + 1
        self.per_code[code] = n
        if n > MAX_ISSUES_PER_CODE:
            return
        if line == 1 and column:
            column += self.col_shift
        line = self.shifted(line)
        if line and not column:
            column = self.recent.column(code, message, line)
        row = rule(code)
        issue = issue_of((code, row.severity, message, line, column, self.source, row.hint))
        (self.held if self.count >= self.hold_from else self.out).append(issue)

    def shifted(self, line: int) -> int:
        """A line as the parser counted it (0: none) as the document's: a piece parsed on its
        own counts from its start, text skipped before the XML shifts the rest."""
        return line + self.line_shift if line else 0

    def line_of(self, el: Any, line: int = 0) -> int:
        """The parser's line of the element ``el`` (``line`` when it has none): libxml2's
        own below 65,535, past it the full lane's count (``late``), not libxml2's guess."""
        late = self.late
        if late:
            return late.get(el) or el.sourceline or line
        return el.sourceline or line

    def finish(self) -> None:
        self.out += self.held  # no entry was refused: all of them
        for code, n in self.per_code.items():
            if n > MAX_ISSUES_PER_CODE:
                row = CODES["too-many-errors"]
                counted = rule(code).severity
                self.out.append(
                    Issue(
                        "too-many-errors",
                        counted if counted == Severity.INFO else row.severity,
                        unlisted_message(code, n, MAX_ISSUES_PER_CODE),
                        0,
                        0,
                        self.source,
                        row.hint,
                    )
                )

    # -- entries --
    def counted(self, index: bool) -> bool:
        """Slow bookkeeping when ``count`` reaches ``next_check``; False when reading must stop."""
        limit = self.limits.max_entries
        if self.count >= limit:
            self.issue("entry-limit", f"stopped after {limit:,} entries (ReadLimits.max_entries)")
            self.stopped = True
            return False
        protocol = MAX_SITEMAPS_PER_INDEX if index else MAX_URLS_PER_SITEMAP
        if self.count == protocol:
            what = "sitemaps" if index else "URLs"
            self.issue(
                "too-many-sitemaps" if index else "too-many-urls",
                f"more than {protocol:,} {what}; the protocol allows {protocol:,} per file",
            )
        self.next_check = limit if self.count < limit else self.count + 1
        return True

    def add(self, entry: Url | SitemapRef, line: int, column: int = 0) -> bool:
        """Pass on one entry (its loc at ``column`` when known); False when reading must stop."""
        if self.count >= self.next_check:
            if self.count >= self.limits.max_entries:
                _refuse(self, entry[0], line)
            if not self.counted(type(entry) is SitemapRef):
                return False
        if self.render is not None:
            self.left[self.reason] = self.left.get(self.reason, 0) + 1
        loc = entry[0]
        if not self.seen.add(loc):
            self.duplicate(loc, line)
        end = loc.find("/", 8)
        if loc[: end + 1] not in self.origins:
            self.origin(loc[: end + 1], line, column)
        self.count += 1  # after its own issues: none of them is held (``issue``)
        self.out.append(entry)
        return True

    # -- hosts: a development or preview host is reported once, at its first entry --
    def dev_host(self, origin: str) -> str | None:
        """The finding due for ``origin`` (``scheme://authority/`` of a loc) if its host is
        clearly not production and not yet reported, else None (and the origin is known
        clean from then on, until the small cache is next cleared)."""
        host = _host_of(origin)
        message = None if host in self.dev_hosts else non_production_host(host)
        if message is None:
            self._known(origin)
        return message

    def findings_due(self, origins: list[tuple[int, str]]) -> bool:
        """Whether a host among ``origins`` ((record, origin) pairs; new ones judged once)
        is to be reported."""
        known = self.origins
        return any(
            o not in known and ("@" in o or self.dev_host(o) is not None) for _, o in origins
        )

    def origin(self, origin: str, line: int, column: int = 0) -> None:
        """An entry on ``origin`` (not in ``origins``) is passed on next, at ``line``: user
        info in it is reported once per origin, a development host once per host (at its
        loc's ``column`` when known, as check places it)."""
        if "@" in origin:  # the only '@' a scheme://authority/ may hold
            self.issue(
                "url-userinfo", f"URLs on {_host_of(origin)} hold {userinfo_shown(origin)}", line
            )
        message = self.dev_host(origin)
        if message is not None:
            self.dev_hosts.add(_host_of(origin))
            self.issue("dev-host", message, line, column)
        self._known(origin)

    def _known(self, origin: str) -> None:
        origins = self.origins
        if len(origins) >= 4096:  # a file of many hosts: judged again, once per 4,096
            origins.clear()
        origins.add(origin)

    def duplicate(self, loc: str, line: int) -> None:
        shown = loc if len(loc) <= 200 else loc[:197] + "..."
        self.issue("duplicate-loc", f"{shown} is listed more than once", line)

    def loc(self, text: str, line: int, column: int = 0) -> str | None:
        """The URI of a loc (already stripped), or None with an issue saying why."""
        if fast_uri(text):
            return text
        if not text:
            self.issue("missing-loc", "empty <loc>", line, column)
            return None
        if "\ufffd" in text:
            # what the parser made of bytes that are not UTF-8 or of a character XML forbids
            # (xml_guard): a URL made of it would be invented (%EF%BF%BD), so it is skipped
            shown = text if len(text) <= 200 else text[:197] + "..."
            self.issue(
                "invalid-url",
                f"{shown!r} holds U+FFFD (bytes that are not UTF-8, or a character XML "
                "forbids); skipped",
                line,
                column,
            )
            return None
        try:
            uri = to_uri(text)
        except InvalidValue as exc:
            reason = exc.reason
        else:
            return self.converted(text, uri, line, column)
        shown = text if len(text) <= 200 else text[:197] + "..."
        if relative(text):
            if self.base_url is None:
                self.issue(
                    "relative-url", f"{shown!r} is not absolute (no base URL given)", line, column
                )
                return None
            return self.resolve(text, line, column)
        self.issue("invalid-url", f"{shown!r}: {reason}", line, column)
        return None

    def converted(self, text: str, uri: str, line: int, column: int = 0) -> str:
        """``uri``, what ``to_uri`` made of the loc ``text``, reported when the two differ in
        the words of ``urls.made_uri_finding`` (``url-not-escaped``, ``normalized-url``);
        past the first ``MAX_ISSUES_PER_CODE`` locs made URIs counted as ``normalized-url``
        unjudged, as the compiled core's runs give no texts past them."""
        if uri != text:
            self.made_uris += 1
            past = self.made_uris > MAX_ISSUES_PER_CODE
            code, message = ("normalized-url", "") if past else made_uri_finding(text, uri)
            if past or self.per_code.get(code, 0) >= MAX_ISSUES_PER_CODE:
                self.per_code[code] = self.per_code.get(code, 0) + 1  # counted only
            else:
                self.issue(code, message, line, column)
        return uri

    def converted_listed(self) -> int:
        """How many more locs made URIs are listed as issues (the rest only counted): the
        compiled core gives the texts of so many (``converted_run``)."""
        return max(MAX_ISSUES_PER_CODE - self.made_uris, 0)

    def resolve(self, text: str, line: int, column: int = 0, what: str = "") -> str | None:
        """``text``, a relative URL, resolved against ``base_url`` (reported), or None with
        the reason reported; ``what`` names the value when it is not a loc."""
        assert self.base_url is not None
        shown = text if len(text) <= 200 else text[:197] + "..."
        try:
            uri = to_uri(_joined(self.base_url, text))
        except (InvalidValue, ValueError) as exc:
            self.issue(
                "invalid-url", f"{what}{shown!r} resolves to no valid URL: {exc}", line, column
            )
            return None
        self.issue("resolved-url", f"{what}{shown!r} resolved to {uri}", line, column)
        return uri

    def lastmod(self, text: str, line: int) -> Lastmod | None:
        value = fast_lastmod(text)
        if value is not None:
            return value
        if not text:
            self.issue("invalid-lastmod", "empty <lastmod>", line)
            return None
        value, problem = parse_lenient(text)
        if value is None and _LOWER_TZ.fullmatch(text):
            # '2024-01-02t03:04:05z': search engines read it as written in upper case
            value, upper = parse_lenient(text.upper())
            if value is not None:
                problem = "lower-case 't' or 'z'" + ("" if upper is None else f"; {upper}")
        if value is None:
            self.issue("invalid-lastmod", f"{text[:100]!r}: {problem}", line)
        elif problem is not None:
            self.issue("lenient-lastmod", f"{text[:100]!r}: {problem}", line)
        return value

    def padded(self, name: str, stripped: str, line: int) -> None:
        """The value of ``<name>`` on ``line`` was written with whitespace around it
        (``stripped``: without it)."""
        self.issue(
            "whitespace-in-value", f"<{name}> {stripped[:100]!r} has whitespace around it", line
        )

    def changefreq(self, text: str, line: int) -> ChangeFreq | None:
        found = CHANGEFREQ.get(text)
        if found is not None:
            return found
        found = CHANGEFREQ.get(text.lower())
        if found is not None:
            self.issue("changefreq-case", f"{text!r} read as {found.value!r}", line)
            return found
        self.issue("invalid-changefreq", f"{text[:100]!r} is not a changefreq value", line)
        return None

    def priority(self, text: str, line: int) -> float | None:
        value = fast_priority(text)
        if value is not None:
            return value
        try:
            number = float(text)
        except ValueError:
            number = float("nan")
        if 0.0 <= number <= 1.0:
            return number
        self.issue("invalid-priority", f"{text[:100]!r} is not a number from 0.0 to 1.0", line)
        return None


@contextmanager
def leaving(sink: Sink, reason: str) -> Iterator[None]:
    """Entries ``sink`` is given inside leave the render lane for ``reason`` (``Sink.left``)."""
    was, sink.reason = sink.reason, reason
    try:
        yield
    finally:
        sink.reason = was


def _refuse(sink: Sink, loc: str, line: int) -> None:
    """The entry limit stops reading at the entry of ``loc`` on ``line``: what was said of
    the bytes read since the limit's last entry is said only on the lines before it (the
    entry refused was judged before it came to ``Sink.add``; one line may hold every entry),
    as check's byte rules stop before it (``ReadResult.entry_stop``)."""
    sink.stopped = True
    sink.hold_from = sys.maxsize
    at = sink.shifted(line)
    sink.entry_stop = (at, loc)
    for issue in sink.held:
        if issue.line and issue.line >= at:
            sink.per_code[issue.code] -= 1
        else:
            sink.out.append(issue)
    sink.held = []


def _joined(base_url: str, text: str) -> str:
    """``text`` resolved against ``base_url`` (urllib.parse loaded here: only a read with
    --base-url needs it)."""
    from urllib.parse import urljoin

    return urljoin(base_url, text)

"""The issues a check collects while it runs, and the list it gives at the end.

``Findings`` takes the rules' findings (placed at a line, or pending until the entry with
that loc is found in the bytes, or grouped per host), caps each code at ``MAX_PER_CODE``;
``merge_issues`` joins them with the reader's issues, at the check's severities, and
counts what was found but not listed, so that totals are over every finding.
"""

from __future__ import annotations

from typing import Any

from ..codes import plural, unlisted_message
from ..model import Issue
from ..reading.sink import MAX_ISSUES_PER_CODE
from . import rules
from .report import SEVERITY_RANK, SUMMARY_CODE

# At most this many issues of one code per file are listed; the rest are counted.
MAX_PER_CODE = 1000


class Findings:
    """Issues found by the checker's rules, capped per code, some awaiting a position."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.placed: list[Issue] = []
        # code, message, loc, whether it came in document order, and its entry's number
        self.pending: list[tuple[str, str, str, bool, int]] = []
        # the number (from 0, in document order) of the entry the rules judge now: where a
        # finding about it is looked for first (-1: none)
        self.entry = -1
        self.per_code: dict[str, int] = {}
        # (code, host) -> [message, loc of the first URL, number of URLs]
        self.by_host: dict[tuple[str, str], list[Any]] = {}
        # lines where the reader reported something a rule may say better, and the codes
        # the rules found there, listed or not (so a reader issue is dropped whenever a
        # rule found the same thing, even past the cap)
        self.watch: set[int] = set()
        self.codes_at: dict[int, set[str]] = {}
        # (line, code, message) of the findings on those lines: a reader issue of an
        # ``_EXACT`` code is dropped only for the same finding
        self.said: set[tuple[int, str, str]] = set()

    def _room(self, code: str) -> bool:
        n = self.per_code.get(code, 0) + 1
        self.per_code[code] = n
        return n <= MAX_PER_CODE

    def has_room(self, code: str) -> bool:
        """Whether one more finding of ``code`` would be listed."""
        return self.per_code.get(code, 0) < MAX_PER_CODE

    def room(self, code: str) -> int:
        """How many more findings of ``code`` would be listed."""
        return max(0, MAX_PER_CODE - self.per_code.get(code, 0))

    def count(self, code: str, n: int = 1) -> None:
        """``n`` findings of ``code`` past its cap, on lines not watched: ``add`` without the
        messages it would not list."""
        if n:
            self.per_code[code] = self.per_code.get(code, 0) + n

    def add(self, code: str, message: str, line: int = 0, column: int = 0) -> None:
        if line in self.watch:
            self.codes_at.setdefault(line, set()).add(code)
            self.said.add((line, code, message))
        if self._room(code):
            self.placed.append(rules.make_issue(code, message, line, column, self.source))

    def at_entry(
        self, code: str, message: str, loc: str, ordered: bool = True, entry: int | None = None
    ) -> None:
        if self._room(code):
            at = self.entry if entry is None else entry
            self.pending.append((code, message, loc, ordered, at))

    def per_host(
        self, code: str, host: str, message: str, loc: str, urls: int = 1, entry: int = -1
    ) -> None:
        """A host finding for ``urls`` URLs, the first of them ``loc`` (entry ``entry``)."""
        key = (code, host)
        found = self.by_host.get(key)
        if found is None:
            self.by_host[key] = [message, loc, urls, entry]
        else:
            found[2] += urls

    def finish(self) -> None:
        for (code, _host), (message, loc, n, entry) in self.by_host.items():
            more = f" ({plural(n, 'URL')})" if n > 1 else ""
            self.at_entry(code, message + more, loc, ordered=False, entry=entry)
        self.by_host = {}
        for code, n in self.per_code.items():
            if n > MAX_PER_CODE:
                self.placed.append(unlisted_summary(code, n, self.source))


def unlisted_summary(code: str, n: int, source: str) -> Issue:
    """The line that says ``n - MAX_PER_CODE`` findings of ``code`` were not listed."""
    summary = rules.make_issue(SUMMARY_CODE, unlisted_message(code, n, MAX_PER_CODE), source=source)
    # as severe as what it counts: unlisted notes do not make a warning
    severity = rules.lookup(code).severity
    return summary._replace(severity=min(severity, summary.severity, key=SEVERITY_RANK.__getitem__))


# reader codes that the checker reports more precisely at the same line (a loc made a URI,
# normalized-url, is the reader's alone: check passes it on)
_SUPERSEDED = {
    "url-not-escaped": ("url-not-escaped",),
    "invalid-url": ("url-too-long",),
    "not-well-formed": ("unescaped-ampersand",),
    "unknown-element": ("unknown-element", "misplaced-element", "element-order"),
    "misplaced-element": ("misplaced-element",),
    "relative-url": ("text-not-url", "text-header-line"),
}
# of those, the ones the checker says in the reader's words: dropped only where the rules
# found the same (another URL of that line, an hreflang href, is the reader's alone)
_EXACT = {"url-not-escaped"}
# reader codes the profile-aware limit rules replace
_REPLACED = {"too-many-urls", "too-many-sitemaps"}
_ENTITY_REF = ("xmlParseEntityRef", "EntityRef: expecting")
# reader codes the checker takes out of the reader's list and counts itself
_NOT_LISTED_BY_READER = {"dev-host"}


def watch_lines(reader_issues: list[Issue], found: Findings) -> None:
    """Tell ``found`` the lines of the reader issues a rule may supersede."""
    found.watch = {i.line for i in reader_issues if i.line and i.code in _SUPERSEDED}


def merge_issues(
    reader_issues: list[Issue], found: Findings, reader_counts: dict[str, int]
) -> tuple[list[Issue], dict[str, int]]:
    """The reader's issues with the check's severities, minus those a rule said better; and
    per code, the findings counted but not listed (``reader_counts`` are the reader's
    counts per code, unlisted ones included)."""
    mine = found.codes_at
    out: list[Issue] = []
    listed: dict[str, int] = {}  # reader issues listed per code, dropped or kept
    dropped: dict[str, int] = {}  # of which a rule said better
    # the reader's too-many-errors lines for codes the rules count past their caps too: the
    # rules' own line says it (the reader's extra findings are taken to be the same things)
    summarized = {
        unlisted_message(code, reader_counts[code], MAX_ISSUES_PER_CODE)
        for code, n in found.per_code.items()
        if n > MAX_PER_CODE and reader_counts.get(code, 0) > MAX_ISSUES_PER_CODE
    }
    for issue in reader_issues:
        code = issue.code
        listed[code] = listed.get(code, 0) + 1
        if code in _REPLACED or (code == SUMMARY_CODE and issue.message in summarized):
            continue
        if code == "not-well-formed" and issue.message.startswith(_ENTITY_REF):
            issue = rules.make_issue(
                "unescaped-ampersand",
                f"a raw & ({issue.message.strip()}); write &amp;",
                issue.line,
                issue.column,
                issue.source,
            )
            code = issue.code
        better = _SUPERSEDED.get(code)
        if (
            better is not None
            and issue.line
            and mine.get(issue.line, set()) & set(better)
            and (code not in _EXACT or (issue.line, code, issue.message) in found.said)
        ):
            dropped[code] = dropped.get(code, 0) + 1
            continue
        row = rules.lookup(code)
        if row.severity != issue.severity:
            issue = issue._replace(severity=row.severity)
        out.append(issue)
    # a raw & in a loc is found by both; keep one per line
    have = {i.line for i in out if i.code == "unescaped-ampersand"}
    out.extend(i for i in found.placed if not (i.code == "unescaped-ampersand" and i.line in have))
    return out, _unlisted(found, reader_counts, listed, dropped)


def _unlisted(
    found: Findings, reader_counts: dict[str, int], listed: dict[str, int], dropped: dict[str, int]
) -> dict[str, int]:
    """Per code, what was counted past the caps. A reader issue past its cap has no line to
    compare: the rules' own findings of the better codes, beyond those that superseded a
    listed reader issue, are taken to be the same things and not counted again."""
    unlisted = {code: n - MAX_PER_CODE for code, n in found.per_code.items() if n > MAX_PER_CODE}
    for code, n in reader_counts.items():
        more = n - listed.get(code, 0)
        if more <= 0 or code in _REPLACED or code in _NOT_LISTED_BY_READER:
            continue
        better = _SUPERSEDED.get(code)
        if better is not None:
            said = sum(found.per_code.get(b, 0) for b in better) - dropped.get(code, 0)
            more -= min(more, max(0, said))
        if more:
            unlisted[code] = unlisted.get(code, 0) + more
    return unlisted

"""Where the entries a rule flagged are in the bytes (line and column).

The reader gives entries no position; ``place_entries`` takes the pending findings (code,
message, loc) and gives ``Issue`` objects placed at their entry's loc, found by its text in
the bytes or, when a loc is not written as its URI, by one lxml pass (``_Locator``).
``lines_of_refs`` gives the line of each child entry of an index.
"""

from __future__ import annotations

import re

from ..errors import InvalidValue
from ..model import Issue, SitemapRef
from ..urls import to_uri
from . import rules
from .xmlevents import drop, parse_events, split_tag


def _entry_locs(plain: bytes, fmt: str | None) -> list[tuple[int, str]]:
    """(line, text) of every entry's loc (RSS link, Atom link href), in document order."""
    if fmt == "text":
        text = plain.decode("utf-8", "replace")
        return [(n, s.strip()) for n, s in enumerate(text.split("\n"), 1) if s.strip()]
    out: list[tuple[int, str]] = []
    stack: list[str] = []
    for action, el in parse_events(plain):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        local = split_tag(tag)[1]
        if action == "start":
            stack.append(local)
            continue
        if stack:
            stack.pop()
        parent = stack[-1] if stack else ""
        if (local == "loc" and parent in ("url", "sitemap")) or (
            local == "link" and parent == "item"
        ):
            out.append((el.sourceline or 0, (el.text or "").strip()))
        elif local == "link" and parent == "entry":
            out.append((el.sourceline or 0, (el.get("href") or "").strip()))
        if stack and local in ("url", "sitemap", "item", "entry"):
            drop(el)
    return out


class _Locator:
    def __init__(self, plain: bytes, fmt: str | None, base_url: str | None) -> None:
        self.plain = plain
        self.locs = _entry_locs(plain, fmt)
        self.base_url = base_url
        self.by_text: dict[str, list[int]] = {}
        for line, text in self.locs:
            self.by_text.setdefault(text, []).append(line)
        self.by_uri: dict[str, list[int]] | None = None
        self.used: dict[str, int] = {}
        self._lines: list[bytes] | None = None

    def _uri(self, text: str) -> str | None:
        try:
            return to_uri(text)
        except InvalidValue:
            pass
        if self.base_url is None:
            return None
        from urllib.parse import urljoin

        try:
            return to_uri(urljoin(self.base_url, text))
        except (InvalidValue, ValueError):
            return None

    def line_of(self, loc: str) -> int:
        lines = self.by_text.get(loc)
        if lines is None:
            if self.by_uri is None:
                self.by_uri = {}
                for line, text in self.locs:
                    uri = self._uri(text)
                    if uri is not None:
                        self.by_uri.setdefault(uri, []).append(line)
            lines = self.by_uri.get(loc)
            if lines is None:
                return 0
        k = self.used.get(loc, 0)
        self.used[loc] = k + 1
        return lines[min(k, len(lines) - 1)]

    def column_of(self, line: int, loc: str) -> int:
        if not line:
            return 0
        if self._lines is None:
            self._lines = self.plain.split(b"\n")
        if line > len(self._lines):
            return 0
        raw = self._lines[line - 1]
        for needle in (loc.encode("utf-8"), loc.replace("&", "&amp;").encode("utf-8"), b"loc>"):
            at = raw.find(needle)
            if at >= 0:
                return at + 1 + (4 if needle == b"loc>" else 0)
        return 0


def _find_loc(plain: bytes, loc: str, start: int, fmt: str | None) -> int:
    """Offset of the text of the entry whose loc is ``loc``, written as is, or -1."""
    raw = loc.encode("utf-8")
    if fmt == "text":
        at = plain.find(raw, start)
        while at >= 0:
            end = at + len(raw)
            if (at == 0 or plain[at - 1] in b"\n \t") and plain[end : end + 1] in (
                b"",
                b"\n",
                b"\r",
                b" ",
                b"\t",
            ):
                return at
            at = plain.find(raw, at + 1)
        return -1
    for needle in (raw, raw.replace(b"&", b"&amp;")):
        at = plain.find(b">" + needle + b"<", start)
        if at >= 0:
            return at + 1
    return -1


def place_entries(
    plain: bytes,
    fmt: str | None,
    pending: list[tuple[str, str, str, bool]],
    source: str,
    base_url: str | None,
) -> list[Issue]:
    """Issues for entry findings: the loc's text is looked up in the bytes (in document
    order, so each search starts where the last one ended); a loc not written as its URI is
    found by the lxml locator."""
    out = []
    locator: _Locator | None = None
    pos = 0
    line = 1
    # the same finding on the same loc again is that loc's next occurrence
    last_at: dict[tuple[str, str], int] = {}
    for code, message, loc, ordered in pending:
        start = pos if ordered else 0
        before = last_at.get((code, loc))
        if before is not None:
            start = max(start, before + 1)
        at = _find_loc(plain, loc, start, fmt)
        if at >= 0:
            last_at[(code, loc)] = at
        if at < 0:
            if locator is None:
                locator = _Locator(plain, fmt, base_url)
            where = locator.line_of(loc)
            column = locator.column_of(where, loc)
        else:
            if ordered:
                line += plain.count(b"\n", pos, at)
                pos = at
                where = line
            else:
                where = plain.count(b"\n", 0, at) + 1
            value = value_of_entry(plain, at, code)
            if value != at:  # the value, on the loc's line or a later one
                where += plain.count(b"\n", at, value)
            column = value - plain.rfind(b"\n", 0, value)
        out.append(rules.make_issue(code, message, where, column, source))
    return out


def lines_of_refs(plain: bytes, refs: list[SitemapRef], base_url: str | None) -> list[int]:
    locator = _Locator(plain, "sitemapindex", base_url)
    return [locator.line_of(ref.loc) for ref in refs]


# the element whose text a finding is about, when its message does not quote the value
_VALUE_ELEMENT = {
    "future-lastmod": b"lastmod",
    "duplicate-loc": b"loc",
}
_QUOTED = re.compile(r"'([^'\n]{1,2048})'")


def _value_column(line_text: bytes, issue: Issue) -> int:
    """The column of the value ``issue`` is about on its line, or 0 when not found there."""
    from xml.sax.saxutils import escape  # here: it loads urllib.request, which checks never need

    quoted = _QUOTED.search(issue.message)
    if quoted is not None:
        value = quoted.group(1)
        for needle in (value, escape(value)):
            at = line_text.find(b">" + needle.encode("utf-8", "replace"))
            if at >= 0:
                return at + 2
    name = _VALUE_ELEMENT.get(issue.code)
    if name is not None:
        at = line_text.find(b"<" + name + b">")
        if at >= 0:
            return at + len(name) + 3
    return 0


def place_values(plain: bytes, issues: list[Issue]) -> list[Issue]:
    """``issues`` with the column of their value filled in where they have a line only (the
    reader's value findings: lastmod, changefreq, priority, extension fields)."""
    todo = sorted(
        (n for n, i in enumerate(issues) if i.line and not i.column), key=lambda n: issues[n].line
    )
    if not todo:
        return issues
    out = list(issues)
    line, start = 1, 0  # the line at offset ``start``
    for n in todo:
        issue = issues[n]
        while line < issue.line:
            nl = plain.find(b"\n", start)
            if nl < 0:
                return out
            line, start = line + 1, nl + 1
        end = plain.find(b"\n", start)
        column = _value_column(plain[start : end if end >= 0 else len(plain)], issue)
        if column:
            out[n] = issue._replace(column=column)
    return out


def value_of_entry(plain: bytes, at: int, code: str) -> int:
    """The offset of the value ``code`` is about in the entry whose loc text is at ``at``
    (a future lastmod is at its lastmod, not at the loc), or ``at``."""
    name = _VALUE_ELEMENT.get(code)
    if name is None or name == b"loc":
        return at
    end = plain.find(b"</url>", at)
    if end < 0:
        end = plain.find(b"</sitemap>", at)
    start = plain.rfind(b"<url>", 0, at)
    start = max(start, plain.rfind(b"<sitemap>", 0, at))
    inside = plain.find(b"<" + name + b">", max(start, 0), end if end >= 0 else len(plain))
    return at if inside < 0 else inside + len(name) + 2

"""Check sitemaps the way a search engine does: the reader's findings plus the rules.

The core, ``check_document``, takes the bytes of one document and returns a ``FileResult``;
it reads no file and no clock (``now`` is passed in). It runs the reader
(``reader.read_chunks``) and applies ``rules`` to what the reader emits. What the reader
cannot tell is taken from the bytes directly:

* the loc text as written (escaping is judged on it, not on the URI the reader made);
* the order and place of the protocol's elements: a few regular expressions over the
  bytes prove the common case right; when they cannot, an lxml pass names each problem;
* the line of an entry: the reader gives entries no position, so the entries a rule
  flagged are located afterwards, by finding their loc text in the bytes (in document
  order), or by one lxml pass when a loc is not written as its URI. Clean entries cost
  nothing here.

``check_paths`` is the thin file layer: files, directories (every sitemap in them) and an
index's children resolved inside the directory through the base URL.
"""

from __future__ import annotations

import contextlib
import os
import re
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, NamedTuple, cast

from lxml import etree

from ..dates import Lastmod
from ..errors import InvalidValue
from ..extensions import rules as ext_rules
from ..limits import CURRENT, MAX_LOC_LENGTH, Limits, ReadLimits
from ..model import Issue, Severity, SitemapRef, Url
from ..reading.reader import FILE_CHUNK, read_chunks
from ..urls import Scope, to_uri
from . import rules

__all__ = [
    "CheckOptions",
    "CheckReport",
    "FileResult",
    "check",
    "check_bytes",
    "check_document",
    "check_file",
    "check_paths",
    "is_valid",
]

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
GZIP_MAGIC = b"\x1f\x8b"
# At most this many issues of one code per file are listed; the rest are counted.
MAX_PER_CODE = 1000


@dataclass(frozen=True)
class CheckOptions:
    """How documents are checked.

    ``base_url`` is the URL a single document is served at (its scope and the base of
    relative locs); for ``check_paths`` it is the URL of the directory given, or of the file
    given. ``now`` (an aware datetime) enables the future-date rule. ``schema`` also
    validates against the protocol's XML schema.
    """

    limits: Limits = CURRENT
    base_url: str | None = None
    now: datetime | None = None
    schema: bool = False
    read_limits: ReadLimits = field(default_factory=ReadLimits)


# the format of the entry that holds findings across the files of a set, not one document
SET_FORMAT = "set"


@dataclass
class FileResult:
    """The outcome for one document."""

    source: str
    issues: list[Issue] = field(default_factory=list)
    format: str | None = None
    entries: int = 0
    size: int = 0
    url: str | None = None
    refs: list[SitemapRef] = field(default_factory=list)
    ref_lines: list[int] = field(default_factory=list)
    newest_lastmod: Lastmod | None = None

    def count(self, severity: Severity) -> int:
        return sum(1 for i in self.issues if i.severity == severity)

    @property
    def errors(self) -> int:
        return self.count(Severity.ERROR)

    @property
    def warnings(self) -> int:
        return self.count(Severity.WARNING)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "url": self.url,
            "format": self.format,
            "entries": self.entries,
            "bytes": self.size,
            "errors": self.errors,
            "warnings": self.warnings,
            "issues": [_issue_dict(i) for i in self.issues],
        }


def _issue_dict(issue: Issue) -> dict[str, Any]:
    row = rules.lookup(issue.code)
    return {
        "code": issue.code,
        "severity": str(issue.severity),
        "message": issue.message,
        "line": issue.line,
        "column": issue.column,
        "hint": issue.hint,
        "gsc": row.gsc or None,
    }


_RANK = {Severity.ERROR: 2, Severity.WARNING: 1, Severity.INFO: 0}


@dataclass
class CheckReport:
    """Per-file results and a summary."""

    files: list[FileResult] = field(default_factory=list)

    @property
    def issues(self) -> list[Issue]:
        return [i for f in self.files for i in f.issues]

    def summary(self) -> dict[str, int]:
        issues = self.issues
        return {
            "files": sum(1 for f in self.files if f.format != SET_FORMAT),
            "entries": sum(f.entries for f in self.files),
            "errors": sum(1 for i in issues if i.severity == Severity.ERROR),
            "warnings": sum(1 for i in issues if i.severity == Severity.WARNING),
            "infos": sum(1 for i in issues if i.severity == Severity.INFO),
        }

    def failed(self, fail_on: Severity | str = Severity.ERROR) -> bool:
        """True when an issue at or above ``fail_on`` was found."""
        floor = _RANK[Severity(fail_on)]
        return any(_RANK[i.severity] >= floor for i in self.issues)

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [f.to_dict() for f in self.files],
            "summary": self.summary(),
        }

    def to_sarif(self, *, version: str = "") -> dict[str, Any]:
        """The report as a SARIF 2.1.0 log (one run, one rule per code used)."""
        used = sorted({i.code for i in self.issues})
        index = {code: n for n, code in enumerate(used)}
        driver_rules = []
        for code in used:
            row = rules.lookup(code)
            rule: dict[str, Any] = {
                "id": code,
                "name": code,
                "shortDescription": {"text": row.title},
                "help": {"text": row.hint},
                "defaultConfiguration": {"level": _sarif_level(row.severity)},
            }
            if row.gsc:
                rule["properties"] = {"searchConsole": row.gsc}
            driver_rules.append(rule)
        results = []
        for f in self.files:
            for i in f.issues:
                region = {"startLine": max(i.line, 1), "startColumn": max(i.column, 1)}
                result: dict[str, Any] = {
                    "ruleId": i.code,
                    "ruleIndex": index[i.code],
                    "level": _sarif_level(i.severity),
                    "message": {"text": i.message},
                }
                if f.format != SET_FORMAT:  # findings across files have no single place
                    result["locations"] = [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": _artifact_uri(f.source)},
                                "region": region,
                            }
                        }
                    ]
                results.append(result)
        driver: dict[str, Any] = {
            "name": "urlset",
            "informationUri": "https://www.sitemaps.org/protocol.html",
            "rules": driver_rules,
        }
        if version:
            driver["version"] = version
        return {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results}],
        }


def _sarif_level(severity: Severity) -> str:
    return {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(severity, "note")


def _artifact_uri(source: str) -> str:
    if source.startswith("<"):
        return source.strip("<>")
    path = Path(source)
    return path.as_uri() if path.is_absolute() else path.as_posix()


# --- the core: one document --------------------------------------------------------------


def _gunzip(data: bytes, cap: int) -> tuple[bytes, bool]:
    """The decompressed bytes (at most ``cap`` + 1) and whether the stream was whole and valid."""
    d = zlib.decompressobj(wbits=31)
    try:
        out = d.decompress(data, cap + 1)
    except zlib.error:
        return b"", False
    return out, d.eof and not d.unconsumed_tail


class _Findings:
    """Issues found by the checker's rules, capped per code, some awaiting a position."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.placed: list[Issue] = []
        # code, message, loc, and whether it came in document order
        self.pending: list[tuple[str, str, str, bool]] = []
        self.per_code: dict[str, int] = {}
        # (code, host) -> [message, loc of the first URL, number of URLs]
        self.by_host: dict[tuple[str, str], list[Any]] = {}

    def _room(self, code: str) -> bool:
        n = self.per_code.get(code, 0) + 1
        self.per_code[code] = n
        return n <= MAX_PER_CODE

    def add(self, code: str, message: str, line: int = 0, column: int = 0) -> None:
        if self._room(code):
            self.placed.append(rules.make_issue(code, message, line, column, self.source))

    def at_entry(self, code: str, message: str, loc: str, ordered: bool = True) -> None:
        if self._room(code):
            self.pending.append((code, message, loc, ordered))

    def per_host(self, code: str, host: str, message: str, loc: str) -> None:
        key = (code, host)
        found = self.by_host.get(key)
        if found is None:
            self.by_host[key] = [message, loc, 1]
        else:
            found[2] += 1

    def finish(self) -> None:
        for (code, _host), (message, loc, n) in self.by_host.items():
            more = f" ({n:,} URLs)" if n > 1 else ""
            self.at_entry(code, message + more, loc, ordered=False)
        self.by_host = {}
        for code, n in self.per_code.items():
            if n > MAX_PER_CODE:
                summary = rules.make_issue(
                    "too-many-errors",
                    f"{n - MAX_PER_CODE} more {code} issues not listed ({n} in all)",
                    source=self.source,
                )
                # as severe as what it counts: unlisted notes do not make a warning
                severity = rules.lookup(code).severity
                self.placed.append(
                    summary._replace(
                        severity=min(severity, summary.severity, key=_RANK.__getitem__)
                    )
                )


class _Hosts:
    """Host rules, computed once per scheme://authority and applied to every URL on it."""

    def __init__(self, found: _Findings, scope: Scope | None, index: bool) -> None:
        self.found = found
        self.scope = scope
        self.index = index
        self.seen: dict[str, tuple[tuple[str, str], ...]] = {}
        self.first_host: str | None = None
        self.prefix = "" if scope is None else scope.prefix

    def check(self, loc: str) -> None:
        end = loc.find("/", 8)
        authority = loc if end < 0 else loc[:end]
        verdicts = self.seen.get(authority)
        if verdicts is None:
            verdicts = self._judge(loc)
            self.seen[authority] = verdicts
        found = self.found
        for code, message in verdicts:
            found.per_host(code, authority, message, loc)
        scope = self.scope
        if (
            scope is not None
            and not self.index
            and not loc.startswith(self.prefix)
            and not any(code in ("www-variant", "url-not-allowed") for code, _ in verdicts)
        ):
            why = rules.url_not_allowed(loc, scope)
            if why is not None:
                found.at_entry("url-not-allowed", why, loc)

    def _judge(self, loc: str) -> tuple[tuple[str, str], ...]:
        host = rules.host_of(loc)
        out: list[tuple[str, str]] = []
        message = rules.dev_host(host)
        if message is not None:
            out.append(("dev-host", message))
        message = rules.placeholder_host(host)
        if message is not None:
            out.append(("placeholder-host", message))
        scope = self.scope
        if scope is None:
            if self.first_host is None:
                self.first_host = host
            message = rules.mixed_hosts(host, self.first_host)
            if message is not None:
                out.append(("mixed-hosts", message))
            return tuple(out)
        message = rules.www_variant(loc, scope)
        if message is not None:
            out.append(("www-variant", message))
            return tuple(out)
        site = Scope(scope.scheme, scope.host, scope.port, "/")
        message = rules.index_other_site(loc, scope) if not loc.startswith(site.prefix) else None
        if message is not None:
            out.append(("index-other-site" if self.index else "url-not-allowed", message))
        return tuple(out)


def check_document(
    data: bytes,
    options: CheckOptions = CheckOptions(),
    source: str = "<bytes>",
    *,
    full_size: int | None = None,
    set_checks: ext_rules.SetChecks | None = None,
) -> FileResult:
    """Check one document held in memory (any format the reader knows, gzip included).

    ``full_size`` is the size of the whole document when ``data`` is only its beginning
    (a file far beyond the reader's size limit is not read whole).
    """
    result = FileResult(source, size=len(data), url=options.base_url)
    found = _Findings(source)
    cap = options.read_limits.max_decompressed_bytes
    plain = data
    if data[:2] == GZIP_MAGIC:
        unpacked, whole = _gunzip(data, cap)
        plain = unpacked
        if whole:
            data = unpacked
    result.size = len(plain)
    limits = options.limits
    scope: Scope | None = None
    if options.base_url is not None:
        try:
            scope = Scope.of(options.base_url)
        except (InvalidValue, ValueError):
            scope = None

    # fed in the pieces a file read gives: the reader is fastest with chunks of this size
    read = read_chunks(
        (data[i : i + FILE_CHUNK] for i in range(0, len(data), FILE_CHUNK)),
        source=source,
        base_url=options.base_url,
        limits=options.read_limits,
        with_issues=True,
    )
    reader_issues: list[Issue] = []
    now = options.now
    day_limit = rules.latest_day(now) if now is not None else date.max
    newest_date: date | None = None
    newest_time: datetime | None = None
    entries = 0
    refs = result.refs
    hosts = _Hosts(found, scope, False)
    seen_hosts = hosts.seen
    prefix = None if scope is None else scope.prefix
    # the rules across URLs (hreflang reciprocity, news per sitemap): this document alone,
    # or the whole set a caller checks (check_paths pools a directory's files)
    pooled = set_checks is not None
    if set_checks is None:
        set_checks = ext_rules.SetChecks()
    add_plain = set_checks.reciprocity.add_plain
    for event in read:
        kind = type(event)
        if kind is Issue:
            reader_issues.append(event)  # type: ignore[arg-type]
            continue
        if kind is SitemapRef:
            hosts.index = True
            refs.append(event)  # type: ignore[arg-type]
        entries += 1
        loc: str = event[0]
        if kind is Url:
            url = cast(Url, event)
            if url.extensions:  # their own rules, and the set-wide ones (hreflang, news)
                # the reader has already reported elements it could not type (raw=False)
                for problem in ext_rules.check_url(url, now=now, raw=False):
                    found.at_entry(problem.code, problem.message, loc)
                set_checks.add(url, source=source)
            else:
                add_plain(loc)
        lastmod: Lastmod | None = event[1]  # type: ignore[assignment]
        # fast path: a known host without findings, inside the scope
        end = loc.find("/", 8)
        verdicts = seen_hosts.get(loc[:end] if end >= 0 else loc)
        if verdicts is None or verdicts or (prefix is not None and not loc.startswith(prefix)):
            hosts.check(loc)
        if lastmod is not None:
            if type(lastmod) is date:
                if newest_date is None or lastmod > newest_date:
                    newest_date = lastmod
                if lastmod > day_limit and now is not None:
                    message = rules.future_lastmod(lastmod, now)
                    if message is not None:
                        found.at_entry("future-lastmod", message, loc)
            else:
                if newest_time is None or lastmod > newest_time:
                    newest_time = lastmod  # type: ignore[assignment]
                if now is not None and lastmod > now:
                    message = rules.future_lastmod(lastmod, now)
                    if message is not None:
                        found.at_entry("future-lastmod", message, loc)
    if not pooled:
        for problem in set_checks.finish():
            found.add(problem.code, problem.message)
    result.entries = entries
    result.format = fmt = read.format
    fatal = read.fatal
    known = [v for v in (newest_date, newest_time) if v is not None]
    result.newest_lastmod = rules.newest(known)

    # the document
    message = rules.byte_order_mark(plain)
    if message is not None:
        found.add("byte-order-mark", message, 1, 1)
    message = rules.empty_sitemap(fmt, entries, fatal)
    if message is not None and not _dropped_entries(reader_issues):
        found.add("empty-sitemap", message, 1, 1)

    if fmt in ("urlset", "sitemapindex"):
        message = rules.no_xml_declaration(plain)
        if message is not None:
            found.add("no-xml-declaration", message, 1, 1)
    if fmt == "sitemapindex":
        without = sum(1 for ref in refs if ref.lastmod is None)
        message = rules.missing_index_lastmod(without, len(refs))
        if message is not None:
            found.add("missing-index-lastmod", message)

    # limits of the profile
    if fmt == "sitemapindex":
        message = rules.too_many_sitemaps(entries, limits)
        if message is not None:
            found.add("too-many-sitemaps", message)
    elif fmt == "text":
        lines = plain.count(b"\n") + (0 if plain.endswith(b"\n") else 1)
        message = rules.too_many_lines(lines, limits)
        if message is not None:
            found.add("too-many-lines", message)
    elif fmt is not None:
        message = rules.too_many_urls(entries, limits)
        if message is not None:
            found.add("too-many-urls", message)
    message = rules.file_too_large(max(len(plain), full_size or 0), limits)
    if message is not None:
        found.add("file-too-large", message)

    # raw text and structure, unless the reader's fast lane proved them already (a urlset
    # of canonical records, every loc plain as written)
    if fmt in ("urlset", "sitemapindex"):
        proven = read.reader.plain_records and limits.max_loc_length >= MAX_LOC_LENGTH
        if not proven:
            _raw_locs(plain, limits, found)
        if not fatal:
            unexpected = any(i.code in _UNEXPECTED for i in reader_issues)
            if unexpected or not proven:
                _structure(plain, fmt, found, unexpected)
            if options.schema:
                _schema(plain, fmt, found)
    elif fmt == "text":
        _text_lines(plain, found)
    elif fmt == "unknown" and plain.strip():
        _text_with_header(plain, found)

    found.finish()
    issues = _merge(reader_issues, found)
    if found.pending:
        issues.extend(_place(plain, fmt, found.pending, source, options.base_url))
    if fmt == "sitemapindex" and refs:
        result.ref_lines = _ref_lines(plain, refs, options.base_url)
    issues.sort(key=_position)
    result.issues = issues
    return result


def _position(issue: Issue) -> tuple[int, int]:
    return (issue.line, issue.column)


def _dropped_entries(issues: list[Issue]) -> bool:
    """True when the reader skipped entries it could not use (then "empty" is not the news)."""
    return any(
        i.code in ("relative-url", "invalid-url", "missing-loc", "truncated-entry")
        or i.severity == Severity.ERROR
        for i in issues
    )


# reader codes that the checker reports more precisely at the same line
_SUPERSEDED = {
    "normalized-url": ("url-not-escaped", "url-not-ascii"),
    "invalid-url": ("url-too-long",),
    "not-well-formed": ("unescaped-ampersand",),
    "unknown-element": ("unknown-sitemap-element", "misplaced-element", "element-order"),
    "relative-url": ("text-not-url", "text-header-line"),
}
# reader codes the profile-aware limit rules replace
_REPLACED = {"too-many-entries"}
_ENTITY_REF = ("xmlParseEntityRef", "EntityRef: expecting")


def _merge(reader_issues: list[Issue], found: _Findings) -> list[Issue]:
    """The reader's issues with the check's severities, minus those a rule said better."""
    mine: dict[int, set[str]] = {}
    for issue in found.placed:
        mine.setdefault(issue.line, set()).add(issue.code)
    out: list[Issue] = []
    for issue in reader_issues:
        code = issue.code
        if code in _REPLACED:
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
        if better is not None and issue.line and mine.get(issue.line, set()) & set(better):
            continue
        row = rules.lookup(code)
        if row.severity != issue.severity:
            issue = issue._replace(severity=row.severity)
        out.append(issue)
    # a raw & in a loc is found by both; keep one per line
    have = {i.line for i in out if i.code == "unescaped-ampersand"}
    out.extend(i for i in found.placed if not (i.code == "unescaped-ampersand" and i.line in have))
    return out


# --- loc text as written ----------------------------------------------------------------------

# any element named loc, prefixed or not (image:loc, video:content_loc too): its text
_LOC_TEXT = re.compile(rb"loc>([^<]*)</")
_SUSPECT = re.compile(rb"[\x00-\x20\x7f-\xff&`^{}|\\\"]")
_URI_BYTES = bytes(b for b in range(256) if not _SUSPECT.match(bytes([b])))
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}
_ENTITY = re.compile(r"&(?:amp|lt|gt|quot|apos);")


def _raw_locs(plain: bytes, limits: Limits, found: _Findings) -> None:
    texts = _LOC_TEXT.findall(plain)
    if not texts:
        return
    longest = max(map(len, texts))
    if longest <= limits.max_loc_length:
        joined = b"".join(texts)
        odd = joined.translate(None, _URI_BYTES)  # what is left is worth a closer look
        if not odd or (odd.strip(b"&") == b"" and len(odd) == joined.count(b"&amp;")):
            return
    # something may be wrong: walk the locs again with positions
    line = 1
    last = 0
    for m in _LOC_TEXT.finditer(plain):
        raw = m.group(1)
        if len(raw) <= limits.max_loc_length and not _SUSPECT.search(raw.replace(b"&amp;", b"")):
            continue
        start = m.start(1)
        line += plain.count(b"\n", last, start)
        last = start
        column = start - plain.rfind(b"\n", 0, start)
        text = raw.decode("utf-8", "replace")
        stripped = text.strip()
        if not stripped:
            continue
        message = rules.unescaped_ampersand(text)
        if message is not None:
            found.add("unescaped-ampersand", message, line, column)
        message = rules.url_not_escaped(_ENTITY.sub(lambda e: _ENTITIES[e.group()], text))
        if message is None:
            message = _uri_forbidden(stripped)
        if message is not None:
            found.add("url-not-escaped", message, line, column)
        message = rules.url_not_ascii(text)
        if message is not None:
            found.add("url-not-ascii", message, line, column)
        message = rules.url_too_long(_ENTITY.sub(lambda e: _ENTITIES[e.group()], stripped), limits)
        if message is not None:
            found.add("url-too-long", message, line, column)


_FORBIDDEN = re.compile(r"[`^{}|\\\"]")


def _uri_forbidden(text: str) -> str | None:
    """Characters RFC 3986 never allows in a URI, written raw."""
    m = _FORBIDDEN.search(text)
    if m is None:
        return None
    return f"{rules.shown(text)!r} contains {m.group()!r}, which must be percent-encoded"


# --- text sitemaps ---------------------------------------------------------------------------


def _text_lines(plain: bytes, found: _Findings) -> None:
    text = plain.decode("utf-8", "replace")
    if text.startswith("\ufeff"):
        text = text[1:]
    lines = text.split("\n")
    numbered = [(n, line) for n, line in enumerate(lines, 1) if line.strip()]
    if not numbered:
        return
    edges = {numbered[0][0], numbered[-1][0]} if len(numbered) > 2 else set()
    for n, line in numbered:
        if _absolute(line):
            # a URL as written: spaces and characters a URI never holds
            message = rules.url_not_escaped(line) or _uri_forbidden(line.strip())
            if message is not None:
                found.add("url-not-escaped", message, n, 1)
            message = rules.url_not_ascii(line)
            if message is not None:
                found.add("url-not-ascii", message, n, 1)
            continue
        if n in edges:
            message = rules.text_header_line(line)
            if message is not None:
                found.add("text-header-line", message, n, 1)
                continue
        message = rules.text_not_url(line)
        if message is not None:
            found.add("text-not-url", message, n, 1)


def _text_with_header(plain: bytes, found: _Findings) -> None:
    """The reader takes a text sitemap only when its first line is a URL: name the header
    lines of a file whose other lines are URLs."""
    try:
        text = plain.decode("utf-8")
    except UnicodeDecodeError:
        return
    numbered = [(n, line) for n, line in enumerate(text.split("\n"), 1) if line.strip()]
    if len(numbered) < 2:
        return
    first_url = next((k for k, (_, line) in enumerate(numbered) if _absolute(line)), None)
    if first_url is None or first_url == 0 or first_url > 5:
        return
    if not all(_absolute(line) for _, line in numbered[first_url:]):
        return
    for n, line in numbered[:first_url]:
        message = rules.text_header_line(line)
        if message is not None:
            found.add("text-header-line", message, n, 1)


def _absolute(line: str) -> bool:
    return line.strip().lower().startswith(("http://", "https://"))


# --- order and place of the protocol's elements ---------------------------------------------

# every namespace declaration: the prefix (empty for the default namespace) and the URI
_XMLNS = re.compile(rb"xmlns(?::([^\s=]+))?\s*=\s*[\"']([^\"']*)")
_ROOT = re.compile(rb"<(urlset|sitemapindex)[\s>/]")
_X = rb"[A-Za-z_][\w.\-]*:"  # a prefixed (extension) element


class _Shape(NamedTuple):
    """Byte patterns that find a break of the protocol's order, fast.

    ``after`` looks at what follows each closing tag of the protocol (one pattern, so one
    pass), ``entry`` at what opens an entry, ``after_extension`` for a protocol element
    after an extension element. Unknown and misplaced elements need no pattern: the reader
    reports every element it does not expect (unknown-element, unexpected-child), and then
    the lxml walk names them.
    """

    after: re.Pattern[bytes]
    entry: re.Pattern[bytes]
    after_extension: re.Pattern[bytes]


_SHAPES = {
    "urlset": _Shape(
        re.compile(
            rb"</(?:loc>\s*<(?!lastmod>|changefreq>|priority>|/url>|" + _X + rb")"
            rb"|lastmod>\s*<(?!changefreq>|priority>|/url>|" + _X + rb")"
            rb"|changefreq>\s*<(?!priority>|/url>|" + _X + rb")"
            rb"|priority>\s*<(?!/url>|" + _X + rb"))"
        ),
        re.compile(rb"<url>\s*<(?!loc>)"),
        re.compile(rb"</" + _X + rb"[^>]*>\s*<(?:loc|lastmod|changefreq|priority)>"),
    ),
    "sitemapindex": _Shape(
        re.compile(
            rb"</(?:loc>\s*<(?!lastmod>|/sitemap>|" + _X + rb")"
            rb"|lastmod>\s*<(?!/sitemap>|" + _X + rb"))"
        ),
        re.compile(rb"<sitemap>\s*<(?!loc>)"),
        re.compile(rb"</" + _X + rb"[^>]*>\s*<(?:loc|lastmod)>"),
    ),
}
# reader codes that mean an element stands where the protocol does not expect it
_UNEXPECTED = frozenset(("unknown-element", "unexpected-child", "loc-as-text"))


def _structure(plain: bytes, fmt: str, found: _Findings, unexpected: bool) -> None:
    if not unexpected and _structure_plain(plain, fmt):
        return
    for code, message, line in _structure_walk(plain, fmt):
        found.add(code, message, line)


def _structure_plain(plain: bytes, fmt: str) -> bool:
    """True when the bytes show the protocol's elements in the protocol's order.

    Only for the plain shape (the default namespace is the protocol's, declared once, no
    comments or CDATA after the root); anything else goes to ``_structure_walk``.
    """
    root = _ROOT.search(plain)
    if root is None or root.group(1).decode() != fmt:
        return False
    # comments, CDATA or text after a closing tag make a pattern below match, and the lxml
    # walk then decides: a false alarm costs time, never a missed finding
    after = root.start()
    end = plain.find(b">", after)
    head = plain[after:end]
    if SITEMAP_NS.encode() not in head:
        return False
    declared = _XMLNS.findall(plain)
    if sum(1 for prefix, _ in declared if not prefix) != 1:
        return False  # a second default namespace could put protocol names elsewhere
    if any(prefix and uri == SITEMAP_NS.encode() for prefix, uri in declared):
        return False  # protocol elements written with a prefix
    shape = _SHAPES[fmt]
    if shape.after.search(plain, end) or shape.entry.search(plain, end):
        return False
    # prefixed (extension) elements exist only where a prefix is declared
    has_prefixes = any(prefix for prefix, _ in declared)
    return not has_prefixes or not shape.after_extension.search(plain, end)


_ORDER = {
    "urlset": ("url", ("loc", "lastmod", "changefreq", "priority")),
    "sitemapindex": ("sitemap", ("loc", "lastmod")),
}
_VOCABULARY = frozenset(
    ("urlset", "url", "sitemapindex", "sitemap", "loc", "lastmod", "changefreq", "priority")
)


def _split(tag: str) -> tuple[str, str]:
    if tag[:1] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def for_lxml(plain: bytes) -> bytes:
    """The document with anything before its first markup blanked out (lines kept), and a
    misplaced XML declaration with it, so that libxml2 reads on at the same positions."""
    body = plain[3:] if plain.startswith(b"\xef\xbb\xbf") else plain
    start = body.find(b"<")
    if start <= 0:
        return body
    if body.startswith(b"<?xml", start):
        end = body.find(b"?>", start)
        if end > 0:
            start = end + 2
    return _BLANK.sub(b" ", body[:start]) + body[start:]


_BLANK = re.compile(rb"[^\n]")


def _events(plain: bytes) -> Iterator[tuple[str, Any]]:
    parser = etree.XMLPullParser(
        events=("start", "end"),
        recover=True,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=True,
        remove_comments=True,
        remove_pis=True,
    )
    body = for_lxml(plain)
    step = 1 << 20
    for i in range(0, len(body), step):
        try:
            parser.feed(body[i : i + step])
        except etree.XMLSyntaxError:
            return
        yield from parser.read_events()
    with contextlib.suppress(etree.XMLSyntaxError):
        parser.close()
    yield from parser.read_events()


def _structure_walk(plain: bytes, fmt: str) -> list[tuple[str, str, int]]:
    """Every misplaced, unknown or out-of-order element of the protocol's namespace."""
    entry_name, order = _ORDER[fmt]
    out: list[tuple[str, str, int]] = []
    stack: list[tuple[str, str]] = []  # (ns, local) of open elements
    core: set[str] = {SITEMAP_NS}
    rank = -1  # position in ``order`` of the last protocol child of the open entry
    foreign_seen = False
    for action, el in _events(plain):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        ns, local = _split(tag)
        if action == "end":
            if stack:
                stack.pop()
            if len(stack) >= 2:
                el.clear()
            continue
        depth = len(stack)
        parent = stack[-1] if stack else None
        stack.append((ns, local))
        line = el.sourceline or 0
        if depth == 0:
            core = {ns, SITEMAP_NS}
            continue
        in_core = ns in core
        if depth == 1:
            if in_core:
                if local == entry_name:
                    rank, foreign_seen = -1, False
                else:
                    out.append(_stray(local, f"<{fmt}>", line))
            continue
        assert parent is not None
        parent_core = parent[0] in core
        if depth == 2 and parent_core and parent[1] == entry_name:
            if not in_core:
                foreign_seen = True
                continue
            if local in order:
                position = order.index(local)
                if foreign_seen or position < rank:
                    after = "an extension element" if foreign_seen else f"<{order[rank]}>"
                    out.append(
                        (
                            "element-order",
                            f"<{local}> comes after {after} in <{entry_name}>",
                            line,
                        )
                    )
                rank = max(rank, position)
            else:
                out.append(_stray(local, f"<{entry_name}>", line))
            continue
        if in_core and parent_core and depth == 3:
            out.append(_stray(local, f"<{parent[1]}>", line))
    return out


def _stray(local: str, where: str, line: int) -> tuple[str, str, int]:
    """A protocol-namespace element that does not belong ``where``: misplaced when the
    protocol has it elsewhere, unknown when the protocol has no such element."""
    if local in _VOCABULARY:
        return ("misplaced-element", f"<{local}> is not allowed in {where}", line)
    return ("unknown-sitemap-element", f"<{local}> is not an element of the protocol", line)


# --- the protocol's XML schema ----------------------------------------------------------------


@lru_cache(maxsize=2)
def _xml_schema(name: str) -> etree.XMLSchema:
    text = resources.files("urlset.checking").joinpath("schemas", name).read_bytes()
    return etree.XMLSchema(etree.fromstring(text))


def schema_errors(plain: bytes, fmt: str) -> list[tuple[str, int, int]]:
    """Errors of the document against urlset's own schema for ``fmt``: (message, line, column)."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True
    )
    try:
        doc = etree.fromstring(for_lxml(plain), parser)
    except etree.XMLSyntaxError:
        return []
    schema = _xml_schema("sitemap.xsd" if fmt == "urlset" else "siteindex.xsd")
    if schema.validate(doc):
        return []
    seen: set[tuple[str, int, int]] = set()
    out = []
    for e in list(schema.error_log):  # type: ignore[call-overload]
        key = (e.message, e.line, e.column)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def _schema(plain: bytes, fmt: str, found: _Findings) -> None:
    for message, line, column in schema_errors(plain, fmt):
        found.add("schema-error", message, line, column + 1 if column >= 0 else 0)


# --- positions of entries -------------------------------------------------------------------


def _entry_locs(plain: bytes, fmt: str | None) -> list[tuple[int, str]]:
    """(line, text) of every entry's loc (RSS link, Atom link href), in document order."""
    if fmt == "text":
        text = plain.decode("utf-8", "replace")
        return [(n, s.strip()) for n, s in enumerate(text.split("\n"), 1) if s.strip()]
    out: list[tuple[int, str]] = []
    stack: list[str] = []
    for action, el in _events(plain):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        local = _split(tag)[1]
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
        if len(stack) >= 2 and local in ("url", "sitemap", "item", "entry"):
            el.clear()
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


def _place(
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
            column = at - plain.rfind(b"\n", 0, at)
        out.append(rules.make_issue(code, message, where, column, source))
    return out


def _ref_lines(plain: bytes, refs: list[SitemapRef], base_url: str | None) -> list[int]:
    locator = _Locator(plain, "sitemapindex", base_url)
    return [locator.line_of(ref.loc) for ref in refs]


# --- the file layer -------------------------------------------------------------------------


def _is_sitemap_name(path: Path) -> bool:
    name = path.name.lower()
    if name.startswith("."):
        return False
    if name.endswith(".txt"):
        return "sitemap" in name or "urls" in name
    if name.endswith((".tar.gz", ".tgz")):
        return False
    return name.endswith((".xml", ".gz"))


def _not_a_sitemap(result: FileResult, path: Path) -> bool:
    """An XML file found in a directory that is no sitemap or feed (browserconfig.xml, an
    RSS-less config): left out, unless its name says it should be a sitemap."""
    if "sitemap" in path.name.lower():
        return False
    return any(i.code == "unknown-root" for i in result.issues)


def sitemap_files(directory: Path) -> list[Path]:
    """The sitemap files under ``directory``: *.xml, *.gz, and *.txt named like a sitemap."""
    out = []
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if path.is_file() and _is_sitemap_name(path):
            out.append(path)
    return out


def _file_url(base_url: str | None, root: Path | None, path: Path) -> str | None:
    if base_url is None:
        return None
    if root is None:
        return base_url + path.name if base_url.endswith("/") else base_url
    directory = base_url if base_url.endswith("/") else base_url + "/"
    return directory + path.relative_to(root).as_posix()


def _cannot_read(source: str, exc: OSError) -> FileResult:
    reason = exc.strerror or str(exc)
    issue = rules.make_issue("cannot-read", f"cannot read {source}: {reason}", source=source)
    return FileResult(source, [issue])


def check_file(
    path: str | os.PathLike[str],
    options: CheckOptions = CheckOptions(),
    *,
    url: str | None = None,
    set_checks: ext_rules.SetChecks | None = None,
) -> FileResult:
    """Check one file; ``url`` is where it is served (its scope), else ``options.base_url``."""
    p = Path(path)
    cap = options.read_limits.max_decompressed_bytes
    try:
        with p.open("rb") as f:
            data = f.read(cap + 1)  # beyond this the reader stops anyway
            size = os.fstat(f.fileno()).st_size
    except OSError as exc:
        return _cannot_read(str(p), exc)
    plain_size = size if data[:2] != GZIP_MAGIC else None
    return check_document(
        data,
        replace(options, base_url=url or options.base_url),
        str(p),
        full_size=plain_size,
        set_checks=set_checks,
    )


def check_paths(
    paths: Iterable[str | os.PathLike[str]],
    options: CheckOptions = CheckOptions(),
    *,
    stdin: bytes | None = None,
) -> CheckReport:
    """Check files and directories (and ``-`` for ``stdin``, the bytes the caller read).

    ``options.base_url`` is the URL of the directory (or of the single file) given; with it,
    each index's children are looked up inside the directory, checked, and compared with
    the index (nested index, missing file, stale lastmod).
    """
    report = CheckReport()
    done: dict[Path, FileResult] = {}
    pool = ext_rules.SetChecks()  # the files given form one set: hreflang across them
    base = options.base_url
    for given in paths:
        if str(given) == "-":
            result = check_document(stdin or b"", options, "<stdin>", set_checks=pool)
            report.files.append(result)
            continue
        p = Path(given)
        if p.is_dir():
            files = sitemap_files(p)
            kept = []
            for f in files:
                if f.resolve() in done:
                    continue
                result = check_file(f, options, url=_file_url(base, p, f), set_checks=pool)
                if _not_a_sitemap(result, f):
                    continue
                done[f.resolve()] = result
                report.files.append(result)
                kept.append(f)
            for f in kept:
                _children(done[f.resolve()], f, p, base, options, done, report, pool)
            if not files:
                issue = rules.make_issue("no-sitemaps", f"no sitemap files in {p}", source=str(p))
                report.files.append(FileResult(str(p), [issue]))
        else:
            key = p.resolve()
            if key in done:
                continue
            url = _file_url(base, None, p) if base is not None else None
            result = check_file(p, options, url=url, set_checks=pool)
            done[key] = result
            report.files.append(result)
            root_url = None if url is None else url[: url.rfind("/") + 1]
            _children(result, p, p.parent, root_url, options, done, report, pool)
    _attach_set_findings(pool, report)
    return report


def _attach_set_findings(pool: ext_rules.SetChecks, report: CheckReport) -> None:
    """The findings across the checked files: news counts go to their sitemap; hreflang
    findings to the one file checked, or to an entry of their own for a set of files."""
    findings = pool.finish()
    if not findings:
        return
    by_source = {f.source: f for f in report.files}
    whole_set: FileResult | None = None
    for finding in findings:
        target = by_source.get(finding.source)
        if target is None and len(report.files) == 1:
            target = report.files[0]
        if target is None:
            if whole_set is None:
                whole_set = FileResult(
                    f"(the {len(report.files)} files checked, as one set)", format=SET_FORMAT
                )
                report.files.append(whole_set)
            target = whole_set
        target.issues.append(rules.make_issue(finding.code, finding.message, source=target.source))


def _children(
    index: FileResult,
    path: Path,
    root: Path,
    root_url: str | None,
    options: CheckOptions,
    done: dict[Path, FileResult],
    report: CheckReport,
    pool: ext_rules.SetChecks | None = None,
) -> None:
    """Resolve an index's children in ``root`` and check the index against them."""
    if index.format != "sitemapindex" or not index.refs:
        return
    found: list[FileResult | None] = []
    missing: list[str] = []
    for ref in index.refs:
        local = _local_child(ref.loc, path, root, root_url)
        if local is None or not local.is_file():
            found.append(None)
            missing.append("" if local is None or root_url is None else str(local))
            continue
        key = local.resolve()
        child = done.get(key)
        if child is None:
            child = check_file(local, options, url=ref.loc, set_checks=pool)
            done[key] = child
            report.files.append(child)
        found.append(child)
        missing.append("")
    compare_with_children(index, found, missing)


def compare_with_children(
    index: FileResult, children: list[FileResult | None], missing: list[str]
) -> None:
    """Check an index against its children's results, one per ``index.refs`` entry: a child
    that is an index itself, a lastmod older than the child's newest, a child that is not
    there (``missing[i]`` names where it was looked for; empty when it was not looked for)."""
    added: list[Issue] = []
    lines = index.ref_lines or [0] * len(index.refs)
    # an entry without lastmod whose sitemap has no lastmod either loses nothing
    excused = 0
    for ref, line, child, where in zip(index.refs, lines, children, missing, strict=False):
        if child is None:
            if where:
                message = rules.missing_child(ref.loc, where)
                if message is not None:
                    added.append(rules.make_issue("missing-child", message, line, 0, index.source))
            continue
        if ref.lastmod is None and child.newest_lastmod is None and child.format != "sitemapindex":
            excused += 1
        message = rules.nested_index(child.format)
        if message is not None:
            added.append(rules.make_issue("nested-index", message, line, 0, index.source))
        if ref.lastmod is not None and child.newest_lastmod is not None:
            message = rules.stale_index_lastmod(ref.lastmod, child.newest_lastmod)
            if message is not None:
                added.append(
                    rules.make_issue("stale-index-lastmod", message, line, 0, index.source)
                )
    if excused:
        kept = []
        for issue in index.issues:
            if issue.code == "missing-index-lastmod":
                without = sum(1 for ref in index.refs if ref.lastmod is None) - excused
                message = rules.missing_index_lastmod(without, len(index.refs))
                if message is None:
                    continue
                issue = issue._replace(message=message)
            kept.append(issue)
        index.issues = kept
    if added:
        index.issues = sorted(index.issues + added, key=_position)


def _local_child(loc: str, index_path: Path, root: Path, root_url: str | None) -> Path | None:
    """Where the child ``loc`` lies on disk: under ``root`` through ``root_url``, or else
    beside the index by file name."""
    if root_url is not None:
        directory = root_url if root_url.endswith("/") else root_url + "/"
        if not loc.startswith(directory):
            return None
        rel = loc[len(directory) :].split("?", 1)[0]
        if not rel or ".." in rel.split("/"):
            return None
        return root.joinpath(*rel.split("/"))
    name = loc.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    if not name:
        return None
    candidate = index_path.parent / name
    return candidate if candidate.is_file() else None


# --- the Python API -----------------------------------------------------------------------------


def _options(
    limits: Limits | str, base_url: str | None, now: datetime | None, schema: bool
) -> CheckOptions:
    from ..limits import profile

    chosen = profile(limits) if isinstance(limits, str) else limits
    return CheckOptions(limits=chosen, base_url=base_url, now=now, schema=schema)


def check(
    source: bytes | str | os.PathLike[str],
    *,
    base_url: str | None = None,
    limits: Limits | str = CURRENT,
    now: datetime | None = None,
    schema: bool = False,
) -> list[Issue]:
    """The issues of a sitemap: ``bytes`` are a document; a ``str`` or path is a local file or
    directory (never a URL). ``limits`` is a ``Limits`` or a profile name."""
    options = _options(limits, base_url, now, schema)
    if isinstance(source, bytes):
        return check_document(source, options).issues
    return check_paths([source], options).issues


def check_bytes(
    data: bytes,
    *,
    source: str = "<bytes>",
    base_url: str | None = None,
    limits: Limits | str = CURRENT,
    now: datetime | None = None,
    schema: bool = False,
) -> FileResult:
    """Check one document in memory and return its full result."""
    return check_document(data, _options(limits, base_url, now, schema), source)


def is_valid(
    source: bytes | str | os.PathLike[str],
    *,
    base_url: str | None = None,
    limits: Limits | str = CURRENT,
    now: datetime | None = None,
    schema: bool = False,
) -> bool:
    """True when checking finds no error (warnings allowed)."""
    issues = check(source, base_url=base_url, limits=limits, now=now, schema=schema)
    return not any(i.severity == Severity.ERROR for i in issues)

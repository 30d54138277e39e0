"""Check one document held in memory: its bytes in, a ``FileResult`` out.

``check_document`` reads no file and no clock (``now`` is passed in). It runs the reader
(``reader.read_chunks``) and applies ``rules`` to what the reader emits: each entry's
extensions, host and scope, lastmod; then the document's own rules and the limits of the
profile. What the reader cannot tell is taken from the bytes directly: the loc text as
written (``raw_text``), the order and place of the protocol's elements (``structure``), the
XML schema when asked (``schema``), and the line of each entry a rule flagged
(``positions``; clean entries cost nothing there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import cast

from ..dates import Lastmod, future_lastmod, lastmod_without_day, latest_day
from ..errors import InvalidValue
from ..extensions.set_checks import SetChecks
from ..limits import CURRENT, MAX_LOC_LENGTH, Limits, ReadLimits
from ..model import Issue, Severity, SitemapRef, Url
from ..reading.reader import ReadResult, read_chunks
from ..urls import Scope, non_production_host, placeholder_host
from . import rules
from .findings import Findings, merge_issues, watch_lines
from .positions import (
    Windows,
    lines_of_refs,
    place_entries,
    place_values,
    whole_windows,
    windows_of,
)
from .raw_text import raw_locs, text_lines, text_with_header
from .report import FileResult, by_position
from .scan import Provers, Scan, Tee, pieces, whole
from .source import BytesSource, Source
from .structure import UNEXPECTED, check_structure


@dataclass(frozen=True)
class CheckOptions:
    """How documents are checked.

    ``base_url`` is the URL a single document is served at (its scope and the base of
    relative locs); for ``check_paths`` it is the URL of the directory given, or of the file
    given. ``now`` (an aware datetime) enables the future-date rule. ``schema`` also
    validates against the protocol's XML schema. ``on_urls``, when given, is called with
    each document's source and its URLs, a batch of at most ``URL_BATCH`` at a time, as the
    checker reads them (the HTML report counts them so: no second read of the input).
    ``url_scope``, when given, is the directory URL a urlset's URLs must lie under instead
    of ``base_url``'s: a set served elsewhere that the robots.txt of the URLs' host lists
    (cross-submission; ``build --sitemap-url``). An index's children stay on ``base_url``'s
    site.
    """

    limits: Limits = CURRENT
    base_url: str | None = None
    url_scope: str | None = None
    # a site (scheme://host/) whose robots.txt lists the document: a urlset's URLs on it are
    # in scope too ("Sitemaps & Cross Submits", as `robots --check` judges them)
    cross_submit: str | None = None
    now: datetime | None = None
    schema: bool = False
    read_limits: ReadLimits = field(default_factory=ReadLimits)
    on_urls: Callable[[str, list[Url]], None] | None = None


URL_BATCH = 20_000


class _Hosts:
    """Host rules, computed once per scheme://authority and applied to every URL on it."""

    def __init__(
        self, found: Findings, scope: Scope | None, index: bool, also: Scope | None = None
    ) -> None:
        self.found = found
        self.scope = scope
        self.also = None if index else also  # a cross-submitting site (urlsets only)
        self.index = index
        self.seen: dict[str, tuple[tuple[str, str], ...]] = {}
        self.first_host: str | None = None
        self.prefix = "" if scope is None else scope.prefix

    def of_index(self, served: Scope | None) -> _Hosts:
        """The rules for an index's entries, on its own site (``served``), which this one
        turns out to be."""
        return _Hosts(self.found, served, True)

    def check(self, loc: str) -> None:
        end = loc.find("/", 8)
        authority = loc if end < 0 else loc[:end]
        verdicts = self.seen.get(authority)
        if verdicts is None:
            verdicts = self._judge(loc)
            self.seen[authority] = verdicts
        found = self.found
        for code, message in verdicts:
            # a development host is one finding whatever its scheme and port, as the reader
            # reports it: every URL on the host counted
            key = rules.host_of(loc) if code == "dev-host" else authority
            found.per_host(code, key, message, loc)
        scope = self.scope
        if (
            scope is not None
            and not self.index
            and not loc.startswith(self.prefix)
            and not any(code in ("www-variant", "url-not-allowed") for code, _ in verdicts)
            and (self.also is None or not loc.startswith(self.also.prefix))
        ):
            why = rules.url_not_allowed(loc, scope)
            if why is not None:
                found.at_entry("url-not-allowed", why, loc)

    def _judge(self, loc: str) -> tuple[tuple[str, str], ...]:
        host = rules.host_of(loc)
        out: list[tuple[str, str]] = []
        message = non_production_host(host)
        if message is not None:
            out.append(("dev-host", message))
        message = placeholder_host(host)
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
        if self.also is not None and loc.startswith(self.also.prefix):
            return tuple(out)  # cross-submitted: the site's robots.txt lists the sitemap
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
    data: bytes | Source,
    options: CheckOptions = CheckOptions(),
    source: str = "<bytes>",
    *,
    full_size: int | None = None,
    set_checks: SetChecks | None = None,
) -> FileResult:
    """Check one document (any format the reader knows, gzip included): its bytes, or a
    ``Source`` that gives them a chunk at a time (a file: then it is never held whole).

    ``full_size`` is the size of the whole document when ``data`` is only its beginning
    (a file far beyond the reader's size limit is not read whole).
    """
    stored: Source = data if not isinstance(data, bytes | bytearray) else BytesSource(data)
    result = FileResult(source, url=options.base_url)
    found = Findings(source)
    cap = options.read_limits.max_decompressed_bytes
    scan = Scan(options.limits)
    tee = Tee(stored, scan, cap)
    # the reader takes the stored chunks (it decompresses them itself); the scan, the same
    # bytes decompressed, in the same pass
    read = read_chunks(
        tee,
        source=source,
        base_url=options.base_url,
        limits=options.read_limits,
        with_issues=True,
    )
    reader_issues: list[Issue] = []
    # the rules across URLs (hreflang reciprocity, news per sitemap): this document alone,
    # or the whole set a caller checks (check_paths pools a directory's files)
    pooled = set_checks is not None
    if set_checks is None:
        set_checks = SetChecks()
    result.entries, result.newest_lastmod = _check_entries(
        read, options, found, set_checks, result.refs, reader_issues
    )
    tee.finish()
    result.discovered = set_checks.discovered(source)
    if not pooled:
        for problem in set_checks.finish():
            found.add(problem.code, problem.message)
    result.size = scan.size
    result.format = fmt = read.format
    bytes_again = _Again(stored, scan, cap)
    watch_lines(reader_issues, found)
    _document_rules(result, scan, read.fatal, reader_issues, options.limits, full_size, found)
    _scan_bytes(bytes_again, read, reader_issues, options, found)

    found.finish()
    issues, result.unlisted = merge_issues(reader_issues, found, read.reader.issue_counts)
    windows = bytes_again.windows(fmt == "text")
    if found.pending:
        issues.extend(
            place_entries(windows, fmt, found.pending, source, options.base_url, bytes_again.plain)
        )
    if fmt == "sitemapindex" and result.refs:
        result.ref_lines = lines_of_refs(bytes_again.plain(), result.refs, options.base_url)
    if any(issue.line and not issue.column for issue in issues):
        issues = place_values(bytes_again.windows(fmt == "text"), issues)
    issues.sort(key=by_position)
    result.issues = issues
    return result


class _Again:
    """The document read again: a window at a time (the positions of findings, a text
    sitemap's lines), or whole, once, for the scans that need it (a loc or an element the
    scan could not prove plain, an index's children, the schema)."""

    def __init__(self, stored: Source, scan: Scan, cap: int) -> None:
        self.stored = stored
        self.scan = scan
        self.cap = cap
        self._plain: bytes | None = None

    def plain(self) -> bytes:
        if self._plain is None:
            self._plain = whole(self.stored, self.scan, self.cap)
        return self._plain

    def pieces(self) -> Iterable[bytes]:
        if self._plain is not None:  # held already: no need to read it again
            return (self._plain,)
        return pieces(self.stored, self.scan, self.cap)

    def windows(self, text: bool) -> Windows:
        if self._plain is not None:
            return whole_windows(self._plain)
        return windows_of(self.pieces, text)


def _scope(base_url: str | None) -> Scope | None:
    if base_url is None:
        return None
    try:
        return Scope.of(base_url)
    except (InvalidValue, ValueError):
        return None


def _check_entries(
    read: ReadResult,
    options: CheckOptions,
    found: Findings,
    set_checks: SetChecks,
    refs: list[SitemapRef],
    reader_issues: list[Issue],
) -> tuple[int, Lastmod | None]:
    """Run the reader and the rules on each entry it gives: extensions, host and scope,
    future lastmod. The reader's issues go to ``reader_issues``, an index's entries to
    ``refs``; gives the number of entries and the newest lastmod. The per-entry hot loop:
    what it uses is bound to locals first."""
    source = read.source
    served = _scope(options.base_url)
    scope = served if options.url_scope is None else _scope(options.url_scope)
    now = options.now
    day_limit = latest_day(now) if now is not None else date.max
    newest_date: date | None = None
    newest_time: datetime | None = None
    entries = 0
    hosts = _Hosts(found, scope, False, _scope(options.cross_submit))
    seen_hosts = hosts.seen
    prefix = None if scope is None else scope.prefix
    add_plain = set_checks.reciprocity.add_plain
    on_urls = options.on_urls
    batch: list[Url] = []
    for event in read:
        kind = type(event)
        if kind is Issue:
            issue = cast(Issue, event)
            if issue.code != "dev-host":  # the checker reports it per host, URLs counted
                reader_issues.append(issue)
            continue
        if kind is SitemapRef:
            if not hosts.index:  # an index's children lie on its own site
                hosts = hosts.of_index(served)
                seen_hosts = hosts.seen
                prefix = None if served is None else served.prefix
            refs.append(event)  # type: ignore[arg-type]
        entries += 1
        loc: str = event[0]
        if kind is Url:
            url = cast(Url, event)
            if url.extensions:  # their own rules, and the set-wide ones (hreflang, news)
                from ..extensions.rules import check_url  # loaded with the first extension

                # the reader has already reported elements it could not type (raw=False)
                for problem in check_url(url, now=now, raw=False):
                    found.at_entry(problem.code, problem.message, loc)
                set_checks.add(url, source=source)
            else:
                add_plain(loc)
            if on_urls is not None:
                batch.append(url)
                if len(batch) >= URL_BATCH:
                    on_urls(source, batch)
                    batch = []
        lastmod: Lastmod | None = event[1]  # type: ignore[assignment]
        # fast path: a known host without findings, inside the scope
        end = loc.find("/", 8)
        verdicts = seen_hosts.get(loc[:end] if end >= 0 else loc)
        if verdicts is None or verdicts or (prefix is not None and not loc.startswith(prefix)):
            hosts.check(loc)
        if lastmod is not None:
            if not isinstance(lastmod, datetime):
                if newest_date is None or lastmod > newest_date:
                    newest_date = lastmod
                if lastmod > day_limit or type(lastmod) is not date:  # a year or a month
                    _lastmod_rules(lastmod, now, found, loc)
            else:
                if newest_time is None or lastmod > newest_time:
                    newest_time = lastmod
                if now is not None and lastmod > now:
                    _lastmod_rules(lastmod, now, found, loc)
    if on_urls is not None and batch:
        on_urls(source, batch)
    known = [v for v in (newest_date, newest_time) if v is not None]
    return entries, rules.newest(known)


def _lastmod_rules(lastmod: Lastmod, now: datetime | None, found: Findings, loc: str) -> None:
    """The rules on one lastmod (the hot loop calls this only when one may apply)."""
    message = lastmod_without_day(lastmod)
    if message is not None:
        found.at_entry("lastmod-without-day", message, loc)
    message = None if now is None else future_lastmod(lastmod, now)
    if message is not None:
        found.at_entry("future-lastmod", message, loc)


def _document_rules(
    result: FileResult,
    scan: Scan,
    fatal: bool,
    reader_issues: list[Issue],
    limits: Limits,
    full_size: int | None,
    found: Findings,
) -> None:
    """The rules on the document as a whole (byte order mark, empty, declaration, an
    index's lastmods) and the limits of the profile."""
    fmt = result.format
    entries = result.entries
    refs = result.refs
    message = rules.byte_order_mark(scan.head)
    if message is not None:
        found.add("byte-order-mark", message, 1, 1)
    message = rules.empty_sitemap(fmt, entries, fatal)
    if message is not None and not _dropped_entries(reader_issues):
        found.add("empty-sitemap", message, 1, 1)

    if fmt in ("urlset", "sitemapindex"):
        message = rules.no_xml_declaration(scan.head)
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
        lines = scan.newlines + (0 if scan.last == b"\n" else 1)
        message = rules.too_many_lines(lines, limits)
        if message is not None:
            found.add("too-many-urls", message)
    elif fmt is not None:
        message = rules.too_many_urls(entries, limits)
        if message is not None:
            found.add("too-many-urls", message)
    message = rules.file_too_large(max(scan.length, full_size or 0), limits)
    if message is not None:
        found.add("file-too-large", message)


def _scan_bytes(
    again: _Again,
    read: ReadResult,
    reader_issues: list[Issue],
    options: CheckOptions,
    found: Findings,
) -> None:
    """The rules on the bytes as written: loc text and structure, unless the reader's fast
    lane or the scan proved them already (a urlset of canonical records, every loc plain as
    written), the schema when asked, the lines of a text sitemap."""
    fmt = read.format
    limits = options.limits
    scan = again.scan
    if fmt in ("urlset", "sitemapindex"):
        proven = read.reader.plain_records and limits.max_loc_length >= MAX_LOC_LENGTH
        unexpected = any(i.code in UNEXPECTED for i in reader_issues)
        provers = None
        if not proven:  # one pass of windows, the document never whole
            provers = Provers(limits).run(pieces(again.stored, scan, again.cap))
        if provers is not None and not provers.locs_plain:
            raw_locs(again.plain(), limits, found)
        if not read.fatal:
            if unexpected or (provers is not None and not provers.structure.proves(fmt)):
                check_structure(again.plain(), fmt, found)
            if options.schema:
                from .schema import check_schema  # with importlib.resources: --schema only

                check_schema(again.plain(), fmt, found)
    elif fmt == "text":
        text_lines(again.pieces(), found)
    elif fmt == "unknown" and not scan.blank:
        text_with_header(again.pieces(), found)


def _dropped_entries(issues: list[Issue]) -> bool:
    """True when the reader skipped entries it could not use (then "empty" is not the news)."""
    return any(
        i.code in ("relative-url", "invalid-url", "missing-loc", "truncated-entry")
        or i.severity == Severity.ERROR
        for i in issues
    )

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

from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from .._core import ExtensionFacts
from ..extensions.set_checks import SetChecks
from ..limits import CURRENT, MAX_LOC_LENGTH, Limits, ReadLimits
from ..model import Issue, Severity, SitemapRef, Url
from ..reading.reader import ReadResult, SitemapReader
from ..reading.rendered import RenderedRun, RenderSpec
from . import rules
from .entries import EntryRules
from .findings import MAX_PER_CODE, Findings, merge_issues, watch_lines
from .index_lines import lines_of_refs
from .index_refs import IndexRefs, judge_ref_records, judge_refs, ref_locs, without_lastmod
from .positions import place_entries, place_values
from .raw_text import lone_cr_as_lf, text_lines, text_with_header
from .records import records, taken_columns
from .report import FileResult, by_position
from .scan import WINDOW, Provers, Scan, Tee, pieces, whole
from .source import BytesSource, Source
from .structure import UNEXPECTED, check_structure
from .windows import Windows, whole_windows, windows_of


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
# the first window of the passes that place findings (they stop once every finding is
# placed, and most are near the start: the first of each code); the next ones grow to
# PLACING_WINDOW, whose pieces and copy are check's peak (4 MiB windows: the 200k mix's
# check peaked at 47 MB, read's at 23)
PLACING_FIRST = 1 << 18
PLACING_WINDOW = 1 << 20


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
    return with_ref_lines(*check_lines_later(data, options, source, full_size, set_checks))


def with_ref_lines(result: FileResult, lines: Callable[[], list[int]] | None) -> FileResult:
    """``result`` with its index's ref lines made now (``check_lines_later``'s pair)."""
    if lines is not None:
        result.ref_lines = lines()
    return result


def check_lines_later(
    data: bytes | Source,
    options: CheckOptions,
    source: str,
    full_size: int | None,
    set_checks: SetChecks | None,
) -> tuple[FileResult, Callable[[], list[int]] | None]:
    """``check_document``, an index's ``ref_lines`` left to the call returned (a pass over
    the document again, while its source can still be read): a file given alone asks for
    them only when its children are compared with it (``files._children``)."""
    stored: Source = data if not isinstance(data, bytes | bytearray) else BytesSource(data)
    result = FileResult(source, url=options.base_url, refs=IndexRefs())  # (index_refs)
    found = Findings(source)
    cap = options.read_limits.max_decompressed_bytes
    scan = Scan(options.limits)
    tee = Tee(stored, scan, cap)
    # the reader takes the stored chunks, the scan the same bytes decompressed, in one pass;
    # the render lane, a urlset's or an index's canonical records in columns (on_urls: values)
    spec = RenderSpec("arrow", "", texts=True, indexes=True) if options.on_urls is None else None
    reader = SitemapReader(
        source, base_url=options.base_url, limits=options.read_limits, render=spec
    )
    reader_issues: list[Issue] = []
    # the rules across URLs (hreflang reciprocity, news per sitemap): this document alone,
    # or the whole set a caller checks (check_paths pools a directory's files)
    pooled = set_checks is not None
    if set_checks is None:
        set_checks = SetChecks()
    entry_rules = EntryRules(
        found,
        set_checks,
        result.refs,
        source,
        base_url=options.base_url,
        url_scope=options.url_scope,
        cross_submit=options.cross_submit,
        now=options.now,
    )
    runs = None if spec is None else _CoreRuns(spec, entry_rules)
    read = ReadResult(reader, tee if runs is None else runs.draining(tee), with_issues=True)
    scan.lines_wanted = lambda: read.format in (None, "text")  # a text sitemap's line limit
    _check_entries(read, runs, entry_rules, reader_issues, options.on_urls)
    result.entries, result.newest_lastmod = entry_rules.entries, entry_rules.newest()
    result.careful_entries = entry_rules.careful
    tee.finish()
    result.discovered = set_checks.discovered(source)
    if not pooled:
        capped = set_checks.findings(MAX_PER_CODE)
        for problem in capped.listed:
            found.add(problem.code, problem.message)
        for (_, code), n in capped.unlisted.items():
            found.count(code, n)
    result.size = scan.size
    result.format = fmt = read.format
    bytes_again = _Again(stored, scan, cap, fmt, read.entry_stop)
    counts = bytes_again.before_stop(reader_issues, read.reader.issue_counts)
    watch_lines(reader_issues, found)
    _document_rules(result, scan, read, reader_issues, options.limits, full_size, found)
    _scan_bytes(bytes_again, read, reader_issues, options, found)

    found.finish()
    issues, result.unlisted = merge_issues(reader_issues, found, counts)
    windows = bytes_again.windows(fmt == "text")
    if found.pending:
        # the reader's entries numbered as the document's when it passed on every one
        entries = read.reader.entries if read.reader.plain_structure else None
        issues += place_entries(
            windows, fmt, found.pending, source, options.base_url, bytes_again.plain, entries
        )
    lines = None
    if fmt == "sitemapindex" and result.refs:
        lines = partial(bytes_again.ref_lines, result.refs, options.base_url)
    if any(issue.line and not issue.column for issue in issues):
        issues = place_values(bytes_again.windows(fmt == "text"), issues)
    issues.sort(key=by_position)
    result.issues = issues
    return result, lines


# where an entry ends: a document cut by the size limit is judged up to its last one
_ENTRY_ENDS = {
    "urlset": (b"</url>",),
    "sitemapindex": (b"</sitemap>",),
    "text": (b"\n", b"\r"),
    "unknown": (b"\n", b"\r"),
}
# the element of an entry: a document the entry limit stopped is judged up to the end of
# the last one before the entry refused, whatever its prefix (``stops.stop_offset``)
_ENTRY_NAMES = {"urlset": "url", "sitemapindex": "sitemap", "rss": "item", "atom": "entry"}


class _Again:
    """The document read again: a window at a time (the positions of findings, a text
    sitemap's lines), or whole, once, for the scans that need it (a loc or an element the
    scan could not prove plain, an index's children, the schema)."""

    def __init__(
        self,
        stored: Source,
        scan: Scan,
        cap: int,
        fmt: str | None,
        stop: tuple[int, str] | None = None,
    ) -> None:
        """A text file's lines end as the reader ends them (a CR alone too:
        ``lone_cr_as_lf``); a document cut by the size limit ends with its last whole
        entry, as the reader's entries do; one the entry limit stopped (``stop``: the line
        and loc of the entry refused), before that entry (``stops.stop_offset``)."""
        self.stored = stored
        self.scan = scan
        self.cap = cap
        self.lines_of_text = fmt in ("text", "unknown")
        self.entry_ends = _ENTRY_ENDS.get(fmt or "", ())
        self.stop = stop if self.lines_of_text or fmt in _ENTRY_NAMES else None
        self.entry = None if self.lines_of_text else _ENTRY_NAMES.get(fmt or "")
        self._stop_at: int | None = None
        self._plain: bytes | None = None

    def plain(self) -> bytes:
        if self._plain is None:
            plain = whole(self.stored, self.scan, self.cap, self.entry_ends)
            self._plain = b"".join(self._cut(self._text((plain,))))
        return self._plain

    def pieces(self) -> Iterable[bytes]:
        if self._plain is not None:  # held already: no need to read it again
            return (self._plain,)
        return self._cut(self._text(self._uncut()))

    def _uncut(self) -> Iterable[bytes]:
        return pieces(self.stored, self.scan, self.cap, self.entry_ends)

    def _text(self, pieces: Iterable[bytes]) -> Iterable[bytes]:
        return lone_cr_as_lf(pieces) if self.lines_of_text else pieces

    def _cut(self, pieces: Iterable[bytes]) -> Iterable[bytes]:
        """``pieces`` up to where the entry limit stopped the reader, if it did."""
        at = self.stop_at()
        if at is None:
            return pieces
        from .stops import cut_at  # here: only a document the entry limit stopped

        return cut_at(pieces, at)

    def stop_at(self) -> int | None:
        """The offset where the entry limit stopped the reader; None: it did not."""
        if self.stop is None:
            return None
        if self._stop_at is None:
            from .stops import stop_offset

            line, loc = self.stop
            found = stop_offset(self._text(self._uncut()), line, loc, self.entry)
            self._stop_at = -1 if found is None else found
        return None if self._stop_at < 0 else self._stop_at

    def before_stop(self, issues: list[Issue], counts: dict[str, int]) -> dict[str, int]:
        """Keep in ``issues`` (the reader's) those placed before where the entry limit
        stopped the reader (the lanes hand over the entries a piece at a time, its guard
        reads ahead of them); ``counts`` per code without the others."""
        at = self.stop_at()
        if at is None:
            return counts
        from .stops import position_of

        stop = position_of(self._text(self._uncut()), at)
        past = [i for i in issues if i.line and (i.line, i.column) >= stop]
        if past:
            issues[:] = [i for i in issues if not i.line or (i.line, i.column) < stop]
            counts = dict(counts)
            for issue in past:
                counts[issue.code] -= 1
        return counts

    def ref_lines(self, refs: list[SitemapRef], base_url: str | None) -> list[int]:
        """The line of each of an index's ``refs`` (``index_lines.lines_of_refs``): from
        the pieces, or from the document whole when they cannot tell."""
        return lines_of_refs(self.pieces, self.plain, ref_locs(refs), base_url)

    @property
    def cut(self) -> bool:
        """Whether the document read again ends before its end: the reader stopped early
        (the size limit, the entry limit)."""
        return self.scan.size > self.cap or self.stop is not None

    def windows(self, text: bool) -> Windows:
        if self._plain is not None:
            return whole_windows(self._plain)
        return windows_of(self.pieces, text, window=PLACING_WINDOW, first=PLACING_FIRST)


_REFS_ONLY = {SitemapRef}


def _check_entries(
    read: ReadResult,
    runs: _CoreRuns | None,
    entry_rules: EntryRules,
    reader_issues: list[Issue],
    on_urls: Callable[[str, list[Url]], None] | None,
) -> None:
    """Run the reader and the rules on each entry it gives, in document order: the values
    one by one, the runs the core read into columns (``spec``, the render lane) a column at
    a time. The reader's issues go to ``reader_issues``."""
    value = entry_rules.value
    batch: list[Url] = []
    refs: list[SitemapRef] = []  # an index's entries of a piece, judged at once
    for events, kinds in read.batches():
        if kinds == _REFS_ONLY:  # an index's refs: taken at once
            refs += events  # type: ignore[arg-type]
            events = []
        for event in events:
            if type(event) is Issue:
                if event.code != "dev-host":  # the checker reports it per host, URLs counted
                    reader_issues.append(event)
                continue
            if type(event) is SitemapRef:
                refs.append(event)
                continue
            if refs:
                _refs_in_place(entry_rules, refs, runs)
                refs = []
            if runs is not None:
                runs.before()
            url = value(event)  # type: ignore[arg-type]
            if on_urls is not None and url is not None:
                batch.append(url)
                if len(batch) >= URL_BATCH:
                    on_urls(read.source, batch)
                    batch = []
        if refs:  # before the runs the next piece drains
            _refs_in_place(entry_rules, refs, runs)
            refs = []
        del events  # not held while the next piece is read
    if runs is not None:
        runs.before(every=True)
    if on_urls is not None and batch:
        on_urls(read.source, batch)


def _refs_in_place(entry_rules: EntryRules, refs: list[SitemapRef], runs: _CoreRuns | None) -> None:
    """``judge_refs`` of ``refs`` (an index's entries the reader gave as values, in
    document order), each stretch after the runs of the core's columns that come before
    it."""
    start = 0  # (refs is not sliced from the front: a stretch a time would be quadratic)
    while start < len(refs):
        taken = len(refs) - start
        if runs is not None:
            runs.before()
            at = runs.next_at()
            if at is not None:
                taken = max(at - entry_rules.entries, 1)
        judge_refs(entry_rules, refs[start : start + taken])
        start += taken


class _CoreRuns:
    """The render lane's runs, handed to the rules in their places among the values."""

    def __init__(self, spec: RenderSpec, entry_rules: EntryRules) -> None:
        self.spec = spec
        self.entry_rules = entry_rules
        self.pending: deque[RenderedRun] = deque()
        self.columns: Any = None
        self.facts: ExtensionFacts | None = None  # recorded beside the columns
        self.row = 0

    def draining(self, chunks: Iterable[bytes]) -> Iterator[bytes]:
        """``chunks``, every run so far judged before the next is read: by then the reader
        has given all its values so far, so the runs left come before any value to come
        (a document of records only is never held in columns whole)."""
        for chunk in chunks:
            self.before(every=True)
            yield chunk

    def before(self, every: bool = False) -> None:
        """The runs that come before the reader's next value (``every``: all so far)."""
        pending, entry_rules = self.pending, self.entry_rules
        pending.extend(self.spec.take())
        while pending and (every or pending[0].at == entry_rules.entries):
            run = pending.popleft()
            if self.columns is None or self.row >= self.columns[0]:
                # the records of every run so far, this one first
                (self.columns, self.facts), self.row = taken_columns(self.spec), 0
            run_records = records(self.columns, self.row, run.count, self.facts)
            if self.spec.index:  # an index's entries (loc and lastmod columns)
                refs = entry_rules.refs
                assert isinstance(refs, IndexRefs)
                judge_ref_records(entry_rules, run_records, refs)
            else:
                entry_rules.records(run_records)
            self.row += run.count

    def next_at(self) -> int | None:
        """The entry the next run not yet judged starts at (None: none so far)."""
        pending = self.pending
        pending.extend(self.spec.take())
        return pending[0].at if pending else None


def _document_rules(
    result: FileResult,
    scan: Scan,
    read: ReadResult,
    reader_issues: list[Issue],
    limits: Limits,
    full_size: int | None,
    found: Findings,
) -> None:
    """The rules on the document as a whole (byte order mark, empty, declaration, an
    index's lastmods) and the limits of the profile (a text sitemap's lines counted up to
    where the entry limit stopped the reader, as an XML document's entries are)."""
    fatal = read.fatal
    stop = read.entry_stop
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
        without = without_lastmod(refs)
        message = rules.missing_index_lastmod(without, len(refs))
        if message is not None:
            found.add("missing-index-lastmod", message)

    # limits of the profile
    if fmt == "sitemapindex":
        message = rules.too_many_sitemaps(entries, limits)
        if message is not None:
            found.add("too-many-sitemaps", message)
    elif fmt == "text":
        lines = scan.newlines + scan.lone_crs + (0 if scan.last in (b"\n", b"\r") else 1)
        if stop is not None:
            lines = min(lines, stop[0] - 1)
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
        reader = read.reader
        # (an IRI loc is the reader's normalized-url: no loc text to read again for it)
        proven = reader.plain_records and limits.max_loc_length >= MAX_LOC_LENGTH
        unexpected = any(i.code in UNEXPECTED for i in reader_issues)
        structure = None
        if not proven:  # one pass of windows, the document never whole
            # an index's windows as small as the placing passes': its refs are held as
            # values, the windows come on top (4 MiB ones were its check's peak)
            window = PLACING_WINDOW if fmt == "sitemapindex" else WINDOW
            provers = Provers(limits, found, structure=not reader.plain_structure, window=window)
            structure = provers.run(again.pieces).structure
        if not read.fatal:
            if unexpected or (structure is not None and not structure.proves(fmt)):
                check_structure(again.plain(), fmt, found)
            if options.schema:
                from .schema import check_schema  # with importlib.resources: --schema only

                check_schema(again.plain(), fmt, found, cut=again.cut)
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

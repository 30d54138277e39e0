"""``check_site``: a site, robots.txt or sitemap URL in, a ``CheckReport`` of every sitemap
it leads to out.

The fetcher drives the downloads (retries, concurrency, deadline, caps: ``HttpOptions`` and
``DiscoveryOptions``); each sitemap's body goes through a ``_KeepingReader``, the usual
reader plus a copy of the bytes (at most what the reader takes), checked by
``check_document`` when the body ends. The last attempt's result stands (a retry replaces a
cut-off one). Documents that could not be read, and what the fetch found about each
(retries, redirects, content type, loops, caps), are reported on their URL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from urllib.parse import urlsplit

from ..checking import rules
from ..checking.children import compare_with_children
from ..checking.document import CheckOptions, check_document
from ..checking.files import attach_set_findings
from ..checking.report import CheckReport, FileResult
from ..extensions import rules as ext_rules
from ..fetching.http import HttpOptions, fetch_sitemaps
from ..fetching.issues import FETCH_CODES
from ..fetching.running import run_loop
from ..fetching.values import DiscoveryOptions, DiscoveryResult, SitemapNode, SitemapRead
from ..limits import ReadLimits
from ..model import Issue, Severity, SitemapRef, Url
from ..reading.reader import SitemapReader
from ..reading.sniff import GZIP_MAGIC

Checked = Callable[[str, str, bytes, int], None]


class _KeepingReader:
    """The reader, plus the bytes it was fed (up to its decompressed-size limit + 1), handed
    to ``done`` with the total size when the body ends."""

    def __init__(self, source: str, base_url: str, limits: ReadLimits, done: Checked) -> None:
        self.reader = SitemapReader(source, base_url=base_url, limits=limits)
        self.source = source
        self.base_url = base_url
        self.room = limits.max_decompressed_bytes + 1
        self.parts: list[bytes] = []
        self.size = 0
        self.on_close = done

    def feed(self, data: bytes) -> list[Url | SitemapRef | Issue]:
        if self.size < self.room:
            self.parts.append(data[: self.room - self.size])
        self.size += len(data)
        return self.reader.feed(data)

    def close(self) -> list[Url | SitemapRef | Issue]:
        out = self.reader.close()
        body, self.parts = b"".join(self.parts), []
        self.on_close(self.source, self.base_url, body, self.size)
        return out

    @property
    def format(self) -> str | None:
        return self.reader.format

    @property
    def fatal(self) -> bool:
        return self.reader.fatal

    @property
    def done(self) -> bool:
        return self.reader.done


class _SiteCheck:
    """The results of one run, by the URL each sitemap was asked for."""

    def __init__(self, options: CheckOptions) -> None:
        self.options = options
        self.results: dict[str, FileResult] = {}
        self.pool = ext_rules.SetChecks()
        # a urlset with URLs outside its own scope, kept until its place in the tree is known
        # (``read``): the robots.txt that lists it (or its index) may vouch for their host
        self.pending: dict[str, tuple[str, bytes, int]] = {}

    def reader(self, source: str, base_url: str, limits: ReadLimits) -> _KeepingReader:
        return _KeepingReader(source, base_url, limits, self.checked)

    def checked(self, source: str, base_url: str, body: bytes, size: int) -> None:
        options = replace(self.options, base_url=base_url)
        full = size if body[:2] != GZIP_MAGIC else None
        result = check_document(body, options, source, full_size=full, set_checks=self.pool)
        self.results[source] = result
        if any(issue.code == "url-not-allowed" for issue in result.issues):
            self.pending[source] = (base_url, body, size)

    def read(self, event: SitemapRead) -> None:
        """A document was read, its node in the tree: a urlset held for its URLs outside
        its scope is checked again with the site whose robots.txt lists it (or the index
        above it), whose URLs cross-submission allows."""
        held = self.pending.pop(event.node.url, None)
        site = _listing_site(event.node)
        if held is None or site is None:
            return
        base_url, body, size = held
        options = replace(self.options, base_url=base_url, cross_submit=site)
        full = size if body[:2] != GZIP_MAGIC else None
        again = ext_rules.SetChecks()  # its URLs are in the set's pool already
        self.results[event.node.url] = check_document(
            body, options, event.node.url, full_size=full, set_checks=again
        )

    def report(self, run: DiscoveryResult) -> CheckReport:
        report = CheckReport()
        for node in run.nodes():
            result = self._result(node)
            if result is not None:
                report.files.append(result)
        for node in run.nodes():
            self._compare(node)
        if run.issues:
            whole = FileResult(f"(the run from {run.start})", format="set")
            whole.issues = [_as_check_issue(i, whole.source) for i in run.issues]
            report.files.append(whole)
        attach_set_findings(self.pool, report)
        if run.nothing and any(
            root.failed and root.via == "start" and root.url not in self.results
            for root in run.roots
        ):  # the start was not fetched at all (an answer that is no sitemap is a finding)
            report.not_started.append(run.start)
        return report

    def _result(self, node: SitemapNode) -> FileResult | None:
        """The node's check result with what the fetch found on it; for a document that
        could not be read, a ``cannot-read`` error with the fetch's words."""
        fetched = [_as_check_issue(i, node.url) for i in node.issues if i.code in FETCH_CODES]
        result = self.results.get(node.url)
        if node.kind == "robots":
            if not fetched:
                return None
            result = FileResult(node.url, format="robots.txt", url=node.final_url)
        elif result is None:
            if not node.failed:
                if not fetched:
                    return None
                result = FileResult(node.url, url=node.final_url)
            else:  # the fetch's errors said once, as the one error of the document
                failures = [i for i in fetched if i.severity == Severity.ERROR]
                why = "; ".join(i.message for i in failures) or str(node.state)
                # a sitemap an index lists that is not there is the directory check's
                # missing child; any other failure, a document that could not be read
                gone = node.via == "index" and node.status in (404, 410)
                code = "missing-child" if gone else "cannot-read"
                issue = rules.make_issue(code, f"{node.url}: {why}", source=node.url)
                result = FileResult(node.url, [issue], url=node.final_url)
                fetched = [i for i in fetched if i.severity != Severity.ERROR]
        result.issues = sorted([*result.issues, *fetched], key=lambda i: (i.line, i.column))
        return result

    def _compare(self, node: SitemapNode) -> None:
        index = self.results.get(node.url)
        if index is None or index.format != "sitemapindex" or not index.refs:
            return
        by_url = {child.url: self.results.get(child.url) for child in node.children}
        children = [by_url.get(ref.loc) for ref in index.refs]
        compare_with_children(index, children, [""] * len(index.refs))


def _listing_site(node: SitemapNode) -> str | None:
    """The site (scheme://host/) of the robots.txt above ``node`` in the tree, if any."""
    at = node.parent
    while at is not None and at.kind != "robots":
        at = at.parent
    if at is None:
        return None
    parts = urlsplit(at.final_url or at.url)
    return f"{parts.scheme}://{parts.netloc}/"


def _as_check_issue(issue: Issue, source: str) -> Issue:
    return issue if issue.source else issue._replace(source=source)


async def check_site_async(
    start: str,
    options: CheckOptions | None = None,
    *,
    http: HttpOptions | None = None,
    discovery: DiscoveryOptions | None = None,
) -> tuple[CheckReport, DiscoveryResult]:
    """Discover every sitemap of ``start`` as ``fetch`` does and check each one."""
    options = options or CheckOptions()
    http = http or HttpOptions()
    http = replace(http, read_limits=options.read_limits)
    run = _SiteCheck(options)
    found = await fetch_sitemaps(
        start, discovery=discovery, http=http, reader_factory=run.reader, on_read=run.read
    )
    run.pending.clear()
    return run.report(found), found


def check_site(
    start: str,
    options: CheckOptions | None = None,
    *,
    http: HttpOptions | None = None,
    discovery: DiscoveryOptions | None = None,
) -> CheckReport:
    """``check_site_async`` for code without an event loop (the report only)."""
    report, _ = run_loop(check_site_async(start, options, http=http, discovery=discovery))
    return report

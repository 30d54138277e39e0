"""The audit driver: the listed URLs requested politely, each answer judged by ``rules``.

In: a site or sitemap URL (its sitemaps found by the fetcher's discovery flow), a sitemap
file, or a folder of them. Out: an ``AuditReport``; each URL's result also goes to
``on_result`` as it comes (the CLI streams JSON Lines from it).

Politeness (``schedule.py``, ``visit.py``): each host's robots.txt is read once, before its
first page (protego, the crawler's parser); a URL it disallows for the user agent is never
requested, and a robots.txt that answers 5xx or not at all disallows the whole host (RFC
9309 2.3.1.4). Requests to one host are spaced by ``rate`` or its Crawl-delay, whichever is
slower, and at most ``per_host`` are in flight; URLs are handed to the workers host by host,
so that a slow host's URLs wait in its queue, not in front of the others'. Every redirect is
one hop under its target host's robots.txt and limits. Every request goes through the
Fetcher: timeouts, retries with backoff and Retry-After (a 429 holds its host as it asks),
HTML bodies capped at ``max_page_bytes`` (only the head is parsed), other bodies not read;
HEAD first where the body is not needed.
"""

from __future__ import annotations

import asyncio
import random
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..checking.rules import make_issue
from ..fetching.discovery import DiscoveryOptions, discover
from ..fetching.fetcher import Fetcher
from ..fetching.http import client_session, lean_session, run_flow
from ..fetching.http_options import HttpOptions
from ..fetching.running import run_loop
from ..fetching.values import SitemapRead
from ..model import Issue, Severity, Url
from ..reports.stats import section_of
from .rules import (
    CUT_OFF,
    Answer,
    Listed,
    SetRules,
    future_finding,
    page_findings,
    status_class,
)
from .schedule import GO, LATE, Scheduler
from .visit import HeadMode, Visits

if TYPE_CHECKING:
    from .snapshot import AuditStore, Changes

AUDIT_USER_AGENT = "urlset/0.1 (sitemap audit; +https://www.sitemaps.org/protocol.html)"
EXAMPLES = 1000  # findings listed per code; the rest are counted
SECTIONS = 500  # sections tallied one by one; URLs past them count under OTHER
OTHER = ("", "other sections")


def _audit_http() -> HttpOptions:
    return HttpOptions(
        user_agent=AUDIT_USER_AGENT,
        total_timeout=60.0,
        max_page_bytes=256 * 1024,  # the head is all an audit reads
    )


class AuditError(Exception):
    """The audit cannot start: nothing listed could be read. The message says why."""


@dataclass(frozen=True, slots=True)
class AuditOptions:
    """How many requests, how fast, and which URLs (see the module's docstring)."""

    concurrency: int = 16  # requests in flight in all
    per_host: int = 8  # requests in flight to one host
    rate: float | None = None  # requests a second to one host at most
    sample: int | None = None  # audit this many URLs, drawn at random (reproducibly)
    seed: int = 0
    http: HttpOptions = field(default_factory=_audit_http)
    now: datetime | None = None  # for future lastmods; the clock when None
    snapshot: str | None = None  # a DuckDB file: results stored, an unfinished audit resumed
    crawl: bool = False  # crawl the site after the audit: unlisted pages and orphans
    crawl_pages: int = 10_000  # pages the crawl requests at most
    head: HeadMode = "auto"  # HEAD before GET: where the path names another type than HTML
    lean: bool = True  # the pages asked with the lean HTTP/1.1 client (fetching/h1.py)


@dataclass(slots=True)
class UrlResult:
    """One audited URL: what was listed, what was answered, what was found."""

    listed: Listed
    answer: Answer
    findings: list[Issue]
    resumed: bool = False  # found by the unfinished run this one took up (--snapshot)

    def to_dict(self) -> dict[str, Any]:
        answer = self.answer
        return {
            "loc": self.listed.loc,
            "sitemap": self.listed.sitemap,
            "status": answer.status,
            "final": answer.final,
            "redirects": [{"status": s, "to": t} for s, t in answer.redirects],
            "seconds": round(answer.seconds, 4),
            "findings": [
                {"code": i.code, "severity": str(i.severity), "message": i.message}
                for i in self.findings
            ],
            "resumed": self.resumed,
        }


@dataclass
class AuditReport:
    """Counts over every audited URL, the first ``EXAMPLES`` findings of each code, the
    status mix and the response times."""

    target: str
    listed: int = 0  # distinct URLs listed
    audited: int = 0
    not_requested: int = 0  # the deadline passed first
    sampled: bool = False
    counts: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[Issue]] = field(default_factory=dict)
    status_mix: Counter[str] = field(default_factory=Counter)
    seconds: array[float] = field(default_factory=lambda: array("d"))
    sitemaps: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (host, first path segment) -> [URLs audited, URLs with a finding]
    sections: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    methods: dict[str, int] = field(default_factory=dict)  # page requests made, by method
    changes: Changes | None = None  # since the target's last finished audit (--snapshot)

    def tally(self, loc: str, found: bool) -> None:
        key = section_of(loc)
        row = self.sections.get(key)
        if row is None:
            key = key if len(self.sections) < SECTIONS else OTHER
            row = self.sections.setdefault(key, [0, 0])
        row[0] += 1
        row[1] += found

    def add(self, issue: Issue) -> None:
        self.counts[issue.code] += 1
        kept = self.examples.setdefault(issue.code, [])
        if len(kept) < EXAMPLES:
            kept.append(issue)

    def worst(self) -> Severity | None:
        """The most severe finding's severity (None: nothing found)."""
        found = {i[0].severity for i in self.examples.values() if i}
        for severity in (Severity.ERROR, Severity.WARNING, Severity.INFO):
            if severity in found:
                return severity
        return None


class Audit:
    """One audit of ``target``: ``run()`` (async) or ``run_sync()`` gives the report."""

    def __init__(
        self,
        target: str,
        options: AuditOptions = AuditOptions(),
        on_result: Callable[[UrlResult], None] | None = None,
    ) -> None:
        self.target = target
        self.options = options
        self.on_result = on_result
        self.report = AuditReport(target)
        self.set_rules = SetRules()
        self.locs: list[str] = []
        self.lastmods: list[Any] = []
        self.sitemap_of = array("I")
        self.again: set[int] = set()  # indexes of locs listed before
        self.store: AuditStore | None = None
        self._now = options.now or datetime.now(UTC)

    def run_sync(self) -> AuditReport:
        return run_loop(self.run())

    async def run(self) -> AuditReport:
        options = self.options
        http = replace(options.http, concurrency=options.concurrency, per_host=options.per_host)
        if options.snapshot is not None:  # opened first: DuckDB loads outside the deadline
            self.store = _opened(options.snapshot)
        path = Path(self.target)
        local = "://" not in self.target and path.exists()
        if local:
            self._list_files(path)
            self._listed()
        # only the audited site (for files: their first URL's) may be on a private address
        starts = (self.locs[0] if local else self.target,)
        async with client_session(http, starts) as session:
            fetcher = Fetcher(session, http)
            if not local:
                await self._list_site(fetcher)
                self._listed()
            # from here on each redirect is one hop the audit follows itself (visit.py)
            fetcher.may_follow = _hop_by_hop
            lean = lean_session(session, http, starts) if options.lean else None
            if lean is not None:
                fetcher.session = lean
            visits = Visits(
                fetcher, http.user_agent, options.rate, options.head, self.report.notes.append
            )
            done = self._open_store()
            scheduler = Scheduler(
                self._order(done), self.locs, options.per_host, visits.read_robots,
                fetcher.run_ends, visits.blocked,
            )  # fmt: skip
            visits.scheduler = scheduler
            fetcher.on_retry_after = scheduler.hold
            complete = False
            try:
                workers = [
                    asyncio.create_task(self._worker(scheduler, visits))
                    for _ in range(options.concurrency)
                ]
                await asyncio.gather(*workers)
                complete = self.report.not_requested == 0
            finally:
                await scheduler.close()
                if lean is not None:
                    lean.close()
                if self.store is not None:  # what was done is kept, even when interrupted
                    self.report.notes.extend(self.store.finish(complete))
                    self.report.changes = self.store.changes
                    self.store.close()
            self.report.methods = visits.methods
        if options.crawl:
            await self._crawl()
        for issue in self.set_rules.findings():
            self.report.add(issue)
        self.report.sitemaps = self.set_rules.sitemaps
        return self.report

    # -- the list
    def _add(self, url: Url, sitemap: str) -> None:
        self.sitemap_of.append(self.set_rules.add(Listed(url.loc, url.lastmod, sitemap)))
        self.locs.append(url.loc)
        self.lastmods.append(url.lastmod)

    def _listed(self) -> None:
        """The list read: refuse an empty one, and set the URLs listed again aside."""
        if not self.locs:
            raise AuditError(
                f"{self.target}: the sitemaps list no URL, so there is nothing to audit"
            )
        self.again = self.set_rules.freeze(self.locs, self.sitemap_of, self.report.add)
        self.report.listed = len(self.locs) - len(self.again)

    def _list_files(self, path: Path) -> None:
        from ..store.db import StoreError
        from ..store.sources import read_urls, sitemap_files

        files = sitemap_files(path) if path.is_dir() else [path]
        if not files:
            raise AuditError(f"{path}: no sitemap files in it")
        for file in files:
            name = file.relative_to(path).as_posix() if path.is_dir() else str(file)
            try:
                for urls in read_urls(file):
                    for url in urls:
                        self._add(url, name)
            except StoreError as exc:
                raise AuditError(str(exc)) from None

    async def _list_site(self, fetcher: Fetcher) -> None:
        def collect(event: SitemapRead) -> None:
            for url in event.urls:
                self._add(url, event.node.url)

        result = await run_flow(
            discover(self.target, DiscoveryOptions()), fetcher.fetch, on_read=collect
        )
        if not self.locs:
            why = [f"{n.url}: {n.issues[0].message}" for n in result.failed if n.issues]
            raise AuditError(
                f"no sitemap of {self.target} could be read" + (f" ({why[0]})" if why else "")
            )

    def _order(self, done: set[int]) -> Iterator[int]:
        """The indexes of the URLs to request: all, or the sample's, less those ``done``."""
        again = self.again
        total = len(self.locs)
        population: Sequence[int] = range(total)
        if again:  # a URL listed again is audited under its first listing only
            population = [index for index in population if index not in again]
        chosen: Iterator[int] = iter(population)
        sample = self.options.sample
        if sample is not None and sample < len(population):
            self.report.sampled = True
            chosen = iter(sorted(random.Random(self.options.seed).sample(population, sample)))
        if not done:
            return chosen
        locs = self.locs
        return (index for index in chosen if hash(locs[index]) not in done)

    def _open_store(self) -> set[int]:
        """With ``snapshot``: the store opened and the run begun or taken up; the keys of
        the URLs an unfinished run already audited (each result given back here as found)."""
        from ..store.db import StoreError

        store = self.store
        if store is None:
            return set()
        try:
            store.start(self.target, len(self.locs), self.options.sample, self.options.seed)
            done: set[int] = set()
            for stored in store.resumed():
                done.add(hash(stored.loc))
                answer = Answer(
                    stored.status, stored.final, stored.redirects, seconds=stored.seconds
                )
                self.set_rules.answered(stored.loc, answer)  # a form of a page reached
                self._count(stored.loc, stored.bucket, answer, stored.findings)
                if self.on_result is not None:
                    listed = Listed(stored.loc, None, stored.sitemap)
                    self.on_result(UrlResult(listed, answer, stored.findings, resumed=True))
        except StoreError as exc:
            raise AuditError(str(exc)) from None
        if done:
            self.report.notes.append(
                f"resumed audit {store.audit_id}: {len(done):,} URLs were done"
            )
        return done

    # -- the crawl
    async def _crawl(self) -> None:
        """The site crawled from its home page (links only, not its sitemaps), after the
        audit so that one host never has both at once: its indexable pages that no sitemap
        lists, and the listed URLs that no page it reached links to."""
        from ..sources.crawl import Crawl, CrawlOptions
        from ..sources.report import SourceError

        options = self.options
        parts = urlsplit(self.target if "://" in self.target else self.locs[0])
        start = f"{parts.scheme}://{parts.netloc}/"
        crawl_options = CrawlOptions(
            concurrency=options.per_host, rate=options.rate, max_pages=options.crawl_pages,
            sitemaps=False, http=options.http,
        )  # fmt: skip
        crawl = Crawl(start, crawl_options)
        try:
            pages = await crawl.run()
        except SourceError as exc:
            self.report.notes.append(f"--crawl: {exc}")
            return
        report = self.report
        for page in pages:
            if not self.set_rules.is_listed(page.url):
                report.add(
                    make_issue("unlisted-page", "indexable, linked, in no sitemap", source=page.url)
                )
        linked = {hash(url) for url in crawl.seen}
        complete = crawl.requested < options.crawl_pages
        report.notes.append(
            f"--crawl from {start}: {crawl.requested:,} pages requested, {len(pages):,} indexable"
            + (
                ""
                if complete
                else f"; stopped at {options.crawl_pages:,}, so orphans are not judged"
            )
        )
        if not complete:
            return
        for index in self._order(set()):
            loc = self.locs[index]
            if hash(loc) not in linked:
                report.add(
                    make_issue(
                        "orphan-page", f"no page reached from {start} links to it", source=loc
                    )
                )

    # -- the requests
    async def _worker(self, scheduler: Scheduler, visits: Visits) -> None:
        while (taken := await scheduler.take()) is not None:
            index, state, verdict = taken
            if verdict == LATE:
                self.report.not_requested += 1
                continue
            listed = Listed(
                self.locs[index],
                self.lastmods[index],
                self.set_rules.sitemaps[self.sitemap_of[index]],
            )
            answer = await visits.visit(listed.loc, state, verdict == GO)
            if answer is None:  # the deadline passed while it waited for its turn
                self.report.not_requested += 1
            else:
                self._judge(listed, answer)

    def _count(self, loc: str, bucket: str, answer: Answer, findings: list[Issue]) -> None:
        report = self.report
        report.audited += 1
        report.status_mix[bucket] += 1
        if answer.status is not None and bucket != "disallowed":
            report.seconds.append(answer.seconds)
        for issue in findings:
            report.add(issue)
        report.tally(loc, bool(findings))

    def _judge(self, listed: Listed, answer: Answer) -> None:
        findings = page_findings(listed, answer, self.set_rules.is_listed)
        future = future_finding(listed, self._now)
        if future is not None:
            findings.append(future)
        variant = self.set_rules.answered(listed.loc, answer)
        if variant is not None:
            findings.append(variant)
        bucket = status_class(answer)
        self._count(listed.loc, bucket, answer, findings)
        # a request the run's own deadline cut is no result: the resumed run asks it again
        if self.store is not None and bucket != CUT_OFF:
            self.store.add(
                listed.loc, listed.sitemap, bucket, answer.status, answer.final, answer.seconds,
                findings, answer.redirects,
            )  # fmt: skip
        if self.on_result is not None:
            self.on_result(UrlResult(listed, answer, findings))


def audit(
    target: str,
    options: AuditOptions = AuditOptions(),
    on_result: Callable[[UrlResult], None] | None = None,
) -> AuditReport:
    """Audit the URLs ``target`` lists (a site or sitemap URL, a sitemap file, a folder of
    them): each requested politely and judged; raises ``AuditError`` when none can be read."""
    return Audit(target, options, on_result).run_sync()


def _hop_by_hop(target: str) -> str:
    return "a redirect, followed by the audit under the target host's robots.txt"


def _opened(path: str) -> AuditStore:
    from ..store.db import StoreError
    from .snapshot import open_store

    try:
        return open_store(path)
    except StoreError as exc:
        raise AuditError(str(exc)) from None

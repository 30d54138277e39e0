"""``--check`` of a robots.txt: the thin driver around robots_check, over the fetcher.

Reads the robots.txt (from a file, or over HTTP with the fetcher), the robots.txt of each
other host a listed sitemap is on, then each listed sitemap with the discovery flow (an
index's children too), feeding robots_check as the URLs arrive: nothing is held per URL
but counts and the first examples, so a site of millions of URLs is checked in bounded
memory.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit

from ..errors import InvalidValue
from ..fetching.discovery import (
    CROSS_HOST_SITEMAP,
    DiscoveryOptions,
    FetchRequest,
    FetchResponse,
    SitemapRead,
    discover,
    robots_url,
    start_kind,
)
from ..fetching.fetcher import Fetcher
from ..fetching.http import client_session, run_flow
from ..fetching.http_options import HttpOptions
from ..model import Issue, Severity
from ..urls import to_uri
from .robots_check import RobotsCheck, Tally
from .robots_rules import RobotsVerdict, robots_test
from .robots_text import sitemap_lines


@dataclass
class RobotsCheckReport:
    """The findings about one robots.txt, and a tally per listed sitemap."""

    source: str  # the file or URL checked
    robots_url: str | None  # where it is served (None: unknown)
    user_agent: str
    issues: list[Issue] = field(default_factory=list)
    tallies: list[Tally] = field(default_factory=list)

    def count(self, severity: Severity) -> int:
        return sum(1 for i in self.issues if i.severity is severity)

    @property
    def problems(self) -> bool:
        """Errors or warnings were found."""
        return bool(self.count(Severity.ERROR) or self.count(Severity.WARNING))


def _is_url(target: str) -> bool:
    return target.lower().startswith(("http://", "https://"))


def _robots_ok(response: FetchResponse) -> bool:
    return response.error is None and response.status is not None and 200 <= response.status < 300


async def check_robots(
    target: str,
    *,
    site: str | None = None,
    user_agent: str = "*",
    http: HttpOptions | None = None,
    discovery: DiscoveryOptions | None = None,
) -> RobotsCheckReport:
    """Check the robots.txt at ``target`` (an http(s) URL: the robots.txt or any page of the
    site; or a file path, served at ``site``) against the sitemaps it names.

    InvalidValue for a bad ``site``; OSError when the file cannot be read.
    """
    http = http or HttpOptions()
    discovery = discovery or DiscoveryOptions(well_known=())
    notes: list[Issue] = []
    start = target if _is_url(target) else (site or "")
    async with client_session(http, (start,)) as session:
        fetcher = Fetcher(session, http)
        if _is_url(target):
            where = to_uri(target, field="robots.txt URL")
            where = where if urlsplit(where).path == "/robots.txt" else robots_url(where)
            answer = await fetcher.fetch(FetchRequest(where, "robots"))
            report = RobotsCheckReport(target, answer.url or where, user_agent)
            if answer.status in (404, 410):
                message = f"there is no robots.txt at {where} (HTTP {answer.status})"
                hint = "publish one that names the sitemaps: urlset robots FILE --sitemap URL"
                report.issues.append(
                    Issue("robots-missing", Severity.ERROR, message, 0, 0, target, hint)
                )
                return report
            if not _robots_ok(answer):
                why = answer.error or f"HTTP {answer.status}"
                message = f"cannot read {where}: {why}"
                report.issues.append(
                    Issue("robots-unavailable", Severity.ERROR, message, 0, 0, target)
                )
                return report
            body = answer.body
            if answer.truncated:
                notes.append(
                    Issue(
                        "robots-too-large",
                        Severity.WARNING,
                        f"larger than the {len(body):,} bytes read; the rest was not checked "
                        "(Google reads the first 500 KiB)",
                    )
                )
        else:
            body = Path(target).read_bytes()
            served = robots_url(to_uri(site, field="site URL")) if site else _guess(body, notes)
            report = RobotsCheckReport(target, served, user_agent)
        check = RobotsCheck(body, report.robots_url, target, user_agent)
        check.issues.extend(_sourced(notes, target))
        listed = check.listed()
        for other in check.hosts_to_read():
            response = await fetcher.fetch(FetchRequest(other, "robots"))
            check.add_rules(other, response.body if _robots_ok(response) else None)
        await asyncio.gather(
            *(_read_sitemap(check, fetcher, url, discovery, http) for url in listed)
        )
    report.issues = check.issues
    report.tallies = list(check.tallies.values())
    return report


def _sourced(notes: list[Issue], source: str) -> list[Issue]:
    return [i._replace(source=source) for i in notes]


def _guess(body: bytes, notes: list[Issue]) -> str | None:
    """Where a robots.txt file is served, when not given: the host of its first sitemap."""
    for line in sitemap_lines(body):
        try:
            uri = to_uri(line.sitemap or "", field="Sitemap")
        except InvalidValue:
            continue
        where = robots_url(uri)
        notes.append(
            Issue(
                "robots-location-assumed",
                Severity.INFO,
                f"taken to be served at {where} (the host of its first sitemap)",
                hint="give --site URL to say where it is served",
            )
        )
        return where
    return None


async def _read_sitemap(
    check: RobotsCheck, fetcher: Fetcher, url: str, options: DiscoveryOptions, http: HttpOptions
) -> None:
    if start_kind(url) != "sitemap":
        check.sitemap_done(url, [(url, False, "it names a site root or robots.txt, not a sitemap")])
        return

    def on_read(event: SitemapRead) -> None:
        check.urls(url, event.node.url, event.urls)

    result = await run_flow(
        discover(url, options), fetcher.fetch, concurrency=http.concurrency, on_read=on_read
    )
    files: list[tuple[str, bool, str | None]] = []
    for node in result.nodes():
        if node.kind != "sitemap" or not (node.ok or node.failed):
            continue
        errors = [i.message for i in node.issues if i.severity is Severity.ERROR]
        files.append((node.url, node.ok, errors[0] if errors else None))
    elsewhere = [
        i.message for node in result.nodes() for i in node.issues if i.code == CROSS_HOST_SITEMAP
    ]
    check.sitemap_done(url, files, elsewhere)


@dataclass
class RobotsMatrix:
    """A robots.txt file or URL asked about URLs and user agents: where it was read, and
    the verdicts."""

    source: str
    robots_url: str | None  # where it was fetched (None: a file)
    verdicts: list[RobotsVerdict]
    note: str = ""  # why every URL is allowed without a rule (no robots.txt there)

    @property
    def disallowed(self) -> int:
        return sum(1 for v in self.verdicts if not v.allowed)


async def robots_matrix(
    target: str,
    urls: Sequence[str],
    user_agents: Sequence[str] = ("*",),
    *,
    http: HttpOptions | None = None,
) -> RobotsMatrix:
    """The verdicts of the robots.txt at ``target`` (a file, or an http(s) URL of the
    robots.txt or of any page of its site) on each of ``urls`` for each user agent. With a
    URL, a path in ``urls`` is taken on its site, and a URL of another site is refused.

    No robots.txt there (HTTP 4xx) allows every URL, as RFC 9309 says; InvalidValue for a
    URL of another site; OSError when the file, or the robots.txt a server has but does not
    give (an error, 5xx), cannot be read.
    """
    if not _is_url(target):
        body = Path(target).read_bytes()
        return RobotsMatrix(target, None, robots_test(body, urls, user_agents))
    where = to_uri(target, field="robots.txt URL")
    where = where if urlsplit(where).path == "/robots.txt" else robots_url(where)
    site = where.removesuffix("robots.txt")
    asked = [to_uri(urljoin(site, url.strip()), field="URL") for url in urls]
    for url in asked:
        if not url.startswith(site):
            raise InvalidValue("URL", url, f"is not on {site}, the site of {where}")
    http = http or HttpOptions()
    async with client_session(http, (where,)) as session:
        answer = await Fetcher(session, http).fetch(FetchRequest(where, "robots"))
    note = ""
    if answer.status is not None and 400 <= answer.status < 500:
        note = f"no robots.txt at {where} (HTTP {answer.status}): every URL is allowed"
        body = b""
    elif not _robots_ok(answer):
        raise OSError(f"cannot read {where}: {answer.error or f'HTTP {answer.status}'}")
    else:
        body = answer.body
    return RobotsMatrix(target, answer.url or where, robots_test(body, asked, user_agents), note)


def robots_matrix_sync(
    target: str,
    urls: Sequence[str],
    user_agents: Sequence[str] = ("*",),
    *,
    http: HttpOptions | None = None,
) -> RobotsMatrix:
    """``robots_matrix`` for code without an event loop."""
    return asyncio.run(robots_matrix(target, urls, user_agents, http=http))


def check_robots_sync(
    target: str,
    *,
    site: str | None = None,
    user_agent: str = "*",
    http: HttpOptions | None = None,
    discovery: DiscoveryOptions | None = None,
) -> RobotsCheckReport:
    """``check_robots`` for code without an event loop."""
    return asyncio.run(
        check_robots(target, site=site, user_agent=user_agent, http=http, discovery=discovery)
    )

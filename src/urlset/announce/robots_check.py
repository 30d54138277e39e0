"""Checking a robots.txt against the sitemaps it names (no I/O: robots_verify drives it).

In: the robots.txt bytes and where it is served; then the rules of other hosts' robots.txt,
the sitemaps' URLs as the fetcher reads them, and each sitemap's fetch result. Out: Issues,
and a summary per ``Sitemap:`` line. The rules:

- ``robots-relative-sitemap`` / ``robots-bad-sitemap``: "The <sitemap_location> should be
  the complete URL to the Sitemap" (sitemaps.org 0.9, "Specifying the Sitemap location in
  your robots.txt file").
- ``cannot-read``: a listed sitemap (or an index's child) could not be read.
- ``sitemap-disallowed``: the sitemap file is disallowed for the user agent by the
  robots.txt of its own host; a crawler that obeys it never reads the file.
- ``url-not-allowed``: a URL outside the sitemap's location ("Sitemap file location"). A
  sitemap named in this host's robots.txt may also list URLs of this host wherever it is
  served: cross-submission ("Sitemaps & Cross Submits": the robots.txt shows that its owner
  owns the host); such a sitemap on another host is noted as ``cross-submission``.
- ``url-blocked``: URLs a sitemap lists that robots.txt disallows for the user agent, counted
  with the first examples (Search Console: "Submitted URL blocked by robots.txt").
- ``index-other-site``: "A Sitemap index file can only specify Sitemaps that are found on the
  same site as the Sitemap index file" (such children are not read).
- ``robots-duplicate-sitemap``: the same sitemap named twice.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from urllib.parse import urljoin, urlsplit

from ..codes import plural
from ..errors import InvalidValue
from ..model import Issue, Severity, Url
from ..urls import Scope, to_uri
from .robots_text import split_lines

EXAMPLES = 5  # URLs shown per problem and sitemap
BLOCKED_GSC = "Submitted URL blocked by robots.txt"


@lru_cache(maxsize=4096)
def _scope(url: str) -> Scope:
    return Scope.of(url)


def _site(url: str) -> Scope:
    scope = _scope(url)
    return Scope(scope.scheme, scope.host, scope.port, "/")


def parse_rules(body: bytes) -> Any:
    """protego's reading of a robots.txt (decoded with utf-8-sig: a BOM would hide line 1)."""
    from protego import Protego

    return Protego.parse(body.decode("utf-8-sig", errors="replace"))


@dataclass
class Tally:
    """What one listed sitemap (and the sitemaps under it, for an index) holds."""

    url: str
    line: int
    urls: int = 0
    sitemaps_read: int = 0
    failed: int = 0
    out_of_scope: int = 0
    scope_examples: list[str] = field(default_factory=list)
    blocked: int = 0
    blocked_examples: list[str] = field(default_factory=list)
    cross_submitted: int = 0  # URLs allowed only by cross-submission


class RobotsCheck:
    """The check's state: feed it in order (``listed`` first, then ``add_rules``,
    ``urls`` and ``sitemap_done`` as the fetcher goes), then read ``issues`` and ``tallies``."""

    def __init__(self, body: bytes, robots_url: str | None, source: str, user_agent: str = "*"):
        self.body = body
        self.robots_url = robots_url
        self.source = source
        self.user_agent = user_agent
        self.issues: list[Issue] = []
        self.tallies: dict[str, Tally] = {}
        # origin (scheme://host:port/) -> protego rules (None: no robots.txt there)
        self.rules: dict[str, Any] = {}
        self.site = None if robots_url is None else _site(robots_url)
        if self.site is not None:
            self.rules[self.site.prefix] = parse_rules(body)

    def _issue(
        self, code: str, severity: Severity, message: str, line: int = 0, hint: str = ""
    ) -> None:
        self.issues.append(Issue(code, severity, message, line, 0, self.source, hint))

    # -- the Sitemap: lines
    def listed(self) -> list[str]:
        """The sitemap URLs to read, one per usable ``Sitemap:`` line (issues for the others)."""
        out: list[str] = []
        lines = [line for line in split_lines(self.body) if line.sitemap is not None]
        if not lines:
            self._issue(
                "robots-no-sitemaps",
                Severity.WARNING,
                "robots.txt has no Sitemap: line",
                hint="add one: urlset robots FILE --sitemap URL",
            )
        for line in lines:
            value = line.sitemap or ""
            uri = self._absolute(value, line.number)
            if uri is None:
                continue
            if uri in self.tallies:
                self._issue(
                    "robots-duplicate-sitemap",
                    Severity.WARNING,
                    f"Sitemap: {uri} is named again (first on line {self.tallies[uri].line})",
                    line.number,
                    "keep one line per sitemap",
                )
                continue
            self.tallies[uri] = Tally(uri, line.number)
            out.append(uri)
            if self.site is not None and not uri.startswith(self.site.prefix):
                self._issue(
                    "cross-submission",
                    Severity.INFO,
                    f"Sitemap: {uri} is on another site than this robots.txt; its URLs under "
                    f"{self.site.prefix} are accepted by cross-submission",
                    line.number,
                )
        return out

    def _absolute(self, value: str, number: int) -> str | None:
        if not urlsplit(value).scheme:
            resolved = f" (read as {urljoin(self.robots_url, value)})" if self.robots_url else ""
            self._issue(
                "robots-relative-sitemap",
                Severity.WARNING,
                f"Sitemap: {value!r} is not a complete URL{resolved}",
                number,
                "write the full URL, e.g. https://www.example.com/sitemap.xml",
            )
            return None
        try:
            return to_uri(value, field="Sitemap")
        except InvalidValue as exc:
            self._issue(
                "robots-bad-sitemap",
                Severity.ERROR,
                f"Sitemap: {value!r} is not a usable URL ({exc.reason})",
                number,
            )
            return None

    def hosts_to_read(self) -> list[str]:
        """robots.txt URLs of the other origins the listed sitemaps are on."""
        seen = {self.site.prefix} if self.site is not None else set()
        out = []
        for url in self.tallies:
            origin = _site(url).prefix
            if origin not in seen:
                seen.add(origin)
                out.append(origin + "robots.txt")
        return out

    def add_rules(self, robots_url: str, body: bytes | None) -> None:
        """The robots.txt of another origin (None: it has none, or it could not be read)."""
        self.rules[_site(robots_url).prefix] = None if body is None else parse_rules(body)

    def allowed(self, url: str) -> bool | None:
        """Whether the user agent may fetch ``url`` (None: that host's rules are unknown)."""
        origin = _site(url).prefix
        if origin not in self.rules:
            return None
        rules = self.rules[origin]
        return True if rules is None else bool(rules.can_fetch(url, self.user_agent))

    # -- what the fetcher read
    def urls(self, listed: str, sitemap: str, urls: Iterable[Url]) -> None:
        """URLs read from ``sitemap``, a file under the listed sitemap ``listed``."""
        tally = self.tallies[listed]
        own = _scope(sitemap)
        site = self.site
        for entry in urls:
            loc = entry.loc
            tally.urls += 1
            if not loc.startswith(own.prefix):
                why = own.violation(loc)
                if why is not None:
                    if site is not None and site.violation(loc) is None:
                        tally.cross_submitted += 1
                    else:
                        tally.out_of_scope += 1
                        if len(tally.scope_examples) < EXAMPLES:
                            tally.scope_examples.append(f"{loc} ({why})")
                        continue
            if self.allowed(loc) is False:
                tally.blocked += 1
                if len(tally.blocked_examples) < EXAMPLES:
                    tally.blocked_examples.append(loc)

    def sitemap_done(
        self,
        listed: str,
        files: Iterable[tuple[str, bool, str | None]],
        elsewhere: Iterable[str] = (),
    ) -> None:
        """The files read for a listed sitemap: (URL, read, why not) each, the index first;
        ``elsewhere``: why each index child on another site was not read."""
        tally = self.tallies[listed]
        for reason in elsewhere:
            self._issue(
                "index-other-site",
                Severity.ERROR,
                f"{reason}; not read",
                tally.line,
                "move the sitemap to the index's site, or name it in robots.txt itself",
            )
        for url, ok, why in files:
            if ok:
                tally.sitemaps_read += 1
            else:
                tally.failed += 1
                self._issue(
                    "cannot-read",
                    Severity.ERROR,
                    f"{url} could not be read: {why or 'no answer'}",
                    tally.line,
                    "make it reachable, or remove its Sitemap: line",
                )
            if self.allowed(url) is False:
                self._issue(
                    "sitemap-disallowed",
                    Severity.ERROR,
                    f"{url} is disallowed for user agent {self.user_agent!r} by the "
                    f"robots.txt of {_site(url).host}; crawlers that obey it never read it",
                    tally.line,
                    "allow the sitemap files in robots.txt",
                )
        self._summarise(tally)

    def _summarise(self, tally: Tally) -> None:
        if tally.out_of_scope:
            where = (
                f" and outside {self.site.prefix}, the site of this robots.txt"
                if self.site is not None
                else ""
            )
            self._issue(
                "url-not-allowed",
                Severity.ERROR,
                f"{tally.out_of_scope:,} of {plural(tally.urls, 'URL')} in {tally.url} "
                f"{'lies' if tally.out_of_scope == 1 else 'lie'} outside the "
                f"sitemap's location{where}; search engines drop them. First: "
                + "; ".join(tally.scope_examples),
                tally.line,
                "list each URL in a sitemap on its own host and directory",
            )
        if tally.blocked:
            self._issue(
                "url-blocked",
                Severity.ERROR,
                f"{tally.blocked:,} of {plural(tally.urls, 'URL')} in {tally.url} "
                f"{'is' if tally.blocked == 1 else 'are'} disallowed for "
                f"user agent {self.user_agent!r} by robots.txt. First: "
                + ", ".join(tally.blocked_examples),
                tally.line,
                f'Search Console: "{BLOCKED_GSC}"; allow them or take them out of the sitemap',
            )

    @property
    def problems(self) -> bool:
        return any(i.severity in (Severity.ERROR, Severity.WARNING) for i in self.issues)

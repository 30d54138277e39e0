"""The robots.txt stage: the sitemaps a robots.txt names, else the well-known locations.

In: the answer to the robots.txt request. Out: each ``Sitemap:`` value resolved and admitted
(Admission), or, when it names none or cannot be read, the well-known locations probed; and
the run's "no sitemaps" issue when nothing is found.
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from ..codes import rule
from ..errors import InvalidValue
from ..model import Severity
from ..urls import to_uri
from .admission import Admission
from .issues import (
    DEADLINE,
    FETCH_FAILED,
    NO_SITEMAPS,
    ROBOTS_BAD_SITEMAP,
    ROBOTS_NO_SITEMAPS,
    ROBOTS_RELATIVE_SITEMAP,
    ROBOTS_TOO_LARGE,
    ROBOTS_UNAVAILABLE,
    fetch_issue,
    quiet,
)
from .values import FetchResponse, NodeState, SitemapNode


def robots_url(url: str) -> str:
    """The robots.txt of the site ``url`` is on."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}/robots.txt"


def robots_sitemaps(body: bytes) -> list[str]:
    """The ``Sitemap:`` values of a robots.txt, in order, as written (protego's parse).

    Decoded with utf-8-sig: a byte-order mark would otherwise hide the first line.
    """
    from protego import Protego

    text = body.decode("utf-8-sig", errors="replace")
    parsed = Protego.parse(text)
    values: list[str] = []
    for value in parsed.sitemaps:
        value = str(value).strip()
        if value and value not in values:
            values.append(value)
    return values


class RobotsStage(Admission):
    """Reads robots.txt answers into the tree (mixed into Discovery)."""

    def _handle_robots(self, node: SitemapNode, response: FetchResponse) -> None:
        status = response.status
        if response.unreachable:
            self._robots_unreachable(node, response)
            return
        answered = status is not None and (
            200 <= status < 300 or (status == 304 and response.from_cache)
        )
        if response.error is not None or not answered:
            self._robots_unavailable(node, response)
            return
        node.state = NodeState.OK
        if response.truncated:
            node.issues.append(
                fetch_issue(
                    ROBOTS_TOO_LARGE,
                    Severity.WARNING,
                    f"robots.txt is larger than the {response.bytes_received:,} bytes read; "
                    "the rest was ignored",
                    node.url,
                )
            )
        base = response.url or node.url
        found = 0
        for value in robots_sitemaps(response.body):
            if "{{" in value or "{%" in value:
                node.issues.append(
                    fetch_issue(
                        ROBOTS_BAD_SITEMAP,
                        rule(ROBOTS_BAD_SITEMAP).severity,
                        f"Sitemap: {value!r} is an unrendered template placeholder; skipped",
                        node.url,
                    )
                )
                continue
            absolute = urljoin(base, value)
            try:
                loc = to_uri(absolute, field="Sitemap")
            except InvalidValue as exc:
                node.issues.append(
                    fetch_issue(
                        ROBOTS_BAD_SITEMAP,
                        rule(ROBOTS_BAD_SITEMAP).severity,
                        f"Sitemap: {value!r} is not a usable URL ({exc.reason})",
                        node.url,
                    )
                )
                continue
            if not urlsplit(value).scheme:
                node.issues.append(
                    fetch_issue(
                        ROBOTS_RELATIVE_SITEMAP,
                        rule(ROBOTS_RELATIVE_SITEMAP).severity,
                        f"Sitemap: {value!r} is relative; read as {loc}",
                        node.url,
                        "write the full URL, as the protocol asks",
                    )
                )
            found += 1
            self._add_sitemap(node, loc, "robots")
        node.ref_count = found
        if found and self.options.probe_always:
            self._probe_well_known(node)
        if not found:
            node.issues.append(
                fetch_issue(
                    ROBOTS_NO_SITEMAPS,
                    rule(ROBOTS_NO_SITEMAPS).severity,
                    "robots.txt names no sitemap; trying well-known locations",
                    node.url,
                )
            )
            self._probe_well_known(node)

    def _robots_unreachable(self, node: SitemapNode, response: FetchResponse) -> None:
        """No connection at all: the well-known locations on that host would fail alike. The
        run says so (once: the node keeps the details as information)."""
        node.state = NodeState.FAILED
        node.issues = [quiet(i) for i in node.issues]
        self.issues.append(
            fetch_issue(
                FETCH_FAILED,
                Severity.ERROR,
                response.error or "could not connect",
                node.url,
                "check the address and that the server is running",
            )
        )

    def _robots_unavailable(self, node: SitemapNode, response: FetchResponse) -> None:
        """No robots.txt (normal) or none readable: try the well-known locations."""
        status = response.status
        node.state = NodeState.ABSENT if status in (404, 410) else NodeState.FAILED
        reason = response.error or f"HTTP {status}"
        severity = Severity.INFO if node.state is NodeState.ABSENT else Severity.WARNING
        node.issues.append(
            fetch_issue(
                ROBOTS_UNAVAILABLE,
                severity,
                f"robots.txt could not be read ({reason}); trying well-known locations",
                node.url,
            )
        )
        # a missing robots.txt is normal; trying the usual places is the best effort
        if node.state is NodeState.FAILED:
            node.state = NodeState.ABSENT
        self._probe_well_known(node)

    def _probe_well_known(self, robots: SitemapNode) -> None:
        base = robots.final_url or robots.url
        paths = self.options.well_known
        for path in paths:
            try:
                loc = to_uri(urljoin(base, path), field="well-known location")
            except InvalidValue:
                continue
            self._add_sitemap(robots, loc, "well-known")
        if (not paths or self._probes_open == 0) and not robots.ref_count:
            self._nothing_found(robots)

    def _nothing_found(self, robots: SitemapNode | None) -> None:
        if DEADLINE in self.limits_hit:
            return  # not "none found": the time ran out (reported as such)
        # say why robots.txt gave nothing: a site without one differs from one unreachable
        unread = (
            [] if robots is None else [i for i in robots.issues if i.code == ROBOTS_UNAVAILABLE]
        )
        if not unread:
            why = "robots.txt names none"
        elif unread[0].severity is Severity.INFO:
            why = "there is no robots.txt"
        else:
            why = "robots.txt could not be read"
        self.issues.append(
            fetch_issue(
                NO_SITEMAPS,
                Severity.ERROR,
                f"no sitemap found: {why} and no well-known location has one",
                robots.url if robots is not None else self.start,
                "give the sitemap URL directly",
            )
        )

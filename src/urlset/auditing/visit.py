"""One listed URL requested politely, hop by hop: what the audit's driver asks of the network.

In: a listed URL whose host's slot the scheduler gave (``schedule.py``). Out: an ``Answer``.
Every request (each redirect hop, a GET after a HEAD) is made under its own host's
robots.txt, per-host limit and pacing: the Fetcher follows no redirect itself
(``may_follow`` stops it at each), so a redirect to another host waits for that host's
robots.txt and turn, and a target it disallows is not requested. Loops and chains longer
than ``max_redirects`` are caught here, over all hosts.

HEAD or GET: a HEAD answers the status, the redirects, X-Robots-Tag, the content type and
Last-Modified; only an HTML page's body holds its meta robots and canonical. With ``head``
"auto", a URL whose path names a type that is not HTML (a .pdf, an image, an archive) is
asked with HEAD, and GET follows only when the answer is HTML after all; every other URL
with GET at once, since most listed pages are HTML and HEAD then GET costs two requests
for one (bench/bench_audit.py --head measures it). "always" asks HEAD first for every URL,
"never" never. A host that answers HEAD with 405 or 501, or whose first HEAD errors a GET
contradicts, is asked with GET from then on, and the report says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ..fetching.fetcher import Fetcher
from ..fetching.issues import REDIRECT_LOOP, TOO_MANY_REDIRECTS
from ..fetching.values import FetchRequest, FetchResponse
from ..model import Severity
from ..sources.page import read_page, robots_directives
from .rules import HTML_TYPES, Answer
from .schedule import BLOCKED, LATE, HostState, Scheduler, origin_of

HeadMode = Literal["auto", "always", "never"]
# the last path segment's extensions that name a type other than HTML
NOT_HTML = frozenset(
    [
        "pdf",
        "jpg",
        "jpeg",
        "png",
        "gif",
        "webp",
        "svg",
        "avif",
        "ico",
        "bmp",
        "tif",
        "tiff",
        "mp4",
        "m4v",
        "webm",
        "mov",
        "avi",
        "mp3",
        "wav",
        "ogg",
        "zip",
        "gz",
        "tgz",
        "bz2",
        "xz",
        "7z",
        "rar",
        "tar",
        "doc",
        "docx",
        "xls",
        "xlsx",
        "ppt",
        "pptx",
        "odt",
        "ods",
        "csv",
        "txt",
        "json",
        "xml",
        "rss",
        "epub",
        "apk",
        "dmg",
        "exe",
        "iso",
        "woff",
        "woff2",
        "ttf",
        "css",
        "js",
    ]
)
HEAD_CHECKS = 3  # a host's first HEAD errors checked against GET
_ROBOTS_GONE = "the whole host counts as disallowed (RFC 9309), so it was not requested"


def looks_not_html(url: str) -> bool:
    """The URL's path ends in an extension of a type that is not HTML."""
    path = url.partition("://")[2].partition("?")[0].partition("#")[0]
    name = path.rpartition("/")[2]
    return "." in name and name.rpartition(".")[2].lower() in NOT_HTML


class Visits:
    """The requests of an audit (see the module's docstring)."""

    def __init__(
        self,
        fetcher: Fetcher,
        user_agent: str,
        rate: float | None,
        head: HeadMode,
        note: Callable[[str], None],
    ) -> None:
        self.fetcher = fetcher
        self.user_agent = user_agent
        self.rate = rate
        self.head = head
        self.note = note
        self.max_redirects = fetcher.options.max_redirects
        self.scheduler: Scheduler | None = None  # set by the driver once the list is read
        self.methods = {"HEAD": 0, "GET": 0}  # requests of listed pages made, by method

    # -- robots.txt
    async def read_robots(self, state: HostState) -> None:
        """The host's robots.txt read into ``state``: its rules and Crawl-delay, or why the
        whole host counts as disallowed (5xx or no answer, RFC 9309 2.3.1.4)."""
        from protego import Protego

        url = state.origin + "/robots.txt"
        response = await self.fetcher.fetch(FetchRequest(url, kind="robots", probe=True))
        status = response.status
        if not response.requested:  # past the deadline: so are the host's pages
            return
        if status is None or status >= 500:
            why = response.error or f"HTTP {status}"
            state.unreadable = f"{url} could not be read ({why}): {_ROBOTS_GONE}"
            return
        interval = 1.0 / self.rate if self.rate else 0.0
        if 200 <= status < 300:
            state.robots = Protego.parse(response.body.decode("utf-8-sig", errors="replace"))
            delay = state.robots.crawl_delay(self.user_agent)
            if delay:
                interval = max(interval, float(delay))
                self.note(
                    f"{state.origin}: robots.txt asks for {float(delay):g} s between requests"
                )
        state.interval = interval

    def blocked(self, state: HostState, loc: str) -> bool:
        return state.robots is not None and not state.robots.can_fetch(loc, self.user_agent)

    def _why_blocked(self, state: HostState) -> str:
        return state.unreadable or f"robots.txt disallows it for {self.user_agent!r}"

    # -- one listed URL
    async def visit(self, loc: str, state: HostState, go: bool) -> Answer | None:
        """The answer to ``loc`` (its host's slot held when ``go``, else robots.txt keeps
        it); None when the run's deadline came first."""
        if not go:
            return Answer(None, loc, disallowed=self._why_blocked(state))
        url = loc
        redirects: list[tuple[int, str]] = []
        seconds = 0.0
        while True:
            response = await self._ask(url, state)
            if response is None:
                return None
            seconds += response.seconds
            target = response.unfollowed
            if target is None:
                return answer_of(response, redirects, seconds)
            redirects.append((response.status or 0, target))
            if target == loc or any(to == target for _, to in redirects[:-1]):
                chain = " -> ".join([loc, *(to for _, to in redirects)])
                return _broken(url, redirects, REDIRECT_LOOP, f"redirect loop: {chain}", seconds)
            if len(redirects) > self.max_redirects:
                chain = " -> ".join([loc, *(to for _, to in redirects)])
                reason = f"more than {self.max_redirects} redirects: {chain}"
                return _broken(url, redirects, TOO_MANY_REDIRECTS, reason, seconds)
            url = target
            state = self._scheduler().host(origin_of(url))
            verdict = await self._scheduler().acquire(state, url)
            if verdict == BLOCKED:
                why = f"redirects to {url}: {self._why_blocked(state)}"
                return Answer(redirects[-1][0], url, tuple(redirects), disallowed=why)
            if verdict == LATE:
                return None

    def _scheduler(self) -> Scheduler:
        assert self.scheduler is not None
        return self.scheduler

    async def _ask(self, url: str, state: HostState) -> FetchResponse | None:
        """One URL asked for (HEAD first where that may do), its host's slot held and
        given back; None when the deadline came first."""
        head = state.head and (
            self.head == "always" or (self.head == "auto" and looks_not_html(url))
        )
        response = await self._request(url, state, "HEAD" if head else "GET")
        if response is None or not head or response.unfollowed is not None:
            return response
        status = response.status
        if status in (405, 501):
            state.head = False
            self.note(f"{state.origin} answers HEAD with {status}: asked with GET from then on")
        elif status is None or (200 <= status < 300 and not _html(response)):
            return response  # all that a GET would tell
        elif 200 <= status < 300:
            pass  # HTML: the body holds meta robots and canonical
        elif state.head_checks >= HEAD_CHECKS:
            return response
        else:
            state.head_checks += 1
        if await self._scheduler().acquire(state) == LATE:
            return None
        got = await self._request(url, state, "GET")
        if got is not None and status not in (405, 501) and got.status != status and state.head:
            state.head = False
            self.note(
                f"{state.origin} answers HEAD unlike GET (HEAD {status}, GET {got.status} "
                f"for {url}): asked with GET from then on"
            )
        return got

    async def _request(
        self, url: str, state: HostState, method: Literal["GET", "HEAD"]
    ) -> FetchResponse | None:
        """One request, its host's slot (held) given back after it."""
        try:
            response = await self.fetcher.fetch(FetchRequest(url, kind="page", method=method))
        finally:
            self._scheduler().release(state)
        if not response.requested:
            return None
        self.methods[method] += 1
        return response


def _html(response: FetchResponse) -> bool:
    kind = response.headers.get("Content-Type", "")
    return kind.split(";", 1)[0].strip().lower() in HTML_TYPES


def _broken(
    url: str, redirects: list[tuple[int, str]], code: str, reason: str, seconds: float
) -> Answer:
    return Answer(None, url, tuple(redirects), error=reason, error_code=code, seconds=seconds)


def answer_of(response: FetchResponse, redirects: list[tuple[int, str]], seconds: float) -> Answer:
    """A page's answer as the rules read it (only the head of an HTML body is parsed)."""
    headers = response.headers
    status = response.status
    error_code = None
    if status is None:
        codes = [i.code for i in response.issues if i.severity == Severity.ERROR]
        error_code = codes[-1] if codes else None
    noindex_by: list[str] = []
    canonical = None
    if status is not None and 200 <= status < 300:
        header = headers.get("X-Robots-Tag")
        if header and "noindex" in robots_directives(header):
            noindex_by.append("X-Robots-Tag")
        if response.body:
            facts = read_page(response.body, response.url)
            canonical = facts.canonical
            if facts.noindex:
                noindex_by.append('<meta name="robots">')
    return Answer(
        status,
        response.url,
        tuple(redirects),
        error=response.error,
        error_code=error_code,
        content_type=headers.get("Content-Type", ""),
        last_modified=headers.get("Last-Modified"),
        noindex=bool(noindex_by),
        noindex_by=" and ".join(noindex_by),
        canonical=canonical,
        seconds=seconds,
    )

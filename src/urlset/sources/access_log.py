"""A web server's access logs -> build entries (driver: reads the files; the line rules are pure).

Lines in the Common Log Format (``host ident user [time] "request" status bytes``) and the
Combined one (the same, then ``"referer" "user-agent"``), as Apache and nginx write them,
from any number of files, plain or gzipped (told by their first bytes, so rotated names like
``access.log.2.gz`` or ``access.log.1`` need nothing). Each page is listed once, in the order
it was first requested, under the base URL's scheme and host; a log says nothing about when
a page changed, so no lastmod is written.

Left out, each counted with examples (the defaults, documented in README.md):

- a line that is not in either format ("malformed"): counted, never fatal;
- a request other than GET, and an answer other than 2xx (redirects, 304s, errors);
- a request whose user agent names a bot, crawler or tool (Combined format only);
- an asset: a path whose last segment has an extension other than an HTML page's
  (``.css``, ``.js``, ``.png``, ``.xml``, ``.pdf``, ...);
- a private or utility path: a hidden segment (``/.env``, ``/.git/``), or a first segment
  such as ``admin``, ``login``, ``account``, ``cart``, ``checkout``, ``api``, ``search``
  (``PRIVATE_SEGMENTS``);
- a path outside the base URL's directory.

The query string is dropped unless ``keep_query`` (a page's URL is usually its path; a query
often holds tracking or session values). Escapes a server writes in the request (``\\xHH``)
and raw non-ASCII bytes become percent-escapes.
"""

from __future__ import annotations

import gzip
import re
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from .report import SourceError, SourceReport

_LINE = re.compile(
    rb'(?P<host>\S+) \S+ \S+ \[[^\]]*\] "(?P<request>(?:[^"\\]|\\.)*)" (?P<status>\d{3}) \S+'
    rb'(?: "(?:[^"\\]|\\.)*" "(?P<agent>(?:[^"\\]|\\.)*)")?'
)
_SERVER_ESCAPE = re.compile(rb"\\x([0-9A-Fa-f]{2})")
_BOTS = re.compile(
    rb"bot|crawl|spider|slurp|archiver|facebookexternalhit|bingpreview|curl|wget|"
    rb"python-requests|python-urllib|aiohttp|httpx|go-http-client|java/|okhttp|libwww|"
    rb"httpclient|headless|phantomjs|scrapy|axios|node-fetch|monitor|uptime|pingdom|"
    rb"lighthouse|validator|feedfetcher|preview",
    re.IGNORECASE,
)
HTML_EXTENSIONS = frozenset(
    {"html", "htm", "xhtml", "shtml", "php", "asp", "aspx", "jsp", "cfm", "cgi", "pl"}
)
PRIVATE_SEGMENTS = frozenset(
    {
        "admin", "administrator", "wp-admin", "wp-login.php", "wp-json", "xmlrpc.php",
        "phpmyadmin", "login", "logout", "signin", "signout", "signup", "register", "account",
        "accounts", "my-account", "user", "users", "profile", "settings", "dashboard",
        "cart", "basket", "checkout", "order", "orders", "api", "graphql", "cgi-bin",
        "private", "internal", "search", "auth", "oauth", "session", "sessions",
    }
)  # fmt: skip
_UNRESERVED = frozenset(
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%"
)
_BATCH = 2048


@dataclass(frozen=True, slots=True)
class LogOptions:
    """How log lines become URLs (see the module's docstring)."""

    keep_query: bool = False


def _percent(raw: bytes) -> str:
    """A request target as ASCII: a server's ``\\xHH`` escapes and raw bytes other than
    those a URI allows as they are become %HH."""
    raw = _SERVER_ESCAPE.sub(lambda m: b"%" + m.group(1).upper(), raw)
    if all(byte in _UNRESERVED for byte in raw):
        return raw.decode("ascii")
    return "".join(chr(b) if b in _UNRESERVED else f"%{b:02X}" for b in raw)


def _asset(path: str) -> bool:
    last = path.rpartition("/")[2]
    if "." not in last:
        return False
    return last.rpartition(".")[2].lower() not in HTML_EXTENSIONS


def _private(path: str) -> bool:
    segments = path.split("/")
    if len(segments) > 1 and segments[1].lower() in PRIVATE_SEGMENTS:
        return True
    return any(segment.startswith(".") and segment not in (".", "..") for segment in segments)


class LogLines:
    """The line rules: ``page(line)`` gives the path (and query) a line lists, or None
    having counted why it was left out."""

    def __init__(self, base_url: str, options: LogOptions, report: SourceReport) -> None:
        parts = urlsplit(base_url)
        self.origin = f"{parts.scheme}://{parts.netloc}"
        self.directory = (parts.path or "/").rpartition("/")[0] + "/"
        self.options = options
        self.report = report

    def page(self, line: bytes, where: str) -> str | None:
        """One log line (without its line break); ``where`` names it in the report."""
        found = _LINE.match(line)
        parts = found.group("request").split(b" ") if found else []
        if found is None or len(parts) != 3 or not parts[2].startswith(b"HTTP/"):
            self.report.leave_out("malformed line (neither Common nor Combined Log Format)", where)
            return None
        method, target, _ = parts
        status = found.group("status")
        if method != b"GET":
            return self._left_out(f"{method.decode('latin-1')} request, not GET", target)
        if not status.startswith(b"2"):
            return self._left_out(f"status {status.decode()}, not 2xx", target)
        agent = found.group("agent")
        if agent is not None and _BOTS.search(agent):
            return self._left_out("request by a bot or tool (user agent)", target)
        text = _percent(target)
        if text.startswith(("http://", "https://")):  # absolute form (a proxy's log)
            split = urlsplit(text)
            text = split.path + ("?" + split.query if split.query else "")
        if not text.startswith("/"):
            return self._left_out("request target is not a path", target)
        path, _, query = text.partition("?")
        path = path.partition("#")[0]
        if _private(path):
            return self._left_out("private or utility path", target)
        if _asset(path):
            return self._left_out("not an HTML page (asset extension)", target)
        if not path.startswith(self.directory):
            return self._left_out("outside --base-url's directory", target)
        return path + "?" + query if self.options.keep_query and query else path

    def _left_out(self, reason: str, target: bytes) -> str | None:
        """Count a line left out; None, which ``page`` returns for it."""
        self.report.leave_out(reason, target.decode("latin-1")[:200])
        return None


def _lines(path: Path) -> Iterator[bytes]:
    """The lines of a log, plain or gzipped (told by its first bytes)."""
    with open(path, "rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    with opener(path, "rb") as stream:
        yield from stream


class AccessLogs:
    """``batches()`` reads ``paths`` in order and yields lists of (loc, None, None, None)
    rows, each page once; ``report`` counts what was left out."""

    def __init__(self, paths: list[str], base_url: str, options: LogOptions) -> None:
        label = paths[0] if len(paths) == 1 else f"{paths[0]} and {len(paths) - 1} more logs"
        self.paths = [Path(p) for p in paths]
        self.report = SourceReport(label)
        self.rules = LogLines(base_url, options, self.report)
        self.requests = 0

    def batches(self) -> Iterator[list[tuple[str, None, None, None]]]:
        seen: set[str] = set()
        batch: list[tuple[str, None, None, None]] = []
        origin = self.rules.origin
        for path in self.paths:
            number = 0
            try:
                for number, line in enumerate(_lines(path), 1):
                    page = self.rules.page(line.rstrip(b"\r\n"), f"{path}:{number}")
                    if page is None:
                        continue
                    self.requests += 1
                    if page not in seen:
                        seen.add(page)
                        batch.append((origin + page, None, None, None))
                        if len(batch) >= _BATCH:
                            yield batch
                            batch = []
            except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
                self.report.notes.append(
                    f"{path}: the gzip stream ends early or is damaged after line {number} "
                    f"({exc}); the lines before were read"
                )
            except OSError as exc:
                raise SourceError(f"{path}: cannot read ({exc.strerror or exc})") from exc
        self.report.entries = len(seen)
        requests, pages = self.requests, len(seen)
        self.report.notes.append(
            f"{requests:,} page request{'' if requests == 1 else 's'} for "
            f"{pages:,} page{'' if pages == 1 else 's'}"
        )
        if batch:
            yield batch

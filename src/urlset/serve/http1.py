"""HTTP/1.1 request heads, sans-I/O (RFC 9112): a request line and its header lines in, a
``Head`` or the status that refuses it out, for the server behind ``urlset serve``.

Every odd request line gets a status line and a status: a target in absolute form is served
as its path (section 3.2.2 requires a server to accept it); ``*`` only with OPTIONS and an
authority only with CONNECT (then 405: this server is no proxy); a method it does not know
501, one it knows but does not serve 405 (the app says which); a version other than 1.x 505
(HTTP/0.9, HTTP/2.0 and its ``PRI`` preface included); a missing version, bytes outside
visible ASCII, a malformed line 400; a line longer than ``MAX_LINE`` 414; header lines past
``MAX_HEAD`` bytes or ``MAX_FIELDS`` fields 431.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

MAX_LINE = 8 * 1024  # bytes of a request line (414 past it)
MAX_HEAD = 32 * 1024  # bytes of the header lines (431 past it)
MAX_FIELDS = 100  # header fields (431 past it)
MAX_BODY = 64 * 1024  # bytes of a request body read and dropped (413 past it)

# RFC 9110 section 9 and the registry's other common ones: known, answered 405 if not served
KNOWN_METHODS = frozenset(
    [
        "GET",
        "HEAD",
        "POST",
        "PUT",
        "DELETE",
        "CONNECT",
        "OPTIONS",
        "TRACE",
        "PATCH",
        "PROPFIND",
        "MKCOL",
        "COPY",
        "MOVE",
        "LOCK",
        "UNLOCK",
        "PRI",
    ]
)
_TOKEN = re.compile(rb"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_VERSION = re.compile(rb"HTTP/([0-9])\.([0-9])")
_TARGET = re.compile(rb"[\x21-\x7e]+")  # visible ASCII: anything else must be escaped
_FIELD_VALUE = re.compile(rb"[\t\x20-\x7e\x80-\xff]*")


class Refused(Exception):
    """A request this server answers with ``status`` and closes: ``reason`` says why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


@dataclass(frozen=True)
class RequestLine:
    method: str
    path: str  # decoded, as WSGI's PATH_INFO and ASGI's path are
    query: str
    minor: int  # HTTP/1.minor


def request_line(line: bytes) -> RequestLine:
    """A request line (without its CRLF) read, or ``Refused``."""
    parts = line.split(b" ")
    if len(parts) == 2 and _TOKEN.fullmatch(parts[0]):
        raise Refused(400, "no HTTP version in the request line (HTTP/0.9 is not served)")
    if len(parts) != 3:
        raise Refused(400, "a request line is a method, a target and a version, one space apart")
    method, target, version = parts
    if not _TOKEN.fullmatch(method):
        raise Refused(400, "the method is not a token")
    found = _VERSION.fullmatch(version)
    if found is None:
        raise Refused(400, "the version is not HTTP/x.y")
    if found[1] != b"1":
        raise Refused(
            505, f"HTTP/{found[1].decode()}.{found[2].decode()} is not served; use HTTP/1.1"
        )
    if not _TARGET.fullmatch(target):
        raise Refused(400, "the target holds a space, a control or a non-ASCII byte (escape it)")
    name = method.decode("ascii")
    return RequestLine(name, *_target(name, target.decode("ascii")), int(found[2]))


def _target(method: str, target: str) -> tuple[str, str]:
    """The path (decoded) and query of a target in any of the four forms."""
    if target.startswith("/"):
        path, _, query = target.partition("?")
    elif target == "*":
        if method != "OPTIONS":
            raise Refused(400, "the target * is for OPTIONS only")
        return "*", ""
    elif "://" in target:  # absolute form: served as its path (RFC 9112 section 3.2.2)
        parts = urlsplit(target)
        if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
            raise Refused(400, "an absolute target must be an http(s) URL")
        path, query = parts.path or "/", parts.query
    elif method == "CONNECT":  # authority form: a tunnel, which this server does not make
        return "*", ""
    else:
        raise Refused(400, "the target is not a path, a URL, an authority or *")
    return unquote(path, errors="replace"), query


def header_field(line: bytes) -> tuple[str, str]:
    """One header line (without its CRLF) as (lower-case name, value), or ``Refused``."""
    if line[:1] in (b" ", b"\t"):
        raise Refused(400, "a folded header line (obsolete line folding is not accepted)")
    name, colon, value = line.partition(b":")
    if not colon or not _TOKEN.fullmatch(name):  # no space before the colon (section 5.1)
        raise Refused(400, "a header line is a name, a colon and a value")
    value = value.strip(b" \t")
    if not _FIELD_VALUE.fullmatch(value):
        raise Refused(400, "a header value holds a control character")
    return name.decode("ascii").lower(), value.decode("latin-1")

"""The lean HTTP/1.1 client's (h1.py) wire pieces: the URLs it sends, the headers of its
answers, and what it raises.

Standard library only, so that failures.py can tell these failures apart without aiohttp
loaded. Each stands for the aiohttp error named beside it, and failures.py words the two
alike: a failure reads the same whichever client met it.
"""

from __future__ import annotations

import errno
import re
from collections.abc import Iterable, Iterator, Mapping


class ReadTimeout(TimeoutError):
    """No data for ``read_timeout`` seconds (aiohttp's SocketTimeoutError)."""


class ConnectTimeout(TimeoutError):
    """No connection within ``connect_timeout`` (aiohttp's ConnectionTimeoutError)."""


class Disconnected(ConnectionError):
    """The connection ended before an answer (aiohttp's ServerDisconnectedError)."""


class Dropped(ConnectionError):
    """The connection failed with an OS error before an answer (aiohttp's ClientOSError)."""


class BodyCut(ConnectionError):
    """The body ended before its length or last chunk (aiohttp's ClientPayloadError)."""

    def __init__(self, received: int, expected: int | None, reset: bool) -> None:
        super().__init__("the body ended early")
        self.received = received
        self.expected = expected  # None: chunked or read to the end
        self.reset = reset


class Undecodable(ConnectionError):
    """The body is not valid in its Content-Encoding, named as the exception's text
    (aiohttp's ClientPayloadError)."""


class NotHttp(Exception):
    """The answer cannot be read as HTTP (aiohttp's 400 for it, which no server sent)."""


# every failure above, for the callers' except clauses
WIRE_ERRORS: tuple[type[Exception], ...] = (
    ReadTimeout,
    ConnectTimeout,
    Disconnected,
    Dropped,
    BodyCut,
    Undecodable,
    NotHttp,
)


class Headers(Mapping[str, str]):
    """An answer's headers, looked up by name in any case (the first of repeated ones)."""

    __slots__ = ("_count", "_first")

    def __init__(self, pairs: Iterable[tuple[str, str]]) -> None:
        self._first: dict[str, tuple[str, str]] = {}
        self._count: dict[str, int] = {}
        for name, value in pairs:
            key = name.lower()
            self._first.setdefault(key, (name, value))
            self._count[key] = self._count.get(key, 0) + 1

    def __getitem__(self, name: str) -> str:
        return self._first[name.lower()][1]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._first

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self._first.values())

    def __len__(self) -> int:
        return len(self._first)

    def count(self, name: str) -> int:
        """How many times the header came."""
        return self._count.get(name.lower(), 0)


def is_reset(error: BaseException | None) -> bool:
    return isinstance(error, OSError) and error.errno == errno.ECONNRESET


# a URL yarl sends as it is written (lower-case host, no dot segment, no fragment): the
# request line is then the URL's own path and query, byte for byte
_PLAIN = re.compile(
    r"(https?)://([a-z0-9.-]+)(?::(\d{1,5}))?"
    r"((?:/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@]|%[0-9A-F]{2})*)*)"
    r"(\?(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9A-F]{2})*)?"
)
UNSAFE = re.compile(r"[\x00-\x1f\x7f]|[^\x00-\xff]")
_DOT_SEGMENT = re.compile(r"/\.\.?(?:/|$)")
ENCODINGS = frozenset({"", "identity", "gzip", "deflate"})


def request_target(url: str) -> tuple[str, str, int, str, str] | None:
    """(scheme, host, port, Host header, request target) of a URL this client sends as
    aiohttp would, or None: aiohttp's to send."""
    plain = _PLAIN.fullmatch(url)
    if plain is None:
        return None
    scheme, host, port_text, path, query = plain.groups()
    if _DOT_SEGMENT.search(path):
        return None
    default = 443 if scheme == "https" else 80
    port = int(port_text) if port_text else default
    if not 0 < port < 65536:
        return None
    header = host if port == default else f"{host}:{port}"
    return scheme, host, port, header, (path or "/") + (query or "")


def unsafe_in_header(text: str) -> bool:
    """A control character or one beyond Latin-1: not sent in a header as it is."""
    return UNSAFE.search(text) is not None

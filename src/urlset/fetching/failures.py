"""How an attempt failed: which errors are worth another try, and how each reads.

In: an error of the lean client (wire.py), of aiohttp or of the OS (or a retryable answer
found by the body reader). Out: a Retry (reason, issue code, Retry-After) for the Fetcher's
retry loop, or the words an issue uses: the same words for a lean error as for the aiohttp
one it stands for. aiohttp is not imported here: while nothing has loaded it (a fetch the
lean client answered alone), no error can be its.
"""

from __future__ import annotations

import errno
import os
import re
import socket
import ssl
from typing import Any

from ..patterns import lazy
from .addresses import BlockedAddress
from .issues import FETCH_FAILED, FETCH_TIMEOUT
from .tls import loaded_aiohttp
from .wire import (
    WIRE_ERRORS,
    BodyCut,
    ConnectTimeout,
    Disconnected,
    Dropped,
    NotHttp,
    ReadTimeout,
    Undecodable,
    is_reset,
)


class Retry(Exception):
    """This attempt failed in a way worth trying again (``final``: one that would fail the
    same again, so not)."""

    def __init__(
        self, reason: str, code: str, retry_after: float | None = None, final: bool = False
    ) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.retry_after = retry_after
        self.final = final


class Unconditional(Exception):
    """A 304 came but the stored result is gone: ask again without validators."""


_RECEIVED = lazy(r"received (\d+) of (\d+) bytes")
_DECODING = lazy(r"can not decode content-encoding: ([\w-]+)\s*$")
# aiohttp's words for a Content-Encoding it has no decoder for (brotli, zstd)
_UNDECODABLE = lazy(r"content-encoding: [^(]*\(([\w-]+)\)\. Please install `([^`]+)`")


def _aiohttp() -> Any:
    """aiohttp when loaded; else a stand-in whose every attribute is a class nothing is an
    instance of (before aiohttp is loaded, no error can be its)."""
    return loaded_aiohttp() or _NOT_LOADED


class _NoSuchError(Exception):
    """Stands for an aiohttp error class while aiohttp is not loaded: nothing is one."""


class _NotLoaded:
    def __getattr__(self, name: str) -> type[Exception]:
        return _NoSuchError


_NOT_LOADED = _NotLoaded()


def transport_errors() -> tuple[type[BaseException], ...]:
    """What an attempt can fail with: the lean client's errors, the OS's, aiohttp's (for
    an ``except`` clause, read when the exception is raised)."""
    return (*WIRE_ERRORS, OSError, _aiohttp().ClientError)


def body_errors() -> tuple[type[BaseException], ...]:
    """What reading a body can fail with, to be tried again (``retry_for``)."""
    aiohttp = _aiohttp()
    return (
        BodyCut,
        ReadTimeout,
        Disconnected,
        Dropped,
        Undecodable,
        aiohttp.ClientPayloadError,
        aiohttp.ClientConnectionError,
    )


def connect_timeout(exc: BaseException) -> bool:
    """No connection was made in the connect timeout (not a read that timed out)."""
    return isinstance(exc, ConnectTimeout | _aiohttp().ConnectionTimeoutError)


def undecodable(exc: BaseException) -> tuple[str, str] | None:
    """(encoding, package) when the answer came in a Content-Encoding this installation
    cannot decode (aiohttp calls it a 400, though the server said no such thing)."""
    if not isinstance(exc, _aiohttp().ClientResponseError):
        return None
    found = _UNDECODABLE.search(str(exc.message))
    return (found.group(1), found.group(2)) if found else None


def undecodable_reason(status: int | None, encoding: str, package: str) -> str:
    """What an answer in an encoding that cannot be decoded here reads as, and what to do."""
    said = f"HTTP {status}, but the body" if status is not None else "the body"
    return (
        f"{said} is in Content-Encoding {encoding}, which was not asked for (Accept-Encoding: "
        f"gzip, deflate) and cannot be decoded here; not read (pip install {package} adds "
        f"the decoder, or have the server send gzip)"
    )


def retry_for(exc: BaseException) -> Retry:
    """The Retry for a body that could not be read to its end (one not valid in its
    Content-Encoding is final: it would come the same again)."""
    if isinstance(exc, TimeoutError):
        return Retry("no data during the body for longer than the read timeout", FETCH_TIMEOUT)
    return Retry(describe_failure(exc), FETCH_FAILED, final=_encoding_of(exc) is not None)


def _encoding_of(exc: BaseException) -> str | None:
    """The Content-Encoding a body was not valid in."""
    if isinstance(exc, Undecodable):
        return str(exc)
    if isinstance(exc, _aiohttp().ClientPayloadError):
        found = _DECODING.search(str(exc).lower())
        return found.group(1) if found else None
    return None


def cannot_connect(exc: BaseException) -> bool:
    """No connection could be made: refused, unreachable, the TLS handshake failed. A DNS
    failure or a refused address is not counted: it fails whatever the scheme."""
    aiohttp = _aiohttp()
    return (
        isinstance(exc, aiohttp.ClientConnectorError)
        and not isinstance(exc, aiohttp.ClientConnectorDNSError)
        and not blocked(exc)
    )


def refused(exc: BaseException) -> bool:
    """Nothing listens there: every address tried refused the connection. Trying again at
    once would be refused again, so it is not retried."""
    aiohttp = _aiohttp()
    if not isinstance(exc, aiohttp.ClientConnectorError) or isinstance(
        exc, aiohttp.ClientConnectorDNSError
    ):
        return False
    error = exc.os_error
    if error.errno == errno.ECONNREFUSED:
        return True
    # several addresses (::1 and 127.0.0.1): asyncio joins their errors into one message
    text = str(error)
    parts = re.findall(r"\[Errno (\d+)\]", text)
    return bool(parts) and all(int(p) == errno.ECONNREFUSED for p in parts)


# getaddrinfo's answers that say the name has no address (trying again gives the same)
_NO_ADDRESS = frozenset(
    getattr(socket, name)
    for name in ("EAI_NONAME", "EAI_NODATA", "EAI_ADDRFAMILY")
    if hasattr(socket, name)
)
# what OpenSSL says when the other side answered a TLS hello with something else (plain
# http on that port, most often)
_NOT_TLS = (
    "wrong_version_number",
    "wrong version number",
    "http_request",
    "packet length too long",
    "record layer failure",
    "unknown protocol",
)


def blocked(exc: BaseException) -> bool:
    """The AddressGuard refused the address (addresses.py)."""
    return isinstance(exc, _aiohttp().ClientConnectorError) and isinstance(
        exc.os_error, BlockedAddress
    )


def _not_http(exc: BaseException) -> bool:
    """aiohttp could not parse the answer (a bad status line or headers): its 400, which
    no server sent."""
    aiohttp = _aiohttp()
    return (
        isinstance(exc, aiohttp.ClientResponseError)
        and exc.status == 400
        and undecodable(exc) is None
        and not isinstance(exc, aiohttp.ClientPayloadError)
    )


def final_failure(exc: BaseException) -> bool:
    """Whether trying again at once cannot change this failure: nothing listens on the
    port, the name has no address, the TLS handshake or the certificate failed, the address
    is one the run may not connect to."""
    if blocked(exc) or _not_http(exc) or isinstance(exc, NotHttp):
        return True
    aiohttp = _aiohttp()
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return exc.os_error.errno in _NO_ADDRESS or exc.os_error.errno == getattr(
            socket, "EAI_FAIL", None
        )
    if isinstance(exc, aiohttp.ClientConnectorError):
        return (
            isinstance(exc, aiohttp.ClientSSLError)
            or isinstance(exc.os_error, ssl.SSLError)
            or refused(exc)
        )
    return False


def _connect_reason(exc: Any) -> str:
    if refused(exc):
        return "connection refused"
    error = exc.os_error
    if error.errno:
        return os.strerror(error.errno).lower()
    return error.strerror or str(error) or type(error).__name__


def _certificate(exc: Any) -> str:
    error = exc.certificate_error
    detail = str(getattr(error, "verify_message", None) or getattr(error, "reason", None) or error)
    low = detail.lower()
    host = exc.host
    if "expired" in low:
        why = "it has expired"
    elif "not yet valid" in low:
        why = "it is not valid yet (its start date is in the future, or this clock is wrong)"
    elif "mismatch" in low:
        why = f"it is not valid for {host} (it was issued for another name)"
    elif "self-signed" in low or "self signed" in low or "issuer" in low or "unknown ca" in low:
        why = "it is not signed by an authority this system trusts (self-signed or a private CA)"
    else:
        why = detail
    return f"could not connect: the server's TLS certificate was rejected ({why})"


def _handshake(exc: Any) -> str:
    error = exc.os_error
    detail = str(getattr(error, "reason", None) or error)
    if any(sign in str(error).lower() for sign in _NOT_TLS):
        return (
            f"TLS handshake failed: the server does not speak TLS on {exc.host}:{exc.port} "
            "(plain http on that port? try the http:// URL)"
        )
    return f"TLS handshake with {exc.host}:{exc.port} failed ({detail})"


def _dns(exc: Any) -> str:
    error = exc.os_error
    if error.errno in _NO_ADDRESS:
        return f"name not found: DNS has no address for {exc.host}"
    if error.errno == getattr(socket, "EAI_AGAIN", None):
        return f"DNS lookup of {exc.host} failed for now (temporary failure in name resolution)"
    detail = error.strerror or str(error) or type(error).__name__
    return f"DNS lookup of {exc.host} failed ({detail})"


def _cut(received: int | None, expected: int | None, reset: bool) -> str:
    detail = f" after {received} of {expected} bytes" if expected is not None else ""
    if reset:
        return f"the connection was reset in the middle of the body{detail}"
    return f"the body ended early{detail}"


def _undecodable_body(encoding: str) -> str:
    return f"the body is not valid {encoding} (its Content-Encoding), so it cannot be read"


def describe_failure(exc: BaseException) -> str:
    """A failure in words, the same for a lean client's error as for aiohttp's."""
    text = str(exc).strip()
    name = type(exc).__name__
    aiohttp = _aiohttp()
    encoding = _encoding_of(exc)
    if encoding is not None:
        return _undecodable_body(encoding)
    if isinstance(exc, BodyCut):
        return _cut(exc.received, exc.expected, exc.reset)
    if isinstance(exc, aiohttp.ClientPayloadError):
        counts = _RECEIVED.search(text)
        reset = "ConnectionResetError" in text or "reset" in text.lower()
        if counts:
            return _cut(int(counts.group(1)), int(counts.group(2)), reset)
        return _cut(None, None, reset)
    if isinstance(exc, Disconnected | aiohttp.ServerDisconnectedError):
        return "the server closed the connection without an answer"
    if isinstance(exc, NotHttp):
        return f"the answer is not HTTP that can be read ({exc})"
    if blocked(exc):
        return str(exc.os_error)  # type: ignore[attr-defined]
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        return _certificate(exc)
    if isinstance(exc, aiohttp.ClientConnectorDNSError):
        return _dns(exc)
    if isinstance(exc, aiohttp.ClientConnectorError):
        if isinstance(exc, aiohttp.ClientSSLError) or isinstance(exc.os_error, ssl.SSLError):
            return _handshake(exc)
        if exc.os_error.errno == errno.ECONNRESET:
            return f"the connection to {exc.host}:{exc.port} was reset while connecting"
        return f"could not connect to {exc.host}:{exc.port} ({_connect_reason(exc)})"
    if _not_http(exc):
        detail = str(exc.message).strip().splitlines()[0]  # type: ignore[attr-defined]
        return f"the answer is not HTTP that can be read ({detail.rstrip(':')})"
    if isinstance(exc, Dropped | aiohttp.ClientOSError) and is_reset(exc):
        return "the connection was reset"
    return f"{name}: {text}" if text else name

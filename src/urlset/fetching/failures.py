"""How an attempt failed: which errors are worth another try, and how each reads.

In: an aiohttp or OS error (or a retryable answer found by the body reader). Out: a Retry
(reason, issue code, Retry-After) for the Fetcher's retry loop, or the words an issue uses.
"""

from __future__ import annotations

import errno
import os
import re

from ..patterns import lazy
from .issues import FETCH_FAILED, FETCH_TIMEOUT
from .tls import aiohttp


class Retry(Exception):
    """This attempt failed in a way worth trying again."""

    def __init__(self, reason: str, code: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.retry_after = retry_after


class Unconditional(Exception):
    """A 304 came but the stored result is gone: ask again without validators."""


_RECEIVED = lazy(r"received (\d+) of (\d+) bytes")


def retry_for(exc: BaseException) -> Retry:
    if isinstance(exc, TimeoutError):
        return Retry(
            f"no data for a while during the body ({describe_failure(exc)})", FETCH_TIMEOUT
        )
    return Retry(describe_failure(exc), FETCH_FAILED)


def cannot_connect(exc: BaseException) -> bool:
    """No connection could be made: refused, unreachable, the TLS handshake failed. A DNS
    failure is not counted: the name fails whatever the scheme."""
    return isinstance(exc, aiohttp.ClientConnectorError) and not isinstance(
        exc, aiohttp.ClientConnectorDNSError
    )


def refused(exc: BaseException) -> bool:
    """Nothing listens there: every address tried refused the connection. Trying again at
    once would be refused again, so it is not retried."""
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


def _connect_reason(exc: aiohttp.ClientConnectorError) -> str:
    if refused(exc):
        return "connection refused"
    error = exc.os_error
    if error.errno:
        return os.strerror(error.errno).lower()
    return error.strerror or str(error) or type(error).__name__


def describe_failure(exc: BaseException) -> str:
    text = str(exc).strip()
    name = type(exc).__name__
    if isinstance(exc, aiohttp.ClientPayloadError):
        counts = _RECEIVED.search(text)
        detail = f" after {counts.group(1)} of {counts.group(2)} bytes" if counts else ""
        if "ConnectionResetError" in text or "reset" in text.lower():
            return f"the connection was reset in the middle of the body{detail}"
        return f"the body ended early{detail} ({type(exc).__name__})"
    if isinstance(exc, aiohttp.ServerDisconnectedError):
        return "the server closed the connection"
    if isinstance(exc, aiohttp.ClientConnectorCertificateError):
        reason = getattr(exc.certificate_error, "verify_message", None) or exc.certificate_error
        return f"could not connect: the server's TLS certificate was rejected ({reason})"
    if isinstance(exc, aiohttp.ClientConnectorError):
        return f"could not connect to {exc.host}:{exc.port} ({_connect_reason(exc)})"
    return f"{name}: {text}" if text else name

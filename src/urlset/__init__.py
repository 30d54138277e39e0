"""urlset: the Sitemaps protocol (sitemaps.org 0.9), complete, correct and fast.

The errors load with the package; the values (Url, the limits) and the parts that need heavy
libraries (numpy for building, lxml for reading and checking, aiohttp for fetching, DuckDB for
snapshots and diffs) load on first use, so the command line and ``import urlset`` stay quick.
"""

from __future__ import annotations

import importlib

from .errors import (
    InputError,
    InvalidValue,
    LimitExceeded,
    PublishError,
    ReadError,
    UrlsetError,
)

# typing.TYPE_CHECKING without loading typing (type checkers take it as True): with the errors
# alone, ``import urlset`` loads neither typing nor re
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from .auditing.driver import AuditOptions, AuditReport, audit
    from .checking.checker import CheckReport, check, check_paths, is_valid
    from .fetching.discovery import DiscoveryOptions, DiscoveryResult
    from .fetching.http import HttpOptions, fetch_sitemaps, fetch_sitemaps_sync
    from .limits import CURRENT, SITEMAPS_2008, Limits, ReadLimits
    from .model import ChangeFreq, Issue, RawElement, Severity, SitemapRef, Url
    from .reading.reader import ReadResult, SitemapReader, read, read_bytes, read_chunks, read_file
    from .store.frames import read_frame
    from .writing.build import BuildReport, write_sitemaps

    __version__: str

# public name -> the module that defines it, imported when the name is first used
_LAZY = {
    # the values: cheap, but they pull in ada_url and dataclasses, which `urlset --help` never needs
    "CURRENT": "limits",
    "SITEMAPS_2008": "limits",
    "Limits": "limits",
    "ReadLimits": "limits",
    "ChangeFreq": "model",
    "Issue": "model",
    "RawElement": "model",
    "Severity": "model",
    "SitemapRef": "model",
    "Url": "model",
    "AuditOptions": "auditing.driver",
    "AuditReport": "auditing.driver",
    "audit": "auditing.driver",
    "BuildReport": "writing.build",
    "write_sitemaps": "writing.build",
    "CheckReport": "checking.checker",
    "check": "checking.checker",
    "check_paths": "checking.checker",
    "is_valid": "checking.checker",
    "DiscoveryOptions": "fetching.discovery",
    "DiscoveryResult": "fetching.discovery",
    "HttpOptions": "fetching.http",
    "fetch_sitemaps": "fetching.http",
    "fetch_sitemaps_sync": "fetching.http",
    "ReadResult": "reading.reader",
    "SitemapReader": "reading.reader",
    "read": "reading.reader",
    "read_bytes": "reading.reader",
    "read_chunks": "reading.reader",
    "read_file": "reading.reader",
    "read_frame": "store.frames",
}


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # the installed metadata, which maturin takes from rust/Cargo.toml: one version, and
        # importlib.metadata loads only when asked
        from importlib.metadata import version

        globals()[name] = value = version("urlset")
        return value
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'urlset' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CURRENT",
    "SITEMAPS_2008",
    "AuditOptions",
    "AuditReport",
    "BuildReport",
    "ChangeFreq",
    "CheckReport",
    "DiscoveryOptions",
    "DiscoveryResult",
    "HttpOptions",
    "InputError",
    "InvalidValue",
    "Issue",
    "LimitExceeded",
    "Limits",
    "PublishError",
    "RawElement",
    "ReadError",
    "ReadLimits",
    "ReadResult",
    "Severity",
    "SitemapReader",
    "SitemapRef",
    "Url",
    "UrlsetError",
    "audit",
    "check",
    "check_paths",
    "fetch_sitemaps",
    "fetch_sitemaps_sync",
    "is_valid",
    "read",
    "read_bytes",
    "read_chunks",
    "read_file",
    "read_frame",
    "write_sitemaps",
]

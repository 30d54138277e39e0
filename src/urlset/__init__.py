"""urlset: the Sitemaps protocol (sitemaps.org 0.9), complete, correct and fast.

The values and errors load with the package; the parts that need heavy libraries (numpy for
building, lxml for reading and checking, aiohttp for fetching) load on first use, so the
command line and ``import urlset`` stay quick.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .errors import (
    InputError,
    InvalidValue,
    LimitExceeded,
    PublishError,
    ReadError,
    UrlsetError,
)
from .limits import CURRENT, SITEMAPS_2008, Limits, ReadLimits
from .model import ChangeFreq, Issue, RawElement, Severity, SitemapRef, Url

if TYPE_CHECKING:
    from .build import BuildReport, write_sitemaps
    from .check import CheckReport, check, is_valid
    from .discovery import DiscoveryOptions, DiscoveryResult
    from .http import HttpOptions, fetch_sitemaps, fetch_sitemaps_sync
    from .reader import ReadResult, SitemapReader, read, read_bytes, read_chunks, read_file

# public name -> the module that defines it, imported when the name is first used
_LAZY = {
    "BuildReport": "build",
    "write_sitemaps": "build",
    "CheckReport": "check",
    "check": "check",
    "is_valid": "check",
    "DiscoveryOptions": "discovery",
    "DiscoveryResult": "discovery",
    "HttpOptions": "http",
    "fetch_sitemaps": "http",
    "fetch_sitemaps_sync": "http",
    "ReadResult": "reader",
    "SitemapReader": "reader",
    "read": "reader",
    "read_bytes": "reader",
    "read_chunks": "reader",
    "read_file": "reader",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'urlset' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CURRENT",
    "SITEMAPS_2008",
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
    "check",
    "fetch_sitemaps",
    "fetch_sitemaps_sync",
    "is_valid",
    "read",
    "read_bytes",
    "read_chunks",
    "read_file",
    "write_sitemaps",
]

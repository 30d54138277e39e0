"""urlset: the Sitemaps protocol (sitemaps.org 0.9), complete, correct and fast."""

from .build import BuildReport, write_sitemaps
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

__all__ = [
    "CURRENT",
    "SITEMAPS_2008",
    "BuildReport",
    "ChangeFreq",
    "InputError",
    "InvalidValue",
    "Issue",
    "LimitExceeded",
    "Limits",
    "PublishError",
    "RawElement",
    "ReadError",
    "ReadLimits",
    "Severity",
    "SitemapRef",
    "Url",
    "UrlsetError",
    "write_sitemaps",
]

"""urlset: the Sitemaps protocol (sitemaps.org 0.9), complete, correct and fast."""

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
]

"""The issue codes fetching reports, and the reader codes it acts on.

Takes nothing in; gives out the fetch-specific codes (FETCH_CODES), ``fetch_issue`` to make
an Issue about a whole document, ``quiet`` to turn an expected failure into information, and
the reader codes that mean a document was read only in part, ``plural``.
"""

from __future__ import annotations

from ..model import Issue, Severity

# Fetch-specific codes; the reader's own codes (codes.py) pass through unchanged.
HTTP_STATUS = "http-status"  # the server answered with an error status
FETCH_FAILED = "fetch-failed"  # connection refused, reset, DNS, ... after the retries
FETCH_TIMEOUT = "fetch-timeout"  # connect, a read, or the whole download took too long
FETCH_RETRIED = "fetch-retried"  # succeeded or failed only after retrying
FETCH_PARTIAL = "fetch-partial"  # a body cut off (reset, timeout): the entries read are kept
DEADLINE = "deadline"  # the run's --deadline passed: cut off or not requested
REDIRECT_LOOP = "redirect-loop"
TOO_MANY_REDIRECTS = "too-many-redirects"
CROSS_HOST_REDIRECT = "cross-host-redirect"
CONTENT_TYPE = "content-type"  # a sitemap served with a type that is not XML/text/gzip
NOT_A_SITEMAP = "not-a-sitemap"  # a 200 answer that is an HTML page or unreadable
INDEX_LOOP = "index-loop"  # an index lists itself or an ancestor, or redirects to one
DUPLICATE_SITEMAP = "duplicate-sitemap"
CROSS_HOST_SITEMAP = "cross-host-sitemap"
DEPTH_LIMIT = "index-depth-limit"  # (the reader's "depth-limit" is XML nesting)
SITEMAP_LIMIT = "sitemap-limit"
URL_LIMIT = "url-limit"
UNCHANGED = "unchanged"  # skipped: the index's lastmod says it did not change since the cache
NOT_MODIFIED = "not-modified"  # 304: the stored result was reused
HTTP_FALLBACK = "http-fallback"  # https could not be connected to: the start was read over http
CACHE_OUTDATED = "cache-outdated"  # a stored result in a format this version does not reuse
ROBOTS_UNAVAILABLE = "robots-unavailable"
ROBOTS_TOO_LARGE = "robots-too-large"
ROBOTS_RELATIVE_SITEMAP = "robots-relative-sitemap"
ROBOTS_BAD_SITEMAP = "robots-bad-sitemap"
ROBOTS_NO_SITEMAPS = "robots-no-sitemaps"
NO_SITEMAPS = "no-sitemaps"

FETCH_CODES = (
    HTTP_STATUS,
    FETCH_FAILED,
    FETCH_TIMEOUT,
    FETCH_RETRIED,
    FETCH_PARTIAL,
    DEADLINE,
    REDIRECT_LOOP,
    TOO_MANY_REDIRECTS,
    CROSS_HOST_REDIRECT,
    CONTENT_TYPE,
    NOT_A_SITEMAP,
    INDEX_LOOP,
    DUPLICATE_SITEMAP,
    CROSS_HOST_SITEMAP,
    DEPTH_LIMIT,
    SITEMAP_LIMIT,
    URL_LIMIT,
    UNCHANGED,
    NOT_MODIFIED,
    HTTP_FALLBACK,
    CACHE_OUTDATED,
    ROBOTS_UNAVAILABLE,
    ROBOTS_TOO_LARGE,
    ROBOTS_RELATIVE_SITEMAP,
    ROBOTS_BAD_SITEMAP,
    ROBOTS_NO_SITEMAPS,
    NO_SITEMAPS,
)


def fetch_issue(
    code: str, severity: Severity, message: str, source: str = "", hint: str = ""
) -> Issue:
    """An Issue about fetching (no line or column: it concerns the whole document)."""
    return Issue(code, severity, message, 0, 0, source, hint)


# Reader codes that mean a document was read only in part: its entries are kept, and the
# result is labelled partial.
INCOMPLETE_CODES = frozenset(
    {
        "truncated",
        "truncated-entry",
        "content-after-root",  # a second document after the root was not read
        "gzip-truncated",
        "gzip-corrupt",
        "decompressed-size-limit",
        "entry-limit",
        "depth-limit",  # the reader's: XML nested too deeply
        "not-well-formed",  # the parser recovered; entries at the break may be lost
        FETCH_PARTIAL,
        DEADLINE,  # on a document with entries: cut off by the run's deadline
    }
)


def quiet(issue: Issue) -> Issue:
    """A probe's failure is expected: keep it, as information."""
    return issue._replace(severity=Severity.INFO)

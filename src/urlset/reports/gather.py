"""Driver: the URL counts of the documents a check read, for its HTML report.

A check keeps findings, not URLs, so the report reads each local sitemap again with the
same reader (``read_file``: the compiled fast lane, a batch of columns at a time) into a
``UrlStats``. Documents checked over HTTP are not downloaded again: the report counts the
URLs of local files and standard input, and says how many documents it left out.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from itertools import islice
from pathlib import Path

from ..checking.report import SET_FORMAT, CheckReport
from ..limits import Limits
from ..model import Url
from ..reading.output import UrlColumns
from ..reading.reader import ReadResult, read_bytes, read_file
from .check import check_html
from .stats import UrlStats

BATCH = 20_000
STDIN = "<stdin>"
NO_URLS = (SET_FORMAT, "sitemapindex", None)


def check_page(report: CheckReport, limits: Limits, stdin: bytes | None, made: datetime) -> str:
    """``urlset check --format html``: the URL counts gathered, then the page."""
    stats, left_out = check_stats(report, stdin)
    return check_html(report, stats, limits=limits, made=made, left_out=left_out)


def check_stats(report: CheckReport, stdin: bytes | None = None) -> tuple[UrlStats, int]:
    """The URL counts of the report's local documents, and how many documents with URLs
    could not be counted (checked over HTTP, or gone since)."""
    stats = UrlStats()
    left_out = 0
    for result in report.files:
        if result.format in NO_URLS or not result.entries:
            continue
        if result.source == STDIN and stdin is not None:
            read = read_bytes(stdin, source=STDIN)
        elif Path(result.source).is_file():
            read = read_file(result.source)
        else:
            left_out += 1
            continue
        try:
            add_read(stats, read)
        except OSError:
            left_out += 1
    return stats, left_out


def add_read(stats: UrlStats, read: ReadResult) -> None:
    """Count the URLs of one document (its index entries and issues are passed over)."""
    stats.sources += 1
    urls: Iterable[Url] = (e for e in read if type(e) is Url)
    while batch := list(islice(urls, BATCH)):
        stats.add_columns(UrlColumns.from_urls(batch))

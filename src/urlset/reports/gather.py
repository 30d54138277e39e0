"""Driver: the URL counts of the documents a check read, for its HTML report.

The checker reads each document once; ``UrlCounter`` is the ``CheckOptions.on_urls`` it
calls with each document's URLs, a batch of columns at a time, and keeps only the counts
(a ``UrlStats``). Documents checked over HTTP are checked without it (a retry would count
them twice): the report says how many documents with URLs its charts leave out.
"""

from __future__ import annotations

from datetime import datetime

from ..checking.report import SET_FORMAT, CheckReport
from ..limits import Limits
from ..model import Url
from ..reading.output import UrlColumns
from .check import check_html
from .stats import UrlStats

NO_URLS = (SET_FORMAT, "sitemapindex", None)


class UrlCounter:
    """The URL counts of the documents a check reads: pass it as ``CheckOptions.on_urls``."""

    def __init__(self) -> None:
        self.stats = UrlStats()
        self.sources: set[str] = set()

    def __call__(self, source: str, urls: list[Url]) -> None:
        if source not in self.sources:
            self.sources.add(source)
            self.stats.sources += 1
        self.stats.add_columns(UrlColumns.from_urls(urls))

    def left_out(self, report: CheckReport) -> int:
        """How many documents with URLs the counts leave out (checked over HTTP)."""
        return sum(
            1
            for result in report.files
            if result.format not in NO_URLS and result.entries and result.source not in self.sources
        )


def check_page(report: CheckReport, limits: Limits, counter: UrlCounter, made: datetime) -> str:
    """``urlset check --format html``: the page, with the URL counts the check gathered."""
    left_out = counter.left_out(report)
    return check_html(report, counter.stats, limits=limits, made=made, left_out=left_out)

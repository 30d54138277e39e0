"""``check --format html`` counts its URLs from the checker's own pass: each input is read
once (a file, standard input as a stream), and the counts are those a reader gives."""

from __future__ import annotations

import io
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

from report_support import gzipped, site_rows, urlset_doc
from urlset.checking.checker import CheckOptions, check_paths
from urlset.checking.document import URL_BATCH
from urlset.limits import CURRENT
from urlset.model import Url
from urlset.reading.output import UrlColumns
from urlset.reading.reader import read_file
from urlset.reports.gather import UrlCounter, check_page
from urlset.reports.stats import UrlStats

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class CountingStream(io.RawIOBase):
    """A binary stream that counts the bytes read from it (standard input's stand-in)."""

    def __init__(self, data: bytes) -> None:
        self.inner = io.BytesIO(data)
        self.taken = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        n = self.inner.readinto(buffer)
        self.taken += n
        return n


def _read_stats(path: Path) -> UrlStats:
    """The counts as a separate read gives them (what the report did before)."""
    stats = UrlStats()
    urls = [e for e in read_file(path) if type(e) is Url]
    stats.add_columns(UrlColumns.from_urls(urls))
    return stats


def test_the_counts_come_from_the_check_and_equal_a_read(tmp_path: Path) -> None:
    plain = tmp_path / "sitemap-1.xml"
    plain.write_bytes(urlset_doc(site_rows(URL_BATCH + 5_000, 7)))  # more than one batch
    packed = tmp_path / "sitemap-2.xml.gz"
    packed.write_bytes(gzipped(urlset_doc(site_rows(3_000, 4, start=URL_BATCH + 5_000))))
    expected = [_read_stats(plain), _read_stats(packed)]
    counter = UrlCounter()
    report = check_paths([tmp_path], replace(CheckOptions(now=NOW), on_urls=counter))
    stats = counter.stats
    assert stats.sources == 2
    assert stats.urls == sum(s.urls for s in expected) == URL_BATCH + 8_000
    assert stats.months == expected[0].months + expected[1].months
    assert stats.without_lastmod == sum(s.without_lastmod for s in expected)
    # the page is made with the files gone: nothing is read a second time
    plain.unlink()
    packed.unlink()
    page = check_page(report, CURRENT, counter, NOW)
    assert f"{URL_BATCH + 8_000:,}" in page
    assert "not downloaded again" not in page


def test_standard_input_is_read_once_as_a_stream() -> None:
    data = urlset_doc(site_rows(2_500, 4))
    stream = CountingStream(data)
    counter = UrlCounter()
    report = check_paths(
        ["-"], replace(CheckOptions(now=NOW), on_urls=counter), stdin=io.BufferedReader(stream)
    )
    assert stream.taken == len(data)  # every byte once, none again for the charts
    assert counter.stats.urls == 2_500 and counter.stats.sources == 1
    page = check_page(report, CURRENT, counter, NOW)
    assert "<caption>The 4 largest sections</caption>" in page

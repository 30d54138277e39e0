"""The reader's public surface: SitemapReader, read_* functions, ReadResult, the code table."""

from __future__ import annotations

import gzip
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from urlset.codes import CODES
from urlset.model import ChangeFreq, Issue, Severity, SitemapRef, Url
from urlset.reading.reader import SitemapReader, read, read_bytes, read_chunks, read_file

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
DOC = (
    f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
    "  <url><loc>https://example.com/a</loc><lastmod>2024-05-01</lastmod>"
    "<changefreq>daily</changefreq><priority>0.8</priority></url>\n"
    "  <url><loc>https://example.com/b?x=1&amp;y=2</loc>"
    "<lastmod>2024-05-02T10:00:00+00:00</lastmod></url>\n"
    "</urlset>\n"
).encode()
EXPECTED = [
    Url._trusted("https://example.com/a", date(2024, 5, 1), ChangeFreq.DAILY, 0.8),
    Url._trusted("https://example.com/b?x=1&y=2", datetime(2024, 5, 2, 10, tzinfo=UTC)),
]


def test_push_reader_whole() -> None:
    reader = SitemapReader("doc.xml")
    assert reader.format is None
    events = reader.feed(DOC) + reader.close()
    assert events == EXPECTED
    assert reader.format == "urlset"
    assert not reader.fatal


def test_push_reader_feed_after_close_is_an_error() -> None:
    reader = SitemapReader()
    reader.close()
    with pytest.raises(ValueError):
        reader.feed(b"<")


def test_read_bytes_and_chunks_agree() -> None:
    assert list(read_bytes(DOC)) == EXPECTED
    chunks = [DOC[i : i + 7] for i in range(0, len(DOC), 7)]
    result = read_chunks(iter(chunks))
    assert list(result) == EXPECTED
    assert result.issues == []
    assert result.format == "urlset"


def test_read_file_gzip_by_content(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml"  # gzipped although the name says .xml
    path.write_bytes(gzip.compress(DOC))
    result = read_file(path)
    assert list(result) == EXPECTED
    assert list(read(path)) == EXPECTED


def test_issues_are_separate_unless_asked() -> None:
    doc = DOC.replace(b"https://example.com/a", b"/relative")
    result = read_bytes(doc, source="x.xml")
    entries = list(result)
    assert entries == EXPECTED[1:]
    assert [i.code for i in result.issues] == ["relative-url"]
    issue = result.issues[0]
    assert issue.source == "x.xml"
    assert (issue.line, issue.severity) == (3, Severity.ERROR)
    mixed = list(read_bytes(doc, with_issues=True))
    assert any(isinstance(e, Issue) for e in mixed)
    assert [e for e in mixed if not isinstance(e, Issue)] == EXPECTED[1:]


def test_base_url_resolves_relative_locs() -> None:
    doc = DOC.replace(b"https://example.com/a", b"/relative")
    result = read_bytes(doc, base_url="https://example.org/dir/sitemap.xml")
    entries = list(result)
    assert entries[0].loc == "https://example.org/relative"
    assert [i.code for i in result.issues] == ["resolved-url"]


def test_invalid_base_url_is_refused() -> None:
    with pytest.raises(ValueError):
        SitemapReader(base_url="not a url")


def test_sitemap_index() -> None:
    doc = (
        f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://example.com/s1.xml</loc>'
        "<lastmod>2024-01-01</lastmod></sitemap></sitemapindex>"
    ).encode()
    result = read_bytes(doc)
    assert list(result) == [SitemapRef._trusted("https://example.com/s1.xml", date(2024, 1, 1))]
    assert result.format == "sitemapindex"


def test_every_issue_code_is_in_the_table() -> None:
    for name, row in CODES.items():
        assert name == name.lower() and " " not in name
        assert isinstance(row.severity, Severity)
        assert row.title and row.hint

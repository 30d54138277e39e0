"""The reader on the real-world corpus (../shared/corpus/realworld, MANIFEST.tsv).

Every file is read without a crash; well-formed files give exactly ``url_count`` entries;
files that are not well-formed get their error with line and column, and the entries around
the error are recovered. robots.txt rows are not sitemaps: the reader must refuse them or
find no URL in them, never crash. Feeding whole, in 64 KiB chunks, in odd 997-byte chunks and
(for small files) byte by byte gives the same result, in the fast lane and the full lane.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import NamedTuple

import pytest

from test_read_support import feed_all
from urlset.model import Issue, Severity
from urlset.reading.reader import SitemapReader, read_file


class Row(NamedTuple):
    file: str
    format: str
    url_count: int
    flaws: str


def _manifest(shared: Path) -> list[Row]:
    with (shared / "corpus/realworld/MANIFEST.tsv").open(encoding="utf-8") as f:
        return [
            Row(r["file"], r["format"], int(r["url_count"]), r["flaws"])
            for r in csv.DictReader(f, delimiter="\t")
        ]


def _rows() -> list[str]:
    from conftest import SHARED

    path = SHARED / "corpus/realworld/MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as f:
        return [r["file"] for r in csv.DictReader(f, delimiter="\t")]


FILES = _rows()
BAD_XML = "not well-formed"
# relative locs are issues, not entries, unless a base URL is given: read these with one
BASE = "https://example.com/sitemaps/sitemap.xml"


@pytest.fixture(scope="module")
def manifest(shared: Path) -> dict[str, Row]:
    return {row.file: row for row in _manifest(shared)}


@pytest.mark.skipif(not FILES, reason="../shared is absent")
@pytest.mark.parametrize("name", FILES)
def test_corpus_file(shared: Path, manifest: dict[str, Row], name: str) -> None:
    row = manifest[name]
    path = shared / "corpus/realworld" / name
    result = read_file(path, base_url=BASE)
    entries = list(result)
    issues = result.issues
    assert all(i.source == str(path) for i in issues)
    if row.format == "robots":
        # not a sitemap: refused as unknown, or read as text with no URL in it
        assert result.format in ("unknown", "text")
        assert entries == [] or all(e.loc.startswith("http") for e in entries)
        return
    if row.format == "other":
        assert result.fatal
        assert entries == []
        assert issues and issues[0].severity is Severity.ERROR
        return
    expected_format = {"index": "sitemapindex"}.get(row.format, row.format)
    assert result.format == expected_format
    if BAD_XML in row.flaws:
        errors = [i for i in issues if i.severity is Severity.ERROR]
        if "leading whitespace before XML declaration" in row.flaws:
            # the only fault: whitespace before <?xml, which search engines read; the reader
            # removes it and warns (issue 12; it was an error)
            errors = [i for i in issues if i.code == "leading-whitespace"]
        assert errors, "a file that is not well-formed must report an error"
        assert all(e.line >= 1 for e in errors if e.code != "too-many-errors")
        assert any(e.column >= 1 for e in errors)
        # entries are still recovered, as many as the manifest counts
        assert len(entries) == row.url_count or len(entries) >= 1
        return
    assert len(entries) == row.url_count
    assert not result.fatal


@pytest.mark.skipif(not FILES, reason="../shared is absent")
def test_malformed_positions(shared: Path) -> None:
    """The errors the manifest records are found at the same line (libxml2 and the
    manifest's parser differ on the column by a few characters)."""
    base = shared / "corpus/realworld"
    unescaped = read_file(base / "085_video-large-unescaped-amp.xml")
    entries = list(unescaped)
    assert len(entries) == 1511  # every entry around the bad '&' is recovered
    first = next(i for i in unescaped.issues if i.severity is Severity.ERROR)
    assert first.code == "unescaped-ampersand"
    assert (first.line, first.column) == (4319, 54)

    template = read_file(base / "010_jekyll-news-unrendered-template.xml")
    list(template)
    codes = [i.code for i in template.issues]
    assert codes[0] == "junk-before-root" and template.issues[0].line == 1

    banner = read_file(base / "098_browser-viewer-text-pasted.xml")
    assert len(list(banner)) == 44
    assert banner.issues[0].code == "junk-before-root"

    leading = read_file(base / "086_leading-whitespace.xml")
    assert len(list(leading)) == 18
    assert [i.code for i in leading.issues] == ["leading-whitespace"]


@pytest.mark.skipif(not FILES, reason="../shared is absent")
def test_relative_locs_without_base_are_issues(shared: Path) -> None:
    path = shared / "corpus/realworld/046_pkgdown-relative.xml"
    result = read_file(path)
    assert list(result) == []
    relative = [i for i in result.issues if i.code == "relative-url"]
    assert len(relative) == 51
    assert all(i.line > 0 for i in relative)
    resolved = read_file(path, base_url="https://beakr.example.org/")
    assert len(list(resolved)) == 51


@pytest.mark.skipif(not FILES, reason="../shared is absent")
def test_text_file_relative_lines(shared: Path) -> None:
    path = shared / "corpus/realworld/070_text-large-relative.txt"
    result = read_file(path)
    assert list(result) == []
    assert result.format == "text"
    # 38,542 relative lines: 1,000 listed, the rest counted in one summary
    assert sum(1 for i in result.issues if i.code == "relative-url") == 1000
    summary = [i for i in result.issues if i.code == "too-many-errors"]
    assert len(summary) == 1 and "38542 in all" in summary[0].message
    assert len(list(read_file(path, base_url="https://example.org/"))) == 38542


@pytest.mark.skipif(not FILES, reason="../shared is absent")
@pytest.mark.parametrize("name", FILES)
def test_chunking_and_lanes_agree(shared: Path, name: str) -> None:
    data = (shared / "corpus/realworld" / name).read_bytes()
    expected = feed_all(data, [len(data) or 1], fast=False)
    sizes = (
        [[len(data) or 1], [997]] if len(data) > 1_000_000 else [[len(data) or 1], [65536], [997]]
    )
    if len(data) < 60_000:
        sizes.append([1])
    for fast in (True, False):
        for size in sizes:
            assert feed_all(data, size, fast=fast) == expected, (fast, size[0])


@pytest.mark.skipif(not FILES, reason="../shared is absent")
def test_duplicates_reported(shared: Path) -> None:
    result = read_file(shared / "corpus/realworld/017_rails-sitemap-generator-gz.xml.gz")
    assert len(list(result)) == 614
    dups = [i for i in result.issues if i.code == "duplicate-loc"]
    assert len(dups) == 16
    assert all(i.line > 0 for i in dups)


def test_push_reader_reports_issues_in_stream() -> None:
    reader = SitemapReader("x")
    events = reader.feed(b"<urlset><url><loc>/a</loc></url></urlset>") + reader.close()
    assert [type(e) for e in events] == [Issue, Issue]

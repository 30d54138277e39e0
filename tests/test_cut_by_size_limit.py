"""A sitemap cut by the reader's size limit (``ReadLimits.max_decompressed_bytes``): the
reader reads what came before the cut, and check judges the bytes the reader read, gzipped
or not.

Each test failed before: an uncompressed file's byte rules read on past the cut (an element
out of order after it was reported, its entries were not) while a gzipped copy's stopped at
it; an element or a line cut in two by the limit was judged (``<las>`` an unknown element,
``'h'`` a header line); the reader did not vouch for the records it read before a cut, so
check scanned them all again; a text sitemap with CR line ends cut before the format was
known read no entry at all.
"""

from __future__ import annotations

import gzip
from datetime import UTC, datetime

import pytest

from urlset.checking.document import CheckOptions, check_document
from urlset.limits import ReadLimits
from urlset.reading.reader import SitemapReader

NOW = datetime(2026, 11, 29, tzinfo=UTC)
HEAD = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)


def _doc(n: int = 400, *, swap: dict[bytes, bytes] | None = None) -> bytes:
    rows = [
        b"<url><loc>https://www.shop.test/p/%d</loc><lastmod>2024-01-01</lastmod></url>\n" % i
        for i in range(n)
    ]
    doc = HEAD + b"".join(rows) + b"</urlset>\n"
    for old, new in (swap or {}).items():
        assert old in doc
        doc = doc.replace(old, new, 1)
    return doc


def _findings(data: bytes, cap: int) -> list[tuple[str, str, int]]:
    options = CheckOptions(read_limits=ReadLimits(max_decompressed_bytes=cap), now=NOW)
    result = check_document(data, options, source="cut.xml")
    return [(i.code, i.message, i.line) for i in result.issues]


DOCS = {
    "canonical": _doc(),
    # out of order after the cut, which the reader never reads
    "late element order": _doc(
        swap={
            b"<url><loc>https://www.shop.test/p/390</loc><lastmod>2024-01-01</lastmod>": (
                b"<url><lastmod>2024-01-01</lastmod><loc>https://www.shop.test/p/390</loc>"
            )
        }
    ),
    # an unknown element and a loc with a space before the cut: found either way
    "early findings": _doc(
        swap={
            b"<url><loc>https://www.shop.test/p/7</loc>": b"<url><foo/><loc>https://www.shop.test/p/7</loc>",
            b"/p/9</loc>": b"/p/9 x</loc>",
        }
    ),
}


@pytest.mark.parametrize("name", list(DOCS))
def test_a_cut_sitemap_gets_the_same_findings_gzipped_or_not(name: str) -> None:
    """Caps that cut every byte of an entry's middle (inside tags, texts, between
    elements): the plain file and its gzipped copy give the same findings, none on a line
    past the cut, and no element cut in two is reported."""
    doc = DOCS[name]
    at = doc.index(b"<url><loc>https://www.shop.test/p/200</loc>")
    packed = gzip.compress(doc, 6)
    cut_line = doc.count(b"\n", 0, at) + 1
    for cap in range(at, at + 80, 3):
        plain = _findings(doc, cap)
        assert plain == _findings(packed, cap), cap
        codes = {code for code, _, _ in plain}
        assert "decompressed-size-limit" in codes
        assert all(line <= cut_line for _, _, line in plain), (cap, plain)
        unknown = [m for code, m, _ in plain if code == "unknown-element"]
        assert unknown == (
            ["<foo> is not an element of the protocol"] if name == "early findings" else []
        )
        if name == "early findings":
            assert "url-not-escaped" in codes


def test_the_reader_vouches_for_the_canonical_records_before_a_cut() -> None:
    """What the fast lane read before the limit is proven as a whole document's records are
    (then check reads none of its bytes again); a record it could not prove still is not."""
    for doc, proven in ((DOCS["canonical"], True), (DOCS["early findings"], False)):
        cap = doc.index(b"<url><loc>https://www.shop.test/p/200</loc>") + 17
        reader = SitemapReader(limits=ReadLimits(max_decompressed_bytes=cap))
        events = reader.feed(doc) + reader.close()
        assert any(getattr(e, "code", "") == "decompressed-size-limit" for e in events)
        assert reader.plain_records is proven
        assert reader.plain_structure is proven


def test_an_index_cut_by_the_limit_is_judged_to_its_last_whole_entry() -> None:
    rows = b"".join(
        b"<sitemap><loc>https://www.shop.test/s%d.xml</loc></sitemap>\n" % i for i in range(300)
    )
    doc = HEAD.replace(b"urlset", b"sitemapindex") + rows + b"</sitemapindex>\n"
    at = doc.index(b"<sitemap><loc>https://www.shop.test/s150.xml")
    clean = [code for code, _, _ in _findings(doc, at)]  # cut between two entries
    assert "decompressed-size-limit" in clean
    for cap in range(at, at + 60, 2):  # cut inside the entry after them
        found = _findings(doc, cap)
        assert found == _findings(gzip.compress(doc), cap)
        assert [code for code, _, _ in found] == clean, cap


@pytest.mark.parametrize("newline", [b"\n", b"\r\n", b"\r"])
def test_a_text_sitemap_cut_by_the_limit_is_judged_to_its_last_whole_line(newline: bytes) -> None:
    """A line cut in two by the limit was judged as a line ("'h' looks like a header")."""
    lines = [b"https://www.shop.com/p/%d" % i for i in range(3000)]
    lines[5] += b" x"  # before the cut: still found
    doc = newline.join(lines) + newline
    at = doc.index(b"https://www.shop.com/p/1500")
    clean = _findings(doc, at)
    assert {code for code, _, _ in clean} >= {"decompressed-size-limit", "url-not-escaped"}
    for cap in range(at, at + 30, 1):
        found = _findings(doc, cap)
        assert found == _findings(gzip.compress(doc), cap)
        assert [(c, line) for c, _, line in found] == [(c, line) for c, _, line in clean], cap


def test_a_text_sitemap_cut_before_its_format_is_known_reads_its_lines() -> None:
    lines = [b"https://www.shop.com/p/%d" % i for i in range(3000)]
    doc = b"\r".join(lines) + b"\r"  # no LF: the format is known at 64 KiB, or at the end
    cap = doc.index(b"https://www.shop.com/p/1500") + 10
    reader = SitemapReader(limits=ReadLimits(max_decompressed_bytes=cap))
    events = reader.feed(doc) + reader.close()
    assert reader.format == "text"
    assert [e.loc for e in events if hasattr(e, "loc")] == [line.decode() for line in lines[:1500]]

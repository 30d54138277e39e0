"""Where check places a finding about an entry whose loc is not written as its URI (an IRI,
an IDN host, a loc around spaces or with entities, a relative one): found a window at a
time among the ``<loc>`` texts (``positions._LocTexts``), at the place the whole-document
lxml walk (``positions._Locator``) gives, which stays for what that scan does not read."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from urlset.checking import positions
from urlset.checking.checker import CheckOptions, check_document
from urlset.model import Issue

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NOW = datetime(2026, 1, 1, tzinfo=UTC)

# the first URL on a second host, as it may be written (each a loc whose URI differs)
SPELLINGS = {
    "IRI path": ("https://example.org:44300/café/menü-2", None),
    "IDN host": ("https://bücher.example/search?q=it&apos;s&amp;page=3", None),
    "upper-case host": ("https://Shop.Example.NET/a", None),
    "default port": ("https://example.net:443/a", None),
    "around spaces": ("\n      https://example.net/a\n    ", None),
    "entities": ("https://example.net/&#x61;&#98;?x=it&apos;s", None),
    "relative": ("/relative/page", "https://example.net/"),
    "space in path": ("https://example.net/a b", None),
}


def _doc(second: str, *, one_line: bool = False) -> bytes:
    rows = [
        "<url><loc>https://www.urlset-shop.com/a</loc></url>",
        f"<url>\n    <loc>{second}</loc>\n    <lastmod>2025-01-01</lastmod>\n  </url>",
        "<url><loc>https://www.urlset-shop.com/b</loc></url>",
    ]
    body = "".join(rows) if one_line else "\n  ".join(rows)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n  {body}\n</urlset>\n'
    ).encode()


def _host_findings(doc: bytes, base_url: str | None) -> list[Issue]:
    result = check_document(doc, CheckOptions(now=NOW, base_url=base_url), "doc")
    codes = ("mixed-hosts", "url-not-allowed", "placeholder-host")
    # the second entry's loc is on line 5 (the others, on line 3 and 6, are plain)
    return [i for i in result.issues if i.code in codes and i.line not in (3, 6)]


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_loc_not_written_as_its_uri_is_placed_where_the_lxml_walk_places_it(
    spelling: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    second, base_url = SPELLINGS[spelling]
    doc = _doc(second)
    scanned = _host_findings(doc, base_url)
    assert scanned, "the second host gives a finding"
    assert all(issue.line == 5 and issue.column == 10 for issue in scanned), scanned
    # the old way, the whole document walked by lxml, gives the same places
    monkeypatch.setattr(positions, "_SITEMAPS", ())
    assert _host_findings(doc, base_url) == scanned


def test_the_iri_is_found_at_its_entry_without_reading_every_loc(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def walked(*args: object) -> None:
        raise AssertionError("every loc read for a position")

    monkeypatch.setattr(positions, "_Locator", walked)
    monkeypatch.setattr(positions, "_LocTexts", walked)
    issues = _host_findings(_doc(SPELLINGS["IRI path"][0]), None)
    assert [(i.code, i.line, i.column) for i in issues] == [
        ("placeholder-host", 5, 10),
        ("mixed-hosts", 5, 10),
    ]


def test_an_entry_the_reader_dropped_before_it_does_not_misplace_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = _doc(SPELLINGS["IRI path"][0]).replace(
        b"<url><loc>https://www.urlset-shop.com/a</loc></url>",
        b"<url><loc>https://www.urlset-shop.com/a</loc></url><url><lastmod>2025-01-01</lastmod></url>",
    )
    issues = _host_findings(doc, None)
    assert [(i.code, i.line, i.column) for i in issues] == [
        ("placeholder-host", 5, 10),
        ("mixed-hosts", 5, 10),
    ]


def test_on_one_line_the_iri_is_placed_at_its_own_entry() -> None:
    # (the lxml walk placed it at the line's first loc)
    doc = (
        f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">'
        "<url><loc>https://www.urlset-shop.com/a</loc></url>"
        "<url><loc>https://example.org/café</loc></url></urlset>\n"
    ).encode()
    result = check_document(doc, CheckOptions(now=NOW), "doc")
    column = doc.index(b"https://example.org/") - doc.index(b"\n") - 1 + 1
    places = {(i.code, i.line, i.column) for i in result.issues if i.code != "normalized-url"}
    assert places == {("placeholder-host", 2, column), ("mixed-hosts", 2, column)}


@pytest.mark.parametrize(
    "written",
    [
        "<loc><![CDATA[https://example.org/café]]></loc>",
        '<sm:loc xmlns:sm="' + NS + '">https://example.org/café</sm:loc>',
    ],
)
def test_a_loc_the_scan_does_not_read_is_found_by_the_walk(written: str) -> None:
    doc = _doc("x").replace(b"<loc>x</loc>", written.encode())
    assert written.encode() in doc
    issues = _host_findings(doc, None)
    assert [(i.code, i.line) for i in issues] == [("placeholder-host", 5), ("mixed-hosts", 5)]

"""ReadLimits.max_entries holds at any value, in every lane, not only from the protocol's
50,000 on (the sink's slow bookkeeping used to run first at 50,000 entries)."""

from __future__ import annotations

import pytest

from urlset.limits import ReadLimits
from urlset.model import Issue, SitemapRef, Url
from urlset.reading.reader import read_bytes

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
URL = "<url><loc>https://example.com/p/{0}</loc><lastmod>2024-01-02</lastmod></url>\n"
REF = "<sitemap><loc>https://example.com/s{0}.xml</loc></sitemap>\n"


def _doc(root: str, entry: str, n: int, *, careful: bool = False) -> bytes:
    # a comment between entries sends the rest through the careful (lxml) lane
    body = "".join(entry.format(i) + ("<!-- c -->\n" if careful else "") for i in range(n))
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} xmlns="{NS}">\n{body}</{root}>\n'.encode()
    )


@pytest.mark.parametrize("careful", [False, True])
@pytest.mark.parametrize(
    ("root", "entry", "kind"), [("urlset", URL, Url), ("sitemapindex", REF, SitemapRef)]
)
@pytest.mark.parametrize("limit", [1, 10, 49_999])
def test_the_entry_limit_stops_reading_at_its_value(
    careful: bool, root: str, entry: str, kind: type, limit: int
) -> None:
    _stops_at(_doc(root, entry, limit + 5, careful=careful), limit, kind)


@pytest.mark.parametrize("limit", [1, 10, 49_999])
def test_the_entry_limit_holds_for_text_sitemaps(limit: int) -> None:
    _stops_at(
        "".join(f"https://example.com/p/{i}\n" for i in range(limit + 5)).encode(), limit, Url
    )


def _stops_at(data: bytes, limit: int, kind: type) -> None:
    result = read_bytes(data, limits=ReadLimits(max_entries=limit), with_issues=False)
    entries = list(result)
    assert len(entries) == limit
    assert all(type(e) is kind for e in entries)
    codes = [i.code for i in result.issues]
    assert codes.count("entry-limit") == 1
    assert not {"too-many-urls", "too-many-sitemaps"} & set(codes)


def test_below_the_limit_nothing_is_reported() -> None:
    result = read_bytes(_doc("urlset", URL, 10), limits=ReadLimits(max_entries=10))
    assert len(list(result)) == 10
    assert result.issues == []


@pytest.mark.parametrize("careful", [False, True])
@pytest.mark.parametrize("sep", ["\n", ""], ids=["lines", "one line"])
def test_nothing_is_said_of_the_entry_refused(careful: bool, sep: str) -> None:
    """The entry the limit refuses is judged before it is refused (its unknown element, its
    loc made a URI): none of that is reported; what is said of the entries passed on, the
    last one's duplicate loc too, is."""
    rows = [URL.format(i).strip() for i in range(12)]
    rows[9] = URL.format(3).strip()  # the limit's last entry: a duplicate
    rows[10] = rows[10].replace("<url>", "<url><foo/>").replace("</loc>", " x</loc>")
    body = sep.join(row + ("<!-- c -->" if careful else "") for row in rows)
    doc = f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">{sep}{body}{sep}</urlset>\n'
    result = read_bytes(doc.encode(), limits=ReadLimits(max_entries=10))
    assert len(list(result)) == 10
    assert sorted(i.code for i in result.issues) == ["duplicate-loc", "entry-limit"]
    assert result.entry_stop == (2 if not sep else 13, "https://example.com/p/10%20x")


def test_what_follows_the_last_entry_is_said_when_none_is_refused() -> None:
    doc = _doc("urlset", URL, 10).replace(b"</urlset>", b"<foo/></urlset>")
    result = read_bytes(doc, limits=ReadLimits(max_entries=10))
    assert len(list(result)) == 10
    assert [i.code for i in result.issues] == ["unknown-element"]
    assert result.entry_stop is None


@pytest.mark.parametrize("limit", [1_500, 2_999, 3_000, 100_000])
def test_issues_past_their_cap_count_alike_in_both_lanes(limit: int) -> None:
    """Lenient lastmods, invalid changefreqs and padded values by the thousand (past the
    sink's 1,000 listed of a code), a host finding and duplicates that send runs one entry
    at a time, and the entry limit inside a run: the compiled lane lists the same issues and
    counts the same totals per code as the careful lane, though its scanner lists no note
    past a code's room (``UrlsetScanner.note_room``)."""
    from urlset.reading.reader import SitemapReader

    entries = []
    for i in range(3_000):
        lastmod = "2024-01-02 10:00:00" if i % 3 else "2024-01-02"
        freq = "<changefreq>sometimes</changefreq>" if i % 4 == 0 else ""
        loc = f"https://example.com/p/{i if i % 97 else i - 1}"
        if i == 1_700:
            loc = "https://localhost/p/dev"  # a development host: a finding, due at once
        entries.append(
            f"<url><loc> {loc} </loc><lastmod>{lastmod}</lastmod>{freq}</url>\n"
            if i % 5 == 0
            else f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod>{freq}</url>\n"
        )
    doc = f'<?xml version="1.0"?>\n<urlset xmlns="{NS}">\n{"".join(entries)}</urlset>\n'.encode()

    def read(fast: bool) -> tuple[int, list[tuple[int, str, str]], dict[str, int]]:
        reader = SitemapReader("doc", limits=ReadLimits(max_entries=limit), _fast=fast)
        events = [*reader.feed(doc[:70_001]), *reader.feed(doc[70_001:]), *reader.close()]
        issues = [(e.line, e.code, e.message) for e in events if type(e) is Issue]
        return sum(type(e) is Url for e in events), issues, dict(reader._sink.per_code)

    fast, careful = read(True), read(False)
    assert fast == careful
    assert fast[2]["lenient-lastmod"] >= 1_000 and fast[2]["whitespace-in-value"] > 250

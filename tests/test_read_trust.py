"""Issue 12, "Read: recover what is there, say what was wrong": each test failed on the code
before its fix.

* an unclosed entry followed by more entries ends where the next one starts;
* lenient where search engines are: lower-case t/z in a datetime, a BOM and whitespace
  before <?xml, relative locs and hreflang hrefs in a document whose URL is known;
* invalid UTF-8 in a loc never becomes an invented URL;
* a host that is clearly not production is reported once per host;
* the fast lane takes ports of any length.

The damaged-gzip property is in test_read_gzip_damage.py.
"""

from __future__ import annotations

from test_read_support import feed_all, urlset
from urlset.reading.reader import SitemapReader, read_bytes
from urlset.reading.sink import fast_uri
from urlset.reading.xml_records import _plain_locs

# --- the fast lane takes ports of any length -----------------------------------------------


def test_a_five_digit_port_stays_in_the_fast_lane() -> None:
    """A port of 10000-65535 once sent every record to the per-record checks (50,000 URLs
    in 2-3 s instead of 0.07 s): the fast lane's host pattern allowed four digits only."""
    locs = [f"https://example.com:44300/p{i}" for i in range(50)]
    doc = urlset(*(f"<url><loc>{loc}</loc></url>" for loc in locs))
    reader = SitemapReader()
    events = reader.feed(doc) + reader.close()
    assert [e.loc for e in events] == locs  # type: ignore[union-attr]
    assert reader.plain_records  # no record needed the XML parser
    assert _plain_locs(locs, "\n".join(locs))
    assert feed_all(doc, [len(doc)], fast=True) == feed_all(doc, [len(doc)], fast=False)


def test_ports_beyond_the_range_or_with_leading_zeros_are_left_to_the_full_checks() -> None:
    for port in ("65535", "10000", "1", "9999"):
        assert fast_uri(f"https://example.com:{port}/")
    for port in ("65536", "99999", "100000", "01234", "0", "443", "80"):
        assert not fast_uri(f"https://example.com:{port}/")
    result = read_bytes(urlset("<url><loc>https://example.com:65536/</loc></url>"))
    assert list(result) == []
    assert [i.code for i in result.issues] == ["invalid-url"]


# --- invalid UTF-8 in a loc ------------------------------------------------------------------


def test_invalid_utf8_in_a_loc_is_reported_and_skipped_not_invented() -> None:
    """libxml2 reads bytes that are not UTF-8 as U+FFFD; the loc once became
    https://example.com/b%EF%BF%BD%EF%BF%BD( , a URL no one published."""
    doc = urlset(
        "<url><loc>https://example.com/a</loc></url>",
        "<url><loc>https://example.com/b@@(</loc></url>",
        "<url><loc>https://example.com/c</loc></url>",
    ).replace(b"@@", b"\xff\xfe")
    assert b"\xff\xfe(" in doc
    for sizes in ([len(doc)], [7], [1]):
        for fast in (True, False):
            entries, issues, fmt, fatal = feed_all(doc, sizes, fast=fast)
            assert [e.loc for e in entries] == ["https://example.com/a", "https://example.com/c"]
            assert sorted((i.code, i.line) for i in issues) == [
                ("invalid-encoding", 4),
                ("invalid-url", 4),
            ]
            assert any("not UTF-8" in i.message for i in issues if i.code == "invalid-url")
            assert fmt == "urlset" and not fatal

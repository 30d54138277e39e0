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

from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from lxml import etree

from test_read_support import NS, feed_all, urlset
from urlset import _core
from urlset.extensions import Alternate
from urlset.model import SitemapRef
from urlset.reading.reader import SitemapReader, read_bytes
from urlset.reading.sink import fast_uri
from urlset.writing.document import SitemapDocument

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
    assert all(_core.plain_loc(loc.encode()) for loc in locs)
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


# --- an entry left open ------------------------------------------------------------------------


def _all_ways(doc: bytes, **kw: str) -> tuple[list[str], list[tuple[str, int]]]:
    """Entries and (code, line) of the issues, the same fed whole, in small chunks, byte by
    byte, by either lane."""
    whole = feed_all(doc, [len(doc)], fast=False, **kw)
    for sizes in ([len(doc)], [7], [1], [4096]):
        for fast in (True, False):
            assert feed_all(doc, sizes, fast=fast, **kw) == whole
    return [e.loc for e in whole[0]], [(i.code, i.line) for i in whole[1]]


def test_an_unclosed_url_ends_where_the_next_url_starts() -> None:
    """The URLs after an unclosed <url> were once swallowed as raw extensions of it (and a
    build from the result published <url> inside <url>)."""
    doc = urlset(
        "<url><loc>https://example.com/a</loc><lastmod>2024-01-01</lastmod>",
        "<url><loc>https://example.com/b</loc></url>",
        "<url><loc>https://example.com/c</loc></url>",
    )
    locs, issues = _all_ways(doc)
    assert locs == ["https://example.com/a", "https://example.com/b", "https://example.com/c"]
    assert ("nested-entry", 4) in issues
    assert "unknown-element" not in {code for code, _ in issues}
    entries = list(read_bytes(doc))
    assert all(not e.extensions for e in entries)  # type: ignore[union-attr]
    assert entries[0].lastmod == date(2024, 1, 1)
    # and the round trip publishes three flat <url> records
    out: list[bytes] = []
    writer = SitemapDocument(out.append, max_urls=100, max_bytes=1 << 20)
    writer.add(entries)  # type: ignore[arg-type]
    writer.close()
    root = etree.fromstring(b"".join(out))
    assert [len(u.findall(f"{{{NS}}}url")) for u in root] == [0, 0, 0]


def test_an_unclosed_sitemap_in_an_index_ends_where_the_next_starts() -> None:
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'
        "<sitemap><loc>https://example.com/s1.xml</loc>\n"
        "<sitemap><loc>https://example.com/s2.xml</loc><lastmod>2024-01-01</lastmod></sitemap>\n"
        "<sitemap><loc>https://example.com/s3.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    ).encode()
    locs, issues = _all_ways(doc)
    assert locs == [f"https://example.com/s{i}.xml" for i in (1, 2, 3)]
    assert ("nested-entry", 4) in issues
    assert all(type(e) is SitemapRef for e in read_bytes(doc))


def test_nested_urls_each_unclosed_one_reported_once() -> None:
    """<url> inside <url> inside <url>: each open one ends where the next starts; what
    follows a nested entry inside the outer one is reported, not lost silently."""
    doc = urlset(
        "<url><loc>https://example.com/a</loc>",
        "<url><loc>https://example.com/b</loc>",
        "<url><loc>https://example.com/c</loc></url>",
        "<priority>0.5</priority></url>",
        "<url><loc>https://example.com/d</loc></url></url>",
    )
    locs, issues = _all_ways(doc)
    assert locs == [f"https://example.com/{x}" for x in "abcd"]
    assert [line for code, line in issues if code == "nested-entry"] == [4, 5]
    assert ("misplaced-element", 6) in issues  # a protocol element, out of its entry


def test_an_unclosed_url_at_the_end_of_a_cut_document() -> None:
    """Cut inside the nested entry: the outer one was ended by it and is kept; the nested
    one is cut and reported as such."""
    doc = urlset("<url><loc>https://example.com/a</loc>", "<url><loc>https://example.com/b</loc>")
    doc = doc[: doc.rindex(b"</urlset>")]
    locs, issues = _all_ways(doc)
    assert locs == ["https://example.com/a"]
    codes = [code for code, _ in issues]
    assert "nested-entry" in codes and "truncated-entry" in codes


def test_an_unclosed_url_with_extensions_before_the_next() -> None:
    doc = urlset(
        "<url><loc>https://example.com/a</loc>"
        "<image:image><image:loc>https://example.com/i.png</image:loc></image:image>",
        "<url><loc>https://example.com/b</loc></url>",
        head="",
    ).replace(
        b"<urlset ", b'<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    )
    locs, issues = _all_ways(doc)
    assert locs == ["https://example.com/a", "https://example.com/b"]
    first = next(iter(read_bytes(doc)))
    assert len(first.extensions) == 1  # type: ignore[union-attr]
    assert ("nested-entry", 4) in issues


# --- lenient where search engines are lenient ------------------------------------------------


def test_lower_case_t_and_z_in_a_datetime_are_read_with_a_warning() -> None:
    """'2024-01-02t03:04:05z' was an invalid-lastmod error and the value was dropped."""
    doc = urlset(
        "<url><loc>https://example.com/a</loc><lastmod>2024-01-02t03:04:05z</lastmod></url>",
        "<url><loc>https://example.com/b</loc><lastmod>2024-01-02t03:04:05+01:00</lastmod></url>",
        "<url><loc>https://example.com/c</loc><lastmod>2024-01-02x03:04:05Z</lastmod></url>",
    )
    _, issues = _all_ways(doc)
    entries = list(read_bytes(doc))
    assert entries[0].lastmod == datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert entries[1].lastmod == datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone(timedelta(hours=1)))
    assert entries[2].lastmod is None  # any other letter is still unreadable
    assert issues == [("lenient-lastmod", 3), ("lenient-lastmod", 4), ("invalid-lastmod", 5)]
    result = read_bytes(doc)
    list(result)
    # read leniently, and an error as a check says (the protocol's W3C Datetime is a must):
    # one severity for one problem, whichever command reports it
    assert {i.severity for i in result.issues if i.line in (3, 4)} == {"error"}


@pytest.mark.parametrize("before", ["\n", "\ufeff\n  ", " \n\ufeff", "\ufeff\ufeff", "\n\ufeff \n"])
def test_a_bom_and_whitespace_before_the_declaration_are_a_warning(before: str) -> None:
    """Whitespace before <?xml was an error, and a byte order mark inside it made the whole
    start junk-before-root (an error): search engines read both."""
    doc = (
        before + urlset("<url><loc>https://example.com/a?x=1&amp;y=2</loc></url>").decode()
    ).encode()
    locs, issues = _all_ways(doc)
    assert locs == ["https://example.com/a?x=1&y=2"]
    assert [code for code, _ in issues] == ["leading-whitespace"]
    result = read_bytes(doc)
    list(result)
    assert [i.severity for i in result.issues] == ["warning"]
    assert result.issues[0].line == 1 + before.count("\n")


def test_a_bom_inside_leading_whitespace_before_the_root() -> None:
    doc = (
        b"\n\xef\xbb\xbf<urlset xmlns='"
        + NS.encode()
        + b"'><url><loc>https://example.com/a</loc></url></urlset>"
    )
    locs, issues = _all_ways(doc)
    assert locs == ["https://example.com/a"]
    assert [code for code, _ in issues] == ["leading-whitespace"]


def test_relative_locs_resolve_against_the_documents_url() -> None:
    """With the document's URL (base_url: the sitemap's URL when fetched, --base-url for a
    file) a relative loc is resolved, reported as a warning, and counted as an entry."""
    doc = urlset(
        "<url><loc>/a</loc></url>",
        "<url><loc>b.html</loc></url>",
        "<url><loc>//cdn.example.org/c</loc></url>",
        "<url><loc>https://example.com/d</loc></url>",
    )
    base = "https://example.com/dir/sitemap.xml"
    locs, issues = _all_ways(doc, base_url=base)
    assert locs == [
        "https://example.com/a",
        "https://example.com/dir/b.html",
        "https://cdn.example.org/c",
        "https://example.com/d",
    ]
    assert issues == [("resolved-url", 3), ("resolved-url", 4), ("resolved-url", 5)]
    result = read_bytes(doc, base_url=base)
    assert len(list(result)) == 4 and {i.severity for i in result.issues} == {"warning"}
    # without the document's URL they cannot be resolved: errors, no entries
    assert [e.loc for e in read_bytes(doc)] == ["https://example.com/d"]


def test_relative_hreflang_hrefs_resolve_against_the_documents_url() -> None:
    """A relative href of <xhtml:link> was kept raw with an invalid-alternate error even
    when the document's URL was known."""
    doc = urlset(
        '<url><loc>https://example.com/a</loc>\n<xhtml:link rel="alternate" hreflang="de" '
        'href="/de/a"/>\n<xhtml:link rel="alternate" hreflang="en" href="https://example.com/a"/>'
        "</url>",
    ).replace(b"<urlset ", b'<urlset xmlns:xhtml="http://www.w3.org/1999/xhtml" ')
    base = "https://example.com/sitemap.xml"
    _, issues = _all_ways(doc, base_url=base)
    assert issues == [("resolved-url", 4)]
    (entry,) = list(read_bytes(doc, base_url=base))
    assert entry.extensions == (  # type: ignore[union-attr]
        Alternate("de", "https://example.com/de/a"),
        Alternate("en", "https://example.com/a"),
    )
    # unknown base: reported as before, kept raw (nothing is invented)
    _, issues = _all_ways(doc)
    assert issues == [("invalid-alternate", 4)]


def test_cli_read_base_url_resolves_relative_locs(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from urlset.cli import main

    path = tmp_path / "sitemap.xml"
    path.write_bytes(urlset("<url><loc>/a</loc></url>", "<url><loc>/b</loc></url>"))
    runner = CliRunner()
    done = runner.invoke(
        main, ["read", str(path), "--format", "locs", "--base-url", "https://example.com/"]
    )
    assert done.exit_code == 0, done.output
    assert done.stdout.splitlines() == ["https://example.com/a", "https://example.com/b"]
    bare = runner.invoke(main, ["read", str(path), "--format", "locs"])
    assert bare.exit_code == 1 and bare.stdout == ""


# --- a host that is clearly not production ---------------------------------------------------


def test_a_dev_host_is_reported_once_per_host_at_its_first_entry() -> None:
    doc = urlset(
        "<url><loc>https://example.com/a</loc></url>",
        *(f"<url><loc>http://localhost:4000/{i}</loc></url>" for i in range(5)),
        "<url><loc>http://192.168.1.4/x</loc><lastmod>2024-01-01</lastmod></url>",
        "<url><loc>http://localhost:3000/other-port</loc></url>",
        "<url><loc>https://intranet/a</loc><priority>0.5</priority></url>",
        "<url><loc>http://192.168.1.4/y</loc></url>",
    )
    locs, issues = _all_ways(doc)
    assert len(locs) == 10
    assert issues == [("dev-host", 4), ("dev-host", 9), ("dev-host", 11)]
    result = read_bytes(doc)
    list(result)
    assert [i.severity for i in result.issues] == ["warning"] * 3
    assert "localhost" in result.issues[0].message


def test_dev_hosts_in_an_index_and_a_text_sitemap() -> None:
    index = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'
        "<sitemap><loc>http://localhost:1313/en/sitemap.xml</loc></sitemap>\n"
        "<sitemap><loc>http://localhost:1313/fr/sitemap.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    ).encode()
    assert _all_ways(index)[1] == [("dev-host", 3)]
    text = b"https://example.com/a\nhttp://my-app.test/b\nhttp://my-app.test/c\n"
    assert _all_ways(text)[1] == [("dev-host", 2)]


def test_the_fast_lane_judges_a_host_once_per_origin(monkeypatch: pytest.MonkeyPatch) -> None:
    """50,000 URLs on one host cost one call of non_production_host, not 50,000."""
    from urlset.reading import sink as sink_module

    calls: list[str] = []
    original = sink_module.non_production_host

    def counting(host: str) -> str | None:
        calls.append(host)
        return original(host)

    monkeypatch.setattr(sink_module, "non_production_host", counting)
    doc = urlset(*(f"<url><loc>https://www.example.org/p{i}</loc></url>" for i in range(50_000)))
    reader = SitemapReader()
    count = sum(1 for _ in reader.feed(doc) + reader.close())
    assert count == 50_000 and reader.plain_records
    assert calls == ["www.example.org"]
    # several origins in a block: one call each
    calls.clear()
    mixed = urlset(*(f"<url><loc>https://h{i % 3}.example.org/p{i}</loc></url>" for i in range(99)))
    assert sum(1 for _ in read_bytes(mixed)) == 99
    assert sorted(calls) == ["h0.example.org", "h1.example.org", "h2.example.org"]


def test_the_checker_and_the_reader_judge_dev_hosts_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    """One finding per host (the checker's, with its count of URLs and position), never the
    reader's and the checker's both; both ask ``urls.non_production_host``."""
    from urlset.checking import entries as entries_module
    from urlset.checking.checker import check_bytes
    from urlset.reading import sink as sink_module

    doc = urlset(*(f"<url><loc>http://localhost:3000/{n}</loc></url>" for n in range(3)))
    hits = [i for i in check_bytes(doc).issues if i.code == "dev-host"]
    assert len(hits) == 1 and "3 URLs" in hits[0].message
    assert (hits[0].line, hits[0].column) == (3, 11)

    # one judgement: a host the shared rule calls not production is what both report
    def judged(host: str) -> str | None:
        return "staging" if host == "staging.example.org" else None

    monkeypatch.setattr(sink_module, "non_production_host", judged)
    monkeypatch.setattr(entries_module, "non_production_host", judged)
    doc = urlset("<url><loc>https://staging.example.org/a</loc></url>")
    hits = [i for i in check_bytes(doc).issues if i.code == "dev-host"]
    assert [(i.message, i.line) for i in hits] == [("staging", 3)]
    read = read_bytes(doc)
    list(read)
    assert [(i.message, i.line) for i in read.issues if i.code == "dev-host"] == [("staging", 3)]


def test_dev_hosts_behind_a_bracket_or_user_info() -> None:
    doc = urlset(
        "<url><loc>http://[::1]:8080/a</loc></url>",
        "<url><loc>http://user@localhost/b</loc></url>",
        "<url><loc>https://www.example.org/c</loc></url>",
    )
    assert _all_ways(doc)[1] == [("dev-host", 3), ("dev-host", 4), ("url-userinfo", 4)]

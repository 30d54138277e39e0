"""Cases of other sitemap readers, reproduced in our own words and code.

Sources: ../shared/corpus/peers/*/CASES.md and PROVENANCE.md (crawler-commons, Scrapy,
advertools, ultimate-sitemap-parser). Inline documents are written here from the case
descriptions; data files are read from ../shared. Where urlset deliberately behaves
differently, the test says ``DIFFERS:`` and why. The common reasons:

* urlset's reader never drops or guesses silently: what a peer ignores, fixes or throws on,
  urlset reads as far as it sensibly can and reports as an Issue with a code and a position.
* a DOCTYPE is refused in every mode (no entity can expand, no file can be read).
* the last entry of a truncated document is not passed on as if whole.
* location rules (scope of a sitemap's URLs) belong to the checker, not the reader.
"""

from __future__ import annotations

import gzip
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path

from urlset.limits import ReadLimits
from urlset.model import ChangeFreq, Issue, Severity, SitemapRef, Url
from urlset.reading.reader import ReadResult, read_bytes, read_file

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def read(data: bytes | str, **kw: object) -> tuple[list[Url | SitemapRef], ReadResult]:
    raw = data.encode() if isinstance(data, str) else data
    result = read_bytes(raw, **kw)  # type: ignore[arg-type]
    return list(result), result


def codes(result: ReadResult) -> list[str]:
    return [i.code for i in result.issues]


def locs(entries: list[Url | SitemapRef]) -> list[str]:
    return [e.loc for e in entries]


# ---------------------------------------------------------------------------------------
# crawler-commons (SiteMapParserTest, SiteMapParserExtensionTest, probes)

FIVE = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{NS}">
<url><loc>http://www.example.com/</loc><lastmod>2005-01-01</lastmod>
<changefreq>monthly</changefreq><priority>0.8</priority></url>
<url><loc>http://www.example.com/catalog?desc=vacation_hawaii&amp;item=12</loc>
<changefreq>weekly</changefreq></url>
<url><loc>http://www.example.com/catalog?desc=vacation_new_zealand&amp;item=73</loc>
<lastmod>2004-12-23</lastmod><changefreq>weekly</changefreq></url>
<url><loc>http://www.example.com/catalog?desc=vacation_newfoundland&amp;item=74</loc>
<lastmod>2004-12-23T18:00:15&#43;00:00</lastmod><priority>0.3</priority></url>
<url><loc>http://www.example.com/catalog?desc=vacation_usa&amp;item=83</loc>
<lastmod>2004-11-23</lastmod></url>
</urlset>
"""
FIVE_EXPECTED = [
    Url("http://www.example.com/", "2005-01-01", "monthly", 0.8),
    Url("http://www.example.com/catalog?desc=vacation_hawaii&item=12", None, "weekly"),
    Url("http://www.example.com/catalog?desc=vacation_new_zealand&item=73", "2004-12-23", "weekly"),
    Url(
        "http://www.example.com/catalog?desc=vacation_newfoundland&item=74",
        "2004-12-23T18:00:15+00:00",
        None,
        0.3,
    ),
    Url("http://www.example.com/catalog?desc=vacation_usa&item=83", "2004-11-23"),
]


def test_cc_index_with_cdata_charref_and_split_text() -> None:
    doc = f"""<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="{NS}">
<sitemap><loc>http://www.example.com/sitemap1.xml.gz</loc>
<lastmod><![CDATA[2004-10-01T18:23:17+00:00]]></lastmod></sitemap>
<sitemap><loc>http://www.example.com/sitemap2.xml.gz</loc><lastmod>2005-01-01</lastmod></sitemap>
<sitemap><loc>http://www.example.com/dynsitemap?date=now&amp;all=true</loc>
<lastmod>2004-10-01T18:23:17&#43;00:00</lastmod></sitemap>
<sitemap><loc>http://www.example.com/dynsitemap<![CDATA[?date=lastyear&all=false]]></loc></sitemap>
</sitemapindex>"""
    entries, result = read(doc)
    assert result.format == "sitemapindex"
    assert entries == [
        SitemapRef("http://www.example.com/sitemap1.xml.gz", "2004-10-01T18:23:17Z"),
        SitemapRef("http://www.example.com/sitemap2.xml.gz", date(2005, 1, 1)),
        SitemapRef("http://www.example.com/dynsitemap?date=now&all=true", "2004-10-01T18:23:17Z"),
        SitemapRef("http://www.example.com/dynsitemap?date=lastyear&all=false"),
    ]
    assert result.issues == []


def test_cc_xxe_doctype_refused(shared: Path) -> None:
    canary = shared / "corpus/peers/crawler-commons/sitemaps/do-not-visit.txt"
    doc = f"""<?xml version="1.0"?>
<!DOCTYPE urlset [<!ENTITY test SYSTEM "file://{canary}">]>
<urlset xmlns="{NS}"><url><loc>http://www.example.com/visit-here</loc></url>
<url><loc>&test;</loc></url></urlset>"""
    entries, result = read(doc)
    # DIFFERS (mode): crawler-commons can be told to allow DTDs; urlset has no such mode
    assert entries == [] and result.fatal
    assert codes(result) == ["doctype-refused"]
    assert result.issues[0].line == 2


def test_cc_xinclude_not_performed(shared: Path) -> None:
    canary = shared / "corpus/peers/crawler-commons/sitemaps/do-not-visit.txt"
    doc = f"""<urlset xmlns="{NS}" xmlns:xi="http://www.w3.org/2001/XInclude">
<url><loc>http://www.example.com/visit-here</loc></url>
<url><loc><xi:include href="file://{canary}" parse="text"/></loc></url></urlset>"""
    entries, result = read(doc)
    assert locs(entries) == ["http://www.example.com/visit-here"]
    assert "do-not-visit-here" not in repr(entries)
    assert {"unexpected-child", "missing-loc"} <= set(codes(result))


def test_cc_prefixed_namespace(shared: Path) -> None:
    entries, result = read(
        (shared / "corpus/peers/crawler-commons/sitemaps/sitemap.ns.xml").read_bytes()
    )
    assert len(entries) == 2
    assert isinstance(entries[0], Url) and entries[0].changefreq is ChangeFreq.DAILY
    assert "prefixed-elements" in codes(result)
    assert not [i for i in result.issues if i.severity is Severity.ERROR]


def test_cc_wrong_namespace_read_and_reported(shared: Path) -> None:
    entries, result = read(
        (shared / "corpus/peers/crawler-commons/sitemaps/sitemap.badns.xml").read_bytes()
    )
    # DIFFERS (strict-namespace mode): urlset always reads it and reports the namespace
    assert entries == [
        Url("http://www.example.com/1", None, "daily"),
        Url("http://www.example.com/2", None, "daily"),
    ]
    assert codes(result).count("wrong-namespace") == 1
    assert codes(result).count("whitespace-in-value") == 2


def test_cc_plain_text_whatever_the_name(shared: Path) -> None:
    text = "http://www.example.com/catalog?item=1\nhttp://www.example.com/catalog?item=11\n"
    entries, result = read(text, source="sitemap.xml")
    assert result.format == "text"
    assert locs(entries) == [
        "http://www.example.com/catalog?item=1",
        "http://www.example.com/catalog?item=11",
    ]
    for name in ("sitemap.txt", "sitemap-with-bom.txt"):
        found, res = read((shared / "corpus/peers/crawler-commons/sitemaps" / name).read_bytes())
        assert res.format == "text" and found and not res.issues


def test_cc_text_without_scheme_is_not_guessed() -> None:
    text = "www.example.com/catalog?item=1\nhttp://www.example.com/catalog?item=11#anchor\n"
    entries, result = read(text)
    # DIFFERS: crawler-commons' URL filter adds "http://"; urlset does not guess a scheme
    assert locs(entries) == ["http://www.example.com/catalog?item=11"]
    assert codes(result) == ["relative-url", "normalized-url"]  # the fragment was dropped


def test_cc_basic_five_urls() -> None:
    entries, result = read(FIVE)
    assert entries == FIVE_EXPECTED
    assert result.issues == []


def test_cc_bom_and_whitespace_before_declaration() -> None:
    entries, result = read(b"\xef\xbb\xbf\n \t\r\n" + FIVE.encode())
    assert entries == FIVE_EXPECTED
    # DIFFERS: crawler-commons is silent; it is not well-formed XML, so urlset says so
    assert codes(result) == ["leading-whitespace"]


def test_cc_broken_xml_is_recovered() -> None:
    doc = f"""<urlset xmlns="{NS}">
<url><!-- nothing here --></url>
<url><loc> http://cs.harding.edu/fmccown/sitemaps/something.html</loc></url>
</url>
</urlset>"""
    entries, result = read(doc)
    # DIFFERS: crawler-commons throws; urlset keeps the good entry and reports the rest
    assert locs(entries) == ["http://cs.harding.edu/fmccown/sitemaps/something.html"]
    found = codes(result)
    assert "missing-loc" in found and "not-well-formed" in found
    bad = next(i for i in result.issues if i.code == "not-well-formed")
    assert bad.line == 4 and bad.column > 0
    assert not result.fatal


def test_cc_index_urls_without_loc(shared: Path) -> None:
    entries, result = read(
        (shared / "corpus/peers/crawler-commons/sitemaps/sitemap.index.xml").read_bytes()
    )
    assert len(entries) == 15
    assert SitemapRef("https://example.com/sitemap.jss?portalCode=10260&lang=en") in entries
    assert codes(result).count("loc-as-text") == 15


def test_cc_repeated_loc_starts_a_new_entry() -> None:
    doc = """<sitemapindex><sitemap><loc>https://www.example.org/sitemap1.xml</loc>
<loc>https://www.example.org/sitemap2.xml</loc></sitemap></sitemapindex>"""
    entries, result = read(doc)
    assert locs(entries) == [
        "https://www.example.org/sitemap1.xml",
        "https://www.example.org/sitemap2.xml",
    ]
    doc = """<sitemapindex><sitemap><loc>https://www.example.org/sitemap1.xml</loc>
<lastmod>2020-01-01</lastmod><loc>https://www.example.org/sitemap2.xml</loc>
<loc>https://www.example.org/sitemap3.xml</loc><lastmod>2020-03-03</lastmod>
</sitemap></sitemapindex>"""
    entries, result = read(doc)
    assert entries == [
        SitemapRef("https://www.example.org/sitemap1.xml", "2020-01-01"),
        SitemapRef("https://www.example.org/sitemap2.xml"),
        SitemapRef("https://www.example.org/sitemap3.xml", "2020-03-03"),
    ]
    assert codes(result).count("repeated-element") == 2
    assert "missing-namespace" in codes(result)


def test_cc_unicode_whitespace_stripped() -> None:
    doc = """<sitemapindex><sitemap><loc><![CDATA[
  https://www.example.com/sitemap1.xml ]]></loc></sitemap>
<sitemap><loc><![CDATA[\u00a0https://www.example.com/sitemap2.xml\u2000]]></loc></sitemap>
</sitemapindex>"""
    entries, _ = read(doc)
    assert locs(entries) == [
        "https://www.example.com/sitemap1.xml",
        "https://www.example.com/sitemap2.xml",
    ]


def test_cc_gzip_by_content(shared: Path) -> None:
    base = shared / "corpus/peers/crawler-commons/sitemaps"
    xml = list(read_file(base / "xmlSitemap.gz"))
    assert len(xml) == 5 and all(isinstance(e, Url) for e in xml)
    text = read_file(base / "sitemap.txt.gz")
    assert len(list(text)) == 5 and text.format == "text"


def test_cc_garbage_is_fatal() -> None:
    entries, result = read(b"this is a bogus sitemap")
    assert entries == [] and result.fatal
    assert codes(result) == ["unknown-format"]


def test_cc_location_scope_is_not_the_readers_business() -> None:
    doc = f'<urlset xmlns="{NS}"><url><loc>http://www.example.com/</loc></url></urlset>'
    # DIFFERS: crawler-commons (strict) drops URLs outside the sitemap's directory silently;
    # urlset's reader passes them on and the checker reports the scope rule
    entries, result = read(doc, base_url="http://www.example.com/subsection/sitemap.xml")
    assert locs(entries) == ["http://www.example.com/"]
    assert result.issues == []


def test_cc_atom(shared: Path) -> None:
    result = read_file(shared / "corpus/peers/crawler-commons/sitemaps/atom.xml")
    assert list(result) == [
        Url("http://example.org/2003/12/13/atom03", datetime(2003, 12, 13, 18, 30, 2, tzinfo=UTC))
    ]
    assert result.format == "atom"
    assert result.issues == []


def test_cc_rss(shared: Path) -> None:
    result = read_file(shared / "corpus/peers/crawler-commons/rss/feed.rss")
    entries = list(result)
    assert result.format == "rss"
    assert locs(entries) == [
        "https://www.example.com/blog/post/1",
        "https://www.example.com/guid.html",
        "https://www.example.com/foo?q=a&l=en",
        "https://www.example.com/foo?q=a&l=fr",
    ]
    first = entries[0]
    assert first.lastmod == datetime(2009, 9, 6, 16, 20, tzinfo=UTC)


def test_cc_rss1_rdf() -> None:
    doc = """<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/">
<channel rdf:about="http://www.example.com/"><title>x</title><link>http://www.example.com/</link>
<items><rdf:Seq><rdf:li resource="http://www.example.com/pub/2000/08/09/xslt/xslt.html"/></rdf:Seq></items>
</channel>
<image rdf:about="http://www.example.com/i.gif"><link>http://www.example.com/</link></image>
<item rdf:about="http://www.example.com/pub/2000/08/09/xslt/xslt.html">
<title>XSLT</title><link>http://www.example.com/pub/2000/08/09/xslt/xslt.html</link></item>
</rdf:RDF>"""
    entries, result = read(doc)
    assert result.format == "rss"
    assert locs(entries) == ["http://www.example.com/pub/2000/08/09/xslt/xslt.html"]


def test_cc_rss_pubdate_variants(shared: Path) -> None:
    result = read_file(shared / "corpus/peers/crawler-commons/rss/xmlRss_pubDate.xml")
    entries = list(result)
    assert locs(entries) == [f"http://www.example.com/article_{i}" for i in range(1, 8)]
    base = datetime(2017, 1, 5, 12, 34, 50, tzinfo=UTC)
    got = [e.lastmod for e in entries]
    assert got[:4] == [base + timedelta(seconds=s) for s in (1, 2, 3, 4)]
    assert got[4:] == [None, None, None]
    # no zone and empty dates are reported; a missing date is simply absent
    assert codes(result).count("invalid-pubdate") == 2


def test_cc_truncated_entry_not_passed_on() -> None:
    doc = f'<urlset xmlns="{NS}"><url><loc>http://www.example.com/</lo'
    entries, result = read(doc)
    # DIFFERS: crawler-commons (allowPartial) returns the cut URL; urlset does not pass on
    # an entry whose end it never saw, and says so
    assert entries == []
    assert "truncated-entry" in codes(result)
    doc = f"""<sitemapindex xmlns="{NS}"><sitemap><loc>http://www.example.com/sitemap0.xml</loc>
</sitemap><sitemap><loc>http://www.example.com/sitemap1.xml.gz</loc><las"""
    entries, result = read(doc)
    assert locs(entries) == ["http://www.example.com/sitemap0.xml"]
    assert "truncated-entry" in codes(result)


def test_cc_nested_url_in_loc() -> None:
    doc = f"""<urlset xmlns="{NS}"><url><loc><url><![CDATA[http://jobs.optistaffing.com/x?id=1]]></url></loc>
<lastmod>2015-04-28</lastmod><changefreq>daily</changefreq></url></urlset>"""
    entries, result = read(doc)
    assert entries == [Url("http://jobs.optistaffing.com/x?id=1", "2015-04-28", "daily")]
    assert codes(result) == ["unexpected-child"]


def test_cc_value_probes() -> None:
    def one(inner: str) -> tuple[Url, list[str]]:
        entries, result = read(
            f'<urlset xmlns="{NS}"><url><loc>http://www.example.com/</loc>{inner}</url></urlset>'
        )
        assert len(entries) == 1
        entry = entries[0]
        assert isinstance(entry, Url)
        return entry, codes(result)

    # DIFFERS: crawler-commons drops a padded date; urlset strips it and warns
    url, found = one("<lastmod> 2005-01-01 </lastmod>")
    assert url.lastmod == date(2005, 1, 1) and found == ["whitespace-in-value"]
    # DIFFERS: a time without zone is read as UTC and reported (crawler-commons: null)
    url, found = one("<lastmod>2005-01-01T10:30:00</lastmod>")
    assert url.lastmod == datetime(2005, 1, 1, 10, 30, tzinfo=UTC)
    assert found == ["lenient-lastmod"]
    url, found = one("<lastmod>2005-01-01T10:30+01:00</lastmod>")
    assert url.lastmod == datetime(2005, 1, 1, 9, 30, tzinfo=UTC) and found == []
    # DIFFERS: crawler-commons clamps 2005-02-30 to 02-28; urlset refuses a day that is not
    url, found = one("<lastmod>2005-02-30</lastmod>")
    assert url.lastmod is None and found == ["invalid-lastmod"]
    # DIFFERS: crawler-commons reads "biweekly" as weekly by substring; urlset drops it
    url, found = one("<changefreq>biweekly</changefreq>")
    assert url.changefreq is None and found == ["invalid-changefreq"]
    url, found = one("<changefreq> Daily </changefreq>")
    assert url.changefreq is ChangeFreq.DAILY
    assert sorted(found) == ["changefreq-case", "whitespace-in-value"]
    # DIFFERS: an invalid priority is absent (None), not replaced by the default 0.5
    url, found = one("<priority>2</priority>")
    assert url.priority is None and found == ["invalid-priority"]
    url, found = one("<priority>high</priority>")
    assert url.priority is None and found == ["invalid-priority"]
    url, found = one("<priority> 0.8 </priority>")
    assert url.priority == 0.8 and found == ["whitespace-in-value"]


def test_cc_probe_documents() -> None:
    entries, result = read(f'<urlset xmlns="{NS}"/>')
    assert entries == [] and result.issues == [] and result.format == "urlset"
    entries, result = read("<foo><bar/></foo>")
    assert result.fatal and codes(result) == ["unknown-root"]
    # DIFFERS: crawler-commons finds a urlset nested in HTML; urlset refuses an HTML page
    entries, result = read(
        f'<html><body><urlset xmlns="{NS}"><url><loc>http://a.example/</loc></url></urlset>'
        "</body></html>"
    )
    assert entries == [] and result.fatal and codes(result) == ["html-page"]
    # DIFFERS: crawler-commons fails on a form feed before <?xml; urlset skips it, reports it
    entries, result = read(b"\x0c" + FIVE.encode())
    assert entries == FIVE_EXPECTED and codes(result) == ["junk-before-root"]
    # DIFFERS: crawler-commons decodes ISO-8859-1 bytes as UTF-8; urlset honours the declaration
    latin = (
        '<?xml version="1.0" encoding="ISO-8859-1"?>'
        f'<urlset xmlns="{NS}"><url><loc>http://www.example.com/caf\u00e9</loc></url></urlset>'
    ).encode("latin-1")
    entries, result = read(latin)
    assert locs(entries) == ["http://www.example.com/caf%C3%A9"]
    assert sorted(codes(result)) == ["non-utf8-encoding", "normalized-url"]
    # index entries on another host are fine for the reader
    entries, _ = read(
        f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://other.example/s.xml</loc>'
        "</sitemap></sitemapindex>"
    )
    assert locs(entries) == ["https://other.example/s.xml"]


def test_cc_more_than_50000_entries() -> None:
    records = "".join(f"<url><loc>http://www.example.com/{i}</loc></url>\n" for i in range(50_005))
    entries, result = read(f'<urlset xmlns="{NS}">\n{records}</urlset>')
    assert len(entries) == 50_005  # all of them (crawler-commons cuts text files at 50,000)
    assert codes(result) == ["too-many-urls"]
    text = "".join(f"http://www.example.com/{i}\n" for i in range(50_005))
    entries, result = read(text)
    assert len(entries) == 50_005 and codes(result) == ["too-many-urls"]


def test_cc_text_with_junk_lines() -> None:
    text = (
        "http://www.example.com/ok\n\nnot a url\nftp://www.example.com/file\n"
        "http://other.example.org/fine\n"
    )
    entries, result = read(text)
    # DIFFERS: crawler-commons skips junk silently (and drops other hosts); urlset reports
    assert locs(entries) == ["http://www.example.com/ok", "http://other.example.org/fine"]
    assert [(i.code, i.line) for i in result.issues] == [("relative-url", 3), ("invalid-url", 4)]


def test_cc_truncated_gzip_keeps_what_was_decoded() -> None:
    records = "".join(f"<url><loc>http://www.example.com/{i}</loc></url>\n" for i in range(2000))
    data = gzip.compress(f'<urlset xmlns="{NS}">\n{records}</urlset>'.encode())
    entries, result = read(data[: len(data) // 2])
    assert 100 < len(entries) < 2000
    assert locs(entries) == [f"http://www.example.com/{i}" for i in range(len(entries))]
    assert "gzip-truncated" in codes(result)
    assert not result.fatal


def test_cc_billion_laughs_refused() -> None:
    doc = """<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">]>
<urlset><url><loc>&lol2;</loc></url></urlset>"""
    entries, result = read(doc)
    assert entries == [] and result.fatal and codes(result) == ["doctype-refused"]


EXTENSION_COUNTS = {
    "sitemap-videos.xml": (3, "http://www.google.com/schemas/sitemap-video/1.1", "video"),
    "sitemap-videos-tvshow.xml": (1, "http://www.google.com/schemas/sitemap-video/1.1", "video"),
    "sitemap-images.xml": (1, "http://www.google.com/schemas/sitemap-image/1.1", "image"),
    "sitemap-links.xml": (3, "http://www.w3.org/1999/xhtml", "link"),
    "sitemap-news.xml": (2, "http://www.google.com/schemas/sitemap-news/0.9", "news"),
    "sitemap-mobile.xml": (3, "http://www.google.com/schemas/sitemap-mobile/1.0", "mobile"),
    "shinpaideshou-news-sitemap.xml": (3, "http://www.google.com/schemas/sitemap-news/0.9", "news"),
    "hebdenbridgetimes-articles-sitemap.xml": (74, "", ""),
    "pagemaps-sitemap.xml": (2, "http://www.google.com/schemas/sitemap-pagemap/1.0", "PageMap"),
}


def test_cc_extension_files_keep_their_extensions(shared: Path) -> None:
    from lxml import etree

    base = shared / "corpus/peers/crawler-commons/sitemaps/extension"
    for name, (count, ns, local) in EXTENSION_COUNTS.items():
        result = read_file(base / name)
        entries = list(result)
        assert len(entries) == count, name
        errors = [i for i in result.issues if i.severity is Severity.ERROR]
        # DIFFERS: crawler-commons reads a news entry with an empty publication name; urlset
        # reports it (a publication has a name) and keeps the element raw, losing nothing. (A
        # video price "1,99" is optional: the video is read without it, with a warning.)
        stricter = {"sitemap-news.xml": {"invalid-news"}}
        assert {i.code for i in errors} == stricter.get(name, set()), name
        raws = [x for e in entries if isinstance(e, Url) for x in e.extensions]
        for raw in raws:  # typed or raw, each serialisation stands alone with its declarations
            el = etree.fromstring(raw.xml.encode())
            assert el.tag == f"{{{raw.namespace}}}{raw.name}"
        if ns:
            assert any(x.namespace == ns and x.name == local for x in raws), name
    links = list(read_file(base / "sitemap-links.xml"))
    assert all(len(e.extensions) == 3 for e in links if isinstance(e, Url))
    tvshow = list(read_file(base / "sitemap-videos-tvshow.xml"))
    assert tvshow[0].loc.startswith("https://example.org/")  # <loc> after the video block


def test_cc_unknown_news_access_is_kept_raw() -> None:
    doc = f"""<urlset xmlns="{NS}" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
<url><loc>http://www.example.org/a</loc><news:news><news:access>Free</news:access></news:news></url>
</urlset>"""
    entries, result = read(doc)
    # DIFFERS: crawler-commons throws IllegalArgumentException on "Free"; urlset reports the
    # news element (it also lacks the required <news:publication>), keeps it raw, and goes on
    assert len(entries) == 1 and [i.code for i in result.issues] == ["invalid-news"]
    raw = entries[0].extensions[0]  # type: ignore[union-attr]
    assert raw.name == "news" and "<news:access>Free</news:access>" in raw.xml


# ---------------------------------------------------------------------------------------
# Scrapy (utils.sitemap.Sitemap, SitemapSpider, utils.gz)


def test_scrapy_basic_urlset_and_index() -> None:
    entries, result = read(
        f"""<urlset xmlns="{NS}"><url><loc>http://www.example.com/</loc>
<lastmod>2009-08-16</lastmod><changefreq>daily</changefreq><priority>1</priority></url>
<url><loc>http://www.example.com/Special-Offers.html</loc><lastmod>2009-08-16</lastmod>
<changefreq>weekly</changefreq><priority>0.8</priority></url></urlset>"""
    )
    assert result.format == "urlset" and result.issues == []
    assert entries[1] == Url(
        "http://www.example.com/Special-Offers.html", "2009-08-16", "weekly", 0.8
    )
    entries, result = read(
        f"""<sitemapindex xmlns="{NS}"><sitemap><loc>http://www.example.com/sitemap1.xml.gz</loc>
<lastmod>2004-10-01T18:23:17+00:00</lastmod></sitemap><sitemap>
<loc>http://www.example.com/sitemap2.xml.gz</loc><lastmod>2005-01-01</lastmod></sitemap></sitemapindex>"""
    )
    assert result.format == "sitemapindex" and len(entries) == 2


def test_scrapy_strip_and_empty_lastmod() -> None:
    entries, result = read(
        f"""<urlset xmlns="{NS}"><url><loc> http://www.example.com/</loc><lastmod />
</url></urlset>"""
    )
    # DIFFERS: Scrapy yields lastmod "" (a string); urlset has no value and says why
    assert entries == [Url("http://www.example.com/")]
    assert sorted(codes(result)) == ["invalid-lastmod", "whitespace-in-value"]


def test_scrapy_old_and_no_namespace() -> None:
    old = """<urlset xmlns="http://www.google.com/schemas/sitemap/0.84">
<url xmlns=""><loc>http://www.example.com/</loc></url></urlset>"""
    entries, result = read(old)
    assert locs(entries) == ["http://www.example.com/"] and codes(result) == ["wrong-namespace"]
    none = '<urlset><url xmlns=""><loc>http://www.example.com/</loc></url></urlset>'
    entries, result = read(none)
    assert locs(entries) == ["http://www.example.com/"] and codes(result) == ["missing-namespace"]


def test_scrapy_blank_lines_and_comments() -> None:
    doc = f"""

<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="{NS}"><!-- one --><sitemap><loc>http://www.example.com/a.xml</loc></sitemap>
<!-- two --><sitemap><loc>http://www.example.com/b.xml</loc></sitemap>
<sitemap><!-- three --><loc>http://www.example.com/c.xml</loc></sitemap></sitemapindex>"""
    entries, result = read(doc)
    assert len(entries) == 3
    assert codes(result) == ["leading-whitespace"]
    assert result.issues[0].line == 3


def test_scrapy_alternates_kept_in_order() -> None:
    doc = f"""<urlset xmlns="{NS}" xmlns:xhtml="http://www.w3.org/1999/xhtml"><url>
<loc>http://www.example.com/english/</loc>
<xhtml:link rel="alternate" hreflang="de" href="http://www.example.com/deutsch/"/>
<xhtml:link rel="alternate" hreflang="de-ch" href="http://www.example.com/schweiz-deutsch/"/>
<xhtml:link rel="alternate" hreflang="en"/>
</url></urlset>"""
    entries, _result = read(doc)
    raws = entries[0].extensions  # type: ignore[union-attr]
    assert [r.name for r in raws] == ["link", "link", "link"]
    assert 'hreflang="de-ch"' in raws[1].xml.lower()  # typed: written in canonical case, de-CH
    assert raws[0].xml.startswith("<xhtml:link xmlns:xhtml=")
    assert f'xmlns="{NS}"' not in raws[0].xml  # only the declarations it needs


def test_scrapy_xxe_refused() -> None:
    doc = """<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE foo [<!ELEMENT foo ANY><!ENTITY xxe SYSTEM "file:///etc/passwd">]>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
<url><loc>http://127.0.0.1:8000/&xxe;</loc></url></urlset>"""
    entries, result = read(doc)
    # DIFFERS: Scrapy parses on with the entity unresolved; urlset refuses any DOCTYPE
    assert entries == [] and result.fatal and "root:" not in repr(result.issues)


def test_scrapy_undefined_entity_node() -> None:
    entries, result = read(f'<urlset xmlns="{NS}"><url>&k;</url></urlset>')
    assert entries == []
    assert set(codes(result)) <= {"undefined-entity", "missing-loc", "not-well-formed"}
    assert "undefined-entity" in codes(result)


def test_scrapy_bodies() -> None:
    _, result = read(b"")
    assert result.fatal and codes(result) == ["empty-document"]
    _entries, result = read(b"<some><thing/></some>")
    assert result.fatal and codes(result) == ["unknown-root"]
    plain = FIVE.encode()
    assert read(gzip.compress(plain))[0] == read(plain)[0] == FIVE_EXPECTED


def test_scrapy_gzip_bomb_and_limit(shared: Path) -> None:
    bomb = shared / "corpus/peers/scrapy/tests/sample_data/compressed/bomb-gzip.bin"
    # 28 KB inflating to 11.5 MB of bytes that are no sitemap: refused at once, whatever
    # the limit; with a limit below the first piece, the limit speaks first
    result = read_file(bomb, limits=ReadLimits(max_decompressed_bytes=10_000_000))
    assert list(result) == [] and result.fatal
    assert codes(result) == ["unknown-format"]
    tiny = read_file(bomb, limits=ReadLimits(max_decompressed_bytes=1000))
    assert list(tiny) == [] and tiny.fatal
    assert codes(tiny) == ["decompressed-size-limit"]


def test_scrapy_gzip_samples(shared: Path) -> None:
    base = shared / "corpus/peers/scrapy/tests/sample_data/compressed"
    plain = read_file(base / "feed-sample1.xml")
    zipped = read_file(base / "feed-sample1.xml.gz")
    assert list(plain) == list(zipped)
    assert plain.format == zipped.format
    for name in ("truncated-crc-error.gz", "truncated-crc-error-short.gz"):
        result = read_file(base / name)
        list(result)
        found = codes(result)
        assert "gzip-truncated" in found or "gzip-corrupt" in found or result.fatal, name
        assert all(i.source.endswith(name) for i in result.issues)


# ---------------------------------------------------------------------------------------
# advertools (sitemap_to_df)


def test_advertools_files(shared: Path) -> None:
    base = shared / "corpus/peers/advertools/tests/data/sitemap_testing"
    regular = list(read_file(base / "regular_sitemap.xml"))
    assert len(regular) == 5
    assert len(list(read_file(base / "regular_sitemap.xml.gz"))) == 5  # not gzipped at all
    assert len(list(read_file(base / "zipped_sitemap.xml.gz"))) == 5
    index = read_file(base / "sitemap_index.xml")
    assert len(list(index)) == 4 and index.format == "sitemapindex"
    images = list(read_file(base / "image_sitemap.xml"))
    assert len(images) == 2
    assert sum(1 for e in images for x in e.extensions if x.name == "image") == 4  # type: ignore[union-attr]
    assert len(list(read_file(base / "video_sitemap.xml"))) == 6
    assert len(list(read_file(base / "news_sitemap.xml"))) == 6


def test_advertools_error_sitemap(shared: Path) -> None:
    result = read_file(
        shared / "corpus/peers/advertools/tests/data/sitemap_testing/error_sitemap.xml"
    )
    list(result)
    # DIFFERS: advertools raises; urlset reports the error with its place and goes on
    errors = [i for i in result.issues if i.severity is Severity.ERROR]
    assert errors and errors[0].line > 0


def test_advertools_docs_index_bad_date(shared: Path) -> None:
    result = read_file(
        shared / "corpus/peers/advertools/docs/_static/sitemap_testing/sitemap_index.xml"
    )
    entries = list(result)
    assert len(entries) >= 5
    assert "invalid-lastmod" in codes(result)


# ---------------------------------------------------------------------------------------
# ultimate-sitemap-parser (described cases; its documents are inline in its tests)

USP = "http://test_ultimate-sitemap-parser.com"


def _usp_urlset(n: int, *, close: bool = True, cut_last: bool = False) -> str:
    body = "".join(f"<url><loc>{USP}/page_{i}.html</loc></url>\n" for i in range(n))
    if cut_last:
        body += f"<url><loc>{USP}/page_{n}.ht"
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}' + (
        "</urlset>\n" if close else ""
    )


def test_usp_bom() -> None:
    entries, result = read(b"\xef\xbb\xbf" + _usp_urlset(1).encode())
    assert len(entries) == 1 and result.issues == []


def test_usp_missing_closing_tag_keeps_all() -> None:
    entries, result = read(_usp_urlset(50, close=False))
    assert len(entries) == 50
    assert "truncated" in codes(result)


def test_usp_cut_inside_loc() -> None:
    entries, result = read(_usp_urlset(49, close=False, cut_last=True))
    assert len(entries) == 49 and entries[-1].loc.endswith("page_48.html")
    assert "truncated-entry" in codes(result)


def test_usp_no_namespace_and_unknown_tag() -> None:
    doc = f"<urlset><url><loc>{USP}/a</loc><random_tag>x</random_tag></url></urlset>"
    entries, result = read(doc)
    assert locs(entries) == [f"{USP}/a"]
    assert codes(result) == ["missing-namespace", "unknown-element"]
    # the unknown element is kept with the entry, so nothing is lost
    assert entries[0].extensions[0].name == "random_tag"  # type: ignore[union-attr]


def test_usp_invalid_changefreq_and_priority() -> None:
    doc = f"""<urlset xmlns="{NS}"><url><loc>{USP}/a</loc><changefreq>sometimes</changefreq>
<priority>1.5</priority></url></urlset>"""
    entries, result = read(doc)
    # DIFFERS: usp substitutes "always" and 0.5; urlset leaves the values out and reports them
    assert entries == [Url(f"{USP}/a")]
    assert codes(result) == ["invalid-changefreq", "invalid-priority"]


def test_usp_feeds() -> None:
    rss = """<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<link>http://test.example/</link>
<item><title>A</title><link>http://test.example/a</link><pubDate>Tue, 10 Aug 2010 20:43:53 -0000</pubDate></item>
<item><title>B</title><link>http://test.example/b</link><pubDate>Tue, 10 Aug 2010 20:43:53 +0200</pubDate></item>
</channel></rss>"""
    entries, result = read(rss)
    assert result.format == "rss" and result.issues == []
    assert [e.lastmod for e in entries] == [
        datetime(2010, 8, 10, 20, 43, 53, tzinfo=UTC),
        datetime(2010, 8, 10, 20, 43, 53, tzinfo=timezone(timedelta(hours=2))),
    ]
    atom03 = """<?xml version="1.0"?><feed version="0.3" xmlns="http://purl.org/atom/ns#">
<title>t</title><link rel="alternate" type="text/html" href="http://test.example/"/>
<entry><title>A</title><link rel="alternate" type="text/html" href="http://test.example/a"/>
<modified>2010-08-10T20:43:53Z</modified></entry>
<entry><title>B</title><link rel="alternate" href="http://test.example/b"/>
<issued>2010-08-10T20:43:53Z</issued></entry></feed>"""
    entries, result = read(atom03)
    assert result.format == "atom" and result.issues == []
    assert locs(entries) == ["http://test.example/a", "http://test.example/b"]
    assert all(e.lastmod == datetime(2010, 8, 10, 20, 43, 53, tzinfo=UTC) for e in entries)
    atom10 = """<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>
<entry><title>A</title><link href="http://test.example/a"/><updated>2010-08-10T20:43:53.000Z</updated></entry>
<entry><title>B</title><link href="http://test.example/b"/><updated>2010-08-10T20:43:53Z</updated></entry>
</feed>"""
    entries, result = read(atom10)
    assert locs(entries) == ["http://test.example/a", "http://test.example/b"]
    for empty in (
        '<rss version="2.0"><channel><title>t</title></channel></rss>',
        '<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title></feed>',
    ):
        entries, result = read(empty)
        assert entries == [] and result.issues == [] and not result.fatal


def test_usp_huge_gzipped_sitemap_with_news_and_alternates() -> None:
    records = "".join(
        f"<url><loc>{USP}/news/{i}.html</loc>"
        f'<xhtml:link rel="alternate" hreflang="en" href="{USP}/en/news/{i}.html"/>'
        "<news:news><news:publication><news:name>Test &amp; co</news:name>"
        "<news:language>en</news:language></news:publication>"
        f"<news:publication_date>2020-01-01</news:publication_date><news:title>Title {i}"
        "</news:title></news:news></url>\n"
        for i in range(1000)
    )
    doc = (
        f'<urlset xmlns="{NS}" xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
        f'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n{records}</urlset>'
    )
    entries, result = read(gzip.compress(doc.encode()))
    assert len(entries) == 1000 and result.issues == []
    assert all(len(e.extensions) == 2 for e in entries)  # type: ignore[union-attr]
    assert "Test &amp; co" in entries[0].extensions[1].xml  # type: ignore[union-attr]


def test_usp_issues_are_values_not_logs() -> None:
    _, result = read("<urlset><url><loc>/a</loc></url></urlset>")
    assert all(isinstance(i, Issue) for i in result.issues)

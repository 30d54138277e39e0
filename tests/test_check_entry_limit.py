"""A sitemap stopped by the reader's entry limit (``ReadLimits.max_entries``): every pass of
check stops where the reader stopped, so no finding is about an entry the report says it
did not read.

Before, check's byte rules read on to the end: a raw '&' in the loc of an entry past the
limit (``unescaped-ampersand``), a loc not escaped, an element out of order or unknown, a
schema error, a text sitemap's line that is no URL were all reported past "stopped after N
entries"; the reader's own findings on the entry it refused (judged before it stops, by
its guard ahead of it) too; a text sitemap's line count went on to the end of the file;
and ``--schema`` of a document cut by a limit found nothing at all (no root end tag).
Each finding planted past the limit must change nothing; planted before it, it must be
found, so that each test can fail. Covered: a urlset and an index (on lines and on one line),
plain and gzipped, a text sitemap (LF, CR LF, CR), RSS and Atom (the reader's findings only).
"""

from __future__ import annotations

import gzip
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from urlset.checking.document import CheckOptions, check_document
from urlset.checking.report import CheckReport, FileResult
from urlset.checking.stops import stop_offset
from urlset.limits import Limits, ReadLimits

NOW = datetime(2026, 11, 29, tzinfo=UTC)
LIMIT = 50
N = 100
DECL = b'<?xml version="1.0" encoding="UTF-8"?>\n'
NS = b'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def _document(root: bytes, entry: bytes, locs: bytes, bad: int, kind: str, sep: bytes) -> bytes:
    """``N`` entries (``locs`` % their number), the ``bad``th of them flawed as ``kind`` says."""
    rows = []
    for i in range(1, N + 1):
        loc = locs % i
        row = b"<%s><loc>%s</loc><lastmod>2024-01-01</lastmod></%s>" % (entry, loc, entry)
        if i == bad:
            row = {
                "amp": row.replace(b"</loc>", b"?x=1&y=2</loc>"),
                "space": row.replace(b"</loc>", b" x</loc>"),
                "order": b"<%s><lastmod>2024-01-01</lastmod><loc>%s</loc></%s>"
                % (entry, loc, entry),
                "unknown": row.replace(b"<%s>" % entry, b"<%s><foo>1</foo>" % entry),
                "priority": row.replace(b"</%s>" % entry, b"<priority>7</priority></%s>" % entry),
                "iri": row.replace(b"</loc>", "/ü</loc>".encode()),
            }[kind]
        rows.append(row)
    head = DECL + b"<%s " % root + NS + b">"
    return head + sep + sep.join(rows) + sep + b"</%s>\n" % root


def _urlset(bad: int, kind: str, sep: bytes) -> bytes:
    return _document(b"urlset", b"url", b"https://www.shop.com/p/%d", bad, kind, sep)


def _index(bad: int, kind: str, sep: bytes) -> bytes:
    return _document(b"sitemapindex", b"sitemap", b"https://www.shop.com/s%d.xml", bad, kind, sep)


def _text(bad: int, kind: str, sep: bytes) -> bytes:
    lines = [b"https://www.shop.com/p/%d" % i for i in range(1, N + 1)]
    if bad:
        lines[bad - 1] = {"space": lines[bad - 1] + b" x", "word": b"hello world"}[kind]
    return sep.join(lines) + sep


def _rss(bad: int, kind: str, sep: bytes) -> bytes:
    items = [
        b"<item><link>https://www.shop.com/p/%d%s</link></item>" % (i, b" x" if i == bad else b"")
        for i in range(1, N + 1)
    ]
    head = DECL + b'<rss version="2.0"><channel><title>t</title>'
    return head + sep + sep.join(items) + sep + b"</channel></rss>\n"


def _atom(bad: int, kind: str, sep: bytes) -> bytes:
    entries = [
        b'<entry><link href="https://www.shop.com/p/%d%s"/></entry>'
        % (i, b" x" if i == bad else b"")
        for i in range(1, N + 1)
    ]
    head = DECL + b'<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>'
    return head + sep + sep.join(entries) + sep + b"</feed>\n"


Shape = Callable[[int, str, bytes], bytes]
# (shape, planted fault, the code it is found as, line ends, checked with --schema)
CASES: list[tuple[str, Shape, str, str, bytes, bool]] = [
    *(
        (f"urlset {kind} {layout}", _urlset, kind, code, sep, kind == "priority")
        for kind, code in (
            ("amp", "unescaped-ampersand"),
            ("space", "url-not-escaped"),
            ("order", "element-order"),
            ("unknown", "unknown-element"),
            ("priority", "schema-error"),
            ("iri", "normalized-url"),
        )
        for layout, sep in (("lines", b"\n"), ("one line", b""))
    ),
    *(
        (f"index {kind} {layout}", _index, kind, code, sep, False)
        for kind, code in (("amp", "unescaped-ampersand"), ("order", "element-order"))
        for layout, sep in (("lines", b"\n"), ("one line", b""))
    ),
    *(
        (f"text {kind} {name}", _text, kind, code, sep, False)
        for kind, code in (("space", "url-not-escaped"), ("word", "text-not-url"))
        for name, sep in (("LF", b"\n"), ("CR LF", b"\r\n"), ("CR", b"\r"))
    ),
    ("rss", _rss, "space", "url-not-escaped", b"\n", False),
    ("rss one line", _rss, "space", "url-not-escaped", b"", False),
    ("atom", _atom, "space", "url-not-escaped", b"\n", False),
]


def _check(data: bytes, *, schema: bool = False, limits: Limits | None = None) -> FileResult:
    options = CheckOptions(
        read_limits=ReadLimits(max_entries=LIMIT),
        now=NOW,
        schema=schema,
        **({"limits": limits} if limits is not None else {}),
    )
    return check_document(data, options, source="stopped.xml")


def _found(result: FileResult) -> list[tuple[str, str, int, int]]:
    return [(i.code, i.message, i.line, i.column) for i in result.issues]


@pytest.mark.parametrize("packed", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize(
    ("shape", "kind", "code", "sep", "schema"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_nothing_past_the_entry_limit_is_reported(
    shape: Shape, kind: str, code: str, sep: bytes, schema: bool, packed: bool
) -> None:
    """The fault planted in the entry the reader refused (the limit's next) or twenty past
    it changes nothing; planted in the 20th entry, it is found. (Before the line that is no
    URL, the refused entry, the reader reads it: that it is no URL is reported.)"""

    def check(bad: int) -> FileResult:
        doc = shape(bad, kind, sep)
        return _check(gzip.compress(doc) if packed else doc, schema=schema)

    clean = check(0)
    assert "entry-limit" in {i.code for i in clean.issues}
    assert clean.entries == LIMIT
    assert code not in {i.code for i in clean.issues}
    # (a line that is no URL is no entry: the one after it is the entry refused)
    for bad in (LIMIT + 1 + (kind == "word"), LIMIT + 20):
        assert _found(check(bad)) == _found(clean), bad
    assert code in {i.code for i in check(20).issues}


def test_the_reports_agree_on_a_stopped_sitemap() -> None:
    """The JSON and SARIF outputs list the same findings, and the summary counts them."""
    doc = _urlset(20, "amp", b"\n").replace(b"/p/70<", b"/p/70?a=1&b=2<")
    report = CheckReport([_check(doc)])
    listed = report.to_dict()["files"][0]["issues"]
    sarif = report.to_sarif()["runs"][0]["results"]
    assert [i["code"] for i in listed] == [r["ruleId"] for r in sarif]
    assert [max(i["line"], 1) for i in listed] == [
        r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in sarif
    ]
    assert [i["line"] for i in listed if i["code"] == "unescaped-ampersand"] == [22]
    summary = report.summary()
    assert summary["entries"] == LIMIT
    severities = [i["severity"] for i in listed]
    assert summary["errors"] == severities.count("error")
    assert summary["warnings"] == severities.count("warning")
    assert summary["infos"] == severities.count("info")


def test_a_text_sitemap_counts_its_lines_to_the_stop() -> None:
    """Its line count (the protocol's limit) is of the lines read, as an XML document's
    count is of its entries read."""
    small = Limits("small", max_urls=10)
    text = _check(_text(0, "", b"\n"), limits=small)
    xml = _check(_urlset(0, "", b"\n"), limits=small)
    assert [i.message for i in text.issues if i.code == "too-many-urls"] == [
        "50 lines; a text sitemap holds at most 10 URLs"
    ]
    assert [i.message for i in xml.issues if i.code == "too-many-urls"] == [
        "50 URLs; profile small allows 10 per sitemap"
    ]


def test_the_schema_judges_a_document_cut_by_the_size_limit() -> None:
    """A document cut by a limit has no root end tag: the schema found nothing in it."""
    doc = _urlset(20, "priority", b"\n")
    cap = doc.index(b"<url><loc>https://www.shop.com/p/60<")
    options = CheckOptions(read_limits=ReadLimits(max_decompressed_bytes=cap), schema=True)
    found = check_document(doc, options, source="cut.xml").issues
    assert [i.line for i in found if i.code == "schema-error"] == [22]


@pytest.mark.parametrize(
    ("written", "loc"),
    [
        (b"<loc>https://www.shop.com/p/51</loc>", "https://www.shop.com/p/51"),
        (b"<loc>\n  https://www.shop.com/p/51\n</loc>", "https://www.shop.com/p/51"),
        (b"<loc>https://www.shop.com/?a=1&amp;b=2</loc>", "https://www.shop.com/?a=1&b=2"),
        (b"<loc><![CDATA[https://www.shop.com/p/51]]></loc>", "https://www.shop.com/p/51"),
        ("<loc>https://bücher.de/ü</loc>".encode(), "https://xn--bcher-kva.de/%C3%BC"),
    ],
)
def test_the_stop_is_found_by_the_refused_loc_however_written(written: bytes, loc: str) -> None:
    """On one line, the refused entry is found by its loc; the stop is after the entry
    before it, even when an earlier loc starts with the same text."""
    before = b"<url><loc>https://www.shop.com/p/5</loc></url>"
    doc = b"<urlset>" + before + b"<url>" + written + b"</url></urlset>"
    for piece in (len(doc), 7, 1):  # any pieces
        pieces = [doc[i : i + piece] for i in range(0, len(doc), piece)]
        assert stop_offset(pieces, 1, loc, "url") == len(b"<urlset>" + before)


def test_a_loc_never_found_stops_before_its_line() -> None:
    doc = b"<urlset>\n<url><loc>a</loc></url>\n<url><loc>b</loc></url><url><loc>c</loc></url>\n"
    for piece in (len(doc), 5, 1):
        pieces = [doc[i : i + piece] for i in range(0, len(doc), piece)]
        assert stop_offset(pieces, 3, "https://elsewhere/", "url") == doc.index(b"\n<url><loc>b")
        assert stop_offset(pieces, 3, "c", "url") == doc.index(b"<url><loc>c")
    assert stop_offset([b"x\ny\nz\n"], 3, "z", None) == 4
    assert stop_offset([b"x\n", b"y\n", b"z\n"], 3, "z", None) == 4
    assert stop_offset([b"x\ny\n"], 9, "z", None) is None
    assert stop_offset([b"x\ny\n"], 1, "x", None) == 0

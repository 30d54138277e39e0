"""Lines past 65,535: libxml2 keeps an element's line in 16 bits, and from there lxml's
``sourceline`` is a guess from the text around the element (one line late for an element
without text in a pretty-printed file; the line its text ends on for a value written over
lines; 65,535 itself once check's walk had dropped that text).

Failed before: an unknown element on line 70,003 was reported twice (at 65,535 by check's
walk, at 70,003 by the reader); an empty unknown or misplaced element in a pretty-printed
file, twice or one line late; the reader's ``nested-entry`` message for an entry in a piece
parsed on its own named the line within the piece ("of line 1"). The element-order cases
(elements with text, which libxml2's guess gets right) held before too. The reader's careful
lane (a document not in UTF-8, and the rest of one the compiled lane hands over) took
libxml2's guess: each of ``LATE_CASES`` failed in the pretty-printed layout (an entry's own
findings a line late, a value written over lines at its last line, an empty element at
65,535 in the compact one), as did an index's, an Atom entry's and ``depth-limit``; now it
counts the start tags in the bytes (``reading.xml_lines.LateLines``), as libxml2 gives lines
below the cap (where the tag ends, in line feeds), and so does check's walk.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any

import pytest

from urlset.checking.document import CheckOptions, check_document
from urlset.checking.xmlevents import start_tag_lines
from urlset.limits import ReadLimits
from urlset.model import Issue
from urlset.reading.reader import SitemapReader
from urlset.reading.xml_common import LINE_CAP

NOW = datetime(2026, 11, 29, tzinfo=UTC)
NS = b'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
NEWLINE = b"\n"
LATE = 70_000  # the entry that holds the finding: well past line 65,535 in both layouts


def _compact(special: bytes, encoding: str = "UTF-8") -> bytes:
    rows = [b"<url><loc>https://e.test/%d</loc></url>\n" % i for i in range(LATE + 100)]
    rows[LATE] = special
    head = b'<?xml version="1.0" encoding="%s"?>\n<urlset %s>\n' % (encoding.encode(), NS)
    return head + b"".join(rows) + b"</urlset>\n"


def _pretty(special: bytes, encoding: str = "UTF-8") -> bytes:
    rows = [b"  <url>\n    <loc>https://e.test/%d</loc>\n  </url>\n" % i for i in range(25_100)]
    rows[25_000] = b"  <url>\n    <loc>https://e.test/x</loc>\n" + special + b"  </url>\n"
    head = b'<?xml version="1.0" encoding="%s"?>\n<urlset %s>\n' % (encoding.encode(), NS)
    return head + b"".join(rows) + b"</urlset>\n"


def _line_of(doc: bytes, needle: bytes) -> int:
    at = doc.index(needle)
    assert doc.count(b"\n", 0, at) + 1 > LINE_CAP
    return doc.count(b"\n", 0, at) + 1


def _findings(doc: bytes, code: str) -> list[tuple[int, str]]:
    result = check_document(doc, CheckOptions(now=NOW), source="big.xml")
    return [(i.line, i.message) for i in result.issues if i.code == code]


CASES = {
    "unknown element, compact": (
        _compact(b"<url><loc>https://e.test/x</loc><bogus/></url>\n"),
        "unknown-element",
        b"<bogus/>",
    ),
    "unknown element, pretty": (_pretty(b"    <bogus/>\n"), "unknown-element", b"<bogus/>"),
    "element order, compact": (
        _compact(b"<url><lastmod>2024-01-01</lastmod><loc>https://e.test/x</loc></url>\n"),
        "element-order",
        b"<loc>https://e.test/x",
    ),
    "element order, pretty": (
        _pretty(b"    <priority>0.5</priority>\n    <changefreq>daily</changefreq>\n"),
        "element-order",
        b"<changefreq>daily",
    ),
    "misplaced element, pretty": (
        _pretty(b"    <sitemap/>\n"),
        "misplaced-element",
        b"<sitemap/>",
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_check_places_a_late_element_on_its_line_once(case: str) -> None:
    doc, code, needle = CASES[case]
    found = _findings(doc, code)
    assert [line for line, _ in found] == [_line_of(doc, needle)], found


@pytest.mark.parametrize("layout", [_compact, _pretty])
def test_a_nested_entry_names_the_line_its_open_entry_starts_on(layout: object) -> None:
    special = b"<url><loc>https://e.test/x</loc><url/></url>\n"
    if layout is _pretty:
        special = b"    <url/>\n"
    doc = layout(special)  # type: ignore[operator]
    nested = doc.index(b"<url/>")
    opened = doc.rindex(b"<url>", 0, nested)
    reader = SitemapReader("big.xml")
    events = [*reader.feed(doc), *reader.close()]
    issues = [i for i in events if isinstance(i, Issue) and i.code == "nested-entry"]
    assert len(issues) == 1
    assert issues[0].line == doc.count(b"\n", 0, nested) + 1
    assert f"of line {doc.count(NEWLINE, 0, opened) + 1}," in issues[0].message


def test_the_careful_lane_places_a_late_element_on_its_line() -> None:
    doc = _pretty(b"    <bogus/>\n", encoding="ISO-8859-1")
    assert [line for line, _ in _findings(doc, "unknown-element")] == [_line_of(doc, b"<bogus/>")]


def test_start_tag_lines_counts_tags_as_libxml2_reads_them() -> None:
    from lxml import etree

    body = (
        b'<?xml version="1.0"?>\r\n'
        b"<!DOCTYPE urlset [<!ENTITY a '<no/>'>]>\r"
        b"<urlset>\n"  # 1: on line 2 (a lone CR ends no line for libxml2)
        b"<!-- <no/>\n<no/> -->"
        b"<url><![CDATA[<no/>\n]]><?pi <no/>?>"  # 2: on line 4, after the comment's
        b"\n<x:loc a='>'\n b='2'/></url>"  # 3: on line 7, where its start tag ends
        b"</urlset>"
    )
    assert start_tag_lines(body, [3, 1, 2, 9]) == {1: (2, "urlset"), 2: (4, "url"), 3: (7, "loc")}
    parser = etree.XMLPullParser(events=("start",), recover=True)
    parser.feed(body)
    assert [el.sourceline for _, el in parser.read_events()] == [2, 4, 7]
    assert start_tag_lines(body, []) == {}


# The careful lane's findings, one entry each past line 65,535: a kind -> its code, the body
# of its entry as pretty-printed (values written over lines where one can be), and the line
# the finding is on, counted from the entry's start tag (its elements' lines as libxml2 gives
# them below the cap). Compacted, each
# entry is one line (and a value's whitespace, which that drops, no finding).
LATE_CASES: dict[str, tuple[str, bytes, int]] = {
    "unknown element": ("unknown-element", b"<loc>https://e.test/u1</loc>\n<bogus/>", 2),
    "misplaced element": ("misplaced-element", b"<loc>https://e.test/u2</loc>\n<sitemap/>", 2),
    "duplicate": ("duplicate-loc", b"<loc>https://e.test/7</loc>", 0),
    "development host": ("dev-host", b"<loc>https://localhost/u3</loc>", 0),
    "user info": ("url-userinfo", b"<loc>https://u:p@f.test/u4</loc>", 0),
    "no loc": ("missing-loc", b"<priority>0.5</priority>", 0),
    "empty loc": ("missing-loc", b"<loc/>", 1),
    "loc as text": ("loc-as-text", b"https://e.test/u5", 0),
    "second loc": (
        "repeated-element",
        b"<loc>https://e.test/u6</loc>\n<loc>\nhttps://e.test/u7\n</loc>",
        2,
    ),
    "whitespace": ("whitespace-in-value", b"<loc>\nhttps://e.test/u8\n</loc>", 1),
    "lastmod": ("invalid-lastmod", b"<loc>https://e.test/u9</loc>\n<lastmod>\nsoon\n</lastmod>", 2),
    "lenient lastmod": (
        "lenient-lastmod",
        b"<loc>https://e.test/u10</loc>\n<lastmod>\n2024-01-01T10:00\n</lastmod>",
        2,
    ),
    "changefreq": (
        "invalid-changefreq",
        b"<loc>https://e.test/u11</loc>\n<changefreq>\noften\n</changefreq>",
        2,
    ),
    "priority": ("invalid-priority", b"<loc>https://e.test/u12</loc>\n<priority/>", 2),
    "markup in a value": (
        "unexpected-child",
        b"<loc>https://e.test/u13</loc>\n<lastmod>\n<b/>2024-01-01</lastmod>",
        2,
    ),
    "loc made a URI": ("url-not-escaped", b"<loc>\nhttps://e.test/a b\n</loc>", 1),
    "relative loc": ("relative-url", b"<loc>\n/u14\n</loc>", 1),
    "image": (
        "invalid-image",
        b"<loc>https://e.test/u15</loc>\n<image:image>\n<image:title>t</image:title>\n</image:image>",
        2,
    ),
    "image order": (
        "extension-order",
        b"<loc>https://e.test/u16</loc>\n<image:image>\n<image:title>t</image:title>\n"
        b"<image:loc>https://e.test/i.png</image:loc>\n</image:image>",
        2,
    ),
    "image URL made a URI": (
        "url-not-escaped",
        b"<loc>https://e.test/u17</loc>\n<image:image>\n<image:loc>\nhttps://e.test/i j.png\n</image:loc>\n</image:image>",
        3,
    ),
    "nested entry": (
        "nested-entry",
        b"<loc>https://e.test/u18</loc>\n<url>\n<loc>https://e.test/u19</loc>\n</url>",
        2,
    ),
}
IMAGE_NS = b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'


def _late_document(layout: str, encoding: str) -> tuple[bytes, dict[str, int]]:
    """A urlset with each of ``LATE_CASES`` past line 65,535, an element at its depth after
    them and an entry the end cuts; the line each is expected on."""
    pretty = layout == "pretty"
    rows = [
        b"<url>\n<loc>https://e.test/%d</loc>\n</url>\n" % i
        if pretty
        else b"<url><loc>https://e.test/%d</loc></url>\n" % i
        for i in range(LATE // 3 if pretty else LATE)
    ]
    specials = {
        kind: b"<url>\n" + body + b"\n</url>\n" for kind, (_, body, _) in LATE_CASES.items()
    }
    specials["stray"] = b"<bogus2/>\n"
    specials["cut"] = b"<url>\n<loc>https://e.test/cut</loc>\n"
    if not pretty:
        specials = {kind: special.replace(b"\n", b"") + b"\n" for kind, special in specials.items()}
    head = b'<?xml version="1.0" encoding="%s"?>\n<urlset %s %s>\n' % (
        encoding.encode(),
        NS,
        IMAGE_NS,
    )
    doc = head + b"".join(rows)
    lines = {}
    for kind, special in specials.items():
        rel = LATE_CASES[kind][2] if kind in LATE_CASES and pretty else 0
        lines[kind] = doc.count(b"\n") + 1 + rel
        doc += special
    return doc, lines


@cache
def _late_issues(layout: str, encoding: str) -> tuple[list[tuple[str, int]], dict[str, int]]:
    doc, lines = _late_document(layout, encoding)
    reader = SitemapReader("big.xml")
    events = [*reader.feed(doc), *reader.close()]
    issues = [(i.code, i.line) for i in events if isinstance(i, Issue)]
    return [i for i in issues if i[0] != "non-utf8-encoding"], lines


LATE_CODES = {**{kind: code for kind, (code, _, _) in LATE_CASES.items()}}
LATE_CODES.update({"stray": "unknown-element", "cut": "truncated-entry"})


# every kind in both layouts, but whitespace in a value, which a compacted value does not hold
LATE_KINDS = [
    (kind, layout)
    for kind, code in LATE_CODES.items()
    for layout in ("pretty", "compact")
    if not (code == "whitespace-in-value" and layout == "compact")
]


@pytest.mark.parametrize(("kind", "layout"), LATE_KINDS)
def test_the_careful_lane_places_each_finding_on_its_line(kind: str, layout: str) -> None:
    code = LATE_CODES[kind]
    issues, lines = _late_issues(layout, "ISO-8859-1")
    assert lines[kind] > LINE_CAP
    assert (code, lines[kind]) in issues, [i for i in issues if i[0] == code]


@pytest.mark.parametrize("layout", ["pretty", "compact"])
def test_the_careful_lane_gives_the_compiled_lanes_lines(layout: str) -> None:
    assert _late_issues(layout, "ISO-8859-1")[0] == _late_issues(layout, "UTF-8")[0]


# other roots the careful lane reads: the root, its entries' element, a row's body, the entry
# past line 65,535, its finding and that finding's line from the entry's start tag
OTHER_ROOTS = {
    "index": (
        b"sitemapindex " + NS,
        b"sitemap",
        b"<loc>https://e.test/%d.xml</loc>",
        b"<loc>https://e.test/x.xml</loc>\n<bogus/>",
        "unknown-element",
        2,
    ),
    "atom": (
        b'feed xmlns="http://www.w3.org/2005/Atom"',
        b"entry",
        b'<link href="https://e.test/%d"/>',
        b'<link href="https://e.test/x"/>\n<updated>never</updated>',
        "invalid-lastmod",
        0,
    ),
    "depth": (
        b"urlset " + NS,
        b"url",
        b"<loc>https://e.test/%d</loc>",
        b"<loc>https://e.test/x</loc>\n<a>\n<b>\n<c/>\n</b>\n</a>",
        "depth-limit",
        4,
    ),
}


@pytest.mark.parametrize("root", list(OTHER_ROOTS))
def test_the_careful_lane_places_findings_under_other_roots(root: str) -> None:
    start, entry, row, special, code, rel = OTHER_ROOTS[root]
    rows = b"".join(b"<%s>\n%s\n</%s>\n" % (entry, row % i, entry) for i in range(LATE // 3))
    doc = b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<' + start + b">\n" + rows
    line = doc.count(b"\n") + 1 + rel
    doc += b"<%s>\n%s\n</%s>\n</%s>\n" % (entry, special, entry, start.split()[0])
    reader = SitemapReader("big.xml", limits=ReadLimits(max_depth=4))
    events = [*reader.feed(doc), *reader.close()]
    assert line > LINE_CAP
    assert [i.line for i in events if isinstance(i, Issue) and i.code == code] == [line]


TRICKY = (
    b'<?xml version="1.0" encoding="ISO-8859-1"?>\n<urlset ' + NS + b">\n"
    b"<url><loc>https://e.test/a</loc><!-- <url><loc>x</loc></url>\n --></url>\n"
    b"<url>\n<loc><![CDATA[<b>\n]]></loc><?pi <x>\n?><x a='>\n' b=\"/>\"/></url>\n"
    b"<url\n>\n<loc\n a='1'\n>\xe9</loc>\n<y/><z></z></url>\n</urlset>\n"
)


def test_late_lines_are_libxml2s_lines_wherever_blocks_end() -> None:
    """``LateLines`` numbering from line 3 on (not 65,535): each element's line is the one
    libxml2 gives below its cap, wherever the blocks fed end (inside a tag, a comment...)."""
    for block in range(1, len(TRICKY) + 1):
        late, expected = _late_lines(block)
        assert len(expected) == 9
        assert late == expected, block


def _late_lines(block: int) -> tuple[dict[Any, int], dict[Any, int]]:
    """``LateLines``' lines of ``TRICKY`` fed in blocks of ``block`` bytes, and libxml2's."""
    from lxml import etree

    from urlset.extensions import SAFE_PARSER_OPTIONS
    from urlset.reading.xml_lines import LateLines

    late: dict[Any, int] = {}
    lines = LateLines(late, cap=3)
    parser = etree.XMLPullParser(events=("start",), recover=True, **SAFE_PARSER_OPTIONS)
    elements = []
    for at in range(0, len(TRICKY) + block, block):
        data = TRICKY[at : at + block]
        if data:
            lines.fed(data)
            parser.feed(data)
        else:  # the end
            lines.close()
            parser.close()
        events = list(parser.read_events())
        lines.read(events)
        elements += [el for _, el in events]
    return late, {el: el.sourceline for el in elements if el.sourceline >= 3}

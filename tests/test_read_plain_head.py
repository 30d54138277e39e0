"""The compiled lane's plain head and plain end, read without libxml2 (hypothesis).

``Prolog.plain_head`` says libxml2 would read a document's head (up to the root start tag)
without a word, and ``plain_prefixes`` gives the root's namespace prefixes as lxml reads
them; the compiled lane then reads the head, and a plain end, without libxml2. Here both
claims are checked against libxml2 itself on generated heads, and whole documents with such
heads read the same in both lanes, fed in any chunk sizes, whatever their body and end.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from lxml import etree

from test_read_support import NS, feed_all
from urlset.extensions import SAFE_PARSER_OPTIONS
from urlset.limits import ReadLimits
from urlset.reading.sink import Sink
from urlset.reading.xml_common import Status
from urlset.reading.xml_prolog import Prolog, plain_prefixes

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

IMAGE = "http://www.google.com/schemas/sitemap-image/1.1"
XSI = "http://www.w3.org/2001/XMLSchema-instance"

PLAIN_DECLARATIONS = [
    "",
    '<?xml version="1.0" encoding="UTF-8"?>',
    "<?xml version='1.0' encoding='utf-8' ?>",
    '<?xml version = "1.0"?>',
]
PLAIN_ATTRIBUTES = [
    f'xmlns:image="{IMAGE}"',
    f"xmlns:xsi='{XSI}'",
    f'xsi:schemaLocation="{NS}\n  {NS}/sitemap.xsd"',
    "data-x=\"xmlns:image='urn:y'\"",
    'xmlns:i2="http://www.google.com/schemas/sitemap-image/1.1"',
]
declarations = st.sampled_from(PLAIN_DECLARATIONS) | st.sampled_from(
    [
        *PLAIN_DECLARATIONS,
        '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>',
        '<?xml version="1.1" encoding="UTF-8"?>',
        '<?xml encoding="UTF-8"?>',
        '<?xml version="1.0" encoding="UTF8"?>',
        '<?xml version="1.0"encoding="UTF-8"?>',
        '<?xml-stylesheet href="a.xsl"?>',
        '<?xml version="1.0"?><!-- a comment -->',
        '<?xml version="1.0"?><!-- a -- b -->',
        "<?xml version='1.0' encoding='UTF-8'?>\n<?pi x?>",
    ]
)
attributes = st.lists(st.sampled_from(PLAIN_ATTRIBUTES), max_size=3, unique=True) | st.lists(
    st.sampled_from(
        [
            *PLAIN_ATTRIBUTES,
            'xsi:schemaLocation="a"',
            'xmlns:p=""',
            'xmlns:p="relative"',
            'xmlns:p="a b"',
            'p:x="1"',
            'xml:lang="en"',
            'xmlns:xml="http://www.w3.org/XML/1998/namespace"',
            'xmlns:xmlfoo="urn:x"',
            'a="x&amp;y"',
            'a="x&y"',
            'a="\tb"',
            'b="ü"',
            'c="\x01"',
            'image:x="1"',
            'i2:x="2"',
            'i2:y="2"',
            f'xmlns:i3="{IMAGE}" xmlns:i4="{IMAGE}" i3:x="1" i4:x="2"',
            'xmlns:p="urn:p" xmlns:p="urn:q"',
            'd="1" d="2"',
            f'xmlns="{NS}"',
            'xmlns="urn:other"',
        ]
    ),
    max_size=5,
)
spaces = st.sampled_from([" ", "\n", "\r\n", "\t", "  \n  "])


@st.composite
def heads(draw: st.DrawFn) -> str:
    root = draw(st.sampled_from(["urlset", "sitemapindex"]))
    attrs = [f'xmlns="{NS}"', *draw(attributes)]
    draw(st.randoms()).shuffle(attrs)
    tag = "<" + root + "".join(draw(spaces) + a for a in attrs) + draw(st.sampled_from(["", " "]))
    bom = draw(st.sampled_from(["", "\ufeff"]))
    return bom + draw(declarations) + draw(st.sampled_from(["", "\n", "\n\n  "])) + tag + ">"


ROOT = f'<urlset xmlns="{NS}" '


@SETTINGS
@given(heads())
@example(ROOT + f'xmlns:a="{IMAGE}" xmlns:b="{IMAGE}" a:x="1" b:x="2">')
@example(ROOT + 'd="1" d="2">')
@example(ROOT + 'xmlns:p="urn:p" xmlns:p="urn:q">')
@example(ROOT + 'xmlns:p="">')
@example(ROOT + 'xmlns:p="urn:p" q:x="1">')
@example(ROOT + f'xmlns="{NS}">')
def test_a_plain_head_is_what_libxml2_reads_without_a_word(text: str) -> None:
    head = text.encode()
    prolog = Prolog(Sink("doc", ReadLimits(), None), Status())
    m = prolog.scan(bytearray(head), final=False)
    if isinstance(m, str) or not prolog.plain_root(m) or not prolog.plain_head(head, m):
        return
    parser = etree.XMLPullParser(events=("start",), recover=True, **SAFE_PARSER_OPTIONS)
    parser.feed(head)
    events = list(parser.read_events())
    assert len(events) == 1
    assert [e.message for e in parser.feed_error_log if e.level >= 2] == []
    root: Any = events[0][1]
    assert root.tag == f"{{{NS}}}{m.group(1).decode()}"
    assert plain_prefixes(m.group(2)) == {k: v for k, v in root.nsmap.items() if k is not None}


records = st.lists(
    st.sampled_from(
        [
            "<url><loc>https://example.com/a</loc><lastmod>2024-01-01</lastmod></url>",
            "<url><loc>https://example.com/b?x=1&amp;y=2</loc></url>",
            f'<url><loc>https://example.com/c</loc><image:image xmlns:image="{IMAGE}">'
            "<image:loc>https://example.com/c.png</image:loc></image:image></url>",
            "<url><loc>https://example.com/c</loc><image:image><image:loc>"
            "https://example.com/d.png</image:loc></image:image></url>",
            "<!-- between --><url><loc>https://example.com/e</loc></url>",
            "<url><loc>https://example.com/f</loc><priority>2</priority></url>",
            "<url><loc>https://example.com/g</loc></url><url><loc>broken</url>",
            "<sitemap><loc>https://example.com/s.xml</loc></sitemap>",
            "<url><loc>https://example.com/h</loc><x:y xmlns:x='urn:x'/></url>",
        ]
    ),
    max_size=6,
)
ends = st.sampled_from(
    ["</urlset>\n", "</urlset>", "\n", "</urlset><!-- after -->", "</urlset>x", "</sitemapindex>"]
)


@SETTINGS
@given(heads(), records, spaces, ends, st.lists(st.integers(1, 300), min_size=1, max_size=4))
def test_documents_with_generated_heads_read_the_same_in_both_lanes(
    head: str, body: list[str], between: str, end: str, sizes: list[int]
) -> None:
    if "<sitemapindex" in head:
        end = end.replace("urlset", "sitemapindex")
    doc = (head + between + between.join(body) + between + end).encode()
    full = feed_all(doc, [len(doc)], fast=False)
    assert feed_all(doc, sizes, fast=True) == full
    assert feed_all(doc, [len(doc)], fast=True) == full

"""The line of each entry of a sitemap index (``index_lines.lines_of_refs``, which check's
findings about an index's children carry): found in one pass over the bytes when the
``<sitemap>`` entries are the refs one for one, they are the lines lxml's walk gives; any
layout the pass cannot vouch for (a comment holding a tag, CDATA, an entry the reader
dropped) goes to the walk."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from urlset.checking import index_lines, positions
from urlset.model import SitemapRef
from urlset.reading.reader import SitemapReader

ENTRIES = [
    "<sitemap><loc>https://e.com/{i}.xml</loc></sitemap>",
    "<sitemap>\n  <loc>https://e.com/{i}.xml</loc>\n  <lastmod>2024-01-02</lastmod>\n</sitemap>",
    "<sitemap><lastmod>2024-01-02</lastmod>\n<loc>https://e.com/{i}.xml</loc></sitemap>",
    "<sitemap><loc> https://e.com/{i}.xml?a=1&amp;b=2 </loc></sitemap>",
    "<sitemap><loc>https://e.com/caf\u00e9/{i}.xml</loc></sitemap>",
    "<sitemap><loc><![CDATA[https://e.com/{i}.xml]]></loc></sitemap>",
    "<!-- <sitemap> -->",
    "<sitemap><loc>https://e.com/0.xml</loc></sitemap>",
    "\n\n",
]
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def _refs(document: bytes) -> list[SitemapRef]:
    reader = SitemapReader("index.xml")
    events = [*reader.feed(document), *reader.close()]
    return [event for event in events if type(event) is SitemapRef]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(range(len(ENTRIES))), min_size=1, max_size=25))
def test_ref_lines_are_the_walks(kinds: list[int]) -> None:
    body = "\n".join(ENTRIES[k].replace("{i}", str(n)) for n, k in enumerate(kinds))
    document = (HEAD + body + "\n</sitemapindex>\n").encode("utf-8")
    refs = _refs(document)
    walked = positions._Locator(document, "sitemapindex", None)
    pieces = [document[: len(document) // 3], document[len(document) // 3 :]]
    assert index_lines.lines_of_refs(lambda: pieces, lambda: document, refs, None) == [
        walked.line_of(r.loc) for r in refs
    ]
    # the pass vouches for every index whose entries are plain and all given as refs
    plain = all(
        ENTRIES[k].startswith(("<sitemap>", "\n")) and "CDATA" not in ENTRIES[k] for k in kinds
    )
    if plain and len(refs) == body.count("<sitemap>"):
        assert index_lines._ref_lines_in_order(document, refs, None) is not None

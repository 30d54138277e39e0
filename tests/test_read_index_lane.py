"""Sitemap indexes in the render lane (``RenderSpec(indexes=True)``: ``urlset read`` and
``read_arrow``): an index's canonical records are rendered by the compiled core, and every
other entry is the reader's value in its place, so that the output, the findings and their
places are what the careful lane's values give, whole and chunked.

The family, enumerated from the index reader's code paths (``xml_elements._sitemap_entry``
and the values the sink judges: ``Sink.loc``, ``Sink.lastmod``, ``Sink.add``/``origin``;
the compiled scanner's ``Kind::Index`` records and judged runs): each loc spelling the
urlset side accepts (IRI, ``&amp;``, ``'``, ``%``, a port, a character reference, CDATA,
white space and line breaks around it, an upper-case host, a space), a relative, empty,
missing and unusable loc, a loc as the entry's text, a second loc; every lastmod form
(date, Z, offsets, fractions, microseconds, minutes, year, year-month), a lenient one
(lower-case ``t``, a space), an invalid and an empty one, a lastmod given twice, CDATA;
a changefreq or priority in an index, an element of another namespace, a comment, a
duplicate, a development host, user info; an entry without a loc.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from test_read_support import NS, feed_all, four_ways
from urlset.model import Issue, SitemapRef
from urlset.reading.rendered import RenderSpec, left_core

_SM = "https://www.shop.org/s/{n}.xml"
INDEX_ENTRIES = (
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc></sitemap>",
    "<sitemap><loc>https://www.shop.org/caf\u00e9/{n}-\u20ac.xml</loc></sitemap>",  # an IRI
    "<sitemap><loc>https://www.shop.org/s.xml?p={n}&amp;q=2</loc></sitemap>",
    "<sitemap><loc>https://www.shop.org/it's-{n}.xml</loc></sitemap>",
    "<sitemap><loc>https://www.shop.org/caf%C3%A9/{n}.xml</loc></sitemap>",
    "<sitemap><loc>https://shop.example.com:44300/{n}.xml</loc></sitemap>",  # a port
    "<sitemap><loc>https://www.shop.org/&#99;{n}.xml</loc></sitemap>",  # a reference
    "<sitemap><loc><![CDATA[https://www.shop.org/c/{n}.xml?a&b]]></loc></sitemap>",
    "<sitemap><loc>  https://www.shop.org/w/{n}.xml\n </loc></sitemap>",
    "<sitemap><loc>https://WWW.Shop.org/u/{n}.xml</loc></sitemap>",
    "<sitemap><loc>https://www.shop.org/a b{n}.xml</loc></sitemap>",  # a space
    "<sitemap><loc>/relative/{n}.xml</loc></sitemap>",
    "<sitemap><loc></loc></sitemap>",
    "<sitemap><loc>https://[::1/{n}</loc></sitemap>",  # no URL
    "<sitemap>https://www.shop.org/t/{n}.xml</sitemap>",  # loc as text
    "<sitemap><loc>" + _SM + "</loc><loc>https://www.shop.org/second/{n}.xml</loc></sitemap>",
    "<sitemap></sitemap>",
    "<sitemap><lastmod>2024-01-02</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02T03:04:05Z</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02T03:04:05+05:30</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02T03:04:05.123-05:00</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02T03:04:05.123456Z</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02T03:04Z</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-05</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02t03:04:05z</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02 10:00</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>someday</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod></lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod> 2024-01-02 </lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod><![CDATA[2024-01-02]]></lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><lastmod>2024-01-02</lastmod>"
    "<lastmod>2024-01-03</lastmod></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><changefreq>daily</changefreq></sitemap>",
    "<sitemap><loc>" + _SM + "</loc><priority>0.5</priority></sitemap>",
    "<sitemap><loc>" + _SM + '</loc><o:x xmlns:o="urn:o">1</o:x></sitemap>',
    "<sitemap><!-- c --><loc>" + _SM + "</loc></sitemap>",
    "<sitemap><loc>https://www.shop.org/dup.xml</loc></sitemap>",  # a duplicate from its 2nd
    "<sitemap><loc>http://localhost:3000/{n}.xml</loc></sitemap>",  # a development host
    "<sitemap><loc>https://ann:pw@www.shop.org/{n}.xml</loc></sitemap>",  # user info
    "<sitemap>\n  <loc>" + _SM + "</loc>\n  <lastmod>2024-01-02</lastmod>\n</sitemap>",
)


def index_document(picks: list[int], declared: bool = True) -> bytes:
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' if declared else ""
    body = "\n".join(INDEX_ENTRIES[p].format(n=i) for i, p in enumerate(picks))
    return f'{head}<sitemapindex xmlns="{NS}">\n{body}\n</sitemapindex>\n'.encode()


def _cli(path: Path, fmt: str, chunk: int, *, lane: bool) -> bytes:
    from urlset.cli import main, read_run

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(read_run, "RENDER_LANE", lane)
        patch.setattr(read_run, "FILE_CHUNK", chunk)
        result = CliRunner().invoke(main, ["read", str(path), "-f", fmt], catch_exceptions=False)
    return result.stdout_bytes + result.stderr.encode()


def _arrow_alike(data: bytes, chunk: int) -> None:
    """read_arrow (the core's columns and the reader's values) in ``chunk``-byte chunks is
    the table of the careful lane's values."""
    from urlset.reading import arrow

    expected = arrow._entries_batch(feed_all(data, [len(data)], fast=False)[0]).to_pylist()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrow, "FILE_CHUNK", chunk)
        assert arrow.read_arrow(data).to_pylist() == expected


_picks = st.lists(st.sampled_from(range(len(INDEX_ENTRIES))), min_size=1, max_size=14)


@settings(max_examples=40, deadline=None)
@given(_picks, st.integers(1, 300), st.booleans())
def test_an_index_reads_alike_in_every_lane(picks: list[int], chunk: int, gzipped: bool) -> None:
    """Any mix of the family: the compiled and careful lanes give the same values and
    findings, whole and chunked; ``urlset read`` through the render lane, chunked, writes
    what the per-entry path writes whole (output and findings with their places); and
    read_arrow's table is the careful lane's values."""
    import tempfile

    data = index_document(picks)
    four_ways(data, chunk)
    _arrow_alike(data, chunk)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "index.xml"
        path.write_bytes(gzip.compress(data) if gzipped else data)
        for fmt in ("jsonl", "csv", "tsv", "locs"):
            lane = _cli(path, fmt, chunk, lane=True)
            assert lane == _cli(path, fmt, 1 << 20, lane=False), fmt


@pytest.mark.parametrize("pick", range(len(INDEX_ENTRIES)))
def test_each_member_of_the_family_reads_alike(pick: int, tmp_path: Path) -> None:
    """Each entry shape three times among plain ones (a duplicate, a finding once a host),
    through every lane and output."""
    data = index_document([0, pick, 1, pick, pick, 0])
    four_ways(data, 7)
    _arrow_alike(data, 5)
    path = tmp_path / "index.xml"
    path.write_bytes(data)
    for fmt in ("jsonl", "csv"):
        assert _cli(path, fmt, 9, lane=True) == _cli(path, fmt, 1 << 20, lane=False), fmt


def test_plain_index_entries_stay_in_the_core() -> None:
    """An index of plain entries is rendered whole: nothing leaves, and the lane says it
    read an index (the CSV header is the index's)."""
    data = index_document([0, 1, 19, 20, 21, 23, 24] * 30)
    left_core(reset=True)
    spec = RenderSpec("csv", "\n", indexes=True)
    from urlset.reading.reader import SitemapReader

    reader = SitemapReader("doc", render=spec)
    events = reader.feed(data) + reader.close()
    assert [e for e in events if type(e) is not Issue] == []
    assert (spec.index, spec.rendered, spec.left, left_core()) == (True, 210, {}, {})


def test_fetch_still_gets_an_index_as_values() -> None:
    """A consumer that follows an index (fetch: no ``indexes``) gets every entry as the
    reader's value, counted as leaving for "index"."""
    from urlset.reading.reader import SitemapReader

    data = index_document([0, 1, 2] * 5)
    spec = RenderSpec("jsonl", "}\n")
    reader = SitemapReader("doc", render=spec)
    refs = [e for e in reader.feed(data) + reader.close() if type(e) is SitemapRef]
    assert len(refs) == 15 and spec.rendered == 0 and not spec.runs
    assert spec.left == {"index": 15}

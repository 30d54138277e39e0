"""The XML forms generators write around the same entries (bench/bench_read_forms.py: comments,
processing instructions, CDATA, references, whitespace, element order, prefixes, encodings):
each read alike by the compiled and careful lanes, whole and chunked, and by the render lane
and the per-URL path; the compiled core reads every form a parser reads without a word, and
the others leave it counted, each for its reason."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import bench_module
from test_read_shapes import _cli, _jsonl, _render_lane_output
from test_read_support import four_ways
from urlset.model import Url
from urlset.reading.rendered import left_core

FORMS = bench_module("bench_read_forms")

# the forms whose entries leave the core, and why (the others: none leaves it)
LEAVING = {
    "empty-optional": "piece",  # errors: lxml's
    "attribute-on-url": "piece",
    "image-loc-on-its-own-lines": "extension",  # warned by the image reader
    "space-in-tags": "careful",  # the document is the careful lane's
    "prefixed": "careful",
    "latin1": "careful",
}


@pytest.mark.parametrize("form", sorted(FORMS.FORMS))
def test_every_form_reads_alike_and_the_core_keeps_what_a_parser_passes_over(
    form: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = FORMS.document(form, 40)
    four_ways(data, 97)
    path = tmp_path / "doc.xml"
    path.write_bytes(data)
    left_core(reset=True)
    lane = _cli(path, "jsonl", lane=True, monkeypatch=monkeypatch)
    assert lane == _cli(path, "jsonl", lane=False, monkeypatch=monkeypatch)
    left = left_core()
    assert set(left) == ({LEAVING[form]} if form in LEAVING else set()), left


# one entry's markup, drawn: what may stand before it and between its elements, how its loc
# and lastmod are written, the order of its elements
_AROUND = st.sampled_from(
    ["", "\n  ", "<!-- c -->", "<!--\n two lines -->", "<?t x?>", "<!-- a -- b -->", "<!-- <x> -->"]
)
_LOCS = st.sampled_from(
    [
        "https://a.test/{i}",
        "https://a.test/{i}?a=1&#038;b=2",
        "https://a.test/{i}/it&#039;s",
        "https://a.test/{i}?x=&#x26;&#8217;",
        "<![CDATA[https://a.test/{i}]]>",
        "<![CDATA[https://a.test/{i}?a=1&b=2]]>",
        "<![CDATA[https://a.test/caf\u00e9/{i}?a&b]]>",
        " https://a.test/{i} ",
        "https://a.test/{i}&#9;",
    ]
)
_LASTMODS = st.sampled_from(
    [
        "",
        "<lastmod>2024-01-02</lastmod>",
        "<lastmod><![CDATA[2024-01-02]]></lastmod>",
        "<lastmod>2024-1-2</lastmod>",
    ]
)


@st.composite
def _entry(draw: st.DrawFn, i: int) -> str:
    loc = "<loc>" + draw(_LOCS).replace("{i}", str(i)) + "</loc>"
    parts = [loc, draw(_LASTMODS), draw(st.sampled_from(["", "<priority>0.5</priority>"]))]
    if draw(st.booleans()):
        parts.reverse()
    between = [draw(_AROUND) for _ in range(4)]
    inner = "".join(b + p for b, p in zip(between, parts, strict=False)) + between[3]
    return f"{draw(_AROUND)}<url>{inner}</url>\n"


@settings(max_examples=60, deadline=None)
@given(st.data(), st.integers(1, 300))
def test_markup_around_values_reads_alike_every_way(data: st.DataObject, chunk: int) -> None:
    """Any mix of the forms' markup, entry by entry: the four ways and the render lane agree."""
    entries = [data.draw(_entry(i)) for i in range(data.draw(st.integers(1, 12)))]
    after = data.draw(_AROUND)
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{FORMS.NS}">\n'
        + "".join(entries)
        + f"</urlset>\n{after}"
    ).encode()
    careful = four_ways(doc, chunk)
    urls = [e for e in careful[0] if type(e) is Url]
    assert _render_lane_output(doc, chunk) == _jsonl(urls)

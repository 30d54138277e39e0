"""The XML forms generators write around the same entries (bench/bench_read_forms.py: comments,
processing instructions, CDATA, references, whitespace, element order, prefixes, encodings):
each read alike by the compiled and careful lanes, whole and chunked, and by the render lane
and the per-URL path; the compiled core reads every form a parser reads without a word, and
the others leave it counted, each for its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import bench_module
from test_read_shapes import _cli
from test_read_support import four_ways
from urlset.reading.rendered import left_core

FORMS = bench_module("bench_read_forms")

# the forms whose entries leave the core, and why (the others: none leaves it)
LEAVING = {
    "whitespace-around-values": "values",  # warned, judged by the sink
    "order-lastmod-first": "values",  # judged by the sink; check reports element-order
    "order-priority-first": "values",
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

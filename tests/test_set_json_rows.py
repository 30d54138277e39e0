"""The set engine fed from check's columns (``LinkSet.add_json_rows``: the run's values
checked as UTF-8 at once, each record's links read from the JSON the core writes, any other
JSON by the JSON reader, a row that is not text on its own read alone) finds what the same
pages given one at a time (``LinkSet.add_page``) find."""

from __future__ import annotations

import json
from array import array

from hypothesis import given, settings
from hypothesis import strategies as st

from urlset._core import LinkSet

PAGES = [f"https://a.example/{name}" for name in ("en", "de", "fr", "caf\u00e9", "x?a=1&b=2")]
CODES = ["en", "de", "x-default", "fr-ca"]
FORMS = ("core", "escaped", "spaced", "images first", "not text")

_record = st.tuples(
    st.sampled_from(PAGES),
    st.lists(st.tuples(st.sampled_from(PAGES), st.sampled_from(CODES)), max_size=4),
    st.sampled_from(FORMS),
)


def _json(links: list[tuple[str, str]], form: str) -> bytes:
    """A record's extensions' JSON: as the core writes it, or written another way."""
    alternates = [{"hreflang": code, "href": href} for href, code in links]
    if form == "spaced":
        return json.dumps({"alternates": alternates}, ensure_ascii=False).encode()
    if form == "escaped":
        return json.dumps({"alternates": alternates}, separators=(",", ":")).encode()
    core = json.dumps(
        {"alternates": alternates}, separators=(",", ":"), ensure_ascii=False
    ).encode()
    if form == "images first":
        return b'{"images":[{"loc":"https://a.example/i.png"}],' + core[1:]
    if form == "not text":  # bytes that are not UTF-8 before the links
        return b'{"images":[{"title":"\xff"}],' + core[1:]
    return core


def _column(values: list[bytes]) -> tuple[bytes, bytes]:
    """An Arrow string column: native-endian i32 offsets and the values."""
    offsets = [0]
    for value in values:
        offsets.append(offsets[-1] + len(value))
    return array("i", offsets).tobytes(), b"".join(values)


def _judged(links: LinkSet) -> list[object]:
    return [links.judge(None, include_self) for include_self in (False, True)]


@settings(max_examples=200, deadline=None)
@given(
    records=st.lists(_record, min_size=1, max_size=12),
    leading=st.integers(0, 3),
    stray=st.booleans(),
)
def test_json_rows_find_what_pages_given_one_by_one_find(
    records: list[tuple[str, list[tuple[str, str]], str]], leading: int, stray: bool
) -> None:
    # rows before the run's first (``start``), and a row without links that is not text
    filler = [b"{}"] * leading + ([b'{"images":[{"loc":"\xfe"}]}'] if stray else [])
    extensions = filler + [_json(links, form) for _, links, form in records]
    locs = [b"https://a.example/filler"] * len(filler) + [loc.encode() for loc, _, _ in records]
    start = leading
    rows = [len(filler) + k for k, (_, links, _) in enumerate(records) if links]
    from_columns = LinkSet()
    from_columns.add_json_rows(
        *_column(extensions), *_column(locs), start, array("I", [r - start for r in rows]).tobytes()
    )
    one_by_one = LinkSet()
    for loc, links, _ in records:
        if links:
            one_by_one.add_page(loc, links)
    assert from_columns.records == one_by_one.records
    assert _judged(from_columns) == _judged(one_by_one)

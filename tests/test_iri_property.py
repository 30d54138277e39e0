"""The compiled IRI -> URI conversion gives exactly what the WHATWG parse gives (issue 15).

``urlset._core.iri_to_uri`` (rust/core/src/values/iri.rs) makes URIs of the locs sitemaps
hold (raw non-ASCII paths and queries, IDN hosts, ports, stray '%', quotes, fragments) so
the reader never calls ada-url per loc; it hands every other shape back (None). Whenever it
answers, the answer is ``urls.full_uri``'s, the ada-url path that stays the reference: here
on generated IRIs, on the corpus's locs, and on shapes chosen to be hard.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from urlset._core import iri_to_uri
from urlset.errors import InvalidValue
from urlset.limits import ReadLimits
from urlset.model import Issue
from urlset.reading.reader import SitemapReader
from urlset.urls import full_uri


def _reference(text: str) -> str | None:
    try:
        return full_uri(text)
    except InvalidValue:
        return None


def _agrees(text: str) -> bool:
    """Checks one text; True when the core answered (False: handed back)."""
    got = iri_to_uri(text)
    if got is None:
        return False
    assert got == _reference(text), text
    return True


_LABEL_CHARS = "abcxyz019-" + "éüößçñøåæ" + "яжщ" + "中文日本" + "αβ" + "İıǅẞ" + "ABCZ"
labels = st.text(_LABEL_CHARS, min_size=1, max_size=12)
hosts = st.one_of(
    st.lists(labels, min_size=1, max_size=3).map(".".join),
    st.sampled_from(["bücher.example", "xn--bcher-kva.example", "EXAMPLE.com", "1.2.3.4"]),
    st.sampled_from(["a..b", "a.b.", "xn--a.example", "xn--zz-.com", "0x1.example", "a.1"]),
)
ports = st.one_of(
    st.just(""),
    st.integers(0, 70000).map(lambda p: f":{p}"),
    st.sampled_from([":", ":080", ":0443", ":00081", ":8443", ":44300", ":1x"]),
)
_PART_CHARS = st.one_of(
    st.sampled_from(list("abz09-._~!$&'()*+,;=:@/?#%[]{}|\\^`\"<> ")),
    st.sampled_from(
        ["%2e", "%2E", "%41", "%c3%a9", "%zz", "%4", "..", "./", "\ue000", "%EE%80%80"]
    ),
    st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")),
)
parts = st.lists(_PART_CHARS, max_size=30).map("".join)
schemes = st.sampled_from(["http", "https", "HTTPS", "Http"])


@st.composite
def iris(draw: st.DrawFn) -> str:
    return f"{draw(schemes)}://{draw(hosts)}{draw(ports)}/{draw(parts)}"


@settings(max_examples=3000, deadline=None)
@given(iris())
@example("https://bücher.example/café/menü-1?q=it's&amp=1#frag")
@example("https://a.test/?!$()*,;~+@\ue000'")
@example("https://a.test/a/%2e%2E/b")
@example("https://ex.test:65535/\u3000x\u3000")
@example("https://faß.de/straße")
def test_core_uri_is_the_whatwg_uri(text: str) -> None:
    _agrees(text)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=40))
def test_any_text_is_converted_right_or_handed_back(text: str) -> None:
    _agrees("https://a.test/" + text)
    _agrees(text)


def test_the_realistic_shapes_are_done_in_the_core() -> None:
    """The reader's mixed benchmark shapes never reach ada-url (only rarer ones may)."""
    done = [
        "https://bücher.example/café/menü-7",
        "https://www.example.com/search?q=it's&page=3",
        "https://shop.example.com:8443/café/menü-1",
        'https://example.org:44300/a b/"q"',
        "https://a.test/100%/x?y=<1>",
        "HTTPS://Example.COM:443/x#top",
    ]
    for text in done:
        assert _agrees(text), text
    for rare in [
        "https://user@a.test/",
        "https://[::1]/",
        "https://a.test/../x",
        " https://a.test/",
    ]:
        assert iri_to_uri(rare) is None


_LOC = re.compile(rb"<(?:\w+:)?loc>\s*([^<]{1,3000}?)\s*</(?:\w+:)?loc>")


def test_corpus_locs_agree(shared: Path) -> None:
    """Every loc of the real-world corpus (entities as written left alone: texts are texts)."""
    seen: set[str] = set()
    done = 0
    for path in sorted((shared / "corpus").rglob("*.xml"))[:3000]:
        try:
            data = path.read_bytes()[:2_000_000]
        except OSError:
            continue
        for m in _LOC.finditer(data):
            text = m.group(1).decode("utf-8", "replace").replace("&amp;", "&")
            if text in seen:
                continue
            seen.add(text)
            done += _agrees(text)
    assert len(seen) > 100 and done > 0


def _read(doc: bytes, fast: bool, limits: ReadLimits) -> tuple[list[object], list[object]]:
    reader = SitemapReader("doc", limits=limits, _fast=fast)
    events = reader.feed(doc) + reader.close()
    entries = [e for e in events if type(e) is not Issue]
    issues = sorted(
        (e for e in events if type(e) is Issue),
        key=lambda i: (i.line, i.column, i.code, i.message),  # type: ignore[union-attr]
    )
    return entries, issues


@pytest.mark.parametrize(("n", "max_entries"), [(3000, 1_000_000), (50_010, 50_004)])
def test_converted_locs_in_bulk_equal_the_careful_lane(n: int, max_entries: int) -> None:
    """Locs the core makes URIs of, mixed with plain ones, past the 1,000 listed issues of a
    code and up to an entry limit: the compiled lane gives exactly the careful lane's."""
    shapes = [
        "https://bücher.example/café/{}",
        "https://www.example.com/p/{}",
        "https://www.example.com/search?q=it&apos;s&amp;p={}",
        "https://shop.example.com:8443/a b/{}",
        "https://www.example.com/p/{}",  # a duplicate of the second, reported
    ]
    records = "".join(
        f"<url>\n<loc>{shapes[i % 5].format(i - (i % 5 == 4) * 3)}</loc>\n"
        "<lastmod>2024-01-02</lastmod></url>\n"
        for i in range(n)
    )
    doc = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{records}</urlset>\n'
    ).encode()
    limits = ReadLimits(max_entries=max_entries)
    fast = _read(doc, True, limits)
    assert fast == _read(doc, False, limits)
    assert len(fast[0]) == min(max_entries, n)


def test_a_lone_surrogate_goes_the_long_way() -> None:
    """A str that is not UTF-8 (JSON's "\\ud800") is not the core's: to_uri answers as
    full_uri does, never with an encoding error."""
    from urlset.urls import to_uri

    text = "https://example.com/a\ud800b"
    assert iri_to_uri(text) is None
    try:
        want: object = full_uri(text)
    except InvalidValue as exc:
        want = str(exc)
    try:
        got: object = to_uri(text)
    except InvalidValue as exc:
        got = str(exc)
    assert got == want

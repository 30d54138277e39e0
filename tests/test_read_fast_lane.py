"""The reader's fast lane: what it takes on itself, what it leaves to the full lane, and at
what cost (counted in calls, not seconds)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_read_support import feed_all
from urlset.model import ChangeFreq, RawElement, Url
from urlset.reading.xml_compiled import CompiledLane
from urlset.urls import unescaped


def _counted(doc: bytes) -> tuple[dict[str, int], object]:
    """The calls the compiled lane makes reading ``doc``: runs judged in Python (and their
    entries), pieces parsed by lxml; and what it read."""
    calls = {"runs": 0, "judged": 0, "pieces": 0}
    original_piece, original_judged = CompiledLane._piece, CompiledLane._judged

    def counting_piece(self, data, start, stop, line):  # type: ignore[no-untyped-def]
        calls["pieces"] += 1
        return original_piece(self, data, start, stop, line)

    def counting_judged(self, run):  # type: ignore[no-untyped-def]
        calls["runs"] += 1
        calls["judged"] += len(run)
        return original_judged(self, run)

    CompiledLane._piece = counting_piece  # type: ignore[method-assign]
    CompiledLane._judged = counting_judged  # type: ignore[method-assign]
    try:
        fast = feed_all(doc, [len(doc)])
    finally:
        CompiledLane._piece = original_piece  # type: ignore[method-assign]
        CompiledLane._judged = original_judged  # type: ignore[method-assign]
    return calls, fast


def _doc(loc: str, n: int) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(f"<url><loc>{loc.format(i)}</loc></url>\n" for i in range(n))
        + "</urlset>\n"
    ).encode()


def test_locs_the_core_makes_uris_of_are_read_in_bulk() -> None:
    """Every loc has an upper-case host, or a raw non-ASCII path and an IDN host, which the
    compiled lane does not take as written: the core makes them URIs (values/iri.rs), so the
    records are read in bulk, none judged one at a time in Python nor parsed by lxml. The
    result is the full lane's, issues included."""
    n = 2_000
    for loc in ("http://H.test:18080/p{}", "https://bücher.example/café/{}?q='x'"):
        doc = _doc(loc, n)
        calls, fast = _counted(doc)
        assert calls == {"runs": 0, "judged": 0, "pieces": 0}, loc
        assert len(fast[0]) == n and fast == feed_all(doc, [len(doc)], fast=False)  # type: ignore[index]
        codes = {i.code for i in fast[1]}  # type: ignore[index]
        assert codes >= {"normalized-url", "too-many-errors"}


@pytest.mark.parametrize(
    ("loc", "judged"),
    [
        (" http://H.test:18080/p{}", 0),  # XML whitespace around it: read stripped in the core
        ("http://H.test:18080/p{}\u00a0", 2_000),  # a no-break space: the sink's
    ],
)
def test_records_the_core_hands_back_are_judged_in_runs_without_lxml(loc: str, judged: int) -> None:
    """Locs with whitespace around them (reported) are read stripped in the core, or, with
    whitespace only Python strips, judged in runs by the sink's rules; none parsed by lxml
    on its own (each once cost a parse, 13-17k URLs/s)."""
    n = 2_000
    doc = _doc(loc, n)
    calls, fast = _counted(doc)
    assert calls == {"runs": 1 if judged else 0, "judged": judged, "pieces": 0}
    assert len(fast[0]) == n and fast == feed_all(doc, [len(doc)], fast=False)  # type: ignore[index]
    codes = {i.code for i in fast[1]}  # type: ignore[index]
    assert codes == {"normalized-url", "whitespace-in-value", "dev-host", "too-many-errors"}


def test_escaped_and_mixed_host_locs_stay_in_the_fast_lane() -> None:
    """Percent-escaped paths (non-ASCII pages) and several hosts in one file are common in
    real sitemaps; they are read without handing any record to the XML parser, and give
    what the full lane gives."""
    locs = [
        "https://example.com/caf%C3%A9?q=%e2%82%ac",
        "https://www.example.com/a%20b/&amp;c",
        "http://127.0.0.1:8080/x",
        "https://example.com/%2Fslash",
    ]
    doc = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(
            f"  <url>\n    <loc>{loc}{i}</loc>\n  </url>\n" for i in range(50) for loc in locs
        )
        + "</urlset>\n"
    ).encode()
    pieces = {"n": 0}
    original = CompiledLane._piece

    def counting(self, data, start, stop, line):  # type: ignore[no-untyped-def]
        pieces["n"] += 1
        return original(self, data, start, stop, line)

    CompiledLane._piece = counting  # type: ignore[method-assign]
    try:
        fast = feed_all(doc, [len(doc)])
    finally:
        CompiledLane._piece = original  # type: ignore[method-assign]
    assert pieces["n"] == 0
    assert fast == feed_all(doc, [len(doc)], fast=False)
    # 127.0.0.1 is a loopback address: reported once (dev-host), nothing else
    assert len(fast[0]) == 200 and [i.code for i in fast[1]] == ["dev-host"]
    assert fast[0][0] == Url("https://example.com/caf%C3%A9?q=%e2%82%ac0")


def test_stray_or_dot_escapes_leave_the_fast_lane() -> None:
    """'%' that starts no escape, and %2E (a dot segment to WHATWG), are not taken as they
    are: the full lane's rules normalise and report them."""
    for loc in ["https://example.com/100%", "https://example.com/a/%2e%2E/b"]:
        doc = (
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"<url><loc>{loc}</loc></url></urlset>"
        ).encode()
        assert feed_all(doc, [len(doc)]) == feed_all(doc, [len(doc)], fast=False)
        (url,), issues, _, _ = feed_all(doc, [len(doc)])
        assert url.loc != loc and [i.code for i in issues] == ["normalized-url"]


def test_columns_count_characters_in_both_lanes() -> None:
    """libxml2 counts columns in characters; the guard's own issues (an unescaped '&') did
    in bytes, so after non-ASCII text on the same line the two lanes disagreed."""
    line = "<url>\u00a0<loc>http://example.com/a</loc>\u00a0\u00a0</url>&"
    doc = (
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<url><loc>http://example.com/b</loc></url>\n" + line + "\n</urlset>\n"
    ).encode()
    for fast in (True, False):
        for sizes in ([len(doc)], [1], [7]):
            _, issues, _, _ = feed_all(doc, sizes, fast=fast)
            amp = [i for i in issues if i.code == "unescaped-ampersand"]
            assert [(i.line, i.column) for i in amp] == [(3, line.index("&") + 1)]


def test_value_issues_of_an_extension_record_name_the_value_line() -> None:
    """A record with an image goes through the fast lane's extension path; an invalid
    lastmod there is reported at the <lastmod> line, as the full lane reports it."""
    doc = (
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
        b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
        b"<url>\n  <loc>http://example.com/</loc>\n  <lastmod>2024-02-30</lastmod>\n"
        b"  <image:image><image:loc>https://example.com/i.png</image:loc></image:image>\n"
        b"</url>\n</urlset>\n"
    )
    for fast in (True, False):
        _, issues, _, _ = feed_all(doc, [len(doc)], fast=fast)
        assert [(i.code, i.line) for i in issues] == [("invalid-lastmod", 4)]


def test_a_refused_value_seen_again_still_sends_its_block_to_the_full_checks() -> None:
    """The fast lane judges a block's values by a flag its lookup tables set on refusing a
    text; a text refused before (kept apart, not cached as a value) must set it again, or
    the sentinel itself would come out as a lastmod, changefreq or priority."""
    records = "".join(
        f"<url><loc>https://h.test/p{i}</loc><lastmod>{lastmod}</lastmod>"
        f"<changefreq>{changefreq}</changefreq><priority>{priority}</priority></url>\n"
        for i in range(3_000)
        for lastmod, changefreq, priority in [
            (
                "2024-05-01" if i % 500 else "2024-05-01T10:00",
                "daily" if i % 700 else "Daily",
                "0.5" if i % 900 else "0.50000",
            )
        ]
    )
    doc = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{records}</urlset>\n'
    ).encode()
    for sizes in ([len(doc)], [4096], [300]):
        fast = feed_all(doc, sizes, fast=True)
        assert fast == feed_all(doc, [len(doc)], fast=False)
        entries = fast[0]
        assert len(entries) == 3_000
        assert {type(e.lastmod).__name__ for e in entries} <= {"date", "datetime", "NoneType"}
        assert {type(e.priority) for e in entries} <= {float, type(None)}
        assert {e.changefreq for e in entries if isinstance(e, Url)} <= {None, *ChangeFreq}


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from('ab/é \t\n\x00\x7f`^{}|\\"\u00a0\u2003'), max_size=8))
def test_one_search_judges_an_escaped_loc_as_three_did(text: str) -> None:
    """``urls.unescaped`` looks for any of its characters first (a reader lists up to 1,000
    locs made URIs, each judged): the same answer as its three searches alone."""
    import re

    stripped = text.strip()
    if re.search(r"\S\s+\S", stripped) or re.search(r"[\x00-\x1f\x7f]", stripped):
        expected: str | None = "contains spaces or control characters"
    elif (forbidden := re.search(r"[`^{}|\\\"]", stripped)) is not None:
        expected = f"contains {forbidden.group()!r}, which must be percent-encoded"
    else:
        expected = None
    assert unescaped(text) == expected


def test_a_runs_entries_are_left_out_of_the_cyclic_collector() -> None:
    """The compiled lane's Urls and SitemapRefs are made untracked (``untracked_rows``):
    equal to what their constructors make, not tracked by ``gc``, and collected when
    dropped; their items are values that refer to nothing that could refer back."""
    import gc
    import sys

    from urlset import read_bytes
    from urlset.model import SitemapRef

    image = "http://www.google.com/schemas/sitemap-image/1.1"
    urls = b"".join(
        b"<url><loc>https://e.com/%d</loc><lastmod>2024-01-02</lastmod>" % i
        + b"<changefreq>daily</changefreq><priority>0.5</priority>"
        + (b"<image:image><image:loc>https://e.com/%d.png</image:loc></image:image>" % i) * (i % 2)
        + b"</url>"
        for i in range(200)
    )
    doc = (
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="'
        + image.encode()
        + b'">'
        + urls
        + b"</urlset>"
    )
    read = list(read_bytes(doc))
    assert len(read) == 200 and all(type(u) is Url for u in read)
    assert not any(gc.is_tracked(u) for u in read)
    first = read[1]
    assert first == Url(first.loc, first.lastmod, ChangeFreq.DAILY, 0.5, first.extensions)
    assert first.extensions and first.extensions[0].loc == "https://e.com/1.png"
    index = b"".join(b"<sitemap><loc>https://e.com/s%d.xml</loc></sitemap>" % i for i in range(50))
    refs = list(
        read_bytes(
            b'<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            + index
            + b"</sitemapindex>"
        )
    )
    assert refs[3] == SitemapRef("https://e.com/s3.xml") and not gc.is_tracked(refs[3])
    # dropped, an entry lets go of its items (reference counting frees an untracked tuple)
    image_of_first = first.extensions[0]
    held = sys.getrefcount(image_of_first)
    del read, first
    assert sys.getrefcount(image_of_first) < held


def test_the_extensions_a_run_types_are_made_by_the_core_untracked_in_document_order() -> None:
    """Images, videos, news, hreflang links and elements of other namespaces, interleaved in
    one entry: the core makes each (``SlotMaker``, ``RawElement``), left out of the cyclic
    collector, in the order written, and the entry equals the careful lane's."""
    import gc

    from test_read_support import feed_all

    ns = {
        "image": "http://www.google.com/schemas/sitemap-image/1.1",
        "video": "http://www.google.com/schemas/sitemap-video/1.1",
        "news": "http://www.google.com/schemas/sitemap-news/0.9",
        "xhtml": "http://www.w3.org/1999/xhtml",
        "pd": "https://example.com/product",
    }
    bindings = " ".join(f'xmlns:{p}="{uri}"' for p, uri in ns.items())
    entry = (
        "<url><loc>https://e.com/{i}</loc>"
        '<xhtml:link rel="alternate" hreflang="de" href="https://e.com/de/{i}"/>'
        "<image:image><image:loc>https://e.com/{i}.png</image:loc></image:image>"
        "<pd:price>{i}</pd:price>"
        "<video:video><video:thumbnail_loc>https://e.com/{i}.jpg</video:thumbnail_loc>"
        "<video:title>T</video:title><video:description>D</video:description>"
        "<video:content_loc>https://e.com/{i}.mp4</video:content_loc></video:video>"
        "<news:news><news:publication><news:name>P</news:name><news:language>en"
        "</news:language></news:publication><news:publication_date>2024-01-02"
        "</news:publication_date><news:title>N</news:title></news:news>"
        "<image:image><image:loc>https://e.com/{i}b.png</image:loc></image:image></url>"
    )
    doc = (
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" {bindings}>'
        + "".join(entry.format(i=i) for i in range(40))
        + "</urlset>"
    ).encode()
    fast, issues, _, _ = feed_all(doc, [len(doc)])
    assert (fast, issues) == feed_all(doc, [len(doc)], fast=False)[:2]
    kinds = [type(e).__name__ for e in fast[7].extensions]  # type: ignore[union-attr]
    assert kinds == ["Alternate", "Image", "RawElement", "Video", "News", "Image"]
    made = [e for url in fast for e in url.extensions]  # type: ignore[union-attr]
    assert len(made) == 240 and not any(gc.is_tracked(e) for e in made)
    # and so is each entry's tuple of them: a batch held leaves the collector nothing to walk
    assert not any(gc.is_tracked(url.extensions) for url in fast)  # type: ignore[union-attr]
    # the raw elements of one name share their namespace and name strings
    raws = [e for e in made if type(e) is RawElement]
    assert all(r.namespace is raws[0].namespace and r.name is raws[0].name for r in raws)


def test_untracked_rows_makes_only_tuples_without_a_dict() -> None:
    """What ``untracked_rows`` refuses: a class that is no tuple, a tuple subclass whose
    instances hold a dict (an attribute could close a cycle), a column of another length,
    another number of columns than the class has fields."""
    from urlset._core import untracked_rows

    class WithDict(tuple):  # type: ignore[type-arg]
        pass

    assert untracked_rows(Url, 2, (["a", "b"], None, None, None, ()))[1].loc == "b"
    with pytest.raises(TypeError):
        untracked_rows(dict, 1, (["a"],))  # type: ignore[type-var]
    with pytest.raises(TypeError):
        untracked_rows(WithDict, 1, (["a"],))
    with pytest.raises(ValueError, match="a column of 1 values for 2 rows"):
        untracked_rows(Url, 2, (["a"], None, None, None, ()))
    with pytest.raises(ValueError, match="3 columns for the 5 fields of Url"):
        untracked_rows(Url, 1, (["a"], None, None))

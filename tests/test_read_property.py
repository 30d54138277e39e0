"""Property tests of the reader (hypothesis).

* Feeding in random chunk sizes never changes the result.
* The fast lane and the full lane give the same result on generated documents, including
  mutated (broken) ones: the fast lane is only an optimisation.
* A document cut anywhere yields exactly the entries whose end tag lies before the cut.
* read(write(entries)) == entries, with the project's writer (urlset.writing.document).
* Fuzz: mutated sitemaps never make the reader raise; every issue code is documented.
* The fast checks agree with the model's own rules (to_uri, parse_lenient).
"""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from test_read_support import NS, feed_all
from urlset import _core
from urlset.codes import CODES
from urlset.dates import parse_lenient
from urlset.extensions.rules import EXT_CODES
from urlset.limits import ReadLimits
from urlset.model import ChangeFreq, RawElement, SitemapRef, Url
from urlset.reading.reader import SitemapReader, read_bytes
from urlset.reading.sink import Sink, fast_lastmod, fast_priority, fast_uri
from urlset.urls import to_uri
from urlset.writing.document import SitemapDocument, index_document

SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# --- generated documents: canonical records mixed with everything the fast lane hands over

hosts = st.sampled_from(
    [
        "example.com",
        "www.example.org",
        "a.b.example",
        "Example.com",
        "xn--bcher-kva.de",
        "127.0.0.1:8080",
        "example.com:18080",
        "bücher.example",
        "example.com:443",
    ]
)
paths = st.lists(
    st.sampled_from(
        [
            *["a", "b", "p%20q", "c d", "ü", "x.html", ".", "..", "q?x=1&y=2", "z'", ""],
            *["caf%C3%A9", "%e2%82%ac", "%2e", "%2E%2e", "100%", "%zz", "%2F", "?q=%41"],
        ]
    ),
    max_size=4,
).map("/".join)
locs_text = st.builds(
    lambda s, h, p: f"{s}://{h}/{p}", st.sampled_from(["http", "https", "HTTP"]), hosts, paths
) | st.sampled_from(
    [
        "/relative",
        "",
        "  https://example.com/pad  ",
        "ftp://example.com/x",
        "https://example.com/a#frag",
    ]
)
lastmods_text = st.sampled_from(
    [
        "2024-01-02",
        "2024-01-02T03:04:05+00:00",
        "2024-01-02T03:04:05Z",
        "2024-01-02T03:04:05-07:30",
        "2024-1-2",
        "2024-01-02 03:04:05",
        "2024-02-30",
        "yesterday",
        "",
        "2024-01-02T03:04:05.123+01:00",
    ]
)
freqs_text = st.sampled_from(["daily", "weekly", "Daily", "sometimes", "never"])
prios_text = st.sampled_from(["0.5", "1.0", "0", "1", "0.25", "1.5", "-1", "high", " 0.3 "])


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;")


_IMAGE_TEXT = st.text(
    alphabet="aZ 09&<>'\"\t\n]\u00e9\u2013\u2019\u65e5\u00a0\u00ad\U0001f600", max_size=10
)


@st.composite
def images(draw: st.DrawFn) -> str:
    """An image element with a drawn loc and optional texts (escaped or in CDATA), in or out
    of the schema's order: the tokenizer types the plain ones (rust/core/src/read/images.rs)."""
    children = []
    for name in ("caption", "geo_location", "title"):
        if draw(st.booleans()):
            text = draw(_IMAGE_TEXT)
            if draw(st.booleans()) and "]]>" not in text:
                body = f"<![CDATA[{text}]]>"
            else:
                body = _escape(text)
            children.append(f"<image:{name}>{body}</image:{name}>")
    if draw(st.booleans()):
        children.reverse()
    sep = draw(st.sampled_from(["", "\n  "]))
    loc = f"<image:loc>{_escape(draw(locs_text))}</image:loc>"
    return "<image:image>" + sep + sep.join([loc, *children]) + "</image:image>"


@st.composite
def records(draw: st.DrawFn) -> str:
    loc = _escape(draw(locs_text))
    if draw(st.booleans()):  # "'" as the writer escapes it (the compiled lane reads both)
        loc = loc.replace("'", "&apos;")
    parts = [f"<loc>{loc}</loc>"]
    if draw(st.booleans()):
        parts.append(f"<lastmod>{draw(lastmods_text)}</lastmod>")
    if draw(st.booleans()):
        parts.append(f"<changefreq>{draw(freqs_text)}</changefreq>")
    if draw(st.booleans()):
        parts.append(f"<priority>{draw(prios_text)}</priority>")
    extra = draw(
        st.sampled_from(
            [
                "",
                "",
                "",
                "<image:image><image:loc>https://example.com/i.png</image:loc></image:image>",
                "<!-- note -->",
                "<lastmod>2020-01-01</lastmod>",
                "<unknown>x</unknown>",
                "<loc>https://example.com/second</loc>",
            ]
        )
    )
    if draw(st.integers(0, 3)) == 0:
        extra += "".join(draw(st.lists(images(), min_size=1, max_size=3)))
    if draw(st.booleans()):
        parts.reverse()
    sep = draw(st.sampled_from(["", "\n  ", " ", "\r\n", "\t", "\u00a0", "\x0c"]))
    return "<url>" + sep + sep.join([*parts, extra]) + sep + "</url>"


@st.composite
def documents(draw: st.DrawFn) -> bytes:
    body = draw(st.lists(records(), max_size=12))
    between = draw(st.sampled_from(["\n", "", "\n<!-- c -->\n", "  \n"]))
    head = draw(
        st.sampled_from(
            [
                f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
                'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">',
                f'<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">',
                f'\ufeff<?xml version="1.0"?>\n\n<urlset\n  xmlns="{NS}"\n'
                '  xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">',
            ]
        )
    )
    return (head + "\n" + between.join(body) + "\n</urlset>\n").encode()


@st.composite
def index_documents(draw: st.DrawFn) -> bytes:
    """The same records as a sitemap index's entries (changefreq and priority are then
    unknown elements there)."""
    text = draw(documents()).decode()
    for old, new in [
        ("url>", "sitemap>"),
        ("<urlset", "<sitemapindex"),
        ("urlset>", "sitemapindex>"),
    ]:
        text = text.replace(old, new)
    return text.encode()


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(documents() | index_documents()))
    for _ in range(draw(st.integers(1, 4))):
        if not data:
            break
        at = draw(st.integers(0, len(data) - 1))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "cut", "repeat"]))
        piece = draw(
            st.sampled_from(
                [
                    b"<",
                    b">",
                    b"&",
                    b"\x00",
                    b"\xff",
                    b"]]>",
                    b"<!--",
                    b"</url>",
                    b"<url>",
                    b"\n",
                    b"&amp;",
                    b"&apos;",
                    b"\xc3",
                ]
            )
        )
        if kind == "delete":
            del data[at : at + draw(st.integers(1, 20))]
        elif kind == "insert":
            data[at:at] = piece
        elif kind == "replace":
            data[at : at + len(piece)] = piece
        elif kind == "cut":
            del data[at:]
        else:
            data[at:at] = data[at : at + draw(st.integers(1, 200))]
    return bytes(data)


chunkings = st.lists(st.integers(1, 300), min_size=1, max_size=8)


@SETTINGS
@given(documents(), chunkings)
def test_random_chunking_changes_nothing(doc: bytes, sizes: list[int]) -> None:
    assert feed_all(doc, sizes) == feed_all(doc, [len(doc)])


@SETTINGS
@given(documents(), chunkings)
def test_fast_lane_equals_full_lane(doc: bytes, sizes: list[int]) -> None:
    assert feed_all(doc, sizes, fast=True) == feed_all(doc, [len(doc)], fast=False)


@SETTINGS
@given(index_documents(), chunkings)
def test_fast_lane_equals_full_lane_on_indexes(doc: bytes, sizes: list[int]) -> None:
    assert feed_all(doc, sizes, fast=True) == feed_all(doc, [len(doc)], fast=False)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(), chunkings)
def test_fuzz_mutated_documents(doc: bytes, sizes: list[int]) -> None:
    """Nothing escapes but issues; every code is in the table; lanes and chunkings agree."""
    full = feed_all(doc, [len(doc) or 1], fast=False)
    entries, issues, _, _ = full
    assert all(i.code in CODES or i.code in EXT_CODES for i in issues)
    assert all(isinstance(e, (Url, SitemapRef)) for e in entries)
    assert feed_all(doc, sizes, fast=True) == full


@pytest.mark.parametrize("sizes", [[1], [2], [10_000]])
def test_a_document_whose_root_never_starts_gets_the_same_issues_however_fed(
    sizes: list[int],
) -> None:
    """Found by the fuzz test: fed at once, libxml2 reported its errors while feeding and the
    reader added "no root element found" at 0:0 on closing; fed in small chunks, the same
    errors came on closing and it did not."""
    doc = b'<?&xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n</urlset>\n'
    _, issues, fmt, fatal = feed_all(doc, sizes, fast=False)
    assert fmt is None and fatal
    assert [(i.code, i.line, i.column) for i in issues] == [
        ("empty-document", 1, 3),
        ("not-well-formed", 1, 3),
    ]


@pytest.mark.parametrize("sizes", [[1], [2], [7], [10_000]])
def test_a_quoted_gt_in_the_root_tag_reads_the_same_however_fed(sizes: list[int]) -> None:
    """Found by the fuzz test: fed in small chunks, a '>' inside a quoted attribute of the
    root start tag was taken for its end, and the document went to libxml2 whole (one more
    error reported) instead of the root tag alone, as when fed at once."""
    doc = (
        b'<rlset xmlns=">http://www.sitemaps.org/schemas/sitemap/0.9" '
        b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n\n</urlset>\n'
    )
    whole = feed_all(doc, [len(doc)], fast=False)
    assert [i.code for i in whole[1]] == ["unknown-root", "not-well-formed"]
    assert feed_all(doc, sizes, fast=True) == whole == feed_all(doc, sizes, fast=False)


@pytest.mark.parametrize("sizes", [[1], [64], [10_000]])
def test_a_prefix_inside_another_attribute_of_the_root_declares_nothing(sizes: list[int]) -> None:
    """The compiled lane took the root's prefixes from a pattern over the start tag's text,
    which also matched inside another attribute's value: it typed an image the careful lane
    (rightly) calls an undeclared prefix."""
    doc = (
        f'<urlset xmlns="{NS}" data-x="xmlns:image=\'http://www.google.com/schemas/'
        "sitemap-image/1.1'\">\n<url><loc>https://example.com/</loc><image:image>"
        "<image:loc>https://example.com/a.jpg</image:loc></image:image></url>\n</urlset>\n"
    ).encode()
    full = feed_all(doc, [len(doc)], fast=False)
    assert "not-well-formed" in {i.code for i in full[1]}
    assert feed_all(doc, sizes, fast=True) == full


@SETTINGS
@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=30, unique=True), st.data())
def test_cut_anywhere_keeps_only_whole_entries(ids: list[int], data: st.DataObject) -> None:
    body = "".join(
        f"<url>\n <loc>https://example.com/{i}</loc>\n <lastmod>2024-01-01</lastmod>\n</url>\n"
        for i in ids
    )
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
    )
    cut = data.draw(st.integers(0, len(doc)))
    fast = data.draw(st.booleans())
    entries, issues, _, _ = feed_all(doc[:cut], [data.draw(st.integers(1, 500))], fast=fast)
    whole = doc[:cut].count(b"</url>")
    assert [e.loc for e in entries] == [f"https://example.com/{i}" for i in ids[:whole]]
    if cut < len(doc) - 1 and cut > doc.index(b"<urlset"):
        assert any(i.severity == "error" for i in issues)


# --- round trip through the project's writer -------------------------------------------

uris = st.builds(
    lambda s, h, p, q: f"{s}://{h}/{p}{q}",
    st.sampled_from(["http", "https"]),
    st.sampled_from(["example.com", "www.example.org", "xn--bcher-kva.de", "a-b.example"]),
    st.lists(st.text("abcXYZ019-._~!$&()*+,;=:@%", min_size=1, max_size=8), max_size=3).map(
        "/".join
    ),
    st.sampled_from(["", "?a=1", "?a=1&b=2", "?q=x'y"]),
).map(to_uri)
zones = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
lastmods = (
    st.none()
    | st.dates(date(1990, 1, 1), date(2100, 1, 1))
    | st.builds(
        lambda d, z: d.replace(tzinfo=z),
        st.datetimes(datetime(1990, 1, 1), datetime(2100, 1, 1)),
        zones,
    )
)
priorities = st.none() | st.integers(0, 10000).map(lambda i: i / 10000)
raw_elements = st.builds(
    lambda ns, name, text: _raw(ns, name, text),
    st.sampled_from(["http://www.google.com/schemas/sitemap-image/1.1", "urn:x-test:ext"]),
    st.sampled_from(["image", "thing"]),
    st.text("abc <&>xyz", max_size=10),
)


def _raw(ns: str, name: str, text: str) -> RawElement:
    el = etree.Element(f"{{{ns}}}{name}", nsmap={"p": ns})
    el.text = text or None
    return RawElement(ns, name, etree.tostring(el, encoding="unicode"))


urls = st.builds(
    Url,
    uris,
    lastmods,
    st.none() | st.sampled_from(list(ChangeFreq)),
    priorities,
    st.lists(raw_elements, max_size=2).map(tuple),
)


def _write(entries: list[Url], *, text: bool = False) -> bytes:
    out: list[bytes] = []
    doc = SitemapDocument(out.append, max_urls=100_000, max_bytes=1 << 30, text=text)
    assert doc.add(entries) == len(entries)
    doc.close()
    return b"".join(out)


@SETTINGS
@given(st.lists(urls, max_size=20))
def test_read_write_round_trip(entries: list[Url]) -> None:
    data = _write(entries)
    result = read_bytes(data)
    assert list(result) == entries
    # raw elements drawn in a typed namespace (an empty <image:image>) are not valid
    # extensions: the reader keeps them raw, as written, and says why
    expected = {
        "duplicate-loc",
        "invalid-image",
        "invalid-video",
        "invalid-news",
        "invalid-alternate",
    }
    assert [i for i in result.issues if i.code not in expected] == []


@SETTINGS
@given(st.lists(urls, max_size=20))
def test_read_write_round_trip_text(entries: list[Url]) -> None:
    plain = [Url(u.loc) for u in entries]
    result = read_bytes(_write(plain, text=True))
    assert list(result) == plain
    assert result.format == ("text" if plain else "unknown")


@SETTINGS
@given(st.lists(st.builds(SitemapRef, uris, lastmods), max_size=20))
def test_read_write_round_trip_index(refs: list[SitemapRef]) -> None:
    result = read_bytes(index_document(refs).encode())
    assert list(result) == refs
    assert result.format == "sitemapindex"


# --- the fast checks agree with the model's rules ------------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    st.text("htps:/wexamplcom.-_~!$&'()*+,;=@?%AZ09#[] ", max_size=40).map(
        lambda t: "https://example.com/" + t
    )
    | st.from_regex(r"\Ahttps?://[a-z0-9.\-]{1,15}/[a-z./]{0,8}\Z", fullmatch=True)
    | st.text(max_size=30)
)
def test_fast_uri_implies_to_uri_identity(text: str) -> None:
    if fast_uri(text):
        assert to_uri(text) == text


@settings(max_examples=300, deadline=None)
@given(
    st.builds(
        lambda scheme, host, path: f"{scheme}://{host}/{path}",
        st.sampled_from(["http", "https"]),
        st.from_regex(r"\A[a-z0-9.\-]{1,20}\Z", fullmatch=True),
        st.text("ab09-._~!$'()*+,;=:@/?&amp;%2eEfF", max_size=20),
    )
)
def test_compiled_loc_check_implies_to_uri_identity(text: str) -> None:
    """The compiled lane's loc check (on the text as written) passes only URIs that to_uri
    keeps as they are, and that the sink's own check (fast_uri) passes too."""
    if _core.plain_loc(text.encode()):
        loc = text.replace("&amp;", "&")
        assert fast_uri(loc)
        assert to_uri(loc) == loc


@settings(max_examples=300, deadline=None)
@given(
    st.builds(
        lambda scheme, host, path: f"{scheme}://{host}/{path}",
        st.sampled_from(["http", "https", "HTTP", "ftp"]),
        st.sampled_from(["example.com", "a.example", "127.0.0.1:8080", "Example.com", "x:80"]),
        st.text("ab09-._~!$()*+,;=:@/?&amp;%2eEfF\n é'", max_size=12),
    )
)
def test_compiled_loc_check_takes_what_the_sink_takes(text: str) -> None:
    """A loc the sink's check (fast_uri) takes as it is, escaped as the writer escapes it, is
    taken by the compiled lane too, so plain files never leave it."""
    if fast_uri(text):
        assert _core.plain_loc(text.replace("&", "&amp;").encode())


@settings(max_examples=300, deadline=None)
@given(
    st.from_regex(r"\A\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d))?\Z", fullmatch=True)
    | st.text("0123456789-T:Z+ ", max_size=26)
)
def test_fast_lastmod_agrees_with_parse_lenient(text: str) -> None:
    fast = fast_lastmod(text)
    if fast is None:
        return
    value, problem = parse_lenient(text)
    assert problem is None
    assert value == fast and type(value) is type(fast)
    if isinstance(value, datetime):
        assert value.utcoffset() == fast.utcoffset()  # type: ignore[union-attr]


@settings(max_examples=500, deadline=None)
@given(
    st.from_regex(
        r"\A\d{4}-[01]\d-[0-3]\d(T[0-2]\d:[0-6]\d:[0-6]\d(\.\d{0,8})?(Z|[+-][0-2]\d:[0-6]\d))?\Z",
        fullmatch=True,
    )
    | st.text("0123456789-T:Z+. ", max_size=32)
)
def test_compiled_lastmods_are_what_parse_lenient_gives(text: str) -> None:
    """The value the compiled lane gives a lastmod it takes as plain is parse_lenient's,
    with no problem to report: the same type, fields and zone."""
    fast = _core.lastmod_value(text.encode())
    if fast is None:
        return
    value, problem = parse_lenient(text)
    assert problem is None
    assert value == fast and type(value) is type(fast)
    if isinstance(value, datetime):
        assert isinstance(fast, datetime)
        assert value.timetuple() == fast.timetuple() and value.microsecond == fast.microsecond
        assert value.tzinfo == fast.tzinfo and value.utcoffset() == fast.utcoffset()


_LENIENT_ASCII = (
    r"[0-9]{4}(-[0-9]{1,2}(-[0-9]{1,2}([T ][0-9]{1,2}:[0-9]{1,2}(:[0-9]{1,2}([.,][0-9]{1,9})?)?"
    r" {0,2}(Z|z|UTC|GMT|[+-][0-9]{1,2}(:?[0-9]{2})?)?)?)?)?"
)


@settings(max_examples=2000, deadline=None)
@given(
    st.from_regex(rf"\A{_LENIENT_ASCII}\Z", fullmatch=True)
    | st.text("0123456789-T:Zz+., UTCGMN/At\t&", max_size=32)
)
def test_compiled_lastmod_judgements_are_the_readers(text: str) -> None:
    """A lastmod the compiled lane judges (lenient or invalid) is what Sink.lastmod makes of
    it: the same value, or none, and the issue of the same code; and every text the core
    claims (the lenient forms in ASCII, and printable ASCII without whitespace around it, '&',
    '<' or a 't'), it judges: none leaves the core."""
    judged = _core.judged_value(1, text.encode())
    sink = Sink("t", ReadLimits(), None)
    value = sink.lastmod(text, 1)
    codes = [i.code for i in sink.out]
    if judged is None:
        claimed = text == text.strip() and (
            re.fullmatch(_LENIENT_ASCII, text) is not None
            or (re.fullmatch(r"[ -~]*", text) is not None and not re.search("[&<tT]", text))
        )
        assert not claimed or codes == [], (text, codes)
        return
    fast, invalid = judged
    assert _core.lastmod_value(text.encode()) is None  # the W3C forms are plain
    assert codes == ["invalid-lastmod" if invalid else "lenient-lastmod"], (text, codes)
    assert value == fast and type(value) is type(fast)
    if isinstance(value, datetime):
        assert isinstance(fast, datetime)
        assert value.timetuple() == fast.timetuple() and value.microsecond == fast.microsecond
        assert value.tzinfo == fast.tzinfo and value.utcoffset() == fast.utcoffset()


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from([2, 3]),
    st.sampled_from(["daily", "Weekly", "NEVER", "0.5", ".5", "1.0", "1e-1", "inf", "nan"])
    | st.text("0123456789.+-eEinfatyDWdlywkN_ &", max_size=12),
)
def test_compiled_changefreq_and_priority_judgements_are_the_readers(
    element: int, text: str
) -> None:
    """A changefreq or priority the compiled lane judges is what Sink.changefreq or
    Sink.priority makes of it: the same value, or none, and the issue of the same code (or
    none: Python's float reads '.5' without a word); and every text of printable ASCII
    without a space at its ends, '&', '<' or (a priority) '_' it judges."""
    judged = _core.judged_value(element, text.encode())
    sink = Sink("t", ReadLimits(), None)
    read = sink.changefreq if element == 2 else sink.priority
    value = read(text, 1)
    codes = [i.code for i in sink.out]
    if judged is None:
        claimed = text == text.strip() and re.fullmatch(r"[ -~]*", text) is not None
        claimed = claimed and not re.search("[&<]" if element == 2 else "[&<_]", text)
        plain = (element == 2 and text in {c.value for c in ChangeFreq}) or (
            element == 3 and fast_priority(text) is not None
        )
        assert not claimed or plain, (text, value, codes)
        return
    fast, invalid = judged
    if invalid:
        assert value is None and codes == [
            "invalid-changefreq" if element == 2 else "invalid-priority"
        ]
        return
    if element == 2:
        assert (
            isinstance(value, ChangeFreq) and value.value == fast and codes == ["changefreq-case"]
        )
    else:
        assert value == fast and codes == [], (text, value, fast, codes)


def test_reader_refuses_feed_after_close_and_bad_base() -> None:
    """The only exceptions the reader raises: misuse, never bad input."""
    reader = SitemapReader()
    reader.close()
    try:
        reader.feed(b"x")
    except ValueError:
        pass
    else:
        raise AssertionError("feed after close must raise")
    try:
        SitemapReader(base_url="mailto:x@example.com")
    except ValueError:
        pass
    else:
        raise AssertionError("a bad base URL must raise")


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["http", "https"]),
    st.sampled_from(["a.com", "127.0.0.1", "127.1", "01.2.3.4", "256.0.0.1", "1.2.3.4", "x.y9"]),
    st.sampled_from(["", ":80", ":443", ":8080", ":08080", ":0", ":99999", ":65535"]),
    st.text("ab/.%2e?&=", max_size=12),
)
def test_fast_uri_with_ports_and_addresses_is_what_the_full_parse_gives(
    scheme: str, host: str, port: str, tail: str
) -> None:
    from urlset.urls import full_uri

    text = f"{scheme}://{host}{port}/{tail}"
    if fast_uri(text):
        assert full_uri(text) == text


def test_a_declared_encoding_is_reported_once_however_the_bytes_arrive() -> None:
    """The prolog is scanned again as bytes arrive; its findings must not repeat."""
    doc = (
        b'<?xml version="1.0" encoding="TF-8"?>\n'
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n</urlset>\n'
    )
    for sizes in ([1], [5], [len(doc)]):
        _, issues, _, _ = feed_all(doc, sizes)
        assert [i.code for i in issues].count("non-utf8-encoding") == 1


# the fast check's path as first written: a plain character or an escape at each step
_PATH_STEP_BY_STEP = r"/(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?]|%(?!2[eE])[0-9A-Fa-f]{2})*"


@settings(max_examples=500, deadline=None)
@given(st.text("ab/.-_~!$&'()*+,;=:@?%2eEfF09#[] é", max_size=30))
def test_fast_uri_path_runs_match_what_steps_match(tail: str) -> None:
    """The possessive runs of ``_FAST_URI``'s path take exactly the paths that a character
    or an escape at a time does."""
    import re

    from urlset.reading.sink import HOST, fast_uri

    step_by_step = re.compile(rf"https?://{HOST}{_PATH_STEP_BY_STEP}")
    text = f"https://www.example.com/{tail}"
    expected = "/." not in text and step_by_step.fullmatch(text) is not None
    assert fast_uri(text) == expected


@settings(max_examples=500, deadline=None)
@given(
    st.binary(max_size=60)
    | st.lists(
        st.sampled_from(
            [
                b"&",
                b"<!--",
                b"<![CDATA[",
                b"<?",
                b"<!",
                b"<!-",
                b"<![CDATA",
                b"<",
                b"a",
                b"!",
                b"?",
                b"-",
                b"[",
            ]
        ),
        max_size=20,
    ).map(b"".join)
)
def test_the_guards_tokens_are_the_ones_a_pattern_finds(data: bytes) -> None:
    """``xml_guard._Tokens`` finds, from each place on, the token the pattern
    ``&|<!--|<!\\[CDATA\\[|<\\?`` finds first, asked in any order a read asks."""
    import re

    from urlset.reading.xml_guard import _Tokens

    pattern = re.compile(rb"&|<!--|<!\[CDATA\[|<\?")
    tokens = _Tokens(data)
    i = 0
    while i <= len(data):  # from each token on, as the guard asks
        m = pattern.search(data, i)
        assert tokens.next(i) == (None if m is None else (m.start(), m.group()))
        i = len(data) + 1 if m is None else m.start() + 1
    fresh = _Tokens(data)
    for i in range(len(data) + 1):  # and from every place, a fresh finder each time
        m = pattern.search(data, i)
        assert _Tokens(data).next(i) == (None if m is None else (m.start(), m.group()))
        assert fresh.next(i) == (None if m is None else (m.start(), m.group()))


_TAG_PARTS = [b"<", b"</", b"item", b"ite", b"m", b"x:", b"x", b">", b" ", b"\n", b"/", b"<!--"]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_TAG_PARTS), max_size=30).map(b"".join) | st.binary(max_size=40))
def test_the_last_entry_tag_is_the_last_a_pattern_finds(window: bytes) -> None:
    """``xml_full.last_tag`` gives where the last match of the lane's start and end tag
    patterns starts, as finding every match does."""
    import re

    from urlset.reading.xml_full import last_tag

    for pattern in (rb"<(?:[\w.\-]+:)?item[ \t\r\n>]", rb"</(?:[\w.\-]+:)?item[ \t\r\n]*>"):
        tag = re.compile(pattern)
        starts = [m.start() for m in tag.finditer(window)]
        assert last_tag(tag, window, b"item") == max(starts, default=-1)

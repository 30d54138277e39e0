"""Property tests: read(write(x)) == x for URLs with random extension content, and the byte
limit holds for every split (documents read back with the project's reader and lxml)."""

from __future__ import annotations

import string
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from lxml import etree

from urlset import InvalidValue, RawElement, Url
from urlset.extensions import (
    GENRES,
    ISO_639_1,
    ISO_3166_1,
    Alternate,
    Image,
    News,
    Price,
    Relationship,
    Video,
    typed,
)
from urlset.reading.reader import read_bytes
from urlset.writing.document import URLSET_FOOTER, EntryTooLarge, SitemapDocument, urlset_header

BASE = "https://www.example.com/"

# any character XML 1.0 can carry, control characters aside (tab and newline included)
chars = st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\ufffe\uffff")
text = st.text(st.one_of(chars, st.sampled_from("\t\n&<>\"' ]]>")), min_size=1, max_size=40)
short = st.text(chars, min_size=1, max_size=20)
word = st.text(string.ascii_letters + string.digits, min_size=1, max_size=8)
path = st.text(string.ascii_letters + string.digits + "-._~!$&'()*+,;=:@/%äé ", max_size=30)


@st.composite
def uris(draw: st.DrawFn) -> str:
    host = draw(st.sampled_from(["www.example.com", "img.example.org", "bücher.de", "[::1]"]))
    query = draw(st.one_of(st.just(""), path.map(lambda p: "?" + p)))
    return f"{draw(st.sampled_from(['http', 'https']))}://{host}/{draw(path)}{query}"


offsets = st.integers(-14 * 60, 14 * 60).map(lambda m: timezone(timedelta(minutes=m)))
moments = st.one_of(
    st.dates(date(1000, 1, 1), date(9999, 12, 31)),
    st.datetimes(
        datetime(1000, 1, 2), datetime(9999, 12, 30), timezones=st.one_of(st.just(UTC), offsets)
    ),
)


def built(cls: Any, **fields: Any) -> Any:
    try:
        return cls(**fields)
    except InvalidValue:
        assume(False)


@st.composite
def images(draw: st.DrawFn) -> Image:
    optional = st.one_of(st.none(), text)
    return built(
        Image,
        loc=draw(uris()),
        caption=draw(optional),
        geo_location=draw(optional),
        title=draw(optional),
        license=draw(st.one_of(st.none(), uris())),
    )


@st.composite
def videos(draw: st.DrawFn) -> Video:
    maybe = lambda s: st.one_of(st.none(), s)  # noqa: E731
    content = draw(maybe(uris()))
    player = draw(uris()) if content is None else draw(maybe(uris()))
    countries = st.lists(st.sampled_from(sorted(ISO_3166_1)), max_size=4).map(tuple)
    platforms = st.lists(st.sampled_from(["web", "mobile", "tv"]), max_size=3).map(tuple)
    return built(
        Video,
        thumbnail_loc=draw(uris()),
        title=draw(st.text(chars, min_size=1, max_size=100)),
        description=draw(text),
        content_loc=content,
        player_loc=player,
        player_allow_embed=draw(maybe(st.booleans())) if player else None,
        player_autoplay=draw(maybe(short)) if player else None,
        duration=draw(maybe(st.integers(1, 28_800))),
        expiration_date=draw(maybe(moments)),
        rating=draw(maybe(st.floats(0.0, 5.0))),
        view_count=draw(maybe(st.integers(0, 10**12))),
        publication_date=draw(maybe(moments)),
        tags=tuple(draw(st.lists(short, max_size=4))),
        category=draw(maybe(short)),
        family_friendly=draw(maybe(st.booleans())),
        restriction=draw(
            maybe(st.builds(Relationship, st.sampled_from(["allow", "deny"]), countries))
        ),
        gallery_loc=(gallery := draw(maybe(uris()))),
        gallery_title=draw(maybe(short)) if gallery else None,
        prices=tuple(
            draw(
                st.lists(
                    st.builds(
                        Price,
                        st.from_regex(r"\d{1,4}(\.\d{1,2})?", fullmatch=True),
                        st.sampled_from(["EUR", "USD", "JPY"]),
                        st.sampled_from([None, "rent", "purchase"]),
                        st.sampled_from([None, "sd", "hd"]),
                    ),
                    max_size=2,
                )
            )
        ),
        requires_subscription=draw(maybe(st.booleans())),
        uploader=(uploader := draw(maybe(short))),
        uploader_info=draw(maybe(uris())) if uploader else None,
        platform=draw(
            maybe(st.builds(Relationship, st.sampled_from(["allow", "deny"]), platforms))
        ),
        live=draw(maybe(st.booleans())),
    )


@st.composite
def news(draw: st.DrawFn) -> News:
    no_comma = short.filter(lambda s: "," not in s)
    return built(
        News,
        publication_name=draw(text),
        language=draw(st.sampled_from([*sorted(ISO_639_1), "zh-cn", "zh-tw", "fil"])),
        publication_date=draw(moments),
        title=draw(text),
        access=draw(st.sampled_from([None, "Subscription", "Registration"])),
        genres=tuple(draw(st.lists(st.sampled_from(GENRES), max_size=3))),
        keywords=tuple(draw(st.lists(no_comma, max_size=3))),
        stock_tickers=tuple(draw(st.lists(st.tuples(word, word).map(":".join), max_size=5))),
    )


@st.composite
def alternates(draw: st.DrawFn) -> Alternate:
    language = draw(st.sampled_from(sorted(ISO_639_1)))
    region = draw(st.sampled_from(["", "-" + draw(st.sampled_from(sorted(ISO_3166_1))), "-419"]))
    code = draw(st.sampled_from([language + region, "x-default"]))
    return built(Alternate, hreflang=code, href=draw(uris()))


raws = st.sampled_from(
    [
        RawElement("urn:example:x", "thing", '<x:thing xmlns:x="urn:example:x" a="1">t &amp; <x:b/></x:thing>'),
        RawElement(
            "http://www.google.com/schemas/sitemap-mobile/1.0",
            "mobile",
            '<mobile:mobile xmlns:mobile="http://www.google.com/schemas/sitemap-mobile/1.0"/>',
        ),
    ]
)  # fmt: skip
extension = st.one_of(images(), videos(), news(), alternates(), raws)


@st.composite
def urls(draw: st.DrawFn) -> list[Url]:
    n = draw(st.integers(1, 6))
    return [
        Url(f"{BASE}p/{i}", extensions=tuple(draw(st.lists(extension, max_size=5))))
        for i in range(n)
    ]


def read_back(data: bytes) -> list[Url]:
    etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))  # well-formed
    result = read_bytes(data)
    out = [
        u._replace(extensions=tuple(map(typed, u.extensions))) for u in result if isinstance(u, Url)
    ]
    assert not result.errors, result.issues
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(urls(), st.integers(0, 6))
def test_read_of_write_is_identity(entries: list[Url], first_batch: int) -> None:
    out: list[bytes] = []
    doc = SitemapDocument(out.append, max_urls=50_000, max_bytes=10**8)
    # two batches: namespaces of the first go on the root, later ones on their <url>
    assert doc.add(entries[:first_batch]) == min(first_batch, len(entries))
    assert doc.add(entries, min(first_batch, len(entries))) == len(entries)
    doc.close()
    assert read_back(b"".join(out)) == entries


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(urls(), st.integers(300, 6000))
def test_every_split_document_stays_under_the_byte_limit(entries: list[Url], limit: int) -> None:
    documents: list[bytes] = []
    start = 0
    while start < len(entries):
        out: list[bytes] = []
        doc = SitemapDocument(out.append, max_urls=3, max_bytes=limit)
        try:
            start = doc.add(entries, start)
        except EntryTooLarge as exc:
            # header + entry (declaring its own namespaces) + footer really do not fit
            assert len(urlset_header()) + exc.size + len(URLSET_FOOTER) > limit
            return
        stats = doc.close()
        data = b"".join(out)
        assert len(data) == stats.bytes <= limit
        documents.append(data)
    assert [u for data in documents for u in read_back(data)] == entries


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(images(), alternates()),
    st.sampled_from(["image", "i", "xhtml", "x"]),
    st.sampled_from(["", "\n  ", " "]),
)
def test_both_reading_lanes_agree_on_any_layout(
    value: Image | Alternate, prefix: str, space: str
) -> None:
    """The regex lane (typed) and the lxml lane (parse_element) read the same value from a
    raw element whatever its prefix and indentation."""
    from urlset.extensions import PREFIXES, parse_element

    old = PREFIXES[value.namespace]
    xml = value.xml.replace(f"<{old}:", f"<{prefix}:").replace(f"</{old}:", f"</{prefix}:")
    xml = xml.replace(f"xmlns:{old}=", f"xmlns:{prefix}=")
    xml = xml.replace("><", f">{space}<")
    raw = RawElement(value.namespace, value.name, xml)
    assert typed(raw) == value
    assert parse_element(etree.fromstring(xml)).value == value


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(st.one_of(images(), alternates()), max_size=6), min_size=1, max_size=5))
def test_fast_extensions_reads_what_the_writer_writes(
    groups: list[list[Image | Alternate]],
) -> None:
    """``fast_extensions`` (for a reader's regex lane) gives, from the text between a
    <url>'s </loc> and </url>, exactly the values written; other content is refused."""
    import re

    from urlset.extensions import fast_extensions

    entries = [Url(f"{BASE}p/{i}", extensions=tuple(g)) for i, g in enumerate(groups)]
    out: list[bytes] = []
    doc = SitemapDocument(out.append, max_urls=100, max_bytes=10**8)
    doc.add(entries)
    doc.close()
    text = b"".join(out).decode()
    prefixes = {k or "": v for k, v in etree.fromstring(text.encode()).nsmap.items()}
    records = re.findall(r"<url(?: [^>]*)?><loc>[^<]*</loc>(.*?)</url>", text, re.S)
    assert len(records) == len(entries)
    for fragment, url in zip(records, entries, strict=True):
        if "<url xmlns" in text:  # declared on this <url>, not the root: not for this lane
            continue
        assert fast_extensions(fragment, prefixes) == url.extensions
    assert fast_extensions(records[0] + "<x:other/>", prefixes) is None


NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
_IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
_odd_locs = st.sampled_from(
    [
        "https://e.com/a.png",
        "https://e.com/a?x=1&amp;y=2",
        " https://e.com/pad.png ",
        "https://E.com/up.png",
        "https://e.com/caf%C3%A9.png",
        "https://e.com/a b.png",
        "https://e.com/%2e%2e/x.png",
        "relative.png",
    ]
)
_odd_texts = st.sampled_from(
    [None, "Plain", "  spaced  ", "a &amp; b", "tab\there", "nbsp\u00a0x", "", "   ", "line\nbreak"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_odd_locs, _odd_texts, _odd_texts, st.sampled_from([None, "https://e.com/l"])),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["", "\n  ", " "]),
)
def test_fast_image_runs_type_what_lxml_types(
    images: list[tuple[str, str | None, str | None, str | None]], space: str
) -> None:
    """A run of images typed by the regex lane (a column at a time when it can, one by one
    otherwise) gives what lxml and parse_element give, or declines."""
    from urlset.extensions import fast_extensions, parse_element

    elements = []
    for loc, caption, title, license_ in images:
        parts = [f"<image:loc>{loc}</image:loc>"]
        if caption is not None:
            parts.append(f"<image:caption>{caption}</image:caption>")
        if title is not None:
            parts.append(f"<image:title>{title}</image:title>")
        if license_ is not None:
            parts.append(f"<image:license>{license_}</image:license>")
        elements.append(f"<image:image>{space}{space.join(parts)}{space}</image:image>")
    fragment = space + space.join(elements) + space
    got = fast_extensions(fragment, {"": NS, "image": _IMAGE_NS})
    if got is None:
        return
    root = etree.fromstring(
        f'<url xmlns="{NS}" xmlns:image="{_IMAGE_NS}">{fragment}</url>'.encode()
    )
    assert got == tuple(parse_element(el).value for el in root)


_XHTML_NS = "http://www.w3.org/1999/xhtml"
_odd_hreflangs = st.sampled_from(
    [
        "en",
        "EN-gb",
        "en_GB",
        "x-default",
        "X-Default",
        "xx",
        " de ",
        "zh-Hant-TW",
        "en-ZZ",
        "a&amp;b",
    ]
)
_odd_hrefs = st.sampled_from(
    [
        "https://e.com/en/",
        "https://e.com/p?a=1&amp;b=2",
        "https://e.com/a b",
        "https://e.com/caf%C3%A9",
        "/relative",
        "https://E.com/up",
        "https://e.com/it's",
    ]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(_odd_hreflangs, _odd_hrefs, st.sampled_from(["canonical", "href first", "Rel"])),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["", "\n  ", " "]),
)
def test_fast_link_runs_type_what_lxml_types(links: list[tuple[str, str, str]], space: str) -> None:
    """A run of hreflang links typed by the regex lane (a column at a time when it can, one
    by one otherwise) gives what lxml and parse_element give, or declines."""
    from urlset.extensions import fast_extensions, parse_element

    elements = []
    for hreflang, href, shape in links:
        if shape == "canonical":
            elements.append(f'<xhtml:link rel="alternate" hreflang="{hreflang}" href="{href}"/>')
        elif shape == "href first":
            elements.append(f'<xhtml:link href="{href}" rel="alternate" hreflang="{hreflang}"/>')
        else:
            elements.append(f'<xhtml:link rel="Alternate" hreflang="{hreflang}" href="{href}" />')
    fragment = space + space.join(elements) + space
    got = fast_extensions(fragment, {"": NS, "xhtml": _XHTML_NS})
    if got is None:
        return
    root = etree.fromstring(
        f'<url xmlns="{NS}" xmlns:xhtml="{_XHTML_NS}">{fragment}</url>'.encode()
    )
    assert got == tuple(parse_element(el).value for el in root)

"""Typed extension values: construction checks, XML form, reading from raw elements, JSON."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from urlset import InvalidValue, RawElement
from urlset.extensions import (
    IMAGE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    Alternate,
    Image,
    News,
    Price,
    Relationship,
    Video,
    format_decimal,
    from_json,
    from_json_fields,
    hreflang_code,
    json_fields,
    parse,
    parse_element,
    to_json,
    typed,
)

PAGE = "https://www.example.com/page"


def video(**fields: object) -> Video:
    base: dict[str, object] = {
        "thumbnail_loc": "https://www.example.com/t.jpg",
        "title": "Grilling",
        "description": "How to grill",
        "content_loc": "https://www.example.com/v.mp4",
    }
    base.update(fields)
    return Video(**base)  # type: ignore[arg-type]


def news(**fields: object) -> News:
    base: dict[str, object] = {
        "publication_name": "The Example Times",
        "language": "en",
        "publication_date": "2024-05-01",
        "title": "Merger talks",
    }
    base.update(fields)
    return News(**base)  # type: ignore[arg-type]


def raw(value: object) -> RawElement:
    return RawElement(value.namespace, value.name, value.xml)  # type: ignore[attr-defined]


# ---------------------------------------------------------------- construction


def test_image_normalises_and_keeps_every_field() -> None:
    image = Image(" https://bücher.de/ä.jpg ", "A & B", "Limerick, Ireland", "Title", None)
    assert image.loc == "https://xn--bcher-kva.de/%C3%A4.jpg"
    assert (image.caption, image.geo_location, image.title, image.license) == (
        "A & B",
        "Limerick, Ireland",
        "Title",
        None,
    )
    assert Image("https://e.com/a.jpg", caption="  ") == Image("https://e.com/a.jpg")


@pytest.mark.parametrize(
    ("make", "field", "reason"),
    [
        (lambda: Image("/a.jpg"), "image loc", "absolute"),
        (lambda: Image("ftp://e.com/a.jpg"), "image loc", "http"),
        (lambda: Image("https://e.com/a.jpg", license="nope"), "image license", "absolute"),
        (lambda: Image("https://e.com/a.jpg", title="a\x00b"), "image title", "control"),
    ],
)
def test_image_errors_name_the_field(make: object, field: str, reason: str) -> None:
    with pytest.raises(InvalidValue) as info:
        make()  # type: ignore[operator]
    assert info.value.field == field and reason in str(info.value)


def test_video_value_rules() -> None:
    v = video(duration="600", rating="4.2", view_count=12345, family_friendly="YES", live="no")
    assert (v.duration, v.rating, v.view_count, v.family_friendly, v.live) == (
        600,
        4.2,
        12345,
        True,
        False,
    )
    assert video(duration=1).duration == 1 and video(duration=28_800).duration == 28_800
    assert video(rating=0).rating == 0.0 and video(rating=5).rating == 5.0
    assert len(video(title="t" * 100).title) == 100
    assert len(video(description="d" * 2048).description) == 2048
    assert video(tags=[f"t{i}" for i in range(32)]).tags[-1] == "t31"
    for bad, field in [
        ({"duration": 0}, "video duration"),
        ({"duration": 28_801}, "video duration"),
        ({"duration": "ten"}, "video duration"),
        ({"rating": 5.01}, "video rating"),
        ({"rating": -0.1}, "video rating"),
        ({"rating": float("nan")}, "video rating"),
        ({"title": "t" * 101}, "video title"),
        ({"description": "d" * 2049}, "video description"),
        ({"tags": [f"t{i}" for i in range(33)]}, "video tags"),
        ({"family_friendly": "maybe"}, "video family_friendly"),
        ({"content_loc": None}, "video"),
        ({"view_count": -1}, "video view_count"),
        ({"restriction": {"relationship": "allow", "values": ["usa"]}}, "video restriction"),
        ({"platform": {"relationship": "sometimes", "values": ["tv"]}}, "relationship"),
        ({"platform": {"relationship": "deny", "values": ["radio"]}}, "video platform"),
        ({"uploader_info": "https://e.com/u"}, "video uploader"),
        ({"expiration_date": "2024-13-01"}, "video expiration_date"),
        ({"prices": [{"amount": "1,99", "currency": "EUR"}]}, "video price"),
        ({"prices": [{"amount": "1.99", "currency": "euro"}]}, "video price currency"),
    ]:
        with pytest.raises(InvalidValue) as info:
            video(**bad)
        assert info.value.field == field, bad


def test_video_player_only_and_attributes() -> None:
    v = video(
        content_loc=None,
        player_loc="https://www.example.com/player?v=1&a=2",
        player_allow_embed="yes",
        player_autoplay="ap=1",
        restriction=Relationship("ALLOW", "IE GB"),  # type: ignore[arg-type]
        platform={"relationship": "deny", "values": ["tv"]},
        prices=[Price("1.99", "eur", "RENT", "HD")],
        uploader="Grilly",
        uploader_info="https://www.example.com/u",
        gallery_loc="https://www.example.com/g",
        gallery_title="Cooking\tVideos",
    )
    assert v.player_allow_embed is True
    assert v.restriction == Relationship("allow", ("IE", "GB"))
    assert v.platform == Relationship("deny", ("tv",))
    assert v.prices == (Price("1.99", "EUR", "rent", "hd"),)
    assert v.gallery_title == "Cooking Videos"  # attribute values cannot hold tabs
    body = v.body()
    assert '<video:player_loc allow_embed="yes" autoplay="ap=1">' in body
    assert "v=1&amp;a=2" in body
    assert '<video:price currency="EUR" type="rent" resolution="hd">1.99</video:price>' in body


def test_news_values() -> None:
    n = news(
        language="ZH-TW",
        access="subscription",
        genres="pressrelease, Blog",
        keywords="business, merger",
        stock_tickers=["NASDAQ:A", "NASDAQ:B"],
    )
    assert n.language == "zh-tw" and n.access == "Subscription"
    assert n.genres == ("PressRelease", "Blog")
    assert n.keywords == ("business", "merger")
    assert n.publication_date == date(2024, 5, 1)
    assert news(language="fil").language == "fil"  # three-letter ISO 639-2/3 codes pass
    for bad, field in [
        ({"language": "english"}, "news language"),
        ({"language": "zh"}, None),  # zh is a valid ISO 639-1 code: no error
        ({"language": "zh-hk"}, "news language"),
        ({"language": "qq"}, "news language"),
        ({"access": "Free"}, "news access"),
        ({"genres": "Gossip"}, "news genres"),
        ({"stock_tickers": "AAPL"}, "news stock_tickers"),
        ({"stock_tickers": [f"X:{i}" for i in range(6)]}, "news stock_tickers"),
        ({"publication_date": "yesterday"}, "news publication_date"),
        ({"publication_date": None}, "news publication_date"),
        ({"title": " "}, "news title"),
        ({"publication_name": ""}, "news publication name"),
    ]:
        if field is None:
            news(**bad)
            continue
        with pytest.raises(InvalidValue) as info:
            news(**bad)
        assert info.value.field == field, bad


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("en", "en"),
        ("EN-gb", "en-GB"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("X-Default", "x-default"),
        ("es-419", "es-419"),
        ("fil", "fil"),
    ],
)
def test_hreflang_codes_are_canonical(given: str, canonical: str) -> None:
    assert hreflang_code(given) == canonical
    assert Alternate(given, PAGE).hreflang == canonical


@pytest.mark.parametrize(
    ("given", "reason"),
    [
        ("en-UK", "use GB"),
        ("en_GB", "separate language and region with '-'"),
        ("english", "language code"),
        ("xx", "ISO 639-1"),
        ("en-ZZ", "ISO 3166-1"),
        ("", "language code"),
    ],
)
def test_bad_hreflang_codes_are_explained(given: str, reason: str) -> None:
    with pytest.raises(InvalidValue, match=reason):
        Alternate(given, PAGE)


def test_alternate_href_must_be_absolute() -> None:
    with pytest.raises(InvalidValue, match="alternate href"):
        Alternate("en", "/en/")
    assert Alternate("de", "https://bücher.de/").href == "https://xn--bcher-kva.de/"


def test_values_are_immutable_and_hashable() -> None:
    image = Image("https://e.com/a.jpg")
    with pytest.raises(AttributeError):
        image.loc = "https://e.com/b.jpg"  # type: ignore[misc]
    assert len({image, Image("https://e.com/a.jpg"), video(), video(), news(), news()}) == 3


def test_format_decimal_never_uses_exponents() -> None:
    for number in (0.0, 1e-05, 4.2, 5.0, 0.1 + 0.2):
        text = format_decimal(number)
        assert "e" not in text and float(text) == number


# ---------------------------------------------------------------- XML form


def test_xml_is_self_contained_and_body_is_not() -> None:
    image = Image("https://e.com/a.jpg?x=1&y='2'", caption="<b>")
    assert image.xml.startswith(f'<image:image xmlns:image="{IMAGE_NS}"><image:loc>')
    assert "x=1&amp;y=&apos;2&apos;" in image.body()  # a "'" in a URL is entity-escaped
    assert "&lt;b&gt;" in image.body()
    assert "xmlns" not in image.body()
    link = Alternate("en", PAGE)
    assert (
        link.xml
        == f'<xhtml:link xmlns:xhtml="{XHTML_NS}" rel="alternate" hreflang="en" href="{PAGE}"/>'
    )


def test_children_follow_the_schema_order() -> None:
    body = news(access="Registration", genres="Blog", keywords="a", stock_tickers="X:Y").body()
    order = ["publication", "access", "genres", "publication_date", "title", "keywords", "stock"]
    positions = [body.index(f"<news:{name}") for name in order]
    assert positions == sorted(positions)
    body = video(
        player_loc="https://e.com/p", duration=5, rating=1, view_count=2, tags=["a"], live=True
    ).body()
    order = ["thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration"]
    order += ["rating", "view_count", "tag", "live"]
    positions = [body.index(f"<video:{name}") for name in order]
    assert positions == sorted(positions)


# ---------------------------------------------------------------- reading raw elements


def test_typed_reads_what_it_writes() -> None:
    values = [
        Image("https://e.com/a.jpg", "c", "g", "t", "https://e.com/l"),
        video(
            player_loc="https://e.com/p",
            player_allow_embed=False,
            duration=10,
            expiration_date=datetime(2030, 1, 1, 12, tzinfo=UTC),
            rating=3.5,
            tags=["x", "y"],
            category="Cooking",
            restriction={"relationship": "deny", "values": ["US"]},
            prices=[{"amount": "2", "currency": "USD"}],
            requires_subscription=False,
            uploader="U",
            uploader_info="https://e.com/u",
            platform={"relationship": "allow", "values": ["web", "tv"]},
            live=False,
        ),
        news(access="Subscription", genres=["Blog"], keywords=["k"], stock_tickers=["A:B"]),
        Alternate("x-default", PAGE),
    ]
    for value in values:
        parsed = parse(raw(value))
        assert parsed == (value, None, (), False)


def test_unknown_namespaces_stay_raw_silently() -> None:
    element = RawElement("urn:other", "thing", '<o:thing xmlns:o="urn:other">1</o:thing>')
    assert typed(element) is element
    assert parse(element) == (element, None, (), False)


def test_untypable_elements_stay_raw_with_a_reason() -> None:
    cases = {
        "holds <image:size>": RawElement(
            IMAGE_NS,
            "image",
            f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>https://e.com/a.jpg</i:loc><i:size>2</i:size></i:image>',
        ),
        "without <image:loc>": RawElement(
            IMAGE_NS, "image", f'<i:image xmlns:i="{IMAGE_NS}"><i:title>t</i:title></i:image>'
        ),
        "given twice": RawElement(
            IMAGE_NS,
            "image",
            f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>https://e.com/a</i:loc><i:loc>https://e.com/b</i:loc></i:image>',
        ),
        "only rel": RawElement(
            XHTML_NS, "link", f'<x:link xmlns:x="{XHTML_NS}" rel="canonical" href="{PAGE}"/>'
        ),
        "attributes": RawElement(
            XHTML_NS,
            "link",
            f'<x:link xmlns:x="{XHTML_NS}" rel="alternate" hreflang="en" media="print" href="{PAGE}"/>',
        ),
        "not well-formed": RawElement(NEWS_NS, "news", "<news:news>"),
        # a required field at fault (an optional one is left out: tests/test_ext_fields.py)
        "video thumbnail_loc": RawElement(
            VIDEO_NS,
            "video",
            video().xml.replace("https://www.example.com/t.jpg", "/t.jpg"),
        ),
        "does not model": RawElement(
            VIDEO_NS,
            "video",
            video().xml.replace("</video:video>", "<video:tvshow/></video:video>"),
        ),
    }
    for reason, element in cases.items():
        parsed = parse(element)
        assert parsed.value is element, reason
        assert parsed.error is not None and reason in parsed.error, (reason, parsed.error)


def test_out_of_order_children_are_read_and_noted() -> None:
    xml = (
        f'<n:news xmlns:n="{NEWS_NS}"><n:publication><n:name>T</n:name><n:language>en</n:language>'
        "</n:publication><n:title>t</n:title><n:publication_date>2024-01-01</n:publication_date>"
        "</n:news>"
    )
    parsed = parse(RawElement(NEWS_NS, "news", xml))
    assert parsed.value == News("T", "en", date(2024, 1, 1), "t")
    assert parsed.error is None
    assert (
        len(parsed.warnings) == 1
        and "<news:publication_date> comes after <news:title>" in parsed.warnings[0]
    )


def test_whitespace_and_case_tolerance_when_reading() -> None:
    xml = (
        f'<v:video xmlns:v="{VIDEO_NS}"><v:thumbnail_loc>\n https://e.com/t.jpg\n</v:thumbnail_loc>'
        "<v:title> T </v:title><v:description>D</v:description>"
        '<v:player_loc allow_embed="Yes">https://e.com/p</v:player_loc>'
        "<v:family_friendly>NO</v:family_friendly></v:video>"
    )
    value = typed(RawElement(VIDEO_NS, "video", xml))
    assert isinstance(value, Video)
    assert (value.thumbnail_loc, value.title, value.player_allow_embed, value.family_friendly) == (
        "https://e.com/t.jpg",
        "T",
        True,
        False,
    )


def test_entities_and_doctype_are_not_expanded() -> None:
    xml = (
        '<!DOCTYPE i [<!ENTITY x "https://evil.example/">]>'
        f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>&x;a.jpg</i:loc></i:image>'
    )
    parsed = parse(RawElement(IMAGE_NS, "image", xml))
    assert not isinstance(parsed.value, Image) or "evil" not in parsed.value.loc


def test_parse_element_skips_the_reparse() -> None:
    from lxml import etree

    image = Image("https://e.com/a.jpg", title="t")
    el = etree.fromstring(image.xml)
    assert parse_element(el).value == image
    other = etree.fromstring('<o:x xmlns:o="urn:o">1</o:x>')
    assert parse_element(other).value == RawElement("urn:o", "x", '<o:x xmlns:o="urn:o">1</o:x>')
    bad = etree.fromstring(f'<i:image xmlns:i="{IMAGE_NS}"/>')
    parsed = parse_element(bad)
    assert isinstance(parsed.value, RawElement) and parsed.error


# ---------------------------------------------------------------- JSON


def test_json_shapes_round_trip() -> None:
    values = (
        Image("https://e.com/a.jpg", title="t"),
        video(tags=["a"], restriction={"relationship": "allow", "values": ["US"]}),
        news(genres="Blog"),
        Alternate("en", PAGE),
        RawElement("urn:o", "x", '<o:x xmlns:o="urn:o"/>'),
    )
    data = json_fields(values)
    assert list(data) == ["images", "videos", "news", "alternates", "extensions"]
    assert data["images"] == [{"loc": "https://e.com/a.jpg", "title": "t"}]
    assert data["news"]["publication_date"] == "2024-05-01"  # one article: an object
    assert data["videos"][0]["restriction"] == {"relationship": "allow", "values": ["US"]}
    assert data["extensions"] == [
        {"namespace": "urn:o", "name": "x", "xml": '<o:x xmlns:o="urn:o"/>'}
    ]
    assert from_json_fields(data) == values
    assert to_json(Alternate("en", PAGE)) == {"hreflang": "en", "href": PAGE}
    two = json_fields([news(), news(title="Other")])
    assert isinstance(two["news"], list) and len(two["news"]) == 2


def test_json_errors() -> None:
    with pytest.raises(InvalidValue, match="unknown fields"):
        from_json("images", {"loc": "https://e.com/a.jpg", "colour": "red"})
    with pytest.raises(InvalidValue, match="missing title"):
        from_json(
            "news", {"publication_name": "n", "language": "en", "publication_date": "2024-01-01"}
        )
    with pytest.raises(InvalidValue, match="must be one of"):
        from_json("audio", {})
    with pytest.raises(InvalidValue, match="must be a list"):
        from_json_fields({"images": {"loc": "https://e.com/a.jpg"}})
    with pytest.raises(InvalidValue, match="namespace, name, xml"):
        from_json_fields({"extensions": [{"xml": "<a/>"}]})


@pytest.mark.parametrize(
    "xml",
    [
        f'<image:image xmlns:image="{IMAGE_NS}"><image:loc>https://e.com/a.jpg</image:loc></image:image>',
        f'<i:image xmlns:i="{IMAGE_NS}">\n  <i:loc> https://e.com/a.jpg?x=1&amp;y=2 </i:loc>\n'
        "  <i:caption>A &lt;b&gt; &quot;c&quot; &apos;d&apos;</i:caption>\n"
        "  <i:title></i:title>\n</i:image>",
        f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>https://e.com/&#233;.jpg</i:loc></i:image>',
        f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>https://e.com/a.jpg</i:loc><i:title>a&#13;b</i:title></i:image>',
        f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>  </i:loc></i:image>',
        f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>/relative.jpg</i:loc></i:image>',
        f'<i:image xmlns:i="{IMAGE_NS}"><i:title>t</i:title><i:loc>https://e.com/a.jpg</i:loc></i:image>',
        f'<i:image xmlns:i="{IMAGE_NS}"><j:loc xmlns:j="{IMAGE_NS}">https://e.com/a.jpg</j:loc></i:image>',
    ],
)
def test_image_fast_lane_agrees_with_the_full_reading(xml: str) -> None:
    from lxml import etree

    element = RawElement(IMAGE_NS, "image", xml)
    full = parse_element(etree.fromstring(xml))
    fast = parse(element)
    if isinstance(full.value, RawElement):
        assert isinstance(fast.value, RawElement) and fast.error == full.error
    else:
        assert fast.value == full.value and fast.warnings == full.warnings


@pytest.mark.parametrize(
    "attrs",
    [
        f'rel="alternate" hreflang="en-gb" href="{PAGE}?a=1&amp;b=2"',
        f'href="{PAGE}" hreflang="de" rel="alternate"',
        f'rel="alternate" hreflang="de" href="{PAGE}&#9;x"',
        f'rel="alternate" hreflang="en" href="{PAGE}" media="print"',
        f'rel="Alternate" hreflang="x-default" href="{PAGE}"',
        f'rel="canonical" hreflang="en" href="{PAGE}"',
        'rel="alternate" hreflang="en-UK" href="https://e.com/"',
    ],
)
def test_link_fast_lane_agrees_with_the_full_reading(attrs: str) -> None:
    from lxml import etree

    xml = f'<xhtml:link xmlns:xhtml="{XHTML_NS}" {attrs}/>'
    full = parse_element(etree.fromstring(xml))
    fast = parse(RawElement(XHTML_NS, "link", xml))
    if isinstance(full.value, RawElement):
        assert isinstance(fast.value, RawElement) and fast.error == full.error
    else:
        assert fast.value == full.value


def test_parse_element_uses_the_callers_serialiser_for_raw_elements() -> None:
    from lxml import etree

    def serialise(el: object) -> str:
        return "<serialised/>"

    bad = etree.fromstring(f'<i:image xmlns:i="{IMAGE_NS}"/>')
    parsed = parse_element(bad, serialise)
    assert parsed.value == RawElement(IMAGE_NS, "image", "<serialised/>") and parsed.error
    other = etree.fromstring('<o:x xmlns:o="urn:o"/>')
    assert parse_element(other, serialise) == (
        RawElement("urn:o", "x", "<serialised/>"),
        None,
        (),
        False,
    )
    good = etree.fromstring(Image("https://e.com/a.jpg").xml)
    assert parse_element(good, serialise).value == Image("https://e.com/a.jpg")

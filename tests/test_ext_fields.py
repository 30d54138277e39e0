"""Trust at the edges (issue 12): one bad optional field of an extension item does not demote
the item to raw XML.

Read through ``urlset.read_bytes``: the item stays typed without the field, and an issue names
the extension, the field and the value; a news language tag with a region (``en-US``), which
sitemap-news.xsd does not allow and which is required, is read as its language part. Required fields still keep the item raw. A video with
a child urlset does not model (tvshow, content_segment_loc) stays as written, and the reader
says why. A read -> build round trip of each document validates against the official schemas.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from test_ext_write import assert_valid, document, schema  # noqa: F401  (schema: a fixture)
from urlset import Issue, RawElement, Severity, Url, read_bytes
from urlset.cli import main
from urlset.extensions import (
    IMAGE_NS,
    NEWS_NS,
    VIDEO_NS,
    Image,
    News,
    Price,
    Video,
    fast_extensions,
    parse,
    parse_element,
)
from urlset.extensions.rules import check_raw
from urlset.model import SITEMAP_NS

PAGE = "https://www.example.com/page"
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    f'xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}">\n'
)


def sitemap(*items: str) -> bytes:
    """A urlset with one <url> at PAGE holding ``items``."""
    return (HEAD + f"<url><loc>{PAGE}</loc>{''.join(items)}</url>\n</urlset>\n").encode()


def image(*fields: str) -> str:
    return f"<image:image><image:loc>{PAGE}.jpg</image:loc>{''.join(fields)}</image:image>"


def video(*fields: str, before: str = "") -> str:
    """A video with its required children; ``before`` goes between description and the locs,
    ``fields`` after the content_loc (each in the schema's order)."""
    return (
        "<video:video><video:thumbnail_loc>https://www.example.com/t.jpg</video:thumbnail_loc>"
        "<video:title>Grilling</video:title><video:description>How to grill</video:description>"
        f"{before}<video:content_loc>https://www.example.com/v.mp4</video:content_loc>"
        f"{''.join(fields)}</video:video>"
    )


def news(language: str = "en", *fields: str) -> str:
    head, tail = (fields[0], "".join(fields[1:])) if fields else ("", "")
    return (
        "<news:news><news:publication><news:name>The Example Times</news:name>"
        f"<news:language>{language}</news:language></news:publication>{head}"
        "<news:publication_date>2024-05-01</news:publication_date>"
        f"<news:title>Markets</news:title>{tail}</news:news>"
    )


def read(data: bytes) -> tuple[list[Url], list[Issue]]:
    result = read_bytes(data, with_issues=True)
    urls = [u for u in result if isinstance(u, Url)]
    return urls, list(result.issues)


def only(data: bytes) -> tuple[object, list[Issue]]:
    urls, issues = read(data)
    (url,) = urls
    (value,) = url.extensions
    return value, issues


def coded(issues: list[Issue], code: str) -> Issue:
    (found,) = [i for i in issues if i.code == code]
    return found


# ---------------------------------------------------------------- the four cases of the issue


def test_a_video_price_written_with_a_comma_is_left_out() -> None:
    value, issues = only(sitemap(video('<video:price currency="EUR">1,99</video:price>')))
    assert isinstance(value, Video) and value.prices == ()
    assert value.content_loc == "https://www.example.com/v.mp4"
    issue = coded(issues, "video-field-dropped")
    assert "<video:price> '1,99'" in issue.message and "decimal" in issue.message


def test_an_empty_video_price_is_left_out_and_the_others_kept() -> None:
    value, issues = only(
        sitemap(
            video(
                '<video:price currency="EUR" type="rent"></video:price>',
                '<video:price currency="USD">2.99</video:price>',
            )
        )
    )
    assert isinstance(value, Video) and value.prices == (Price("2.99", "USD"),)
    assert "<video:price> ''" in coded(issues, "video-field-dropped").message


def test_an_image_license_that_is_text_is_left_out() -> None:
    value, issues = only(
        sitemap(
            image("<image:title>A cat</image:title>", "<image:license>CC BY 4.0</image:license>")
        )
    )
    assert value == Image(f"{PAGE}.jpg", title="A cat")
    issue = coded(issues, "image-field-dropped")
    assert "<image:license> 'CC BY 4.0'" in issue.message


def test_a_news_language_with_a_region_is_read_as_its_language() -> None:
    # the language is required, and sitemap-news.xsd allows only zh-cn|zh-tw|([a-z]{2,3}):
    # en-US can neither be left out nor kept as written; its language part is what is asked
    value, issues = only(sitemap(news("en-US")))
    assert isinstance(value, News) and value.language == "en"
    assert value.publication_name == "The Example Times" and value.title == "Markets"
    issue = coded(issues, "news-language")
    assert "<news:language> 'en-US'" in issue.message and "read as 'en'" in issue.message


@pytest.mark.parametrize(
    "written, read_as", [("pt_BR", "pt"), ("ZH-Hant-TW", "zh"), ("fil-PH", "fil")]
)
def test_other_tagged_news_languages(written: str, read_as: str) -> None:
    value, issues = only(sitemap(news(written)))
    assert isinstance(value, News) and value.language == read_as
    assert f"read as {read_as!r}" in coded(issues, "news-language").message


# ---------------------------------------------------------------- any optional field, generally

OPTIONAL_FAULTS = [
    # (the item, the child named in the issue, the value named)
    (video("<video:duration>30000</video:duration>"), "video:duration", "'30000'"),
    (video("<video:rating>five</video:rating>"), "video:rating", "'five'"),
    (video("<video:view_count>-3</video:view_count>"), "video:view_count", "'-3'"),
    (
        video("<video:publication_date>yesterday</video:publication_date>"),
        "video:publication_date",
        "'yesterday'",
    ),
    (video("<video:tag></video:tag>", "<video:tag>steak</video:tag>"), "video:tag", "''"),
    (
        video("<video:family_friendly>maybe</video:family_friendly>"),
        "video:family_friendly",
        "'maybe'",
    ),
    (
        video('<video:restriction relationship="perhaps">IE GB</video:restriction>'),
        "video:restriction relationship",
        "'perhaps'",
    ),
    (
        video('<video:restriction relationship="allow">IE gb</video:restriction>'),
        "video:restriction",
        "'gb'",
    ),
    (
        video('<video:platform relationship="deny">web radio</video:platform>'),
        "video:platform",
        "'radio'",
    ),
    (
        video('<video:gallery_loc title="G">not a url</video:gallery_loc>'),
        "video:gallery_loc",
        "'not a url'",
    ),
    (
        video('<video:uploader info="/relative">Grilly</video:uploader>'),
        "video:uploader info",
        "'/relative'",
    ),
    (
        video('<video:player_loc allow_embed="sometimes">https://e.com/p</video:player_loc>'),
        "video:player_loc allow_embed",
        "'sometimes'",
    ),
    (news("en", "<news:access>Free</news:access>"), "news:access", "'Free'"),
    (
        news("en", "", "<news:stock_tickers>AMAT</news:stock_tickers>"),
        "news:stock_tickers",
        "'AMAT'",
    ),
]


@pytest.mark.parametrize("item, child, shown", OPTIONAL_FAULTS)
def test_any_optional_field_at_fault_is_left_out_and_named(
    item: str, child: str, shown: str
) -> None:
    value, issues = only(sitemap(item))
    assert not isinstance(value, RawElement)
    (issue,) = [i for i in issues if i.code.endswith("-field-dropped")]
    assert f"<{child}> {shown}" in issue.message
    assert issue.code.startswith(child.partition(":")[0])


def test_a_bad_player_loc_is_left_out_with_its_attributes_when_content_loc_is_there() -> None:
    value, issues = only(
        sitemap(
            video('<video:player_loc allow_embed="yes" autoplay="ap=1">/player</video:player_loc>')
        )
    )
    assert isinstance(value, Video) and value.player_loc is None
    assert value.player_allow_embed is None and value.player_autoplay is None
    assert "<video:player_loc> '/player'" in coded(issues, "video-field-dropped").message


# ---------------------------------------------------------------- required fields: still raw


@pytest.mark.parametrize(
    "item, code, reason",
    [
        (image().replace(f"{PAGE}.jpg", "/a.jpg"), "invalid-image", "image loc"),
        (video().replace("Grilling", "G" * 101), "invalid-video", "video title"),
        (
            video().replace(
                "<video:content_loc>https://www.example.com/v.mp4</video:content_loc>",
                "<video:content_loc>/v.mp4</video:content_loc>",
            ),
            "invalid-video",
            "content_loc or a player_loc",
        ),
        (news().replace("The Example Times", ""), "invalid-news", "news publication name"),
        (news("en-US!"), "invalid-news", "news language"),
        (news("english"), "invalid-news", "news language"),
        (news("qq-US"), "invalid-news", "news language"),
        (news().replace("2024-05-01", "May 1st"), "invalid-news", "news publication_date"),
    ],
)
def test_a_required_field_at_fault_still_keeps_the_item_raw(
    item: str, code: str, reason: str
) -> None:
    # beside it, an image whose optional license is at fault is read without it
    urls, issues = read(sitemap(item, image("<image:license>CC BY 4.0</image:license>")))
    (url,) = urls
    raw, typed_image = url.extensions
    assert isinstance(raw, RawElement) and typed_image == Image(f"{PAGE}.jpg")
    assert reason in coded(issues, code).message
    assert [i.code for i in issues if i.code.endswith("-field-dropped")] == ["image-field-dropped"]


# ---------------------------------------------------------------- children urlset does not model


@pytest.mark.parametrize(
    "item, child",
    [
        (
            video(
                "<video:tvshow><video:show_title>Show</video:show_title>"
                "<video:video_type>full</video:video_type></video:tvshow>"
            ),
            "tvshow",
        ),
        (
            video().replace(
                "</video:content_loc>",
                '</video:content_loc><video:content_segment_loc duration="60">'
                "https://www.example.com/v1.mp4</video:content_segment_loc>",
            ),
            "content_segment_loc",
        ),
    ],
)
def test_a_video_with_an_unmodelled_child_is_kept_as_written_and_says_why(
    item: str, child: str
) -> None:
    value, issues = only(sitemap(item))
    assert isinstance(value, RawElement) and f"<video:{child}" in value.xml
    issue = coded(issues, "video-kept-as-written")
    assert f"<video:{child}> is in the official schema but urlset does not model it" in (
        issue.message
    )
    assert "kept as written" in issue.message
    assert not [i for i in issues if i.code == "invalid-video"]
    # the checker of raw elements says the same
    assert [i.code for i in check_raw(value)] == ["video-kept-as-written"]


# ---------------------------------------------------------------- both lanes, round trips

# name -> (document, the kinds read from it)
DOCUMENTS = {
    "price": (sitemap(video('<video:price currency="EUR">1,99</video:price>')), ["Video"]),
    "empty price": (sitemap(video('<video:price currency="EUR" type="rent"/>')), ["Video"]),
    "license": (
        sitemap(image("<image:license>CC BY 4.0</image:license>"), image()),
        ["Image", "Image"],
    ),
    "language": (sitemap(news("en-US")), ["News"]),
    "mixed": (
        sitemap(
            image("<image:license>CC BY 4.0</image:license>"),
            video("<video:duration>30000</video:duration>"),
            news("en-US", "<news:access>Free</news:access>"),
        ),
        ["Image", "Video", "News"],
    ),
    "tvshow": (
        sitemap(
            video(
                "<video:tvshow><video:show_title>Show</video:show_title>"
                "<video:video_type>full</video:video_type></video:tvshow>"
            )
        ),
        ["RawElement"],
    ),
}


@pytest.mark.parametrize("name", DOCUMENTS)
def test_the_element_reading_and_the_raw_reading_agree(name: str) -> None:
    """``parse`` (fast lane first) on each raw element gives what ``parse_element`` gives."""
    data, kinds = DOCUMENTS[name]
    urls, _ = read(data)
    (url,) = etree.fromstring(data)
    elements = list(url)[1:]  # after <loc>
    for el in elements:
        full = parse_element(el)
        qname = etree.QName(el)
        raw = RawElement(qname.namespace, qname.localname, etree.tostring(el, encoding="unicode"))
        fast = parse(raw)
        if isinstance(full.value, RawElement):
            assert isinstance(fast.value, RawElement)
        else:
            assert fast.value == full.value
        assert (fast.error, fast.warnings) == (full.error, full.warnings)
    # what was left out, or why the element is kept as written
    assert any(parse_element(el).warnings for el in elements)
    (url_read,) = urls
    assert [type(e).__name__ for e in url_read.extensions] == kinds
    assert [type(e) for e in url_read.extensions] == [
        type(parse_element(el).value) for el in elements
    ]


@pytest.mark.parametrize("name", DOCUMENTS)
def test_read_then_build_publishes_valid_xml(name: str, schema: etree.XMLSchema) -> None:  # noqa: F811
    data, kinds = DOCUMENTS[name]
    urls, issues = read(data)
    assert [type(e).__name__ for u in urls for e in u.extensions] == kinds
    assert issues and all(i.severity is not Severity.ERROR for i in issues)
    built = document(urls)
    assert_valid(built, schema)
    again, issues = read(built)
    assert again == urls  # what was read is what is written
    assert all(i.code == "video-kept-as-written" for i in issues)


def test_read_then_build_from_the_command_line(tmp_path: Path, schema: etree.XMLSchema) -> None:  # noqa: F811
    source = tmp_path / "in.xml"
    source.write_bytes(DOCUMENTS["mixed"][0])
    listing = tmp_path / "entries.jsonl"
    runner = CliRunner()
    result = runner.invoke(main, ["read", str(source), "-o", str(listing)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    result = runner.invoke(
        main,
        [
            "build",
            str(listing),
            "--out",
            str(out),
            "--base-url",
            "https://www.example.com/",
            "--no-gzip",
        ],
    )
    assert result.exit_code == 0, result.output
    built = (out / "sitemap.xml").read_bytes()
    assert_valid(built, schema)
    urls, _ = read(built)
    kinds = sorted(type(e).__name__ for u in urls for e in u.extensions)
    assert kinds == ["Image", "News", "Video"]


_licenses = st.sampled_from(
    [None, "https://e.com/l", "CC BY 4.0", "", "  ", "/relative", "a &amp; b"]
)
_texts = st.sampled_from([None, "Plain", "", "a &amp; b", "tab\there"])


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(["a.jpg", "b.jpg"]), _texts, _licenses), min_size=1, max_size=5
    ),
    st.sampled_from(["", "\n  "]),
)
def test_both_lanes_agree_on_images_with_faulty_optional_fields(
    images: list[tuple[str, str | None, str | None]], space: str
) -> None:
    """The regex lane (``fast_extensions``, and the reader's record lane) declines or types
    what ``parse_element`` types; the reader gives those values and reports each warning."""
    elements = []
    for loc, title, license_ in images:
        parts = [f"<image:loc>https://www.example.com/{loc}</image:loc>"]
        if title is not None:
            parts.append(f"<image:title>{title}</image:title>")
        if license_ is not None:
            parts.append(f"<image:license>{license_}</image:license>")
        elements.append(f"<image:image>{space}{space.join(parts)}{space}</image:image>")
    fragment = space + space.join(elements) + space
    data = sitemap(fragment)
    (url,) = etree.fromstring(data)
    parsed = [parse_element(el) for el in list(url)[1:]]
    got = fast_extensions(fragment, {"": SITEMAP_NS, "image": IMAGE_NS})
    if got is not None:
        assert got == tuple(p.value for p in parsed)
    urls, issues = read(data)
    (read_url,) = urls
    assert read_url.extensions == tuple(p.value for p in parsed)
    assert all(isinstance(p.value, Image) for p in parsed)  # a license is never required
    said = sorted(w for p in parsed for w in p.warnings)
    assert sorted(i.message for i in issues if i.code == "image-field-dropped") == said

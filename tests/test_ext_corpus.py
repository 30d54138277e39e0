"""Extension files of other implementations and of real sites, read through the project's
reader (raw elements) and ``extensions.typed`` to the expected values.

The crawler-commons cases are described in ../shared/corpus/peers/crawler-commons/CASES.md
(E1-E9); where urlset is stricter than that lenient parser (a price written "1,99", an
empty publication name), the optional field is left out (or, for a required one, the element
stays raw) and the reason is checked instead.
"""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from urlset import RawElement, Url
from urlset.extensions import (
    IMAGE_NS,
    NEWS_NS,
    Alternate,
    Image,
    News,
    Price,
    Relationship,
    Video,
    parse,
    typed,
)
from urlset.extensions.rules import SetChecks, check_raw
from urlset.reading.reader import read_file

EXTENSION = "corpus/peers/crawler-commons/sitemaps/extension"
REALWORLD = "corpus/realworld"


def read_typed(path: Path) -> list[Url]:
    return [
        u._replace(extensions=tuple(map(typed, u.extensions)))
        for u in read_file(path)
        if isinstance(u, Url)
    ]


def kinds(urls: list[Url]) -> Counter[str]:
    return Counter(type(e).__name__ for u in urls for e in u.extensions)


def test_e1_videos(shared: Path) -> None:
    path = shared / EXTENSION / "sitemap-videos.xml"
    urls = read_typed(path)
    assert len(urls) == 3
    (first,) = urls[0].extensions
    assert isinstance(first, Video)
    plus8 = timezone(timedelta(hours=8))
    assert first == Video(
        thumbnail_loc="http://www.example.com/thumbs/123.jpg",
        title="Grilling steaks for summer",
        description="Alkis shows you how to get perfectly done steaks every\n        time",
        content_loc="http://www.example.com/video123.flv",
        player_loc="http://www.example.com/videoplayer.swf?video=123",
        player_allow_embed=True,
        player_autoplay="ap=1",
        duration=600,
        expiration_date=datetime(2009, 11, 5, 19, 20, 30, tzinfo=plus8),
        rating=4.2,
        view_count=12345,
        publication_date=datetime(2007, 11, 5, 19, 20, 30, tzinfo=plus8),
        tags=("sample_tag1", "sample_tag2"),
        family_friendly=True,
        restriction=Relationship("allow", ("IE", "GB", "US", "CA")),
        gallery_loc="http://cooking.example.com",
        gallery_title="Cooking Videos",
        prices=(Price("1.99", "EUR"),),
        requires_subscription=True,
        uploader="GrillyMcGrillerson",
        uploader_info="http://www.example.com/users/grillymcgrillerson",
        live=False,
    )
    # crawler-commons collapses the description's inner whitespace; urlset keeps the text
    assert " ".join(first.description.split()).endswith("perfectly done steaks every time")
    # "1,99" and an empty rent price: crawler-commons keeps a price without a value; urlset
    # keeps the video typed without that price and says why (the price is optional)
    for url in urls[1:]:
        (value,) = url.extensions
        assert isinstance(value, Video) and value.prices == ()
    result = read_file(path)
    list(result)
    issues = [i for i in result.issues if i.code == "video-field-dropped"]
    assert [i.message.partition(": ")[0] for i in issues] == [
        "<video:price> '1,99'",
        "<video:price> ''",
    ]


def test_e2_tv_show_video_stays_raw_but_attached(shared: Path) -> None:
    (url,) = read_typed(shared / EXTENSION / "sitemap-videos-tvshow.xml")
    (raw,) = url.extensions
    assert isinstance(raw, RawElement)
    parsed = parse(raw)
    assert parsed.error is not None and "content_segment_loc" in parsed.error
    assert parsed.unmodelled and parsed.warnings == (parsed.error,)  # the reader says why
    assert "tvshow" in raw.xml  # kept whole, to be written back unchanged


def test_e3_images(shared: Path) -> None:
    (url,) = read_typed(shared / EXTENSION / "sitemap-images.xml")
    assert url.extensions == (
        Image("http://example.com/image.jpg"),
        Image(
            "http://example.com/photo.jpg",
            caption="This is the caption.",
            geo_location="Limerick, Ireland",
            title="Example photo shot in Limerick, Ireland",
            license="https://creativecommons.org/licenses/by/4.0/legalcode",
        ),
    )


def test_e4_links_are_reciprocal(shared: Path) -> None:
    urls = read_typed(shared / EXTENSION / "sitemap-links.xml")
    expected = (
        Alternate("de", "http://www.example.com/deutsch/"),
        Alternate("de-CH", "http://www.example.com/schweiz-deutsch/"),
        Alternate("en", "http://www.example.com/english/"),
    )
    assert [u.extensions for u in urls] == [expected] * 3
    checks = SetChecks()
    checks.add_all(urls)
    assert checks.finish() == []


def test_e4_links_with_one_return_link_removed(shared: Path) -> None:
    urls = read_typed(shared / EXTENSION / "sitemap-links.xml")
    urls[1] = urls[1]._replace(extensions=urls[1].extensions[:2])  # /deutsch/ drops "en"
    checks = SetChecks()
    checks.add_all(urls)
    (issue,) = checks.finish()
    assert issue.code == "hreflang-not-reciprocal"
    assert issue.message.startswith(
        "http://www.example.com/deutsch/ lacks <xhtml:link hreflang='en'"
    )


def test_e5_news(shared: Path) -> None:
    path = shared / EXTENSION / "sitemap-news.xml"
    urls = read_typed(path)
    assert len(urls) == 2
    assert urls[0].extensions == (
        News(
            "The Example Times",
            "en",
            date(2008, 12, 23),
            "Companies A, B in Merger Talks",
            access="Subscription",
            genres=("PressRelease", "Blog"),
            keywords=("business", "merger", "acquisition", "A", "B"),
            stock_tickers=("NASDAQ:A", "NASDAQ:B"),
        ),
    )
    # the file puts <news:access> last; the schema wants it after <news:publication>
    result = read_file(path)
    first = next(u for u in result if isinstance(u, Url)).extensions[0]
    assert isinstance(first, News)  # read despite the order, and the order reported
    list(result)
    assert [i.code for i in result.issues if i.code.startswith("extension")] == ["extension-order"]
    # an empty publication name: the record exists but is not valid (crawler-commons:
    # isValid() false); urlset keeps it raw with the reason
    (empty,) = urls[1].extensions
    assert isinstance(empty, RawElement) and empty.namespace == NEWS_NS
    assert "news publication name '': is empty" in (parse(empty).error or "")


def test_e7_news_on_one_line(shared: Path) -> None:
    urls = read_typed(shared / EXTENSION / "shinpaideshou-news-sitemap.xml")
    assert len(urls) == 3
    for url in urls:
        (news,) = url.extensions
        assert isinstance(news, News) and news.publication_name
        assert isinstance(news.publication_date, datetime)
        assert news.publication_date.year == 2017


def test_e8_mixed_real_world_file(shared: Path) -> None:
    urls = read_typed(shared / EXTENSION / "hebdenbridgetimes-articles-sitemap.xml")
    assert len(urls) == 74
    found = kinds(urls)
    assert found["Image"] == 94 and found["Video"] == 6
    raws = {(e.namespace, e.name) for u in urls for e in u.extensions if type(e) is RawElement}
    assert raws == {("http://www.google.com/schemas/sitemap-mobile/1.0", "mobile")}
    video = next(e for u in urls for e in u.extensions if type(e) is Video)
    assert video.player_loc is not None and "videoID=$VIDEO_ID" in video.player_loc


def test_e6_e9_other_namespaces_stay_raw(shared: Path) -> None:
    for name in ("sitemap-mobile.xml", "pagemaps-sitemap.xml"):
        urls = read_typed(shared / EXTENSION / name)
        assert all(type(e) is RawElement for u in urls for e in u.extensions)
        assert all(check_raw(e) == [] for u in urls for e in u.extensions)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("name", "urls", "expected"),
    [
        ("004_rankmath-woocommerce-products-images.xml", 201, {"Image": 600}),
        ("028_image-small.xml", 41, {"Image": 41}),
        ("038_shopify-products-images.xml", 21, {"Image": 20}),
        ("040_shopify-style-products-2500.xml", 2500, {"Image": 2500}),
        ("041_shopify-collections-hreflang.xml", 896, {"Alternate": 3584, "Image": 73}),
        ("065_ghost-posts-images.xml", 59, {"Image": 59}),
        ("011_news-handwritten.xml", 1, {"News": 1}),
        ("085_video-large-unescaped-amp.xml", 1511, {"Video": 1511}),
        # namespaces declared, never used: no extension values at all (URL counts are the
        # reader's business, checked by its corpus tests)
        ("016_rails-sitemap-generator-large.xml", None, {}),
        ("035_crawler-large-berkeley-law.xml", None, {}),
    ],
)
def test_realworld_extension_files_type_completely(
    shared: Path, name: str, urls: int | None, expected: dict[str, int]
) -> None:
    """Every extension element of these files becomes a typed value (none stays raw)."""
    read = read_typed(shared / REALWORLD / name)
    assert urls is None or len(read) == urls
    assert kinds(read) == Counter(expected)


def test_realworld_values(shared: Path) -> None:
    (url,) = read_typed(shared / REALWORLD / "011_news-handwritten.xml")
    (news,) = url.extensions
    assert isinstance(news, News)
    assert (news.publication_name, news.language) == ("Cybercrimeinfo", "nl")

    first = read_typed(shared / REALWORLD / "040_shopify-style-products-2500.xml")[0]
    (image,) = first.extensions
    assert isinstance(image, Image)
    assert image.loc.startswith("https://cdn.shopify.com/") and image.title
    assert image.title.endswith("| Genuine Haulotte")

    hreflang = read_typed(shared / REALWORLD / "041_shopify-collections-hreflang.xml")
    codes = Counter(e.hreflang for u in hreflang for e in u.extensions if type(e) is Alternate)
    assert codes == {"x-default": 896, "en": 896, "pl": 896, "et": 896}
    checks = SetChecks()
    checks.add_all(hreflang)
    issues = checks.finish()
    # the file lists the English pages only: the pl and et variants live in other sitemaps
    assert Counter(i.code for i in issues) == {"hreflang-unverified": 1792}


def test_realworld_order_problems_are_reported(shared: Path) -> None:
    path = shared / REALWORLD / "004_rankmath-woocommerce-products-images.xml"
    result = read_file(path)
    images = [
        e for u in result if isinstance(u, Url) for e in u.extensions if e.namespace == IMAGE_NS
    ]
    assert images and all(isinstance(e, Image) for e in images)  # typed despite the order
    assert Counter(i.code for i in result.issues) == {"extension-order": 200}


def test_typed_values_write_back_what_was_read(shared: Path) -> None:
    """Typing a real file's elements, writing them and reading again gives the same values."""
    from urlset.reading.reader import read_bytes
    from urlset.writing.document import SitemapDocument

    urls = read_typed(shared / REALWORLD / "041_shopify-collections-hreflang.xml")
    urls += read_typed(shared / EXTENSION / "hebdenbridgetimes-articles-sitemap.xml")
    out: list[bytes] = []
    doc = SitemapDocument(out.append, max_urls=50_000, max_bytes=50_000_000)
    assert doc.add(urls) == len(urls)
    doc.close()
    again = [
        u._replace(extensions=tuple(map(typed, u.extensions)))
        for u in read_bytes(b"".join(out))
        if isinstance(u, Url)
    ]
    assert again == urls

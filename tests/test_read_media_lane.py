"""The compiled lane's plain videos, news and hreflang links (rust/core/src/read/media.rs):
entries whose videos, news and links the tokenizer types stay in its runs, and every such
entry, plain or not, in any order and beside images, reads exactly as the careful lane (the
extension readers in extensions/video.py, news.py and hreflang.py) reads it: the same values, issues and places, whole or in chunks, and the same
output through the render lane (JSON Lines, CSV, Arrow)."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from test_read_images_lane import _counted
from test_read_support import NS, feed_all, four_ways
from urlset.extensions.news import NEWS_NS, News
from urlset.extensions.video import VIDEO_NS, Video
from urlset.model import Issue, Url
from urlset.reading.output import RENDERERS, UrlColumns
from urlset.reading.reader import SitemapReader
from urlset.reading.rendered import RenderSpec, left_core, merge_rendered

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"


def _doc(*entries: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
        f'xmlns:image="{IMAGE_NS}" xmlns:video="{VIDEO_NS}" xmlns:news="{NEWS_NS}" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n' + "\n".join(entries) + "\n</urlset>\n"
    ).encode()


def _entry(i: int, extensions: str) -> str:
    return f"<url><loc>https://www.example.com/p/{i}</loc>\n  {extensions}\n</url>"


VIDEO = (
    "<video:video>\n <video:thumbnail_loc>https://www.example.com/t/1.jpg</video:thumbnail_loc>"
    "<video:title>Grilling &amp; more</video:title>"
    "<video:description><![CDATA[How to grill\nsteaks <fast>]]></video:description>"
    "<video:content_loc>https://cdn.example.com/v/1.mp4?a=1&amp;b=2</video:content_loc>"
    "<video:player_loc>https://www.example.com/player?v=1</video:player_loc>"
    "<video:duration>600</video:duration>"
    "<video:expiration_date>2030-11-05T19:20:30+08:00</video:expiration_date>"
    "<video:rating>4.2</video:rating><video:view_count>12345</video:view_count>"
    "<video:publication_date>2024-05-06</video:publication_date>"
    "<video:tag>steak</video:tag><video:tag> meat </video:tag>"
    "<video:category>Grilling</video:category>"
    "<video:family_friendly>yes</video:family_friendly>"
    "<video:requires_subscription>No</video:requires_subscription>"
    "<video:uploader>Grill Mary</video:uploader><video:live>no</video:live>\n</video:video>"
)
NEWS = (
    "<news:news><news:publication><news:name>The Example Times</news:name>"
    "<news:language>EN</news:language></news:publication>"
    "<news:access>subscription</news:access><news:genres>PressRelease, blog</news:genres>"
    "<news:publication_date>2024-05-06T10:00:00.5Z</news:publication_date>"
    "<news:title>Companies A, B in merger talks</news:title>"
    "<news:keywords>business, merger, acquisition</news:keywords>"
    "<news:stock_tickers>NASDAQ:A, NASDAQ:B</news:stock_tickers></news:news>"
)


def test_plain_videos_and_news_are_typed_in_the_tokenizers_runs() -> None:
    doc = _doc(*(_entry(i, VIDEO + NEWS if i % 2 else VIDEO) for i in range(40)))
    calls, (urls, issues, _, fatal) = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0}
    assert not fatal and not issues and len(urls) == 40
    video, news = urls[1].extensions  # type: ignore[union-attr]
    assert isinstance(video, Video) and isinstance(news, News)
    assert video.description == "How to grill\nsteaks <fast>"
    assert video.content_loc == "https://cdn.example.com/v/1.mp4?a=1&b=2"
    assert (video.duration, video.rating, video.view_count) == (600, 4.2, 12345)
    assert video.publication_date == date(2024, 5, 6)
    assert video.tags == ("steak", "meat")
    assert (video.family_friendly, video.requires_subscription, video.live) == (
        True,
        False,
        False,
    )
    assert (news.language, news.access, news.genres) == (
        "en",
        "Subscription",
        ("PressRelease", "Blog"),
    )
    assert news.publication_date == datetime(2024, 5, 6, 10, 0, 0, 500_000, tzinfo=UTC)
    assert news.stock_tickers == ("NASDAQ:A", "NASDAQ:B")
    _agree(doc, 97)


# ------------------------------------------------------------ the property over spellings
# each list: the spellings the tokenizer types first (``_PLAIN`` of them), then the others
_URIS = [
    "https://www.example.com/t/1.jpg",
    "https://www.example.com/t?a=1&amp;b=2",
    "https://www.example.com/p/0",  # the page itself: check's video-loc-is-page
    " https://www.example.com/t.jpg ",
    "https://WWW.example.com/t",
    "https://www.example.com/caf\u00e9",
    "not a uri",
    "",
]
_TEXTS = [
    "Video",
    "  Spaced out  ",
    "A &amp; B &lt;c&gt;",
    "<![CDATA[ x <y> & z ]]>",
    "\u00e9t\u00e9 \u2013 \u65e5\u672c",
    "two\nlines",
    "tab\there",
    "a\u00a0b",
    "\u3000wide\u3000",
    "<![CDATA[a]]>b",
    "x" * 101,
    "",
    " ",
    "&#65;",
]
_DATES = [
    "2024-05-06",
    "2024-05-06T10:00:00Z",
    "2024-05-06T10:00:00+01:00",
    "2024-05-06T10:00:00+00:00",
    "2024-05-06T10:00:00.123-05:00",
    "2024-05-06T10:00Z",
    "2024",
    "2024-05",
    "2024-05-06T10:00:00",
    " 2024-05-06 ",
    "06/05/2024",
    "",
]
_NUMBERS = ["600", "1", "28800", "007", "0", "28801", " 60 ", "abc", "", "\uff11\uff12", "-1"]
_RATINGS = ["4.5", "0", "5", "5.0", "4.25", "5.5", "1e0", "0.0001", " 3 ", "nan", "4.123456"]
_FLAGS = ["yes", "no", "YES", "No", "maybe", "", " yes "]
_PLAIN = {id(_URIS): 3, id(_TEXTS): 9, id(_DATES): 8, id(_NUMBERS): 4, id(_RATINGS): 5}
_PLAIN[id(_FLAGS)] = 4


def _choosers(draw: Any) -> tuple[Any, Any]:
    """A spelling of a list (in a plain element, one the tokenizer types: most elements are
    plain, so that both lanes are compared on many typed values), and the same or None."""
    plain = draw(st.integers(0, 3)) > 0

    def pick(options: list[str]) -> str:
        return draw(st.sampled_from(options[: _PLAIN.get(id(options), 1)] if plain else options))  # type: ignore[no-any-return]

    def maybe(options: list[str]) -> str | None:
        return None if draw(st.booleans()) else pick(options)

    return pick, maybe


def _child(name: str, value: str | None) -> str:
    return "" if value is None else f"<video:{name}>{value}</video:{name}>"


@st.composite
def _videos(draw: Any) -> str:
    pick, maybe = _choosers(draw)
    children = [
        _child("thumbnail_loc", pick(_URIS)),
        _child("title", pick(_TEXTS)),
        _child("description", pick(_TEXTS)),
        _child("content_loc", maybe(_URIS)),
        _child("player_loc", maybe(_URIS)),
        _child("duration", maybe(_NUMBERS)),
        _child("expiration_date", maybe(_DATES)),
        _child("rating", maybe(_RATINGS)),
        _child("view_count", maybe([*_NUMBERS, "99999999999999999999"])),
        _child("publication_date", maybe(_DATES)),
        "".join(_child("tag", pick(_TEXTS)) for _ in range(draw(st.integers(0, 3)))),
        "<video:tag>t</video:tag>" * draw(st.sampled_from([0] * 9 + [33])),
        _child("category", maybe(["Cooking", "", "x" * 257])),
        _child("family_friendly", maybe(_FLAGS)),
        _child("requires_subscription", maybe(_FLAGS)),
        _child("uploader", maybe(["Someone", "", "u" * 256])),
        draw(
            st.sampled_from(
                [
                    *[""] * 12,
                    '<video:platform relationship="allow">web</video:platform>',
                    "<video:id>1</video:id>",
                ]
            )
        ),
        _child("live", maybe(_FLAGS)),
    ]
    if draw(st.integers(0, 19)) == 0:
        children = draw(st.permutations(children))
    attrs = draw(st.sampled_from([""] * 9 + [' id="1"']))
    return f"<video:video{attrs}>{' '.join(children)}</video:video>"


def _news_child(name: str, value: str | None) -> str:
    return "" if value is None else f"<news:{name}>{value}</news:{name}>"


@st.composite
def _news(draw: Any) -> str:
    pick, maybe = _choosers(draw)
    languages = ["en", "EN", "en-US", "pt_BR", "xx", "zho", "zh-cn", "ZH-TW", "e", " fr ", ""]
    publication = (
        "<news:publication>"
        + _news_child("name", pick(["The Times", "", "A &amp; B", "<![CDATA[C]]>"]))
        + _news_child("language", pick(languages))
        + "</news:publication>"
    )
    children = [
        publication,
        _news_child("access", maybe(["Subscription", "registration", "free", ""])),
        _news_child("genres", maybe(["Blog", "blog, OpEd", "Gossip", "", " , ", "Satire,,"])),
        _news_child("publication_date", pick(_DATES)),
        _news_child("title", pick(_TEXTS)),
        _news_child("keywords", maybe(["a, b", "", "a,,b", "caf\u00e9"])),
        _news_child(
            "stock_tickers",
            maybe(["NASDAQ:A", "NASDAQ:A, NYSE:B", "X", "A:B,C:D,E:F,G:H,I:J,K:L", "\u00c4B:C"]),
        ),
    ]
    if draw(st.integers(0, 9)) == 0:
        children = draw(st.permutations(children))
    return f"<news:news>{''.join(children)}</news:news>"


_IMAGE = "<image:image><image:loc>https://www.example.com/i.jpg</image:loc></image:image>"
_CODES = ["de", "EN-gb", "x-default", "zh-hant-tw", "es-419", "fil"]
_CODES += ["xx", "en_GB", " de", "en-UK", "de-", ""]
_PLAIN[id(_CODES)] = 6


@st.composite
def _links(draw: Any) -> str:
    pick, _ = _choosers(draw)
    code, href = pick(_CODES), pick(_URIS)
    attrs = [f'rel="{pick(["alternate", "Alternate", "canonical"])}"', f'hreflang="{code}"']
    attrs.append(f'href="{href}"')
    if draw(st.integers(0, 9)) == 0:
        attrs = draw(st.permutations(attrs))
    space = pick([" ", "\n  ", "\t"])
    end = pick(["/>", " />", "></xhtml:link>"])
    return f"<xhtml:link {space.join(attrs)}{end}"


_KIND = {"<image": 0, "<video": 1, "<news:": 2, "<xhtml": 3}


@st.composite
def _extensions(draw: Any) -> str:
    kinds = st.one_of(_videos(), _news(), _links(), st.just(_IMAGE))
    parts = draw(st.lists(kinds, min_size=1, max_size=4))
    if draw(st.booleans()):  # the order the reader's JSON groups them in
        parts.sort(key=lambda p: _KIND[p[:6]])
    return "\n".join(parts)


def _jsonl(urls: list[Url]) -> bytes:
    return RENDERERS["jsonl"](UrlColumns.from_urls(urls), None).encode()


def _csv(urls: list[Url]) -> bytes:
    return RENDERERS["csv"](UrlColumns.from_urls(urls), None).encode()


def _rendered(data: bytes, fmt: str, chunk: int) -> bytes:
    spec = RenderSpec(fmt, "}\n" if fmt == "jsonl" else "\n")
    reader = SitemapReader("doc", render=spec)
    urls: list[Url] = []
    for at in range(0, len(data), chunk):
        urls += [e for e in reader.feed(data[at : at + chunk]) if type(e) is Url]
    urls += [e for e in reader.close() if type(e) is Url]
    render = _jsonl if fmt == "jsonl" else _csv
    return b"".join(merge_rendered(urls, spec.take(), render))


def _agree(doc: bytes, chunk: int) -> None:
    """Both lanes, whole and chunked, read ``doc`` alike; the render lane writes JSON Lines
    and CSV as the careful lane's values give them, and read_arrow's table is theirs."""
    from urlset.reading import arrow

    entries = four_ways(doc, chunk)[0]
    urls = [e for e in entries if type(e) is Url]
    for fmt, render in (("jsonl", _jsonl), ("csv", _csv)):
        expected = render(urls)
        assert _rendered(doc, fmt, len(doc)) == expected, fmt
        assert _rendered(doc, fmt, chunk) == expected, fmt
    assert arrow.read_arrow(doc).to_pylist() == arrow._entries_batch(urls).to_pylist()


@settings(max_examples=150, deadline=None)
@given(st.lists(_extensions(), min_size=1, max_size=6), st.integers(1, 500))
def test_compiled_and_careful_lanes_agree_on_videos_and_news(
    extensions: list[str], chunk: int
) -> None:
    _agree(_doc(*(_entry(i, e) for i, e in enumerate(extensions))), chunk)


def test_what_the_tokenizer_leaves_is_counted_and_reported_as_before() -> None:
    """A video with a value the reader drops with a warning leaves the core (counted under
    "piece"), with the same warning the careful lane gives."""
    odd = VIDEO.replace("<video:duration>600", "<video:duration>0")
    doc = _doc(*(_entry(i, VIDEO) for i in range(5)), _entry(5, odd))
    left_core(reset=True)
    spec = RenderSpec("jsonl", "}\n")
    reader = SitemapReader("doc", render=spec)
    issues = [e for e in reader.feed(doc) + reader.close() if type(e) is Issue]
    assert [i.code for i in issues] == ["video-field-dropped"]
    assert spec.rendered == 5 and spec.left == {"piece": 1}
    assert left_core(reset=True) == {"piece": 1}
    careful = feed_all(doc, [len(doc)], fast=False)[1]
    assert [(i.code, i.line, i.message) for i in careful] == [
        (i.code, i.line, i.message) for i in issues
    ]

"""The extension rules on the core's runs of records (``checking/ext_columns.py``): judged
from the core's JSON, only the records a per-URL rule flags worded (from their JSON, never
made whole ``Url`` values), with the findings, set findings and counts of taking every
entry one by one.

The family: every per-URL rule of the registry (``extensions.rules.RULES``: too many images
and a deprecated image field, a video's content or player URL that is the page, an old and
a repeated news article, hreflang links without the page and with two hrefs for one code in
any case), each flagged and just not flagged, alone and with other kinds on the same page;
elements of another namespace alone and beside typed ones; the set rules (more than 1,000
news, hreflang return links missing, unlisted and unverified variants); with a clock and
without one."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from urlset.checking import document, entries
from urlset.checking.checker import CheckOptions, check_document
from urlset.checking.report import FileResult
from urlset.errors import InvalidValue
from urlset.extensions import from_json_fields
from urlset.extensions.news import trusted_news_json

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SITE = "https://www.urlset-shop.com"
ROOT = (
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:other="https://other.example/ns">'
)


def _video(i: int, content: str) -> str:
    return (
        f"<video:video><video:thumbnail_loc>{SITE}/t/{i}.jpg</video:thumbnail_loc>"
        f"<video:title>V {i}</video:title><video:description>About {i}</video:description>"
        f"{content}</video:video>"
    )


def _news(i: int, when: str) -> str:
    return (
        "<news:news><news:publication><news:name>Daily</news:name><news:language>en"
        f"</news:language></news:publication><news:publication_date>{when}"
        f"</news:publication_date><news:title>Story {i}</news:title></news:news>"
    )


def _link(code: str, href: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{code}" href="{href}"/>'


def _extensions(kind: str, i: int, page: str) -> str:
    """The extension elements of one page of ``kind``."""
    image = f"<image:image><image:loc>{SITE}/i/{i}.jpg</image:loc></image:image>"
    shapes = {
        "image": image * 2,
        "image title": f"<image:image><image:loc>{SITE}/i/{i}.jpg</image:loc>"
        f"<image:title>T</image:title></image:image>",
        "images 1001": image * 1001,
        "video": _video(i, f"<video:content_loc>{SITE}/v/{i}.mp4</video:content_loc>"),
        "video content is page": _video(i, f"<video:content_loc>{page}</video:content_loc>"),
        "video player is page": _video(i, f"<video:player_loc>{page}</video:player_loc>"),
        "news fresh": _news(i, "2025-12-31T10:00:00+01:00"),
        "news two days": _news(i, "2025-12-30"),
        "news old": _news(i, "2025-12-01T10:00:00Z"),
        "news repeated": _news(i, "2025-12-31") + _news(i + 1, "2025-12-31"),
        "news every field": "<news:news><news:publication><news:name>Daily</news:name>"
        "<news:language>zh-cn</news:language></news:publication><news:access>Registration"
        "</news:access><news:genres>Blog, OpEd</news:genres><news:publication_date>"
        f"2025-11-01T10:00:00.5+05:30</news:publication_date><news:title>Story {i}"
        "</news:title><news:keywords>a, b c</news:keywords><news:stock_tickers>NASDAQ:A"
        "</news:stock_tickers></news:news>",
        "hreflang": _link("en", page) + _link("de", f"{SITE}/de/{i}"),
        "hreflang returned": _link("en", page) + _link("de", f"{SITE}/p/{i + 1}"),
        "hreflang no self": _link("de", f"{SITE}/de/{i}"),
        "hreflang duplicate": _link("en", page) + _link("EN", f"{SITE}/en/{i}"),
        "hreflang same twice": _link("en", page) + _link("EN", page),
        "other": f"<other:rating>{i % 5}</other:rating>",
        "other and image": f"<other:rating>1</other:rating>{image}",
        "image video news": image
        + _video(i, "<video:player_loc>https://p.example/x</video:player_loc>")
        + _news(i, "2025-12-31"),
    }
    return shapes[kind]


KINDS = (
    "image",
    "image title",
    "images 1001",
    "video",
    "video content is page",
    "video player is page",
    "news fresh",
    "news two days",
    "news old",
    "news repeated",
    "news every field",
    "hreflang",
    "hreflang returned",
    "hreflang no self",
    "hreflang duplicate",
    "hreflang same twice",
    "other",
    "other and image",
    "image video news",
)


def _doc(kinds: tuple[str, ...], n: int) -> bytes:
    rows = []
    for i in range(n):
        page = f"{SITE}/p/{i}"
        extra = _extensions(kinds[i % len(kinds)], i, page) if i % 5 else ""
        rows.append(f"<url><loc>{page}</loc><lastmod>2025-06-01</lastmod>{extra}</url>\n")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{ROOT}\n{"".join(rows)}</urlset>\n'.encode()


def _same(doc: bytes, options: CheckOptions) -> FileResult:
    result = check_document(doc, options, "doc")
    careful = check_document(doc, replace(options, on_urls=lambda source, urls: None), "doc")
    assert result.issues == careful.issues
    assert result.discovered == careful.discovered
    assert result.unlisted == careful.unlisted
    assert result.entries == careful.entries
    return result


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("now", [NOW, None], ids=["clock", "no clock"])
def test_each_shape_gives_what_one_by_one_gives(kind: str, now: datetime | None) -> None:
    _same(_doc((kind,), 40), CheckOptions(base_url=f"{SITE}/", now=now))


@pytest.mark.parametrize("now", [NOW, None], ids=["clock", "no clock"])
def test_every_shape_among_the_others(now: datetime | None) -> None:
    result = _same(_doc(KINDS, 400), CheckOptions(base_url=f"{SITE}/", now=now))
    codes = {issue.code for issue in result.issues}
    assert {"video-loc-is-page", "news-repeated", "hreflang-missing-self"} <= codes
    assert ("news-too-old" in codes) is (now is not None)


def test_more_than_a_thousand_news_in_columns() -> None:
    result = _same(_doc(("news fresh",), 1_400), CheckOptions(base_url=f"{SITE}/", now=NOW))
    assert result.discovered["news"] == 1_120
    assert "too-many-news" in {issue.code for issue in result.issues}


def _watched(monkeypatch: pytest.MonkeyPatch) -> tuple[list[str], list[str]]:
    """The locs of the records check makes values of (``Records.url``), and of those whose
    findings it words from their JSON (``ext_columns.listed_issues``), as it meets them."""
    typed: list[str] = []
    url = entries.Records.url
    monkeypatch.setattr(
        entries.Records, "url", lambda self, i: typed.append(self.loc(i)) or url(self, i)
    )
    worded: list[str] = []
    words = entries.listed_issues
    monkeypatch.setattr(
        entries, "listed_issues", lambda loc, *rest: worded.append(loc) or words(loc, *rest)
    )
    return typed, worded


def test_only_flagged_records_are_worded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A page no per-URL rule flags is counted from the core's JSON, its findings never
    worded; a flagged one judged in the core is worded from its JSON, never made a value."""
    typed, worded = _watched(monkeypatch)
    clean = ("image", "video", "news fresh", "hreflang", "hreflang returned", "other")
    result = check_document(_doc(clean, 200), CheckOptions(base_url=f"{SITE}/", now=NOW), "doc")
    assert typed == worded == []
    assert result.careful_entries == 0  # every record came in the core's columns
    assert result.discovered["videos"] == sum(1 for i in range(200) if i % 5 and i % 6 == 1)
    flagged = ("video", "video content is page")
    check_document(_doc(flagged, 40), CheckOptions(base_url=f"{SITE}/", now=NOW), "doc")
    assert typed == []
    assert worded == [f"{SITE}/p/{i}" for i in range(40) if i % 5 and i % 2]


def test_findings_past_their_cap_are_counted_in_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past 1,000 findings of a code only their count is kept: a record whose findings are
    all past their caps is counted from its JSON, not typed, with the same counts."""
    typed, worded = _watched(monkeypatch)
    kinds = ("news old", "video content is page", "news repeated", "hreflang duplicate")
    result = _same(_doc(kinds, 6_000), CheckOptions(base_url=f"{SITE}/", now=NOW))
    assert result.unlisted["news-too-old"] > 100
    assert result.unlisted["video-loc-is-page"] > 100
    # 4,800 pages with findings: past the caps (judged a run at a time) most are not worded
    assert typed == []
    assert len(worded) < 4_800 - 500


def test_the_rules_read_from_json_are_the_registry_s() -> None:
    """The core's ``judge_extensions`` (``core/src/check/ext_json.rs``) words no finding: it
    counts which codes the per-URL rules give a page (the news window judged in Python). A
    new rule in the registry must be taught to it (then this list grows)."""
    from urlset._core import EXT_JSON_CODES
    from urlset.extensions.rules import EXT_CODES, RULES

    assert [rule.__name__ for rule in RULES] == [
        "too_many_images",
        "image_deprecated_fields",
        "video_loc_is_page",
        "news_too_old",
        "news_repeated",
        "hreflang_missing_self",
        "hreflang_duplicate",
    ]
    codes = {
        "too-many-images",
        "image-deprecated-field",
        "video-loc-is-page",
        "news-too-old",
        "news-repeated",
        "hreflang-missing-self",
        "hreflang-duplicate",
    }
    assert codes <= set(EXT_CODES)
    assert set(EXT_JSON_CODES) == codes - {"news-too-old"}


def test_links_held_for_the_set_are_named_again_from_their_strings() -> None:
    """The hreflang links a run hands to the set rule are held as hashes, their strings
    kept aside in the core; the findings listed name the variant, its code and the page as
    written."""
    from urlset.extensions.set_checks import SetChecks

    site = "https://www.example.com"
    entries = "".join(
        f"<url><loc>{site}/p/{i}</loc>{_link('en', f'{site}/p/{i}')}{_link('de', f'{site}/de/{i}')}</url>\n"
        for i in range(3)
    )
    pool = SetChecks()
    check_document(f"{ROOT}\n{entries}</urlset>\n".encode(), set_checks=pool)
    said = pool.reciprocity.judged()
    assert said.pages == 3 and said.unlisted_counts == {True: 0, False: 3}
    assert [tuple(u) for u in said.unlisted] == [
        (f"{site}/de/{i}", "de", f"{site}/p/{i}", False) for i in range(3)
    ]


def test_a_variant_with_other_extensions_is_in_the_set() -> None:
    """A page with a video, news or images but no alternates, named as a variant by another
    page, is in the set and lists no alternates (``hreflang-unlisted``), in columns as one by
    one (the columns once took only pages without any typed extension for plain ones)."""
    content = f"<video:content_loc>{SITE}/v.mp4</video:content_loc>"
    variants = {
        "video": _video(1, content),
        "news": _news(2, "2025-12-31T10:00:00Z"),
        "image": f"<image:image><image:loc>{SITE}/i.jpg</image:loc><image:title>T</image:title></image:image>",
    }
    rows = [f"<url><loc>{SITE}/{name}</loc>{extra}</url>" for name, extra in variants.items()]
    links = _link("en", f"{SITE}/en") + "".join(
        _link(code, f"{SITE}/{name}")
        for code, name in zip(("de", "fr", "it"), variants, strict=True)
    )
    rows.append(f"<url><loc>{SITE}/en</loc>{links}</url>")
    doc = f"{ROOT}\n" + "\n".join(rows) + "\n</urlset>\n"
    result = _same(doc.encode(), CheckOptions(base_url=f"{SITE}/", now=NOW))
    unlisted = sorted(i.message.split()[0] for i in result.issues if i.code == "hreflang-unlisted")
    assert unlisted == [f"{SITE}/{name}" for name in sorted(variants)]


@pytest.mark.parametrize("kind", ["news old", "video content is page", "news repeated"])
def test_a_run_lists_only_the_records_that_fill_a_cap(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Of a run's records with findings of a code that has room, only the first that fill
    the room are worded (each the rules word one by one); the others' findings are counted
    after them, so the listed findings and the counts are one by one's. A run of thousands
    of old news pages was typed each (the room was asked once a run)."""
    typed, worded = _watched(monkeypatch)
    n = 5_000  # four pages in five with the finding, in runs of thousands
    result = _same(_doc((kind,), n), CheckOptions(base_url=f"{SITE}/", now=NOW))
    counts = result.code_counts()
    (code,) = (c for c in counts if c in ("news-too-old", "video-loc-is-page", "news-repeated"))
    assert counts[code] >= n * 4 // 5
    assert typed == []
    assert 1_000 <= len(worded) <= 1_000 + 1  # as many pages as fill the cap (one finding each)


@pytest.mark.parametrize(
    "item",
    [
        {"publication_name": "D", "language": "en", "publication_date": "2025-12-31T10:00:00Z",
         "title": "S"},
        {"publication_name": "D", "language": "zh-cn", "access": "Registration",
         "genres": ["Blog", "OpEd"], "publication_date": "2025-11-01T10:00:00.5+05:30",
         "title": "S", "keywords": ["a", "b c"], "stock_tickers": ["NASDAQ:A"]},
        {"publication_name": "D", "language": "fr", "publication_date": "2025-12", "title": "S"},
        {"publication_name": "D", "language": "fr", "publication_date": "2025-12-30",
         "title": "S"},
    ],
)  # fmt: skip
def test_a_news_article_made_from_the_core_s_json_is_the_registry_s(item: dict[str, Any]) -> None:
    """Check makes a listed record's article from the core's JSON without checking it again
    (``trusted_news_json``): the value the registry makes of that JSON."""
    (article,) = from_json_fields({"news": item})
    made = trusted_news_json(item)
    assert made == article
    assert made is not None and repr(made.publication_date) == repr(article.publication_date)
    assert trusted_news_json({**item, "other": 1}) is None
    assert trusted_news_json({k: v for k, v in item.items() if k != "title"}) is None


@pytest.mark.parametrize(
    "links",
    [
        [{"hreflang": "en", "href": f"{SITE}/p/1"}],
        [{"hreflang": "en-GB", "href": f"{SITE}/p/1"}, {"hreflang": "x-default", "href": f"{SITE}/"},
         {"hreflang": "zh-Hant-TW", "href": f"{SITE}/zh/%E4%B8%AD"}],
    ],
)  # fmt: skip
def test_links_made_from_the_core_s_json_are_the_registry_s(links: list[dict[str, str]]) -> None:
    """Check makes a listed record's hreflang links from the core's JSON (canonical codes,
    plain URIs) without checking them again (``trusted_links``): the values the registry
    makes of that JSON; a link of another shape goes to the registry (which refuses it)."""
    from urlset.checking.records import _extensions_from

    made = _extensions_from({"alternates": links})
    assert made == from_json_fields({"alternates": links})
    assert [(a.hreflang, a.href) for a in made] == [(x["hreflang"], x["href"]) for x in links]
    with pytest.raises(InvalidValue):
        _extensions_from({"alternates": [*links, {**links[0], "rel": "alternate"}]})


def _without_facts(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Check's runs judged from their JSON alone (the facts the render lane recorded beside
    the columns dropped); whether each take of the columns had facts."""
    taken = document.taken_columns
    had: list[bool] = []

    def json_only(spec: Any) -> tuple[Any, None]:
        columns, facts = taken(spec)
        had.append(facts is not None)
        return columns, None

    monkeypatch.setattr(document, "taken_columns", json_only)
    return had


@pytest.mark.parametrize("now", [NOW, None], ids=["clock", "no clock"])
@pytest.mark.parametrize("n", [400, 6_000])
def test_the_facts_recorded_in_the_render_are_the_json_s(
    monkeypatch: pytest.MonkeyPatch, now: datetime | None, n: int
) -> None:
    """The per-URL extension rules' facts the render lane records as it writes a record's
    JSON (``RecordRenderer.extension_facts``) give what reading that JSON again gives."""
    doc = _doc(KINDS, n)
    options = CheckOptions(base_url=f"{SITE}/", now=now)
    recorded = _same(doc, options)
    had = _without_facts(monkeypatch)
    from_json = check_document(doc, options, "doc")
    assert had and all(had)  # every take of check's columns came with its facts
    assert recorded.issues == from_json.issues
    assert recorded.discovered == from_json.discovered
    assert recorded.unlisted == from_json.unlisted

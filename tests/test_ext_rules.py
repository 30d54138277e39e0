"""Extension check rules: each has a triggering case and a near miss; hreflang reciprocity."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from urlset import RawElement, Severity, Url
from urlset.codes import CODES
from urlset.extensions import IMAGE_NS, NEWS_NS, VIDEO_NS, XHTML_NS, Alternate, Image, News, Video
from urlset.extensions.reciprocity import MissingLink, Reciprocity, describe
from urlset.extensions.rules import EXT_CODES, RULES, SetChecks, check_raw, check_url

PAGE = "https://www.example.com/page"
NOW = datetime(2024, 5, 10, 12, tzinfo=UTC)


def codes(url: Url, now: datetime | None = NOW) -> list[str]:
    return [i.code for i in check_url(url, now=now)]


def video(**fields: object) -> Video:
    base: dict[str, object] = {
        "thumbnail_loc": "https://www.example.com/t.jpg",
        "title": "T",
        "description": "D",
        "content_loc": "https://www.example.com/v.mp4",
    }
    base.update(fields)
    return Video(**base)  # type: ignore[arg-type]


def article(published: date | datetime, title: str = "T") -> News:
    return News("Times", "en", published, title)


def test_codes_are_new_well_formed_and_documented() -> None:
    assert not set(EXT_CODES) & set(CODES)
    for code, row in EXT_CODES.items():
        assert code == code.lower() and " " not in code
        assert row.title and row.hint
    assert len(RULES) == 7


def test_plain_urls_have_no_extension_issues() -> None:
    assert check_url(Url(PAGE), now=NOW) == []


# ---------------------------------------------------------------- per URL


def test_too_many_images() -> None:
    images = tuple(Image(f"https://www.example.com/{i}.jpg") for i in range(1001))
    assert codes(Url(PAGE, extensions=images)) == ["too-many-images"]
    assert codes(Url(PAGE, extensions=images[:1000])) == []


def test_image_deprecated_fields() -> None:
    issues = check_url(
        Url(PAGE, extensions=(Image(PAGE + ".jpg", caption="c", license=PAGE),)), now=NOW
    )
    assert [i.code for i in issues] == ["image-deprecated-field"]
    assert issues[0].severity is Severity.INFO and "caption (1), license (1)" in issues[0].message
    assert codes(Url(PAGE, extensions=(Image(PAGE + ".jpg"),))) == []


def test_video_loc_is_page() -> None:
    assert codes(Url(PAGE, extensions=(video(content_loc=PAGE),))) == ["video-loc-is-page"]
    assert codes(Url(PAGE, extensions=(video(player_loc=PAGE),))) == ["video-loc-is-page"]
    assert codes(Url(PAGE, extensions=(video(content_loc=PAGE + "/v.mp4"),))) == []


def test_news_too_old() -> None:
    old = NOW - timedelta(days=2, seconds=1)
    issues = check_url(Url(PAGE, extensions=(article(old),)), now=NOW)
    assert [i.code for i in issues] == ["news-too-old"] and "2 days" in issues[0].message
    assert codes(Url(PAGE, extensions=(article(NOW - timedelta(days=2)),))) == []
    assert codes(Url(PAGE, extensions=(article(date(2024, 5, 9)),))) == []
    assert codes(Url(PAGE, extensions=(article(date(2024, 5, 8)),))) == ["news-too-old"]
    # without a time the rule cannot run: nothing here reads the clock
    assert codes(Url(PAGE, extensions=(article(old),)), now=None) == []


def test_news_repeated() -> None:
    two = (article(NOW), article(NOW, "Other"))
    assert codes(Url(PAGE, extensions=two)) == ["news-repeated"]
    assert codes(Url(PAGE, extensions=two[:1])) == []


def test_hreflang_missing_self() -> None:
    other = Alternate("de", "https://www.example.com/de/page")
    issues = check_url(Url(PAGE, extensions=(other,)), now=NOW)
    assert [i.code for i in issues] == ["hreflang-missing-self"] and "(de)" in issues[0].message
    assert codes(Url(PAGE, extensions=(other, Alternate("en", PAGE)))) == []


def test_hreflang_duplicate() -> None:
    a = Alternate("en", PAGE)
    b = Alternate("EN", "https://www.example.com/en-2")
    issues = check_url(Url(PAGE, extensions=(a, b)), now=NOW)
    assert [i.code for i in issues] == ["hreflang-duplicate"]
    assert PAGE in issues[0].message and "en-2" in issues[0].message
    assert codes(Url(PAGE, extensions=(a, Alternate("en", PAGE)))) == []  # same link twice


def test_line_and_source_are_copied() -> None:
    url = Url(PAGE, extensions=(video(content_loc=PAGE),))
    (issue,) = check_url(url, now=NOW, line=7, source="s.xml")
    assert (issue.line, issue.source) == (7, "s.xml")
    assert str(issue).startswith("s.xml:7: error video-loc-is-page")


# ---------------------------------------------------------------- raw elements


@pytest.mark.parametrize(
    ("namespace", "name", "xml", "code"),
    [
        (IMAGE_NS, "image", f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>/rel.jpg</i:loc></i:image>', "invalid-image"),
        (VIDEO_NS, "video", f'<v:video xmlns:v="{VIDEO_NS}"><v:title>t</v:title></v:video>', "invalid-video"),
        (NEWS_NS, "news", f'<n:news xmlns:n="{NEWS_NS}"><n:title>t</n:title></n:news>', "invalid-news"),
        (XHTML_NS, "link", f'<x:link xmlns:x="{XHTML_NS}" rel="alternate" hreflang="en-UK" href="{PAGE}"/>', "invalid-alternate"),
    ],
)  # fmt: skip
def test_untypable_raw_elements_are_reported(
    namespace: str, name: str, xml: str, code: str
) -> None:
    raw = RawElement(namespace, name, xml)
    issues = check_url(Url(PAGE, extensions=(raw,)), now=NOW, line=3)
    assert [i.code for i in issues] == [code]
    assert issues[0].severity is Severity.ERROR and issues[0].line == 3
    assert issues[0].message.startswith(PAGE + ": ")


def test_raw_near_misses_are_quiet() -> None:
    good = Image(PAGE + ".jpg")
    assert check_raw(RawElement(IMAGE_NS, "image", good.xml)) == []
    other = RawElement("urn:other", "x", '<o:x xmlns:o="urn:other">anything</o:x>')
    assert check_raw(other) == []


def test_extension_order() -> None:
    xml = f'<i:image xmlns:i="{IMAGE_NS}"><i:title>t</i:title><i:loc>{PAGE}.jpg</i:loc></i:image>'
    issues = check_raw(RawElement(IMAGE_NS, "image", xml))
    assert [i.code for i in issues] == ["extension-order"]
    assert "<image:loc> comes after <image:title>" in issues[0].message
    in_order = (
        f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>{PAGE}.jpg</i:loc><i:title>t</i:title></i:image>'
    )
    assert check_raw(RawElement(IMAGE_NS, "image", in_order)) == []


# ---------------------------------------------------------------- across a set


def test_too_many_news_per_sitemap() -> None:
    checks = SetChecks()
    for i in range(1001):
        checks.add(Url(f"{PAGE}/{i}", extensions=(article(NOW),)), source="a.xml")
    checks.add(Url(PAGE + "/b", extensions=(article(NOW),)), source="b.xml")
    issues = checks.finish()
    assert [(i.code, i.source) for i in issues] == [("too-many-news", "a.xml")]

    near = SetChecks()
    near.add_all((Url(f"{PAGE}/{i}", extensions=(article(NOW),)) for i in range(1000)), source="a")
    assert near.finish() == []


def hreflang_set(links: dict[str, list[str]]) -> list[Url]:
    """Pages (by language) with the languages each one links to."""
    url = "https://www.example.com/{}/".format
    return [
        Url(url(lang), extensions=tuple(Alternate(o, url(o)) for o in others))
        for lang, others in links.items()
    ]


def test_reciprocal_set_is_clean() -> None:
    checks = SetChecks()
    checks.add_all(
        hreflang_set({"en": ["en", "de", "fr"], "de": ["en", "de", "fr"], "fr": ["fr", "de", "en"]})
    )
    assert checks.finish() == []


def test_missing_return_links_are_named() -> None:
    urls = hreflang_set({"en": ["en", "de", "fr"], "de": ["en", "de"], "fr": ["en", "de", "fr"]})
    rec = Reciprocity()
    for url in urls:
        rec.add(url)
    assert list(rec.missing()) == [
        MissingLink(
            "https://www.example.com/de/",
            "https://www.example.com/fr/",
            "fr",
            "https://www.example.com/en/",
        )
    ]
    checks = SetChecks()
    checks.add_all(urls)
    (issue,) = checks.finish()
    assert issue.code == "hreflang-not-reciprocal"
    assert issue.message == (
        "https://www.example.com/de/ lacks <xhtml:link hreflang='fr' "
        "href='https://www.example.com/fr/'>: https://www.example.com/en/ lists both as "
        "variants of one page"
    )


def test_missing_self_links_in_the_set_rule() -> None:
    urls = hreflang_set({"en": ["de"], "de": ["en", "de"]})
    rec = Reciprocity()
    for url in urls:
        rec.add(url)
    pairs = {(m.page, m.target) for m in rec.missing()}
    en = "https://www.example.com/en/"
    assert pairs == {(en, en)}
    (link,) = rec.missing()
    assert describe(link).startswith(f"{en} lacks a link to itself")
    # SetChecks leaves self-links to the per-URL rule, which reports them once
    checks = SetChecks()
    checks.add_all(urls)
    assert checks.finish() == []
    assert codes(urls[0]) == ["hreflang-missing-self"]


def test_variants_without_links_in_or_out_of_the_set() -> None:
    en, de, fr = (f"https://www.example.com/{x}/" for x in ("en", "de", "fr"))
    checks = SetChecks()
    checks.add(Url(en, extensions=(Alternate("en", en), Alternate("de", de), Alternate("fr", fr))))
    checks.add(Url(de))  # in the set, no alternates: a certain failure
    issues = checks.finish()
    assert [(i.code, i.severity) for i in issues] == [
        ("hreflang-unlisted", Severity.WARNING),
        ("hreflang-unverified", Severity.INFO),
    ]
    assert issues[0].message.startswith(de) and issues[1].message.startswith(fr)


def test_a_url_listed_twice_gets_the_union_of_its_links() -> None:
    en, de = "https://www.example.com/en/", "https://www.example.com/de/"
    rec = Reciprocity()
    rec.add(Url(en, extensions=(Alternate("en", en),)))
    rec.add(Url(en, extensions=(Alternate("de", de),)))
    rec.add(Url(de, extensions=(Alternate("en", en), Alternate("de", de))))
    assert list(rec.missing()) == [] and rec.pages == 2


def test_reported_examples_are_capped() -> None:
    pages = {str(i): [str(i), "x"] for i in range(5)}
    urls = [
        Url(f"https://www.example.com/{p}/", extensions=tuple(Alternate("en" if o == p else "de", f"https://www.example.com/{o}/") for o in others))
        for p, others in pages.items()
    ]  # fmt: skip
    urls.append(
        Url(
            "https://www.example.com/x/",
            extensions=(Alternate("de", "https://www.example.com/x/"),),
        )
    )
    checks = SetChecks(max_examples=2)
    checks.add_all(urls)
    issues = [i for i in checks.finish() if i.code == "hreflang-not-reciprocal"]
    # capped per code as check caps every code: the rest counted, not a line of their own
    assert len(issues) == 2 and all("lacks" in i.message for i in issues)
    listed, more = checks.findings(2)
    assert [i for i in listed if i.code == "hreflang-not-reciprocal"] == issues
    assert more[("", "hreflang-not-reciprocal")] == 3


def test_reciprocity_taps_a_build(tmp_path: Path) -> None:
    from urlset.writing.build import write_sitemaps

    urls = hreflang_set({"en": ["en", "de"], "de": ["de"]})
    rec = Reciprocity()
    report = write_sitemaps(rec.tap(urls), tmp_path, "https://www.example.com/", gzip=False)
    assert report.urls == 2
    (link,) = rec.missing()
    assert (link.page, link.target) == (
        "https://www.example.com/de/",
        "https://www.example.com/en/",
    )


def test_check_url_can_leave_raw_elements_to_the_reader() -> None:
    bad = RawElement(
        IMAGE_NS, "image", f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>/a.jpg</i:loc></i:image>'
    )
    url = Url(PAGE, extensions=(bad,))
    assert codes(url) == ["invalid-image"]
    assert check_url(url, now=NOW, raw=False) == []


def test_reciprocity_without_plain_pages_finds_the_same_missing_links() -> None:
    """The build's report asks only for missing links, so it keeps no hash of the pages
    without alternates (8 bytes a URL); without them an unlisted variant cannot be placed
    in the set."""
    urls = hreflang_set({"en": ["en", "de", "fr"], "de": ["de"]})
    urls.append(Url("https://www.example.com/fr/"))  # in the set, lists no alternates
    full, lean = Reciprocity(), Reciprocity(track_plain=False)
    for rec in (full, lean):
        for batch in rec.tap_batches([urls[:1], urls[1:]]):
            assert batch
    assert list(lean.missing()) == list(full.missing()) != []
    assert [u.in_set for u in full.unlisted()] == [True]
    assert [u.in_set for u in lean.unlisted()] == [False]


def test_reciprocity_settled_by_the_builds_set_places_an_unlisted_variant() -> None:
    """A build keeps no hash of its plain pages: its de-duplication set, asked once the set
    is in (``settle``), says which unlisted variants are in it; a variant named twice is
    asked once, so the question itself never makes it look seen."""
    from urlset.writing.dedupe import SeenLocs

    urls = hreflang_set({"en": ["en", "de", "fr", "it"], "de": ["de", "it"]})
    urls.append(Url("https://www.example.com/fr/"))  # in the set, lists no alternates
    rec = Reciprocity(track_plain=False)
    seen = SeenLocs()
    for batch in rec.tap_batches([urls]):
        seen.first_seen([url.loc for url in batch])
    rec.settle(seen.known)
    assert {u.variant.rsplit("/", 2)[-2]: u.in_set for u in rec.unlisted()} == {
        "fr": True,
        "it": False,
    }
    twice = ["https://www.example.com/es/"] * 2
    assert SeenLocs().known(twice) == [False, False]


def test_reciprocity_settled_by_any_callable_is_asked_by_href() -> None:
    """A ``known`` that is not a de-duplication set's is asked with the unlisted variants'
    hrefs (read back from the engine's strings), each once, and its answer places them."""
    urls = hreflang_set({"en": ["en", "de", "fr", "it"], "de": ["de", "it"]})
    rec = Reciprocity(track_plain=False)
    for _ in rec.tap_batches([urls]):
        pass
    asked: list[list[str]] = []

    def known(locs: list[str]) -> list[bool]:
        asked.append(locs)
        return ["/fr/" in loc for loc in locs]

    rec.settle(known)
    assert [sorted(loc.rsplit("/", 2)[-2] for loc in locs) for locs in asked] == [["fr", "it"]]
    assert {u.variant.rsplit("/", 2)[-2]: u.in_set for u in rec.unlisted()} == {
        "fr": True,
        "it": False,
    }


def test_reciprocity_counts_a_sources_rows_as_plain_pages(tmp_path: Path) -> None:
    """A CSV's rows reach the build as one SourceRows entry a batch: its pages are in the
    set, as Urls of the same locs would be."""
    from urlset.writing.sources import iter_batches, open_source

    urls = hreflang_set({"en": ["en", "de", "fr"], "de": ["de"]})
    source = tmp_path / "plain.csv"
    source.write_text("loc\nhttps://www.example.com/fr/\n")
    with open_source(str(source)) as stream:
        rows = list(iter_batches(stream, "csv", str(source), rows=True))
    assert [type(entry).__name__ for batch in rows for entry in batch] == ["SourceRows"]
    rec = Reciprocity()
    for _ in rec.tap_batches([urls, *rows]):
        pass
    assert [u.in_set for u in rec.unlisted()] == [True]


@pytest.mark.parametrize("size", [3, 12])
def test_a_group_missing_one_link_names_it_whatever_its_size(size: int) -> None:
    """A group of variants that all list each other but one link (a small group's links
    looked up as held, a large one's in a set): exactly that link is missing."""
    langs = ["en", "de", "fr", "it", "es", "nl", "pt", "pl", "sv", "da", "fi", "cs"][:size]
    links = {lang: list(langs) for lang in langs}
    links["de"].remove("fr")
    rec = Reciprocity()
    for url in hreflang_set(links):
        rec.add(url)
    url = "https://www.example.com/{}/".format
    assert list(rec.missing()) == [MissingLink(url("de"), url("fr"), "fr", url("en"))]

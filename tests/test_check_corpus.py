"""Every real sitemap of ../shared/corpus/realworld: each flaw the manifest lists is reported
by a fitting rule, and a file listed without flaws gets no error."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

import pytest

from urlset.checking.checker import CheckOptions, check_paths
from urlset.model import Severity

# A time after every lastmod in the corpus, so that only real flaws show.
NOW = datetime(2027, 1, 1, tzinfo=UTC)

# manifest phrase (a flaw of the "flaws" column) -> codes that report it
FLAW_CODES: list[tuple[str, set[str]]] = [
    ("relative/non-http locs", {"relative-url", "invalid-url"}),
    ("non-absolute lines", {"relative-url"}),
    ("non-public/placeholder host", {"dev-host", "placeholder-host"}),
    ("site url left at the default", {"placeholder-host"}),
    ("no XML declaration", {"no-xml-declaration"}),
    (
        "not well-formed",
        {
            "not-well-formed",
            "junk-before-root",
            "leading-whitespace",
            "unescaped-ampersand",
            "content-after-root",
        },
    ),
    ("locs with spaces", {"url-not-escaped"}),
    ("lines with spaces", {"text-not-url"}),
    ("bad lastmod", {"invalid-lastmod", "lenient-lastmod"}),
    ("duplicate locs", {"duplicate-loc"}),
    ("wrong namespace", {"wrong-namespace"}),
    ("empty urlset", {"empty-sitemap"}),
    ("empty self-closing", {"empty-sitemap"}),
    ("padded with whitespace", {"whitespace-in-value"}),
    ("UTF-8 BOM", {"byte-order-mark"}),
    ("mixed hosts", {"mixed-hosts", "url-not-allowed"}),
    ("unescaped '&'", {"unescaped-ampersand"}),
    ("leading whitespace before XML declaration", {"leading-whitespace"}),
    ("HTML page", {"html-page"}),
    ("empty file", {"empty-document"}),
    ("index entries have no lastmod", {"missing-index-lastmod"}),
    ("Liquid template committed", {"junk-before-root", "relative-url"}),
    ("static export rewrote every loc", {"relative-url"}),
    ("built with the dev server baseURL", {"relative-url"}),
    ("no site URL configured", {"relative-url"}),
    ("static export stripped host", {"relative-url"}),
    ('baseURL "/"', {"relative-url"}),
    ("site_url unset", {"relative-url"}),
    ("every line is a relative path", {"relative-url"}),
    ("one line contains spaces", {"text-not-url"}),
    ("built locally", {"dev-host"}),
    ("built with siteUrl http://localhost", {"dev-host"}),
    ("host has no TLD", {"dev-host"}),
    ("loc host is a local dev hostname", {"dev-host"}),
    ("raw & and multi-line", {"unescaped-ampersand"}),
    ("starts with Chrome's", {"junk-before-root"}),
    ("every line is on example.com", {"placeholder-host"}),
    ("lastmod in generator comment", set()),  # a comment, not data: nothing to report
    ("includes .ipynb_checkpoints pages", set()),  # valid URLs of a real build
    ("all on one line", set()),  # legal XML
    ("html_baseurl copied from another project", {"url-not-allowed"}),
]

# Where the site really lives, for files whose flaw is a foreign host.
BASE_URLS = {
    "023_sphinx-sitemap-foreign-host.xml": "https://davemlz.github.io/eemont/sitemap.xml",
}

# Warnings that fire on files the manifest lists without flaws, and why they are right.
CLEAN_WARNINGS: dict[str, dict[str, str]] = {
    "016_rails-sitemap-generator-large.xml": {
        "normalized-url": "the home page is written without its slash: https://www.coursavenue.com",
    },
    "017_rails-sitemap-generator-gz.xml.gz": {"normalized-url": "home page without its slash"},
    "049_next-sitemap-0.xml": {"normalized-url": "home page without its slash"},
    "074_mkdocs-plain.xml": {"normalized-url": "the host has upper-case letters (1ForeverHD)"},
    "014_index-handwritten-blogspot.xml": {"missing-index-lastmod": "index without lastmod"},
    "026_astro-sitemap-index.xml": {"missing-index-lastmod": "Astro writes no index lastmod"},
    "037_shopify-index.xml": {"missing-index-lastmod": "Shopify writes no index lastmod"},
    # The official sitemap-image.xsd makes loc, caption, geo_location, title, license a
    # sequence; these generators write <image:title> before <image:caption>, and the official
    # schema rejects every such element (test_image_order_warnings_match_the_official_schema).
    "004_rankmath-woocommerce-products-images.xml": {"extension-order": "title before caption"},
    "038_shopify-products-images.xml": {"extension-order": "title before caption"},
    # news is judged against the check's clock: an archived news sitemap is always older
    # than the two days Google News reads
    "011_news-handwritten.xml": {
        "news-too-old": "the articles were published years before the check"
    },
    "101_hexo-atom-feed.xml": {
        "placeholder-host": "the feed's links are on example.com (site url left at the default)",
    },
}


def _manifest(shared: Path) -> list[dict[str, str]]:
    path = shared / "corpus" / "realworld" / "MANIFEST.tsv"
    with path.open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [r for r in rows if r["format"] != "robots"]


def _flaws(text: str) -> list[str]:
    if text.strip().startswith("none"):
        return []
    flaws = []
    for part in (p.strip() for p in text.split(";")):
        if part.startswith("note:"):
            break  # a note runs to the end of the cell
        if part:
            flaws.append(part)
    return flaws


def _codes_for(flaw: str) -> set[str] | None:
    for phrase, codes in FLAW_CODES:
        if phrase in flaw:
            return codes
    return None


def _names(shared: Path) -> list[str]:
    return [r["file"] for r in _manifest(shared)]


@pytest.fixture(scope="module")
def manifest(shared: Path) -> dict[str, dict[str, str]]:
    return {r["file"]: r for r in _manifest(shared)}


def _check(shared: Path, name: str):  # type: ignore[no-untyped-def]
    path = shared / "corpus" / "realworld" / name
    options = CheckOptions(now=NOW, base_url=BASE_URLS.get(name))
    report = check_paths([path], options)
    return report.files[0]


def test_every_flaw_phrase_is_mapped(manifest: dict[str, dict[str, str]]) -> None:
    unmapped = [
        (name, flaw)
        for name, row in manifest.items()
        for flaw in _flaws(row["flaws"])
        if _codes_for(flaw) is None
    ]
    assert not unmapped


def test_corpus(shared: Path, manifest: dict[str, dict[str, str]]) -> None:
    failures = []
    for name, row in manifest.items():
        result = _check(shared, name)
        codes = {i.code for i in result.issues}
        flaws = _flaws(row["flaws"])
        for flaw in flaws:
            expected = _codes_for(flaw) or set()
            if expected and not expected & codes:
                failures.append(f"{name}: {flaw!r} not reported (got {sorted(codes)})")
        if not flaws:
            errors = [i for i in result.issues if i.severity == Severity.ERROR]
            if errors:
                failures.append(f"{name}: clean file has errors: {errors[:3]}")
            allowed = CLEAN_WARNINGS.get(name, {})
            extra = {i.code for i in result.issues if i.severity == Severity.WARNING} - set(allowed)
            if extra:
                failures.append(f"{name}: unexplained warnings {sorted(extra)}")
    assert not failures, "\n".join(failures)


def test_corpus_counts_match_manifest(shared: Path, manifest: dict[str, dict[str, str]]) -> None:
    """Checking passes on every entry the reader gives: the entry count is the manifest's
    for files whose locs are all usable."""
    for name in (
        "016_rails-sitemap-generator-large.xml",
        "035_crawler-large-berkeley-law.xml",
        "068_hexo-text-example-com.txt",
        "037_shopify-index.xml",
    ):
        result = _check(shared, name)
        assert result.entries == int(manifest[name]["url_count"])


def test_foreign_host_needs_the_sites_url(shared: Path) -> None:
    """Without the sitemap's own URL a consistent foreign host cannot be seen; with it, it is."""
    path = shared / "corpus" / "realworld" / "023_sphinx-sitemap-foreign-host.xml"
    plain = check_paths([path], CheckOptions(now=NOW)).files[0]
    assert not [i for i in plain.issues if i.severity == Severity.ERROR]
    placed = _check(shared, "023_sphinx-sitemap-foreign-host.xml")
    hits = [i for i in placed.issues if i.code == "url-not-allowed"]
    assert hits and "bashtage.github.io" in hits[0].message and hits[0].line == 1


def test_image_order_warnings_match_the_official_schema(shared: Path) -> None:
    """The extension-order warnings on two 'clean' corpus files are the official schema's verdict."""
    from lxml import etree

    schema = etree.XMLSchema(etree.parse(str(shared / "xsd" / "sitemap-image.xsd")))
    for name in ("004_rankmath-woocommerce-products-images.xml", "038_shopify-products-images.xml"):
        doc = etree.parse(str(shared / "corpus" / "realworld" / name))
        images = list(doc.iter("{http://www.google.com/schemas/sitemap-image/1.1}image"))
        rejected = sum(not schema.validate(etree.ElementTree(image)) for image in images)
        warned = sum(i.code == "extension-order" for i in _check(shared, name).issues)
        assert rejected > 0 and warned == rejected, name

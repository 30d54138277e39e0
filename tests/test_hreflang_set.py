"""The hreflang set rule as check applies it to a document, against the rule as stated.

The family of set shapes drawn: a page listed twice (its links the union, the first code
of an href kept), a page that links to itself and one that does not, ``x-default``, one
code in two cases (``EN``, ``en``), one href twice in a page with two codes (the last one
wins there, at the first place), a variant outside the file, a variant in the file that
lists no alternates, and groups of two and three pages with any link missing. Each is
checked twice: in the core's columns (the links read from the records' JSON in the core)
and with every entry a value (``on_urls``), so both ways of feeding the set rule agree with
the rule and with each other.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_build_findings_counted import _missing_as_specified, _unlisted_as_specified
from urlset.checking.checker import CheckOptions, check_document
from urlset.extensions.reciprocity import MissingLink, describe
from urlset.extensions.set_checks import unlisted_sentence

SITE = "https://www.urlset-shop.com"
ROOT = (
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">'
)
PAGES = [f"{SITE}/{name}" for name in ("en", "de", "fr")]
OUTSIDE = f"{SITE}/elsewhere"  # never listed in the file
CODES = ["en", "EN", "de", "x-default"]
SET_CODES = ("hreflang-not-reciprocal", "hreflang-unlisted", "hreflang-unverified")

_entry = st.tuples(
    st.sampled_from(PAGES),
    st.lists(st.tuples(st.sampled_from(CODES), st.sampled_from([*PAGES, OUTSIDE])), max_size=5),
)


def _document(entries: list[tuple[str, list[tuple[str, str]]]]) -> bytes:
    rows = []
    for loc, links in entries:
        tags = "".join(
            f'<xhtml:link rel="alternate" hreflang="{code}" href="{href}"/>' for code, href in links
        )
        rows.append(f"<url><loc>{loc}</loc>{tags}</url>")
    return (ROOT + "\n" + "\n".join(rows) + "\n</urlset>\n").encode()


def _as_stated(entries: list[tuple[str, list[tuple[str, str]]]]) -> list[tuple[str, str]]:
    """The set findings the rule gives, in check's order: the missing links, then the
    variants that list no alternates (each with its code)."""
    links: dict[str, dict[str, str]] = {}
    plain = set()
    for loc, written in entries:
        # a page's later code of an href wins; the reader writes a code in lower case
        found = {href: code.lower() for code, href in written}
        if not found:
            plain.add(loc)
            continue
        own = links.setdefault(loc, {})
        for href, code in found.items():  # a page given twice: the first code of an href kept
            own.setdefault(href, code)
    missing = [
        ("hreflang-not-reciprocal", describe(MissingLink(*m)))
        for m in _missing_as_specified(links, include_self=False)
    ]
    unlisted = [
        ("hreflang-unlisted" if u[3] else "hreflang-unverified", unlisted_sentence(*u))
        for u in _unlisted_as_specified(links, plain)
    ]
    return missing + unlisted


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=st.lists(_entry, min_size=1, max_size=7))
def test_check_finds_what_the_set_rule_says(
    entries: list[tuple[str, list[tuple[str, str]]]],
) -> None:
    doc = _document(entries)
    options = CheckOptions(base_url=f"{SITE}/", now=datetime(2026, 1, 1, tzinfo=UTC))
    expected = _as_stated(entries)
    for way in (options, replace(options, on_urls=lambda source, urls: None)):
        result = check_document(doc, way, "doc")
        found = [(i.code, i.message) for i in result.issues if i.code in SET_CODES]
        assert sorted(found, key=lambda f: SET_CODES.index(f[0]) > 0) == expected

"""The checker trusts the reader's proof of a canonical sitemap index as it trusts a
urlset's (``plain_records``: the compiled lane read every entry as a record, and nothing but
the root's end tag came after the last): its own scans of loc text and element order are
skipped, which must never change a finding."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings

from test_read_property import index_documents, mutated
from urlset.checking.checker import CheckOptions, check_document
from urlset.reading.reader import SitemapReader

OPTIONS = CheckOptions(base_url="https://example.com/", now=datetime(2026, 11, 22, tzinfo=UTC))
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
)
ENTRY = "<sitemap><loc>https://example.com/s-1.xml</loc><lastmod>2024-01-02</lastmod></sitemap>\n"


def _unproven(doc: bytes, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    with monkeypatch.context() as m:
        m.setattr(SitemapReader, "plain_records", property(lambda self: False))
        m.setattr(SitemapReader, "plain_structure", property(lambda self: False))
        return check_document(doc, OPTIONS).issues  # type: ignore[return-value]


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(index_documents() | mutated())
def test_the_index_proof_changes_no_finding(monkeypatch: pytest.MonkeyPatch, doc: bytes) -> None:
    assert check_document(doc, OPTIONS).issues == _unproven(doc, monkeypatch)


@pytest.mark.parametrize(
    ("body", "proven"),
    [
        (ENTRY * 3, True),
        ("<!-- c -->\n" + ENTRY + "<?pi x?>\n" + ENTRY, True),
        (ENTRY.replace("<loc>", "\n  <loc>").replace("</sitemap>", "\n</sitemap>"), True),
        (ENTRY.replace("<lastmod>2024-01-02</lastmod>", "") * 2, True),
        # reordered: the core reads it, the structure is the checker's to judge
        (
            "<sitemap><lastmod>2024-01-02</lastmod><loc>https://example.com/a</loc></sitemap>\n",
            False,
        ),
        (ENTRY.replace("</loc>", "</loc><changefreq>daily</changefreq>"), False),
        (ENTRY.replace("<sitemap>", '<sitemap id="1">'), False),
        (ENTRY + "<url><loc>https://example.com/u</loc></url>\n", False),
        # a loc written padded: read stripped by the core, reported by the reader
        (ENTRY.replace("https://example.com/s-1.xml", " https://example.com/s-1.xml "), True),
    ],
)
def test_canonical_indexes_are_proven_and_others_not(body: str, proven: bool) -> None:
    reader = SitemapReader("doc")
    reader.feed((HEAD + body + "</sitemapindex>\n").encode())
    assert not reader.plain_records  # only once closed
    reader.close()
    assert reader.plain_records is proven, body
    assert reader.plain_structure is proven or "s-1.xml " in body, body


def test_an_index_not_ended_is_not_proven() -> None:
    """What follows the last entry but the root's end tag (here a stray element, then the
    document cut) leaves the proof to the checker's own scans."""
    reader = SitemapReader("doc")
    reader.feed((HEAD + ENTRY + "<lastmod>2024-01-02</lastmod>\n").encode())
    reader.close()
    assert not reader.plain_structure


def test_an_index_cut_by_the_size_limit_is_proven_up_to_the_cut() -> None:
    from urlset.limits import ReadLimits

    doc = (HEAD + ENTRY * 400 + "</sitemapindex>\n").encode()
    options = CheckOptions(read_limits=ReadLimits(max_decompressed_bytes=len(doc) // 2))
    result = check_document(doc, options)
    assert result.format == "sitemapindex" and 0 < result.entries < 400


@pytest.mark.parametrize("kind", ["urlset", "sitemapindex"])
def test_values_written_padded_are_proven_and_change_no_finding(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Values on lines of their own, or with spaces and tabs around them, read stripped by the
    core: the document is proven, and the checker's own scans of loc text and element order
    would have found nothing more (the loc of 2,048 characters with whitespace around it
    included: its length is the value's)."""
    entry, close = ("url", "urlset") if kind == "urlset" else ("sitemap", "sitemapindex")
    locs = [
        "https://example.com/a?x=1&amp;y=2",
        "https://example.com/" + "b" * 2028,
        "https://example.com/c" + "%20" * 5,
        "https://example.com/d/",
    ]
    pads = [("\n      ", "\n    "), (" ", ""), ("\t", " \r\n"), ("", "\n")]
    body = "".join(
        f"<{entry}>\n  <loc>{a}{loc}{b}</loc>\n  <lastmod> 2024-01-0{i + 1}</lastmod>\n</{entry}>\n"
        for i, (loc, (a, b)) in enumerate(zip(locs, pads, strict=True))
    )
    head = HEAD.replace("sitemapindex", close)
    doc = (head + body + f"</{close}>\n").encode()
    reader = SitemapReader("doc")
    reader.feed(doc)
    reader.close()
    assert reader.plain_records
    issues = check_document(doc, OPTIONS).issues
    assert issues == _unproven(doc, monkeypatch)
    assert sum(i.code == "whitespace-in-value" for i in issues) >= 4

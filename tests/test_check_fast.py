"""The checker trusts the reader's proof of a canonical urlset (``plain_records``) and skips
its own raw scans of loc text and element order; that must never change a finding."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, given, settings

from test_read_property import documents, mutated
from urlset.checking.checker import CheckOptions, check_document
from urlset.reading.reader import SitemapReader

OPTIONS = CheckOptions(base_url="https://example.com/", now=datetime(2026, 11, 22, tzinfo=UTC))


def _without_the_proof(doc: bytes, monkeypatch: pytest.MonkeyPatch) -> list[object]:
    with monkeypatch.context() as m:
        m.setattr(SitemapReader, "plain_records", property(lambda self: False))
        return check_document(doc, OPTIONS).issues  # type: ignore[return-value]


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(documents() | mutated())
def test_the_proof_changes_no_finding(monkeypatch: pytest.MonkeyPatch, doc: bytes) -> None:
    assert check_document(doc, OPTIONS).issues == _without_the_proof(doc, monkeypatch)


def test_canonical_urlsets_are_proven_and_others_not() -> None:
    head = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    canonical = "<url><loc>https://example.com/a?x=1&amp;y=%C3%A9</loc><lastmod>2024-01-02</lastmod></url>\n"
    cases = {
        canonical: True,
        "<url><lastmod>2024-01-02</lastmod><loc>https://example.com/a</loc></url>\n": False,
        "<url><loc>https://example.com/a b</loc></url>\n": False,
        # a comment or processing instruction the parser passes over: read by the core
        "<!-- c -->" + canonical: True,
        "<?php-tag x?>\n" + canonical + "<!---->\n": True,
        "<!-- a -- b -->" + canonical: False,  # not well-formed: libxml2 reports it
        "<?xml-stylesheet href='s.xsl'?>" + canonical: False,  # a declaration's place only
        canonical.replace("&amp;", "&#038;"): True,
        canonical.replace("<loc>", "<!-- p -->\n<loc>"): True,
        '<url id="1"><loc>https://example.com/a</loc></url>\n': False,
    }
    cases[canonical + "<url><loc>https://example.com/b</loc></url"] = False  # cut short
    cases[canonical + "</urlset>\n<url><loc>https://example.com/b</loc></url>"] = False
    for body, proven in cases.items():
        reader = SitemapReader("doc")
        tail = "" if body.endswith(("</url", "</url>")) else "</urlset>\n"
        reader.feed((head + body + tail).encode())
        assert not reader.plain_records  # only once closed
        reader.close()
        assert reader.plain_records is proven, body


def test_findings_after_the_last_record_are_still_made(monkeypatch: pytest.MonkeyPatch) -> None:
    """What follows the last record goes to libxml2 at close: a stray element there must
    still be found (the reader reports it, and the checker's own walk runs)."""
    doc = (
        b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        b"<url><loc>https://example.com/a</loc></url>\n"
        b"<lastmod>2024-01-02</lastmod>\n</urlset>\n"
    )
    issues = check_document(doc, OPTIONS).issues
    assert issues and issues == _without_the_proof(doc, monkeypatch)

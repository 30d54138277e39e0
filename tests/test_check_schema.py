"""``--schema``: urlset's own schema files agree with the official ones on the corpus."""

from __future__ import annotations

from pathlib import Path

import pytest
from lxml import etree

from urlset.checking.checker import CheckOptions, check_document
from urlset.checking.schema import schema_errors
from urlset.checking.xmlevents import for_lxml

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
PARSER = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True)


def _official(shared: Path, root: str) -> etree.XMLSchema:
    name = "sitemap.xsd" if root == "urlset" else "siteindex.xsd"
    return etree.XMLSchema(etree.parse(str(shared / "xsd" / name)))


def _core_only(doc: etree._Element) -> None:
    """Drop elements of other namespaces: the official schema processes them strictly (it
    needs every extension's schema), urlset's laxly; only the protocol's part is compared."""
    for el in list(doc.iter()):
        if isinstance(el.tag, str) and not el.tag.startswith("{" + NS + "}"):
            parent = el.getparent()
            if parent is not None:
                parent.remove(el)


def _corpus_documents(shared: Path) -> list[tuple[str, bytes, str]]:
    out = []
    for path in sorted((shared / "corpus" / "realworld").iterdir()):
        if path.suffix not in (".xml", ".gz"):
            continue
        data = path.read_bytes()
        if path.suffix == ".gz":
            import gzip

            data = gzip.decompress(data)
        try:
            doc = etree.fromstring(for_lxml(data), PARSER)
        except etree.XMLSyntaxError:
            continue
        local = etree.QName(doc).localname
        if local in ("urlset", "sitemapindex"):
            out.append((path.name, data, local))
    return out


def test_own_schemas_agree_with_official(shared: Path) -> None:
    docs = _corpus_documents(shared)
    assert len(docs) > 40
    disagree = []
    invalid = 0
    for name, data, root in docs:
        doc = etree.fromstring(for_lxml(data), PARSER)
        _core_only(doc)
        stripped = etree.tostring(doc)
        official = _official(shared, root)
        official_ok = official.validate(etree.fromstring(stripped, PARSER))
        official_lines = {e.line for e in official.error_log}  # type: ignore[attr-defined]
        ours = schema_errors(stripped, root)
        invalid += not official_ok
        if official_ok != (not ours) or official_lines != {line for _, line, _ in ours}:
            disagree.append((name, official_ok, official_lines, ours[:3]))
    assert not disagree
    assert invalid >= 5  # the corpus has schema-invalid files, so agreement means something


def test_schema_errors_carry_line_and_column() -> None:
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        "<url><loc>https://a.org/</loc>\n  <changefreq>Daily</changefreq></url>\n</urlset>\n"
    ).encode()
    result = check_document(doc, CheckOptions(schema=True))
    hits = [i for i in result.issues if i.code == "schema-error"]
    assert len(hits) == 1
    assert hits[0].line == 4 and hits[0].column >= 1
    assert "Daily" in hits[0].message or "changefreq" in hits[0].message
    assert not [i for i in check_document(doc, CheckOptions()).issues if i.code == "schema-error"]


def test_child_order_is_a_warning_and_an_error_only_under_schema() -> None:
    """Search engines read <url> children in any order; the XSD's sequence does not. The fault
    is one finding either way, never an order warning beside a schema error."""
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        "<url><loc>https://a.org/</loc>\n  <priority>0.5</priority>\n"
        "  <lastmod>2024-01-01</lastmod></url>\n</urlset>\n"
    ).encode()
    plain = [(i.code, i.severity.value, i.line) for i in check_document(doc, CheckOptions()).issues]
    assert plain == [("element-order", "warning", 5)]
    strict = check_document(doc, CheckOptions(schema=True)).issues
    assert [(i.code, i.severity.value, i.line) for i in strict] == [("element-order", "error", 5)]


def test_extensions_pass_the_own_schema() -> None:
    doc = (
        f'<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
        "<url><loc>https://a.org/</loc><image:image><image:loc>https://a.org/i.png</image:loc>"
        "</image:image></url></urlset>"
    ).encode()
    assert schema_errors(doc, "urlset") == []


@pytest.mark.parametrize(
    ("value", "valid"),
    [
        ("2005-01-01", True),
        ("2005-01-01T10:30:00+01:00", True),
        ("2005-13-01", False),
        ("yesterday", False),
    ],
)
def test_lastmod_types(value: str, valid: bool) -> None:
    doc = (
        f'<urlset xmlns="{NS}"><url><loc>https://a.org/</loc><lastmod>{value}</lastmod></url>'
        "</urlset>"
    ).encode()
    assert (schema_errors(doc, "urlset") == []) is valid


def test_index_schema() -> None:
    good = f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://a.org/s.xml</loc></sitemap></sitemapindex>'
    bad = (
        f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://a.org/s.xml</loc>'
        "<priority>0.5</priority></sitemap></sitemapindex>"
    )
    assert schema_errors(good.encode(), "sitemapindex") == []
    assert schema_errors(bad.encode(), "sitemapindex")

"""Validation against the protocol's XML schemas (``--schema``).

``schema_errors`` takes a document's bytes and its format (urlset or sitemapindex) and gives
the schema's errors with their positions. The schemas are urlset's own, written
from the documentation, in ``schemas/`` of this package, loaded once each: for a urlset, the
core schema with the extensions' (image, video, news, mobile, the xhtml link) beside it.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

from lxml import etree

from ..model import Severity
from .findings import Findings
from .xmlevents import for_lxml


@lru_cache(maxsize=2)
def _xml_schema(name: str) -> etree.XMLSchema:
    # parsed from its file, so that the schemas it includes and imports are found beside it
    with resources.as_file(resources.files("urlset.checking").joinpath("schemas", name)) as path:
        parser = etree.XMLParser(resolve_entities=False, no_network=True)
        return etree.XMLSchema(etree.parse(str(path), parser))


def schema_errors(plain: bytes, fmt: str, cut: bool = False) -> list[tuple[str, int, int]]:
    """Errors of the document against urlset's own schema for ``fmt``: (message, line, column).
    A document ``cut`` where the reader stopped (a limit) lacks its root's end tag: the
    parser closes it, so that the entries before the cut are validated."""
    parser = etree.XMLParser(
        resolve_entities=False, no_network=True, load_dtd=False, huge_tree=True, recover=cut
    )
    try:
        doc = etree.fromstring(bytes(for_lxml(plain)), parser)
    except etree.XMLSyntaxError:
        return []
    schema = _xml_schema("sitemap-extensions.xsd" if fmt == "urlset" else "siteindex.xsd")
    if schema.validate(doc):
        return []
    seen: set[tuple[str, int, int]] = set()
    out = []
    for e in list(schema.error_log):  # type: ignore[call-overload]
        key = (e.message, e.line, e.column)
        if key not in seen:
            seen.add(key)
            out.append(key)
    return out


def check_schema(plain: bytes, fmt: str, found: Findings, cut: bool = False) -> None:
    """Schema errors as findings. Child order, a warning otherwise (search engines accept any
    order), is an error here, where the XSD's sequence is the rule; the schema's own message
    for the same element is left out, so the fault is counted once."""
    ordered = set()
    for n, issue in enumerate(found.placed):
        if issue.code == "element-order":
            found.placed[n] = issue._replace(severity=Severity.ERROR)
            ordered.add(issue.line)
    for message, line, column in schema_errors(plain, fmt, cut):
        if line not in ordered:
            found.add("schema-error", message, line, column + 1 if column >= 0 else 0)

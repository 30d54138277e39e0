"""The official schemas of ../shared/xsd, loaded without the network, for the tests that
hold urlset's output (and its own schemas) to them."""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from urlset.extensions import IMAGE_NS, NEWS_NS, VIDEO_NS, XHTML_NS

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
MOBILE_NS = "http://www.google.com/schemas/sitemap-mobile/1.0"

# xhtml1-strict.xsd imports the XML namespace schema from w3.org; the tests never touch the
# network, so the import is answered with this minimal stand-in (the attributes XHTML uses).
XML_NS_SCHEMA = b"""<?xml version="1.0"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"
           targetNamespace="http://www.w3.org/XML/1998/namespace">
  <xs:attribute name="lang" type="xs:language"/>
  <xs:attribute name="space">
    <xs:simpleType><xs:restriction base="xs:NCName">
      <xs:enumeration value="default"/><xs:enumeration value="preserve"/>
    </xs:restriction></xs:simpleType>
  </xs:attribute>
  <xs:attribute name="base" type="xs:anyURI"/>
  <xs:attribute name="id" type="xs:ID"/>
</xs:schema>"""


class OfflineXmlSchema(etree.Resolver):
    def resolve(self, system_url: str, public_id: str, context: object) -> object:
        if system_url.endswith("/xml.xsd"):
            return self.resolve_string(XML_NS_SCHEMA, context)
        return None


def official_schemas(xsd: Path) -> dict[str, etree.XMLSchema]:
    """By root element: sitemap.xsd with every extension schema imported (its ``xsd:any
    namespace="##other" processContents="strict"`` then validates each extension element,
    and an element of a namespace no schema declares is an error), and siteindex.xsd."""
    imports = {
        SITEMAP_NS: "sitemap.xsd",
        IMAGE_NS: "sitemap-image.xsd",
        VIDEO_NS: "sitemap-video.xsd",
        NEWS_NS: "sitemap-news.xsd",
        XHTML_NS: "xhtml1-strict.xsd",
        MOBILE_NS: "sitemap-mobile.xsd",
    }
    wrapper = '<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">' + "".join(
        f'<xsd:import namespace="{ns}" schemaLocation="{(xsd / name).as_uri()}"/>'
        for ns, name in imports.items()
    )
    parser = etree.XMLParser(no_network=True)
    parser.resolvers.add(OfflineXmlSchema())
    root = etree.fromstring((wrapper + "</xsd:schema>").encode(), parser, base_url=f"{xsd}/")
    return {
        "urlset": etree.XMLSchema(root),
        "sitemapindex": etree.XMLSchema(etree.parse(str(xsd / "siteindex.xsd"))),
    }

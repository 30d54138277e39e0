"""What the parts of the XML reader share: where reading stands, and names of elements.

``Status`` is one small object that ``XmlBody`` and each part it drives hold: the lane now
reading (``PROLOG``, ``FAST``, ``FULL`` or ``DONE``) and the format the root element named.
``split_tag`` takes lxml's ``{namespace}local`` tag apart.
"""

from __future__ import annotations

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ATOM10_NS = "http://www.w3.org/2005/Atom"
ATOM03_NS = "http://purl.org/atom/ns#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

PROLOG, FAST, FULL, DONE = range(4)

# libxml2 keeps an element's line in 16 bits: from this line on, lxml's ``sourceline`` is a
# guess from the text around the element (xml_lines.LateLines gives the line)
LINE_CAP = 65_535

# a rest the compiled lane keeps shorter than this (a record's start) is joined to the next
# chunk as bytes (by the gzip inflater: XmlBody.held); a longer one grows in place
JOIN_BELOW = 65_536


class Status:
    """Where reading one document stands: ``state`` is the lane now reading (DONE once
    reading has stopped, for whatever reason) and ``format`` what the root element named
    ("urlset", "sitemapindex", "rss", "atom", "html", "unknown"; None before the root)."""

    __slots__ = ("format", "state")

    def __init__(self) -> None:
        self.state = PROLOG
        self.format: str | None = None


def split_tag(tag: str) -> tuple[str, str]:
    """``(namespace, local name)`` of an lxml tag; the namespace is "" when there is none."""
    if tag[0] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag

"""Test helpers: an independent reading of what the writer produced (lxml, not urlset's reader)."""

from __future__ import annotations

import gzip
from pathlib import Path

from lxml import etree

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def load(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def parse(path: Path) -> etree._Element:
    return etree.fromstring(load(path), etree.XMLParser(resolve_entities=False, no_network=True))


def locs(path: Path) -> list[str]:
    return [el.text or "" for el in parse(path).iter(f"{NS}loc")]


def entries(path: Path) -> list[dict[str, str]]:
    """Each <url> as a dict of its sitemap-namespace children's text."""
    out = []
    for url in parse(path).iter(f"{NS}url"):
        out.append(
            {
                child.tag.removeprefix(NS): child.text or ""
                for child in url
                if child.tag.startswith(NS)
            }
        )
    return out

"""What the site-source tests share: a built set checked against the schemas, page HTML."""

from __future__ import annotations

import gzip
from pathlib import Path

from lxml import etree

import schema_support
from conftest import SHARED
from schema_support import SITEMAP_NS
from urlset.checking.schema import schema_errors


def official_schemas() -> dict[str, etree.XMLSchema] | None:
    """The official schemas (schema_support), or None when ../shared is absent (a fresh
    clone)."""
    xsd = SHARED / "xsd"
    return schema_support.official_schemas(xsd) if (xsd / "sitemap.xsd").is_file() else None


def assert_valid_set(out: Path) -> list[str]:
    """Every published file is valid against urlset's own schemas and, where ../shared is,
    the official ones; the locs of the set, in order."""
    official = official_schemas()
    locs: list[str] = []
    files = sorted(p for p in out.iterdir() if p.suffix in (".xml", ".gz"))
    assert files, f"nothing published in {out}"
    for path in files:
        data = path.read_bytes()
        plain = gzip.decompress(data) if path.suffix == ".gz" else data
        root = etree.fromstring(plain, etree.XMLParser(resolve_entities=False, no_network=True))
        fmt = etree.QName(root).localname
        assert schema_errors(plain, fmt) == [], path
        if official is not None:
            assert official[fmt].validate(root), (path, official[fmt].error_log)
        if fmt == "urlset":
            locs += [e.text or "" for e in root.iter(f"{{{SITEMAP_NS}}}loc")]
    return locs


def html_page(
    *,
    title: str = "page",
    head: str = "",
    body: str = "",
) -> str:
    return (
        f"<!DOCTYPE html><html><head><meta charset=utf-8><title>{title}</title>{head}</head>"
        f"<body>{body}</body></html>"
    )


PAGES = 300  # the generated site's numbered pages


def site_page(i: int) -> str:
    """Numbered page i: links forward, back to the home page, across (cycles everywhere),
    relative and absolute, with fragments, plus links a crawl must not follow."""
    n = PAGES
    links = [
        f'<a href="/p/{(i + 1) % n}.html">next</a>',
        f'<a href="../p/{(i * 7 + 3) % n}.html#section">across</a>',
        '<a href="/">home</a>',
        f'<a href="{(i + 13) % n}.html">relative</a>',
        '<a href="mailto:someone@example.com">mail</a>',
        '<a href="https://elsewhere.example/page">another site</a>',
        '<a href="/nofollow-target.html" rel="nofollow">sponsored</a>',
        '<a href="#top">top</a>',
    ]
    head = ""
    if i % 50 == 0:
        head = (
            f'<link rel="alternate" hreflang="en" href="/p/{i}.html">'
            f'<link rel="alternate" hreflang="de" href="/p/{i}.html?lang=de">'
        )
    return html_page(
        title=f"Page {i} – ü", head=head, body="".join(links) + f'<img src="/i/{i}.png">'
    )

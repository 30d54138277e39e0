"""HTML parsers for the site sources: lxml.html (what urlset.sources.page uses) vs selectolax.

    .venv/bin/python bench/bench_html_parsers.py [--pages 2000]

Both read the same generated pages (a realistic head: charset, title, 30 metas, canonical,
6 hreflang alternates, og:image, stylesheets and scripts; a body of ~40 KB with 150 links,
20 images, non-ASCII text and entities) and collect the same facts: robots directives,
canonical, alternates, and, for a crawl, links and images. Two tasks: the head only (a
directory walk without --images) and the whole page (a crawl). selectolax is measured when
urlset's reader (``read_page``, lxml); selectolax runs the same collection by CSS
queries when it is installed (``pip install selectolax``; not a dependency).
"""

from __future__ import annotations

import argparse
import platform
import time
from collections.abc import Callable

from urlset.sources.page import _Resolver, head_of, read_page


def page(n: int) -> bytes:
    head = [
        '<meta charset="utf-8">',
        f"<title>Page {n} – Café &amp; Crème</title>",
        *(f'<meta name="m{i}" content="value {i} for page {n}">' for i in range(30)),
        f'<link rel="canonical" href="https://www.example.com/p/{n}?a=1&amp;b=2">',
        *(
            f'<link rel="alternate" hreflang="{lang}" href="/{lang}/p/{n}">'
            for lang in ("en", "de", "fr", "es", "it", "x-default")
        ),
        f'<meta property="og:image" content="/img/og-{n}.jpg">',
        *(f'<link rel="stylesheet" href="/css/s{i}.css">' for i in range(5)),
        *(f'<script src="/js/s{i}.js"></script>' for i in range(5)),
        '<meta name="robots" content="index, follow">',
    ]
    body = []
    for i in range(150):
        body.append(
            f"<p>Straße {i} – naïve text with <b>bold</b> &amp; entities. "
            f'<a href="/p/{(n * 7 + i) % 10000}?ref=nav&amp;x={i}">link {i}</a></p>'
        )
        if i % 8 == 0:
            body.append(f'<img src="/img/{n}-{i}.png" alt="image {i}">')
    return (
        "<!DOCTYPE html><html lang=en><head>"
        + "".join(head)
        + "</head><body><main>"
        + "".join(body)
        + "</main></body></html>"
    ).encode()


def selectolax_read(data: bytes, url: str, whole: bool) -> tuple[object, ...]:
    """The same facts through selectolax's Lexbor engine, a CSS query per kind (a selector
    list was 3x slower)."""
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(data if whole else head_of(data))
    resolve = _Resolver(url)
    robots = [m.attributes.get("content") for m in tree.css('meta[name="robots"]')]
    canonical, alternates = [], []
    for node in tree.css("link[href][rel]"):
        get = node.attributes.get
        rel = (get("rel") or "").lower().split()
        if "canonical" in rel:
            canonical.append(resolve(get("href") or ""))
        elif "alternate" in rel and get("hreflang"):
            alternates.append((get("hreflang"), resolve(get("href") or "")))
    links: list[str | None] = []
    images: list[str | None] = []
    if whole:
        for node in tree.css("a[href]") + tree.css("area[href]"):
            if "nofollow" not in (node.attributes.get("rel") or "").lower():
                links.append(resolve(node.attributes.get("href") or ""))
        images = [resolve(n.attributes.get("src") or "") for n in tree.css("img[src]")]
    return robots, canonical, alternates, links, images


def measure(name: str, pages: list[bytes], read: Callable[[bytes, str], object]) -> float:
    start = time.perf_counter()
    for n, data in enumerate(pages):
        read(data, f"https://www.example.com/p/{n}")
    seconds = time.perf_counter() - start
    size = sum(map(len, pages)) / len(pages)
    print(f"{name:34} {len(pages) / seconds:9,.0f} pages/s  ({size / 1024:.0f} KB a page)")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=2000)
    args = parser.parse_args()
    pages = [page(n) for n in range(args.pages)]
    print(f"{platform.machine()}, {args.pages} pages, Python {platform.python_version()}")
    from lxml import html

    parse_lxml = measure("lxml.html, parse only", pages, lambda d, u: html.document_fromstring(d))
    head_lxml = measure("lxml.html (read_page), head only", pages, lambda d, u: read_page(d, u))
    whole_lxml = measure(
        "lxml.html (read_page), whole page",
        pages,
        lambda d, u: read_page(d, u, links=True, images=True),
    )
    try:
        from selectolax.lexbor import LexborHTMLParser
    except ImportError:
        print("selectolax is not installed: skipped (pip install selectolax)")
        return
    parse_sx = measure("selectolax, parse only", pages, lambda d, u: LexborHTMLParser(d))
    head_sx = measure("selectolax, head only", pages, lambda d, u: selectolax_read(d, u, False))
    whole_sx = measure("selectolax, whole page", pages, lambda d, u: selectolax_read(d, u, True))
    print(
        f"lxml / selectolax time: parse {parse_lxml / parse_sx:.2f}, head {head_lxml / head_sx:.2f}, "
        f"whole {whole_lxml / whole_sx:.2f}"
    )


if __name__ == "__main__":
    main()

"""Extension benchmark: sitemaps with 10 images (or hreflang links) per URL against plain ones, per byte.

    .venv/bin/python bench/bench_ext.py [--urls 20000] [--images 10] [--kind images|hreflang] [--repeat 3]

Writes (``SitemapDocument`` to memory, uncompressed; and ``write_sitemaps`` with gzip to
disk) and reads (the project's reader alone, then the reader plus ``extensions.typed`` on
every extension element) the same number of URLs with and without images, and prints MB/s
for each. The issue's target: the image sitemap's per-byte speed within 3x of the plain
one's (ratio >= 0.33). Best of ``--repeat`` runs; the machine is shared and noisy.
"""

from __future__ import annotations

import argparse
import io
import os
import platform
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from lxml import etree

from urlset import Url, read_bytes, write_sitemaps
from urlset.extensions import IMAGE_NS, XHTML_NS, Alternate, Image, fast_extensions, parse_element
from urlset.writing.document import SitemapDocument

BASE = "https://www.example.com/"
URL_TAG = "{http://www.sitemaps.org/schemas/sitemap/0.9}url"


LANGUAGES = ("en", "de", "fr", "es", "it", "nl", "pt", "ja", "zh", "x-default", "pl", "sv")


def make_urls(n: int, per_url: int, kind: str = "images") -> list[Url]:
    """n URLs with ``per_url`` extensions each: images (loc + title) or hreflang links."""
    day = datetime(2024, 5, 1, 12, tzinfo=UTC)

    def extensions(i: int) -> tuple[Image | Alternate, ...]:
        if kind == "hreflang":
            return tuple(
                Alternate(code, f"{BASE}{code}/products/item-{i}") for code in LANGUAGES[:per_url]
            )
        return tuple(
            Image(f"https://cdn.example.com/img/{i}/{k}.jpg", title=f"Product {i} view {k}")
            for k in range(per_url)
        )

    return [Url(f"{BASE}products/item-{i}", day, "weekly", 0.8, extensions(i)) for i in range(n)]


def write_memory(urls: list[Url]) -> bytes:
    out: list[bytes] = []
    start = 0
    while start < len(urls):
        doc = SitemapDocument(out.append, max_urls=50_000, max_bytes=52_428_800)
        start = doc.add(urls, start)
        doc.close()
    return b"".join(out)


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def read_only(data: bytes) -> int:
    return sum(1 for e in read_bytes(data) if type(e) is Url)


def lxml_lane(data: bytes, typed_children: bool) -> int:
    """A lean lxml loop (iterparse on <url>, children typed with ``parse_element``): what a
    reader's slow lane costs at the least, for comparison with the project's reader."""
    count = 0
    for _, el in etree.iterparse(io.BytesIO(data), events=("end",), tag=URL_TAG):
        if typed_children:
            for child in el[4:]:
                parse_element(child)
        count += 1
        el.clear()
    return count


_RECORD = re.compile(
    r"<url(?: [^>]*)?><loc>([^<]*)</loc>(?:<lastmod>[^<]*</lastmod>)?"
    r"(?:<changefreq>[^<]*</changefreq>)?(?:<priority>[^<]*</priority>)?(.*?)</url>",
    re.S,
)


def regex_lane(data: bytes) -> int:
    """A regex record scan with ``extensions.fast_extensions`` on each record's extension
    part: what a reader's fast lane would add for image sitemaps (reference only)."""
    prefixes = {"image": IMAGE_NS, "xhtml": XHTML_NS}
    count = 0
    for m in _RECORD.finditer(data.decode()):
        fragment = m.group(2)
        if fragment:
            assert fast_extensions(fragment, prefixes) is not None
        count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--urls", type=int, default=20_000)
    parser.add_argument("--images", type=int, default=10, help="extensions per URL")
    parser.add_argument("--kind", choices=("images", "hreflang"), default="images")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n, k, repeat = args.urls, min(args.images, len(LANGUAGES)), args.repeat
    if args.kind == "images":
        k = args.images
    print(
        f"# {time.strftime('%Y-%m-%d')} {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}; "
        f"{n:,} URLs, {k} {args.kind} per URL, best of {repeat}"
    )
    start = time.perf_counter()
    plain = make_urls(n, 0)
    plain_make = time.perf_counter() - start
    start = time.perf_counter()
    rich = make_urls(n, k, args.kind)
    rich_make = time.perf_counter() - start
    plain_xml, rich_xml = write_memory(plain), write_memory(rich)
    sizes = {"plain": len(plain_xml), "images": len(rich_xml)}
    assert read_only(plain_xml) == n and read_only(rich_xml) == n

    tmp = Path(tempfile.mkdtemp(prefix="bench-ext-"))

    def build(urls: list[Url]) -> None:
        out = tmp / "out"
        write_sitemaps(urls, out, BASE)
        shutil.rmtree(out)

    rows = []
    try:
        for label, fn_plain, fn_rich in (
            (
                "write (SitemapDocument, uncompressed)",
                lambda: write_memory(plain),
                lambda: write_memory(rich),
            ),
            ("build (write_sitemaps, gzip, publish)", lambda: build(plain), lambda: build(rich)),
            (
                "read (reader; extensions typed)",
                lambda: read_only(plain_xml),
                lambda: read_only(rich_xml),
            ),
            (
                "lean lxml loop + parse_element (reference)",
                lambda: lxml_lane(plain_xml, False),
                lambda: lxml_lane(rich_xml, True),
            ),
            (
                "regex record scan + fast_extensions (reference)",
                lambda: regex_lane(plain_xml),
                lambda: regex_lane(rich_xml),
            ),
        ):
            t_plain = best(fn_plain, repeat)
            t_rich = best(fn_rich, repeat)
            mbs_plain = sizes["plain"] / t_plain / 1e6
            mbs_rich = sizes["images"] / t_rich / 1e6
            rows.append((label, t_plain, mbs_plain, t_rich, mbs_rich, mbs_rich / mbs_plain))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)

    print(
        f"\nXML size: plain {sizes['plain'] / 1e6:.1f} MB ({sizes['plain'] / n:.0f} B/URL), "
        f"{k} images {sizes['images'] / 1e6:.1f} MB ({sizes['images'] / n:.0f} B/URL)\n"
    )
    print(
        f"| operation | plain s | plain MB/s | {args.kind} s | {args.kind} MB/s | per-byte ratio |"
    )
    print("|---|---|---|---|---|---|")
    for label, t_p, m_p, t_r, m_r, ratio in rows:
        print(f"| {label} | {t_p:.2f} | {m_p:.1f} | {t_r:.2f} | {m_r:.1f} | {ratio:.2f} |")
    print(
        f"\nbuilding the values (not timed above): plain {plain_make:.2f} s, "
        f"with {args.kind} {rich_make:.2f} s ({n * k / max(rich_make - plain_make, 1e-9):,.0f} values per s)"
    )
    for label, *_, ratio in rows:
        verdict = "within 3x" if ratio >= 1 / 3 else "NOT within 3x"
        print(f"{label}: per-byte ratio {ratio:.2f}, {verdict}")


if __name__ == "__main__":
    main()

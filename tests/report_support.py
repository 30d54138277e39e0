"""Sitemaps the report tests check, fetch and diff: a site of sections and lastmods."""

from __future__ import annotations

from pathlib import Path

from test_fetch_support import LoopbackServer, sitemapindex

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SITE = "https://www.acme-outdoor.com"


def urlset_doc(rows: list[tuple[str, str]]) -> bytes:
    body = "".join(
        f"<url><loc>{loc}</loc>{f'<lastmod>{lm}</lastmod>' if lm else ''}</url>\n"
        for loc, lm in rows
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
    )


def site_rows(n: int, sections: int, site: str = SITE, start: int = 0) -> list[tuple[str, str]]:
    """``n`` URLs over ``sections`` sections (section i holds more than section i+1), lastmods
    over 2019-2025, every tenth without one; queries with & to be escaped."""
    rows = []
    for i in range(start, start + n):
        s = min(int((i % 97) ** 1.6) % sections, sections - 1)
        lastmod = "" if i % 10 == 0 else f"{2019 + i % 7}-{1 + i % 12:02d}-{1 + i % 28:02d}"
        rows.append((f"{site}/s{s}/item-{i}?a=1&amp;b=%C3%A9", lastmod))
    return rows


def gzipped(data: bytes) -> bytes:
    import gzip

    return gzip.compress(data, mtime=0)


def fetched_site(server: LoopbackServer) -> None:
    """robots.txt -> an index -> three sitemaps (one gzipped), one missing (404) and one cut
    short (a gzip stream truncated): what a fetch report has to show."""
    children = ["/s-1.xml", "/s-2.xml.gz", "/s-3.xml", "/missing.xml", "/cut.xml.gz"]
    server.add("/robots.txt", b"User-agent: *\nSitemap: /index.xml\n", "text/plain")
    server.add("/index.xml", sitemapindex([server.url(c) for c in children]))
    rows = site_rows(9000, 11, server.base)
    server.add("/s-1.xml", urlset_doc(rows[:5000]))
    server.add("/s-2.xml.gz", gzipped(urlset_doc(rows[5000:8000])), "application/gzip")
    server.add("/s-3.xml", urlset_doc(rows[8000:]))
    cut = gzipped(urlset_doc(site_rows(2000, 3, server.base, start=9000)))
    server.add("/cut.xml.gz", cut[: len(cut) // 2], "application/gzip")


def diffed_sides(root: Path) -> tuple[Path, Path]:
    """Two directories of the same two sitemaps: the new side adds 300 locs under /new/,
    drops every 50th, moves lastmod forward on every 7th (or gives one where there was none)
    and moves every 13th from the first sitemap to the second."""
    old_dir, new_dir = root / "old", root / "new"
    old_dir.mkdir()
    new_dir.mkdir()
    rows = site_rows(4000, 8)
    old = {"a.xml": rows[:2000], "b.xml": rows[2000:]}
    new: dict[str, list[tuple[str, str]]] = {"a.xml": [], "b.xml": []}
    for name, members in old.items():
        for i, (loc, lastmod) in enumerate(members):
            n = i + (2000 if name == "b.xml" else 0)
            if n % 50 == 0:
                continue
            target = "b.xml" if name == "a.xml" and n % 13 == 0 else name
            if n % 7 == 0:
                lastmod = "2026-06-01"
            new[target].append((loc, lastmod))
    new["b.xml"] += [(f"{SITE}/new/page-{i}", "2026-05-01") for i in range(300)]
    for folder, sides in ((old_dir, old), (new_dir, new)):
        for name, members in sides.items():
            (folder / name).write_bytes(urlset_doc(members))
    return old_dir, new_dir

"""Sitemaps the report tests check, fetch and diff: a site of sections and lastmods."""

from __future__ import annotations

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


def site_rows(n: int, sections: int) -> list[tuple[str, str]]:
    """``n`` URLs over ``sections`` sections (section i holds more than section i+1), lastmods
    over 2019-2025, every tenth without one; queries with & to be escaped."""
    rows = []
    for i in range(n):
        s = min(int((i % 97) ** 1.6) % sections, sections - 1)
        lastmod = "" if i % 10 == 0 else f"{2019 + i % 7}-{1 + i % 12:02d}-{1 + i % 28:02d}"
        rows.append((f"{SITE}/s{s}/item-{i}?a=1&amp;b=%C3%A9", lastmod))
    return rows

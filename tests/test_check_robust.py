"""Checking never raises: damaged, truncated and odd documents become issues."""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from urlset.checking.checker import CheckOptions, check_document

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
SEEDS = [
    (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
        "<url><loc>https://a.org/x?a=1&amp;b=2</loc><lastmod>2024-01-01</lastmod>"
        "<changefreq>daily</changefreq><priority>0.5</priority>"
        "<image:image><image:loc>https://a.org/i.png</image:loc></image:image></url>\n"
        "<!-- c --><url><loc><![CDATA[https://a.org/ü b]]></loc></url>\n</urlset>\n"
    ).encode(),
    (
        f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://a.org/s.xml</loc>'
        "<lastmod>2024-01-01T10:00:00Z</lastmod></sitemap></sitemapindex>"
    ).encode(),
    b"https://a.org/\nhttps://a.org/b c\n\xff\xfe\n",
    b'<rss version="2.0"><channel><item><link>https://a.org/p</link></item></channel></rss>',
]
OPTIONS = CheckOptions(
    base_url="https://a.org/sitemap.xml", now=datetime(2025, 1, 1, tzinfo=UTC), schema=True
)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(SEEDS),
    st.integers(0, 400),
    st.integers(0, 400),
    st.binary(max_size=8),
    st.booleans(),
)
def test_mutated_documents_never_raise(
    seed: bytes, cut: int, at: int, junk: bytes, compress: bool
) -> None:
    data = seed[:cut] + junk + seed[at:] if cut < len(seed) else seed
    if compress:
        data = gzip.compress(data)[: max(cut, 10)]
    result = check_document(data, OPTIONS)
    assert all(i.code and i.severity for i in result.issues)


def test_corpus_truncations_never_raise(shared: Path) -> None:
    for path in sorted((shared / "corpus" / "realworld").iterdir()):
        if path.name.startswith(("robots", "MANIFEST")):
            continue
        data = path.read_bytes()[:20_000]
        for cut in (0, 1, 7, 100, len(data) // 2, len(data) - 3):
            check_document(data[:cut], OPTIONS, path.name)

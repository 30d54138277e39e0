"""The benchmark URLs, numbered: the same for urlset and every peer (bench/node/build.mjs matches).

Its own module, importing only ``datetime``, so that a build benchmark's child process does
not carry the peer harness (HTTP server, subprocess and friends) in its peak memory.
"""

from __future__ import annotations

import datetime as dt

CHANGEFREQ = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")
EPOCH = dt.date(2020, 1, 1)


def item(i: int, host: str = "https://www.example.com") -> tuple[str, str, str, str]:
    """(loc, lastmod, changefreq, priority) of URL number i; bench/node/build.mjs matches."""
    lastmod = (EPOCH + dt.timedelta(days=i % 1461)).isoformat()
    return f"{host}/products/item-{i}", lastmod, CHANGEFREQ[i % 7], f"{(i % 11) / 10:.1f}"

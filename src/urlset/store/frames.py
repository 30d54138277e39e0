"""Entries as DataFrames, Arrow tables and DuckDB relations, from any source a diff takes.

``read_frame("sitemap.xml.gz")`` gives a pandas DataFrame with the columns ``loc``,
``lastmod`` (W3C text as written), ``lastmod_at`` (its instant, UTC), ``changefreq``,
``priority``, ``extensions`` (JSON text) and ``sitemap``: one row per entry, like
advertools' ``sitemap_to_df`` but with the lastmod's precision kept.
"""

from __future__ import annotations

import os
from typing import Any

from .db import arrow_table, connect
from .entries import COLUMNS
from .sources import load

FRAME_COLUMNS = COLUMNS[:7]


def read_relation(source: str | os.PathLike[str], *, con: Any = None) -> Any:
    """``source`` (a sitemap file or directory, an entries file, or ``DB@run``) as a DuckDB
    relation on ``con`` (a new in-memory connection by default)."""
    con = con if con is not None else connect()
    side = load(con, os.fspath(source), "urlset_frame")
    return con.sql(f"SELECT {', '.join(FRAME_COLUMNS)} FROM {side.table}")


def read_frame(source: str | os.PathLike[str]) -> Any:
    """``source`` (a sitemap file or directory, a JSON Lines/CSV/Parquet file of entries, or
    a stored run ``DB@latest``) as a pandas DataFrame, one row per entry. Fetch a site with
    ``read_frame_url``."""
    return arrow_table(read_relation(source)).to_pandas()


def read_frame_url(url: str) -> Any:
    """A site's or sitemap's entries, fetched, as a pandas DataFrame."""
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {url!r} (read_frame reads paths)")
    return arrow_table(read_relation(url)).to_pandas()


def read_arrow(source: str | os.PathLike[str]) -> Any:
    """``read_frame`` as an Arrow table."""
    return arrow_table(read_relation(source))

"""urlset on Dask (``dask.distributed``): partitioned builds and multi-site fetches.

``build`` writes a stable sitemap set from a Dask DataFrame or partitioned Parquet, CSV or
JSON Lines, byte for byte the set a single-process ``write_sitemaps(..., stable=True)``
writes; ``fetch_sites`` fetches many sites, one worker per site, into a partitioned Parquet
dataset. Both run on the cluster at ``scheduler`` (an address), on a ``client`` given, or on
a local cluster started for the call. Dask is an optional extra (``pip install
urlset[dask]``); ``import urlset`` never imports this stage.
"""

from __future__ import annotations

from typing import Any

__all__ = ["build", "fetch_sites"]


def __getattr__(name: str) -> Any:
    # modules named apart from the functions, which their import would otherwise shadow
    if name == "build":
        from .building import build

        return build
    if name == "fetch_sites":
        from .fetching import fetch_sites

        return fetch_sites
    raise AttributeError(f"module 'urlset.dask' has no attribute {name!r}")

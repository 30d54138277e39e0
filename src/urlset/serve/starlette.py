"""Starlette and FastAPI: the ASGI app as a mount::

    app.routes.append(sitemap_mount("/sitemaps", "public/sitemaps"))   # Starlette
    app.mount("/sitemaps", asgi_app(live))                              # FastAPI

Starlette is imported only when ``sitemap_mount`` is called.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import asgi_app
from .app import SitemapSet


def sitemap_mount(path: str, source: SitemapSet | str | Path, *, html: bool = True) -> Any:
    """A ``starlette.routing.Mount`` serving the set under ``path`` (the app reads the
    mount's ``root_path``, so the documents' names follow it)."""
    from starlette.routing import Mount

    return Mount(path, app=asgi_app(source, html=html), name="urlset-sitemaps")

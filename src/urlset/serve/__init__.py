"""Serving sitemaps from a web app: a published directory or a live source, over ASGI or WSGI.

One sans-I/O core (``app.SitemapApp``: a ``Request`` in, a ``Response`` out) and thin
drivers. Framework integrations import their framework only when used; importing this
package imports none.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .app import SitemapApp, SitemapSet
from .documents import DirectorySet, Document
from .http import Request, Response
from .live import LiveSet, from_pages, from_query

if TYPE_CHECKING:
    from .asgi import AsgiApp
    from .wsgi import WsgiApp

__all__ = [
    "DirectorySet",
    "Document",
    "LiveSet",
    "Request",
    "Response",
    "SitemapApp",
    "SitemapSet",
    "asgi_app",
    "from_pages",
    "from_query",
    "sitemap_app",
    "wsgi_app",
]


def _set_of(source: SitemapSet | str | Path) -> SitemapSet:
    return DirectorySet(source) if isinstance(source, str | Path) else source


def sitemap_app(source: SitemapSet | str | Path, *, html: bool = True) -> SitemapApp:
    """The core for a published directory (a path) or a ``LiveSet``; ``html``: browsers get
    the HTML view."""
    view = None
    if html:
        from .html import html_view

        view = html_view
    return SitemapApp(_set_of(source), html=view)


def asgi_app(source: SitemapSet | str | Path, *, html: bool = True) -> AsgiApp:
    """An ASGI application (uvicorn, hypercorn; mount it in Starlette or FastAPI)."""
    from .asgi import AsgiApp

    return AsgiApp(sitemap_app(source, html=html))


def wsgi_app(source: SitemapSet | str | Path, *, html: bool = True) -> WsgiApp:
    """A WSGI application (waitress, gunicorn; mount it beside Flask or Django)."""
    from .wsgi import WsgiApp

    return WsgiApp(sitemap_app(source, html=html))

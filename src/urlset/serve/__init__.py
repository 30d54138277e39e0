"""Serving sitemaps from a web app: a published directory or a live source, over ASGI or WSGI.

One sans-I/O core (``app.SitemapApp``: a ``Request`` in, a ``Response`` out) and thin
drivers. Framework integrations import their framework only when used; importing this
package imports none.
"""

from __future__ import annotations

from .app import SitemapApp
from .documents import DirectorySet, Document
from .http import Request, Response

__all__ = ["DirectorySet", "Document", "Request", "Response", "SitemapApp"]

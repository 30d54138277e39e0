"""The HTML view browsers get (placeholder until the view lands)."""

from __future__ import annotations

from .app import SitemapSet
from .documents import Document
from .http import Request, Response, plain


def html_view(documents: SitemapSet, document: Document | None, request: Request) -> Response:
    return plain(404, "no HTML view yet\n")

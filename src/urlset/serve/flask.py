"""Flask (and any WSGI app): the WSGI app mounted under a prefix beside the site::

    mount_on_flask(app, "/sitemaps", "public/sitemaps")

Requests under the prefix go to the sitemap app (werkzeug's ``DispatcherMiddleware``, which
sets SCRIPT_NAME and PATH_INFO for it); everything else reaches the Flask app as before.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import wsgi_app
from .app import SitemapSet


def mount_on_flask(
    app: Any, prefix: str, source: SitemapSet | str | Path, *, html: bool = True
) -> None:
    """Serve the set under ``prefix`` (e.g. "/sitemaps") in front of ``app.wsgi_app``."""
    from werkzeug.middleware.dispatcher import DispatcherMiddleware

    app.wsgi_app = DispatcherMiddleware(
        app.wsgi_app, {prefix.rstrip("/"): wsgi_app(source, html=html)}
    )

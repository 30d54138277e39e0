"""Every way of serving a set, over every kind of set, at the root and under a path.

Integrations: ``urlset serve``'s server, plain WSGI (werkzeug's dispatcher, as a site mounts
it) and plain ASGI (a dispatcher setting ``root_path`` as the ASGI spec says), Starlette,
FastAPI (when installed), Flask (under a path only: the Flask app is the site's root) and
Django. Sets, each as ``urlset build`` writes them for the site's root URL: an index of gzip
files, of plain files, of text files, a single gzip file, a single plain file, and a set
with ``--stylesheet``. Each is requested as a crawler does (the entry point and every child
at the URL the index names, plain and gzip-coded: all 200) and ``urlset check URL`` of it
finds no error; the pages lie under the mount, so the protocol's location rule holds.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from serve_support import (
    LaterAsgi,
    LaterWsgi,
    check_errors,
    crawl,
    django_urls,
    fetch,
    uvicorn_server,
    waitress_server,
)
from urlset.cli import main
from urlset.serve import DirectorySet, asgi_app, sitemap_app, wsgi_app

KINDS = {  # build options of each kind of set
    "gzip-index": ["--max-urls", "20"],
    "plain-index": ["--max-urls", "20", "--no-gzip"],
    "text-index": ["--max-urls", "20", "--format", "text"],
    "gzip-single": [],
    "plain-single": ["--no-gzip"],
    "stylesheet": ["--max-urls", "20", "--no-gzip", "--stylesheet"],
}
ROOT_KIND = "gzip-index"  # the set at the site's root (one per site)


def _build(tmp: Path, base: str, kind: str, prefix: str) -> Path:
    """A set of 50 pages under ``prefix``, built for the site's root URL."""
    urls = tmp / f"{kind}{prefix.replace('/', '-')}.txt"
    urls.write_text("".join(f"{base}{prefix}/page/{i}\n" for i in range(50)))
    out = tmp / f"out{prefix.replace('/', '-')}-{kind}"
    args = ["build", str(urls), "--base-url", base + "/", "--out", str(out), "-q", *KINDS[kind]]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    return out


def _sets(tmp: Path, base: str, root: bool) -> dict[str, Path]:
    """prefix -> directory: each kind under /k/<kind>, and the root set when ``root``."""
    found = {f"/k/{kind}": _build(tmp, base, kind, f"/k/{kind}") for kind in KINDS}
    if root:
        found[""] = _build(tmp, base, ROOT_KIND, "")
    return found


def _walk(base: str, sets: dict[str, Path]) -> None:
    for prefix, directory in sets.items():
        entry = DirectorySet(directory).entry_points()[0].removesuffix(".gz")
        urls = crawl(base, f"{prefix}/{entry}")
        assert sorted(urls) == sorted(f"{base}{prefix}/page/{i}" for i in range(50))
        assert check_errors(f"{base}{prefix}/{entry}") == set(), (prefix, entry)
        if (directory / "sitemap.xsl").exists():
            status, headers, _ = fetch(base, f"{prefix}/sitemap.xsl")
            assert status == 200 and headers["content-type"].startswith("text/xsl")


def _wsgi_site(sets: dict[str, Path]) -> Any:
    from werkzeug.middleware.dispatcher import DispatcherMiddleware

    def nothing(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        start_response("404 Not Found", [("Content-Type", "text/plain")])
        return [b"not here\n"]

    root = wsgi_app(sets[""]) if "" in sets else nothing
    mounts = {prefix: wsgi_app(d) for prefix, d in sets.items() if prefix}
    return DispatcherMiddleware(root, mounts)


def _asgi_site(sets: dict[str, Path]) -> Any:
    apps = {prefix: asgi_app(d) for prefix, d in sets.items()}

    async def site(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            for prefix, app in apps.items():
                if prefix and scope["path"].startswith(prefix + "/"):
                    await app({**scope, "root_path": prefix}, receive, send)
                    return
        await apps[""](scope, receive, send)

    return site


def _starlette_site(sets: dict[str, Path], fastapi: bool) -> Any:
    from starlette.routing import Mount

    from urlset.serve.starlette import sitemap_mount

    if fastapi:
        from fastapi import FastAPI

        app: Any = FastAPI()
        for prefix, directory in sets.items():
            if prefix:
                app.mount(prefix, asgi_app(directory))
        app.mount("", asgi_app(sets[""]))
        return app
    from starlette.applications import Starlette

    routes = [sitemap_mount(prefix, d) for prefix, d in sets.items() if prefix]
    return Starlette(routes=[*routes, Mount("", app=asgi_app(sets[""]))])


def _flask_site(sets: dict[str, Path]) -> Any:
    from flask import Flask

    from urlset.serve.flask import mount_on_flask

    app = Flask("urlset_family_site")
    for prefix, directory in sets.items():
        mount_on_flask(app, prefix, directory)
    return app


def _django_patterns(sets: dict[str, Path]) -> list[Any]:
    from urlset.serve.django import sitemap_urls

    patterns = [
        p for prefix, d in sets.items() if prefix for p in sitemap_urls(prefix[1:] + "/", d)
    ]
    return [*patterns, *sitemap_urls("", sets[""])]


@pytest.mark.parametrize("integration", ["wsgi", "django", "flask"])
def test_wsgi_integrations(tmp_path: Path, integration: str) -> None:
    later = LaterWsgi()
    with waitress_server(later) as base:
        sets = _sets(tmp_path, base, root=integration != "flask")
        if integration == "django":
            with django_urls(_django_patterns(sets)) as application:
                later.app = application
                _walk(base, sets)
            return
        later.app = _wsgi_site(sets) if integration == "wsgi" else _flask_site(sets)
        _walk(base, sets)


@pytest.mark.parametrize("integration", ["asgi", "starlette", "fastapi"])
def test_asgi_integrations(tmp_path: Path, integration: str) -> None:
    if integration == "fastapi":
        pytest.importorskip("fastapi", reason="FastAPI is not installed here")
    later = LaterAsgi()
    with uvicorn_server(later) as base:
        sets = _sets(tmp_path, base, root=True)
        if integration == "asgi":
            later.app = _asgi_site(sets)
        else:
            later.app = _starlette_site(sets, fastapi=integration == "fastapi")
        _walk(base, sets)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_urlset_serve(tmp_path: Path, kind: str) -> None:
    """``urlset serve``'s server (the root only: it serves one directory)."""
    from urlset.serve.server import SitemapServer, serve_until

    loop = asyncio.new_event_loop()
    holder: list[Any] = []

    class Later:  # the core, set once the port is known
        def respond(self, request: Any) -> Any:
            return holder[0].respond(request)

    server = SitemapServer(Later())  # type: ignore[arg-type]
    port = loop.run_until_complete(server.start("127.0.0.1", 0))
    stop = asyncio.Event()
    thread = threading.Thread(
        target=loop.run_until_complete, args=(serve_until(server, stop, None),)
    )
    thread.start()
    try:
        base = f"http://127.0.0.1:{port}"
        directory = _build(tmp_path, base, kind, "")
        holder.append(sitemap_app(directory))
        _walk(base, {"": directory})
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(timeout=20)
        loop.close()

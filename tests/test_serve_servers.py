"""The ASGI and WSGI apps under real servers on loopback: uvicorn, waitress, wsgiref."""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from serve_support import fetch, uvicorn_server, waitress_server, wsgiref_server
from urlset import read_bytes, write_sitemaps
from urlset.serve import asgi_app, wsgi_app

BASE = "https://example.com/"

Server = Callable[[Any], AbstractContextManager[str]]
SERVERS: dict[str, tuple[Server, Callable[[Path], Any]]] = {
    "uvicorn-asgi": (uvicorn_server, asgi_app),
    "waitress-wsgi": (waitress_server, wsgi_app),
    "wsgiref-wsgi": (wsgiref_server, wsgi_app),
}


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One big shard (60,000 URLs, ~7 MB: it must stream) beside an index of small ones."""
    out = tmp_path_factory.mktemp("served")
    rows = [
        (f"{BASE}product/{i}?colour=blue&size=M", f"2026-11-0{1 + i % 9}") for i in range(60_000)
    ]
    write_sitemaps(rows, out, BASE, gzip=False)
    return out


@pytest.fixture(params=sorted(SERVERS), scope="module")
def server(request: pytest.FixtureRequest, published: Path) -> Iterator[str]:
    start, make = SERVERS[request.param]
    with start(make(published)) as base:
        yield base


def test_the_index_and_a_shard_over_a_real_socket(server: str, published: Path) -> None:
    status, headers, body = fetch(server, "/sitemap.xml")
    assert status == 200
    assert headers["content-type"] == "application/xml; charset=utf-8"
    assert headers["x-robots-tag"] == "noindex"
    assert body == (published / "sitemap.xml").read_bytes()
    children = [ref.loc.rsplit("/", 1)[1] for ref in read_bytes(body)]
    assert len(children) == 2
    status, headers, coded = fetch(server, f"/{children[0]}", headers={"Accept-Encoding": "gzip"})
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert gzip.decompress(coded) == (published / children[0]).read_bytes()
    assert len(gzip.decompress(coded)) > 5_000_000  # streamed in 64 KiB chunks


def test_conditional_head_and_missing_over_a_real_socket(server: str) -> None:
    _, headers, _ = fetch(server, "/sitemap.xml")
    status, again, body = fetch(server, "/sitemap.xml", headers={"If-None-Match": headers["etag"]})
    assert status == 304 and body == b"" and again["etag"] == headers["etag"]
    since = {"If-Modified-Since": headers["last-modified"]}
    assert fetch(server, "/sitemap.xml", headers=since)[0] == 304
    status, head, body = fetch(server, "/sitemap.xml", "HEAD")
    assert status == 200 and body == b"" and head["content-length"] == headers["content-length"]
    status, _, body = fetch(server, "/sitemap-7.xml")
    assert status == 404 and b"sitemap.xml" in body


def test_a_live_query_under_uvicorn(tmp_path: Path) -> None:
    import sqlite3

    from urlset.serve import LiveSet, from_query

    db = tmp_path / "shop.db"
    with sqlite3.connect(db) as connection:
        connection.execute("create table product (slug text, changed text)")
        connection.executemany(
            "insert into product values (?, ?)",
            [(f"p/{i}-café", "2026-11-20T10:00:00+01:00") for i in range(3000)],
        )
    query = from_query(
        lambda: sqlite3.connect(db), "select ? || slug, changed from product", (BASE,)
    )
    with uvicorn_server(asgi_app(LiveSet(query, BASE))) as server:
        status, headers, body = fetch(server, "/sitemap.xml", headers={"Accept-Encoding": "gzip"})
        assert status == 200 and headers["content-encoding"] == "gzip"
        (ref,) = read_bytes(gzip.decompress(body))  # a stable set always has an index
        shard = fetch(server, "/" + ref.loc.rsplit("/", 1)[1])[2]
        urls = list(read_bytes(shard))
    assert len(urls) == 3000 and urls[0].loc.endswith("caf%C3%A9")
    assert headers["last-modified"] == "Fri, 20 Nov 2026 09:00:00 GMT"


def test_asgi_stops_reading_when_the_client_goes(published: Path) -> None:
    import asyncio

    from urlset.serve.asgi import AsgiApp
    from urlset.serve.documents import DirectorySet

    big = max(published.glob("sitemap-*.xml"), key=lambda p: p.stat().st_size)
    app = asgi_app(published)
    assert isinstance(app, AsgiApp) and isinstance(app.core.documents, DirectorySet)
    sent: list[dict[str, Any]] = []
    left = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await left.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if len(sent) == 3:  # the start and two chunks, then the client is gone
            left.set()
        await asyncio.sleep(0)

    scope = {"type": "http", "method": "GET", "path": f"/{big.name}", "headers": []}
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    bodies = [m for m in sent if m["type"] == "http.response.body"]
    assert 2 <= len(bodies) < big.stat().st_size // (64 * 1024) // 2
    assert not any(m.get("more_body") is False for m in bodies)  # never finished

"""Conditional requests with a cache directory: a re-run downloads only what changed."""

from __future__ import annotations

from pathlib import Path

from test_fetch_support import LoopbackServer, run_fetch, sitemapindex, urlset
from urlset.discovery import NodeState
from urlset.fetchcache import FetchCache
from urlset.model import SitemapRef, Url

CHILDREN = {"/a.xml": 40, "/b.xml": 30, "/c.xml": 20}


def build(server: LoopbackServer, *, lastmods: bool) -> None:
    server.add("/robots.txt", f"Sitemap: {server.url('/index.xml')}\n".encode(), "text/plain")
    entries: list[str | tuple[str, str]] = [
        (server.url(p), "2024-05-01") if lastmods else server.url(p) for p in CHILDREN
    ]
    server.add("/index.xml", sitemapindex(entries))
    for path, n in CHILDREN.items():
        server.add(path, urlset(server.url(f"/p{path}/{i}") for i in range(n)))


def sitemap_bodies(server: LoopbackServer) -> int:
    return sum(n for path, n in server.bodies.items() if path != "/robots.txt")


def test_second_run_transfers_no_sitemap_bodies(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    with LoopbackServer() as server:
        build(server, lastmods=False)
        first = run_fetch(server.base, cache_dir=cache)
        assert sitemap_bodies(server) == 4
        second = run_fetch(server.base, cache_dir=cache)
        assert sitemap_bodies(server) == 4  # nothing more was sent
        # every sitemap was asked for again, with its validators, and answered 304
        for path in ["/index.xml", *CHILDREN]:
            assert server.hits[path] == 2
            sent = server.request_headers[path][1]
            assert sent.get("If-None-Match", "").startswith('"')
            assert sent.get("If-Modified-Since") == "Mon, 01 Jan 2024 00:00:00 GMT"
    assert sorted(second.rows) == sorted(first.rows) and len(first.rows) == 90
    states = {n.url: n.state for n in second.result.nodes() if n.kind == "sitemap"}
    assert set(states.values()) == {NodeState.NOT_MODIFIED}
    assert not second.result.partial


def test_unchanged_index_lastmod_skips_the_children(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    with LoopbackServer() as server:
        build(server, lastmods=True)
        first = run_fetch(server.base, cache_dir=cache)
        second = run_fetch(server.base, cache_dir=cache)
        assert sitemap_bodies(server) == 4
        for path in CHILDREN:
            assert server.hits[path] == 1  # not even asked for: the index says unchanged
    assert sorted(second.rows) == sorted(first.rows)
    states = {n.url: n.state for n in second.result.nodes() if n.kind == "sitemap"}
    assert states[second.result.roots[0].children[0].url] is NodeState.NOT_MODIFIED
    assert [s for u, s in states.items() if not u.endswith("index.xml")] == [
        NodeState.UNCHANGED
    ] * 3


def test_a_changed_sitemap_is_downloaded_again(tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    with LoopbackServer() as server:
        build(server, lastmods=False)
        run_fetch(server.base, cache_dir=cache)
        server.add("/b.xml", urlset([server.url("/new/1"), server.url("/new/2")]))
        third = run_fetch(server.base, cache_dir=cache)
        assert server.bodies["/b.xml"] == 2
        assert server.bodies["/a.xml"] == 1 and server.bodies["/c.xml"] == 1
    assert third.locs_from(third.result.roots[0].children[0].children[1].url) == [
        f"{server.base}/new/1",
        f"{server.base}/new/2",
    ]
    assert len(third.rows) == 40 + 2 + 20


def test_lost_cache_entry_is_fetched_whole(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with LoopbackServer() as server:
        build(server, lastmods=False)
        run_fetch(server.base, cache_dir=str(cache))
        for data in cache.glob("*.jsonl.gz"):
            data.unlink()  # validators kept, results gone
        again = run_fetch(server.base, cache_dir=str(cache))
        assert sitemap_bodies(server) == 8
    assert len(again.rows) == 90 and not again.result.partial


def test_cache_round_trip(tmp_path: Path) -> None:
    cache = FetchCache(tmp_path)
    items = [
        Url("https://example.com/a", "2024-01-02T03:04:05+02:00", "daily", 0.5),
        Url("https://example.com/b"),
        SitemapRef("https://example.com/s.xml", "2024-01-01"),
    ]
    cache.store(
        "https://example.com/s.xml",
        final_url="https://example.com/s2.xml",
        headers={"ETag": '"x"', "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"},
        index_lastmod=None,
        format="urlset",
        items=items,
    )
    stored = cache.load("https://example.com/s.xml")
    assert stored is not None
    assert stored.items == items and stored.final_url == "https://example.com/s2.xml"
    (record,) = cache.records().values()
    assert record.etag == '"x"' and record.has_result
    assert cache.load("https://example.com/other.xml") is None

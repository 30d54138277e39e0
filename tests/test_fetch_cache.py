"""Conditional requests with a cache directory: a re-run downloads only what changed."""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings

from test_ext_props import urls as url_lists
from test_fetch_support import LoopbackServer, run_fetch, sitemapindex, urlset
from urlset.cli import main
from urlset.fetching.cache import FetchCache
from urlset.fetching.discovery import NodeState
from urlset.fetching.parse_pool import UrlBatch
from urlset.model import SitemapRef, Url
from urlset.reading.output import UrlColumns

# every case over the lean client and over aiohttp alone
pytestmark = pytest.mark.usefixtures("either_client")

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


# ----------------------------------------------------------------------------- extensions
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
OTHER_NS = "urn:example:rating"


def with_extensions(server: LoopbackServer) -> bytes:
    """Two URLs with an image, hreflang alternates and an element urlset does not model
    (kept raw), in a different order each, and one plain URL."""
    page, other = server.url("/en/page"), server.url("/de/seite")
    image = (
        f"<image:image><image:loc>{server.url('/i.png')}</image:loc>"
        "<image:caption>Caf\u00e9, &quot;quoted&quot;\tand\nbroken</image:caption></image:image>"
    )
    links = (
        f'<xhtml:link rel="alternate" hreflang="en" href="{page}"/>'
        f'<xhtml:link rel="alternate" hreflang="de" href="{other}"/>'
    )
    rating = '<r:rating stars="4">good &amp; <r:b>bold</r:b></r:rating>'
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="{IMAGE_NS}" '
        f'xmlns:xhtml="{XHTML_NS}" xmlns:r="{OTHER_NS}">\n'
        f"<url><loc>{page}</loc><lastmod>2024-05-01</lastmod>{image}{links}{rating}</url>\n"
        f"<url><loc>{other}</loc>{rating}{links}{image}</url>\n"
        f"<url><loc>{server.url('/plain')}</loc><priority>0.3</priority></url>\n"
        "</urlset>\n"
    ).encode()


def cli_fetch(*args: str) -> str:
    result = CliRunner().invoke(main, ["fetch", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.mark.parametrize("workers", ["0", "1"])
def test_a_304_rerun_outputs_the_extensions_too(tmp_path: Path, workers: str) -> None:
    cache = str(tmp_path / "cache")
    with LoopbackServer() as server:
        server.add("/sitemap.xml", with_extensions(server))
        args = [server.url("/sitemap.xml"), "--cache", cache, "--workers", workers, "-q"]
        first = cli_fetch(*args)
        assert server.bodies["/sitemap.xml"] == 1
        second = cli_fetch(*args)
        assert server.hits["/sitemap.xml"] == 2
        assert server.bodies["/sitemap.xml"] == 1  # answered 304: no body the second time
        tree = CliRunner().invoke(main, ["fetch", *args, "--tree"], catch_exceptions=False)
    assert "[not-modified]" in tree.stdout and "from cache" in tree.stdout
    assert second == first
    rows = [json.loads(line) for line in first.splitlines()]
    assert len(rows) == 3
    for row in rows[:2]:
        assert row["images"] == [
            {"loc": server.url("/i.png"), "caption": 'Caf\u00e9, "quoted"\tand\nbroken'}
        ]
        assert [a["hreflang"] for a in row["alternates"]] == ["en", "de"]
        (raw,) = row["extensions"]
        assert raw["namespace"] == OTHER_NS and raw["name"] == "rating"
        assert "good &amp; " in raw["xml"] and "bold" in raw["xml"]
    assert set(rows[2]) == {"loc", "priority", "sitemap"}


def test_stored_extensions_keep_their_order(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        server.add("/sitemap.xml", with_extensions(server))
        first = run_fetch(server.url("/sitemap.xml"), cache_dir=str(tmp_path))
        stored = FetchCache(tmp_path).load(server.url("/sitemap.xml"))
    assert stored is not None
    read = [i for i in stored.items if isinstance(i, Url)]
    assert [u.loc for u in read] == [loc for loc, _ in first.rows]
    kinds = [[type(e).__name__ for e in u.extensions] for u in read]
    assert kinds == [
        ["Image", "Alternate", "Alternate", "RawElement"],
        ["RawElement", "Alternate", "Alternate", "Image"],
        [],
    ]


def make_v1(cache: Path) -> None:
    """Turn every entry into what urlset wrote before format 2: no version, no extensions."""
    for meta_path in cache.glob("*.json"):
        meta = json.loads(meta_path.read_text("utf-8"))
        del meta["version"]
        meta_path.write_text(json.dumps(meta), "utf-8")
        data = meta_path.with_suffix(".jsonl.gz")
        rows = [json.loads(line) for line in gzip.decompress(data.read_bytes()).splitlines()]
        data.write_bytes(gzip.compress(b"".join(json.dumps(r[:5]).encode() + b"\n" for r in rows)))


def test_an_older_cache_format_is_downloaded_again_and_said_so(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    with LoopbackServer() as server:
        server.add("/sitemap.xml", with_extensions(server))
        args = [server.url("/sitemap.xml"), "--cache", str(cache), "-q"]
        first = cli_fetch(*args)
        make_v1(cache)
        (record,) = FetchCache(cache).records().values()
        assert not record.has_result and "older cache format" in (record.outdated or "")
        assert FetchCache(cache).load(server.url("/sitemap.xml")) is None
        again = run_fetch(server.url("/sitemap.xml"), cache_dir=str(cache))
        assert server.bodies["/sitemap.xml"] == 2
        # no validators were sent for a result that is not reused
        assert "If-None-Match" not in server.request_headers["/sitemap.xml"][1]
        node = again.result.roots[0]
        assert node.state is NodeState.OK and "cache-outdated" in again.codes(node.url)
        third = cli_fetch(*args)  # the entry was rewritten in the current format
        assert server.bodies["/sitemap.xml"] == 2
    assert third == first and not again.result.partial


@pytest.mark.parametrize(
    "meta",
    [
        {"version": 99},
        {"version": "two"},
    ],
)
def test_an_unknown_cache_format_is_ignored(tmp_path: Path, meta: dict[str, object]) -> None:
    url = "https://example.com/s.xml"
    cache = FetchCache(tmp_path)
    cache.store(url, final_url=url, headers={}, index_lastmod=None, format="urlset", items=[])
    (meta_path,) = tmp_path.glob("*.json")
    meta_path.write_text(json.dumps({**json.loads(meta_path.read_text()), **meta}))
    (record,) = cache.records().values()
    assert not record.has_result and "does not read" in (record.outdated or "")
    assert cache.load(url) is None


def test_a_corrupt_extension_line_is_a_missing_result(tmp_path: Path) -> None:
    url = "https://example.com/s.xml"
    cache = FetchCache(tmp_path)
    cache.store(url, final_url=url, headers={}, index_lastmod=None, format="urlset", items=[])
    (data,) = tmp_path.glob("*.jsonl.gz")
    for bad in (
        [["u", url, None, None, None, [["audio", {}]]]],
        [["u", url, None, None, None, [["images", {"loc": "not a url"}]]]],
        [["u", url, None, None, None, [["extensions", {"xml": "<a/>"}]]]],
        [["u", url, None, None, None, [["images"]]]],
    ):
        data.write_bytes(gzip.compress(json.dumps(bad[0]).encode() + b"\n"))
        assert cache.load(url) is None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(entries=url_lists())
def test_urls_stored_from_columns_as_from_values(entries: list[Url]) -> None:
    """Any Urls, extensions included, round-trip through the cache; a parse thread's are
    stored from their columns (``urls=``): the same file, byte for byte, as the same Urls
    stored as values, and read back equal."""
    files = []
    for as_columns in (False, True):
        with tempfile.TemporaryDirectory() as directory:
            cache = FetchCache(directory)
            cache.store(
                "https://www.example.com/s.xml",
                final_url="https://www.example.com/s.xml",
                headers={},
                index_lastmod=None,
                format="urlset",
                items=[] if as_columns else entries,
                urls=UrlBatch(UrlColumns.from_urls(entries)) if as_columns else (),
            )
            files.append(sorted(p.read_bytes() for p in Path(directory).iterdir()))
            stored = cache.load("https://www.example.com/s.xml")
        assert stored is not None and stored.items == entries
        assert [u.extensions for u in stored.items] == [u.extensions for u in entries]  # type: ignore[union-attr]
    assert files[0] == files[1]

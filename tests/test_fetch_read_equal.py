"""``urlset fetch`` of a site writes what ``urlset read`` writes of the same files, in order.

Fetch reads children concurrently (parse threads, several downloads in flight), and its
answers come in any order; its output must still be read's output of each document, byte for
byte, with the sitemap named at the end of each line, concatenated in the documented order
(robots.txt's sitemaps as listed, each index's children in the order it lists them, a nested
index's children in its place). The documents are bench/read_shapes.py's mix (every loc
shape, every lastmod form, image, video, news, hreflang and an unknown extension in turn),
gzipped and not, a nested index and a text sitemap, on a real loopback server whose first
child answers last.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from click.testing import CliRunner

from helpers import bench_module
from test_fetch_support import Handler, LoopbackServer, sitemapindex
from urlset.cli import main
from urlset.reading.output import line_tail

SHAPES = bench_module("read_shapes")
FORMATS = ("jsonl", "csv", "tsv", "locs")
# the children as the index lists them (not in name order): (path, first entry, entries);
# c is large enough for several inflated pieces and more than one chunk to a parse thread
CHILDREN = (
    ("/c.xml.gz", 0, 12_000),
    ("/nested.xml", 0, 0),
    ("/a.xml.gz", 12_000, 700),
    ("/b.xml", 12_700, 500),
)
LEAF = ("/leaf.xml.gz", 13_200, 300)
TEXT = ("/extra.txt", 13_500, 200)
# the order the URLs are written in: robots.txt's index (its children, the nested index's
# in its place), then robots.txt's text sitemap
ORDER = ("/c.xml.gz", "/leaf.xml.gz", "/a.xml.gz", "/b.xml", "/extra.txt")


def on_origin(text: str, origin: str) -> str:
    """The mix's hosts (www.example.com, a 5-digit port, a development host) all on the
    server's origin, so that every loc is in its sitemap's scope, as bench/fetch_sites.py
    lays out the benchmark's mix site."""
    for host in (SHAPES.HOST, "https://shop.example.com:44300/", "https://localhost:3000/"):
        text = text.replace(host, origin + "/")
    return text


def mix_urlset(origin: str, first: int, count: int) -> bytes:
    body = "".join(SHAPES.entry("mix", i) for i in range(first, first + count))
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SHAPES.NAMESPACES}>\n'
    return on_origin(head + body + "</urlset>\n", origin).encode()


def mix_text(origin: str, first: int, count: int) -> bytes:
    lines = (SHAPES.loc(SHAPES.kind_of("mix", i), i) for i in range(first, first + count))
    return on_origin("".join(line.replace("&amp;", "&") + "\n" for line in lines), origin).encode()


def late(body: bytes, seconds: float) -> Handler:
    async def handler(_request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(seconds)  # every other child is answered (and read) first
        return web.Response(body=body, content_type="application/gzip")

    return handler


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[LoopbackServer, Path]]:
    """The site, and a folder holding each of its sitemaps' bytes as served (by path)."""
    files = tmp_path_factory.mktemp("served")
    with LoopbackServer() as server:
        documents: dict[str, bytes] = {}
        for path, first, count in (*CHILDREN, LEAF):
            if path == "/nested.xml":
                continue
            xml = mix_urlset(server.base, first, count)
            documents[path] = gzip.compress(xml, mtime=0) if path.endswith(".gz") else xml
        documents[TEXT[0]] = mix_text(server.base, TEXT[1], TEXT[2])
        documents["/nested.xml"] = sitemapindex([server.url(LEAF[0])])
        documents["/index.xml"] = sitemapindex([server.url(path) for path, _, _ in CHILDREN])
        for path, body in documents.items():
            kind = "text/plain" if path.endswith(".txt") else "application/xml"
            server.add(path, body, "application/gzip" if path.endswith(".gz") else kind)
            (files / path.lstrip("/")).write_bytes(body)
        server.handle("/c.xml.gz", late(documents["/c.xml.gz"], 0.3))
        robots = f"User-agent: *\nSitemap: {server.url('/index.xml')}\nSitemap: /extra.txt\n"
        server.add("/robots.txt", robots.encode(), "text/plain")
        yield server, files


def read_output(path: Path, url: str, fmt: str, out: Path) -> bytes:
    """``urlset read`` of one served file, its lines ended as fetch ends them (the sitemap
    named last) and its CSV/TSV header left off."""
    args = ["read", str(path), "-f", fmt, "-o", str(out), "--base-url", url, "-q"]
    done = CliRunner().invoke(main, args, catch_exceptions=False)
    assert done.exit_code in (0, 1), done.output
    lines = out.read_bytes().splitlines(keepends=True)
    if fmt in ("csv", "tsv"):
        lines = lines[1:]
    tail = line_tail(fmt, url).encode()
    ends = line_tail(fmt, None).encode()
    assert all(line.endswith(ends) for line in lines)
    return b"".join(line[: len(line) - len(ends)] + tail for line in lines)


def expected_output(server: LoopbackServer, files: Path, fmt: str, tmp: Path) -> bytes:
    parts = [
        read_output(files / path.lstrip("/"), server.url(path), fmt, tmp / f"{path[1:]}.{fmt}")
        for path in ORDER
    ]
    if fmt in ("csv", "tsv"):
        sep = "," if fmt == "csv" else "\t"
        header = sep.join(("loc", "lastmod", "changefreq", "priority", "extensions", "sitemap"))
        parts.insert(0, (header + "\n").encode())
    return b"".join(parts)


@pytest.mark.parametrize("workers", ["2", "0"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_fetch_writes_what_read_writes_in_document_order(
    site: tuple[LoopbackServer, Path], tmp_path: Path, fmt: str, workers: str
) -> None:
    server, files = site
    out = tmp_path / f"fetched.{fmt}"
    args = ["fetch", server.base, "--format", fmt, "-o", str(out), "-q", "--workers", workers]
    done = CliRunner().invoke(main, args, catch_exceptions=False)
    assert done.exit_code == 0, done.output
    expected = expected_output(server, files, fmt, tmp_path)
    fetched = out.read_bytes()
    count = 12_000 + 700 + 500 + 300 + 200
    assert len(fetched.splitlines()) == count + (fmt in ("csv", "tsv"))
    assert fetched == expected

"""``fetch --cache`` and ``fetch --report`` with the render lane on give what the usual path
gives: the same output bytes, the same cache files (byte for byte) and the same report page.

Each site is served over loopback by a real server; the usual path (every URL read into a Url,
rendered by the Python renderers) is the reference. The site mixes what makes the lane hand
entries back: bench_read.py's realistic shapes (gzipped), extensions, duplicates, a
development host, a document cut short by a limit, and an index.
"""

from __future__ import annotations

import asyncio
import io
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import mixed_sitemap
from test_fetch_support import LoopbackServer, fast_http, gz, sitemapindex
from urlset.cli import main
from urlset.cli.fetch_run import _Writer
from urlset.fetching.discovery import NodeState, SitemapRead
from urlset.fetching.http import fetch_sitemaps
from urlset.fetching.parse_pool import UrlBatch, columns_of
from urlset.limits import ReadLimits
from urlset.reading.arrow import fetch_schema, fetch_values_batch
from urlset.reading.output import RENDERERS

IMAGE_NS = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
LIMITS = ReadLimits(max_entries=2100)


def _odd_sitemap(base: str) -> bytes:
    """Plain records with, among them, what the lane hands back to the reader."""
    records = [
        f"<url><loc>{base}/p/{i}</loc><lastmod>2024-02-{1 + i % 28:02d}</lastmod>"
        f"<changefreq>daily</changefreq></url>\n"
        for i in range(400)
    ]
    records[40] = records[7]  # a duplicate
    records[90] = "<url><loc>http://localhost:8000/dev</loc></url>\n"
    records[150] = (
        f"<url><loc>{base}/img</loc><image:image><image:loc>{base}/i.png</image:loc>"
        "<image:title>caf\u00e9</image:title></image:image></url>\n"
    )
    records[151] = (
        f"<url><loc>{base}/b?x=1&amp;y=&apos;2&apos;</loc><priority>0.3</priority></url>\n"
    )
    records[300] = f"<url><loc>{base}/caf\u00e9/men\u00fc</loc></url>\n"
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" {IMAGE_NS}>\n'
        + "".join(records)
        + "</urlset>\n"
    ).encode()


def _site(server: LoopbackServer) -> None:
    server.add("/robots.txt", f"Sitemap: {server.url('/index.xml')}\n".encode(), "text/plain")
    children = ["/mixed.xml.gz", "/odd.xml", "/big.xml"]
    server.add("/index.xml", sitemapindex([(server.url(p), "2024-05-01") for p in children]))
    server.add("/mixed.xml.gz", gz(mixed_sitemap(2000)), "application/gzip")
    server.add("/odd.xml", _odd_sitemap(server.base))
    # more entries than the limit lets through: cut short at the same entry on both paths
    big = "".join(f"<url><loc>{server.base}/big/{i}</loc></url>\n" for i in range(2000))
    server.add(
        "/big.xml", _odd_sitemap(server.base).replace(b"</urlset>", big.encode() + b"</urlset>")
    )


def _fetch(
    start: str, fmt: str, lane: bool, cache: Path, limits: ReadLimits = LIMITS
) -> tuple[bytes, str, Any]:
    """(output, the report's URL counts and their parts of the page, result) of a fetch by
    either path, with a cache; for "parquet", the output is the rows' reprs, a line each."""
    from urlset.reports.fetch import FetchStats
    from urlset.reports.parts import url_parts

    stats = FetchStats()
    buffer = io.BytesIO()
    writer = _Writer(buffer, fmt) if fmt != "parquet" else None
    batches: list[Any] = []

    def on_read(event: SitemapRead) -> None:
        if writer is not None:
            writer.write(event)
        elif isinstance(event.urls, UrlBatch) and event.urls.batches is not None:
            batches.extend(event.urls.batches)
        else:
            batches.append(fetch_values_batch(columns_of(event.urls), event.node.url))
        stats.on_read(event)

    result = asyncio.run(
        fetch_sitemaps(
            start,
            # one download at a time: the sitemaps come in the same order on every run
            http=fast_http(read_limits=limits, concurrency=1, per_host=1),
            cache_dir=str(cache),
            on_read=on_read,
            workers=2,
            render=(fmt, RENDERERS.get(fmt)),
            rendered_only=lane,
            values=lane,
        )
    )
    text = buffer.getvalue()
    if fmt == "parquet":
        pa = pytest.importorskip("pyarrow")
        rows = pa.Table.from_batches(batches, schema=fetch_schema()).to_pylist()
        text = "".join(f"{row!r}\n" for row in rows).encode()
    return text, (stats, url_parts(stats)), result


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "locs", "parquet"])
def test_lane_gives_the_usual_output_cache_and_report(fmt: str, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    with LoopbackServer() as server:
        _site(server)
        usual = _fetch(server.base + "/", fmt, False, tmp_path / "usual")
        lane = _fetch(server.base + "/", fmt, True, tmp_path / "lane")
        # and again from the cache (every sitemap answered 304, read back from its files)
        again = _fetch(server.base + "/", fmt, True, tmp_path / "lane")
    assert lane[0] == usual[0] and usual[0].count(b"\n") > 4000
    assert again[0] == usual[0]
    assert lane[1] == usual[1] and again[1] == usual[1]
    assert usual[1][0].urls > 4000 and usual[1][1]
    assert _files(tmp_path / "lane") == _files(tmp_path / "usual")
    assert lane[2].partial == usual[2].partial
    states = [n.state for n in again[2].nodes() if n.kind == "sitemap"]
    # read back from the cache, but for the one cut short by the limit (partial again)
    assert NodeState.OK not in states and states.count(NodeState.PARTIAL) == 1


def test_cli_cache_and_report_with_the_lane(tmp_path: Path) -> None:
    """`urlset fetch --cache --report` (the lane on) writes the usual path's cache files and
    the output a plain fetch writes."""
    pytest.importorskip("matplotlib")
    runner = CliRunner()
    with LoopbackServer() as server:
        _site(server)
        _fetch(server.base + "/", "jsonl", False, tmp_path / "usual", ReadLimits())
        plain = tmp_path / "plain.jsonl"
        args = ["fetch", server.base + "/", "-q"]
        runner.invoke(main, [*args, "-o", str(plain)])
        out, report = tmp_path / "out.jsonl", tmp_path / "report.html"
        done = runner.invoke(
            main,
            [*args, "-o", str(out), "--cache", str(tmp_path / "cli"), "--report", str(report)],
        )
    assert done.exit_code in (0, 1), done.output
    lines = sorted(plain.read_bytes().splitlines())
    assert sorted(out.read_bytes().splitlines()) == lines and len(lines) > 4000
    assert _files(tmp_path / "cli") == _files(tmp_path / "usual")
    page = report.read_text(encoding="utf-8")
    assert "Sitemap fetch" in page and "mixed.xml.gz" in page

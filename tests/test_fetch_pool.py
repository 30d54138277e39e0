"""Parse threads: the same entries, issues and output as parsing on the event loop."""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from test_fetch_faults import locs
from test_fetch_support import LoopbackServer, fast_http, gz, run_fetch, sitemapindex, urlset
from urlset.fetching.discovery import DiscoveryOptions
from urlset.fetching.http import UrlBatch
from urlset.limits import ReadLimits
from urlset.model import ChangeFreq, Severity, Url
from urlset.reading.output import UrlColumns, render_jsonl

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def detailed(server: LoopbackServer, name: str, n: int) -> bytes:
    rows = "".join(
        f"<url><loc>{loc}</loc><lastmod>2024-02-{1 + i % 28:02d}</lastmod>"
        f"<changefreq>daily</changefreq><priority>0.{i % 10}</priority></url>\n"
        for i, loc in enumerate(locs(server, name, n))
    )
    return f'<?xml version="1.0"?>\n<urlset {NS}>\n{rows}</urlset>\n'.encode()


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.add("/robots.txt", b"Sitemap: /index.xml\n", "text/plain")
        names = {"/big.xml.gz": 4_000, "/plain.xml": 500, "/double.xml.gz": 40}
        server.add("/big.xml.gz", gz(detailed(server, "/big.xml.gz", 4_000)), "application/gzip")
        server.add("/plain.xml", detailed(server, "/plain.xml", 500))
        server.add(
            "/double.xml.gz",
            gz(gz(detailed(server, "/double.xml.gz", 40))),
            "application/gzip",
            headers={"Content-Encoding": "gzip"},
        )
        truncated = gz(urlset(locs(server, "/cut.xml.gz", 3000)))
        server.add("/cut.xml.gz", truncated[: len(truncated) // 2], "application/gzip")
        server.add("/page.xml", b"<html><body>oops</body></html>", "text/html")
        bomb = gz(b"<?xml version='1.0'?><urlset " + NS.encode() + b">" + b" " * 8_000_000)
        server.add("/bomb.xml.gz", bomb, "application/gzip")
        server.add("/nested.xml", sitemapindex([server.url("/plain.xml"), server.url("/leaf.xml")]))
        server.add("/leaf.xml", urlset(locs(server, "/leaf.xml", 7)))
        listed = [*names, "/cut.xml.gz", "/page.xml", "/bomb.xml.gz", "/missing.xml", "/nested.xml"]
        server.add("/index.xml", sitemapindex([server.url(p) for p in listed]))
        yield server


def summary(run_rows: list[tuple[str, str]], result: object) -> tuple[object, ...]:
    """What must not depend on where parsing ran (information such as a retry under load
    may)."""
    nodes = sorted(
        (
            n.url,
            str(n.state),
            n.format,
            n.url_count,
            n.ref_count,
            sorted(i.code for i in n.issues if i.severity is not Severity.INFO),
        )
        for n in result.nodes()  # type: ignore[attr-defined]
    )
    return sorted(run_rows), nodes


def test_workers_read_what_the_main_process_reads(site: LoopbackServer) -> None:
    http = fast_http(
        total_timeout=30.0,
        read_timeout=20.0,
        read_limits=ReadLimits(max_decompressed_bytes=6_000_000, max_value_length=50_000_000),
    )
    here = run_fetch(site.base, http=http)
    pooled = run_fetch(site.base, http=http, workers=2)
    pooled_rows, pooled_nodes = summary(pooled.rows, pooled.result)
    here_rows, here_nodes = summary(here.rows, here.result)
    assert pooled_rows == here_rows
    assert pooled_nodes == here_nodes, [
        (a, b)
        for a, b in zip(pooled_nodes, here_nodes, strict=False)
        if a != b  # type: ignore[call-overload]
    ]
    assert len(here.rows) == 4_000 + 500 + 40 + 7 + len(here.locs_from(site.url("/cut.xml.gz")))
    assert "decompressed-size-limit" in pooled.codes(site.url("/bomb.xml.gz"))


def test_a_url_cap_cuts_a_worker_batch(site: LoopbackServer) -> None:
    run = run_fetch(
        site.url("/big.xml.gz"),
        http=fast_http(total_timeout=30.0, read_timeout=20.0),
        discovery=DiscoveryOptions(max_urls=1234),
        workers=1,
    )
    assert len(run.rows) == 1234 and run.result.limits_hit == ["url-limit"]


def cli(args: list[str]) -> subprocess.CompletedProcess[str]:
    """The command in a fresh process."""
    return subprocess.run(
        [sys.executable, "-c", "from urlset.cli import main; main()", "fetch", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_cli_output_is_the_same_with_and_without_workers(
    site: LoopbackServer, tmp_path: Path, fmt: str
) -> None:
    outputs = []
    for workers in ("0", "2"):
        out = tmp_path / f"{workers}.{fmt}"
        done = cli([site.base, "--format", fmt, "-o", str(out), "--workers", workers])
        assert done.returncode == 1, done.stderr  # some sitemaps fail on purpose
        assert "Traceback" not in done.stderr
        outputs.append(sorted(out.read_text("utf-8").splitlines()))
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 4_000


def test_cli_cap_with_workers(site: LoopbackServer, tmp_path: Path) -> None:
    out = tmp_path / "capped.jsonl"
    done = cli(
        [
            site.url("/big.xml.gz"),
            "-o",
            str(out),
            "--workers",
            "2",
            "--max-urls",
            "777",
        ]
    )
    assert done.returncode == 1 and "url-limit" in done.stderr
    assert len(out.read_text("utf-8").splitlines()) == 777


def test_url_batch_slices_keep_rendered_text_in_step() -> None:
    urls = [
        Url._trusted(f"https://example.com/{i}", date(2024, 1, 1 + i), ChangeFreq.DAILY, 0.5)
        for i in range(5)
    ]
    site = "https://example.com/s.xml"
    batch = UrlBatch(
        UrlColumns.from_urls(urls), "jsonl", render_jsonl(UrlColumns.from_urls(urls), site).encode()
    )
    assert len(batch) == 5 and list(batch) == urls and batch[2] == urls[2]
    head = batch[:3]
    assert isinstance(head, UrlBatch)
    assert list(head) == urls[:3]
    assert head.rendered == render_jsonl(UrlColumns.from_urls(urls[:3]), site).encode()
    assert batch[:0].rendered == b"" and list(batch[:10]) == urls
    assert batch[1:3] == urls[1:3]


def test_url_columns_round_trip_through_pickle() -> None:
    urls = [
        Url("https://example.com/a", "2024-01-02T03:04:05+02:00", "daily", 0.5),
        Url("https://example.com/b"),
        Url("https://example.com/c", "2023-12-31T23:59:59.250Z", None, 0.0),
        Url("https://example.com/d", "2024-03-01", "never", 1.0),
        Url("https://example.com/e", extensions=(("x", 1),)),
    ]
    columns = pickle.loads(pickle.dumps(UrlColumns.from_urls(urls)))
    assert columns.count == 5 and columns.urls() == urls
    assert pickle.loads(pickle.dumps(UrlColumns.from_urls([]))).urls() == []


def test_cli_cache_with_workers(site: LoopbackServer, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    first, second = tmp_path / "1.jsonl", tmp_path / "2.jsonl"
    target = site.url("/nested.xml")
    assert cli([target, "-o", str(first), "--cache", cache, "--workers", "2"]).returncode == 0
    bodies = dict(site.bodies)
    assert cli([target, "-o", str(second), "--cache", cache, "--workers", "2"]).returncode == 0
    assert dict(site.bodies) == bodies  # nothing sent again: every answer was 304
    assert sorted(second.read_text().splitlines()) == sorted(first.read_text().splitlines())
    assert len(first.read_text().splitlines()) == 507

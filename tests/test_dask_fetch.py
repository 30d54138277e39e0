"""Many sites fetched on a Dask cluster (``urlset.dask.fetch_sites``) into a partitioned
Parquet dataset. The sites are loopback ones: one real server on 127.0.0.1 answers for
site-N.test by the Host header, and the fetcher's resolver override (``HttpOptions.resolve``)
sends those names to it; nothing leaves the machine."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from test_fetch_support import LoopbackServer, sitemapindex, urlset
from urlset import HttpOptions, InvalidValue

pytest.importorskip("distributed")
pq = pytest.importorskip("pyarrow.parquet")

from urlset.dask import fetch_sites  # noqa: E402

BROKEN = 3  # this site's sitemap answers 500
INDEXED = 4  # this one's robots.txt names an index of two sitemaps


def _locs(n: int, port: int) -> list[str]:
    return [f"http://site-{n}.test:{port}/page/{i}?a=1&amp;b=é" for i in range(1 + n % 5)]


class SitesServer(LoopbackServer):
    """Site N: robots.txt naming /sitemap.xml with 1 + N % 5 URLs; site BROKEN's sitemap is a
    500, site INDEXED's is an index of two; the site in ``slow`` waits before answering."""

    def __init__(self) -> None:
        super().__init__()
        self.slow: int | None = None
        self.slow_started = threading.Event()

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        host = request.host.split(":")[0]
        if host == "127.0.0.1":  # the command's test: sitemaps at the server's own address
            if request.path == "/one.xml":
                body = urlset(["https://example.com/x/1", "https://example.com/x/2"])
                return web.Response(body=body, content_type="application/xml")
            return web.Response(status=404, text="not found")
        self.hits[host + request.path] += 1
        n = int(host.removeprefix("site-").removesuffix(".test"))
        origin = f"http://{host}:{self.port}"
        if request.path == "/robots.txt":
            return web.Response(text=f"User-agent: *\nSitemap: {origin}/sitemap.xml\n")
        if request.path == "/sitemap.xml" and n == self.slow:
            self.slow_started.set()
            await asyncio.sleep(3)
        if n == BROKEN:
            return web.Response(status=500, text="down")
        locs = _locs(n, self.port)
        if request.path == "/sitemap.xml" and n == INDEXED:
            body = sitemapindex([f"{origin}/a.xml", f"{origin}/b.xml"])
        elif request.path == "/sitemap.xml" or (n == INDEXED and request.path == "/a.xml"):
            body = urlset(locs)
        elif n == INDEXED and request.path == "/b.xml":
            body = urlset([f"{origin}/more"])
        else:
            return web.Response(status=404, text="not found")
        return web.Response(body=body, content_type="application/xml")


SITES = 30


@pytest.fixture
def server() -> Any:
    with SitesServer() as running:
        yield running


def _http(count: int) -> HttpOptions:
    from test_fetch_support import fast_http

    hosts = tuple((f"site-{n}.test", "127.0.0.1") for n in range(count))
    return fast_http(resolve=hosts, total_timeout=10.0, read_timeout=5.0)


def _sites(server: SitesServer, count: int) -> list[str]:
    return [f"http://site-{n}.test:{server.port}/" for n in range(count)]


def _hidden(out: Path) -> list[Path]:
    return [p for p in out.rglob(".*") if p.is_file()]


def test_sites_land_in_a_dataset_one_partition_a_batch(
    dask_client: Any, server: SitesServer, tmp_path: Path
) -> None:
    sites = _sites(server, SITES)
    summaries = fetch_sites(
        [*sites, sites[0]], tmp_path / "out", client=dask_client, batch_size=7, http=_http(SITES)
    )
    out = tmp_path / "out"
    assert [s.site for s in summaries] == sites  # each site once, in the order given
    assert sorted(p.name for p in (out / "urls").iterdir()) == [
        f"batch-{n:05d}.parquet" for n in range(5)
    ]
    urls = pq.read_table(out / "urls").to_pylist()
    got = sorted((row["site"], row["loc"]) for row in urls)
    expected = []
    for n, site in enumerate(sites):
        if n != BROKEN:
            locs = [
                loc.replace("&amp;", "&").replace("é", "%C3%A9") for loc in _locs(n, server.port)
            ]
            locs += [f"{site}more"] * (n == INDEXED)
            expected += [(site, loc) for loc in locs]
    assert got == sorted(expected)
    by_site = {s.site: s for s in summaries}
    assert (
        by_site[sites[INDEXED]].sitemaps == 3  # the index and its two
        and by_site[sites[INDEXED]].urls == 1 + INDEXED % 5 + 1
    )
    broken = by_site[sites[BROKEN]]
    assert (broken.urls, broken.partial, broken.failed_sitemaps) == (0, True, 1)
    assert broken.errors >= 1 and not by_site[sites[0]].partial
    issues = pq.read_table(out / "issues").to_pylist()
    assert {row["site"] for row in issues if row["severity"] == "error"} == {sites[BROKEN]}
    table = pq.read_table(out / "sites").to_pylist()
    assert sorted(row["site"] for row in table) == sorted(sites)
    assert _hidden(out) == []
    with pytest.raises(InvalidValue, match="holds files"):
        fetch_sites(sites, out, client=dask_client)


def test_a_killed_worker_loses_only_its_batch(
    dask_client: Any, server: SitesServer, tmp_path: Path
) -> None:
    """The worker fetching the slow site is killed while its batch file is half written;
    the batch runs again elsewhere, and the dataset holds every site once."""
    count = 12
    server.slow = 5  # in batch 1 of 3
    sites = _sites(server, count)
    out = tmp_path / "out"
    result: list[Any] = []
    thread = threading.Thread(
        target=lambda: result.append(
            fetch_sites(sites, out, client=dask_client, batch_size=4, http=_http(count))
        )
    )
    thread.start()
    assert server.slow_started.wait(60)
    writing = list((out / "urls").glob(".batch-00001.parquet.*"))
    assert len(writing) == 1
    pid = int(writing[0].name.rsplit(".", 1)[1].split("-")[0])
    os.kill(pid, signal.SIGKILL)
    thread.join(120)
    assert result, "fetch_sites did not finish"
    summaries = result[0]
    assert [s.site for s in summaries] == sites
    assert server.hits["site-5.test/sitemap.xml"] >= 2  # fetched again after the kill
    urls = pq.read_table(out / "urls").to_pylist()
    pairs = [(row["site"], row["loc"]) for row in urls]
    assert len(pairs) == len(set(pairs))  # no batch written twice
    assert {site for site, _ in pairs} == set(sites) - {sites[BROKEN]}
    assert _hidden(out) == []
    deadline = time.monotonic() + 60  # the nanny starts the worker again for later tests
    while len(dask_client.scheduler_info()["workers"]) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)


def test_the_command_fetches_a_list_of_sites(
    dask_client: Any, server: SitesServer, tmp_path: Path
) -> None:
    """`urlset fetch --sites FILE --dask ADDRESS -o DIR`. The resolver override is an API
    option, not a command-line one, so these sites are sitemap URLs at the server's own
    loopback address."""
    import socket

    from click.testing import CliRunner

    from urlset.cli import main

    with socket.socket() as closed:  # bound, not listening: connections are refused
        closed.bind(("127.0.0.1", 0))
        refusing = closed.getsockname()[1]
    listed = tmp_path / "sites.txt"
    listed.write_text(
        "# two sitemaps of the loopback server, given as sitemap URLs\n"
        f"http://127.0.0.1:{server.port}/one.xml\n\n"
        f"http://127.0.0.1:{server.port}/two.xml  # the second\n"
        f"http://127.0.0.1:{refusing}/sitemap.xml  # nothing listens\n",
        encoding="utf-8",
    )
    address = dask_client.scheduler.address
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["fetch", "--sites", str(listed), "--dask", address, "-o", str(out)]
    )
    assert result.exit_code == 1, result.output  # two.xml is a 404: that site is partial
    assert "one.xml: 1 sitemap, 2 URLs, 0 errors" in result.output
    assert "two.xml: 0 sitemaps" in result.output and "HTTP 404" in result.output
    # a site that refuses connections failed, and says why (not "partial" with no reason)
    refused = next(line for line in result.output.splitlines() if f":{refusing}/" in line)
    assert refused.endswith(
        f"(failed: http://127.0.0.1:{refusing}/sitemap.xml: could not connect to "
        f"127.0.0.1:{refusing} (connection refused))"
    ), refused
    assert sorted(pq.read_table(out / "urls").column("loc").to_pylist()) == [
        "https://example.com/x/1",
        "https://example.com/x/2",
    ]
    usage = CliRunner().invoke(main, ["fetch", "--sites", str(listed), "https://a.example/"])
    assert usage.exit_code == 2 and "either" in usage.output

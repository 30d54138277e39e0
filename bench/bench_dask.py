"""Dask benchmark: a partitioned build and a many-site fetch, each beside its single-process run.

    .venv/bin/python bench/bench_dask.py [--urls 2000000] [--partitions 16]
        [--shuffle staging,tasks] [--section-by path:1] [--sites 1000] [--urls-per-site 50]
        [--skip-build] [--skip-fetch]

Build: ``--urls`` URLs (``bench/peers/items.py item(i)``: lastmod, changefreq, priority)
written once as ``--partitions`` Parquet files in bench/out/dask/; then, each in a fresh
process, ``write_sitemaps(..., stable=True)`` over the files' rows (the single-process
build), and ``urlset.dask.build`` on a local cluster of 2 worker processes of 1 thread each,
once for each ``--shuffle`` method (default: staging, the build's own); then both again with
sections (``--section-by``, default ``path:1``: every URL is under /products/, so one section
holds the whole set, the case a cut of fixed top key bits would give to one worker).
Reported: seconds, the driver's peak RSS and each worker's (VmHWM of its process),
whether the two sets are the same bytes, and the sectioned build's time over the plain
one's (the target: at most 1.2x), with the load. Fetch: ``--sites`` loopback sites (one aiohttp
server in this process answers for site-N.test by the Host header; the fetcher's resolver
override sends the names to 127.0.0.1), each a robots.txt and one sitemap of
``--urls-per-site`` URLs, fetched by ``urlset.dask.fetch_sites`` on the same kind of cluster
and by one ``fetch_batch`` of every site in this process.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "dask"
BASE = "https://www.example.com/"
sys.path.insert(0, str(HERE))


def _peak_mb() -> float:
    """This process's peak RSS (VmHWM: its own address space's, where ru_maxrss would carry
    the peak of the process it was forked and executed from)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def write_input(urls: int, partitions: int) -> Path:
    """The Parquet parts (written once per size)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from peers.items import item

    directory = OUT / f"in-{urls}-{partitions}"
    if (directory / "_done").exists():
        return directory
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    names = ("loc", "lastmod", "changefreq", "priority")
    for part in range(partitions):
        first, last = part * urls // partitions, (part + 1) * urls // partitions
        writer = None
        for start in range(first, last, 500_000):
            rows = [item(i) for i in range(start, min(last, start + 500_000))]
            table = pa.table(dict(zip(names, map(list, zip(*rows, strict=True)), strict=True)))
            if writer is None:
                writer = pq.ParquetWriter(directory / f"part-{part:04d}.parquet", table.schema)
            writer.write_table(table)
        if writer is not None:
            writer.close()
    (directory / "_done").touch()
    return directory


def _rows(directory: Path) -> Any:
    import pyarrow.parquet as pq

    for path in sorted(directory.glob("*.parquet")):
        for batch in pq.ParquetFile(path).iter_batches(batch_size=65_536):
            columns = [batch.column(n).to_pylist() for n in range(4)]
            yield from zip(*columns, strict=True)


def child_single(directory: Path, out: Path, section: str | None) -> dict[str, Any]:
    from urlset import write_sitemaps

    start = time.perf_counter()
    report = write_sitemaps(_rows(directory), out, BASE, stable=True, section=section)
    return {"seconds": time.perf_counter() - start, "urls": report.urls, "peak_mb": _peak_mb()}


def _worker_peak() -> float:
    return round(_peak_mb())


def child_dask(directory: Path, out: Path, method: str, section: str | None) -> dict[str, Any]:
    from distributed import Client, LocalCluster

    from urlset.dask import build

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        start = time.perf_counter()
        report = build(directory, out, BASE, client=client, shuffle_method=method, section=section)
        seconds = time.perf_counter() - start
        workers = sorted(client.run(_worker_peak).values())
    return {"seconds": seconds, "urls": report.urls, "peak_mb": _peak_mb(), "workers_mb": workers}


def _digest(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(directory.iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()


def _child(mode: str, directory: Path, out: Path, section: str | None = None) -> dict[str, Any]:
    """``mode`` (single, or dask:METHOD) run in a fresh process, by ``section`` if given."""
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, __file__, "--child", mode, str(directory), str(out)]
    if section is not None:
        argv += ["--child-section", section]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{mode} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def bench_build(urls: int, partitions: int, methods: list[str], section: str) -> None:
    started = time.perf_counter()
    directory = write_input(urls, partitions)
    print(
        f"input: {urls:,} URLs in {partitions} Parquet parts ({time.perf_counter() - started:.1f} s)"
    )
    single = _child("single", directory, OUT / "single")
    print(
        f"single process {single['seconds']:.1f} s ({urls / single['seconds']:,.0f} URLs/s, "
        f"peak {single['peak_mb']:.0f} MB)",
        flush=True,
    )
    for method in methods:
        spread = _child(f"dask:{method}", directory, OUT / "spread")
        same = _digest(OUT / "single") == _digest(OUT / "spread")
        print(json.dumps({"single": single, method: spread, "identical": same}))
        rate = urls / spread["seconds"] / 2  # URLs a second per worker
        projected = 1_000_000_000 / (50 * rate)
        print(
            f"dask 2 workers, {method} shuffle: {spread['seconds']:.1f} s "
            f"({rate:,.0f} URLs/s a worker; workers peak {spread['workers_mb']} MB, driver "
            f"{spread['peak_mb']:.0f} MB); identical: {same}; 1e9 URLs on 50 such workers at "
            f"this rate: {projected / 60:.0f} min; load {os.getloadavg()[0]:.1f}",
            flush=True,
        )
        bench_sections(directory, section, method, single, spread)


def bench_sections(
    directory: Path, section: str, method: str, single: dict[str, Any], spread: dict[str, Any]
) -> None:
    """The same builds by ``section``, beside the plain ones."""
    local = _child("single", directory, OUT / "single-sections", section)
    sectioned = _child(f"dask:{method}", directory, OUT / "spread-sections", section)
    same = _digest(OUT / "single-sections") == _digest(OUT / "spread-sections")
    print(json.dumps({"section": section, "single": local, method: sectioned, "identical": same}))
    print(
        f"by section {section}: single process {local['seconds']:.1f} s "
        f"({local['seconds'] / single['seconds']:.2f}x the plain build); dask {method} "
        f"{sectioned['seconds']:.1f} s ({sectioned['seconds'] / spread['seconds']:.2f}x the "
        f"plain dask build; workers peak {sectioned['workers_mb']} MB); identical: {same}; "
        f"load {os.getloadavg()[0]:.1f}",
        flush=True,
    )


def _serve(port_box: list[int], ready: threading.Event, per_site: int) -> None:
    from aiohttp import web

    async def handler(request: web.Request) -> web.Response:
        host = request.host
        if request.path == "/robots.txt":
            return web.Response(text=f"User-agent: *\nSitemap: http://{host}/sitemap.xml\n")
        origin = f"http://{host.split(':')[0].replace('.test', '.example')}"
        body = "".join(
            f"<url><loc>{origin}/p/{i}?a=1&amp;b=2</loc><lastmod>2024-05-01</lastmod></url>\n"
            for i in range(per_site)
        )
        xml = f'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{body}</urlset>\n'
        return web.Response(text=xml, content_type="application/xml")

    async def main() -> None:
        app = web.Application()
        app.router.add_route("GET", "/{tail:.*}", handler)
        runner = web.AppRunner(app, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        server: Any = site._server
        port_box.append(server.sockets[0].getsockname()[1])
        ready.set()
        await asyncio.Event().wait()

    asyncio.run(main())


def bench_fetch(sites: int, per_site: int) -> None:
    from distributed import Client, LocalCluster

    from urlset import HttpOptions
    from urlset.dask.fetching import fetch_batch, fetch_sites

    port: list[int] = []
    ready = threading.Event()
    threading.Thread(target=_serve, args=(port, ready, per_site), daemon=True).start()
    ready.wait(30)
    names = [f"site-{n}.test" for n in range(sites)]
    http = HttpOptions(resolve=tuple((name, "127.0.0.1") for name in names))
    listed = [f"http://{name}:{port[0]}/" for name in names]
    single_out = OUT / "fetch-single"
    shutil.rmtree(single_out, ignore_errors=True)
    for kind in ("urls", "issues", "sites"):
        (single_out / kind).mkdir(parents=True)
    start = time.perf_counter()
    summaries = fetch_batch(0, listed, str(single_out), http=http)
    single = time.perf_counter() - start
    assert sum(s.urls for s in summaries) == sites * per_site
    spread_out = OUT / "fetch-spread"
    shutil.rmtree(spread_out, ignore_errors=True)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        start = time.perf_counter()
        summaries = fetch_sites(listed, spread_out, client=client, batch_size=25, http=http)
        spread = time.perf_counter() - start
        workers = sorted(client.run(_worker_peak).values())
    assert sum(s.urls for s in summaries) == sites * per_site
    print(
        f"fetch {sites} loopback sites x {per_site} URLs: one process (one batch, 8 sites at "
        f"a time) {single:.1f} s; dask 2 workers, batches of 25: {spread:.1f} s "
        f"({single / spread:.2f}x), workers peak {workers} MB"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", type=int, default=2_000_000)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--shuffle", default="staging", help="methods, comma-separated")
    parser.add_argument("--section-by", default="path:1", help="the sectioned runs' rule")
    parser.add_argument("--sites", type=int, default=1000)
    parser.add_argument("--urls-per-site", type=int, default=50)
    parser.add_argument("--skip-build", action="store_true")
    parser.add_argument("--skip-fetch", action="store_true")
    parser.add_argument("--child", nargs=3, metavar=("MODE", "IN", "OUT"))
    parser.add_argument("--child-section")
    args = parser.parse_args()
    if args.child:
        mode, directory, out = args.child
        if mode == "single":
            result = child_single(Path(directory), Path(out), args.child_section)
        else:
            method = mode.removeprefix("dask:")
            result = child_dask(Path(directory), Path(out), method, args.child_section)
        print(json.dumps(result))
        return
    load = os.getloadavg()[0]
    print(
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {load:.1f}"
    )
    if not args.skip_build:
        bench_build(args.urls, args.partitions, args.shuffle.split(","), args.section_by)
    if not args.skip_fetch:
        bench_fetch(args.sites, args.urls_per_site)
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()

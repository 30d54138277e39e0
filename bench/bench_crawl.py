"""Crawl benchmark: a generated N-page site served on loopback, crawled with concurrency 16.

    .venv/bin/python bench/bench_crawl.py [--pages 10000] [--concurrency 16]

The site is served by aiohttp.web in its own process (so the crawler has its own core to
use): a robots.txt with one Disallow, a home page, and N pages of ~6 KB, each with a head of
a canonical (itself), two hreflang alternates and an og:image, and a body of 25 links (to
pages spread over the site, so cycles are everywhere, with fragments and relative forms,
plus a mailto: and an off-site link), 3 images, non-ASCII text; 1 page in 100 is noindex.
The crawl runs in a fresh process (``Crawl.run_sync``, the same code `urlset crawl` runs) and
reports pages per second and its peak RSS. Targets: >= 500 pages/s, < 200 MB.
With ``--wget`` (when wget is installed), GNU Wget's recursive download of the same site
(one connection, robots.txt obeyed, pages written to a temporary folder) runs beside it as
a peer, with its own time and peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SERVER = r"""
import sys
from aiohttp import web

N = int(sys.argv[2])

def page(i):
    links = "".join(
        f'<li><a href="/p/{(i * k + 7 * k) % N}.html{"#s" if k % 5 == 0 else ""}">Page {k} – naïve</a></li>'
        for k in range(1, 23)
    )
    links += f'<li><a href="{(i + 1) % N}.html">next</a></li><li><a href="mailto:a@example.com">mail</a></li>'
    links += '<li><a href="https://elsewhere.example/x?a=1&amp;b=2">elsewhere</a></li>'
    robots = '<meta name="robots" content="noindex">' if i % 100 == 99 else ""
    head = (
        f'<meta charset="utf-8"><title>Page {i} – Straße</title>{robots}'
        f'<link rel="canonical" href="/p/{i}.html">'
        f'<link rel="alternate" hreflang="en" href="/p/{i}.html">'
        f'<link rel="alternate" hreflang="de" href="/de/p/{i}.html">'
        f'<meta property="og:image" content="/img/{i}.jpg"><link rel="stylesheet" href="/s.css">'
    )
    text = "<p>Lorem ipsum dolor sit amet, café crème &amp; more text.</p>" * 30
    images = "".join(f'<img src="/img/{i}-{k}.png" alt="">' for k in range(3))
    return f"<!DOCTYPE html><html><head>{head}</head><body><ul>{links}</ul>{text}{images}</body></html>"

PAGES = [page(i).encode() for i in range(N)]
HOME = ("<html><head><title>home</title></head><body>" + "".join(
    f'<a href="/p/{i}.html">{i}</a>' for i in range(0, N, max(1, N // 50))) + "</body></html>").encode()

async def handle(request):
    path = request.path
    if path == "/robots.txt":
        return web.Response(text="User-agent: *\nDisallow: /private/\n")
    if path == "/":
        return web.Response(body=HOME, content_type="text/html")
    if path.startswith("/p/") and path.endswith(".html"):
        try:
            i = int(path[3:-5])
        except ValueError:
            i = -1
        if 0 <= i < N:
            return web.Response(body=PAGES[i], content_type="text/html", charset="utf-8",
                                headers={"Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"})
    return web.Response(status=404, text="not found")

app = web.Application()
app.router.add_route("GET", "/{tail:.*}", handle)
web.run_app(app, host="127.0.0.1", port=int(sys.argv[1]), print=None, access_log=None)
"""

CRAWL = r"""
import json, resource, sys, time
from urlset.sources.crawl import Crawl, CrawlOptions
start = time.perf_counter()
crawl = Crawl(sys.argv[1], CrawlOptions(concurrency=int(sys.argv[2]), max_pages=int(sys.argv[3])))
pages = crawl.run_sync()
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "requested": crawl.requested, "listed": len(pages),
    "left_out": sum(crawl.report.left_out.values()), "failed": crawl.failed,
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(port: int, seconds: float = 60.0) -> None:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"the benchmark server did not start on port {port}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=10_000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--wget", action="store_true", help="also time GNU Wget (a peer)")
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port), str(args.pages)])
    try:
        wait_for(port)
        print(
            f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}, "
            f"{args.pages:,} pages, concurrency {args.concurrency}"
        )
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                CRAWL,
                f"http://127.0.0.1:{port}/",
                str(args.concurrency),
                str(args.pages + 100),
            ],
            check=True,
            capture_output=True,
            text=True,
        )
        result = json.loads(done.stdout)
        if args.wget and shutil.which("wget"):
            wget(port)
    finally:
        server.terminate()
        server.wait(10)
    print(
        f"crawl: {result['requested']:,} pages requested, {result['listed']:,} listed, "
        f"{result['left_out']:,} left out, {result['failed']} failed, in {result['seconds']:.2f} s "
        f"= {result['requested'] / result['seconds']:,.0f} pages/s, "
        f"peak RSS {result['peak_rss_mb']:.0f} MB"
    )


WGET = ("/usr/bin/time", "-f", "%M", "wget", "-r", "-l", "inf", "-q", "--reject-regex", "mailto:")


def wget(port: int) -> None:
    """GNU Wget's recursive download of the site: one connection at a time."""
    with tempfile.TemporaryDirectory() as folder:
        start = time.perf_counter()
        done = subprocess.run(
            [*WGET, "-P", folder, f"http://127.0.0.1:{port}/"],
            capture_output=True,
            text=True,
            check=False,
        )
        seconds = time.perf_counter() - start
        pages = sum(len(files) for _, _, files in os.walk(folder))
    rss = int(done.stderr.strip().splitlines()[-1]) / 1024
    print(
        f"wget -r (peer): {pages:,} files in {seconds:.2f} s = {pages / seconds:,.0f} pages/s, "
        f"peak RSS {rss:.0f} MB"
    )


if __name__ == "__main__":
    main()

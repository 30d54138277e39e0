"""Audit benchmark: N listed URLs of a loopback site, audited by urlset and, on the same list,
by advertools' list-mode crawl and Scrapy (the peers), each in its own process, in one run.

    .venv/bin/python bench/bench_audit.py [--urls 1000000] [--concurrency 64] [--peers]
                                          [--head auto|always|never ...] [--aiohttp]

Each --head mode given is one urlset run (HEAD before GET where the path names another
type than HTML, before every GET, or never), so that their cost is seen side by side.

The site is a plain asyncio HTTP/1.1 server (keep-alive, no framework) in its own process, so
that the server costs as little as it can: a robots.txt, and for each /p/I a ~1 KB HTML page
with a head (title, canonical to itself, Last-Modified); 1 page in 100 is noindex, 1 in 200 a
404, 1 in 500 a 301 to its page; 1 URL in 50 is /d/I.pdf, a 100 KB PDF (HEAD answered
without its body). The list is written as sitemap files of 50,000 URLs in a
temporary folder and audited as `urlset audit DIR` audits it (``Audit.run_sync``). Each
tool's wall time, URLs per second and peak RSS are printed with the load average, since the
figures mean little on a loaded machine, and the CPU time a URL cost the tool (its process
and children: user + system) and the site (its process's CPU times across the run), which
the load changes far less: on 2 cores, 2,000 URLs/s needs the two together under 1,000 us
a URL, and the client alone (one process) under 500. ``--aiohttp`` adds a urlset run with
aiohttp for every request (``AuditOptions(lean=False)``) beside the lean client's. Targets: >= 2,000 URLs/s and < 300 MB for 1,000,000
URLs; >= 5x the peers.

The peers run from bench/.venv-peers (bench/setup_peers.sh installs them); without it they
are reported as not run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from bench_crawl import free_port, wait_for

SERVER = r"""
import asyncio, sys

PAGE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Page {i}</title>{robots}'
    '<link rel="canonical" href="/p/{i}"></head><body>' + '<p>Some text of the page.</p>' * 25
    + '</body></html>'
)
LM = "Mon, 01 Jan 2024 00:00:00 GMT"
PDF = b"%PDF-1.4\n" + b"0" * 100_000

def answer(path):
    if path.startswith("/d/"):
        return 200, "application/pdf", PDF, f"Last-Modified: {LM}\r\n"
    if path == "/robots.txt":
        return 200, "text/plain", b"User-agent: *\nDisallow: /private/\n", ""
    if path.startswith("/p/"):
        try:
            i = int(path[3:])
        except ValueError:
            i = -1
        if i >= 0:
            if i % 200 == 7:
                return 404, "text/plain", b"not found", ""
            if i % 500 == 11:
                return 301, "text/plain", b"", f"Location: /p/{i + 1}\r\n"
            robots = '<meta name="robots" content="noindex">' if i % 100 == 3 else ""
            body = PAGE.format(i=i, robots=robots).encode()
            return 200, "text/html; charset=utf-8", body, f"Last-Modified: {LM}\r\n"
    return 404, "text/plain", b"not found", ""

REASONS = {200: "OK", 301: "Moved Permanently", 404: "Not Found"}

class Http(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = b""

    def data_received(self, data):
        self.buffer += data
        while b"\r\n\r\n" in self.buffer:
            head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
            method, path, _ = head.split(b" ", 2)
            status, kind, body, extra = answer(path.decode())
            self.transport.write(
                f"HTTP/1.1 {status} {REASONS[status]}\r\nContent-Type: {kind}\r\n"
                f"Content-Length: {len(body)}\r\n{extra}\r\n".encode()
                + (b"" if method == b"HEAD" else body)
            )

async def main():
    server = await asyncio.get_running_loop().create_server(Http, "127.0.0.1", int(sys.argv[1]))
    async with server:
        await server.serve_forever()

asyncio.run(main())
"""

URLSET = r"""
import json, resource, sys, time
from urlset.auditing.driver import Audit, AuditOptions
start = time.perf_counter()
concurrency = int(sys.argv[2])
options = AuditOptions(concurrency=concurrency, per_host=concurrency, head=sys.argv[3],
                       lean=sys.argv[4] == "lean")
report = Audit(sys.argv[1], options).run_sync()
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": time.perf_counter() - start, "urls": report.audited,
    "findings": sum(report.counts.values()), "requests": report.methods,
    "cpu": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024}))
"""

ADVERTOOLS = r"""
import json, os, resource, sys, tempfile, time
import advertools as adv
urls = open(sys.argv[1]).read().split()
start = time.perf_counter()
with tempfile.TemporaryDirectory() as folder:
    out = os.path.join(folder, "crawl.jl")
    # allowed_domains without the port: advertools' own (host:port) filters every URL out
    adv.crawl(urls, out, follow_links=False, allowed_domains=["127.0.0.1"], custom_settings={
        "CONCURRENT_REQUESTS": int(sys.argv[2]), "CONCURRENT_REQUESTS_PER_DOMAIN": int(sys.argv[2]),
        "LOG_LEVEL": "ERROR", "ROBOTSTXT_OBEY": True})
    count = sum(1 for _ in open(out))
own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"seconds": time.perf_counter() - start, "urls": count,
    "cpu": own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime,
    "peak_rss_mb": max(own.ru_maxrss, kids.ru_maxrss) / 1024}))
"""

SCRAPY = r"""
import json, resource, sys, time
import scrapy
from scrapy.crawler import CrawlerProcess

URLS = open(sys.argv[1]).read().split()
COUNT = [0]

class Audit(scrapy.Spider):
    name = "audit"
    custom_settings = {"HTTPERROR_ALLOW_ALL": True, "REDIRECT_ENABLED": True}

    async def start(self):  # Scrapy >= 2.13 (start_requests before)
        for url in URLS:
            yield scrapy.Request(url, callback=self.parse, dont_filter=True)

    def parse(self, response):
        COUNT[0] += 1
        yield {"url": response.url, "status": response.status,
               "robots": response.xpath("//meta[@name='robots']/@content").get(),
               "canonical": response.xpath("//link[@rel='canonical']/@href").get()}

start = time.perf_counter()
process = CrawlerProcess({"CONCURRENT_REQUESTS": int(sys.argv[2]),
    "CONCURRENT_REQUESTS_PER_DOMAIN": int(sys.argv[2]), "LOG_LEVEL": "ERROR",
    "ROBOTSTXT_OBEY": True, "TELNETCONSOLE_ENABLED": False})
process.crawl(Audit)
process.start()
usage = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"seconds": time.perf_counter() - start, "urls": COUNT[0],
    "cpu": usage.ru_utime + usage.ru_stime, "peak_rss_mb": usage.ru_maxrss / 1024}))
"""

PER_SITEMAP = 50_000
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def write_list(folder: Path, base: str, count: int) -> Path:
    """The sitemaps (folder/sitemaps/) and the same URLs one a line (folder/urls.txt)."""
    sitemaps = folder / "sitemaps"
    sitemaps.mkdir()
    urls = folder / "urls.txt"
    with urls.open("w") as flat:
        for first in range(0, count, PER_SITEMAP):
            last = min(count, first + PER_SITEMAP)
            locs = [
                f"{base}/d/{i}.pdf" if i % 50 == 49 else f"{base}/p/{i}" for i in range(first, last)
            ]
            flat.write("\n".join(locs) + "\n")
            body = "".join(
                f"<url><loc>{loc}</loc><lastmod>2024-01-01</lastmod></url>\n" for loc in locs
            )
            (sitemaps / f"sitemap-{first // PER_SITEMAP}.xml").write_text(
                f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'
            )
    return sitemaps


def process_cpu(pid: int) -> float | None:
    """The CPU seconds (user + system) process ``pid`` has used so far (Linux's /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(
    name: str, python: str, code: str, *args: str, server: int | None = None
) -> dict[str, Any] | None:
    """One tool's run; with ``server`` (the site's pid), the CPU the site spent on it too."""
    # the interpreter's scripts first on PATH: advertools runs the `scrapy` command
    path = f"{Path(python).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    # a file, not -c: Scrapy reads its spider's source
    script = Path(tempfile.gettempdir()) / f"bench_audit_{os.getpid()}_{abs(hash(name))}.py"
    script.write_text(code)
    site_before = None if server is None else process_cpu(server)
    done = subprocess.run(
        [python, str(script), *args],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PATH": path},
    )
    script.unlink()
    site_after = None if server is None else process_cpu(server)
    if done.returncode != 0:
        print(f"{name}: failed ({done.stderr.strip().splitlines()[-1:]})")
        return None
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    requests = result.get("requests")
    urls = max(1, result["urls"])
    cpu = ""
    if "cpu" in result:
        cpu = f", CPU a URL: client {result['cpu'] / urls * 1e6:,.0f} us"
    if site_before is not None and site_after is not None:
        result["site_cpu"] = site_after - site_before
        cpu += f", site {result['site_cpu'] / urls * 1e6:,.0f} us"
    print(
        f"{name}: {result['urls']:,.0f} URLs in {result['seconds']:.2f} s = "
        f"{result['urls'] / result['seconds']:,.0f} URLs/s, peak RSS {result['peak_rss_mb']:.0f} MB"
        + cpu
        + (f", requests {requests}" if requests else "")
    )
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--peers", action="store_true", help="also run advertools and Scrapy")
    parser.add_argument(
        "--head", choices=("auto", "always", "never"), action="append", help="urlset's --head"
    )
    parser.add_argument(
        "--aiohttp", action="store_true", help="also urlset with aiohttp for every request"
    )
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen([sys.executable, "-c", SERVER, str(port)])
    peers = Path(__file__).parent / ".venv-peers" / "bin" / "python"
    try:
        wait_for(port)
        with tempfile.TemporaryDirectory() as tmp:
            folder = Path(tmp)
            sitemaps = write_list(folder, f"http://127.0.0.1:{port}", args.urls)
            print(
                f"{platform.machine()}, {os.cpu_count()} cores, load "
                f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}, {args.urls:,} URLs, "
                f"concurrency {args.concurrency}"
            )
            ours = None
            clients = ["lean", "aiohttp"] if args.aiohttp else ["lean"]
            for head in args.head or ["auto"]:
                for client in clients:
                    result = run(
                        f"urlset audit --head {head} ({client})", sys.executable, URLSET,
                        str(sitemaps), str(args.concurrency), head, client, server=server.pid,
                    )  # fmt: skip
                    ours = ours or result
            if not args.peers:
                return
            if not peers.exists():
                print("peers: not run (bench/setup_peers.sh installs them in bench/.venv-peers)")
                return
            flat = str(folder / "urls.txt")
            for name, code in (("advertools crawl (list mode)", ADVERTOOLS), ("scrapy", SCRAPY)):
                theirs = run(name, str(peers), code, flat, str(args.concurrency), server=server.pid)
                if ours and theirs and theirs["urls"]:
                    ratio = (ours["urls"] / ours["seconds"]) / (theirs["urls"] / theirs["seconds"])
                    print(f"  urlset is {ratio:.1f}x as fast")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()

"""Serve benchmark: a 1,000,000-URL set answered over real HTTP on loopback.

    .venv/bin/python bench/bench_serve.py [--urls 1000000] [--conditional 5000]

Each server runs in its own process (its RSS is its own), bound to 127.0.0.1; the client is
this process over keep-alive connections (http.client). Setups, in one run:

- ``dir``: the set ``write_sitemaps`` publishes for the URLs (uncompressed: 20 files of
  50,000 URLs and an index), served by urlset's ASGI app under uvicorn and its WSGI app under
  waitress;
- ``live``: a dynamic source (a generator of the same URLs, called again for each
  snapshot) served by a ``LiveSet`` under uvicorn: its snapshot (the stable build) is timed,
  then a shard of it;
- ``django``: the peer: Django's own sitemaps framework (``django.contrib.sitemaps.views.
  sitemap``, a ``Sitemap`` over the same 1,000,000 URLs, paginated by 50,000) under waitress.

Measured: one shard (50,000 URLs; ~31,000 for the live set's hash shards) fetched
whole, first (cold: the ETag's hash is computed) and then the median of 10 (3 for the peer,
which takes seconds a page), identity and gzip-coded; If-None-Match revalidations answered
304 per second (one connection, then two at once); the server's RSS before and after 100
gzip-coded shard downloads (10 for the peer).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "serve"
sys.path.insert(0, str(HERE))

SERVER = r"""
import datetime, json, socket, sys, time
sys.path.insert(0, {peers!r})
from items import item
setup, kind, n, directory = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
BASE = "https://www.example.com/"
snapshot = None
if setup == "django":
    from django.conf import settings
    settings.configure(DEBUG=False, SECRET_KEY="bench", ALLOWED_HOSTS=["127.0.0.1"],
        ROOT_URLCONF="bench_urls", INSTALLED_APPS=["django.contrib.sitemaps"], MIDDLEWARE=[],
        USE_TZ=True, USE_I18N=False, TEMPLATES=[{{"BACKEND":
        "django.template.backends.django.DjangoTemplates", "APP_DIRS": True}}])
    import django, types
    django.setup()
    from django.contrib.sitemaps import Sitemap
    from django.contrib.sitemaps.views import sitemap
    from django.urls import path
    from django.core.wsgi import get_wsgi_application
    class Items(Sitemap):
        limit = 50_000
        def items(self):
            return range(n)
        def location(self, i):
            return item(i)[0].removeprefix("https://www.example.com")
        def lastmod(self, i):
            return datetime.date.fromisoformat(item(i)[1])
        def changefreq(self, i):
            return item(i)[2]
        def priority(self, i):
            return item(i)[3]
    urls = types.ModuleType("bench_urls")
    urls.urlpatterns = [path("sitemap.xml", sitemap, {{"sitemaps": {{"items": Items}}}})]
    sys.modules["bench_urls"] = urls
    app = get_wsgi_application()
else:
    from urlset.serve import LiveSet, asgi_app, wsgi_app
    source = directory
    if setup == "live":
        from urlset import CURRENT
        source = LiveSet(lambda: (item(i) for i in range(n)), BASE, max_age=None,
                         directory=directory, limits=CURRENT)
        start = time.perf_counter()
        source.refresh()
        snapshot = time.perf_counter() - start
    app = asgi_app(source) if kind == "uvicorn" else wsgi_app(source)
sock = socket.socket()
sock.bind(("127.0.0.1", 0))
sock.listen(128)
print(json.dumps({{"port": sock.getsockname()[1], "snapshot": snapshot}}), flush=True)
if kind == "uvicorn":
    import uvicorn
    uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False)).run(sockets=[sock])
else:
    from waitress.server import create_server
    create_server(app, sockets=[sock], threads=4).run()
"""


class Server:
    """A server process; ``port``, ``snapshot`` (seconds, for a live set), and its RSS."""

    def __init__(self, setup: str, kind: str, n: int, directory: Path) -> None:
        code = SERVER.format(peers=str(HERE / "peers"))
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, setup, kind, str(n), str(directory)],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        started = json.loads(self.process.stdout.readline())
        self.port: int = started["port"]
        self.snapshot: float | None = started["snapshot"]
        _wait_ready(self.port)

    def rss_mb(self, field: str = "VmRSS") -> float:
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
        return 0.0

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


def _wait_ready(port: int) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            http.client.HTTPConnection("127.0.0.1", port, timeout=5).connect()
            return
        except OSError:
            time.sleep(0.05)
    raise SystemExit("the server did not start")


def get(
    connection: http.client.HTTPConnection, path: str, headers: dict[str, str]
) -> tuple[int, dict[str, str], int]:
    connection.request("GET", path, headers=headers)
    response = connection.getresponse()
    size = 0
    while chunk := response.read(1 << 16):
        size += len(chunk)
    return response.status, {k.lower(): v for k, v in response.getheaders()}, size


def timed_get(port: int, path: str, headers: dict[str, str]) -> tuple[float, int, dict[str, str]]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    start = time.perf_counter()
    status, response_headers, size = get(connection, path, headers)
    seconds = time.perf_counter() - start
    connection.close()
    if status != 200:
        raise SystemExit(f"GET {path}: {status}")
    return seconds, size, response_headers


def revalidations(port: int, path: str, etag: str, count: int, clients: int) -> float:
    """304 answers per second, ``clients`` keep-alive connections at once."""
    per_client = count // clients

    def run() -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for _ in range(per_client):
            status, _, _ = get(connection, path, {"If-None-Match": etag})
            if status != 304:
                raise SystemExit(f"expected 304, got {status}")
        connection.close()

    threads = [threading.Thread(target=run) for _ in range(clients)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return per_client * clients / (time.perf_counter() - start)


def measure(server: Server, path: str, conditional: int) -> dict[str, Any]:
    cold, size, headers = timed_get(server.port, path, {})
    repeats, downloads = (3, 10) if cold > 1 else (10, 100)  # the peer takes seconds each
    warm = statistics.median(timed_get(server.port, path, {})[0] for _ in range(repeats))
    gz = [timed_get(server.port, path, {"Accept-Encoding": "gzip"}) for _ in range(repeats)]
    rss_before = server.rss_mb()
    for _ in range(downloads):
        timed_get(server.port, path, {"Accept-Encoding": "gzip"})
    result = {
        "shard_bytes": size,
        "cold_seconds": round(cold, 3),
        "warm_seconds": round(warm, 3),
        "gzip_seconds": round(statistics.median(g[0] for g in gz), 3),
        "gzip_bytes": gz[0][1],
        "rss_before_mb": round(rss_before, 1),
        "downloads": downloads,
        "rss_after_downloads_mb": round(server.rss_mb(), 1),
    }
    etag = headers.get("etag")
    if etag:  # Django sends none
        result["304_per_s_1"] = round(revalidations(server.port, path, etag, conditional, 1))
        result["304_per_s_2"] = round(revalidations(server.port, path, etag, conditional, 2))
    result["rss_after_mb"] = round(server.rss_mb(), 1)
    result["peak_rss_mb"] = round(server.rss_mb("VmHWM"), 1)
    return result


def publish(n: int) -> Path:
    """The set write_sitemaps publishes for the URLs, uncompressed (kept between runs)."""
    from peers.items import item
    from urlset import write_sitemaps

    out = OUT / f"dir-{n}"
    if not (out / "sitemap.xml").exists():
        write_sitemaps((item(i) for i in range(n)), out, "https://www.example.com/", gzip=False)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--conditional", type=int, default=5000)
    args = parser.parse_args()
    load = os.getloadavg()[0]
    directory = publish(args.urls)
    shard = "/" + sorted(p.name for p in directory.glob("sitemap-*.xml"))[0]
    results: dict[str, Any] = {}
    for label, setup, kind in (
        ("urlset ASGI (uvicorn), published directory", "dir", "uvicorn"),
        ("urlset WSGI (waitress), published directory", "dir", "waitress"),
        ("urlset ASGI (uvicorn), live source", "live", "uvicorn"),
        ("Django sitemaps framework (waitress)", "django", "waitress"),
    ):
        live_dir = OUT / f"live-{args.urls}"
        server = Server(setup, kind, args.urls, live_dir if setup == "live" else directory)
        try:
            path = shard
            if setup == "live":
                path = "/" + sorted(p.name for p in live_dir.glob("sitemap-*.xml"))[0]
                shards = len(list(live_dir.glob("sitemap-*.xml")))
            elif setup == "django":
                path = "/sitemap.xml?p=1"
            results[label] = measure(server, path, args.conditional)
            if setup == "live":
                results[label]["snapshot_seconds"] = round(server.snapshot or 0, 2)
                results[label]["shards"] = shards
        finally:
            server.stop()
        print(label, json.dumps(results[label]), flush=True)
    summary = {
        "urls": args.urls,
        "files_in_directory": len(list(directory.glob("sitemap-*.xml"))),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, {platform.python_version()}",
        "load_at_start": round(load, 2),
        "load_at_end": round(os.getloadavg()[0], 2),
        "results": results,
    }
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark ``urlset fetch`` end to end over loopback, beside the peers, in one run.

    .venv/bin/python bench/bench_fetch.py [--sitemaps 10] [--urls 50000] [--repeat 3]
                                          [--no-peers] [--json] [--fetch-args ARGS]
    URLSET_COMMAND=/path/to/urlset .venv/bin/python bench/bench_fetch.py ...  # another build
    .venv/bin/python bench/bench_fetch.py --small-site [--repeat 10]

``--small-site``: an index and 3 small children (20 URLs each), the case where start-up
costs dominate (interpreter, imports, parse workers); urlset is compared with
ultimate-sitemap-parser alone, on the same site, and the best and median of the repeats are
printed.

1. Builds a site in bench/out/fetch-site/: robots.txt -> /sitemap-index.xml -> K gzipped
   children of M URLs each (the layout of bench/peers/run.py's ``makesite``; that script is
   used when present, so urlset and the peers read byte-identical files).
2. Serves it from a separate process on 127.0.0.1 (aiohttp, files held in memory).
3. Runs ``urlset fetch http://127.0.0.1:PORT/ -o bench/out/fetch.jsonl -q`` in a fresh
   subprocess per repeat: wall seconds (interpreter start and imports included) and peak
   RSS (os.wait4 rusage), and checks the URL count in the output.
4. When bench/peers/run.py and bench/.venv-peers exist, runs every fetch peer on the same
   site directory in the same run, and prints the ratios.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import json
import os
import platform
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from peers.run import Row

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
OUT = BENCH / "out"
SITE = OUT / "fetch-site"
PEERS = BENCH / "peers" / "run.py"
PEERS_PY = BENCH / ".venv-peers" / "bin" / "python"
# URLSET_COMMAND: another urlset to time (e.g. an older checkout's), side by side
URLSET = os.environ.get("URLSET_COMMAND") or str(ROOT / ".venv" / "bin" / "urlset")
# files name this origin; the server puts its own in its place (as bench/peers/run.py does)
PLACEHOLDER = b"http://urlset-bench-origin.invalid"
FREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")


# ----------------------------------------------------------------------------- the site
def build_site(root: Path, sitemaps: int, urls: int) -> None:
    """robots.txt -> /sitemap-index.xml -> /sitemaps/sitemap-K.xml.gz, URLs on the site."""
    if PEERS.is_file():
        subprocess.run(
            [
                sys.executable,
                str(PEERS),
                "makesite",
                str(root),
                "--sitemaps",
                str(sitemaps),
                "--urls",
                str(urls),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        return
    origin = PLACEHOLDER.decode()
    if root.exists():
        shutil.rmtree(root)
    (root / "sitemaps").mkdir(parents=True)
    (root / "robots.txt").write_text(f"User-agent: *\nSitemap: {origin}/sitemap-index.xml\n")
    refs = []
    start = dt.date(2020, 1, 1)
    for k in range(sitemaps):
        rows = []
        for i in range(k * urls, (k + 1) * urls):
            day = (start + dt.timedelta(days=i % 1461)).isoformat()
            rows.append(
                f"<url><loc>{origin}/products/item-{i}</loc><lastmod>{day}</lastmod>"
                f"<changefreq>{FREQS[i % 7]}</changefreq><priority>{(i % 11) / 10:.1f}</priority>"
                "</url>\n"
            )
        xml = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
            + "".join(rows)
            + "</urlset>\n"
        )
        name = f"sitemaps/sitemap-{k}.xml.gz"
        (root / name).write_bytes(gzip.compress(xml.encode(), 6, mtime=0))
        refs.append(f"<sitemap><loc>{origin}/{name}</loc><lastmod>2024-01-01</lastmod></sitemap>\n")
    (root / "sitemap-index.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(refs)
        + "</sitemapindex>\n"
    )


def serve(root: Path, port: int) -> None:
    """Serve ``root`` on 127.0.0.1:port, the placeholder replaced by the real origin."""
    from aiohttp import web

    origin = (f"http://127.0.0.1:{port}" if port != 80 else "http://127.0.0.1").encode()
    files: dict[str, tuple[bytes, str]] = {}
    types = {".gz": "application/gzip", ".xml": "application/xml", ".txt": "text/plain"}
    for path in sorted(root.rglob("*")):
        if not path.is_file():
            continue
        data = path.read_bytes()
        if data[:2] == b"\x1f\x8b":
            plain = gzip.decompress(data)
            if PLACEHOLDER in plain:
                data = gzip.compress(plain.replace(PLACEHOLDER, origin), 6, mtime=0)
        else:
            data = data.replace(PLACEHOLDER, origin)
        files["/" + path.relative_to(root).as_posix()] = (
            data,
            types.get(path.suffix, "text/html"),
        )

    async def handler(request: web.Request) -> web.Response:
        found = files.get(request.path)
        if found is None:
            return web.Response(status=404, text="not found")
        return web.Response(body=found[0], content_type=found[1])

    app = web.Application()
    app.router.add_route("GET", "/{tail:.*}", handler)
    web.run_app(app, host="127.0.0.1", port=port, print=lambda *_: None, access_log=None)


def free_port() -> int:
    """Port 80 when it can be had: a real site's URLs carry no port, and the URL fast paths
    take only port-less URLs (URLs with a port go the full WHATWG parse, ~10x slower)."""
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", 80))
            return 80
        except OSError:
            pass
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(port: int, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise SystemExit(f"the bench server did not start on port {port}")


# ----------------------------------------------------------------------------- measuring
def measure(argv: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS MiB, exit status) of a fresh subprocess; CPU
    and peak RSS include its parse workers (reaped children count in wait4's rusage)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        err = proc.stderr.read().decode(errors="replace").strip()
        if err:
            print(err, file=sys.stderr)
        proc.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def run_urlset(
    url: str, out: Path, repeat: int, extra: list[str] | None = None
) -> list[dict[str, float]]:
    runs = []
    for _ in range(repeat):
        out.unlink(missing_ok=True)
        argv = [str(URLSET), "fetch", url, "-o", str(out), "-q", *(extra or [])]
        wall, cpu, rss, code = measure(argv)
        with out.open("rb") as fh:
            count = sum(1 for _ in fh)
        runs.append(
            {"seconds": wall, "cpu_seconds": cpu, "peak_rss_mb": rss, "count": count, "exit": code}
        )
    return runs


def run_peers(site: Path, timeout: float, peer: str = "all", repeat: int = 1) -> list[Row]:
    if not (PEERS.is_file() and PEERS_PY.is_file()):
        print(
            f"no peers: {PEERS_PY} is missing (run bench/setup_peers.sh); urlset alone",
            file=sys.stderr,
        )
        return []
    more = ["--repeat", str(repeat)] if repeat > 1 else []
    proc = subprocess.run(
        [
            str(PEERS_PY),
            str(PEERS),
            "--timeout",
            str(int(timeout)),
            *more,
            peer,
            "fetch",
            str(site),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    found: list[Row] = []
    for line in proc.stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            found.append(json.loads(line))
    if not found:
        print(proc.stderr[-2000:], file=sys.stderr)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sitemaps", type=int, default=10)
    parser.add_argument("--urls", type=int, default=50_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peer-timeout", type=float, default=600)
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.add_argument(
        "--small-site",
        action="store_true",
        help="an index and 3 children of 20 URLs; beside ultimate-sitemap-parser only",
    )
    parser.add_argument(
        "--fetch-args",
        default="",
        help="more arguments for urlset fetch (e.g. '--workers 0'), to compare settings",
    )
    parser.add_argument("--serve", nargs=2, metavar=("DIR", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), int(args.serve[1]))
        return

    if args.small_site:
        args.sitemaps, args.urls = 3, 20
        args.repeat = max(args.repeat, 10)
    OUT.mkdir(parents=True, exist_ok=True)
    total = args.sitemaps * args.urls
    print(f"building {args.sitemaps} x {args.urls:,} URLs in {SITE} ...", file=sys.stderr)
    build_site(SITE, args.sitemaps, args.urls)
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(SITE), str(port)],
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for(port)
        url = f"http://127.0.0.1:{port}/" if port != 80 else "http://127.0.0.1/"
        ours = run_urlset(url, OUT / "fetch.jsonl", args.repeat, shlex.split(args.fetch_args))
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    if args.no_peers:
        peers: list[Row] = []
    elif args.small_site:
        peers = run_peers(SITE, args.peer_timeout, "ultimate-sitemap-parser", args.repeat)
    else:
        peers = run_peers(SITE, args.peer_timeout)

    best = min(ours, key=lambda r: r["seconds"])
    report: dict[str, object] = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "site": f"{args.sitemaps} gzipped sitemaps x {args.urls:,} URLs = {total:,} URLs",
        "load_average": os.getloadavg(),
        "urlset": {"runs": ours, "best": best},
        "peers": peers,
    }
    times = ", ".join(f"{r['seconds']:.2f}" for r in ours)
    median = sorted(r["seconds"] for r in ours)[len(ours) // 2]
    report["urlset"]["median_seconds"] = median  # type: ignore[index]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"load average at the end: {load}")
    print(
        f"urlset fetch: best {best['seconds']:.2f} s, median {median:.2f} s of {args.repeat} "
        f"({times}), "
        f"CPU {best['cpu_seconds']:.2f} s, "
        f"peak RSS {max(r['peak_rss_mb'] for r in ours):.0f} MiB, {best['count']:,} URLs"
    )
    if best["count"] != total:
        print(f"WARNING: expected {total:,} URLs", file=sys.stderr)
    timed = [(seconds, p) for p in peers if not p.get("error") and (seconds := p.get("seconds"))]
    for p in peers:
        secs = p.get("seconds")
        ratio = f"{float(secs) / best['seconds']:.1f}x" if secs else "-"
        print(
            f"  {p.get('peer')}: {secs if secs is None else f'{float(secs):.2f}'} s "
            f"(wall {p.get('wall_seconds')}, CPU {p.get('cpu_seconds')}), "
            f"peak RSS {p.get('peak_rss_mb')} MiB, "
            f"count {p.get('count')}, urlset faster by {ratio}"
            + (f"  error: {p.get('error')}" if p.get("error") else "")
        )
    if timed:
        seconds, fastest = min(timed, key=lambda t: float(t[0]))
        print(
            f"fastest peer: {fastest['peer']} {float(seconds):.2f} s; "
            f"urlset {float(seconds) / best['seconds']:.1f}x faster"
        )
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Benchmark ``urlset fetch`` end to end over loopback, beside the peers, in one run.

    .venv/bin/python bench/bench_fetch.py [--sites plain,mixed] [--sitemaps 10] [--urls 50000]
                                          [--repeat 3] [--no-peers] [--json] [--fetch-args ARGS]
    URLSET_COMMAND=/path/to/urlset .venv/bin/python bench/bench_fetch.py ...  # another build
    .venv/bin/python bench/bench_fetch.py --no-peers --compare /other/urlset  # alternating
    .venv/bin/python bench/bench_fetch.py --small-site [--repeat 10]

Sites (robots.txt -> /sitemap-index.xml -> K gzipped children of M URLs, in bench/out/):

  plain   fetch-site/: bench/peers/run.py's ``makesite`` (/products/item-N, a date each, all
          four fields; the site the figures before 2026-11-25 17:00 UTC were measured on)
  mixed   fetch-mixed/: bench_read.py's realistic mix (``mixed_sitemap``: queries with & and
          ', %-escapes, non-ASCII paths, locs near 2,048 characters, a distinct lastmod per
          URL, all four fields) on the site's own origin, so every loc names the server's
          5-digit port; every 10th URL with an image (an extension; ``--images N``, 0 none)
  shape   fetch-shape/: the mixed site's URLs of one shape only (a sixth of them), the
          slowest for urlset of the shapes common on real sites (``--shape``)

One server for every reader: the script binds 127.0.0.1 port 0 once and hands the listening
socket to a server process (aiohttp, files held in memory), one per site in turn; no port is
picked twice, and nothing can take it between. The sites' files name a placeholder origin;
the server writes the real one (http://127.0.0.1:PORT) into them once, before any reader
starts. trafilatura alone cannot fetch from an IP host (courlan drops it), so it asks for
bench.localhost:PORT, which the same server answers with the same files written for that
origin.

Each urlset run is ``urlset fetch http://127.0.0.1:PORT/ -o bench/out/fetch.jsonl -q`` in a
fresh process: wall seconds (interpreter start and imports included), CPU and peak RSS
(os.wait4's rusage, parse threads included), the URL count of the output checked. Half the
runs come before the peers, half after, so that load drifting over the run falls on both.
Peers: bench/peers/run.py ``all fetch http://127.0.0.1:PORT/`` (their own work after
imports, and their wall time), when bench/.venv-peers exists.

``--compare CMD``: another urlset (an older checkout's) run too, its runs alternating with
this one's, on the same server; both printed.

``--small-site``: an index and 3 children of 20 URLs, where start-up dominates; urlset beside
ultimate-sitemap-parser alone, best and median of the repeats.

``--instructions``: each reader's whole process (interpreter start, imports, the fetch)
counted once by valgrind's callgrind on the same server and files: urlset, the ``--compare``
urlset, and (unless ``--no-peers``) ultimate-sitemap-parser (``sitemap_tree_for_homepage``
in the peers' venv). On a
shared machine the count holds where the wall time does not. Python reads bytecode caches
only where they exist (``PYTHONDONTWRITEBYTECODE`` is set on the project machine), so the
src trees are compiled first, as ``pip install`` does.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gzip
import itertools
import json
import os
import platform
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from peers.run import PLACEHOLDER, TRAFILATURA_HOST, make_site  # noqa: E402

if TYPE_CHECKING:
    from peers.run import Row

ROOT = BENCH.parent
OUT = BENCH / "out"
SITES = {
    "plain": OUT / "fetch-site",  # bench_snapshot_parse.py reads this one's sitemaps too
    "mixed": OUT / "fetch-mixed",
    "shape": OUT / "fetch-shape",
    "small": OUT / "fetch-small",  # --small-site: the plain site's shape, 3 x 20 URLs
}
PEERS = BENCH / "peers" / "run.py"
PEERS_PY = BENCH / ".venv-peers" / "bin" / "python"
# URLSET_COMMAND: another urlset to time (e.g. an older checkout's), side by side
URLSET = os.environ.get("URLSET_COMMAND") or str(ROOT / ".venv" / "bin" / "urlset")
# the hosts of bench_read.mixed_sitemap, each put on the site's own origin
MIX_HOSTS = (
    b"www.example.com",
    b"shop.example.com:8443",
    b"example.org:44300",
    b"b\xc3\xbccher.example",
)
# the six shapes of bench_read.mixed_sitemap, in its order
MIX_SHAPES = ("query", "escaped", "iri", "apostrophe", "long", "html")
RUNS = itertools.count()  # "{run}" in --fetch-args: a number of its own in every run
# ultimate-sitemap-parser's fetch of a site, as bench/peers/run.py's child makes it
USP_FETCH = (
    "import sys; from usp.tree import sitemap_tree_for_homepage; "
    "print(sum(1 for _ in sitemap_tree_for_homepage(sys.argv[1]).all_pages()))"
)
IMAGE_NS = b'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'


# ----------------------------------------------------------------------------- the sites
def build_mixed(
    root: Path, sitemaps: int, urls: int, shape: str | None = None, images: int = 10
) -> None:
    """bench_read.mixed_sitemap's URLs on the placeholder origin, as make_site lays out a
    site; every ``images``th URL with an image (0: none). ``shape``: only the URLs of that
    shape (a sixth)."""
    from bench_read import mixed_sitemap

    made = mixed_sitemap(sitemaps * urls)
    head, _, body = made.partition(b"\n  <url>\n")
    records = (b"  <url>\n" + body.rsplit(b"</urlset>", 1)[0]).split(b"  <url>\n")[1:]
    if shape is not None:
        records = records[MIX_SHAPES.index(shape) :: len(MIX_SHAPES)]
        urls = -(-len(records) // sitemaps)
    origin = PLACEHOLDER + b"/"
    for host in MIX_HOSTS:
        records = [r.replace(b"https://" + host + b"/", origin) for r in records]
    image = b"    <image:image><image:loc>%s/img/%d.jpg</image:loc></image:image>\n  </url>\n"
    for i in range(0, len(records), images or len(records) + 1):
        records[i] = records[i].replace(b"  </url>\n", image % (PLACEHOLDER, i))
    head = head.replace(b'0.9">', b'0.9" ' + IMAGE_NS + b">")
    if root.exists():
        shutil.rmtree(root)
    (root / "sitemaps").mkdir(parents=True)
    (root / "index.html").write_text("<!doctype html><title>bench site</title><p>hello</p>\n")
    origin_text = PLACEHOLDER.decode()
    (root / "robots.txt").write_text(f"User-agent: *\nSitemap: {origin_text}/sitemap-index.xml\n")
    index = []
    for k in range(sitemaps):
        part = records[k * urls : (k + 1) * urls]
        xml = head + b"\n" + b"".join(b"  <url>\n" + r for r in part) + b"</urlset>\n"
        (root / "sitemaps" / f"sitemap-{k}.xml.gz").write_bytes(gzip.compress(xml, 6, mtime=0))
        index.append(
            f"<sitemap><loc>{origin_text}/sitemaps/sitemap-{k}.xml.gz</loc>"
            f"<lastmod>2024-01-01</lastmod></sitemap>\n"
        )
    (root / "sitemap-index.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        + "".join(index)
        + "</sitemapindex>\n"
    )


def build(name: str, sitemaps: int, urls: int, shape: str, images: int) -> tuple[Path, int]:
    """The site's directory and its URL count (made again unless an earlier run made it
    with the same settings)."""
    root = SITES[name]
    stamp = root / "BENCH.json"
    wanted = {
        "sitemaps": sitemaps,
        "urls": urls,
        "shape": shape if name == "shape" else None,
        "images": images if name not in ("plain", "small") else None,
    }
    if stamp.is_file():
        made = json.loads(stamp.read_text())
        if made.pop("count") is not None and made == wanted:
            return root, int(json.loads(stamp.read_text())["count"])
    if name in ("plain", "small"):
        make_site(root, sitemaps, urls)
    else:
        build_mixed(root, sitemaps, urls, shape if name == "shape" else None, images)
    count = 0
    for child in (root / "sitemaps").iterdir():
        count += gzip.decompress(child.read_bytes()).count(b"<url>")
    stamp.write_text(json.dumps({**wanted, "count": count}))
    return root, count


# ----------------------------------------------------------------------------- the server
def serve(root: Path, fd: int) -> None:
    """Serve ``root`` on the listening socket ``fd``, the placeholder replaced by the
    socket's origin (by bench.localhost's for a request naming that host); prints "ready"
    once every file is written."""
    from aiohttp import web

    sock = socket.socket(fileno=fd)
    port = sock.getsockname()[1]
    types = {".gz": "application/gzip", ".xml": "application/xml", ".txt": "text/plain"}
    paths = [p for p in sorted(root.rglob("*")) if p.is_file() and p.suffix != ".json"]
    raw = {"/" + p.relative_to(root).as_posix(): p.read_bytes() for p in paths}

    def written(host: str) -> dict[str, bytes]:
        origin = f"http://{host}:{port}".encode()
        files = {}
        for path, data in raw.items():
            if data[:2] == b"\x1f\x8b":
                data = gzip.compress(gzip.decompress(data).replace(PLACEHOLDER, origin), 6, mtime=0)
            files[path] = data.replace(PLACEHOLDER, origin)
        return files

    sites = {"127.0.0.1": written("127.0.0.1"), TRAFILATURA_HOST: written(TRAFILATURA_HOST)}

    async def handler(request: web.Request) -> web.Response:
        host = (request.host or "").rsplit(":", 1)[0]
        files = sites.get(host, sites["127.0.0.1"])
        path = request.path + ("index.html" if request.path.endswith("/") else "")
        found = files.get(path)
        if found is None:
            return web.Response(status=404, text="not found")
        kind = types.get(Path(path).suffix, "text/html")
        return web.Response(body=found, content_type=kind)

    app = web.Application()
    app.router.add_get("/{tail:.*}", handler)  # and HEAD (trafilatura asks with it)
    print("ready", flush=True)
    web.run_app(app, sock=sock, print=lambda *_: None, access_log=None, handle_signals=True)


class Server:
    """A server process for one site on the script's one listening socket."""

    def __init__(self, root: Path, sock: socket.socket) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "--serve", str(root), str(sock.fileno())],
            stdout=subprocess.PIPE,
            pass_fds=(sock.fileno(),),
            text=True,
        )
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise SystemExit(f"the bench server for {root} did not start")

    def close(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# ----------------------------------------------------------------------------- measuring
def measure(argv: list[str]) -> tuple[float, float, float, int]:
    """(wall seconds, CPU seconds, peak RSS MiB, exit status) of a fresh subprocess."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.stderr is not None:
        err = proc.stderr.read().decode(errors="replace").strip()
        if err:
            print(err[-2000:], file=sys.stderr)
        proc.stderr.close()
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode


def run_urlset(
    url: str, out: Path, repeat: int, extra: list[str], command: str = URLSET
) -> list[dict[str, float]]:
    runs = []
    for _ in range(repeat):
        out.unlink(missing_ok=True)
        more = [arg.replace("{run}", str(next(RUNS))) for arg in extra]
        wall, cpu, rss, code = measure([command, "fetch", url, "-o", str(out), "-q", *more])
        with out.open("rb") as fh:
            count = sum(1 for _ in fh)
        runs.append(
            {"seconds": wall, "cpu_seconds": cpu, "peak_rss_mb": rss, "count": count, "exit": code}
        )
    return runs


def instructions(argv: list[str]) -> int | None:
    """The instructions a fresh process of ``argv`` runs, counted once by callgrind (None
    when valgrind is missing or the run fails)."""
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp, "callgrind.out")
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
            capture_output=True,
            check=False,
        )
        if done.returncode or not out.exists():
            print(done.stderr.decode(errors="replace")[-1000:], file=sys.stderr)
            return None
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
        return int(found.group(1)) if found else None


def count_instructions(url: str, args: argparse.Namespace) -> dict[str, int | None]:
    """urlset's (and the --compare urlset's) fetch of ``url`` and ultimate-sitemap-parser's,
    in instructions."""
    out = str(OUT / "fetch.jsonl")
    counts = {"urlset": instructions([URLSET, "fetch", url, "-o", out, "-q"])}
    if args.compare:
        counts["--compare urlset"] = instructions([args.compare, "fetch", url, "-o", out, "-q"])
    if PEERS_PY.is_file() and not args.no_peers:
        counts["ultimate-sitemap-parser"] = instructions([str(PEERS_PY), "-c", USP_FETCH, url])
    return counts


def run_peers(url: str, timeout: float, peer: str = "all", repeat: int = 1) -> list[Row]:
    if not (PEERS.is_file() and PEERS_PY.is_file()):
        print(f"no peers: {PEERS_PY} is missing (run bench/setup_peers.sh)", file=sys.stderr)
        return []
    more = ["--repeat", str(repeat)] if repeat > 1 else []
    argv = [str(PEERS_PY), str(PEERS), "--timeout", str(int(timeout)), *more, peer, "fetch", url]
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    found: list[Row] = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
    if not found:
        print(proc.stderr[-2000:], file=sys.stderr)
    return found


def bench_site(
    name: str, root: Path, sock: socket.socket, args: argparse.Namespace
) -> dict[str, Any]:
    """urlset (half its runs before the peers, half after) and the peers on one site."""
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    extra = shlex.split(args.fetch_args)
    server = Server(root, sock)
    other: list[dict[str, float]] = []
    peers: list[Row] = []
    try:
        counts = count_instructions(url, args) if args.instructions else {}
        if args.compare:  # alternating, one run each at a time
            ours = []
            for _ in range(args.repeat):
                other += run_urlset(url, OUT / "fetch.jsonl", 1, extra, args.compare)
                ours += run_urlset(url, OUT / "fetch.jsonl", 1, extra)
            if args.small_site and not args.no_peers:
                peers = run_peers(url, args.peer_timeout, "ultimate-sitemap-parser", args.repeat)
            return {**summary(name, url, ours, peers, other), "instructions": counts}
        first = (args.repeat + 1) // 2
        ours = run_urlset(url, OUT / "fetch.jsonl", first, extra)
        if args.no_peers:
            pass
        elif args.small_site:
            peers = run_peers(url, args.peer_timeout, "ultimate-sitemap-parser", args.repeat)
        else:
            peers = run_peers(url, args.peer_timeout)
        ours += run_urlset(url, OUT / "fetch.jsonl", args.repeat - first, extra)
    finally:
        server.close()
    return {**summary(name, url, ours, peers, other), "instructions": counts}


def summary(
    name: str,
    url: str,
    ours: list[dict[str, float]],
    peers: list[Row],
    other: list[dict[str, float]],
) -> dict[str, Any]:
    best = min(ours, key=lambda r: r["seconds"])
    median = sorted(r["seconds"] for r in ours)[len(ours) // 2]
    found = {"site": name, "url": url, "urlset": ours, "best": best, "median": median}
    return {**found, "peers": peers, "compared": other}


def print_site(found: dict[str, Any], expected: int) -> None:
    ours, best = found["urlset"], found["best"]
    times = ", ".join(f"{r['seconds']:.2f}" for r in ours)
    print(f"\n{found['site']} ({found['url']}):")
    print("| reader | seconds | wall s | CPU s | peak RSS MiB | URLs | urlset faster by |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(
        f"| urlset fetch (best of {len(ours)}; median {found['median']:.2f}; runs {times}) "
        f"| {best['seconds']:.2f} | {best['seconds']:.2f} | {best['cpu_seconds']:.2f} "
        f"| {max(r['peak_rss_mb'] for r in ours):.0f} | {best['count']:,} | |"
    )
    if found["compared"]:
        other = found["compared"]
        fastest = min(other, key=lambda r: r["seconds"])
        middle = sorted(r["seconds"] for r in other)[len(other) // 2]
        runs = ", ".join(f"{r['seconds']:.2f}" for r in other)
        print(
            f"| --compare urlset (best of {len(other)}; median {middle:.2f}; runs {runs}) "
            f"| {fastest['seconds']:.2f} | {fastest['seconds']:.2f} | {fastest['cpu_seconds']:.2f} "
            f"| {max(r['peak_rss_mb'] for r in other):.0f} | {fastest['count']:,} "
            f"| {fastest['seconds'] / best['seconds']:.2f}x |"
        )
    if any(r["count"] != expected for r in ours):
        print(f"WARNING: urlset's output has {best['count']:,} URLs, expected {expected:,}")
    small = found["site"] == "small"  # start-up dominates: whole processes compared
    for p in found["peers"]:
        secs = p.get("seconds")
        ratio = f"{float(secs) / best['seconds']:.1f}x" if secs else "-"
        if small and p.get("wall_seconds"):
            ratio = f"{float(p['wall_seconds']) / found['median']:.2f}x (wall, medians)"
        error = f" (error: {p['error'][:80]})" if p.get("error") else ""
        print(
            f"| {p.get('peer')} {p.get('version') or ''}{error} "
            f"| {'-' if secs is None else f'{float(secs):.2f}'} | {p.get('wall_seconds')} "
            f"| {p.get('cpu_seconds')} | {p.get('peak_rss_mb')} | {p.get('count') or 0:,} | {ratio} |"
        )
    if found.get("instructions"):
        print("| reader | instructions (M), whole process, callgrind |\n|---|---:|")
        for reader, count in found["instructions"].items():
            print(f"| {reader} | {'-' if count is None else f'{count / 1e6:,.0f}'} |")
    timed = [p for p in found["peers"] if not p.get("error") and p.get("seconds")]
    if timed:
        fastest = min(timed, key=lambda p: float(p["seconds"]))
        ratio = float(fastest["seconds"]) / best["seconds"]
        print(f"fastest peer: {fastest['peer']}; urlset faster by {ratio:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sites", default="plain,mixed", help="plain, mixed, shape (comma list)")
    parser.add_argument("--shape", default="iri", choices=MIX_SHAPES, help="the shape site's")
    parser.add_argument("--sitemaps", type=int, default=10)
    parser.add_argument("--urls", type=int, default=50_000, help="URLs per sitemap")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peer-timeout", type=float, default=900)
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.add_argument(
        "--small-site",
        action="store_true",
        help="the plain site, an index and 3 children of 20 URLs; beside ultimate-sitemap-parser",
    )
    parser.add_argument(
        "--fetch-args",
        default="",
        help="more arguments for urlset fetch (e.g. '--workers 0'; '--cache /tmp/c{run}': "
        "{run} is a number of its own in every run)",
    )
    parser.add_argument("--compare", help="another urlset command, its runs alternating")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count each reader's whole process once with valgrind (callgrind)",
    )
    parser.add_argument(
        "--images", type=int, default=10, help="every Nth URL of mixed and shape has an image"
    )
    parser.add_argument("--build", nargs=5, help=argparse.SUPPRESS)
    parser.add_argument("--serve", nargs=2, metavar=("DIR", "FD"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(Path(args.serve[0]), int(args.serve[1]))
        return
    if args.build:
        name, sitemaps, urls, shape, images = args.build
        print(build(name, int(sitemaps), int(urls), shape, int(images))[1])
        return
    names = ["small"] if args.small_site else args.sites.split(",")
    if args.small_site:
        args.sitemaps, args.urls, args.repeat = 3, 20, max(args.repeat, 10)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.instructions:  # bytecode caches, as an installed package has them
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "src")], check=True)
    sites = {}
    for name in names:
        print(f"site {name}: {args.sitemaps} sitemaps ...", file=sys.stderr)
        # made in a process of its own: a child's ru_maxrss starts from its parent's RSS (the
        # high-water mark is carried over fork and exec), so this one must stay small
        settings = [str(args.sitemaps), str(args.urls), args.shape, str(args.images)]
        made = subprocess.run(
            [sys.executable, __file__, "--build", name, *settings],
            check=True,
            capture_output=True,
            text=True,
        )
        sites[name] = (SITES[name], int(made.stdout))
    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} "
        f"{platform.python_version()}",
        "load_average_start": os.getloadavg(),
        "sites": [],
    }
    with socket.socket() as sock:  # the one port of every server, reader and site
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        for name, (root, count) in sites.items():
            found = bench_site(name, root, sock, args)
            report["sites"].append(found)
            print_site(found, count)
    report["load_average_end"] = os.getloadavg()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"\n{report['date']}, {report['machine']}, load average at the end: {load}")
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()

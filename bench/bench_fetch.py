#!/usr/bin/env python3
"""Benchmark ``urlset fetch`` end to end over loopback, beside the peers, in one run.

    .venv/bin/python bench/bench_fetch.py [--sites plain,mixed] [--sitemaps 10] [--urls 50000]
                                          [--repeat 3] [--no-peers | --peers advertools,...]
                                          [--no-floor] [--json] [--fetch-args ARGS]
    .venv/bin/python bench/bench_fetch.py --sites mix --peers advertools --repeat 5  # issue 26
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
  mix     fetch-mix/: bench/read_shapes.py's ``mix``, the documents bench_read_shapes.py
          reads (every loc shape, every lastmod form, image, video, news, hreflang and an
          unknown extension in turn; changefreq and priority on every other entry), entry
          numbers running on across the children; its hosts (www.example.com, a 5-digit
          port, a development host) all on the site's origin, itself a 5-digit port on a
          loopback address. The issue's "fetch of the mix site" is this one, so that fetch
          and read measure the same documents; ``mixed`` is another mix (bench_read.py's
          six loc shapes, pretty-printed, with images but no video, news, hreflang or
          lastmod forms other than offsets and milliseconds), kept for the figures
          measured on it.

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
imports, and their wall time), when bench/.venv-peers exists; ``--peers`` names some.

The floor (unless ``--no-floor``): after each urlset run, one ``curl`` + ``gzip -dc`` of
the same files from the same server, as one shell pipeline: robots.txt and the index, then
every child in one curl process (one kept-alive connection) piped into ``gzip -dc``. curl,
not a small client of our own, because the issue's target names it and it is the
download at C speed with nothing parsed; an untimed run of the same pipeline first counts
the ``<url>`` elements it gives (all of them, or the script stops). Each site then prints
one line per target of issue 26: urlset >= 10x advertools (wall to wall, whole
processes) and within 3x of the floor (wall medians; CPU beside it, which holds on a
busy machine).

The src tree is compiled to bytecode first (``compileall``), as ``pip install`` does:
Python writes no caches where ``PYTHONDONTWRITEBYTECODE`` is set (the project machine),
and compiling ~130 modules from source in every run is not what a user's run pays.

``--compare CMD``: another urlset (an older checkout's) run too, its runs alternating with
this one's, on the same server; both printed.

``--small-site``: an index and 3 children of 20 URLs, where start-up dominates; urlset beside
ultimate-sitemap-parser alone, each a whole bare process (``USP_FETCH``: its import and
``sitemap_tree_for_homepage``, not bench/peers/run.py's harness), their runs alternating; one
line for issue 26's target (a tiny site's fetch no slower than ultimate-sitemap-parser's:
wall medians, CPU beside).

``--threads``: one more urlset run per site, profiled from the outside by
bench/thread_profile.py: each thread's CPU seconds and run-queue wait (the machine's load),
when it ran, and the cores the process kept busy in each tenth of the run (how much of the
fetch overlaps).

``--instructions``: each reader's whole process (interpreter start, imports, the fetch;
children included) counted once by valgrind's callgrind on the same server and files:
urlset, the ``--compare`` urlset, the floor (unless ``--no-floor``) and (unless
``--no-peers``) ultimate-sitemap-parser (``sitemap_tree_for_homepage``
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

from fetch_sites import MIX_SHAPES, OUT, SITES, build  # noqa: E402
from peers.run import PLACEHOLDER, TRAFILATURA_HOST  # noqa: E402
from thread_profile import profile, report  # noqa: E402

if TYPE_CHECKING:
    from peers.run import Row

ROOT = BENCH.parent
PEERS = BENCH / "peers" / "run.py"
PEERS_PY = BENCH / ".venv-peers" / "bin" / "python"
# URLSET_COMMAND: another urlset to time (e.g. an older checkout's), side by side
URLSET = os.environ.get("URLSET_COMMAND") or str(ROOT / ".venv" / "bin" / "urlset")
RUNS = itertools.count()  # "{run}" in --fetch-args: a number of its own in every run
# ultimate-sitemap-parser's fetch of a site, as bench/peers/run.py's child makes it
USP_FETCH = (
    "import sys; from usp.tree import sitemap_tree_for_homepage; "
    "print(sum(1 for _ in sitemap_tree_for_homepage(sys.argv[1]).all_pages()))"
)


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


def floor_commands(url: str, root: Path) -> tuple[str, str]:
    """The floor's shell pipeline and an untimed check of it: robots.txt and the index
    first (a reader needs them before the children), then every child of the site in one
    ``curl`` process (one connection kept alive, the files in turn) piped into ``gzip -dc``,
    which inflates while curl downloads, as urlset's parse threads do. The check counts the
    ``<url>`` elements the same pipeline gives."""
    base = url.rstrip("/")
    names = sorted(
        (root / "sitemaps").glob("sitemap-*.xml.gz"), key=lambda p: int(p.name[8:].split(".")[0])
    )
    children = " ".join(shlex.quote(f"{base}/sitemaps/{p.name}") for p in names)
    first = f"curl -sS --fail {base}/robots.txt {base}/sitemap-index.xml > /dev/null"
    pipeline = f"{first} && curl -sS --fail {children} | gzip -dc"
    return f"{pipeline} > /dev/null", f"{pipeline} | grep -o '<url>' | wc -l"


def run_floor(url: str, root: Path, repeat: int, expected: int) -> list[dict[str, float]]:
    """``curl`` + ``gzip -dc`` of the site's files from the same server (floor_commands):
    wall and CPU seconds (curl's and gzip's, through the shell's rusage) of each run."""
    timed, check = floor_commands(url, root)
    done = subprocess.run(["sh", "-c", check], capture_output=True, text=True, check=False)
    if done.stdout.strip() != str(expected):
        raise SystemExit(f"curl + gzip -dc gave {done.stdout.strip()} URLs, not {expected}")
    runs = []
    for _ in range(repeat):
        wall, cpu, rss, code = measure(["sh", "-c", timed])
        if code:
            raise SystemExit(f"curl + gzip -dc failed ({code}): {timed[:200]}")
        runs.append({"seconds": wall, "cpu_seconds": cpu, "peak_rss_mb": rss})
    return runs


def instructions(argv: list[str]) -> int | None:
    """The instructions a fresh process of ``argv`` and its children (a wrapper script's
    exec, the floor's curl and gzip) run, counted once by callgrind (None when valgrind is
    missing or the run fails)."""
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                "--trace-children=yes",
                f"--callgrind-out-file={tmp}/callgrind.out.%p",
                *argv,
            ],
            capture_output=True,
            check=False,
        )
        outs = sorted(Path(tmp).glob("callgrind.out.*"))
        if done.returncode or not outs:
            print(done.stderr.decode(errors="replace")[-1000:], file=sys.stderr)
            return None
        total = 0
        for out in outs:
            found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
            total += int(found.group(1)) if found else 0
        return total


def count_instructions(url: str, root: Path, args: argparse.Namespace) -> dict[str, int | None]:
    """urlset's (and the --compare urlset's) fetch of ``url``, the floor's curl + gzip -dc of
    the site's files in ``root`` and ultimate-sitemap-parser's, in instructions."""
    out = str(OUT / "fetch.jsonl")
    counts = {"urlset": instructions([URLSET, "fetch", url, "-o", out, "-q"])}
    if args.compare:
        counts["--compare urlset"] = instructions([args.compare, "fetch", url, "-o", out, "-q"])
    if not (args.no_floor or args.small_site):
        counts["curl + gzip -dc"] = instructions(["sh", "-c", floor_commands(url, root)[0]])
    if PEERS_PY.is_file() and not args.no_peers:
        counts["ultimate-sitemap-parser"] = instructions([str(PEERS_PY), "-c", USP_FETCH, url])
    return counts


def run_usp(url: str) -> dict[str, float]:
    """ultimate-sitemap-parser's fetch of ``url`` as a bare process (``USP_FETCH``: its import
    and ``sitemap_tree_for_homepage``, nothing of bench/peers/run.py's harness), measured as
    urlset's runs are: wall and CPU seconds, peak RSS. Its URL count is checked."""
    argv = [str(PEERS_PY), "-c", USP_FETCH, url]
    wall, cpu, rss, code = measure(argv)
    if code:
        raise SystemExit(f"ultimate-sitemap-parser failed ({code}) on {url}")
    return {"seconds": wall, "cpu_seconds": cpu, "peak_rss_mb": rss}


def check_usp(url: str, expected: int) -> None:
    """Stops the script unless ultimate-sitemap-parser finds the site's ``expected`` URLs."""
    argv = [str(PEERS_PY), "-c", USP_FETCH, url]
    done = subprocess.run(argv, capture_output=True, text=True, check=False, timeout=300)
    if done.stdout.strip() != str(expected):
        raise SystemExit(f"ultimate-sitemap-parser found {done.stdout.strip()!r}, not {expected}")


def run_peers(url: str, timeout: float, peer: str = "all", repeat: int = 1) -> list[Row]:
    if not (PEERS.is_file() and PEERS_PY.is_file()):
        print(f"no peers: {PEERS_PY} is missing (run bench/setup_peers.sh)", file=sys.stderr)
        return []
    more = ["--repeat", str(repeat)] if repeat > 1 else []
    found: list[Row] = []
    for name in peer.split(","):  # "all", or the names wanted
        argv = [str(PEERS_PY), str(PEERS), "--timeout", str(int(timeout)), *more, name, "fetch"]
        proc = subprocess.run([*argv, url], capture_output=True, text=True, check=False)
        rows = [json.loads(x) for x in proc.stdout.splitlines() if x.startswith("{")]
        if not rows:
            print(proc.stderr[-2000:], file=sys.stderr)
        found += rows
    return found


def bench_site(
    name: str, root: Path, sock: socket.socket, args: argparse.Namespace, expected: int
) -> dict[str, Any]:
    """urlset (half its runs before the peers, half after, each followed by a run of the
    floor, curl + gzip -dc, so that both see the same load) and the peers on one site."""
    port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    extra = shlex.split(args.fetch_args)
    server = Server(root, sock)
    other: list[dict[str, float]] = []
    peers: list[Row] = []
    floor: list[dict[str, float]] = []
    with_floor = not (args.no_floor or args.small_site)
    threads: list[str] = []

    def ours_then_floor(runs: int, command: str = URLSET) -> list[dict[str, float]]:
        done = []
        for _ in range(runs):
            done += run_urlset(url, OUT / "fetch.jsonl", 1, extra, command)
            if with_floor and command == URLSET:
                floor.extend(run_floor(url, root, 1, expected))
        return done

    try:
        counts = count_instructions(url, root, args) if args.instructions else {}
        if args.threads:  # one urlset run, its threads read from /proc (thread_profile.py)
            more = [arg.replace("{run}", str(next(RUNS))) for arg in extra]
            out = str(OUT / "fetch.jsonl")
            threads = report(profile([URLSET, "fetch", url, "-o", out, "-q", *more]))
        if args.small_site and not args.no_peers and PEERS_PY.is_file():
            # start-up dominates: whole processes side by side, one run each at a time
            check_usp(url, expected)
            ours, usp = [], []
            for _ in range(args.repeat):
                ours += ours_then_floor(1)
                usp.append(run_usp(url))
            found = summary(name, url, ours, peers, other)
            return {**found, "floor": floor, "instructions": counts, "usp": usp, "threads": threads}
        if args.compare:  # alternating, one run each at a time
            ours = []
            for _ in range(args.repeat):
                other += ours_then_floor(1, args.compare)
                ours += ours_then_floor(1)
            if args.small_site and not args.no_peers:
                peers = run_peers(url, args.peer_timeout, "ultimate-sitemap-parser", args.repeat)
            found = summary(name, url, ours, peers, other)
            return {**found, "floor": floor, "instructions": counts, "threads": threads}
        first = (args.repeat + 1) // 2
        ours = ours_then_floor(first)
        if args.no_peers:
            pass
        elif args.small_site:
            peers = run_peers(url, args.peer_timeout, "ultimate-sitemap-parser", args.repeat)
        else:
            peers = run_peers(url, args.peer_timeout, args.peers)
        ours += ours_then_floor(args.repeat - first)
    finally:
        server.close()
    found = summary(name, url, ours, peers, other)
    return {**found, "floor": floor, "instructions": counts, "threads": threads}


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


def _median_row(
    label: str,
    runs: list[dict[str, float]],
    expected: int,
    urlset_median: float,
    digits: int,
    note: str,
) -> str:
    """A table row of a reader timed as a bare process: its median run, every run, its
    peak RSS and its time over urlset's median."""
    middle = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
    listed = ", ".join(f"{r['seconds']:.2f}" for r in runs)
    secs, cpu = f"{middle['seconds']:.{digits}f}", f"{middle['cpu_seconds']:.{digits}f}"
    return (
        f"| {label}; runs {listed}) | {secs} | {secs} | {cpu} "
        f"| {max(r['peak_rss_mb'] for r in runs):.0f} | {expected:,} "
        f"| {middle['seconds'] / urlset_median:.2f}x{note} |"
    )


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
    usp, floor = found.get("usp") or [], found.get("floor") or []
    if usp:
        label = f"ultimate-sitemap-parser, bare process (median of {len(usp)}"
        print(_median_row(label, usp, expected, found["median"], 3, " (wall, medians)"))
    if floor:
        label = f"curl + gzip -dc of the same files (median of {len(floor)}"
        print(_median_row(label, floor, expected, found["median"], 2, ""))
    counted, threads = found.get("instructions") or {}, found.get("threads")
    if counted:
        print("| reader | instructions (M), whole process, callgrind |\n|---|---:|")
        for reader, count in counted.items():
            print(f"| {reader} | {'-' if count is None else f'{count / 1e6:,.0f}'} |")
    if threads:
        print("urlset fetch's threads (one run; bench/thread_profile.py):")
        print("\n".join(threads))
    timed = [p for p in found["peers"] if not p.get("error") and p.get("seconds")]
    if timed:
        fastest = min(timed, key=lambda p: float(p["seconds"]))
        ratio = float(fastest["seconds"]) / best["seconds"]
        print(f"fastest peer: {fastest['peer']}; urlset faster by {ratio:.1f}x")
    for line in target_lines(found):
        print(line)


def _median_of(runs: list[dict[str, float]], key: str) -> float:
    return sorted(r[key] for r in runs)[len(runs) // 2]


def target_lines(found: dict[str, Any]) -> list[str]:
    """One line per target of issue 26 for fetch (set on the mix site, printed for each):
    >= 10x advertools and within 3x of curl + gzip -dc of the same files; on the small site,
    no slower than ultimate-sitemap-parser. Whole processes
    wall to wall (urlset's and the floor's medians, advertools's wall time); CPU (user +
    sys, children included) beside the floor's, which holds on a busy machine."""
    lines = []
    site, ours = found["site"], found["urlset"]
    wall, cpu = _median_of(ours, "seconds"), _median_of(ours, "cpu_seconds")
    advertools = next((p for p in found["peers"] if p.get("peer") == "advertools"), None)
    if advertools is not None and not advertools.get("error"):
        theirs = float(advertools.get("wall_seconds") or advertools["seconds"])
        ratio = theirs / wall
        their_cpu = advertools.get("cpu_seconds")
        on_cpu = f"; CPU {float(their_cpu):.2f} s / {cpu:.2f} s = {float(their_cpu) / cpu:.1f}x"
        lines.append(
            f"target [{site}] fetch >= 10x advertools: {theirs:.2f} s / {wall:.2f} s "
            f"(wall; urlset's median of {len(ours)}) = {ratio:.1f}x: "
            f"{'met' if ratio >= 10 else 'NOT met'}{on_cpu if their_cpu else ''}"
        )
    elif advertools is not None:
        lines.append(f"target [{site}] fetch >= 10x advertools: advertools failed")
    usp = found.get("usp") or []
    if usp:
        their_wall, their_cpu = _median_of(usp, "seconds"), _median_of(usp, "cpu_seconds")
        ratio = their_wall / wall
        lines.append(
            f"target [{site}] fetch of a tiny site no slower than ultimate-sitemap-parser: "
            f"{their_wall:.3f} s / {wall:.3f} s (wall, whole processes, medians of {len(usp)} "
            f"and {len(ours)}, alternating) = {ratio:.2f}x: "
            f"{'met' if ratio >= 1 else 'NOT met'}; CPU {their_cpu:.3f} s / {cpu:.3f} s = "
            f"{their_cpu / cpu:.2f}x"
        )
    floor = found.get("floor") or []
    if floor:
        floor_wall, floor_cpu = _median_of(floor, "seconds"), _median_of(floor, "cpu_seconds")
        ratio = wall / floor_wall
        lines.append(
            f"target [{site}] fetch within 3x of curl + gzip -dc: {wall:.2f} s / "
            f"{floor_wall:.2f} s (wall, medians of {len(ours)} and {len(floor)}, alternating) = "
            f"{ratio:.1f}x: {'met' if ratio <= 3 else 'NOT met'}; CPU {cpu:.2f} s / "
            f"{floor_cpu:.2f} s = {cpu / floor_cpu:.1f}x"
        )
    counted = found.get("instructions") or {}
    if counted.get("urlset") and counted.get("curl + gzip -dc"):
        ours_count, floor_count = counted["urlset"], counted["curl + gzip -dc"]
        lines.append(
            f"target [{site}] fetch within 3x of curl + gzip -dc, in instructions: "
            f"{ours_count / 1e6:,.0f} M / {floor_count / 1e6:,.0f} M = "
            f"{ours_count / floor_count:.1f}x (every thread and process counted; "
            f"the wall ratio is the target)"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sites", default="plain,mixed", help="plain, mixed, shape, mix (comma list)"
    )
    parser.add_argument("--shape", default="iri", choices=MIX_SHAPES, help="the shape site's")
    parser.add_argument("--sitemaps", type=int, default=10)
    parser.add_argument("--urls", type=int, default=50_000, help="URLs per sitemap")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument(
        "--peers", default="all", help="the peers to run (bench/peers/run.py's names, comma list)"
    )
    parser.add_argument(
        "--no-floor", action="store_true", help="no curl + gzip -dc of the same files"
    )
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
        "--threads",
        action="store_true",
        help="one more urlset run per site, each thread's CPU and the cores busy over time "
        "read from /proc (bench/thread_profile.py; Linux)",
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
    # bytecode caches, as an installed package has them (see the docstring)
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
            found = bench_site(name, root, sock, args, count)
            report["sites"].append(found)
            print_site(found, count)
    report["load_average_end"] = os.getloadavg()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    began = ", ".join(f"{x:.1f}" for x in report["load_average_start"])
    print(
        f"\n{report['date']}, {report['machine']}, load average at the start: {began}, "
        f"at the end: {load}"
    )
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()

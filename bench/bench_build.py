"""Build benchmark: N URLs with lastmod, changefreq and priority to gzipped sitemaps plus index.

    .venv/bin/python bench/bench_build.py [--urls 1000000] [--memory-urls 10000000]
        [--command-urls 10000000] [--command-before SRC] [--before SRC] [--no-peers]
        [--repeat 1]

Each measurement runs in a fresh subprocess so that peak RSS is its own. urlset is measured
three ways: from prepared (loc, lastmod, changefreq, priority) rows of strings passed as they
are, and through one ``Url()`` call per row, which are the build's own cost (checking and
normalising every value, de-duplication, splitting, XML, gzip, index, atomic publishing);
and generating each URL inside the timed loop as the peers do; its CPU seconds (all threads)
are given beside the wall seconds, being steadier on a shared machine. The size
check decompresses urlset's output and compresses the same XML with `gzip -6`. Peers
(sitemap.js both ways, xml-sitemap-writer) run through bench/peers/run.py in the same run.
``--command-urls`` also times the ``urlset build`` command end to end on the same URLs as a
CSV file and as JSON Lines (written once to bench/out/build/), with its peak RSS;
``--command-before SRC`` times another checkout's src beside it, alternating; ``--before SRC``
does the same for the builds from rows and tables (with gzip and without), giving each side's
CPU seconds and its calling thread's (the part of the work no other core can take).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

if TYPE_CHECKING:
    from peers.run import Row

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "build"
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"
sys.path.insert(0, str(HERE))

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {peers!r})
from items import item
from urlset import Url, write_sitemaps
n, out, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
gzip = not mode.endswith("-plain")
mode = mode.removesuffix("-plain")
if mode in ("prepared", "rows", "table"):
    rows = [item(i) for i in range(n)]
    entries = rows if mode == "rows" else (Url(*row) for row in rows)
    if mode == "table":
        import pyarrow as pa
        entries = pa.table(dict(zip(("loc", "lastmod", "changefreq", "priority"), map(list, zip(*rows)))))
        del rows
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu, main = time.perf_counter(), time.process_time(), time.thread_time()
    report = write_sitemaps(entries, out, "https://www.example.com/", gzip=gzip)
else:
    rss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start, cpu, main = time.perf_counter(), time.process_time(), time.thread_time()
    report = write_sitemaps((item(i) for i in range(n)), out, "https://www.example.com/")
seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
main = time.thread_time() - main
print(json.dumps({{"seconds": seconds, "cpu": cpu, "main": main, "urls": report.urls, "files": len(report.files),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "rss_before_mb": rss_before / 1024,
    "uncompressed": sum(f.bytes for f in report.files), "written": sum(f.written for f in report.files)}}))
"""


class UrlsetRun(TypedDict):
    """What CHILD prints, and the directory it wrote."""

    seconds: float
    cpu: float
    main: float  # the calling thread's CPU seconds: the part no other core takes
    urls: int
    files: int
    peak_rss_mb: float
    rss_before_mb: float
    uncompressed: int
    written: int
    out: str


def run_urlset(n: int, mode: str, src: str | None = None) -> UrlsetRun:
    """One build in a fresh process; with ``src``, of the urlset in that src folder."""
    out = OUT / f"urlset-{mode}-{n}"
    code = CHILD.format(peers=str(HERE / "peers"))
    env = os.environ if src is None else {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [sys.executable, "-c", code, str(n), str(out), mode],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    if done.returncode:
        raise SystemExit(f"urlset run failed: {done.stderr}")
    result: UrlsetRun = json.loads(done.stdout)
    result["out"] = str(out)
    return result


def write_input(path: Path, n: int) -> None:
    """The benchmark URLs as a CSV file with a header or as JSON Lines (kept between runs)."""
    if path.exists():
        return
    from peers.items import item

    keys = ("loc", "lastmod", "changefreq", "priority")
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_suffix(".partial")
    with open(partial, "w", encoding="utf-8") as out:
        if path.suffix == ".csv":
            out.write(",".join(keys) + "\n")
        for start in range(0, n, 100_000):
            lines = map(item, range(start, min(n, start + 100_000)))
            if path.suffix == ".csv":
                out.write("".join(",".join(row) + "\n" for row in lines))
            else:
                out.write(
                    "".join(json.dumps(dict(zip(keys, row, strict=True))) + "\n" for row in lines)
                )
    partial.rename(path)


# runs a command and prints its peak RSS in KiB (the only child this process waits for)
MEASURE = (
    "import resource, subprocess, sys; done = subprocess.run(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); sys.exit(done.returncode)"
)


def run_command(path: Path, out: Path, src: str | None = None) -> tuple[float, float]:
    """Seconds and peak RSS (MB) of the `urlset build` command on the input file; with
    ``src``, of the urlset found there (another checkout's src folder) instead."""
    urlset = Path(sys.executable).parent / "urlset"
    command = [str(urlset), "build", str(path), "--base-url", "https://www.example.com/"]
    env = os.environ if src is None else {**os.environ, "PYTHONPATH": src}
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command, "--out", str(out), "-q"],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    seconds = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"urlset build failed: {done.stderr}")
    return seconds, int(done.stdout.split()[-1]) / 1024


def gzip6_size(out: Path) -> tuple[int, int]:
    """(urlset's compressed bytes, gzip -6 bytes) over the same child sitemaps."""
    ours = ref = 0
    children = sorted(out.glob("sitemap-*.xml.gz")) or [out / "sitemap.xml.gz"]  # no index
    for path in children:
        data = path.read_bytes()
        ours += len(data)
        ref += len(
            subprocess.run(
                ["gzip", "-6", "-n", "-c"],
                input=gzip.decompress(data),
                capture_output=True,
                check=True,
            ).stdout
        )
    return ours, ref


def run_peers(n: int) -> list[Row]:
    if not PEERS_PYTHON.exists():
        print(
            "peers not set up (bash bench/setup_peers.sh); measuring urlset alone", file=sys.stderr
        )
        return []
    done = subprocess.run(
        [
            str(PEERS_PYTHON),
            str(HERE / "peers" / "run.py"),
            "--timeout",
            "1200",
            "all",
            "build",
            str(n),
            str(OUT / "peers"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument(
        "--memory-urls",
        type=int,
        default=10_000_000,
        help="a second, larger run for peak memory (0: skip)",
    )
    parser.add_argument(
        "--command-urls",
        type=int,
        default=0,
        help="also time `urlset build` on a CSV file of this many rows (0: skip)",
    )
    parser.add_argument(
        "--command-before",
        help="also time the command with the urlset of this src folder (a `git archive` of "
        "another commit, beside this build's _core), alternating with this checkout's",
    )
    parser.add_argument("--command-rounds", type=int, default=3)
    parser.add_argument(
        "--before",
        help="also build with the urlset of this src folder (a `git archive` of another commit "
        "with its own _core), alternating with this checkout, --repeat rounds a mode",
    )
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument(
        "--repeat", type=int, default=1, help="urlset's runs of each mode; the fastest is shown"
    )
    args = parser.parse_args()
    n = args.urls
    print(
        f"# {time.strftime('%Y-%m-%d')} {platform.machine()} {os.cpu_count()} cores, Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}"
    )
    rows: list[tuple[str, float, float, int, float | None]] = []
    runs: dict[str, UrlsetRun] = {}
    import urlset._core

    if not urlset._core.OPTIMIZED:
        raise SystemExit("refusing to measure a debug build of urlset._core (pip install -e .)")
    for mode, label in (
        ("rows", "urlset (prepared rows)"),
        ("table", "urlset (Arrow table)"),
        ("rows-plain", "urlset (prepared rows, no gzip)"),
        ("table-plain", "urlset (Arrow table, no gzip)"),
        ("prepared", "urlset (Url() per row)"),
        ("generated", "urlset (generated in loop)"),
    ):
        tries = [run_urlset(n, mode) for _ in range(args.repeat)]
        result = runs[mode] = min(tries, key=lambda run: run["seconds"])
        grown = result["peak_rss_mb"] - (result["rss_before_mb"] if mode != "generated" else 0)
        rows.append((label, result["seconds"], grown, result["urls"], result["cpu"]))
    if args.before:
        time_before(n, args.before, args.repeat)
    prepared, generated = runs["rows"], runs["generated"]
    ours, ref = gzip6_size(Path(prepared["out"]))
    peers = [] if args.no_peers else run_peers(n)
    for peer in peers:
        rows.append(
            (
                str(peer["peer"]),
                float(peer["seconds"] or 0),
                float(peer["peak_rss_mb"] or 0),
                int(peer.get("count") or 0),
                None,  # the peers' CPU is their whole process's, imports and start-up included
            )
        )
        if peer.get("error"):
            print(f"  {peer['peer']}: error {peer['error']}")
    fastest_peer = min((r[1] for r in rows[len(runs) :] if r[1] > 0), default=None)
    print(
        "\n| tool | seconds | CPU seconds | URLs/s | peak RSS MB | URLs | fastest peer / this |"
        "\n|---|---|---|---|---|---|---|"
    )
    for name, seconds, rss, count, cpu in rows:
        ratio = f"{fastest_peer / seconds:.1f}x" if fastest_peer and seconds else ""
        cpu_text = "" if cpu is None else f"{cpu:.2f}"
        print(
            f"| {name} | {seconds:.2f} | {cpu_text} | {count / seconds:,.0f} | {rss:.0f} | "
            f"{count:,} | {ratio} |"
        )
    print(
        f"\ncompressed size: urlset {ours:,} bytes, gzip -6 on the same XML {ref:,} bytes: {ours / ref:.3f}x"
    )
    if args.memory_urls:
        big = run_urlset(args.memory_urls, "generated")
        print(
            f"memory: {args.memory_urls:,} URLs generated in the loop: peak RSS {big['peak_rss_mb']:.0f} MB "
            f"(1M: {generated['peak_rss_mb']:.0f} MB), {big['seconds']:.1f} s, {big['urls'] / big['seconds']:,.0f} URLs/s"
        )
    if args.command_urls:
        time_command(args.command_urls, args.command_before, args.command_rounds)


def time_before(n: int, before: str, rounds: int) -> None:
    """Each mode built by this checkout and by the one in ``before``, alternating; the best
    wall seconds of each with its CPU seconds (all threads, and the calling thread's)."""
    print(
        f"\nthis checkout against src at {before}, alternating, best of {rounds}:\n"
        "| mode | this: s | before: s | this: CPU s | before: CPU s "
        "| this: main CPU s | before: main CPU s |\n|---|---|---|---|---|---|---|"
    )
    for mode in ("rows", "table", "rows-plain", "table-plain"):
        best: dict[str, UrlsetRun] = {}
        for _ in range(rounds):
            for side, src in (("this", None), ("before", before)):
                run = run_urlset(n, mode, src)
                if side not in best or run["seconds"] < best[side]["seconds"]:
                    best[side] = run
        this, old = best["this"], best["before"]
        print(
            f"| {mode} | {this['seconds']:.3f} | {old['seconds']:.3f} | {this['cpu']:.3f} "
            f"| {old['cpu']:.3f} | {this['main']:.3f} | {old['main']:.3f} |"
        )


def time_command(n: int, before: str | None, rounds: int) -> None:
    """`urlset build` on a CSV and a JSON Lines file of n URLs; with ``before`` (another
    checkout's src folder), that checkout too, the two alternating, the best of ``rounds``."""
    sides = [("this checkout", None)] + ([(f"src at {before}", before)] if before else [])
    for suffix in ("csv", "jsonl"):
        path = OUT / f"urls-{n}.{suffix}"
        write_input(path, n)
        best: dict[str, tuple[float, float]] = {}
        for _ in range(rounds):
            for label, src in sides:
                seconds, peak = run_command(path, OUT / f"urlset-command-{n}", src)
                best[label] = min(best.get(label, (seconds, peak)), (seconds, peak))
        for label, (seconds, peak) in best.items():
            print(
                f"command ({label}): urlset build of {n:,} {suffix} rows "
                f"({path.stat().st_size / 2**20:,.0f} MiB): {seconds:.2f} s, "
                f"{n / seconds:,.0f} URLs/s, peak RSS {peak:.0f} MB (best of {rounds})"
            )


if __name__ == "__main__":
    main()

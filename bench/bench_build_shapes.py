#!/usr/bin/env python3
"""Build the shape matrix (bench/build_shapes.py: every loc spelling, lastmod form and
extension, and issue 26's CMS mix), one CSV per shape, with ``urlset build`` (gzip 6),
beside xml-sitemap-writer at the same gzip level, sitemap.js (gzip 6) on the extension
shapes and ``pigz -6 -p 2`` of urlset's own output bytes (the compression floor), per output
byte; and the rows that left the compiled core.

    .venv/bin/python bench/bench_build_shapes.py [--rows 1000000] [--repeat 1] [--shapes a,b]
        [--memory-rows 10000000] [--memory-shapes plain,mix] [--no-sitemap-js]

Issue 26's 10x target is per shape at 1M rows: ``--rows 1000000 --shapes plain,iri,idn,amp,
apostrophe,pct,port,date,utc,offset,fraction,micro,minutes,year,month,mix --no-sitemap-js``
(every shape xml-sitemap-writer writes; sitemap.js takes minutes a shape at 1M).

The CSVs are made once per size in bench/out/. xml-sitemap-writer (the peers' venv,
bench/.venv-peers; bench/setup_peers.sh makes it) is given each row's loc, lastmod,
changefreq and priority (it writes no extensions and leaves out lastmods it refuses), so
speeds are MB of uncompressed XML each writes a second. sitemap.js (bench/node/build_csv.mjs,
node_modules from setup_peers.sh) is given each row with its extensions mapped to its item
fields (img, links, video, news). Every command runs in a fresh
process, commands alternating; the load is printed at the start and the end. Then one line
per target of issue 26 (build_targets.py): each shape's speed per output byte over the plain
shape's, the speed-up over xml-sitemap-writer on every shape it writes and over sitemap.js on
the shapes with extensions, the wall time over pigz's, each build's peak RSS; and with ``--memory-rows`` the peak
RSS of a build of that many rows streamed to ``urlset build -`` (no file on disk).
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from types import ModuleType

from build_targets import (
    URLSET,
    Measured,
    measured,
    memory_line,
    node_line,
    peer_line,
    pigz_line,
    plain_share_line,
    rss_line,
    streamed_build,
)

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"

PEER = r"""
import csv, sys, time
from xml_sitemap_writer import XMLSitemap
XMLSitemap.GZIP_COMPRESSION_LEVEL = 6  # like for like: urlset writes level 6
source, out, root = sys.argv[1], sys.argv[2], sys.argv[3].rstrip("/")
with open(source, newline="", encoding="utf-8") as f, XMLSitemap(path=out, root_url=root) as sitemap:
    sitemap.add_section("pages")
    for row in csv.DictReader(f):
        sitemap.add_url(row["loc"][len(root):], lastmod=row["lastmod"] or None,
                        priority=row["priority"] or None, changefreq=row["changefreq"] or None)
"""


def _shapes() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_shapes", HERE / "build_shapes.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHAPES = _shapes()


def make_csv(shape: str, rows: int) -> Path:
    OUT.mkdir(exist_ok=True)
    path = OUT / f"build-shape-{shape}-{rows}.csv"
    if not path.exists():
        path.write_bytes(SHAPES.source_bytes("csv", SHAPES.entries(shape, rows)))
    return path


def plain_bytes(directory: Path) -> bytes:
    """The uncompressed XML of every sitemap file in ``directory``."""
    out = []
    for path in sorted(directory.rglob("*.xml*")):
        data = path.read_bytes()
        out.append(gzip.decompress(data) if path.name.endswith(".gz") else data)
    return b"".join(out)


def timed(command: list[str], stdin: bytes | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        command, input=stdin, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    return time.perf_counter() - start, done.stderr.decode(errors="replace")


def run_urlset(shape: str, source: Path) -> tuple[Measured, bytes, str]:
    """What the build took, the XML it wrote, its lanes line."""
    with tempfile.TemporaryDirectory() as out:
        args = ["build", str(source), "--base-url", SHAPES.base(shape), "--out", out, "-q", "-v"]
        taken, err = measured([*URLSET, *args])
        lanes = next((line for line in err.splitlines() if line.startswith("urlset build:")), "")
        return taken, plain_bytes(Path(out)), lanes.removeprefix("urlset build: ")


def run_peer(shape: str, source: Path) -> tuple[Measured, int]:
    with tempfile.TemporaryDirectory() as out:
        taken, _ = measured([str(PEERS_PYTHON), "-c", PEER, str(source), out, SHAPES.base(shape)])
        return taken, len(plain_bytes(Path(out)))


def run_sitemap_js(shape: str, source: Path) -> tuple[float, int] | None:
    """sitemap.js (bench/node/build_csv.mjs, gzip 6) on the shape's CSV, its extensions
    mapped to its item fields: (seconds, uncompressed bytes), or None without node or it."""
    node = shutil.which("node")
    if node is None or not (HERE / "node" / "node_modules" / "sitemap").exists():
        return None
    script = str(HERE / "node" / "build_csv.mjs")
    with tempfile.TemporaryDirectory() as out:
        seconds, _ = timed([node, script, str(source), out, SHAPES.base(shape)])
        return seconds, len(plain_bytes(Path(out)))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--shapes", default=",".join(SHAPES.SHAPES))
    parser.add_argument("--memory-rows", type=int, default=0, help="10000000: the memory target")
    parser.add_argument("--memory-shapes", default="plain,mix")
    parser.add_argument(
        "--no-sitemap-js", action="store_true", help="leave sitemap.js out (minutes at 1M rows)"
    )
    args = parser.parse_args()
    speedups: dict[str, float] = {}
    cpu_speedups: dict[str, float] = {}  # the same per CPU second (user + sys), not wall
    speeds: dict[str, float] = {}  # urlset's MB/s
    over_node: dict[str, float] = {}
    over_pigz: dict[str, float] = {}
    cpu_over_pigz: dict[str, float] = {}
    peaks: dict[str, float] = {}
    shapes = args.shapes.split(",")
    peer = PEERS_PYTHON.exists()
    pigz = shutil.which("pigz")
    print(f"{args.rows:,} rows a shape, CSV in, gzip 6; load {load()}")
    print(
        "| shape | urlset s | urlset MB/s | xml-sitemap-writer MB/s | x peer | sitemap.js MB/s "
        "| x sitemap.js | pigz -6 -p 2 s | x pigz | rows the per-entry way |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for shape in shapes:
        source = make_csv(shape, args.rows)
        ours: list[float] = []
        theirs: list[float] = []
        floor: list[float] = []
        cpus: list[float] = []  # urlset's CPU seconds over pigz's, run by run
        peer_cpus: list[float] = []  # the peer's CPU seconds over urlset's, run by run
        node: list[float] = []
        xml, lanes, peer_size, node_size = b"", "", 0, 0
        extended = shape in (*SHAPES.EXTENSIONS, "mix")
        for _ in range(args.repeat):
            taken, xml, lanes = run_urlset(shape, source)
            ours.append(taken.seconds)
            peaks[shape] = max(peaks.get(shape, 0.0), taken.peak_mb)
            if peer:
                peer_taken, peer_size = run_peer(shape, source)
                theirs.append(peer_taken.seconds)
                peer_cpus.append(peer_taken.cpu / taken.cpu)
            ran = run_sitemap_js(shape, source) if extended and not args.no_sitemap_js else None
            if ran is not None:
                node.append(ran[0])
                node_size = ran[1]
            if pigz:
                pigz_taken, _ = measured([pigz, "-6", "-p", "2", "-c"], xml)
                floor.append(pigz_taken.seconds)
                cpus.append(taken.cpu / pigz_taken.cpu)
        speed = len(xml) / statistics.median(ours) / 1e6
        peer_speed = peer_size / statistics.median(theirs) / 1e6 if theirs else float("nan")
        node_speed = node_size / statistics.median(node) / 1e6 if node else float("nan")
        speeds[shape] = speed
        pigz_seconds = statistics.median(floor) if floor else float("nan")
        print(
            f"| {shape} | {statistics.median(ours):.2f} | {speed:.1f} | {peer_speed:.1f} "
            f"| {speed / peer_speed:.1f} | {node_speed:.1f} | {speed / node_speed:.1f} "
            f"| {pigz_seconds:.2f} "
            f"| {statistics.median(ours) / pigz_seconds:.1f} | {lanes} |",
            flush=True,
        )
        if theirs and shape not in SHAPES.EXTENSIONS:  # it writes no extensions
            speedups[shape] = speed / peer_speed
            cpu_speedups[shape] = statistics.median(peer_cpus) * len(xml) / peer_size
        if node:
            over_node[shape] = speed / node_speed
        if floor:
            over_pigz[shape] = statistics.median(ours) / pigz_seconds
            cpu_over_pigz[shape] = statistics.median(cpus)
    print(f"load at the end {load()}")
    if "plain" in speeds:
        print(plain_share_line({shape: speed / speeds["plain"] for shape, speed in speeds.items()}))
    if speedups:
        print(peer_line(speedups))
        shown = ", ".join(f"{shape} {x:.1f}x" for shape, x in cpu_speedups.items())
        print(
            "xml-sitemap-writer's CPU (user + sys) over urlset build's, per output byte (load "
            f"skews it less; urlset spreads its CPU over both cores, so its wall gains more): {shown}"
        )
    if over_node:
        print(node_line(over_node))
    if over_pigz:
        print(pigz_line(over_pigz))
        shown = ", ".join(f"{shape} {x:.2f}x" for shape, x in cpu_over_pigz.items())
        print(f"CPU (user + sys) of urlset build over pigz -6 -p 2's (load skews it less): {shown}")
    print(rss_line(peaks, args.rows))
    for shape in args.memory_shapes.split(",") if args.memory_rows else ():
        with tempfile.TemporaryDirectory() as out:
            taken = streamed_build(shape, args.memory_rows, SHAPES.base(shape), out)
        print(memory_line(shape, args.memory_rows, taken), flush=True)
    if args.memory_rows:
        print(f"load at the end {load()}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Build the shape matrix (bench/build_shapes.py: every loc spelling, lastmod form and
extension, and issue 26's CMS mix), one CSV per shape, with ``urlset build`` (gzip 6),
beside xml-sitemap-writer at the same gzip level, sitemap.js (gzip 6) on the extension
shapes and ``pigz -6 -p 2`` of urlset's own output bytes (the compression floor), per output
byte; the rows that left the compiled core; then a line per issue 26 target and shape.

    .venv/bin/python bench/bench_build_shapes.py [--rows 100000] [--repeat 1] [--shapes a,b]

The CSVs are made once per size in bench/out/. xml-sitemap-writer (the peers' venv,
bench/.venv-peers; bench/setup_peers.sh makes it) is given each row's loc, lastmod,
changefreq and priority (it writes no extensions and leaves out lastmods it refuses), so
speeds are MB of uncompressed XML each writes a second. sitemap.js (bench/node/build_csv.mjs,
node_modules from setup_peers.sh) is given each row with its extensions mapped to its item
fields (img, links, video, news). Every command runs in a fresh
process, commands alternating; the load is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

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


URLSET = [sys.executable, "-c", "import sys; from urlset.cli import main; sys.exit(main())"]


def run_urlset(shape: str, source: Path) -> tuple[float, bytes, str]:
    with tempfile.TemporaryDirectory() as out:
        args = ["build", str(source), "--base-url", SHAPES.base(shape), "--out", out, "-q", "-v"]
        seconds, err = timed([*URLSET, *args])
        lanes = next((line for line in err.splitlines() if line.startswith("urlset build:")), "")
        return seconds, plain_bytes(Path(out)), lanes.removeprefix("urlset build: ")


def run_peer(shape: str, source: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as out:
        seconds, _ = timed([str(PEERS_PYTHON), "-c", PEER, str(source), out, SHAPES.base(shape)])
        return seconds, len(plain_bytes(Path(out)))


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
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--shapes", default=",".join(SHAPES.SHAPES))
    args = parser.parse_args()
    shapes = args.shapes.split(",")
    peer = PEERS_PYTHON.exists()
    pigz = shutil.which("pigz")
    print(f"{args.rows:,} rows a shape, CSV in, gzip 6; load {load()}")
    print(
        "| shape | urlset s | urlset MB/s | xml-sitemap-writer MB/s | x peer | sitemap.js MB/s "
        "| x sitemap.js | pigz -6 -p 2 s | x pigz | rows the per-entry way |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    speeds: dict[str, tuple[float, float, float]] = {}  # shape -> ours, the two peers' MB/s
    for shape in shapes:
        source = make_csv(shape, args.rows)
        ours: list[float] = []
        theirs: list[float] = []
        node: list[float] = []
        floor: list[float] = []
        xml, lanes, peer_size, node_size = b"", "", 0, 0
        extended = shape in (*SHAPES.EXTENSIONS, "mix")
        for _ in range(args.repeat):
            seconds, xml, lanes = run_urlset(shape, source)
            ours.append(seconds)
            if peer:
                seconds, peer_size = run_peer(shape, source)
                theirs.append(seconds)
            ran = run_sitemap_js(shape, source) if extended else None
            if ran is not None:
                node.append(ran[0])
                node_size = ran[1]
            if pigz:
                floor.append(timed([pigz, "-6", "-p", "2", "-c"], xml)[0])
        speed = len(xml) / statistics.median(ours) / 1e6
        peer_speed = peer_size / statistics.median(theirs) / 1e6 if theirs else float("nan")
        node_speed = node_size / statistics.median(node) / 1e6 if node else float("nan")
        speeds[shape] = (speed, peer_speed, node_speed)
        pigz_seconds = statistics.median(floor) if floor else float("nan")
        print(
            f"| {shape} | {statistics.median(ours):.2f} | {speed:.1f} | {peer_speed:.1f} "
            f"| {speed / peer_speed:.1f} | {node_speed:.1f} | {speed / node_speed:.1f} "
            f"| {pigz_seconds:.2f} | {statistics.median(ours) / pigz_seconds:.1f} | {lanes} |",
            flush=True,
        )
    _targets(speeds)
    print(f"load at the end {load()}")


def _targets(speeds: dict[str, tuple[float, float, float]]) -> None:
    """A line per issue 26 target and shape: the ratio and whether it holds. xml-sitemap-writer
    writes the core fields only: it can write the loc and lastmod shapes, not the extension
    ones (its figure there is of the same rows without their extensions)."""
    plain = speeds.get("plain", (float("nan"),))[0]
    for shape, (speed, peer_speed, node_speed) in speeds.items():
        half = speed / plain
        print(f"target per output byte >= 0.5 x plain: {shape} {half:.2f} {_held(half >= 0.5)}")
        if shape not in (*SHAPES.EXTENSIONS, "mix"):
            times = speed / peer_speed
            print(f"target >= 10x xml-sitemap-writer: {shape} {times:.1f}x {_held(times >= 10)}")
        elif node_speed == node_speed:  # not NaN: sitemap.js ran
            times = speed / node_speed
            print(f"target >= 20x sitemap.js: {shape} {times:.1f}x {_held(times >= 20)}")


def _held(held: bool) -> str:
    return "held" if held else "NOT HELD"


if __name__ == "__main__":
    main()

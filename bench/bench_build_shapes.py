#!/usr/bin/env python3
"""Build the shape matrix (bench/build_shapes.py: every loc spelling, lastmod form and
extension, and issue 26's CMS mix), one CSV per shape, with ``urlset build`` (gzip 6),
beside xml-sitemap-writer at the same gzip level and ``pigz -6 -p 2`` of urlset's own output
bytes (the compression floor), per output byte; and the rows that left the compiled core.

    .venv/bin/python bench/bench_build_shapes.py [--rows 100000] [--repeat 1] [--shapes a,b]

The CSVs are made once per size in bench/out/. xml-sitemap-writer (the peers' venv,
bench/.venv-peers; bench/setup_peers.sh makes it) is given each row's loc, lastmod,
changefreq and priority (it writes no extensions and leaves out lastmods it refuses), so
speeds are MB of uncompressed XML each writes a second. Every command runs in a fresh
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
        "| shape | urlset s | urlset MB/s | xml-sitemap-writer MB/s | x peer | pigz -6 -p 2 s "
        "| x pigz | rows the per-entry way |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for shape in shapes:
        source = make_csv(shape, args.rows)
        ours: list[float] = []
        theirs: list[float] = []
        floor: list[float] = []
        xml, lanes, peer_size = b"", "", 0
        for _ in range(args.repeat):
            seconds, xml, lanes = run_urlset(shape, source)
            ours.append(seconds)
            if peer:
                seconds, peer_size = run_peer(shape, source)
                theirs.append(seconds)
            if pigz:
                floor.append(timed([pigz, "-6", "-p", "2", "-c"], xml)[0])
        speed = len(xml) / statistics.median(ours) / 1e6
        peer_speed = peer_size / statistics.median(theirs) / 1e6 if theirs else float("nan")
        pigz_seconds = statistics.median(floor) if floor else float("nan")
        print(
            f"| {shape} | {statistics.median(ours):.2f} | {speed:.1f} | {peer_speed:.1f} "
            f"| {speed / peer_speed:.1f} | {pigz_seconds:.2f} "
            f"| {statistics.median(ours) / pigz_seconds:.1f} | {lanes} |",
            flush=True,
        )
    print(f"load at the end {load()}")


if __name__ == "__main__":
    main()

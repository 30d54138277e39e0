"""Build speed by input shape (bench/shapes.py): 200,000 URLs of one shape through
``write_sitemaps`` (gzip level 6, de-duplication on) from prepared rows and from an Arrow
table, each in a fresh subprocess, best of ``--repeat`` runs; beside them the fastest writer
peer, xml-sitemap-writer (its defaults: gzip level 9, 15,000 URLs a file), given the same
prepared rows, in the peers' venv (bench/.venv-peers; skipped when it is not there).

    .venv/bin/python bench/bench_shapes.py [--urls 200000] [--repeat 3] [--no-gzip] [--rows-only]

Each cell is wall seconds and URLs/s, and for urlset the process's CPU seconds (all threads),
which move far less than wall time on a shared machine. The slowest common shape is reported
last. ``--rows-only`` measures rows alone (for code without table input).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

from shapes import SHAPES

HERE = Path(__file__).resolve().parent
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"

CHILD = r"""
import json, sys, tempfile, time
sys.path.insert(0, sys.argv[5])
import urlset._core
if not getattr(urlset._core, "OPTIMIZED", True):
    sys.exit("refusing to measure a debug build of urlset._core")
from shapes import HOST, rows, table
from urlset import write_sitemaps
n, shape, gzip, source = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1", sys.argv[4]
entries = rows(shape, n) if source == "rows" else table(shape, n)
with tempfile.TemporaryDirectory() as out:
    start, cpu = time.perf_counter(), time.process_time()
    report = write_sitemaps(entries, out, HOST, gzip=gzip)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
assert report.urls == n, report.urls
print(json.dumps({"seconds": seconds, "cpu": cpu}))
"""

# the fastest writer peer on the same prepared rows (run with the peers' Python)
PEER_CHILD = r"""
import json, sys, tempfile, time
sys.path.insert(0, sys.argv[3])
from shapes import HOST, rows
from xml_sitemap_writer import XMLSitemap
n, shape = int(sys.argv[1]), sys.argv[2]
entries = rows(shape, n)
root = HOST.rstrip("/")
with tempfile.TemporaryDirectory() as out:
    start, cpu = time.perf_counter(), time.process_time()
    with XMLSitemap(path=out, root_url=root) as sitemap:
        sitemap.add_section("shape")
        for loc, lastmod, changefreq, priority in entries:
            sitemap.add_url(loc[len(root):], lastmod=lastmod, priority=priority, changefreq=changefreq)
        count = len(sitemap)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
assert count == n, count
print(json.dumps({"seconds": seconds, "cpu": cpu}))
"""


def run(n: int, shape: str, gzip: bool, source: str) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one build in a fresh process; ``source`` "peer": the
    fastest writer peer on the same rows."""
    if source == "peer":
        command = [str(PEERS_PYTHON), "-c", PEER_CHILD, str(n), shape, str(HERE)]
    else:
        command = [sys.executable, "-c", CHILD, str(n), shape, "1" if gzip else "0", source]
        command.append(str(HERE))
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(done.stderr.strip())
    result = json.loads(done.stdout)
    return float(result["seconds"]), float(result["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-gzip", action="store_true")
    parser.add_argument("--rows-only", action="store_true")
    args = parser.parse_args()
    sources = ["rows"] if args.rows_only else ["rows", "table"]
    if PEERS_PYTHON.exists():
        sources.append("peer")
    rates: dict[tuple[str, str], float] = {}
    print(
        f"{args.urls:,} URLs a shape, gzip {'off' if args.no_gzip else 'level 6'} "
        f"(the peer: always its gzip level 9), load {os.getloadavg()[0]:.2f}"
    )
    print("| shape | " + " | ".join(f"{s} s | {s} CPU s | {s} URLs/s" for s in sources) + " |")
    print("|---|" + "---:|---:|---:|" * len(sources))
    for shape in SHAPES:
        cells = []
        for source in sources:
            runs = [run(args.urls, shape, not args.no_gzip, source) for _ in range(args.repeat)]
            best, cpu = min(runs)[0], min(c for _, c in runs)
            rates[shape, source] = args.urls / best
            cells.append(f"{best:.3f} | {cpu:.3f} | {rates[shape, source]:,.0f}")
        print(f"| {shape} | " + " | ".join(cells) + " |")
    for source in sources:
        slowest = min((k for k in rates if k[1] == source), key=rates.__getitem__)
        print(f"slowest common shape ({source}): {slowest[0]} at {rates[slowest]:,.0f} URLs/s")
    if "peer" in sources:
        for source in sources[:-1]:
            worst = min(rates[shape, source] / rates[shape, "peer"] for shape in SHAPES)
            print(f"{source} / fastest peer on the same shape, lowest: {worst:.1f}x")


if __name__ == "__main__":
    main()

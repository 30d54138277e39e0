"""Build speed by input shape (bench/shapes.py): 200,000 URLs of one shape through
``write_sitemaps`` (gzip level 6, de-duplication on) from prepared rows and from an Arrow
table, each in a fresh subprocess, best of ``--repeat`` runs.

    .venv/bin/python bench/bench_shapes.py [--urls 200000] [--repeat 3] [--no-gzip] [--rows-only]

The slowest common shape is reported last. ``--rows-only`` measures rows alone (for code
without table input).
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
    start = time.perf_counter()
    report = write_sitemaps(entries, out, HOST, gzip=gzip)
    seconds = time.perf_counter() - start
assert report.urls == n, report.urls
print(json.dumps({"seconds": seconds}))
"""


def run(n: int, shape: str, gzip: bool, source: str) -> float:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), shape, "1" if gzip else "0", source, str(HERE)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(done.stderr.strip())
    seconds: float = json.loads(done.stdout)["seconds"]
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-gzip", action="store_true")
    parser.add_argument("--rows-only", action="store_true")
    args = parser.parse_args()
    sources = ("rows",) if args.rows_only else ("rows", "table")
    rates: dict[tuple[str, str], float] = {}
    print(
        f"{args.urls:,} URLs a shape, gzip {'off' if args.no_gzip else 'level 6'}, "
        f"load {os.getloadavg()[0]:.2f}"
    )
    print("| shape | " + " | ".join(f"{s} s | {s} URLs/s" for s in sources) + " |")
    print("|---|" + "---:|---:|" * len(sources))
    for shape in SHAPES:
        cells = []
        for source in sources:
            best = min(run(args.urls, shape, not args.no_gzip, source) for _ in range(args.repeat))
            rates[shape, source] = args.urls / best
            cells.append(f"{best:.3f} | {rates[shape, source]:,.0f}")
        print(f"| {shape} | " + " | ".join(cells) + " |")
    for source in sources:
        slowest = min((k for k in rates if k[1] == source), key=rates.__getitem__)
        print(f"slowest common shape ({source}): {slowest[0]} at {rates[slowest]:,.0f} URLs/s")


if __name__ == "__main__":
    main()

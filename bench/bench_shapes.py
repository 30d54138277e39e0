"""Build speed by input shape: 200,000 prepared (loc, lastmod, changefreq, priority) rows of
one shape through ``write_sitemaps`` (gzip level 6, de-duplication on), each shape in a fresh
subprocess, best of ``--repeat`` runs.

    .venv/bin/python bench/bench_shapes.py [--urls 200000] [--repeat 3] [--no-gzip]

Shapes (each URL distinct, on https://www.example.com/):
  plain       /products/item-N, one repeated date
  amp         /search?q=N&page=2 (& escaped)
  pct         /caf%C3%A9/N-%E2%82%AC (%-escapes, kept)
  datetimes   /products/item-N with a distinct W3C datetime per URL (+02:00)
  apostrophe  /search?q=it's-N (' escaped)
  mix         the five above in turn, 20% each
The slowest common shape is reported last.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CHILD = r"""
import json, sys, tempfile, time
from datetime import datetime, timedelta, timezone
import urlset._core
if not urlset._core.OPTIMIZED:
    sys.exit("refusing to measure a debug build of urlset._core")
from urlset import write_sitemaps
n, shape, gzip = int(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
H = "https://www.example.com/"
T0 = datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=2)))
def row(kind, i):
    if kind == "plain":
        return (f"{H}products/item-{i}", "2024-05-06", "daily", "0.5")
    if kind == "amp":
        return (f"{H}search?q={i}&page=2", "2024-05-06", "daily", "0.5")
    if kind == "pct":
        return (f"{H}caf%C3%A9/{i}-%E2%82%AC", "2024-05-06", "weekly", "0.8")
    if kind == "datetimes":
        return (f"{H}products/item-{i}", (T0 + timedelta(seconds=i)).isoformat(), "daily", "0.5")
    if kind == "apostrophe":
        return (f"{H}search?q=it's-{i}", "2024-05-06", "daily", "0.5")
    raise ValueError(kind)
KINDS = ["plain", "amp", "pct", "datetimes", "apostrophe"]
if shape == "mix":
    rows = [row(KINDS[i % 5], i) for i in range(n)]
else:
    rows = [row(shape, i) for i in range(n)]
with tempfile.TemporaryDirectory() as out:
    start = time.perf_counter()
    report = write_sitemaps(rows, out, H, gzip=gzip)
    seconds = time.perf_counter() - start
assert report.urls == n, report.urls
print(json.dumps({"seconds": seconds}))
"""

SHAPES = ("plain", "amp", "pct", "datetimes", "apostrophe", "mix")


def run(n: int, shape: str, gzip: bool) -> float:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), shape, "1" if gzip else "0"],
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
    args = parser.parse_args()
    rates = {}
    print(f"{args.urls:,} prepared rows, gzip {'off' if args.no_gzip else 'level 6'}")
    print(f"{'shape':<12} {'seconds':>8} {'URLs/s':>10}")
    for shape in SHAPES:
        best = min(run(args.urls, shape, not args.no_gzip) for _ in range(args.repeat))
        rates[shape] = args.urls / best
        print(f"{shape:<12} {best:8.3f} {rates[shape]:10,.0f}")
    slowest = min(rates, key=rates.__getitem__)
    print(f"slowest common shape: {slowest} at {rates[slowest]:,.0f} URLs/s")


if __name__ == "__main__":
    main()

"""Incremental rebuild benchmark: a stable set of N URLs, 1% of them changed, spread over it.

    .venv/bin/python bench/bench_incremental.py [--urls 1000000]

The URLs are realistic: a base URL with a port, queries with '&', non-ASCII paths written
as IRIs (normalised by the build), long paths; every one with a lastmod, most with a
changefreq and a priority. The changes: 1% of the URLs, picked by a multiplicative hash of
their number (so spread evenly over the set and over its shards): 0.6% get a new lastmod,
0.2% are removed and 0.2% are replaced by new URLs. Timed, each in a fresh process:
- ``default``: today's sequential build (not stable) of the final URLs, into an empty directory;
- ``full``: a stable full build of the final URLs over the previous set (as a rebuild would);
- ``update``: ``update_sitemaps`` with the changed, added and removed URLs only (the change
  lists are made before the timer starts: finding them scans every number here, which a
  real change feed does not; the full builds generate their rows inside the timed loop, as
  bench_build.py does).
Files touched: every file whose name, inode or modification time differs after the run.
Both ways must leave identical directories (checked here).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "incremental"
BASE = "https://shop.example.com:8443/"

# the URL generator, shared by the child processes
ITEMS = r'''
BASE = "https://shop.example.com:8443/"
FREQS = ("daily", "weekly", "monthly", None)


def row(i, year=2025):
    kind = i % 4
    if kind == 0:
        loc = f"{BASE}products/item-{i}?color=red&size={i % 13}&ref=home"
    elif kind == 1:
        loc = f"{BASE}catégorie/été/{i}"
    elif kind == 2:
        loc = f"{BASE}blog/{2000 + i % 25}/{i}-" + "long-title-words-" * (3 + i % 9)
    else:
        loc = f"{BASE}search?q=chaussures+{i}&page={i % 50}"
    lastmod = f"{year}-{1 + i % 12:02d}-{1 + i % 28:02d}"
    priority = None if i % 5 == 0 else f"{(i % 10) / 10:.1f}"
    return (loc, lastmod, FREQS[i % 4], priority)


def picked(i):
    """1% of the numbers, spread evenly: 0-5 changed, 6-7 removed, 8-9 replaced by new ones."""
    h = (i * 2654435761) % 4294967296 % 1000
    return h if h < 10 else -1


def initial(n):
    return (row(i) for i in range(n))


def final(n):
    for i in range(n):
        p = picked(i)
        if p < 0:
            yield row(i)
        elif p < 6:
            yield row(i, 2026)
        elif p >= 8:
            yield row(n + i)


def changes(n):
    for i in range(n):
        p = picked(i)
        if 0 <= p < 6:
            yield row(i, 2026)
        elif p >= 8:
            yield row(n + i)


def removed(n):
    for i in range(n):
        if picked(i) >= 6:
            yield row(i)[0]
'''

CHILD = r"""
import json, resource, sys, time
sys.path.insert(0, {here!r})
from incremental_items import initial, final, changes, removed
from urlset.writing.build import write_sitemaps
from urlset.writing.update import update_sitemaps
n, out, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3]
base = "https://shop.example.com:8443/"
if mode == "update":  # the change feed (1% of n) in hand, as a feed would be; not timed
    given, gone = list(changes(n)), list(removed(n))
start = time.perf_counter()
if mode == "initial":
    report = write_sitemaps(initial(n), out, base, stable=True)
elif mode == "default":
    report = write_sitemaps(final(n), out, base)
elif mode == "full":
    report = write_sitemaps(final(n), out, base, stable=True)
else:
    report = update_sitemaps(given, out, base, remove=gone)
seconds = time.perf_counter() - start
print(json.dumps({{"seconds": seconds, "urls": report.urls, "files": len(report.files),
    "rewritten": len(report.rewritten), "changes": dict(report.changes),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""


def run(n: int, out: Path, mode: str) -> dict[str, object]:
    code = CHILD.format(here=str(OUT))
    done = subprocess.run(
        [sys.executable, "-c", code, str(n), str(out), mode],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        raise SystemExit(f"{mode} failed: {done.stderr}")
    result: dict[str, object] = json.loads(done.stdout)
    return result


def snapshot(out: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir()}


def touched(before: dict[str, tuple[int, int]], after: dict[str, tuple[int, int]]) -> int:
    return sum(1 for name, stat in after.items() if before.get(name) != stat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--update-only", action="store_true", help="time the update alone")
    args = parser.parse_args()
    n = args.urls
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "incremental_items.py").write_text(ITEMS)
    initial, full, update, default = (
        OUT / f"{kind}-{n}" for kind in ("initial", "full", "update", "default")
    )
    load = os.getloadavg()[0]
    if args.update_only:  # the update again, on a fresh copy of the initial set kept from a run
        modes = [("update", update)]
        shutil.rmtree(update, ignore_errors=True)
    else:
        modes = [("default", default), ("full", full), ("update", update)]
        for path in (initial, full, update, default):
            shutil.rmtree(path, ignore_errors=True)
        print(f"initial stable build: {run(n, initial, 'initial')}")
        shutil.copytree(initial, full, copy_function=shutil.copy2)
    shutil.copytree(initial, update, copy_function=shutil.copy2)
    time.sleep(0.05)
    results: dict[str, dict[str, object]] = {}
    for mode, out in modes:
        before = snapshot(out) if out.exists() else {}
        result = run(n, out, mode)
        result["touched"] = touched(before, snapshot(out))
        result["files_after"] = len(list(out.iterdir()))
        results[mode] = result
        print(f"{mode}: {result}")
    same = {p.name: p.read_bytes() for p in full.iterdir()} == {
        p.name: p.read_bytes() for p in update.iterdir()
    }
    seconds = {mode: float(result["seconds"]) for mode, result in results.items()}  # type: ignore[arg-type]
    speedup = seconds["full"] / seconds["update"] if "full" in seconds else None
    print(
        json.dumps(
            {
                "urls": n,
                "load_at_start": round(load, 2),
                "load_at_end": round(os.getloadavg()[0], 2),
                "full_equals_update": same,
                "update_speedup_over_stable_full": speedup and round(speedup, 2),
                **{mode: results[mode] for mode in results},
            }
        )
    )


if __name__ == "__main__":
    main()

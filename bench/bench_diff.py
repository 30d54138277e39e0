"""Diff benchmark: two snapshots of N URLs (1% added, 1% removed, 1% changed) stored through
``SnapshotStore``, then ``urlset diff``'s engine (``store.diff.compare``) timed in a fresh
process, with DuckDB's bare full outer join on the same data as the reference.

    .venv/bin/python bench/bench_diff.py [--urls 10000000] [--out bench/out/diff] [--keep]

URLs are realistic: queries with ``&``, percent-encoded non-ASCII paths (what the reader
makes of IRIs), ports, long paths; lastmods of every precision (year, month, day, datetime
with an offset), 50,000 URLs a sitemap. Changed entries: a third lastmod forward, a third
back, a third priority. Each measurement runs in its own process (time and peak RSS are its
own), with DuckDB's memory_limit at 1 GB.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import time

LOC = r"""CASE i % 5
    WHEN 0 THEN 'https://www.example.com/products/' || i || '?color=red&size=' || (i % 7) || '&ref=home'
    WHEN 1 THEN 'https://shop.example.de:8443/kategorie/k%C3%BCche/artikel-' || i
    WHEN 2 THEN 'https://www.example.jp/%E6%97%A5%E6%9C%AC/%E8%A8%98%E4%BA%8B/' || i || '.html'
    WHEN 3 THEN 'https://blog.example.org/' || (2000 + i % 25) || '/'
        || repeat('a-rather-long-article-title-', 4) || i || '?utm_source=feed&utm_medium=rss'
    ELSE 'http://example.net:8080/p?id=' || i || '&lang=fr&q=caf%C3%A9' END"""
LASTMOD = r"""CASE i % 10
    WHEN 0 THEN CAST(2000 + i % 25 AS VARCHAR)
    WHEN 1 THEN CAST(2000 + i % 25 AS VARCHAR) || '-' || lpad(CAST(1 + i % 12 AS VARCHAR), 2, '0')
    WHEN 2 THEN '2024-03-01T10:00:00+01:00'
    ELSE strftime(DATE '2020-01-01' + CAST(i % 1500 AS INTEGER), '%Y-%m-%d') END"""


def _run(n: int, side: str) -> str:
    """The SELECT of one side's text columns: run "old" holds 0..n-1; "new" drops i % 100 == 1,
    changes i % 100 == 2 and adds n..n + n/100 - 1."""
    rows = f"range(0, {n})" if side == "old" else f"range(0, {n + n // 100})"
    where = "" if side == "old" else "WHERE i % 100 <> 1 OR i >= " + str(n)
    lastmod = LASTMOD
    priority = "CASE WHEN i % 3 = 0 THEN 0.5 END"
    if side == "new":
        changed = f"i % 100 = 2 AND i < {n}"
        lastmod = f"""CASE WHEN {changed} AND (i // 100) % 3 = 0 THEN '2026-11-23T08:00:00Z'
            WHEN {changed} AND (i // 100) % 3 = 1 THEN '1999-01-01' ELSE {LASTMOD} END"""
        priority = f"CASE WHEN {changed} AND (i // 100) % 3 = 2 THEN 0.9 ELSE {priority} END"
    return f"""(SELECT {LOC} AS loc, {lastmod} AS lastmod,
        CASE WHEN i % 4 = 0 THEN 'daily' END AS changefreq, {priority} AS priority,
        NULL::VARCHAR AS extensions,
        'https://www.example.com/sitemap-' || (i // 50000) || '.xml.gz' AS sitemap
        FROM (SELECT range AS i FROM {rows}) {where})"""


def generate(db: str, n: int) -> dict[str, float]:
    from urlset.store.entries import keyed
    from urlset.store.snapshot import SnapshotStore

    times = {}
    with SnapshotStore(db) as store:
        for side in ("old", "new"):
            start = time.perf_counter()
            writer = store.begin("https://www.example.com/", "fetch")
            writer.insert_sql(keyed(_run(n, side)))
            writer.finish()
            times[f"store_{side}_s"] = time.perf_counter() - start
    return times


CHILD = r"""
import json, sys, time
mode, db = sys.argv[1], sys.argv[2]
start = time.perf_counter()
if mode == "urlset":
    from urlset.store.diff import compare
    diff = compare(db + "@1", db + "@2", examples=5)
    result = diff.counts
elif mode in ("bare-strings", "bare-keys"):
    from urlset.store.db import connect
    con = connect(db, read_only=True)
    key = "loc" if mode == "bare-strings" else "k"
    fields = "lastmod, changefreq, priority, extensions, sitemap" if key == "loc" else "h, sh"
    same = " AND ".join(f"o.{f} IS NOT DISTINCT FROM n.{f}" for f in fields.split(", "))
    row = con.execute(f'''
        SELECT count(*) FILTER (o.{key} IS NULL), count(*) FILTER (n.{key} IS NULL),
               count(*) FILTER (o.{key} IS NOT NULL AND n.{key} IS NOT NULL AND NOT ({same}))
        FROM (SELECT {key}, {fields} FROM entries WHERE run_id = 1) o
        FULL JOIN (SELECT {key}, {fields} FROM entries WHERE run_id = 2) n ON o.{key} = n.{key}
    ''').fetchall()[0]
    result = dict(added=row[0], removed=row[1], changed=row[2])
seconds = time.perf_counter() - start
# VmHWM: this process's own peak (ru_maxrss would carry the parent's across exec)
peak = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM")) / 1024
print(json.dumps({"mode": mode, "seconds": seconds, "peak_rss_mb": peak, "result": result}))
"""


def measure(mode: str, db: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, mode, db], capture_output=True, text=True, check=True
    ).stdout
    result: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--urls", type=int, default=10_000_000)
    parser.add_argument("--out", default="bench/out/diff")
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the snapshot store")
    parser.add_argument("--reuse", action="store_true", help="diff a store --keep left")
    parser.add_argument("--modes", default="urlset,bare-keys,bare-strings", help="what to time")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    db = os.path.join(args.out, f"snapshots-{args.urls}.duckdb")
    if os.path.exists(db) and not args.reuse:
        os.remove(db)
    info: dict[str, object] = {
        "urls": args.urls,
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
        "load_before": os.getloadavg(),
    }
    if not args.reuse:
        info.update(generate(db, args.urls))
    info["store_mb_per_snapshot"] = os.path.getsize(db) / 2 / 1e6
    modes = args.modes.split(",")
    runs: dict[str, list[dict[str, object]]] = {mode: [] for mode in modes}
    for _ in range(args.repeat):  # alternating, so that each mode sees the same load
        for mode in modes:
            runs[mode].append(measure(mode, db))
    info.update(runs)
    info["load_after"] = os.getloadavg()
    print(json.dumps(info, indent=1))
    if not args.keep:
        os.remove(db)
        shutil.rmtree(db + ".cache", ignore_errors=True)


if __name__ == "__main__":
    main()

"""Read benchmark: bytes of a sitemap to ``Url`` values, urlset next to its peers.

    .venv/bin/python bench/bench_read.py [--repeat 3] [--no-peers] [--peers-big]

Files (deterministic, from bench/peers/run.py's ``make_file``: indented urlset, all four
fields, W3C datetimes) go to bench/out/read/: 50,000 URLs (9.5 MB), the same gzipped, and
275,000 URLs (about 50 MiB). Each urlset measurement runs in a fresh subprocess that iterates
``urlset.reading.reader.read_file`` without keeping the entries, and reports seconds (wall and CPU),
URLs/s, MB/s and the growth of its peak RSS (VmHWM) while reading (the entries are handed
back a chunk at a time and dropped, except in the "kept-in-list" row). The full lane alone
(lxml for every record) is measured too. Peers read the same files through
bench/peers/run.py in the same run (skipped if bench/setup_peers.sh has not been run).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any, Required, TypedDict

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "read"
sys.path.insert(0, str(HERE))

CHILD = r"""
import json, os, sys, time
from urlset.reading.reader import SitemapReader
def peak_kib():
    # this process's own high-water mark: ru_maxrss would carry the parent's over fork + exec
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
path, fast, keep = sys.argv[1], sys.argv[2] == "fast", sys.argv[3] == "keep"
rss_before = peak_kib()
wall, cpu = time.perf_counter(), time.process_time()
reader = SitemapReader(path, _fast=fast)
kept = []
events = 0
with open(path, "rb") as f:
    while True:
        chunk = f.read(262144)
        out = reader.feed(chunk) if chunk else reader.close()
        events += len(out)
        if keep:
            kept.extend(out)
        if not chunk:
            break
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({"seconds": wall, "cpu_seconds": cpu, "count": reader.entries,
    "issues": events - reader.entries, "bytes": os.path.getsize(path),
    "rss_growth_mb": (peak_kib() - rss_before) / 1024}))
"""


class Measured(TypedDict, total=False):
    """One measurement: what CHILD prints (the required keys), and the figures ``measure`` adds."""

    seconds: Required[float]
    cpu_seconds: Required[float]
    count: Required[int]
    issues: Required[int]
    bytes: Required[int]
    rss_growth_mb: Required[float]
    runs_seconds: list[float]
    urls_per_s: float
    urls_per_cpu_s: float
    mb_per_s: float


def measure(path: Path, *, fast: bool = True, keep: bool = False, repeat: int = 3) -> Measured:
    runs: list[Measured] = []
    for _ in range(repeat):
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                CHILD,
                str(path),
                "fast" if fast else "full",
                "keep" if keep else "stream",
            ],
            capture_output=True,
            text=True,
            check=True,
        )
        runs.append(json.loads(done.stdout))
    # the median run, as bench/peers/run.py reports its peers (--repeat)
    best = sorted(runs, key=lambda r: r["seconds"])[len(runs) // 2]
    best["runs_seconds"] = [round(r["seconds"], 4) for r in runs]
    best["rss_growth_mb"] = max(r["rss_growth_mb"] for r in runs)
    best["urls_per_s"] = best["count"] / best["seconds"]
    best["urls_per_cpu_s"] = best["count"] / best["cpu_seconds"]
    best["mb_per_s"] = best["bytes"] / best["seconds"] / 1e6
    return best


def files() -> dict[str, Path]:
    from peers import client

    OUT.mkdir(parents=True, exist_ok=True)
    made = {
        "50k": (OUT / "urls-50k.xml", 50_000, False),
        "50k-gz": (OUT / "urls-50k.xml.gz", 50_000, True),
        "50mib": (OUT / "urls-275k.xml", 275_000, False),
    }
    paths = {}
    for name, (path, n, gz) in made.items():
        if not path.exists():
            client.make_file(path, n, gz)
        paths[name] = path
    images = OUT / "images-50k.xml"
    if not images.exists():
        images.write_bytes(image_sitemap(50_000))
    paths["images-50mib"] = images
    mixed = OUT / "mixed-50k.xml"
    if not mixed.exists():
        mixed.write_bytes(mixed_sitemap(50_000))
    paths["mixed-50k"] = mixed
    return paths


def mixed_sitemap(n: int) -> bytes:
    """n URLs of the shapes real sitemaps hold, all four fields, one shape after another:
    distinct lastmod datetimes (one a minute, some with fractions of a second), queries with
    '&' and quotes, percent-escapes, non-ASCII paths and host names, ports of any length, and
    locs near the 2,048-character limit. Most are plain; the rest the reader must judge
    (normalised and reported)."""
    start = dt.datetime(2024, 3, 1, tzinfo=dt.UTC)
    hosts = ["www.example.com", "shop.example.com:8443", "example.org:44300", "bücher.example"]
    freqs = ["daily", "weekly", "monthly", "hourly"]
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    ]
    for i in range(n):
        host = hosts[i % len(hosts)]
        path = [
            f"products/{i}?color=red&amp;size={i % 7}",
            f"caf%C3%A9/men%C3%BC-{i}",
            f"café/menü-{i}",
            f"search?q=it&apos;s&amp;page={i}",
            f"p/{i}/" + "x" * 1990,
            f"a/b/c/{i}.html",
        ][i % 6]
        when = start + dt.timedelta(minutes=i)
        lastmod = when.isoformat() if i % 5 else when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        parts.append(
            f"  <url>\n    <loc>https://{host}/{path}</loc>\n    <lastmod>{lastmod}</lastmod>\n"
            f"    <changefreq>{freqs[i % 4]}</changefreq>\n"
            f"    <priority>0.{i % 10}</priority>\n  </url>\n"
        )
    parts.append("</urlset>\n")
    return "".join(parts).encode()


def mixed_with_images(n: int, every: int) -> bytes:
    """``mixed_sitemap(n)`` with an ``<image:image>`` (its loc only) in every ``every``th URL
    (0: none; the root declares the image namespace either way)."""
    head, _, body = mixed_sitemap(n).partition(b"\n  <url>\n")
    records = (b"  <url>\n" + body).split(b"  <url>\n")[1:]
    image = b"    <image:image><image:loc>https://www.example.com/i/%d.jpg</image:loc></image:image>\n  </url>\n"
    for i in range(0, len(records), every or len(records) + 1):
        records[i] = records[i].replace(b"  </url>\n", image % i, 1)
    head = head.replace(
        b'0.9">', b'0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
    )
    return head + b"\n" + b"".join(b"  <url>\n" + r for r in records)


def image_sitemap(n: int) -> bytes:
    """n URLs at the protocol's limits: 50,000 URLs with 4 images each, about 50 MiB."""
    parts = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/'
        'sitemap/0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">\n'
    ]
    for i in range(n):
        images = "".join(
            "    <image:image>\n"
            f"      <image:loc>https://cdn.example.com/images/products/item-{i}/photo-{k}"
            "-large-1600x1200.jpg</image:loc>\n"
            f"      <image:title>Product {i}, photo {k} of 4, front view</image:title>\n"
            "    </image:image>\n"
            for k in range(4)
        )
        parts.append(
            f"  <url>\n    <loc>https://www.example.com/products/item-{i}</loc>\n"
            f"    <lastmod>2024-01-{1 + i % 28:02d}</lastmod>\n{images}  </url>\n"
        )
    parts.append("</urlset>\n")
    return "".join(parts).encode()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--peers-big", action="store_true", help="peers read the 50 MiB file too")
    args = parser.parse_args()
    import urlset._core

    if not urlset._core.OPTIMIZED:
        sys.exit("bench_read: urlset._core is a debug build; pip install -e . builds it in release")
    paths = files()
    report: dict[str, Any] = {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}",
        "urlset": {},
        "peers": {},
    }
    for name, path in paths.items():
        report["urlset"][name] = measure(path, repeat=args.repeat)
        print(name, "urlset", json.dumps(report["urlset"][name]), flush=True)
    report["urlset"]["50k-full-lane"] = measure(paths["50k"], fast=False, repeat=args.repeat)
    report["urlset"]["images-50mib-full-lane"] = measure(
        paths["images-50mib"], fast=False, repeat=args.repeat
    )
    report["urlset"]["50k-kept-in-list"] = measure(paths["50k"], keep=True, repeat=args.repeat)
    print("extra", json.dumps(report["urlset"]["50k-full-lane"]), flush=True)
    if not args.no_peers:
        from peers import client

        targets = ["50k", "50k-gz", "mixed-50k"] + (["50mib"] if args.peers_big else [])
        for name in targets:
            rows = client.run_peers("read", str(paths[name]), repeat=args.repeat, timeout=900)
            report["peers"][name] = rows
            for row in rows:
                print(name, row.get("peer"), json.dumps(row), flush=True)
    (OUT / "results.json").write_text(json.dumps(report, indent=1))
    print_table(report)


def print_table(report: dict[str, Any]) -> None:
    print(f"\n{report['date']}, {report['machine']}\n")
    print("| file | reader | URLs | seconds | URLs/s | MB/s | peak RSS growth | vs urlset |")
    print("|---|---|---|---|---|---|---|---|")
    for name, row in report["urlset"].items():
        row.setdefault("mb_per_s", 0.0)
        print(
            f"| {name} | urlset | {row['count']:,} | {row['seconds']:.3f} | {row['urls_per_s']:,.0f} "
            f"| {row['mb_per_s']:.1f} | {row['rss_growth_mb']:.1f} MB | |"
        )
    for name, rows in report["peers"].items():
        ours = report["urlset"][name]["seconds"]
        for row in rows:
            if row.get("error"):
                print(f"| {name} | {row['peer']} | error: {row['error'][:60]} | | | | | |")
                continue
            seconds = row["seconds"]
            print(
                f"| {name} | {row['peer']} {row.get('version', '')} | {row['count']:,} | {seconds:.3f} "
                f"| {row['count'] / seconds:,.0f} | | {row.get('peak_rss_mb', 0):.0f} MB (process) "
                f"| {seconds / ours:.1f}x slower |"
            )


if __name__ == "__main__":
    main()

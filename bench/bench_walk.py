"""Directory walk benchmark: a generated static site of N HTML files -> a sitemap set.

    .venv/bin/python bench/bench_walk.py [--files 100000]

The site (bench/out/walk/site, written once and reused) has N pages of ~3 KB, 100 to a
folder, each head with a charset, title, description, stylesheet, canonical and two
hreflang alternates; 1 in 50 is noindex. Timed in a fresh process: the walk alone
(``DirectoryWalk.batches``, lastmod from mtime), and ``urlset build DIR`` end to end with
its peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "walk"
BASE = "https://www.example.com/"

WALK = r"""
import json, resource, sys, time
from urlset.sources.directory import DirectoryOptions, DirectoryWalk
start = time.perf_counter()
walk = DirectoryWalk(sys.argv[1], "https://www.example.com/", DirectoryOptions(lastmod="mtime"))
count = sum(len(batch) for batch in walk.batches())
print(json.dumps({"seconds": time.perf_counter() - start, "entries": count,
    "left_out": sum(walk.report.left_out.values()),
    "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def page(n: int) -> str:
    folder = f"section-{n // 100}"
    robots = '<meta name="robots" content="noindex">' if n % 50 == 49 else ""
    return (
        f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Page {n} – Café</title>'
        f'<meta name="description" content="Page {n} of the generated site, with text.">'
        f'<link rel="stylesheet" href="/css/site.css">{robots}'
        f'<link rel="canonical" href="{BASE}{folder}/page-{n}.html">'
        f'<link rel="alternate" hreflang="en" href="{BASE}{folder}/page-{n}.html">'
        f'<link rel="alternate" hreflang="de" href="{BASE}de/{folder}/page-{n}.html">'
        "</head><body><main>"
        + "<p>Lorem ipsum dolor sit amet, straße.</p>" * 60
        + "</main></body></html>"
    )


def make_site(files: int) -> Path:
    site = OUT / f"site-{files}"
    marker = site / ".complete"
    if marker.exists():
        return site
    for n in range(files):
        folder = site / f"section-{n // 100}"
        if n % 100 == 0:
            folder.mkdir(parents=True, exist_ok=True)
        (folder / f"page-{n}.html").write_text(page(n), encoding="utf-8")
    marker.write_text("")
    return site


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=100_000)
    args = parser.parse_args()
    site = make_site(args.files)
    print(f"{platform.machine()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    walk = json.loads(
        subprocess.run(
            [sys.executable, "-c", WALK, str(site)], check=True, capture_output=True, text=True
        ).stdout
    )
    print(
        f"walk: {walk['entries']:,} entries ({walk['left_out']:,} left out) in "
        f"{walk['seconds']:.2f} s = {args.files / walk['seconds']:,.0f} files/s, "
        f"peak RSS {walk['peak_rss_mb']:.0f} MB"
    )
    out = OUT / "set"
    command = [str(Path(sys.executable).parent / "urlset"), "build", str(site), "--base-url", BASE]
    start = time.perf_counter()
    done = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *command, "--out", str(out), "-q", "--lastmod", "mtime"],
        check=True,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    rss = int(done.stderr.strip().splitlines()[-1]) / 1024
    print(
        f"urlset build DIR: {seconds:.2f} s = {args.files / seconds:,.0f} files/s, "
        f"peak RSS {rss:.0f} MB"
    )


if __name__ == "__main__":
    main()

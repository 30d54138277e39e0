#!/usr/bin/env python3
"""Build a CMS export, as issue 26 measured it: ``urlset build`` of a CSV with every shape a
site's export holds, beside xml-sitemap-writer at the same gzip level and beside compressing
urlset's own output bytes (``gzip -6``, ``pigz -6 -p 2``: the compression floor).

    .venv/bin/python bench/bench_cms_export.py [--rows 1000000] [--repeat 3]
        [--compare CMD]   another urlset command (an older checkout's), its runs alternating

The CSV (bench/out/cms-export.csv, made once per size): a distinct lastmod per row with the
offsets Z, +01:00, -05:00 and +05:30 in turn and a third of them with a .mmm or .ffffff
fraction; 5% of paths with raw non-ASCII segments (IRIs); 10% of queries with ``&`` and ``'``;
changefreq and priority in half the rows; an ``extensions`` column with one image on every
10th row. xml-sitemap-writer (the peers' venv, bench/.venv-peers) is given the same rows'
loc, lastmod, changefreq and priority (it writes no images, and leaves out the lastmods it
does not take) with its gzip level set to 6; so the figures are per output byte too (the
uncompressed XML each wrote).

Every command runs in a fresh process; wall seconds are the median of ``--repeat`` runs, the
commands alternating so that load drifting over the run falls on all of them; the load is
printed at the start and the end. Then one line per target of issue 26 (build_targets.py):
the speed-up over the peer, the wall time over pigz's, urlset's peak RSS.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from build_targets import URLSET, measured, peer_line, pigz_line, rss_line

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
PEERS_PYTHON = HERE / ".venv-peers" / "bin" / "python"
BASE = "https://www.example.com/"
OFFSETS = ("Z", "+01:00", "-05:00", "+05:30")
FREQS = ("daily", "weekly", "monthly")

PEER = r"""
import csv, sys, time
from xml_sitemap_writer import XMLSitemap
XMLSitemap.GZIP_COMPRESSION_LEVEL = 6  # like for like: urlset writes level 6
source, out = sys.argv[1], sys.argv[2]
t0 = time.perf_counter()
with open(source, newline="", encoding="utf-8") as f, XMLSitemap(path=out, root_url="https://www.example.com") as sitemap:
    sitemap.add_section("pages")
    for row in csv.DictReader(f):
        sitemap.add_url(row["loc"][len("https://www.example.com"):], lastmod=row["lastmod"] or None,
                        priority=row["priority"] or None, changefreq=row["changefreq"] or None)
print(time.perf_counter() - t0)
"""


def lastmod(i: int) -> str:
    day, second = divmod(i, 86_400)
    text = f"2024-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T{second // 3600:02d}:"
    text += f"{second // 60 % 60:02d}:{second % 60:02d}"
    if i % 3 == 1:
        text += f".{i % 1000:03d}"
    elif i % 3 == 2:
        text += f".{i % 1_000_000:06d}"
    return text + OFFSETS[i % 4]


def row(i: int) -> list[str]:
    path = f"products/item-{i}"
    if i % 20 == 7:
        path = f"produkte/bücher-{i}/größe"  # a raw IRI: not yet percent-encoded
    query = f"?q=it's&page={i}" if i % 10 == 3 else ""
    freq, priority = (FREQS[i % 3], f"0.{i % 10}") if i % 2 else ("", "")
    images = (
        json.dumps({"images": [{"loc": f"{BASE}img/{i}.jpg"}]}, separators=(",", ":"))
        if i % 10 == 0
        else ""
    )
    return [BASE + path + query, lastmod(i), freq, priority, images]


def make_csv(rows: int) -> Path:
    import csv

    OUT.mkdir(exist_ok=True)
    path = OUT / f"cms-export-{rows}.csv"
    if not path.exists():
        with open(path, "w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(["loc", "lastmod", "changefreq", "priority", "extensions"])
            writer.writerows(row(i) for i in range(rows))
    return path


def plain_bytes(directory: Path) -> bytes:
    """The uncompressed XML of every sitemap file in ``directory``."""
    out = []
    for path in sorted(directory.rglob("*.xml*")):
        data = path.read_bytes()
        out.append(gzip.decompress(data) if path.name.endswith(".gz") else data)
    return b"".join(out)


def timed(command: list[str], stdin: bytes | None = None) -> float:
    start = time.perf_counter()
    # (xml-sitemap-writer says on stderr that it refuses a lastmod with a fraction or offset)
    subprocess.run(
        command, input=stdin, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - start


PEAKS: dict[str, float] = {}  # peak RSS (MB) of each urlset command's builds


def run_urlset(command: list[str], source: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as out:
        taken, _ = measured(
            [*command, "build", str(source), "--base-url", BASE, "--out", out, "-q"]
        )
        key = " ".join(command)
        PEAKS[key] = max(PEAKS.get(key, 0.0), taken.peak_mb)
        return taken.seconds, len(plain_bytes(Path(out)))


def run_peer(source: Path) -> tuple[float, int]:
    with tempfile.TemporaryDirectory() as out:
        seconds = timed([str(PEERS_PYTHON), "-c", PEER, str(source), out])
        return seconds, len(plain_bytes(Path(out)))


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare", help="another urlset command, its runs alternating")
    args = parser.parse_args()
    source = make_csv(args.rows)
    urlset = URLSET
    runs: dict[str, list[float]] = {}
    sizes: dict[str, int] = {}
    commands: dict[str, object] = {"urlset": lambda: run_urlset(urlset, source)}
    if args.compare:
        commands["urlset (compared)"] = lambda: run_urlset(args.compare.split(), source)
    if PEERS_PYTHON.exists():
        commands["xml-sitemap-writer (gzip 6)"] = lambda: run_peer(source)
    with tempfile.TemporaryDirectory() as out:  # urlset's own output, for the floor
        subprocess.run([*urlset, "build", str(source), "--base-url", BASE, "--out", out, "-q"])
        xml = plain_bytes(Path(out))
    floors = {"gzip -6 of urlset's XML": ["gzip", "-6", "-c"]}
    if shutil.which("pigz"):
        floors["pigz -6 -p 2 of urlset's XML"] = ["pigz", "-6", "-p", "2", "-c"]
    print(f"{args.rows:,} rows, {source.stat().st_size / 1e6:.0f} MB of CSV; load {load()}")
    for _ in range(args.repeat):
        for name, run in commands.items():
            seconds, size = run()  # type: ignore[operator]
            runs.setdefault(name, []).append(seconds)
            sizes[name] = size
        for name, command in floors.items():
            runs.setdefault(name, []).append(timed(command, xml))
            sizes[name] = len(xml)
    print(f"load at the end {load()}")
    speed = sizes["urlset"] / statistics.median(runs["urlset"]) / 1e6  # urlset's MB of XML/s
    print(f"| work | seconds (median of {args.repeat}) | MB of XML/s | urlset's speed x |")
    print("|---|---:|---:|---:|")
    for name, times in runs.items():
        seconds = statistics.median(times)
        per_byte = sizes[name] / seconds / 1e6
        print(f"| {name} | {seconds:.2f} | {per_byte:.1f} | {speed / per_byte:.2f} |")
    peer = "xml-sitemap-writer (gzip 6)"
    if peer in runs:
        print(peer_line({"cms mix": speed / (sizes[peer] / statistics.median(runs[peer]) / 1e6)}))
    floor = "pigz -6 -p 2 of urlset's XML"
    if floor in runs:
        ratio = statistics.median(runs["urlset"]) / statistics.median(runs[floor])
        print(pigz_line({"cms mix": ratio}))
    print(rss_line({"urlset": PEAKS[" ".join(urlset)]}, args.rows))


if __name__ == "__main__":
    main()

"""Read side by side: urlset and its four Python peers on the same files, alternating.

    .venv/bin/python bench/bench_read_side.py [--rounds 3] [--before PYTHON:SRC] [--no-peers]
        [--api batches|feed] [--only 50k,50k-gz,mixed,mixed-gz]

On a shared machine whose wall times swing 2x, ratios only mean something measured side by
side: each round runs, for each file, every peer once (``bench/peers/run.py PEER read FILE``,
the peer's own parse time after its imports) and then urlset (the file in 256 KiB chunks,
best of 5 in one fresh process), and ``--before`` (another installation's python and src
folder, e.g. the main tree's) right after it. urlset's entries are handed back and dropped:
with ``--api batches`` (the default, what ``urlset.read`` does) by
``SitemapReader.feed_batches``, a list per chunk of plain XML or per inflated piece of a
gzip stream; with ``--api feed`` by ``SitemapReader.feed``, one list per chunk (a 256 KiB
chunk of gzip holds ~5 MB of XML: ~26,000 entries held at once). An installation without
``feed_batches`` is measured with ``feed``. Files: bench_read.py's 50,000-URL file (all
four fields), the same gzipped, and its mixed file (``mixed_sitemap``: the shapes real
sitemaps hold), plain and gzipped. The table gives each reader's least time over the rounds
and the ratios peer / urlset."""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

from bench_read import OUT, files

HERE = Path(__file__).resolve().parent
PEERS = ("scrapy", "usp", "advertools", "trafilatura")
PEER_PYTHON = HERE / ".venv-peers" / "bin" / "python"

CHILD = r"""
import json, sys, time
from collections import deque
sys.path.insert(0, sys.argv[2])
from urlset.reading.reader import SitemapReader
data = open(sys.argv[1], "rb").read()
batches = sys.argv[3] == "batches" and hasattr(SitemapReader, "feed_batches")
best, count = float("inf"), 0
for _ in range(5):
    t = time.perf_counter()
    reader = SitemapReader(sys.argv[1])
    for i in range(0, len(data), 262144):
        if batches:  # each list dropped as it comes (not held while the next is read)
            deque(reader.feed_batches(data[i : i + 262144]), maxlen=0)
        else:
            reader.feed(data[i : i + 262144])
    reader.close()
    best = min(best, time.perf_counter() - t)
    count = reader.entries
print(json.dumps({"seconds": best, "count": count}))
"""


def urlset_once(python: str, src: str, path: Path, api: str) -> float:
    done = subprocess.run(
        [python, "-c", CHILD, str(path), src, api], capture_output=True, text=True, check=True
    )
    row = json.loads(done.stdout)
    assert row["count"] == 50_000, row
    return float(row["seconds"])


def peer_once(peer: str, path: Path) -> float | None:
    done = subprocess.run(
        [str(PEER_PYTHON), str(HERE / "peers" / "run.py"), peer, "read", str(path)],
        capture_output=True,
        text=True,
        timeout=900,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines or lines[-1].get("error"):
        return None
    return float(lines[-1]["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--before", help="PYTHON:SRC of the installation to compare with")
    parser.add_argument("--no-peers", action="store_true")
    parser.add_argument("--api", choices=("batches", "feed"), default="batches")
    parser.add_argument("--only", help="comma-separated file names (50k,50k-gz,mixed,mixed-gz)")
    args = parser.parse_args()
    made = files()
    mixed_gz = OUT / "mixed-50k.xml.gz"
    if not mixed_gz.exists():
        mixed_gz.write_bytes(gzip.compress(made["mixed-50k"].read_bytes(), mtime=0))
    paths = {
        "50k": made["50k"],
        "50k-gz": made["50k-gz"],
        "mixed": made["mixed-50k"],
        "mixed-gz": mixed_gz,
    }
    if args.only:
        paths = {k: v for k, v in paths.items() if k in args.only.split(",")}
    readers: list[tuple[str, str, str]] = [("urlset", sys.executable, str(HERE.parent / "src"))]
    if args.before:
        python, src = args.before.split(":", 1)
        readers.append(("urlset before", python, src))
    peers = () if args.no_peers or not PEER_PYTHON.exists() else PEERS
    times: dict[tuple[str, str], list[float]] = {}
    for r in range(args.rounds):
        for name, path in paths.items():
            for peer in peers:
                t = peer_once(peer, path)
                if t is not None:
                    times.setdefault((name, peer), []).append(t)
            for label, python, src in readers:
                times.setdefault((name, label), []).append(urlset_once(python, src, path, args.api))
            row = {f"{k[1]}": round(min(v), 4) for k, v in times.items() if k[0] == name}
            print(f"round {r + 1} {name}", json.dumps(row), flush=True)
    print("\n| file | reader | least seconds | all rounds | peer / urlset |")
    print("|---|---|---:|---|---:|")
    for name in paths:
        ours = min(times[(name, "urlset")])
        for (file, reader), runs in times.items():
            if file != name:
                continue
            ratio = "" if reader == "urlset" else f"{min(runs) / ours:.1f}x"
            shown = ", ".join(f"{t:.3f}" for t in runs)
            print(f"| {name} | {reader} | {min(runs):.4f} | {shown} | {ratio} |")


if __name__ == "__main__":
    main()

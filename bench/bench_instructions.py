"""Instructions per URL of a build, counted by valgrind (callgrind), so that figures hold on
a shared, noisy machine where timings do not.

    .venv/bin/python bench/bench_instructions.py [--urls 100000] [--gzip] [--python PATH]

For each shape (bench/shapes.py) and source (prepared rows, Arrow table), a child process
runs under ``valgrind --tool=callgrind`` twice: once preparing the input and building, once
only preparing it (both first build one URL, so imports and first-use costs cancel); the
difference over the URL count is the build's instructions per URL
(every thread: rendering, de-duplication, splitting, compression when ``--gzip``, hashing,
publishing). ``--python`` measures another installation (an older checkout's venv) the same
way, ``--src`` another checkout's src folder; a source it cannot build from is skipped.
``--sources csv,jsonl`` measures the command's path: the shape's rows written to a file
(in both runs), then read as ``urlset build FILE`` reads it and built.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from shapes import SHAPES

HERE = Path(__file__).resolve().parent

CHILD = r"""
import sys, tempfile
sys.path.insert(0, sys.argv[5])
import urlset._core
if not getattr(urlset._core, "OPTIMIZED", True):
    sys.exit("refusing to measure a debug build of urlset._core")
from shapes import HOST, rows, table
from urlset import write_sitemaps
n, shape, source, build = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4] == "1"
gzip = sys.argv[6] == "1"
if source in ("csv", "jsonl"):  # as `urlset build FILE` reads it: parsed, then built
    import csv, json
    from itertools import chain
    from urlset.writing.sources import iter_batches, open_source
    keys = ("loc", "lastmod", "changefreq", "priority")
    def written(count):
        path = tempfile.mktemp(suffix="." + source)
        with open(path, "w", encoding="utf-8", newline="") as f:
            if source == "csv":
                csv.writer(f).writerows([keys, *rows(shape, count)])
            else:
                f.writelines(json.dumps(dict(zip(keys, r))) + "\n" for r in rows(shape, count))
        return path
    def read(path):
        return chain.from_iterable(iter_batches(open_source(path), source, path, rows=True))
    small, path = written(1), written(n)
    entries = read(path)
else:
    entries = rows(shape, n) if source == "rows" else table(shape, n)
    small = None
with tempfile.TemporaryDirectory() as out:  # imports and first-use costs, in both runs
    first = read(small) if small else rows(shape, 1) if source == "rows" else table(shape, 1)
    write_sitemaps(first, out, HOST, gzip=gzip)
if build:
    with tempfile.TemporaryDirectory() as out:
        report = write_sitemaps(entries, out, HOST, gzip=gzip)
    assert report.urls == n, report.urls
"""


def instructions(
    python: str, n: int, shape: str, source: str, build: bool, gzip: bool, src: str | None = None
) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            [
                "valgrind",
                "--tool=callgrind",
                f"--callgrind-out-file={out}",
                python,
                "-c",
                CHILD,
                str(n),
                shape,
                source,
                "1" if build else "0",
                str(HERE),
                "1" if gzip else "0",
            ],
            capture_output=True,
            text=True,
            check=False,
            env=os.environ if src is None else {**os.environ, "PYTHONPATH": src},
        )
        if done.returncode:
            raise RuntimeError(done.stderr.strip().splitlines()[-1])
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
        assert found is not None
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=100_000)
    parser.add_argument("--gzip", action="store_true")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--shapes", default=",".join(SHAPES))
    parser.add_argument(
        "--sources",
        default="rows,table",
        help="rows, table, and csv or jsonl: a file read as `urlset build FILE` reads it",
    )
    parser.add_argument("--src", help="measure the urlset of this src folder (PYTHONPATH)")
    args = parser.parse_args()
    n = args.urls
    print(
        f"{n:,} URLs a shape, gzip {'level 6' if args.gzip else 'off'}, {args.python}"
        + (f", src {args.src}" if args.src else "")
    )
    print("| shape | source | instructions per URL |\n|---|---|---:|")
    for shape in args.shapes.split(","):
        for source in args.sources.split(","):
            try:
                built = instructions(args.python, n, shape, source, True, args.gzip, args.src)
                prepared = instructions(args.python, n, shape, source, False, args.gzip, args.src)
            except RuntimeError as exc:
                print(f"| {shape} | {source} | ({exc}) |")
                continue
            print(f"| {shape} | {source} | {(built - prepared) / n:,.0f} |")


if __name__ == "__main__":
    main()

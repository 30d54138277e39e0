#!/usr/bin/env python3
"""The hreflang set rule's targets of issue 26, alone: the peak RSS of ``urlset build`` of
hreflang rows (CSV streamed on stdin, bench/build_shapes.py's hreflang shape: each page
names itself and a variant outside the set) at each size, against the 100 MB every shape
must stay under at 10M rows; and ``check`` against ``read`` on the hreflang shape's urlset
(bench/read_shapes.py), CPU (user + system) and peak RSS, runs alternated.

    .venv/bin/python bench/bench_hreflang_set.py [--rows 200000 1000000 10000000]
        [--urls 200000] [--repeat 3]

One line per target, as bench_build_shapes.py and bench_side_by_side.py print them; the load
is printed at the start and the end.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile

from bench_side_by_side import OUT, measure, shape_file
from build_shapes import base
from build_targets import memory_line, streamed_build

NOW = "2026-01-01T00:00:00Z"


def builds(sizes: list[int]) -> None:
    for rows in sizes:
        with tempfile.TemporaryDirectory() as out:
            taken = streamed_build("hreflang", rows, base("hreflang"), out)
        print(memory_line("hreflang", rows, taken), flush=True)


def check_against_read(n: int, repeat: int) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    path = str(shape_file("hreflang", n))
    measure(["check", path, "-o", os.devnull])  # the modules byte-compiled once
    reads, checks = [], []
    for _ in range(repeat):
        reads.append(measure(["read", path, "-o", os.devnull, "-q"]))
        checks.append(measure(["check", path, "--now", NOW, "-o", os.devnull]))
    read_cpu, check_cpu = (statistics.median(run[0] for run in runs) for runs in (reads, checks))
    read_rss, check_rss = (statistics.median(run[1] for run in runs) for runs in (reads, checks))
    cpu, memory = check_cpu / read_cpu, check_rss / read_rss
    print(
        f"check of the {n:,}-URL hreflang shape vs read: CPU {check_cpu:.2f} / {read_cpu:.2f} s "
        f"= {cpu:.2f}x (target 1.5x: {'met' if cpu <= 1.5 else 'MISSED'}), peak RSS "
        f"{check_rss / 1024:.0f} / {read_rss / 1024:.0f} MB = {memory:.2f}x (target 2x: "
        f"{'met' if memory <= 2 else 'MISSED'})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="*", default=[200_000, 1_000_000])
    parser.add_argument("--urls", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load {os.getloadavg()}")
    builds(args.rows)
    check_against_read(args.urls, args.repeat)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()

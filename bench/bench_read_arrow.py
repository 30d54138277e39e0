"""Arrow benchmark: a sitemap's bytes to a ``pyarrow.Table`` (urlset.reading.arrow.read_arrow),
next to ``urlset.read`` into a list of ``Url`` values on the same file in the same run.

    .venv/bin/python bench/bench_read_arrow.py [--repeat 5] [--rounds 1] [--before PYTHON:SRC]

Files are bench_read.py's (bench/out/read/: 50,000 URLs of all four fields, plain and
gzipped). Each measurement runs in a fresh subprocess, timing the best of ``--repeat`` reads
of the whole file (wall and CPU seconds of the process, all its threads; URLs/s); the
machine's load average is printed with the figures. ``--before`` (another installation's
python and src folder, e.g. the main tree's) is measured right after this one, for each
file and reader, in each of ``--rounds`` rounds; the table gives the least over the rounds.
Refuses a debug build of the compiled core.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CHILD = r"""
import json, sys, time
mode, path, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
if mode == "arrow":
    from urlset.reading.arrow import read_arrow
    def run():
        return read_arrow(path).num_rows
else:
    from urlset.reading.reader import read_file
    def run():
        return len(list(read_file(path)))
best = None
for _ in range(repeat):
    wall, cpu = time.perf_counter(), time.process_time()
    count = run()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if best is None:
        best = {"seconds": wall, "cpu_seconds": cpu, "count": count}
    best["seconds"] = min(best["seconds"], wall)
    best["cpu_seconds"] = min(best["cpu_seconds"], cpu)
print(json.dumps(best))
"""

MODES = {"arrow": "read_arrow -> pyarrow.Table", "list": "read_file -> list of Url"}


def measure(mode: str, path: Path, repeat: int, python: str, src: str) -> dict[str, Any]:
    out = subprocess.run(
        [python, "-c", CHILD, mode, str(path), str(repeat)],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": src},
    ).stdout
    row: dict[str, Any] = json.loads(out)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--before", help="PYTHON:SRC of the installation to compare with")
    args = parser.parse_args()
    import urlset._core

    if not urlset._core.OPTIMIZED:
        sys.exit("bench_read_arrow: urlset._core is a debug build; pip install -e . builds it")
    from bench_read import files

    paths = files()
    readers = [("", sys.executable, str(HERE.parent / "src"))]
    if args.before:
        python, src = args.before.split(":", 1)
        readers.append((" (before)", python, src))
    print(f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}")
    print(f"load average before: {os.getloadavg()[0]:.2f}\n")
    best: dict[tuple[str, str, str], dict[str, Any]] = {}
    for _ in range(args.rounds):
        for name in ("50k", "50k-gz"):
            for mode in MODES:
                for label, python, src in readers:
                    row = measure(mode, paths[name], args.repeat, python, src)
                    kept = best.setdefault((name, mode, label), row)
                    for key in ("seconds", "cpu_seconds"):
                        kept[key] = min(kept[key], row[key])
    print("| file | reader | URLs | seconds | CPU seconds | URLs/s | URLs/CPU s | vs list |")
    print("|---|---|---|---|---|---|---|---|")
    for (name, mode, label), row in best.items():
        ratio = best[(name, "list", label)]["seconds"] / row["seconds"]
        print(
            f"| {name} | {MODES[mode]}{label} | {row['count']:,} | {row['seconds']:.4f} "
            f"| {row['cpu_seconds']:.4f} | {row['count'] / row['seconds']:,.0f} "
            f"| {row['count'] / row['cpu_seconds']:,.0f} | {ratio:.1f}x |"
        )
    print(f"\nload average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

"""``urlset read FILE -o OUT``, the whole command, of two checkouts side by side.

    .venv/bin/python bench/bench_read_cli.py --before DIR [--after DIR] [--repeat 5]
        [--format jsonl] [--instructions] [--urls 10000]

``--before``/``--after`` are src folders (``--after`` defaults to this checkout's); each run
is a fresh process with that folder first on PYTHONPATH, the two alternating (which goes
first swaps every round), on bench_read.py's 50,000-URL file and its mixed file. Reported:
the median wall and CPU seconds (user + system, from wait4) of each, their ratio, and the
load average around the runs; the two outputs are compared byte for byte. With
``--instructions`` each checkout is also counted by valgrind (callgrind): the command run 3
times and once in one process on the first ``--urls`` records, the difference over twice the
URLs being its instructions per URL (start-up and first-use costs cancel).
"""

from __future__ import annotations

import argparse
import filecmp
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_read import files
from bench_read_instructions import head

HERE = Path(__file__).resolve().parent

CHILD = r"""
import sys
from urlset.cli import main
path, out, fmt, times = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
for _ in range(times):
    try:
        main(["read", path, "-o", out, "-f", fmt, "-q"], standalone_mode=False)
    except SystemExit:
        pass
"""


def timed(src: str, path: Path, out: Path, fmt: str) -> tuple[float, float]:
    """Wall and CPU seconds of one ``urlset read`` process."""
    env = {**os.environ, "PYTHONPATH": src}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(path), str(out), fmt, "1"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit(f"urlset read {path} failed with status {status} ({src})")
    return wall, usage.ru_utime + usage.ru_stime


def instructions(src: str, path: Path, out: Path, fmt: str, times: int) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        counts = Path(tmp) / "callgrind.out"
        subprocess.run(
            [
                *("valgrind", "--tool=callgrind", f"--callgrind-out-file={counts}"),
                *(sys.executable, "-c", CHILD, str(path), str(out), fmt, str(times)),
            ],
            capture_output=True,
            check=True,
            env={**os.environ, "PYTHONPATH": src},
        )
        found = re.search(r"^(?:summary|totals): (\d+)", counts.read_text(), re.MULTILINE)
        assert found is not None
        return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="src folder of the checkout before")
    parser.add_argument("--after", default=str(HERE.parent / "src"))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", default="jsonl", choices=("jsonl", "csv", "tsv", "locs"))
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--urls", type=int, default=10_000)
    args = parser.parse_args()
    made = files()
    sides = {"before": args.before, "after": args.after}
    print(f"urlset read FILE -o OUT -f {args.format}; load {os.getloadavg()[0]:.1f} at start")
    print("| file | before wall | after wall | wall ratio | before CPU | after CPU | CPU ratio |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        outs = {side: Path(tmp) / f"{side}.out" for side in sides}
        for name in ("50k", "mixed-50k"):
            path = made[name]
            walls: dict[str, list[float]] = {side: [] for side in sides}
            cpus: dict[str, list[float]] = {side: [] for side in sides}
            for round_ in range(args.repeat):
                order = list(sides) if round_ % 2 == 0 else list(reversed(sides))
                for side in order:
                    wall, cpu = timed(sides[side], path, outs[side], args.format)
                    walls[side].append(wall)
                    cpus[side].append(cpu)
            if not filecmp.cmp(outs["before"], outs["after"], shallow=False):
                sys.exit(f"{name}: the two checkouts wrote different output")
            w = {side: statistics.median(v) for side, v in walls.items()}
            c = {side: statistics.median(v) for side, v in cpus.items()}
            print(
                f"| {name} | {w['before']:.3f} s | {w['after']:.3f} s | "
                f"{w['before'] / w['after']:.2f}x | {c['before']:.3f} s | {c['after']:.3f} s | "
                f"{c['before'] / c['after']:.2f}x |",
                flush=True,
            )
        print(f"load {os.getloadavg()[0]:.1f} at the end")
        if not args.instructions:
            return
        print(f"\ninstructions per URL (callgrind, first {args.urls:,} records)")
        print("| file | before | after | ratio |\n|---|---:|---:|---:|")
        for name in ("50k", "mixed-50k"):
            path = Path(tmp) / f"{name}.xml"
            path.write_bytes(head(made[name].read_bytes(), args.urls))
            per_url = {}
            for side, src in sides.items():
                three = instructions(src, path, outs[side], args.format, 3)
                one = instructions(src, path, outs[side], args.format, 1)
                per_url[side] = (three - one) / (2 * args.urls)
            print(
                f"| {name} | {per_url['before']:,.0f} | {per_url['after']:,.0f} | "
                f"{per_url['before'] / per_url['after']:.2f}x |",
                flush=True,
            )


if __name__ == "__main__":
    main()

"""The same commands in two trees of urlset, run alternately on the same files: the exact
before/after of a change on a shared, noisy machine (both sides see the same load).

    python bench/bench_before_after.py --before /old/.venv/bin/python:/old/src \\
        --after .venv/bin/python:src --read plain,iri --check mix --build iri

A tree is ``PYTHON:SRC`` (the interpreter, and the ``src`` directory put first on its path).
Read takes ``bench/out/read_shapes/SHAPE-500000.xml.gz``, check
``bench/out/side-by-side/shape-SHAPE-200000.xml`` and build
``bench/out/build-shape-SHAPE-1000000.csv``: the files bench_read_shapes.py,
bench_side_by_side.py and bench_build_shapes.py make. Prints a Markdown table of median wall and
CPU (user + sys of the child) seconds and their ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import build_shapes

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
# what the `urlset` console script runs (pyproject.toml [project.scripts])
OUT_DIR = "{out}"  # stands for a fresh directory in a command's arguments
CLI_CHILD = "import sys\nfrom urlset.cli import console\nconsole(sys.argv[1:])\n"


def timed(tree: tuple[str, str], args: list[str]) -> tuple[float, float]:
    python, src = tree
    env = dict(os.environ, PYTHONPATH=src)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a run that compiles its modules measures that
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [python, "-c", CLI_CHILD, *args], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    if done.returncode > 1:  # 1 is check's "problems found"
        raise SystemExit(
            f"{' '.join(args)} in {src}: exit {done.returncode}\n{done.stderr.decode()}"
        )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def alternated(label: str, trees: dict[str, tuple[str, str]], args: list[str], runs: int) -> str:
    got: dict[str, list[tuple[float, float]]] = {side: [] for side in trees}
    for run in range(runs + 1):  # the first round compiles and warms both trees: not counted
        for side, tree in trees.items():
            with tempfile.TemporaryDirectory() as out:
                taken = timed(tree, [out if arg == OUT_DIR else arg for arg in args])
            if run:
                got[side].append(taken)
    wall = {side: statistics.median(t[0] for t in got[side]) for side in trees}
    cpu = {side: statistics.median(t[1] for t in got[side]) for side in trees}
    return (
        f"| {label} | {wall['before']:.3f} | {wall['after']:.3f} | "
        f"{wall['after'] / wall['before']:.2f} | {cpu['before']:.3f} | {cpu['after']:.3f} | "
        f"{cpu['after'] / cpu['before']:.2f} |"
    )


def tree(spelled: str) -> tuple[str, str]:
    python, _, src = spelled.partition(":")
    if not src:
        raise argparse.ArgumentTypeError(f"{spelled!r}: write the tree as PYTHON:SRC")
    return python, src


def shapes(spelled: str) -> list[str]:
    return [shape for shape in spelled.split(",") if shape]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=tree, required=True)
    parser.add_argument("--after", type=tree, required=True)
    parser.add_argument("--read", type=shapes, default=[])
    parser.add_argument("--check", type=shapes, default=[])
    parser.add_argument("--build", type=shapes, default=[])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    trees = {"before": args.before, "after": args.after}
    work: list[tuple[str, list[str]]] = []
    for shape in args.read:
        path = str(OUT / "read_shapes" / f"{shape}-500000.xml.gz")
        work.append((f"read {shape} 500k", ["read", path, "-o", os.devnull, "-q"]))
    for shape in args.check:
        path = str(OUT / "side-by-side" / f"shape-{shape}-200000.xml")
        work.append((f"check {shape} 200k", ["check", path, "--format", "json"]))
    for shape in args.build:
        path = str(OUT / f"build-shape-{shape}-1000000.csv")
        base = build_shapes.base(shape)
        work.append(
            (f"build {shape} 1M", ["build", path, "--base-url", base, "--out", OUT_DIR, "-q"])
        )
    print(f"load {os.getloadavg()}, {args.runs} runs a side, alternated")
    print(
        "| work | wall before s | wall after s | after/before | CPU before s | CPU after s |"
        " after/before |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, make in work:
        print(alternated(label, trees, make, args.runs), flush=True)
    print(f"load {os.getloadavg()}")


if __name__ == "__main__":
    main()

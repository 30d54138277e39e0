#!/usr/bin/env python3
"""Build every input form (bench/build_forms.py) of the same rows with ``urlset build -v``
(no gzip: the reading and rendering, not zlib), one fresh process each, forms alternating:
the CPU seconds (user + sys) of each over the plain form's of its format, and the rows that
left the compiled core, as ``--verbose`` says them.

    .venv/bin/python bench/bench_build_forms.py [--rows 200000] [--repeat 3] [--forms a,b]
        [--gzip] [--before PYTHON:SRC]

With ``--before``, each form is built by that tree too, the two alternating, and the table
gives both CPU times and their ratio (this tree: the interpreter running the script and the
PYTHONPATH it has).

The sources are made once per size in bench/out/forms/ (the rows are build_shapes.py's
``utc`` shape: a lastmod with a time and Z on every row, changefreq and priority on half).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import build_forms
import build_shapes

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "forms"
CLI_CHILD = "import sys\nfrom urlset.cli import console\nconsole(sys.argv[1:])\n"
SUFFIX = {"csv": "csv", "tsv": "tsv", "jsonl": "jsonl", "text": "txt"}


def source(form: str, rows: int, gzipped: bool) -> Path:
    """The form's source of ``rows`` rows, made once."""
    fmt = build_forms.FORMS[form].fmt
    path = OUT / f"{form}-{rows}.{SUFFIX[fmt]}{'.gz' if gzipped else ''}"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        data = build_forms.source_bytes(form, build_shapes.entries("utc", rows), gzipped)
        path.write_bytes(data)
    return path


Tree = tuple[str, str | None]  # an interpreter, and the src directory it imports urlset from


def timed(path: Path, tree: Tree = (sys.executable, None)) -> tuple[float, float, str]:
    """Wall and CPU seconds of one build of ``path``, and what --verbose says of the lanes."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if tree[1] is not None:
        env["PYTHONPATH"] = tree[1]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        args = ["build", str(path), "--base-url", build_shapes.HOST, "--out", out]
        done = subprocess.run(
            [tree[0], "-c", CLI_CHILD, *args, "--no-gzip", "-v"],
            env=env,
            capture_output=True,
            text=True,
        )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    said = done.stdout + done.stderr
    lanes = [
        line.removeprefix("urlset build: ")
        for line in said.splitlines()
        if "compiled core" in line or "per-entry" in line
    ]
    if done.returncode:
        lanes = [f"exit {done.returncode}: {said.strip().splitlines()[-1][:70]}"]
    return wall, cpu, "; ".join(lanes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--forms", default=",".join(build_forms.FORMS))
    parser.add_argument("--gzip", action="store_true", help="gzipped sources")
    parser.add_argument("--before", help="PYTHON:SRC of the tree to compare with")
    args = parser.parse_args()
    forms = args.forms.split(",")
    paths = {form: source(form, args.rows, args.gzip) for form in forms}
    trees: dict[str, Tree] = {"after": (sys.executable, None)}
    if args.before:
        python, src = args.before.split(":", 1)
        trees = {"before": (python, src), **trees}
    print(f"load {os.getloadavg()[0]:.2f}; {args.rows:,} rows; trees {trees}")
    got: dict[tuple[str, str], list[tuple[float, float, str]]] = {
        (side, form): [] for side in trees for form in forms
    }
    for _ in range(args.repeat):
        for form in forms:
            for side, tree in trees.items():
                got[side, form].append(timed(paths[form], tree))
    cpu = {key: statistics.median(c for _, c, _ in runs) for key, runs in got.items()}
    plain = {(side, fmt): cpu.get((side, f"{fmt}-plain"), 0.0) for side in trees for fmt in SUFFIX}
    sides = list(trees)
    print(
        "| form | "
        + " | ".join(f"CPU s {side} | / plain {side} | lanes {side}" for side in sides)
        + (" | after / before |" if len(sides) == 2 else " |")
    )
    print("|---" * (1 + 3 * len(sides) + (len(sides) == 2)) + "|")
    for form in forms:
        cells = []
        for side in sides:
            base = plain[side, build_forms.FORMS[form].fmt]
            ratio = f"{cpu[side, form] / base:.2f}" if base else "-"
            cells += [f"{cpu[side, form]:.2f}", ratio, got[side, form][-1][2]]
        if len(sides) == 2:
            cells.append(f"{cpu['after', form] / cpu['before', form]:.2f}")
        print(f"| {form} | " + " | ".join(cells) + " |")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

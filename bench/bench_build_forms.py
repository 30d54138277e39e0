#!/usr/bin/env python3
"""Build every input form (bench/build_forms.py) of the same rows with ``urlset build -v``
(no gzip: the reading and rendering, not zlib), one fresh process each, forms alternating:
the CPU seconds (user + sys) of each over the plain form's of its format, and the rows that
left the compiled core, as ``--verbose`` says them.

    .venv/bin/python bench/bench_build_forms.py [--rows 200000] [--repeat 3] [--forms a,b]
        [--gzip]

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


def timed(path: Path) -> tuple[float, float, str]:
    """Wall and CPU seconds of one build of ``path``, and what --verbose says of the lanes."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as out:
        args = ["build", str(path), "--base-url", build_shapes.HOST, "--out", out]
        done = subprocess.run(
            [sys.executable, "-c", CLI_CHILD, *args, "--no-gzip", "-v"],
            env=env,
            capture_output=True,
            text=True,
        )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    said = done.stdout + done.stderr
    lanes = [line for line in said.splitlines() if "compiled core" in line or "per-entry" in line]
    if done.returncode:
        lanes = [f"exit {done.returncode}: {said.strip().splitlines()[-1][:70]}"]
    return wall, cpu, "; ".join(lanes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--forms", default=",".join(build_forms.FORMS))
    parser.add_argument("--gzip", action="store_true", help="gzipped sources")
    args = parser.parse_args()
    forms = args.forms.split(",")
    paths = {form: source(form, args.rows, args.gzip) for form in forms}
    print(f"load {os.getloadavg()[0]:.2f}; {args.rows:,} rows; python {sys.executable}")
    got: dict[str, list[tuple[float, float, str]]] = {form: [] for form in forms}
    for _ in range(args.repeat):
        for form in forms:
            got[form].append(timed(paths[form]))
    print("| form | CPU s | CPU / plain | wall s | lanes |")
    print("|---|---|---|---|---|")
    plain = {
        fmt: statistics.median(c for _, c, _ in got.get(f"{fmt}-plain", [(0, 0, "")]))
        for fmt in SUFFIX
    }
    for form in forms:
        cpu = statistics.median(c for _, c, _ in got[form])
        wall = statistics.median(w for w, _, _ in got[form])
        base = plain[build_forms.FORMS[form].fmt]
        ratio = f"{cpu / base:.2f}" if base else "-"
        print(f"| {form} | {cpu:.2f} | {ratio} | {wall:.2f} | {got[form][-1][2]} |")
    print(f"load {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()

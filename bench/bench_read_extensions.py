"""Reading entries with extensions: bench_read.py's realistic mix with an image on every Nth
URL against the same file without images, wall time, for one installation or two side by
side (runs alternate, so that a noisy machine's swings fall on both).

    .venv/bin/python bench/bench_read_extensions.py [--urls 20000] [--every 10] [--repeat 5]
        [--other PYTHON SRC]

Each figure is the best of ``--repeat`` reads (``list(urlset.read(path))``) in a process of
its own; ``--other`` also measures another installation (an older checkout: its Python and
its src folder).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_read import mixed_with_images

CHILD = r"""
import sys, time
import urlset
best = float("inf")
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    n = len(list(urlset.read(sys.argv[1])))
    best = min(best, time.perf_counter() - t)
print(n, best)
"""


def timed(python: str, src: str | None, path: Path, repeat: int) -> float:
    env = os.environ if src is None else {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [python, "-c", CHILD, str(path), str(repeat)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return float(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=20_000)
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--other", nargs=2, metavar=("PYTHON", "SRC"))
    args = parser.parse_args()
    installs: list[tuple[str, str, str | None]] = [("this", sys.executable, None)]
    if args.other:
        installs.insert(0, ("other", args.other[0], args.other[1]))
    with tempfile.TemporaryDirectory() as tmp:
        paths = {}
        for every in (args.every, 0):
            path = paths[every] = Path(tmp) / f"mixed-img{every}.xml"
            path.write_bytes(mixed_with_images(args.urls, every))
        print(f"{args.urls:,} URLs of the realistic mix, best of {args.repeat}")
        print("| installation | images on every Nth URL | s | us/URL |\n|---|---:|---:|---:|")
        for name, python, src in installs:
            for every, path in paths.items():
                s = timed(python, src, path, args.repeat)
                label = f"{every}" if every else "none"
                print(f"| {name} | {label} | {s:.3f} | {s / args.urls * 1e6:.2f} |", flush=True)


if __name__ == "__main__":
    main()

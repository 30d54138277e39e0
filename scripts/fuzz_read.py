#!/usr/bin/env python3
"""Differential fuzzing of the readers for as long as asked (tests/read_fuzz.py says how; the
suite runs it for a few seconds): prints the counts and every failing case, exits 1 if any.

    .venv/bin/python scripts/fuzz_read.py --seconds 300 [--seed N] [--no-corpus]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import read_fuzz  # tests/ is on the path now


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=None, help="random when not given")
    parser.add_argument("--no-corpus", action="store_true", help="the repository's seeds only")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    pool = read_fuzz.seeds(shared=not args.no_corpus)
    print(f"seed {seed}, {len(pool)} seed documents, {args.seconds:g} s", flush=True)
    end = time.monotonic() + args.seconds
    tally = read_fuzz.run(pool, random.Random(seed), lambda _: time.monotonic() < end)
    print(tally.line())
    for failure in tally.failures:
        for line in read_fuzz.describe(failure):
            print(line)
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())

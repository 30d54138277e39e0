"""De-duplication benchmark: ``SeenLocs`` on N random 64-bit hashes, all in memory or with
runs sealed to disk, each in a fresh process (time and peak RSS are its own).

    .venv/bin/python bench/bench_dedupe.py [--hashes 10000000] [--batch 8192]

Every 8th batch repeats 1,000 hashes of the batch before, so the duplicate path is taken
too. The build uses the sealed mode, in its staging directory.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

CHILD = r"""
import json, resource, sys, tempfile, time
from pathlib import Path
import numpy as np
from urlset.writing.dedupe import SeenLocs
n, batch, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = np.random.default_rng(1)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
with tempfile.TemporaryDirectory() as spill:
    seen = SeenLocs(Path(spill) if mode == "sealed" else None)
    duplicates, previous = 0, None
    start = time.perf_counter()
    for i in range(0, n, batch):
        hashes = rng.integers(0, 2**64 - 1, size=batch, dtype=np.uint64)
        if previous is not None and (i // batch) % 8 == 0:
            hashes[:1000] = previous[:1000]
        previous = hashes
        duplicates += seen.first_seen_packed(hashes.tobytes()).count(0)
    seconds = time.perf_counter() - start
    seen.close()
print(json.dumps({"seconds": seconds, "duplicates": duplicates,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "base_mb": base / 1024}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--hashes", type=int, default=10_000_000)
    parser.add_argument("--batch", type=int, default=8192)
    args = parser.parse_args()
    print(
        f"# {time.strftime('%Y-%m-%d %H:%M')} {platform.machine()} {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}; "
        f"{args.hashes:,} hashes in batches of {args.batch:,}"
    )
    print("\n| mode | seconds | duplicates | peak RSS MB | of it before the loop |")
    print("|---|---:|---:|---:|---:|")
    for mode in ("memory", "sealed"):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(args.hashes), str(args.batch), mode],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode:
            raise SystemExit(f"{mode} run failed: {done.stderr}")
        r = json.loads(done.stdout)
        print(
            f"| {mode} | {r['seconds']:.2f} | {r['duplicates']:,} | {r['peak_mb']:.0f} "
            f"| {r['base_mb']:.0f} |"
        )


if __name__ == "__main__":
    main()

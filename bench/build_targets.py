"""What the build benchmarks share: a command's wall seconds, CPU seconds (``wait4``) and
peak memory (its own VmHWM), issue 26's targets as one line each, and the build of a shape's
rows streamed to ``urlset build -`` (a 10M-row input is never written to disk).

Imported by bench_build_shapes.py and bench_cms_export.py (run as scripts: bench/ is on
the path).
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, NamedTuple

HERE = Path(__file__).resolve().parent
# the CLI, saying its own peak RSS last: a child's ru_maxrss carries the parent's over a
# vfork + exec (the old mm's high-water mark is kept), and the benchmark holds the XML
_PEAK_TAG = "urlset-bench peak KiB "
URLSET = [
    sys.executable,
    "-c",
    "import sys\nfrom urlset.cli import main\ntry:\n    main()\nfinally:\n"
    "    status = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
    f"    print({_PEAK_TAG!r} + status, file=sys.stderr)",
]
PEER_TARGET = 10.0  # build >= 10x xml-sitemap-writer at gzip 6, per output byte
NODE_TARGET = 20.0  # build >= 20x sitemap.js on rows with extensions
PLAIN_SHARE_TARGET = 0.5  # no shape below half the plain shape's speed per output byte
PIGZ_TARGET = 2.0  # build within 2x of `pigz -6 -p 2` of its own output bytes
MEMORY_TARGET_MB = 100.0  # build of 10M rows under 100 MB


class Measured(NamedTuple):
    seconds: float  # wall
    cpu: float  # user + system, every thread
    peak_mb: float  # the process's own peak resident set (VmHWM), in MB


def measured(
    command: Sequence[str], stdin: bytes | IO[bytes] | None = None
) -> tuple[Measured, str]:
    """Run ``command`` (its input ``stdin``: bytes, or a pipe to read); what it took, and
    its standard error."""
    piped = isinstance(stdin, bytes)
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if isinstance(stdin, bytes) else stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    feeder = None
    if piped:  # written beside the read of its standard error, which could fill
        feeder = threading.Thread(target=_feed, args=(process.stdin, stdin))
        feeder.start()
    assert process.stderr is not None
    err = process.stderr.read()
    if feeder is not None:
        feeder.join()
    _, status, usage = os.wait4(process.pid, 0)  # reaped here, for its own usage
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        raise SystemExit(f"{' '.join(command[:4])}... failed: {err.decode(errors='replace')}")
    cpu = usage.ru_utime + usage.ru_stime
    text = err.decode(errors="replace")
    tagged = [line for line in text.splitlines() if line.startswith(_PEAK_TAG)]
    # another command (--compare): ru_maxrss, which may carry the parent's peak
    peak_kib = int(tagged[-1].removeprefix(_PEAK_TAG)) if tagged else usage.ru_maxrss
    return Measured(seconds, cpu, peak_kib / 1024), text


def _feed(pipe: IO[bytes] | None, data: bytes) -> None:
    assert pipe is not None
    with pipe:
        pipe.write(data)


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def target_line(
    what: str, ratios: dict[str, float], bound: float, *, at_most: bool = False, unit: str = "x"
) -> str:
    """One target's line: each shape's ratio, and whether every one is at least ``bound``
    (at most, for a ratio of times)."""
    shown = ", ".join(f"{name} {x:.2f}{unit}" for name, x in ratios.items())
    met = all(x <= bound if at_most else x >= bound for x in ratios.values())
    return f"target {what}: {shown}: {verdict(met)}"


def peer_line(speedups: dict[str, float]) -> str:
    """The target against xml-sitemap-writer (urlset's MB/s over the peer's)."""
    what = f"build >= {PEER_TARGET:.0f}x xml-sitemap-writer at gzip 6 (per output byte)"
    return target_line(what, speedups, PEER_TARGET)


def node_line(speedups: dict[str, float]) -> str:
    """The target against sitemap.js on the shapes with extensions."""
    what = f"build >= {NODE_TARGET:.0f}x sitemap.js at gzip 6 on rows with extensions (per output byte)"
    return target_line(what, speedups, NODE_TARGET)


def plain_share_line(shares: dict[str, float]) -> str:
    """The no-cliff target: each shape's MB/s over the plain shape's."""
    what = f"every shape >= {PLAIN_SHARE_TARGET} x the plain shape's speed per output byte"
    return target_line(what, shares, PLAIN_SHARE_TARGET, unit="")


def pigz_line(ratios: dict[str, float]) -> str:
    """The compression floor (urlset's seconds over pigz's on the same bytes)."""
    what = f"build within {PIGZ_TARGET:.0f}x of pigz -6 -p 2 of its own bytes (wall)"
    return target_line(what, ratios, PIGZ_TARGET, at_most=True)


def rss_line(peaks: dict[str, float], rows: int) -> str:
    shown = ", ".join(f"{name} {mb:.0f} MB" for name, mb in peaks.items())
    return f"peak RSS of urlset build, {rows:,} rows: {shown}"


_GENERATE = r"""
import importlib.util, sys
spec = importlib.util.spec_from_file_location("build_shapes", sys.argv[1])
shapes = importlib.util.module_from_spec(spec); spec.loader.exec_module(shapes)
shape, rows, step = sys.argv[2], int(sys.argv[3]), 100_000
out = sys.stdout.buffer
for start in range(0, rows, step):
    data = shapes.source_bytes("csv", shapes.entries(shape, min(step, rows - start), start))
    out.write(data if start == 0 else data.split(b"\n", 1)[1])  # one header
"""


def streamed_build(shape: str, rows: int, base_url: str, out_dir: str) -> Measured:
    """``urlset build -`` of ``rows`` rows of ``shape`` as CSV, made as they are read."""
    generate = [sys.executable, "-c", _GENERATE, str(HERE / "build_shapes.py"), shape, str(rows)]
    with subprocess.Popen(generate, stdout=subprocess.PIPE) as maker:
        args = ["build", "-", "--input-format", "csv", "--base-url", base_url, "--out", out_dir]
        taken, _ = measured([*URLSET, *args, "-q"], stdin=maker.stdout)
    return taken


def memory_line(shape: str, rows: int, taken: Measured) -> str:
    met = taken.peak_mb < MEMORY_TARGET_MB
    return (
        f"target build of {rows:,} {shape} rows (CSV on stdin) < {MEMORY_TARGET_MB:.0f} MB: "
        f"peak RSS {taken.peak_mb:.0f} MB, {taken.seconds:.1f} s, CPU {taken.cpu:.1f} s: "
        f"{verdict(met)}"
    )

"""Check's peak memory against read's, on the same inputs, from a file and from a pipe.

    .venv/bin/python bench/bench_check_memory.py [--mb 1000] [--pipe-mb 2000]

Inputs, generated into bench/out/check-memory/ (once; delete them to regenerate):

* ``bomb.xml.gz``: a gzip file that decompresses to ``--mb`` MB of urlset (realistic URLs:
  queries with ``&amp;``, ports, non-ASCII paths escaped, lastmod and priority);
* ``flagged.xml.gz``: the same with findings that need their position: every 10th URL a
  lastmod in the future, every 10th another a priority out of range;
* a pipe of ``--pipe-mb`` MB of the first urlset text, produced as it is read.

Each command (``urlset read`` and ``urlset check`` on the file, then on the pipe as ``-``)
runs in its own process under ``/usr/bin/time -v``; the figure is its maximum resident set
size. Target: check's peak at most 2x read's on the same input.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import os
import platform
import re
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "check-memory"
URLSET = sys.executable.replace("python", "urlset") if "python" in sys.executable else "urlset"
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def _records(flagged: bool = False) -> Iterator[bytes]:
    i = 0
    while True:
        lines = []
        for j in range(i, i + 1000):
            lastmod = "2027-03-01" if flagged and j % 10 == 0 else f"2025-0{1 + j % 9}-1{j % 10}"
            priority = "1.5" if flagged and j % 10 == 5 else f"0.{j % 10}"
            lines.append(
                f"<url><loc>https://www.urlset-bench.org:8443/caf%C3%A9/p/{j}?colour=red&amp;"
                f"size={j % 7}</loc><lastmod>{lastmod}</lastmod>"
                f"<priority>{priority}</priority></url>\n"
            )
        i += 1000
        yield "".join(lines).encode()


def _head() -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'.encode()


def make_bomb(path: Path, mb: int, flagged: bool = False) -> None:
    size = 0
    with gzip.open(path, "wb", compresslevel=6) as f:
        f.write(_head())
        for block in _records(flagged):
            f.write(block)
            size += len(block)
            if size >= mb * 1_000_000:
                break
        f.write(b"</urlset>\n")


def peak_kb(args: list[str], stdin_mb: int = 0) -> tuple[int, str]:
    """Maximum resident set size (KB) of one command, and its elapsed time."""
    command = ["/usr/bin/time", "-v", URLSET, *args]
    stdin = subprocess.PIPE if stdin_mb else subprocess.DEVNULL
    # the report goes to a file: a full stderr pipe would stall the writer below
    with (
        tempfile.TemporaryFile() as log,
        subprocess.Popen(command, stdin=stdin, stdout=subprocess.DEVNULL, stderr=log) as proc,
    ):
        if proc.stdin is not None:
            sent = 0
            try:
                proc.stdin.write(_head())
                for block in _records():
                    proc.stdin.write(block)
                    sent += len(block)
                    if sent >= stdin_mb * 1_000_000:
                        break
                proc.stdin.write(b"</urlset>\n")
                proc.stdin.close()
            except BrokenPipeError:  # the command stopped reading (a limit): fine
                with contextlib.suppress(BrokenPipeError):
                    proc.stdin.close()
                proc.stdin = None
        proc.wait()
        log.seek(0)
        text = log.read().decode("utf-8", "replace")
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)", text)
    return int(rss.group(1)) if rss else -1, wall.group(1) if wall else "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=1000, help="decompressed size of the gzip")
    parser.add_argument("--pipe-mb", type=int, default=2000, help="size of the pipe")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    bomb = OUT / f"bomb-{args.mb}mb.xml.gz"
    if not bomb.exists():
        make_bomb(bomb, args.mb)
    flagged = OUT / f"flagged-{args.mb}mb.xml.gz"
    if not flagged.exists():
        make_bomb(flagged, args.mb, flagged=True)
    print(
        f"# {platform.python_implementation()} {platform.python_version()}, load {os.getloadavg()[0]:.2f}"
    )
    for made in (bomb, flagged):
        print(f"# {made.name}: {made.stat().st_size:,} bytes, {args.mb:,} MB decompressed")
    now = ["--now", "2026-01-01"]
    rows = [
        ("file", "read", peak_kb(["read", str(bomb)])),
        ("file", "check", peak_kb(["check", str(bomb), *now])),
        ("flagged file", "read", peak_kb(["read", str(flagged)])),
        ("flagged file", "check", peak_kb(["check", str(flagged), *now])),
        (f"pipe {args.pipe_mb:,} MB", "read", peak_kb(["read", "-"], args.pipe_mb)),
        (f"pipe {args.pipe_mb:,} MB", "check", peak_kb(["check", "-", *now], args.pipe_mb)),
    ]
    print("| input | command | peak RSS (MB) | wall |")
    print("|---|---|---|---|")
    for what, command, (kb, wall) in rows:
        print(f"| {what} | {command} | {kb / 1024:,.0f} | {wall} |")
    for what in (rows[0][0], rows[2][0], rows[4][0]):
        read_kb = next(r[2][0] for r in rows if r[0] == what and r[1] == "read")
        check_kb = next(r[2][0] for r in rows if r[0] == what and r[1] == "check")
        print(f"# {what}: check/read = {check_kb / max(read_kb, 1):.2f}")


if __name__ == "__main__":
    main()

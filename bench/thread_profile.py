#!/usr/bin/env python3
"""What each thread of a command did, and how many cores it kept busy, from the outside.

    python bench/thread_profile.py [--every 0.005] -- urlset fetch URL -o out.jsonl -q

Runs the command once and reads its threads' scheduler counters every ``--every`` seconds
(Linux: /proc/PID/task/TID/schedstat, the nanoseconds a thread ran on a CPU and waited for
one): nothing in the command is changed or imported, so it measures the real process,
parse threads and the core's own threads included. It prints each thread's CPU seconds and
its run-queue wait (waiting for a core, which another process's load causes; a thread
waiting for the GIL or for work sleeps, and counts in neither), when it first and last ran,
and the cores the process kept busy in each tenth of the run: where that stays near 1 while
several threads exist, they take turns (the GIL, or one waiting on another), not the cores.

bench_fetch.py ``--threads`` runs it on each site's fetch.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class Thread:
    tid: int
    name: str
    first: float  # seconds from the start when it was first seen running
    last: float = 0.0  # when its CPU time last grew
    cpu_ns: int = 0
    waiting_ns: int = 0


@dataclass
class Profile:
    wall: float
    cpu: float  # user + system of the whole process (rusage)
    exit: int
    threads: list[Thread] = field(default_factory=list)
    # (seconds from the start, CPU nanoseconds of every thread so far)
    busy: list[tuple[float, int]] = field(default_factory=list)


def _counters(task_dir: Path) -> dict[int, tuple[int, int]]:
    found: dict[int, tuple[int, int]] = {}
    try:
        entries = list(os.scandir(task_dir))
    except OSError:
        return found
    for entry in entries:
        try:
            with open(f"{entry.path}/schedstat", encoding="ascii") as fh:
                on_cpu, waiting, _ = fh.read().split()
        except (OSError, ValueError):
            continue  # the thread ended between the listing and the read
        found[int(entry.name)] = (int(on_cpu), int(waiting))
    return found


def _name(task_dir: Path, tid: int) -> str:
    try:
        return (task_dir / str(tid) / "comm").read_text(encoding="utf-8").strip()
    except OSError:
        return "?"


def profile(argv: list[str], every: float = 0.005) -> Profile:
    """One run of ``argv`` (its output discarded), its threads' counters read every
    ``every`` seconds until it exits."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    task_dir = Path(f"/proc/{proc.pid}/task")
    threads: dict[int, Thread] = {}
    busy: list[tuple[float, int]] = []
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        now = time.perf_counter() - start
        for tid, (on_cpu, waiting) in _counters(task_dir).items():
            thread = threads.get(tid)
            if thread is None:
                thread = threads[tid] = Thread(tid, _name(task_dir, tid), now)
            if on_cpu > thread.cpu_ns:
                thread.last = now
            thread.cpu_ns, thread.waiting_ns = on_cpu, waiting
        busy.append((now, sum(t.cpu_ns for t in threads.values())))
        time.sleep(every)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    ordered = sorted(threads.values(), key=lambda t: (t.tid != proc.pid, t.first))
    cpu = usage.ru_utime + usage.ru_stime
    return Profile(wall, cpu, proc.returncode, ordered, busy)


def report(found: Profile, bins: int = 10) -> list[str]:
    """The profile as text lines: the process, each thread, the cores busy over time."""
    main = found.threads[0] if found.threads else None
    others = found.threads[1:]
    lines = [
        f"wall {found.wall:.3f} s, CPU {found.cpu:.3f} s (rusage), exit {found.exit}; "
        f"{len(found.threads)} threads seen"
    ]
    if main is not None and others:
        lines.append(
            f"the main thread alone until {others[0].first:.3f} s (interpreter, imports, "
            f"what comes before the first other thread runs)"
        )
    lines.append("| thread | name | CPU s | run-queue wait s | first ran s | last ran s |")
    lines.append("|---|---|---:|---:|---:|---:|")
    for i, t in enumerate(found.threads):
        label = "main" if i == 0 else str(i)
        lines.append(
            f"| {label} | {t.name} | {t.cpu_ns / 1e9:.3f} | {t.waiting_ns / 1e9:.3f} "
            f"| {t.first:.3f} | {t.last:.3f} |"
        )
    if len(found.busy) >= 2:
        step = found.wall / bins
        marks, at = [], 0
        for k in range(1, bins + 1):
            # the last sample at or before each tenth of the run
            while at + 1 < len(found.busy) and found.busy[at + 1][0] <= k * step:
                at += 1
            marks.append(found.busy[at])
        cores, before = [], (0.0, 0)
        for now, total in marks:
            span = now - before[0]
            cores.append(f"{(total - before[1]) / 1e9 / span:.1f}" if span > 0 else "-")
            before = (now, total)
        lines.append(f"cores busy in each tenth of the run: {' '.join(cores)}")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=float, default=0.005, help="seconds between reads")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- COMMAND ARGS...")
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    if not sys.platform.startswith("linux"):
        parser.error("reads /proc: Linux only")
    print("\n".join(report(profile(command, args.every))))


if __name__ == "__main__":
    main()

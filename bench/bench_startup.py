"""Start-up benchmark: how long short `urlset` commands take, interpreter and imports included.

    .venv/bin/python bench/bench_startup.py [--before SRC] [--runs 20] [--instructions]

Runs hyperfine (``apt-get install hyperfine``) on ``import urlset``, ``urlset --help``,
``read --help``, ``read`` and ``check`` of a two-URL sitemap (a query with &, a lastmod),
``read`` of a two-line text sitemap, ``build`` of a two-line list, ``build --help``,
``fetch --help``, ``fetch`` of the two-URL sitemap over plain http from a loopback server
this script runs (a thread, 127.0.0.1, a port of its own) and ``serve --help``, each in a
fresh interpreter, beside ``python -c pass``. With ``--before SRC`` (another checkout's ``src`` holding a built
``_core``), each command runs from that tree too, side by side in the same run. Each tree's
modules are compiled to bytecode first, as ``pip install`` does: Python only reads the
caches when ``PYTHONDONTWRITEBYTECODE`` is set (it is on the machine these figures come
from), and without them every run would compile urlset's sources again. Prints mean and
median wall time, the user and system CPU time (which load on a shared machine inflates
least) and whether the median is under the target, 100 ms. ``--instructions`` also counts
each command's instructions once under valgrind (callgrind), which load does not change.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple

SITEMAP = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    "<url><loc>https://shop.test/a</loc><lastmod>2024-01-01</lastmod></url>"
    "<url><loc>https://shop.test/b?x=1&amp;y=2</loc></url></urlset>\n"
)
LIST = "https://shop.test/a\nhttps://shop.test/b?x=1&y=2\n"
# the console script's own code path (`console`, which runs a plain `read`, `check` and
# `build` without click), with the tree to load named by PYTHONPATH
LAUNCH = "import sys; from urlset.cli import console; sys.argv[0] = 'urlset'; console()"
TARGET_MS = 100
COMMANDS = (
    "--help",
    "read --help",
    "read tiny.xml",
    "read list.txt",
    "check tiny.xml",
    "build --help",
    "build --base-url https://shop.test/ --out out list.txt",
    "fetch --help",
    "fetch http://127.0.0.1:{port}/tiny.xml -o fetched.jsonl -q",
    "serve --help",
)


class Case(NamedTuple):
    name: str  # as printed
    tree: str | None  # the src directory put on PYTHONPATH (None: python -c pass)
    argv: list[str]

    def shell(self) -> str:
        """The command line hyperfine runs (-N: split on spaces, no shell)."""
        line = " ".join(self.argv)
        return line if self.tree is None else f"env PYTHONPATH={self.tree} {line}"


def cases(trees: dict[str, str], port: int) -> list[Case]:
    """``python -c pass``, then each command from each tree, side by side (``port``: the
    loopback server's)."""
    out = [Case("python -c pass", None, [sys.executable, "-c", "pass"])]
    for command in ("import urlset", *(c.format(port=port) for c in COMMANDS)):
        for label, tree in trees.items():
            if command == "import urlset":
                out.append(
                    Case(f"{label}: import urlset", tree, [sys.executable, "-c", "'import urlset'"])
                )
                continue
            argv = [sys.executable, "-c", f'"{LAUNCH}"', *command.split()]
            out.append(Case(f"{label}: urlset {command}", tree, argv))
    return out


@contextlib.contextmanager
def serving(directory: str) -> Iterator[int]:
    """A loopback HTTP server of ``directory`` in a thread; yields its port."""
    handler = functools.partial(_QuietHandler, directory=directory)
    with ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def timings(work: str, runs: list[Case], count: int) -> list[dict[str, Any]]:
    export = Path(work, "results.json")
    hyperfine = ["hyperfine", "-N", "-w", "3", "-r", str(count), "--prepare", f"rm -rf {work}/out"]
    subprocess.run(
        [*hyperfine, "--export-json", str(export), *(case.shell() for case in runs)],
        cwd=work,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    results: list[dict[str, Any]] = json.loads(export.read_text())["results"]
    return results


def instructions(work: str, case: Case) -> int:
    """The instructions ``case`` runs, counted once by callgrind."""
    shutil.rmtree(Path(work, "out"), ignore_errors=True)
    out = Path(work, "callgrind.out")
    env = dict(os.environ) if case.tree is None else {**os.environ, "PYTHONPATH": case.tree}
    argv = [arg.strip("\"'") for arg in case.argv]  # hyperfine -N passes quotes through
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *argv],
        cwd=work,
        env=env,
        check=True,
        capture_output=True,
    )
    found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    assert found is not None
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another checkout's src directory, run side by side")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--instructions", action="store_true", help="count them (valgrind)")
    args = parser.parse_args()
    if shutil.which("hyperfine") is None:
        sys.exit("bench_startup: hyperfine is not installed (apt-get install hyperfine)")
    trees = {"after": str(Path(__file__).resolve().parents[1] / "src")}
    if args.before:
        trees = {"before": str(Path(args.before).resolve()), **trees}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree], check=True)
    with tempfile.TemporaryDirectory() as work, serving(work) as port:
        Path(work, "tiny.xml").write_text(SITEMAP, encoding="utf-8")
        Path(work, "list.txt").write_text(LIST, encoding="utf-8")
        runs = cases(trees, port)
        results = timings(work, runs, args.runs)
        counts = [instructions(work, case) for case in runs] if args.instructions else []
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    counted = f" {'Minstr':>7}" if counts else ""
    print(
        f"{'command':62} {'mean':>7} {'median':>7} {'user':>7} {'system':>7}{counted}"
        f"  (ms) < {TARGET_MS} ms"
    )
    for i, (case, result) in enumerate(zip(runs, results, strict=True)):
        median = result["median"] * 1000
        count = f" {counts[i] / 1e6:7.1f}" if counts else ""
        print(
            f"{case.name[:62]:62} {result['mean'] * 1000:7.1f} {median:7.1f}"
            f" {result['user'] * 1000:7.1f} {result['system'] * 1000:7.1f}{count}"
            f"  {median < TARGET_MS}"
        )


if __name__ == "__main__":
    main()

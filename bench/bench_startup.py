"""Start-up benchmark: how long short `urlset` commands take, interpreter and imports included.

    .venv/bin/python bench/bench_startup.py [--before SRC] [--runs 20]

Runs hyperfine (``apt-get install hyperfine``) on ``import urlset``, ``urlset --help``,
``read --help``, ``read`` and ``check`` of a two-URL sitemap (a query with &, a lastmod),
``build`` of a two-line list, ``fetch --help`` and ``serve --help``, each in a fresh
interpreter, beside ``python -c pass``. With ``--before SRC`` (another checkout's ``src``
holding a built ``_core``), each command runs from that tree too, side by side in the same
run. Each tree's modules are compiled to bytecode first, as ``pip install`` does: Python
only reads the caches when ``PYTHONDONTWRITEBYTECODE`` is set (it is on the machine these
figures come from), and without them every run would compile urlset's sources again.
Prints mean, median and the user CPU time, which load on a shared machine inflates least,
and whether the median is under the target, 100 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SITEMAP = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    "<url><loc>https://shop.test/a</loc><lastmod>2024-01-01</lastmod></url>"
    "<url><loc>https://shop.test/b?x=1&amp;y=2</loc></url></urlset>\n"
)
# the console script's own code path, with the tree to load named by PYTHONPATH
LAUNCH = "import sys; from urlset.cli import main; sys.argv[0] = 'urlset'; main()"
TARGET_MS = 100
COMMANDS = (
    "--help",
    "read --help",
    "read tiny.xml",
    "check tiny.xml",
    "build --base-url https://shop.test/ --out out list.txt",
    "fetch --help",
    "serve --help",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", help="another checkout's src directory, run side by side")
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    if shutil.which("hyperfine") is None:
        sys.exit("bench_startup: hyperfine is not installed (apt-get install hyperfine)")
    trees = {"after": str(Path(__file__).resolve().parents[1] / "src")}
    if args.before:
        trees = {"before": str(Path(args.before).resolve()), **trees}
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", tree], check=True)
    with tempfile.TemporaryDirectory() as work:
        Path(work, "tiny.xml").write_text(SITEMAP, encoding="utf-8")
        Path(work, "list.txt").write_text("https://shop.test/a\nhttps://shop.test/b?x=1&y=2\n")
        commands = [f"{sys.executable} -c pass"]
        for label in ("import urlset", *COMMANDS):
            for tree in trees.values():
                code = '"import urlset"' if label == "import urlset" else f'"{LAUNCH}" {label}'
                commands.append(f"env PYTHONPATH={tree} {sys.executable} -c {code}")
        export = Path(work, "results.json")
        hyperfine = ["hyperfine", "-N", "-w", "3", "-r", str(args.runs)]
        subprocess.run(
            [
                *hyperfine,
                "--prepare",
                f"rm -rf {work}/out",
                "--export-json",
                str(export),
                *commands,
            ],
            cwd=work,
            check=True,
            stdout=subprocess.DEVNULL,
        )
        results = json.loads(export.read_text())["results"]
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"{'command':62} {'mean':>7} {'median':>7} {'user':>7}  (ms) under {TARGET_MS} ms")
    for result in results:
        name = result["command"].replace(sys.executable, "python")
        for label, tree in trees.items():
            name = name.replace(f"env PYTHONPATH={tree} ", f"{label}: ")
        name = name.replace(f'-c "{LAUNCH}"', "urlset").replace('-c "import urlset"', "-c import")
        print(
            f"{name[:62]:62} {result['mean'] * 1000:7.1f} {result['median'] * 1000:7.1f}"
            f" {result['user'] * 1000:7.1f}       {result['median'] * 1000 < TARGET_MS}"
        )


if __name__ == "__main__":
    main()

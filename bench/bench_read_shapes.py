"""Reading every shape (bench/read_shapes.py) through the CLI and ``read_arrow``, per input byte,
with the entries that left the compiled core, next to ``gzip -dc`` of the same file and Scrapy.

    .venv/bin/python bench/bench_read_shapes.py [--urls 50000] [--mix 500000] [--repeat 3]
        [--large 500000] [--peers PYTHON] [--containers urlset index text]
        [--threads auto|off|gzip] [--arrow-import auto|first]

Each shape is a gzipped urlset of ``--urls`` entries (the matrix's shapes, then the lastmods
sites write outside the W3C forms: read_shapes.JUDGED, the lenient ones read in the core, the invalid ones
judged by the reader); the mix is also read at ``--mix``
entries (the issue's 500k ``.xml.gz``). ``--large N`` reads every shape again at N entries
(a second table, with its own target lines, after the first): at 50,000 entries a read is
mostly the interpreter's start and imports, at 500,000 mostly the work, so the two tables
tell start-up from speed. ``--containers index text`` adds each shape as a
gzipped sitemap index and text sitemap of as many entries (the loc and lastmod shapes and the
mix: the others are the plain shape there), each "vs plain" against the plain urlset. Each figure is the median of ``--repeat`` fresh
processes, wall seconds of the whole process (start-up and imports included, as a user waits):
``urlset read FILE -f jsonl -o /dev/null -q --verbose`` (the console script, as a user runs
it; ``--verbose`` prints the counters), a child
that calls ``read_arrow(FILE)`` once, on the mix a child that iterates ``read_file(FILE)``
(every entry a ``Url`` object), ``gzip -dc FILE > /dev/null`` (the floor), and, given
the peers' Python (bench/setup_peers.sh: bench/.venv-peers/bin/python), Scrapy's sitemap
reader through bench/peers/run.py. MB/s are of the decompressed XML; "vs plain" is the
shape's per-byte speed over the plain shape's (the issue's target: at least 0.5). The table
ends with one line per target of issue 26's read side, its measured ratio (CLI against
``gzip -dc`` on the mix, both paths and the objects against Scrapy, each path's slowest shape against plain,
``read_arrow`` against the CLI per byte). The load average is printed before and after:
figures from a busy machine are not comparable.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "read_shapes"
sys.path.insert(0, str(HERE))

import read_shapes  # noqa: E402  (bench/ on the path first)

ARROW_CHILD = "import sys\nfrom urlset.reading.arrow import read_arrow\nread_arrow(sys.argv[1])\n"
# the object path (issue 26: ``read_file()`` objects >= 10x Scrapy on the mix): every entry a
# ``Url``, as a program that iterates the read gets them, in a function as Scrapy's child
# consumes its entries (bench/peers/run.py): a loop at a module's top level stores each entry
# in the module's dict, ~5% of this read
OBJECTS_CHILD = (
    "import sys\nfrom urlset import read_file\n"
    "def main(path):\n    for _ in read_file(path):\n        pass\n"
    "main(sys.argv[1])\n"
)
# --arrow-import first: pyarrow imported before read_arrow is called, as read_arrow did before
# it imported it beside the read (reading/arrow.py _import_pyarrow_beside)
ARROW_IMPORT_FIRST = "import pyarrow  # noqa: F401\n"
# what the `urlset` console script runs (pyproject.toml [project.scripts])
CLI_CHILD = "import sys\nfrom urlset.cli import console\nconsole(sys.argv[1:])\n"
# --threads: the gzip thread whatever the machine's load says (auto, the default, as urlset
# reads: the gzip thread while a core is free, reading/sniff.py free_core_from); off: inflated
# inline; gzip: inflated ahead
THREADS = {
    "auto": "",
    **{
        name: f"from urlset.reading import sniff\nsniff.GZIP_THREAD_FROM = {gzip_from}\n"
        for name, gzip_from in (("off", "(1 << 62)"), ("gzip", "65536"))
    },
}


def _wall(command: list[str], *, stderr: bool = False) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False
    )
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"{command[:3]} failed ({done.returncode}): {done.stderr[-500:]}")
    return wall, done.stderr if stderr else ""


def _median(command: list[str], repeat: int) -> tuple[float, str]:
    runs = [_wall(command, stderr=True) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), runs[-1][1]


# the shapes that differ in each container (an index has locs and lastmods, a text sitemap
# locs only)
CONTAINER_SHAPES = {
    "urlset": (*read_shapes.SHAPES, *read_shapes.JUDGED),
    "index": (*read_shapes.LOCS, *read_shapes.LASTMODS, *read_shapes.JUDGED, "mix"),
    "text": (*read_shapes.LOCS, "mix"),
}
_MAKE = {"urlset": read_shapes.urlset, "index": read_shapes.index, "text": read_shapes.text}


def _file(shape: str, n: int, container: str = "urlset") -> tuple[Path, int]:
    """The shape's gzipped document of ``n`` entries in ``container``, and its decompressed
    size."""
    OUT.mkdir(parents=True, exist_ok=True)
    suffix = ".txt.gz" if container == "text" else ".xml.gz"
    name = shape if container == "urlset" else f"{container}-{shape}"
    path = OUT / f"{name}-{n}{suffix}"
    if path.exists():  # its size from the gzip trailer (ISIZE: the size mod 2**32)
        with path.open("rb") as f:
            f.seek(-4, os.SEEK_END)
            return path, int.from_bytes(f.read(4), "little")
    data = _MAKE[container](shape, n)
    path.write_bytes(gzip.compress(data, 6))
    return path, len(data)


def _scrapy(python: str, path: Path, repeat: int) -> float | None:
    runs = []
    for _ in range(repeat):
        done = subprocess.run(
            [python, str(HERE / "peers" / "run.py"), "scrapy", "read", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        try:
            row = json.loads(done.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            return None
        if row.get("error"):
            return None
        runs.append(row.get("wall_seconds") or row["seconds"])
    return float(statistics.median(runs))


def _row(
    shape: str, n: int, args: argparse.Namespace, container: str = "urlset"
) -> dict[str, object]:
    path, size = _file(shape, n, container)
    python = sys.executable
    first = THREADS[args.threads]
    cli, said = _median(
        [python, "-c", first + CLI_CHILD, "read", str(path), "-o", os.devnull, "-q", "--verbose"],
        args.repeat,
    )
    arrow_first = first + (ARROW_IMPORT_FIRST if args.arrow_import == "first" else "")
    arrow, _ = _median([python, "-c", arrow_first + ARROW_CHILD, str(path)], args.repeat)
    floor = statistics.median(
        _wall(["sh", "-c", f"gzip -dc '{path}' > /dev/null"])[0] for _ in range(args.repeat)
    )
    scrapy = _scrapy(args.peers, path, args.repeat) if args.peers else None
    objects = (  # the mix only (the target's shape) unless --objects all
        _median([python, "-c", first + OBJECTS_CHILD, str(path)], args.repeat)[0]
        if container == "urlset" and (shape == "mix" or args.objects == "all")
        else None
    )
    counts = said.strip().splitlines()[-1].removeprefix("urlset read: ") if said.strip() else ""
    return {
        "shape": shape if container == "urlset" else f"{container}:{shape}",
        "urls": n,
        "xml_mb": size / 1e6,
        "cli_s": cli,
        "arrow_s": arrow,
        "gzip_dc_s": floor,
        "scrapy_s": scrapy,
        "objects_s": objects,
        "counts": counts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=50_000)
    parser.add_argument("--mix", type=int, default=500_000)
    parser.add_argument(
        "--large",
        type=int,
        default=0,
        help="also read every shape at this many entries, in a table of its own (0: not)",
    )
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--peers", help="the peers' Python, for Scrapy")
    parser.add_argument(
        "--threads",
        choices=list(THREADS),
        default="auto",
        help="urlset's gzip thread whatever the load: off (inflating inline), gzip "
        "(inflating ahead); auto: as urlset reads (inflating ahead while a core is free)",
    )
    parser.add_argument(
        "--arrow-import",
        choices=["auto", "first"],
        default="auto",
        help="first: the read_arrow child imports pyarrow before reading (auto: read_arrow "
        "imports it beside the read while a core is free)",
    )
    parser.add_argument("--shapes", nargs="*", default=[*read_shapes.SHAPES, *read_shapes.JUDGED])
    parser.add_argument(
        "--objects",
        choices=["mix", "all"],
        default="mix",
        help="time read_file() to objects on the mix only (its target) or on every urlset shape",
    )
    parser.add_argument(
        "--containers", nargs="*", default=["urlset"], choices=list(CONTAINER_SHAPES)
    )
    args = parser.parse_args()
    print(f"load before: {os.getloadavg()}")
    rows = _matrix(args.urls, args)
    if args.mix and not (args.large == args.mix and "mix" in args.shapes):
        rows.append(_row("mix", args.mix, args))
    _table(rows)
    if args.large:
        print(f"\nevery shape at {args.large:,} entries (load {os.getloadavg()})")
        large = _matrix(args.large, args)
        _table(large)
        if args.mix == args.large and "mix" in args.shapes:
            rows.append(next(r for r in large if r["shape"] == "mix"))  # the mix
    for line in _targets(rows):
        print(line)
    if args.large:
        for line in _targets(large, f" at {args.large:,}"):
            print(line)
    print(f"load after: {os.getloadavg()}")


def _matrix(n: int, args: argparse.Namespace) -> list[dict[str, object]]:
    """Every shape of ``--shapes`` at ``n`` entries, in each container; plain first."""
    rows = []
    for container in args.containers:
        shapes = [s for s in args.shapes if s in CONTAINER_SHAPES[container]]
        if container != "urlset" and "plain" not in shapes:
            shapes.insert(0, "plain")
        rows += [_row(shape, n, args, container) for shape in shapes]
    if not any(r["shape"] == "plain" for r in rows):
        rows.insert(0, _row("plain", n, args))  # what "vs plain" compares with
    return rows


def _table(rows: list[dict[str, object]]) -> None:
    plain = next((r for r in rows if r["shape"] == "plain"), None)
    wide = max(len(str(r["shape"])) for r in rows)
    head = f"{'shape':{wide}} {'urls':>7} {'MB':>6} {'cli s':>6} {'MB/s':>6} {'vs plain':>8} "
    head += f"{'arrow s':>7} {'MB/s':>6} {'gzip -dc':>8} {'cli/gz':>6} {'scrapy':>7}"
    print(head + f" {'objects':>7} {'MB/s':>6}  left")
    for r in rows:
        mb, cli, arrow = float(r["xml_mb"]), float(r["cli_s"]), float(r["arrow_s"])  # type: ignore[arg-type]
        base = float(plain["xml_mb"]) / float(plain["cli_s"]) if plain else None  # type: ignore[arg-type]
        versus = f"{mb / cli / base:8.2f}" if base else f"{'':8}"
        scrapy = r["scrapy_s"]
        print(
            f"{r['shape']:{wide}} {r['urls']:>7} {mb:6.1f} {cli:6.2f} {mb / cli:6.1f} {versus} "
            f"{arrow:7.2f} {mb / arrow:6.1f} {r['gzip_dc_s']:8.2f} "
            f"{cli / float(r['gzip_dc_s']):6.1f} "  # type: ignore[arg-type]
            f"{'' if scrapy is None else f'{scrapy:7.2f}':>7} {_objects(r)}  {r['counts']}"
        )


def _objects(row: dict[str, object]) -> str:
    """The row's ``read_file()`` objects time and MB/s, or blanks when not timed."""
    objects = row["objects_s"]
    if objects is None:
        return f"{'':7} {'':6}"
    seconds = float(objects)  # type: ignore[arg-type]
    return f"{seconds:7.2f} {float(row['xml_mb']) / seconds:6.1f}"  # type: ignore[arg-type]


def _targets(rows: list[dict[str, object]], at: str = "") -> list[str]:
    """One line per target of issue 26's read side, each with its measured ratio (``at``:
    said after each target's name, the size of a --large table)."""
    speed = {  # MB/s per path and shape
        path: {str(r["shape"]): float(r["xml_mb"]) / float(r[f"{path}_s"]) for r in rows}  # type: ignore[arg-type]
        for path in ("cli", "arrow")
    }
    lines = []
    # the mix is the --mix row, read last (the matrix's mix row is --urls entries)
    mix = next((r for r in reversed(rows) if r["shape"] == "mix"), None)
    if mix is not None:
        cli, arrow = float(mix["cli_s"]), float(mix["arrow_s"])  # type: ignore[arg-type]
        gz = float(mix["gzip_dc_s"])  # type: ignore[arg-type]
        lines.append(f"target mix CLI within 2x of gzip -dc: {cli / gz:.2f}x")
        scrapy = mix["scrapy_s"]
        if scrapy is not None:
            s = float(scrapy)  # type: ignore[arg-type]
            lines.append(f"target mix CLI >= 20x Scrapy: {s / cli:.1f}x")
            lines.append(f"target mix read_arrow >= 20x Scrapy: {s / arrow:.1f}x")
            if mix["objects_s"] is not None:
                objects = float(mix["objects_s"])  # type: ignore[arg-type]
                lines.append(
                    f"target mix read_file() objects >= 10x Scrapy: {s / objects:.1f}x "
                    f"({objects:.2f} s)"
                )
    peer = [r for r in rows if r["scrapy_s"] is not None]
    for path, name in (("cli", "CLI"), ("arrow", "read_arrow")):
        if peer:
            times = {str(r["shape"]): float(r["scrapy_s"]) / float(r[f"{path}_s"]) for r in peer}  # type: ignore[arg-type]
            worst = min(times, key=lambda shape: times[shape])
            lines.append(
                f"target {name} >= 20x Scrapy on every shape: {times[worst]:.1f}x ({worst})"
            )
    for path in ("cli", "arrow"):
        plain = speed[path].get("plain")
        if plain:
            worst = min(speed[path], key=lambda shape: speed[path][shape])
            ratio = speed[path][worst] / plain
            lines.append(
                f"target {path} every shape >= 0.5 of plain per byte: {ratio:.2f} ({worst})"
            )
    slowest = min(speed["arrow"], key=lambda shape: speed["arrow"][shape] / speed["cli"][shape])
    ratio = speed["arrow"][slowest] / speed["cli"][slowest]
    lines.append(f"target read_arrow as fast as the CLI per byte: {ratio:.2f} at worst ({slowest})")
    return [line.replace(":", f"{at}:", 1) for line in lines]


if __name__ == "__main__":
    main()

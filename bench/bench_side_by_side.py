"""check and diff side by side with read, on the same files (issue 26's targets).

    .venv/bin/python bench/bench_side_by_side.py [--urls 1000000] [--repeat 3]
    .venv/bin/python bench/bench_side_by_side.py --shapes [--urls 200000] [--repeat 3]
    .venv/bin/python bench/bench_side_by_side.py --diff [--phases] [--urls 1000000] [--repeat 3]

Inputs, generated into bench/out/side-by-side/ (once per size; delete them to regenerate):

* ``shop-N.xml``: one site's urlset as a CMS publishes it: a distinct lastmod per URL in
  offsets Z, +01:00, -05:00, +05:30, a third with fractions; percent-encoded non-ASCII
  paths; queries with ``&amp;`` and ``&apos;``; changefreq and priority in half; an image
  on every 10th URL;
* ``shop-N-new.xml``: the same with 1.3% of the lastmods moved forward;
* ``mix-N.xml``: bench_read.py's mix (four hosts, an IDN host, IRIs, long locs; an image
  every 10th URL): the hard case for check (every record's host judged).

``--shapes``: check against read on a urlset of every shape of bench/read_shapes.py (plain,
IRI, ``&``, ``'``, ``%``, port, dev host, each lastmod form, image, video, news, hreflang, an
unknown namespace, and their mix), one ratio line per shape, instead of the files above
(``--only hreflang,mix``: those shapes alone).

``--formats``: the same for each kind of document the protocol allows, each as large as it
may be listed or ``--urls``: a urlset (the plain shape), a text sitemap, a sitemap index of
50,000 refs one a line and pretty-printed (no child on disk: each is looked for), an RSS 2.0
and an Atom feed of 50,000 items; then the urlset, the text sitemap and the index gzipped
(level 6), as sites serve them.

Each command runs in its own process; the figures are its CPU time (user + system) and
peak resident set, the median of ``--repeat`` runs. Targets: check <= 1.5x read's CPU and
<= 2x its memory on the same file; diff of the two files <= 2x reading both (``--diff``:
that target alone, its ratio line last).
"""

from __future__ import annotations

import argparse
import gzip
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "side-by-side"
URLSET = [sys.executable, "-c", "import sys; from urlset.cli import main; sys.exit(main())"]
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
# byte-compiled modules, as an installed package has them (PYTHONDONTWRITEBYTECODE would have
# each command compile its modules again: more of them for check than for read)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
OFFSETS = [timezone(timedelta(hours=h, minutes=m)) for h, m in ((0, 0), (1, 0), (-5, 0), (5, 30))]


def shop(path: Path, n: int, moved: float = 0.0) -> None:
    """The CMS-like urlset (see the module doc); ``moved``: the share of lastmods moved."""
    rnd = random.Random(26)
    start = datetime(2024, 1, 1)
    freqs = ("daily", "weekly", "monthly")
    with path.open("w", encoding="utf-8") as f:
        f.write(
            f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{IMAGE_NS}">\n'
        )
        for i in range(n):
            page = f"caf%C3%A9-{i}" if i % 20 == 0 else f"item-{i}"
            query = f"?q={i}&amp;it&apos;s=1" if i % 10 == 3 else ""
            seconds = i + (17 if moved and rnd.random() < moved else 0)
            when = (start + timedelta(seconds=seconds)).replace(tzinfo=OFFSETS[i % 4])
            spec = ("milliseconds" if i % 2 else "microseconds") if i % 3 == 0 else "seconds"
            lastmod = when.isoformat(timespec=spec).replace("+00:00", "Z")
            extra = (
                f"<changefreq>{freqs[i % 3]}</changefreq><priority>0.{i % 10}</priority>"
                if i % 2 == 0
                else ""
            )
            image = (
                f"<image:image><image:loc>https://www.urlset-shop.com/img/{i}.jpg</image:loc></image:image>"
                if i % 10 == 0
                else ""
            )
            f.write(
                f"<url><loc>https://www.urlset-shop.com/products/{page}{query}</loc>"
                f"<lastmod>{lastmod}</lastmod>{extra}{image}</url>\n"
            )
        f.write("</urlset>\n")


def mix(path: Path, n: int) -> None:
    sys.path.insert(0, str(HERE))
    from bench_read import mixed_with_images

    path.write_bytes(mixed_with_images(n, 10))


def measure(args: list[str]) -> tuple[float, int]:
    """CPU seconds (user + system) and peak RSS (KB) of one command in its own process."""
    cpu, _, peak = timed(args)
    return cpu, peak


def timed(args: list[str]) -> tuple[float, float, int]:
    """CPU seconds (user + system), wall seconds and peak RSS (KB) of one command in its own
    process, by /usr/bin/time (a child's ru_maxrss would start from this process's
    high-water mark)."""
    with tempfile.NamedTemporaryFile("r") as log, open(os.devnull, "wb") as null:
        command = ["/usr/bin/time", "-o", log.name, "-f", "%U %S %e %M", *URLSET, *args]
        subprocess.run(command, stdout=null, stderr=null, check=False, env=ENV)
        user, system, wall, peak = log.read().split()[-4:]
    return float(user) + float(system), float(wall), int(peak)


def median(args: list[str], repeat: int) -> tuple[float, int]:
    runs = [measure(args) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), int(statistics.median(r[1] for r in runs))


def shape_file(shape: str, n: int) -> Path:
    """A urlset of ``n`` entries of one shape of bench/read_shapes.py (made once)."""
    sys.path.insert(0, str(HERE))
    import read_shapes

    path = OUT / f"shape-{shape}-{n}.xml"
    if not path.exists():
        path.write_bytes(read_shapes.urlset(shape, n))
    return path


def shapes(n: int, repeat: int, only: list[str] | None = None) -> None:
    """check vs read on every shape (or those of ``only``)."""
    sys.path.insert(0, str(HERE))
    import read_shapes

    side_by_side([(shape, shape_file(shape, n)) for shape in only or read_shapes.SHAPES], repeat)


def format_files(n: int) -> list[tuple[str, Path]]:
    """One document of each kind the protocol allows (see the module doc), made once."""
    few = min(n, 50_000)  # an index's limit; feeds are small in practice
    site = "https://www.example.com"
    declaration = '<?xml version="1.0" encoding="UTF-8"?>\n'

    def index(layout: str) -> str:
        refs = (
            layout.format(loc=f"{site}/sitemaps/s-{i}.xml.gz", lastmod=f"2024-05-{1 + i % 28:02d}")
            for i in range(few)
        )
        return f'{declaration}<sitemapindex xmlns="{NS}">\n{"".join(refs)}</sitemapindex>\n'

    rss_item = (
        "<item><title>Post {i}</title><link>{url}</link><pubDate>Mon, 06 May 2024 10:{m:02d}:00"
        " +0000</pubDate><guid>{url}</guid></item>\n"
    )
    atom_entry = (
        '<entry><title>Post {i}</title><link href="{url}"/><id>{url}</id>'
        "<updated>2024-05-06T10:{m:02d}:00Z</updated></entry>\n"
    )

    def items(form: str) -> str:
        return "".join(form.format(i=i, url=f"{site}/posts/{i}", m=i % 60) for i in range(few))

    made: dict[str, tuple[str, Callable[[], str]]] = {
        "text": (f"format-text-{n}.txt", lambda: "".join(f"{site}/p/{i}?a=b\n" for i in range(n))),
        "index": (
            f"format-index-{few}.xml",
            lambda: index("<sitemap><loc>{loc}</loc><lastmod>{lastmod}</lastmod></sitemap>\n"),
        ),
        "index, pretty-printed": (
            f"format-index-pretty-{few}.xml",
            lambda: index(
                "  <sitemap>\n    <loc>{loc}</loc>\n    <lastmod>{lastmod}</lastmod>\n"
                "  </sitemap>\n"
            ),
        ),
        "RSS 2.0": (
            f"format-rss-{few}.xml",
            lambda: (
                f'{declaration}<rss version="2.0"><channel><title>t</title><link>{site}/'
                f"</link><description>d</description>\n{items(rss_item)}</channel></rss>\n"
            ),
        ),
        "Atom": (
            f"format-atom-{few}.xml",
            lambda: (
                f'{declaration}<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>'
                f"<id>urn:t</id><updated>2024-05-06T10:00:00Z</updated>\n{items(atom_entry)}</feed>\n"
            ),
        ),
    }
    for name, text in made.values():
        if not (OUT / name).exists():
            (OUT / name).write_text(text(), encoding="utf-8")
    files = [("urlset", shape_file("plain", n))] + [
        (label, OUT / name) for label, (name, _) in made.items()
    ]
    for label, path in files[:3]:
        zipped = path.with_name(path.name + ".gz")
        if not zipped.exists():
            zipped.write_bytes(gzip.compress(path.read_bytes(), 6))
        files.append((f"{label}, gzipped", zipped))
    return files


def side_by_side(files: list[tuple[str, Path]], repeat: int) -> None:
    """check vs read on each file, runs alternated so a change of load hits both alike."""
    now = "2026-01-01T00:00:00Z"
    print("| file | read CPU (s) | check CPU (s) | read RSS (MB) | check RSS (MB) | CPU | memory |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    worst = (0.0, 0.0)
    for shape, file in files:
        path = str(file)
        measure(["check", path, "-o", os.devnull])  # the modules byte-compiled once
        reads, checks = [], []
        for _ in range(repeat):
            reads.append(measure(["read", path, "-o", os.devnull, "-q"]))
            checks.append(measure(["check", path, "--now", now, "-o", os.devnull]))
        read = statistics.median(r[0] for r in reads), statistics.median(r[1] for r in reads)
        check = statistics.median(c[0] for c in checks), statistics.median(c[1] for c in checks)
        cpu, memory = check[0] / read[0], check[1] / read[1]
        worst = (max(worst[0], cpu), max(worst[1], memory))
        print(
            f"| {shape} | {read[0]:.2f} | {check[0]:.2f} | {read[1] / 1024:.0f} "
            f"| {check[1] / 1024:.0f} | {cpu:.2f}x | {memory:.2f}x |"
        )
    print(
        f"worst: check {worst[0]:.2f}x read's CPU (target 1.5x), {worst[1]:.2f}x its memory (target 2x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shapes", action="store_true", help="check vs read on every shape")
    parser.add_argument(
        "--only", default="", help="with --shapes: these shapes alone (comma-separated)"
    )
    parser.add_argument(
        "--formats", action="store_true", help="check vs read on each kind of document"
    )
    parser.add_argument("--diff", action="store_true", help="the diff target only")
    parser.add_argument("--phases", action="store_true", help="with --diff: the diff's phases")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    n = args.urls
    files: dict[str, Callable[[Path], None]] = {
        f"shop-{n}.xml": lambda p: shop(p, n),
        f"shop-{n}-new.xml": lambda p: shop(p, n, 0.013),
        f"mix-{n}.xml": lambda p: mix(p, n),
    }
    for name, make in files.items():
        wanted = not (args.shapes or args.formats) and not (args.diff and name.startswith("mix"))
        if wanted and not (OUT / name).exists():
            make(OUT / name)
    load = os.getloadavg()
    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} cores, load {load[0]:.1f} {load[1]:.1f}"
        f" {load[2]:.1f}; CPU s (user + sys) and peak RSS, median of {args.repeat}"
    )
    if args.shapes:
        shapes(n, args.repeat, [s for s in args.only.split(",") if s] or None)
        return
    if args.formats:
        side_by_side(format_files(n), args.repeat)
        return
    if args.diff:
        if args.phases:
            diff_phases(n)
        print("| work | file | CPU (s) | peak RSS (MB) | vs read: CPU | memory |")
        print("|---|---|---:|---:|---:|---:|")
        diff_target(n, args.repeat)
        return
    print("| work | file | CPU (s) | peak RSS (MB) | vs read: CPU | memory |")
    print("|---|---|---:|---:|---:|---:|")
    now = "2026-01-01T00:00:00Z"
    targets = []
    for name in (f"shop-{n}.xml", f"mix-{n}.xml"):
        path = str(OUT / name)
        read = median(["read", path, "-o", os.devnull, "-q"], args.repeat)
        check = median(["check", path, "--now", now, "-o", os.devnull], args.repeat)
        print(f"| read | {name} | {read[0]:.2f} | {read[1] / 1024:.0f} | | |")
        print(
            f"| check | {name} | {check[0]:.2f} | {check[1] / 1024:.0f} "
            f"| {check[0] / read[0]:.2f}x | {check[1] / read[1]:.2f}x |"
        )
        cpu, memory = check[0] / read[0], check[1] / read[1]
        held = "held" if cpu <= 1.5 and memory <= 2 else "not held"
        targets.append(
            f"check {name}: {cpu:.2f}x read's CPU (target 1.5x), {memory:.2f}x its memory "
            f"(target 2x): {held}"
        )
    print("\n".join(targets))
    diff_target(n, args.repeat)


def diff_target(n: int, repeat: int) -> None:
    """diff of shop-N.xml and shop-N-new.xml (to JSON Lines) against reading both (``urlset
    read`` of each to JSON Lines, one after the other), runs alternated so a change of load
    hits both alike; the table's rows (CPU), then the target's ratio line (wall time; CPU
    beside it)."""
    old, new = str(OUT / f"shop-{n}.xml"), str(OUT / f"shop-{n}-new.xml")
    reads: list[tuple[float, float, int]] = []
    diffs: list[tuple[float, float, int]] = []
    for _ in range(repeat):
        one, other = (timed(["read", p, "-o", os.devnull, "-q"]) for p in (old, new))
        reads.append((one[0] + other[0], one[1] + other[1], max(one[2], other[2])))
        diffs.append(timed(["diff", old, new, "-f", "jsonl", "-q", "-o", os.devnull]))
    read = [statistics.median(r[i] for r in reads) for i in range(3)]
    diff = [statistics.median(d[i] for d in diffs) for i in range(3)]
    print(f"| read both | shop-{n}.xml, -new | {read[0]:.2f} | {read[2] / 1024:.0f} | | |")
    print(
        f"| diff | shop-{n}.xml -> -new | {diff[0]:.2f} | {diff[2] / 1024:.0f} "
        f"| {diff[0] / read[0]:.2f}x | |"
    )
    # the target is time, as a user waits for it: the diff reads its two sides at once, on
    # two cores where the two reads run one after the other; CPU beside it
    print(
        f"target diff / read both ({n:,} URLs a side, 1.3% changed): wall {diff[1]:.2f} s / "
        f"{read[1]:.2f} s = {diff[1] / read[1]:.2f}x (target <= 2x); CPU {diff[0]:.2f} s / "
        f"{read[0]:.2f} s = {diff[0] / read[0]:.2f}x; diff peak RSS {diff[2] / 1024:.0f} MB, "
        f"a read's {read[2] / 1024:.0f} MB"
    )


PHASES = r"""
import os, resource, sys, time

last = [time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)]


def mark(what):
    now, use = time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    cpu = use.ru_utime + use.ru_stime - last[1].ru_utime - last[1].ru_stime
    with open("/proc/self/status") as f:
        rss = next(int(line.split()[1]) for line in f if line.startswith("VmRSS"))
    print(f"| {what} | {now - last[0]:.2f} | {cpu:.2f} | {use.ru_stime - last[1].ru_stime:.2f} "
          f"| {rss / 1024:.0f} | {use.ru_maxrss / 1024:.0f} |")
    last[:] = [now, use]


print("| phase | wall (s) | CPU (s) | of which system | RSS after (MB) | peak (MB) |")
print("|---|---:|---:|---:|---:|---:|")
from urlset.cli.streams import Output
from urlset.store.db import connect
from urlset.store.diff import _load_both, diff_sides
from urlset.store.report import write_jsonl

mark("imports (urlset, DuckDB)")
con = connect()
mark("connect")
old, new = _load_both(con, sys.argv[1], sys.argv[2], None)
mark("read both sides into DuckDB (at once)")
diff = diff_sides(con, old, new, examples=0)
mark("join and compare")
with open(os.devnull, "w", encoding="utf-8") as f:
    out = Output(f, "null")
    write_jsonl(diff, out)
    out.flush()
mark("write the rows (JSON Lines)")
print(f"{diff.counts['changed']:,} changed of {diff.counts['old_urls']:,}")
"""


def diff_phases(n: int) -> None:
    """The diff's phases, in one process: wall, CPU and memory of each."""
    old, new = str(OUT / f"shop-{n}.xml"), str(OUT / f"shop-{n}-new.xml")
    subprocess.run([sys.executable, "-c", PHASES, old, new], check=True, env=ENV)


if __name__ == "__main__":
    main()

"""Instructions per URL of a read, counted by valgrind (callgrind): exact before/after
figures on a shared machine where timings swing.

    .venv/bin/python bench/bench_read_instructions.py [--urls 10000] [--python PATH --src DIR]

For each file (the first ``--urls`` records of bench_read.py's 50,000-URL file and of its
mixed file, plain and gzipped), a child process reads it through ``SitemapReader.feed()`` in
256 KiB chunks under ``valgrind --tool=callgrind``, once reading it 3 times and once reading
it once; the difference over twice the entries read is the read's instructions per URL
(imports and first-use costs cancel). ``--python``/``--src`` measure another installation
(an older checkout) the same way.

``--floor`` adds, for each file, what the objects a read hands back cost by themselves: the
same loc str, lastmod date/datetime, changefreq, priority float and ``Url`` tuple of each
record, made from inputs prepared beforehand by the cheapest calls Python offers (C loops:
``bytes.decode``, ``datetime(state, tzinfo)``, ``tuple.__new__``), kept in a list and freed,
the collector off as in the reader's loop. A read cannot cost less than that.
"""

from __future__ import annotations

import argparse
import gzip
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_read import files, mixed_with_images

CHILD = r"""
import sys
from urlset.reading.reader import SitemapReader
data = open(sys.argv[1], "rb").read()
for _ in range(int(sys.argv[2])):
    reader = SitemapReader(sys.argv[1])
    for i in range(0, len(data), 262144):
        reader.feed(data[i : i + 262144])
    reader.close()
print(reader.entries)
"""

FLOOR = r"""
import gc, sys
from itertools import repeat, starmap
from urlset.model import Url
from urlset.reading.reader import SitemapReader
data = open(sys.argv[1], "rb").read()
reader = SitemapReader(sys.argv[1])
urls = [e for e in reader.feed(data) + reader.close() if type(e) is Url]
assert all(u.lastmod is not None and u.priority is not None for u in urls)
locs = [u.loc.encode() for u in urls]
kind = type(urls[0].lastmod)
assert all(type(u.lastmod) is kind for u in urls)
states = [u.lastmod.__reduce__()[1] for u in urls]  # (state,) or (state, tzinfo)
tenths = [round(u.priority * 10) for u in urls]
freqs = [u.changefreq for u in urls]
n = len(urls)
del reader, urls
gc.disable()
for _ in range(int(sys.argv[2])):
    made_locs = list(map(bytes.decode, locs))
    lastmods = list(starmap(kind, states))
    priorities = list(map(float, tenths))
    out = list(map(tuple.__new__, repeat(Url, n), zip(made_locs, lastmods, freqs, priorities, repeat((), n))))
    del made_locs, lastmods, priorities, out
print(n)
"""


def head(data: bytes, n: int) -> bytes:
    """The document with only its first ``n`` records."""
    end = 0
    for _ in range(n):
        end = data.index(b"</url>", end) + len(b"</url>")
    return data[:end] + b"\n</urlset>\n"


def instructions(
    python: str, src: str | None, path: Path, times: int, child: str = CHILD
) -> tuple[int, int]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        done = subprocess.run(
            [
                *("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"),
                *(python, "-c", child, str(path), str(times)),
            ],
            capture_output=True,
            text=True,
            check=True,
            env=os.environ if src is None else {**os.environ, "PYTHONPATH": src},
        )
        found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
        assert found is not None
        return int(found.group(1)), int(done.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--urls", type=int, default=10_000)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--src", help="the src folder of the urlset to measure (PYTHONPATH)")
    parser.add_argument(
        "--only-images",
        type=int,
        metavar="N",
        help="only the mix with an image on every Nth URL (0: none)",
    )
    parser.add_argument("--floor", action="store_true", help="also the objects' own cost")
    args = parser.parse_args()
    if args.only_images is not None:  # 0: the same file without images
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "mixed-images.xml"
            path.write_bytes(mixed_with_images(args.urls, args.only_images))
            three, entries = instructions(args.python, args.src, path, 3)
            one, _ = instructions(args.python, args.src, path, 1)
            print(
                f"| mixed, an image every {args.only_images} | {(three - one) / (2 * entries):,.0f} |"
            )
        return
    made = files()
    print(f"first {args.urls:,} records, {args.python}" + (f", src {args.src}" if args.src else ""))
    print("| file | instructions per URL |\n|---|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, source in (("50k", made["50k"]), ("mixed", made["mixed-50k"])):
            plain = head(source.read_bytes(), args.urls)
            for suffix, data in (("", plain), ("-gz", gzip.compress(plain, mtime=0))):
                path = Path(tmp) / f"{name}{suffix}.xml"
                path.write_bytes(data)
                three, entries = instructions(args.python, args.src, path, 3)
                one, _ = instructions(args.python, args.src, path, 1)
                print(f"| {name}{suffix} | {(three - one) / (2 * entries):,.0f} |", flush=True)
            if args.floor:
                path = Path(tmp) / f"{name}.xml"
                three, entries = instructions(args.python, args.src, path, 3, FLOOR)
                one, _ = instructions(args.python, args.src, path, 1, FLOOR)
                floor = (three - one) / (2 * entries)
                print(f"| {name}: its objects alone (floor) | {floor:,.0f} |", flush=True)


if __name__ == "__main__":
    main()

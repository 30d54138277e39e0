"""Check benchmark: checking vs reading the same files.

    .venv/bin/python bench/bench_check.py [--repeat 5] [--schema]

Three files are generated into bench/out/check/ (once; delete them to regenerate):

* ``urlset-50k.xml``: 50,000 URLs with lastmod, changefreq and priority (about 8 MB);
* ``urlset-50mib.xml``: 50,000 URLs with long locs, just under the protocol's
  52,428,800-byte limit;
* ``urlset-images-10k.xml``: 10,000 URLs with three image:image extensions each (the
  reader's lxml lane rather than its fast lane).

For each file the reader (``read_file``, every entry iterated) and the checker
(``check_file`` with the file's URL as base and a fixed ``now``, so scope and future-date
rules run) are timed in the same process, alternating, best of ``--repeat`` runs. The
target is a ratio check/read of at most 2 (checking at least half as fast as reading).
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

from urlset import CURRENT, read_file
from urlset.checking.checker import CheckOptions, check_file

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "check"
SITE = "https://www.urlset-bench.org/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
N = 50_000


def _head(extra: str = "") -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"{extra}>\n'
    )


def make_plain(path: Path) -> None:
    freqs = ("daily", "weekly", "monthly")
    with path.open("w", encoding="utf-8") as f:
        f.write(_head())
        for i in range(N):
            f.write(
                f"<url><loc>{SITE}catalog/{i % 97}/item-{i}.html?ref=sitemap&amp;v={i % 7}</loc>"
                f"<lastmod>2025-{1 + i % 12:02d}-{1 + i % 28:02d}T10:{i % 60:02d}:00+00:00</lastmod>"
                f"<changefreq>{freqs[i % 3]}</changefreq><priority>0.{i % 10}</priority></url>\n"
            )
        f.write("</urlset>\n")


def make_large(path: Path) -> None:
    """50,000 URLs with long locs, padded so that the file ends just under the byte limit."""
    head = _head()
    tail = "</urlset>\n"

    def record(i: int, pad: int) -> str:
        words = "-".join(f"w{(i * 7 + k) % 1000}" for k in range(12))
        return (
            f"<url><loc>{SITE}guides/{i % 211}/{words}/{'p' * pad}-{i}.html</loc>"
            f"<lastmod>2025-06-{1 + i % 28:02d}</lastmod>"
            f"<changefreq>weekly</changefreq><priority>0.5</priority></url>\n"
        )

    fixed = len(head) + len(tail) + sum(len(record(i, 0)) for i in range(N))
    pad = (CURRENT.max_bytes - 4096 - fixed) // N
    with path.open("w", encoding="utf-8") as f:
        f.write(head)
        for i in range(N):
            f.write(record(i, pad))
        f.write(tail)


def make_images(path: Path) -> None:
    """10,000 URLs with three image:image extensions each: the reader's lxml lane."""
    with path.open("w", encoding="utf-8") as f:
        f.write(_head(f' xmlns:image="{IMAGE_NS}"'))
        for i in range(10_000):
            images = "".join(
                f"<image:image><image:loc>{SITE}cdn/img/{i}/{k}.jpg</image:loc>"
                f"<image:caption>Product {i} view {k} &amp; detail</image:caption></image:image>"
                for k in range(3)
            )
            f.write(
                f"<url><loc>{SITE}products/{i}</loc><lastmod>2025-06-{1 + i % 28:02d}</lastmod>"
                f"{images}</url>\n"
            )
        f.write("</urlset>\n")


def read_all(path: Path) -> int:
    return sum(1 for _ in read_file(path))


def best(fn: Callable[[], object], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--schema", action="store_true", help="also time check with --schema")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    files = {
        "urlset-50k.xml": make_plain,
        "urlset-50mib.xml": make_large,
        "urlset-images-10k.xml": make_images,
    }
    for name, make in files.items():
        if not (OUT / name).exists():
            make(OUT / name)

    print(
        f"# {datetime.now(UTC):%Y-%m-%d %H:%M} UTC, {platform.python_implementation()} "
        f"{platform.python_version()}, {os.cpu_count()} cores, {platform.machine()}"
    )
    print(
        "| file | bytes | URLs | read (s) | check (s) | check/read |"
        + (" check --schema (s) |" if args.schema else "")
    )
    print("|---|---:|---:|---:|---:|---:|" + ("---:|" if args.schema else ""))
    for name in files:
        path = OUT / name
        options = CheckOptions(base_url=SITE + name, now=NOW)
        result = check_file(path, options)
        # clean of problems; notes (severity info, e.g. image fields Google ignores) allowed
        problems = [i for i in result.issues if i.severity != "info"]
        if problems:
            sys.exit(f"{name}: the benchmark file should check clean: {problems[:3]}")
        reads: list[float] = []
        checks: list[float] = []
        for _ in range(args.repeat):  # alternate, so that machine noise hits both
            reads += best(partial(read_all, path), 1)
            checks += best(partial(check_file, path, options), 1)
        r, c = min(reads), min(checks)
        row = (
            f"| {name} | {path.stat().st_size:,} | {result.entries:,} | {r:.3f} | {c:.3f} "
            f"| {c / r:.2f} |"
        )
        if args.schema:
            with_schema = CheckOptions(base_url=SITE + name, now=NOW, schema=True)
            s = min(best(partial(check_file, path, with_schema), args.repeat))
            row += f" {s:.3f} |"
        print(row)


if __name__ == "__main__":
    main()

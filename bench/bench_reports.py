"""HTML report benchmark: what a report adds to the command that makes it.

    .venv/bin/python bench/bench_reports.py [--files 20] [--repeat 3]

``--files`` sitemaps of 50,000 URLs each (1,000,000 by default) are generated into
bench/out/reports/ once (delete them to regenerate): locs over 60 sections with queries
(``&amp;``) and escaped non-ASCII, lastmods over 2016-2026 (one in ten without), a
changefreq and priority. Timed in one process, best of ``--repeat``:

* ``check``: ``check_paths`` on the directory (what ``urlset check`` does before its output);
* ``counted check``: ``check_paths`` with ``gather.UrlCounter`` as ``on_urls``, the report's URL
  counts gathered in the check's own pass (what ``urlset check --format html`` does); the
  difference with ``check`` is what the counts cost;
* ``render``: ``check_html``, the page and its four charts (matplotlib imported before);
* ``stream counts``: ``UrlStats.add_columns`` over the same URLs as columns, which is what
  ``fetch --report`` adds per sitemap read;
* ``diff rows``: ``DiffStats.add`` over 1,000,000 changed rows like a diff's (what ``diff
  --format html`` adds to reading the rows out of DuckDB).

Also printed: matplotlib's import time (a fresh interpreter), the page's size and rows.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from urlset.checking.checker import CheckOptions, check_paths
from urlset.reading.output import UrlColumns
from urlset.reading.reader import read_file
from urlset.reports.check import check_html
from urlset.reports.diff import DiffStats
from urlset.reports.gather import UrlCounter
from urlset.reports.stats import UrlStats

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "reports"
SITE = "https://www.urlset-bench.org/"
NOW = datetime(2026, 11, 1, tzinfo=UTC)
PER_FILE = 50_000


def make(path: Path, first: int) -> None:
    freqs = ("daily", "weekly", "monthly")
    with path.open("w", encoding="utf-8") as f:
        f.write(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        )
        for i in range(first, first + PER_FILE):
            lastmod = (
                ""
                if i % 10 == 0
                else f"<lastmod>{2016 + i % 11}-{1 + i % 12:02d}-{1 + i % 28:02d}</lastmod>"
            )
            f.write(
                f"<url><loc>{SITE}s{(i * 7) % 60}/caf%C3%A9-{i}.html?ref=map&amp;v={i % 7}</loc>"
                f"{lastmod}<changefreq>{freqs[i % 3]}</changefreq><priority>0.{i % 10}</priority>"
                "</url>\n"
            )
        f.write("</urlset>\n")


def best(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return min(times), result


def columns_of(files: list[Path]) -> list[UrlColumns]:
    from urlset import Url

    found = []
    for path in files:
        urls = [e for e in read_file(path) if type(e) is Url]
        found.append(UrlColumns.from_urls(urls))
    return found


def diff_rows(n: int) -> list[dict[str, Any]]:
    kinds = ("added", "removed", "changed", "changed", "moved")
    rows = []
    for i in range(n):
        kind = kinds[i % 5]
        rows.append(
            {
                "change": kind,
                "loc": f"{SITE}s{(i * 7) % 60}/caf%C3%A9-{i}.html?ref=map&v={i % 7}",
                "fields": "lastmod"
                if kind == "changed"
                else "sitemap"
                if kind == "moved"
                else None,
                "lastmod_change": "forward" if kind == "changed" else None,
                "old_lastmod": f"2024-{1 + i % 12:02d}-01",
                "new_lastmod": f"2026-{1 + i % 10:02d}-01",
                "old_sitemap": f"sitemap-{i % 20}.xml",
                "new_sitemap": f"sitemap-{(i + 1) % 20}.xml",
            }
        )
    return rows


def import_seconds() -> float:
    code = "import time; t = time.perf_counter(); import matplotlib.figure; print(time.perf_counter() - t)"
    runs = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, text=True, check=True
            ).stdout
        )
        for _ in range(3)
    ]
    return min(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    files = [OUT / f"sitemap-{n}.xml" for n in range(args.files)]
    for n, path in enumerate(files):
        if not path.exists():
            make(path, n * PER_FILE)
    for stale in OUT.glob("sitemap-*.xml"):
        if stale not in files:
            stale.unlink()
    urls = args.files * PER_FILE
    print(
        f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores,"
        f" load {os.getloadavg()[0]:.1f}; {args.files} files, {urls:,} URLs"
    )
    print(f"import matplotlib.figure: {import_seconds():.3f} s (fresh interpreter, best of 3)")
    options = CheckOptions(base_url=SITE, now=NOW)
    checked, report = best(args.repeat, lambda: check_paths([OUT], options))

    def counted_check() -> UrlCounter:
        counter = UrlCounter()
        check_paths([OUT], replace(options, on_urls=counter))
        return counter

    with_counts, counter = best(args.repeat, counted_check)
    counted = with_counts - checked
    stats = counter.stats
    rendered, page = best(args.repeat, lambda: check_html(report, stats, made=NOW))
    print(
        f"check {checked:.2f} s | check with counts {with_counts:.2f} s (counts {counted:+.2f} s)"
        f" | render {rendered:.2f} s | page {len(page.encode()):,} bytes,"
        f" {page.count('<tr>'):,} table rows | report/check {(counted + rendered) / checked:.2f}"
    )
    columns = columns_of(files)

    def stream() -> UrlStats:
        found = UrlStats()
        for batch in columns:
            found.add_columns(batch)
        return found

    streamed, _ = best(args.repeat, stream)
    print(f"stream counts (fetch --report): {streamed:.2f} s, {streamed / urls * 1e6:.2f} µs a URL")
    rows = diff_rows(1_000_000)
    diffed, _ = best(args.repeat, lambda: DiffStats().add(rows))
    print(f"diff rows counted (diff --format html): {diffed:.2f} s for 1,000,000 rows")


if __name__ == "__main__":
    main()

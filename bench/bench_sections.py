"""Sections and the day's changes: a stable set of N URLs in 5 sections, changed the way a
site changes it (the realistic day) beside the same number of changes spread evenly.

    .venv/bin/python bench/bench_sections.py [--urls 1000000] [--json out.json]

The set: 5 sections of N/5 URLs each (``/products/ID``, ``/blog/ID-slug``, ``/recipes/ID``,
``/stores/city-ID``, ``/help/ID``), IDs increasing from 1,000,000, every URL with a lastmod;
built with ``--section-by path:1 --stable``.
- realistic day: 0.5% of N new pages in 2 sections (products, blog; the next IDs), 0.4% edits
  skewed to the newest pages (the ID's distance from the newest drawn from an exponential
  with a mean of 2% of the section: ``--edit-mean``), 0.1% removals: the oldest products (expired listings);
- evenly spread day: the same counts, new pages with IDs between the existing ones and edits
  and removals drawn uniformly over every section.
Reported for each: files rewritten (of how many; and the least a layout in ID order could
rewrite, ``least_files``), index lastmods that moved, the update's
time and a full stable build of the same final URLs (which must give the same files).
And what sections cost: a full build (default layout, and stable) with and without them.
Times are wall seconds in this process; say the machine's load beside them.
``--least-only`` builds nothing: for a few edit skews it prints the least share of files any
layout in ID order could rewrite on the realistic day (the 10% target's reach under the model).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from urlset.limits import CURRENT
from urlset.writing.build import write_sitemaps
from urlset.writing.update import update_sitemaps

BASE = "https://www.example.com/"
FIRST_ID = 1_000_000
SECTIONS = ("products", "blog", "recipes", "stores", "help")
OUT = Path(__file__).resolve().parent / "out" / "sections"
LIMITS: dict[str, Any] = {}  # the limits every build and update here is given


def loc(section: str, n: int) -> str:
    if section == "blog":
        return f"{BASE}blog/{n}-how-we-make-it-{n % 97}"
    if section == "stores":
        return f"{BASE}stores/city-{n}"
    return f"{BASE}{section}/{n}"


def row(section: str, n: int, day: int = 1) -> tuple[str, str]:
    return loc(section, n), f"2025-{1 + n % 12:02d}-{day:02d}"


def initial(per: int) -> Iterator[tuple[str, str]]:
    for section in SECTIONS:
        for n in range(FIRST_ID, FIRST_ID + per):
            yield row(section, n)


def realistic(
    per: int, total: int, rnd: random.Random, edit_mean: float = 0.02
) -> tuple[list[tuple[str, str]], list[str]]:
    newest = FIRST_ID + per - 1
    added = [
        row(s, newest + 1 + i, 2) for s in ("products", "blog") for i in range(total * 5 // 2000)
    ]
    edited: dict[str, tuple[str, str]] = {}
    while len(edited) < total * 4 // 1000:
        back = min(int(rnd.expovariate(1 / (per * edit_mean))), per - 1)
        section = rnd.choice(SECTIONS)
        edited[loc(section, newest - back)] = row(section, newest - back, 3)
    removed = [loc("products", FIRST_ID + i) for i in range(total // 1000)]
    return added + list(edited.values()), removed


def spread(per: int, total: int, rnd: random.Random) -> tuple[list[tuple[str, str]], list[str]]:
    # new pages between existing ones: IDs past the set's, placed by value among them
    added = []
    for i in range(total * 5 // 1000):
        section = SECTIONS[i % 5]
        n = FIRST_ID + rnd.randrange(per)
        added.append(
            (
                f"{loc(section, n)}-new-{i}" if section != "blog" else loc(section, n) + f"-{i}",
                "2025-06-02",
            )
        )
    picks = rnd.sample(range(per * 5), total * 5 // 1000)
    edited = [row(SECTIONS[p % 5], FIRST_ID + p // 5, 3) for p in picks[: total * 4 // 1000]]
    removed = [loc(SECTIONS[p % 5], FIRST_ID + p // 5) for p in picks[total * 4 // 1000 :]]
    return added + edited, removed


_REF = re.compile(rb"<loc>([^<]*)</loc>(?:<lastmod>([^<]*)</lastmod>)?")


def index_lastmods(out: Path) -> dict[bytes, bytes | None]:
    import gzip

    found: dict[bytes, bytes | None] = {}
    for index in out.glob("sitemap*.xml.gz"):
        data = gzip.decompress(index.read_bytes())
        if b"<sitemapindex" in data:
            found.update((m[1].rsplit(b"/", 1)[1], m[2]) for m in _REF.finditer(data))
    return found


def _id(location: str) -> tuple[str, int]:
    """A bench URL's section and ID (``loc`` backwards)."""
    section, last = location[len(BASE) :].split("/", 1)
    return section, int(re.findall(r"[0-9]+", last)[0])


def least_files(per: int, changes: tuple[list[tuple[str, str]], list[str]]) -> int:
    """The files a day's changes must rewrite at the least in a local layout: each section's
    URLs in ID order in full files counted back from its newest ID (the best case for edits
    skewed to the newest), its new pages in one more file. An edit rewrites its file, so no
    layout in ID order rewrites fewer."""
    newest = FIRST_ID + per - 1
    files = set()
    for location in [upsert[0] for upsert in changes[0]] + changes[1]:
        section, n = _id(location)
        files.add((section, -1 if n > newest else (newest - n) // LIMITS["limits"].max_urls))
    return len(files)


def least_share(per: int, total: int, edit_mean: float) -> dict[str, object]:
    """The realistic day's least files (``least_files``) over the set's files after it."""
    changes = realistic(per, total, random.Random(1), edit_mean)
    sections = dict.fromkeys(SECTIONS, per)
    for upsert in changes[0]:
        section, n = _id(upsert[0])
        sections[section] += n > FIRST_ID + per - 1
    sections["products"] -= len(changes[1])
    files = sum(-(-count // LIMITS["limits"].max_urls) for count in sections.values())
    least = least_files(per, changes)
    return {"edit_mean": edit_mean, "least_files": least, "files": files, "share": least / files}


def day(
    name: str, per: int, changes: tuple[list[tuple[str, str]], list[str]], base: Path
) -> dict[str, object]:
    upserts, removed = changes
    out = OUT / name
    shutil.rmtree(out, ignore_errors=True)
    shutil.copytree(base, out)
    before = index_lastmods(out)
    names_before = {p.name: p.stat().st_mtime_ns for p in out.glob("sitemap-*")}
    start = time.perf_counter()
    report = update_sitemaps(upserts, out, BASE, remove=removed, section="path:1", **LIMITS)
    update_s = time.perf_counter() - start
    after = index_lastmods(out)
    moved = sum(1 for child, lastmod in after.items() if before.get(child, b"-") != lastmod)
    kept = sum(1 for p in out.glob("sitemap-*") if names_before.get(p.name) == p.stat().st_mtime_ns)
    final = {r[0]: r for r in initial(per)}
    for gone in removed:
        final.pop(gone, None)
    final.update((r[0], r) for r in upserts)
    full_out = OUT / f"{name}-full"
    shutil.rmtree(full_out, ignore_errors=True)
    start = time.perf_counter()
    write_sitemaps(final.values(), full_out, BASE, stable=True, section="path:1", **LIMITS)
    full_s = time.perf_counter() - start
    same = _files(out) == _files(full_out)
    return {
        "changes": len(upserts) + len(removed),
        "files": len(after),
        "rewritten": len(report.rewritten),
        "least_possible": least_files(per, changes),
        "kept_untouched": kept,
        "index_lastmods_moved": moved,
        "update_s": round(update_s, 2),
        "full_build_s": round(full_s, 2),
        "speedup": round(full_s / update_s, 1),
        "same_files_as_full_build": same,
    }


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}


def timed(per: int, out: str, **options: Any) -> float:
    target = OUT / out
    shutil.rmtree(target, ignore_errors=True)
    start = time.perf_counter()
    write_sitemaps(initial(per), target, BASE, **options, **LIMITS)
    return round(time.perf_counter() - start, 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--urls", type=int, default=1_000_000)
    parser.add_argument("--json", type=Path)
    parser.add_argument(
        "--max-urls",
        type=int,
        default=50_000,
        help="URLs a file (5000 at 1M URLs gives the file count of 10M at the protocol's limit)",
    )
    parser.add_argument(
        "--edit-mean",
        type=float,
        default=0.02,
        help="realistic day: an edit's mean distance from the newest ID, a share of its section",
    )
    parser.add_argument(
        "--least-only", action="store_true", help="print least_files; build nothing"
    )
    args = parser.parse_args()
    LIMITS["limits"] = CURRENT.lowered(max_urls=args.max_urls)
    per = args.urls // 5
    total = per * 5
    if args.least_only:
        for mean in (0.005, 0.01, 0.02, 0.04):
            print(json.dumps(least_share(per, total, mean)))
        return
    OUT.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {
        "urls": total,
        "max_urls": args.max_urls,
        "load": os.getloadavg()[0],
    }
    results["build_default_s"] = timed(per, "default")
    results["build_default_sections_s"] = timed(per, "default-sections", section="path:1")
    results["build_stable_s"] = timed(per, "stable", stable=True)
    results["build_stable_sections_s"] = timed(per, "base", stable=True, section="path:1")
    base = OUT / "base"
    results["realistic"] = day(
        "realistic", per, realistic(per, total, random.Random(1), args.edit_mean), base
    )
    results["spread"] = day("spread", per, spread(per, total, random.Random(2)), base)
    results["load_after"] = os.getloadavg()[0]
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")


if __name__ == "__main__":
    main()

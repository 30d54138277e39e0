"""Reference builds: seeded inputs of every shape the writer takes, and the SHA-256 of each file
the build wrote for them, recorded in tests/data/write_reference.json by the writer as it was
before its hot paths moved to the compiled core (git history: the commit adding that file).

``tests/test_write_reference.py`` builds the same inputs and compares digests, so a changed
byte anywhere (escaping, dates, byte accounting and splitting, de-duplication, gzip, names,
the index) fails it. Regenerate only when the output is meant to change:

    .venv/bin/python tests/write_reference.py
"""

from __future__ import annotations

import hashlib
import json
import random
import sys
import tempfile
from collections.abc import Callable, Iterable
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from urlset import Url, write_sitemaps
from urlset.extensions.image import Image
from urlset.limits import CURRENT

REFERENCE = Path(__file__).parent / "data" / "write_reference.json"
BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
ZONES = [UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-5, minutes=-30))]
FREQS = ["daily", "Weekly", " monthly ", "never", "", None]


def _loc(rng: random.Random, i: int) -> str:
    path = f"{BASE}p/{i}"
    kind = rng.randrange(10)
    if kind == 0:
        return f"{path}?a={i}&b=c"
    if kind == 1:
        return f"{path}?q=it's&n={i}"
    if kind == 2:
        return f"{path}/caf%C3%A9-%E2%82%AC"
    if kind == 3:
        return f"{path}/bücher-ä"  # to be encoded by the model
    if kind == 4:
        return f"{BASE}p/{i % 50}"  # a duplicate, mostly
    return path


def _lastmod(rng: random.Random, i: int, kinds: int = 9) -> object:
    kind = rng.randrange(kinds)
    day = date(2020, 1, 1) + timedelta(days=i % 1500)
    moment = datetime(2021, 3, 4, tzinfo=rng.choice(ZONES)) + timedelta(seconds=i * 37)
    if kind == 0:
        return day.isoformat()
    if kind == 1:
        return day
    if kind == 2:
        return moment
    if kind == 3:
        return moment.isoformat()
    if kind == 4:
        return moment.replace(microsecond=i % 1000 * 1000).isoformat().replace("+00:00", "Z")
    if kind == 5:
        return str(2000 + i % 20)  # a year
    if kind == 6:
        return f"{2000 + i % 20}-{1 + i % 12:02d}"  # a month
    if kind == 7:
        return "2019-02-30" if i % 97 == 0 else None  # sometimes invalid
    return "2024-05-06"


def _priority(rng: random.Random) -> object:
    return rng.choice([None, "0.5", 0.85, 1, "1.0", 0.1234, 0.3, "", 0.0])


def mixed_rows(seed: int, n: int) -> list[tuple[Any, ...]]:
    """Rows of every value shape, some invalid, some duplicated."""
    rng = random.Random(seed)
    return [(_loc(rng, i), _lastmod(rng, i), rng.choice(FREQS), _priority(rng)) for i in range(n)]


def valid_rows(seed: int, n: int, *, objects: bool = True) -> list[tuple[Any, ...]]:
    """Rows of valid values of every shape, locs already URIs (the column path), some
    duplicated; ``objects``: date and datetime values among the strings."""
    rng = random.Random(seed)
    rows = []
    for i in range(n):
        loc = _loc(rng, i)
        while "ü" in loc:
            loc = _loc(rng, i)
        lastmod = _lastmod(rng, i, 7)
        if not objects and not isinstance(lastmod, str):
            lastmod = lastmod.isoformat()  # type: ignore[attr-defined]
        rows.append((loc, lastmod, rng.choice(FREQS), _priority(rng)))
    return rows


def plain_rows(n: int, *, query: str = "") -> list[tuple[str, str, str, str]]:
    return [
        (f"{BASE}products/item-{i}{query}", f"2024-01-{1 + i % 28:02d}", "daily", "0.5")
        for i in range(n)
    ]


def distinct_times(n: int) -> list[tuple[str, str, None, None]]:
    start = datetime(2022, 1, 1, tzinfo=UTC)
    return [
        (f"{BASE}t/{i}", (start + timedelta(seconds=i * 61)).isoformat(), None, None)
        for i in range(n)
    ]


def with_images(n: int) -> list[Url]:
    return [
        Url(f"{BASE}img/{i}", "2024-02-02", extensions=(Image(f"{BASE}i/{i}.jpg"),))
        if i % 3 == 0
        else Url(f"{BASE}img/{i}")
        for i in range(n)
    ]


Case = tuple[Callable[[], Iterable[Any]], dict[str, Any]]
CASES: dict[str, Case] = {
    "mixed": (lambda: mixed_rows(1, 6000), {"skip_out_of_scope": True}),
    "mixed-split": (
        lambda: mixed_rows(2, 9000),
        {"limits": CURRENT.lowered(max_urls=700), "gzip": False},
    ),
    "mixed-bytes": (
        lambda: mixed_rows(3, 9000),
        {"limits": CURRENT.lowered(max_bytes=20_000), "gzip": False},
    ),
    "valid": (lambda: valid_rows(8, 30_000), {"gzip": False}),
    "valid-strings": (lambda: valid_rows(9, 30_000, objects=False), {"gzip": False}),
    "valid-bytes": (
        lambda: valid_rows(10, 30_000, objects=False),
        {"limits": CURRENT.lowered(max_bytes=100_000), "gzip": False},
    ),
    "valid-text": (lambda: valid_rows(11, 5000, objects=False), {"text": True}),
    "mixed-text": (lambda: mixed_rows(4, 3000), {"text": True, "gzip": False}),
    "mixed-urls": (lambda: [Url(*r) for r in plain_rows(500)] + mixed_rows(5, 2000), {}),
    "plain-big": (lambda: plain_rows(120_000), {}),
    "plain-split": (lambda: plain_rows(30_000), {"limits": CURRENT.lowered(max_urls=9000)}),
    "amp": (lambda: plain_rows(20_000, query="?a=1&b=2"), {"gzip": False}),
    "apostrophe": (lambda: plain_rows(20_000, query="?q='x'"), {"gzip": False}),
    "times": (lambda: distinct_times(20_000), {"gzip": False}),
    "times-bytes": (
        lambda: distinct_times(20_000),
        {"limits": CURRENT.lowered(max_bytes=300_000), "gzip": False},
    ),
    "images": (lambda: with_images(3000), {"limits": CURRENT.lowered(max_urls=1000)}),
    "xsl-schema": (
        lambda: plain_rows(2000),
        {"xsl": "/style.xsl?a=1&b=2", "schema_location": True, "gzip": False},
    ),
    "stable": (lambda: mixed_rows(6, 5000), {"stable": True}),
    "no-dedupe": (lambda: mixed_rows(7, 3000), {"dedupe": False, "gzip": False}),
}


def build(name: str, out: Path) -> dict[str, Any]:
    """Build one case into ``out``; return each file's SHA-256 and the report's counts."""
    make, options = CASES[name]
    report = write_sitemaps(make(), out, BASE, now=NOW, **options)
    files = {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(out.iterdir())
        if path.is_file()
    }
    return {
        "files": files,
        "urls": report.urls,
        "duplicates": report.duplicates,
        "rejected": dict(sorted(report.rejected.items())),
        "kept_without": dict(sorted(report.kept_without.items())),
        "lastmods": [str(f.lastmod) for f in report.files],
    }


def main() -> None:
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            results[name] = build(name, Path(tmp) / name)
    REFERENCE.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    sys.stdout.write(f"{REFERENCE}: {len(results)} cases\n")


if __name__ == "__main__":
    main()

"""Stable sets by section, and the local layout: a URL's shard depends on the URL (its
section, directory and place there), so a day's changes where sites make them (new pages
with increasing IDs, edits to recent ones, the oldest removed) rewrite few files; and an
update gives the files a full build of the same final URLs gives, with or without
sections."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from urlset import InvalidValue
from urlset.limits import CURRENT
from urlset.writing.build import write_sitemaps
from urlset.writing.sections import DEFAULT
from urlset.writing.shards import key_of, section_key
from urlset.writing.update import update_sitemaps

BASE = "https://www.example.com/"
LIMITS = CURRENT.lowered(max_urls=5)
SECTIONS = ("shop", "blog", "help")


def _row(section: str, number: int, day: int = 1) -> tuple[str, str]:
    return f"{BASE}{section}/{number}", f"2024-01-{day:02d}"


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def _full(rows: dict[str, tuple[str, str]], out: Path, **options: Any) -> dict[str, bytes]:
    write_sitemaps(list(rows.values()), out, BASE, limits=LIMITS, stable=True, **options)
    return _files(out)


change = st.tuples(
    st.sampled_from(["add", "edit", "remove"]),
    st.sampled_from(SECTIONS),
    st.integers(0, 60),
    st.integers(1, 28),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    first=st.sets(st.tuples(st.sampled_from(SECTIONS), st.integers(0, 60)), max_size=40),
    days=st.lists(st.lists(change, max_size=25), min_size=1, max_size=3),
    by=st.sampled_from([None, "path:1", "kind"]),
)
def test_an_update_and_a_full_build_of_the_final_urls_give_the_same_files(
    first: set[tuple[str, int]], days: list[list[tuple[str, str, int, int]]], by: str | None
) -> None:
    """Splits, merges, new and emptied sections, a section given by a key of the entries:
    after each day's update the set is byte for byte the full build of what it holds."""
    options: dict[str, Any] = {"gzip": False} if by is None else {"gzip": False, "section": by}

    def entry(row: tuple[str, str]) -> Any:
        if by != "kind":
            return row
        return {"loc": row[0], "lastmod": row[1], "kind": row[0].split("/")[3]}

    rows = {r[0]: r for r in (_row(s, n) for s, n in sorted(first) or [("shop", 0)])}
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "set"
        write_sitemaps(
            list(map(entry, rows.values())), out, BASE, limits=LIMITS, stable=True, **options
        )
        for number, day in enumerate(days):
            upserts, gone = {}, []
            for kind, section, n, when in day:
                row = _row(section, n, when)
                if kind == "remove":
                    gone.append(row[0])
                    upserts.pop(row[0], None)
                    rows.pop(row[0], None)
                else:
                    upserts[row[0]] = rows[row[0]] = row
            if not rows:
                break  # a set cannot be emptied by an update
            update_sitemaps(
                list(map(entry, upserts.values())), out, BASE, remove=gone, limits=LIMITS, **options
            )
            full = Path(tmp) / f"full-{number}"
            assert _files(out) == _full({k: entry(v) for k, v in rows.items()}, full, **options)


def test_stable_sections_are_named_after_them_and_hold_only_their_urls(tmp_path: Path) -> None:
    rows = [_row(s, n) for s in SECTIONS for n in range(12)] + [(f"{BASE}about", "2024-01-01")]
    report = write_sitemaps(
        rows, tmp_path, BASE, limits=LIMITS, stable=True, section="path:1", gzip=False
    )
    by_section: dict[str, int] = {}
    for f in report.files:
        section = f.name.split("-")[1]
        by_section[section] = by_section.get(section, 0) + f.entries
        text = (tmp_path / f.name).read_text()
        assert section == DEFAULT or f"{BASE}{section}/" in text
    assert by_section == {"shop": 12, "blog": 12, "help": 12, DEFAULT: 1}


def test_a_realistic_day_rewrites_only_the_files_it_changes(tmp_path: Path) -> None:
    """New pages with increasing IDs in two sections, edits to the newest, the oldest of one
    section removed: only the files at those ends are written again; every other file keeps
    its name, bytes, mtime and lastmod in the index."""
    limits = CURRENT.lowered(max_urls=50)
    rows = [_row(s, n) for s in SECTIONS for n in range(1000, 2000)]
    out = tmp_path / "set"
    write_sitemaps(rows, out, BASE, limits=limits, stable=True, section="path:1")
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.glob("sitemap-*")}
    index_before = (out / "sitemap.xml.gz").read_bytes()
    added = [_row(s, n, 2) for s in ("shop", "blog") for n in range(2000, 2010)]
    edited = [_row("shop", n, 3) for n in range(1990, 2000)]
    removed = [_row("help", n)[0] for n in range(1000, 1010)]
    report = update_sitemaps(
        added + edited, out, BASE, remove=removed, limits=limits, section="path:1"
    )
    assert len(before) >= 60 and 0 < len(report.rewritten) <= 6, report.rewritten
    kept = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in out.glob("sitemap-*")}
    unchanged = set(before) & set(kept)
    assert len(unchanged) >= len(before) - 6
    assert all(before[name] == kept[name] for name in unchanged)
    assert (out / "sitemap.xml.gz").read_bytes() != index_before


def test_neighbours_share_keys_and_numbers_go_by_value() -> None:
    keys = [key_of(f"{BASE}p/{n}") for n in (9, 10, 99, 100, 1000, 123456)]
    assert [k >> 40 for k in keys] == [keys[0] >> 40] * len(keys)  # one directory
    assert [k >> 8 for k in keys] == sorted(k >> 8 for k in keys)  # by value, not by text
    assert key_of(f"{BASE}p/1", "shop") >> 40 != key_of(f"{BASE}p/1", "blog") >> 40


def test_two_sections_that_share_a_key_are_refused(tmp_path: Path) -> None:
    seen: dict[int, str] = {}
    for n in itertools.count():
        name = f"s{n}"
        top = section_key(name)
        if top in seen:
            pair = (seen[top], name)
            break
        seen[top] = name
    rows = [(f"{BASE}{name}/1",) for name in pair]
    with pytest.raises(InvalidValue, match="rename one"):
        write_sitemaps(rows, tmp_path, BASE, stable=True, section="path:1")

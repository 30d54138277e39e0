"""Stable sets and incremental rebuilds: a full build and any sequence of updates give the
same files for the same URLs; an update reads and writes only the shards its changes fall
in; changes are reported; a set stays whole when an update is killed at any rename."""

from __future__ import annotations

import itertools
import json
import random
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import NS, locs, parse
from test_build_publish import _published
from urlset import Url
from urlset.cli import main
from urlset.errors import PublishError
from urlset.extensions import Image
from urlset.limits import CURRENT
from urlset.writing import stable
from urlset.writing.build import write_sitemaps
from urlset.writing.options import FileNames
from urlset.writing.shards import Change, key_of, shard_number
from urlset.writing.update import update_sitemaps

BASE = "https://www.example.com/"
LIMITS = CURRENT.lowered(max_urls=40)


def _row(i: int, year: int = 2024) -> tuple[str, str, str | None, str | None]:
    """Realistic locs: queries with &, non-ASCII (percent-encoded), ports are out of scope
    here, long paths."""
    kinds = [
        f"{BASE}p/{i}",
        f"{BASE}search?q={i}&page=2&sort=new",
        f"{BASE}caf%C3%A9/{i}/" + "x" * (i % 300),
        f"{BASE}o'{i}",
    ]
    return (kinds[i % 4], f"{year}-0{1 + i % 9}-1{i % 10}", "daily" if i % 3 else None, None)


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir())}


def _stats(out: Path) -> dict[str, tuple[int, int]]:
    return {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in out.iterdir()}


def _indexes(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.glob("sitemap*.xml") if "-index" in p.name} | {
        p.name: p.read_bytes() for p in out.glob("sitemap.xml")
    }


def _final(rows: dict[str, Any], out: Path, **options: Any) -> dict[str, bytes]:
    write_sitemaps(list(rows.values()), out, BASE, limits=LIMITS, stable=True, **options)
    return _files(out)


@pytest.mark.parametrize(
    "options",
    [{}, {"gzip": False}, {"text": True}, {"xsl": "/s.xsl", "schema_location": True}],
    ids=["gzip", "plain", "text", "xsl"],
)
def test_updates_give_the_files_a_full_build_of_the_final_urls_gives(
    tmp_path: Path, options: dict[str, Any]
) -> None:
    """Additions that split shards, removals that merge them, changed values: after each
    update the set is byte for byte the full build of the URLs it now holds."""
    rows = {row[0]: row for row in map(_row, range(600))}
    out = tmp_path / "set"
    write_sitemaps(list(rows.values()), out, BASE, limits=LIMITS, stable=True, **options)
    rng = random.Random(7)
    for step in range(6):
        added = [_row(i) for i in range(1000 + step * 200, 1000 + step * 200 + 150 * (step % 2))]
        changed = [_row(i, 2017 + step) for i in rng.sample(range(600), 20)]
        gone = rng.sample(sorted(rows), 120 if step % 2 == 0 else 5)
        for loc in gone:
            rows.pop(loc, None)
        for row in added + changed:
            rows[row[0]] = row
        update_sitemaps(added + changed, out, BASE, remove=gone, limits=LIMITS, **options)
        full = _final(rows, tmp_path / f"full-{step}", **options)
        assert _files(out) == full, step


def test_a_set_of_one_shard_has_an_index_and_grows_without_renaming_it(tmp_path: Path) -> None:
    report = write_sitemaps([_row(1)], tmp_path, BASE, stable=True)
    assert [f.name for f in report.indexes] == ["sitemap.xml.gz"]
    assert [f.name.split("-")[1] for f in report.files] == ["1"]  # the root of the key space
    update_sitemaps([_row(2)], tmp_path, BASE)
    assert sorted(locs(tmp_path / report.indexes[0].name)) != []


def test_an_update_touches_only_the_shards_its_changes_fall_in(tmp_path: Path) -> None:
    """Unchanged shards keep their name, bytes, inode and modification time; the index's
    lastmod moves only for the changed ones."""
    rows = [_row(i) for i in range(2000)]
    first = write_sitemaps(rows, tmp_path, BASE, limits=LIMITS, stable=True)
    before = _stats(tmp_path)
    lastmods = {f.name: f.lastmod for f in first.files}
    changed = [_row(i, 2025) for i in (3, 500, 1500)]
    report = update_sitemaps(changed, tmp_path, BASE, limits=LIMITS)
    after = _stats(tmp_path)
    assert report.changes == {"changed": 3}
    assert 1 <= len(report.rewritten) <= 3
    untouched = [f.name for f in report.files if f.name not in report.rewritten]
    assert len(untouched) == len(report.files) - len(report.rewritten) > 40
    for name in untouched:
        assert after[name] == before[name], name
    new = {f.name: f.lastmod for f in report.files}
    assert all(new[name] == lastmods[name] for name in untouched)
    assert all(str(new[name]).startswith("2025-") for name in report.rewritten)
    assert sorted(report.removed) == sorted(set(before) - set(after))
    assert len(report.removed) == len(report.rewritten) + 1  # and the old manifest


def test_changes_are_reported_by_updates_and_by_full_builds_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = {row[0]: row for row in map(_row, range(300))}
    write_sitemaps(list(rows.values()), tmp_path / "a", BASE, limits=LIMITS, stable=True)
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    added = [_row(i) for i in range(1000, 1005)]
    changed = [(_row(7)[0], "2025-01-01", "daily", "0.5"), _row(8)]  # the second: as it was
    gone = [_row(9)[0], f"{BASE}never-there"]
    seen: list[Change] = []
    update_sitemaps(
        added + changed, tmp_path / "a", BASE, remove=gone, limits=LIMITS, on_change=seen.append
    )
    expected = {
        *(Change(row[0], "added") for row in added),
        Change(_row(7)[0], "changed", ("lastmod", "priority")),
        Change(_row(9)[0], "removed"),
    }
    assert set(seen) == expected and len(seen) == len(expected)
    for loc in gone:
        rows.pop(loc, None)
    rows.update((row[0], row) for row in added + changed)
    full: list[Change] = []
    report = write_sitemaps(
        list(rows.values()), tmp_path / "b", BASE, limits=LIMITS, stable=True, on_change=full.append
    )
    assert set(full) == expected and len(full) == len(expected)
    assert report.changes == {"added": 5, "changed": 1, "removed": 1}
    assert _files(tmp_path / "a") == _files(tmp_path / "b")
    # the same URLs again: no change, and no shard of the previous set is read
    monkeypatch.setattr(stable, "read_shard", None)
    again: list[Change] = []
    report = write_sitemaps(
        list(rows.values()),
        tmp_path / "b",
        BASE,
        limits=LIMITS,
        stable=True,
        on_change=again.append,
    )
    assert again == [] and not report.changes


def test_extensions_and_their_namespaces_survive_updates(tmp_path: Path) -> None:
    plain = [Url(f"{BASE}p/{i}", "2024-01-01") for i in range(100)]
    with_image = Url(f"{BASE}img", "2024-01-02", extensions=(Image(f"{BASE}i.png"),))
    write_sitemaps(plain, tmp_path / "set", BASE, limits=LIMITS, stable=True)
    update_sitemaps([with_image], tmp_path / "set", BASE, limits=LIMITS)
    write_sitemaps([*plain, with_image], tmp_path / "full", BASE, limits=LIMITS, stable=True)
    assert _files(tmp_path / "set") == _files(tmp_path / "full")
    index = parse(tmp_path / "set" / "sitemap.xml.gz")
    children = [ref.findtext(f"{NS}loc") or "" for ref in index.iter(f"{NS}sitemap")]
    found = [c for c in children if f"{BASE}img" in locs(tmp_path / "set" / c.removeprefix(BASE))]
    assert len(found) == 1  # lxml parsed it: the image prefix is declared


def test_shards_are_the_highest_nodes_that_fit(tmp_path: Path) -> None:
    rows = [_row(i) for i in range(1000)]
    report = write_sitemaps(rows, tmp_path, BASE, limits=LIMITS, stable=True)
    manifest = stable.load_manifest(tmp_path, FileNames("sitemap", gzip=True, text=False))
    assert manifest is not None
    by_name = {leaf.name: leaf for leaf in manifest.leaves}
    nodes = [by_name[f.name].node for f in report.files]
    assert [int(f.name.split("-")[1]) for f in report.files] == list(map(shard_number, nodes))
    keys = [key_of(row[0]) for row in rows]
    for node, f in zip(nodes, report.files, strict=True):
        inside = sum(node.lo <= k < node.hi for k in keys)
        assert inside == f.entries <= 40
        parent = node.parent
        assert sum(parent.lo <= k < parent.hi for k in keys) > 40
    assert sorted(locs(tmp_path / report.files[0].name)) == locs(tmp_path / report.files[0].name)


def test_an_update_needs_a_stable_set_and_its_options(tmp_path: Path) -> None:
    with pytest.raises(PublishError, match="no stable set"):
        update_sitemaps([_row(1)], tmp_path, BASE)
    write_sitemaps([_row(i) for i in range(10)], tmp_path, BASE, stable=True)
    with pytest.raises(PublishError, match=r"other options \(max_urls"):
        update_sitemaps([_row(1)], tmp_path, BASE, limits=LIMITS)
    (tmp_path / "sitemap.xml.gz").write_bytes(b"changed by hand")
    with pytest.raises(PublishError, match="no stable set"):
        update_sitemaps([_row(1)], tmp_path, BASE)


def test_the_command_builds_updates_and_writes_changes(tmp_path: Path) -> None:
    source = tmp_path / "in.csv"
    source.write_text(
        "loc,lastmod\n" + "".join(f"{BASE}p/{i}?a=1&b=2,2024-01-01\n" for i in range(100))
    )
    out = tmp_path / "out"
    common = ["--base-url", BASE, "--out", str(out), "--max-urls", "30"]
    run = CliRunner().invoke
    result = run(main, ["build", str(source), *common, "--stable"])
    assert result.exit_code == 0, result.output
    update = tmp_path / "up.csv"
    update.write_text(f"loc,lastmod\n{BASE}p/1?a=1&b=2,2025-01-01\n{BASE}new,\n")
    gone = tmp_path / "gone.txt"
    gone.write_text(f"# old\n{BASE}p/2?a=1&b=2\n\n")
    changes = tmp_path / "changes.jsonl"
    args = [
        "build",
        str(update),
        *common,
        "--update",
        "--remove",
        str(gone),
        "--changes",
        str(changes),
    ]
    result = run(main, args)
    assert result.exit_code == 0, result.output
    assert "updated" in result.output and "1 added, 1 changed, 1 removed" in result.output
    lines = sorted(map(json.loads, changes.read_text().splitlines()), key=lambda c: c["change"])
    assert lines == [
        {"loc": f"{BASE}new", "change": "added"},
        {"loc": f"{BASE}p/1?a=1&b=2", "change": "changed", "fields": ["lastmod"]},
        {"loc": f"{BASE}p/2?a=1&b=2", "change": "removed"},
    ]
    result = run(main, ["build", str(update), *common, "--remove", str(gone)])
    assert result.exit_code == 2 and "--remove" in result.output
    result = run(main, ["build", *common, "--update"])
    assert result.exit_code == 2
    result = run(
        main, ["build", str(update), "--base-url", BASE, "--out", str(tmp_path / "x"), "--update"]
    )
    assert result.exit_code == 2 and "no stable set" in result.output


# An update of a stable set (old: /a/0-2999; new: /a/0-1999 with /a/1000-1999 changed, and
# /b/0-1999 added), killed right after its K-th os.replace (K = 0: to the end).
KILL_UPDATE = """
import os
import sys
from dataclasses import replace
from datetime import date, timedelta

from urlset import Url
from urlset.limits import CURRENT
from urlset.writing import stable
from urlset.writing.build import write_sitemaps
from urlset.writing.update import update_sitemaps

out, build, per_index, kill_after = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
limits = replace(CURRENT.lowered(max_urls=300), max_sitemaps_per_index=per_index)
old = [Url(f"https://www.example.com/a/{i}", date(2024, 1, 1) + timedelta(days=i % 300)) for i in range(3000)]
changed = [Url(f"https://www.example.com/a/{i}", date(2025, 1, 1)) for i in range(1000, 2000)]
added = [Url(f"https://www.example.com/b/{i}", date(2025, 2, 1)) for i in range(2000)]
gone = [f"https://www.example.com/a/{i}" for i in range(2000, 3000)]
options = dict(gzip=False, limits=limits)
if build == "old":
    write_sitemaps(old, out, "https://www.example.com/", stable=True, **options)
    sys.exit(0)
if build == "new":
    final = old[:1000] + changed + added
    write_sitemaps(final, out, "https://www.example.com/", stable=True, **options)
    sys.exit(0)
real_replace = os.replace
renames = 0


def replace_then_die(*args, **kwargs):
    global renames
    real_replace(*args, **kwargs)
    renames += 1
    if renames == kill_after:
        os._exit(137)


os.replace = replace_then_die
update_sitemaps(changed + added, out, "https://www.example.com/", remove=gone, **options)
"""


@pytest.mark.parametrize("per_index", [50_000, 8], ids=["one index", "several indexes"])
def test_an_update_killed_after_any_rename_leaves_the_set_whole_and_can_be_run_again(
    tmp_path: Path, per_index: int
) -> None:
    """After each death every published index lists children that exist, with the right
    lastmods, holding the URLs of the same index of the old set or of the new one; running
    the update again then gives the new set, byte for byte."""
    script = tmp_path / "kill_update.py"
    script.write_text(KILL_UPDATE)

    def run(out: Path, build: str, kill_after: int) -> subprocess.CompletedProcess[str]:
        args = [sys.executable, str(script), str(out), build, str(per_index), str(kill_after)]
        return subprocess.run(args, capture_output=True, text=True, timeout=120)

    for build in ("old", "new"):
        assert run(tmp_path / build, build, 0).returncode == 0
    old, new = _published(tmp_path / "old"), _published(tmp_path / "new")
    kills = 0
    for k in itertools.count(1):
        out = tmp_path / f"killed-after-{k}"
        shutil.copytree(tmp_path / "old", out)
        result = run(out, "update", k)
        if result.returncode == 0:
            assert _files(out) == _files(tmp_path / "new")
            break
        assert result.returncode == 137, result.stderr
        kills += 1
        published = _published(out)
        assert set(old) <= set(published) <= set(old) | set(new), k
        for name, urls in published.items():
            assert urls in (old.get(name), new.get(name)), f"after rename {k}: {name} is a mix"
        if len(new) == 1:
            assert published in (old, new), k
        # whole: every index is the old set's or every one the new set's, byte for byte (the
        # same URLs are not enough: an update that only moves lastmods keeps them)
        if _indexes(out) in (_indexes(tmp_path / "old"), _indexes(tmp_path / "new")):
            again = run(out, "update", 0)  # the manifest of the published set is in place
            assert again.returncode == 0, again.stderr
            assert _files(out) == _files(tmp_path / "new"), k
    assert kills > 5


def test_an_updates_changes_feed_indexnow(tmp_path: Path) -> None:
    """The URLs a build added or changed (--changes) are what `announce indexnow` submits."""
    import json

    from announce_support import Endpoints, Reply

    base = "https://www.shop.org/"
    (tmp_path / "all.txt").write_text(f"{base}a\n{base}b\n")
    out, changes = tmp_path / "out", tmp_path / "changes.jsonl"
    build = ["build", "--base-url", base, "--out", str(out), "-q"]
    assert CliRunner().invoke(main, [*build, str(tmp_path / "all.txt"), "--stable"]).exit_code == 0
    (tmp_path / "more.csv").write_text(f"loc,lastmod\n{base}c,\n{base}a,2025-01-01\n")
    result = CliRunner().invoke(
        main, [*build, str(tmp_path / "more.csv"), "--update", "--changes", str(changes)]
    )
    assert result.exit_code == 0, result.output
    kinds = {
        json.loads(line)["loc"]: json.loads(line)["change"]
        for line in changes.read_text().splitlines()
    }
    assert kinds == {f"{base}c": "added", f"{base}a": "changed"}
    with Endpoints() as server:
        server.script("/indexnow", Reply(200))
        args = ["announce", "indexnow", str(changes), "--site", base, "--key", "abcdefgh12345678"]
        sent = CliRunner().invoke(
            main, [*args, "--endpoint", server.url("/indexnow"), "--no-state"]
        )
        assert sent.exit_code == 0, sent.output
        (post,) = [s for s in server.requests("/indexnow") if s.method == "POST"]
        assert sorted(json.loads(post.body)["urlList"]) == [f"{base}a", f"{base}c"]

"""The Dask build with sections: the files, names, index and manifest a local stable build
with the same sections writes, byte for byte, for every rule form (``path:N``, named
patterns, a section column; a callable from Python), with and without gzip; the work
divided where the keys crowd (a section, a directory), not by fixed top key bits. Runs on
the shared two-process LocalCluster of conftest.py."""

from __future__ import annotations

import itertools
import json
import random
import re
from bisect import bisect_left, bisect_right
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from urlset import CURRENT, write_sitemaps
from urlset.cli import main
from urlset.writing.sections import DEFAULT
from urlset.writing.shards import KEY_BITS, Node, Sizing, key_of, split_sorted

pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from urlset.dask import build  # noqa: E402
from urlset.dask.plan import buckets_of, estimates, plan_shards, runs_of, sample_of  # noqa: E402

BASE = "https://shop.example.com/"
NOW = datetime(2025, 6, 1, tzinfo=UTC)
MAX_URLS = 40
Row = tuple[str, str | None, str]  # loc, lastmod, section column ('' for none)


def _rows(count: int, seed: int, *, root_pages: bool) -> list[Row]:
    """A shop's URLs as sections crowd them: many products in one directory (numbered, so
    their keys lie side by side: the section spans many files), a blog by slug, a few help
    pages, some repeated across partitions with other lastmods, one bad loc; with
    ``root_pages``, pages at the root (no section by path: the default one)."""
    rnd = random.Random(seed)
    rows: list[Row] = []
    for i in range(count):
        kind = rnd.choices(["p", "blog", "help", "root"], [70, 20, 8, 2 if root_pages else 0])[0]
        number = rnd.randrange(count * 3 // 4)  # about a quarter are repeats
        loc, column = {
            "p": (f"{BASE}p/{100_000 + number}", "products"),
            "blog": (f"{BASE}blog/{'post-' * (number % 3)}{number}-notes", "blog"),
            "help": (f"{BASE}help/faq/{number % 40}?q=a&b={number % 7}", "help"),
            "root": (f"{BASE}page-{number % 25}", ""),
        }[kind]
        lastmod = rnd.choice([None, f"2024-05-{1 + i % 28:02d}", "2024-05-01T10:20:30+02:00"])
        rows.append((loc, lastmod, column))
    rows.insert(count // 3, ("not a url", None, "products"))
    return rows


def _write_csv(rows: list[Row], directory: Path, parts: int, *, column: bool = True) -> list[str]:
    """``rows`` in ``parts`` CSV files; ``column``: with the section column."""
    directory.mkdir()
    paths = []
    for n in range(parts):
        path = directory / f"part-{n}.csv"
        lines = ["loc,lastmod,section" if column else "loc,lastmod"]
        lines += [
            f"{loc},{lastmod or ''}" + (f",{section}" if column else "")
            for loc, lastmod, section in rows[n * len(rows) // parts : (n + 1) * len(rows) // parts]
        ]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def _built_alike(dask_client: Any, tmp_path: Path, common: list[str]) -> dict[str, bytes]:
    """The files ``build --stable`` writes of ``common``, which ``build --dask`` writes too."""
    runner = CliRunner()
    local = runner.invoke(main, ["build", *common, "--out", str(tmp_path / "local"), "--stable"])
    address = dask_client.scheduler.address
    spread = runner.invoke(
        main, ["build", *common, "--out", str(tmp_path / "dask"), "--dask", address]
    )
    assert (local.exit_code, spread.exit_code) == (0, 0), local.output + spread.output
    files = _files(tmp_path / "local")
    assert _files(tmp_path / "dask") == files
    return files


def _sections_of(files: dict[str, bytes]) -> set[str]:
    return {name.split("-")[1] for name in files if name.count("-") == 3}


RULES = {
    "path": (["--section-by", "path:1"], True, {"p", "blog", "help", DEFAULT}),
    # every URL matches a pattern: the default section is empty, and has no file
    "patterns": (
        ["--section", "products=/p/*", "--section", "blog=/blog/**", "--section", "help=/**"],
        False,
        {"products", "blog", "help"},
    ),
    "column": (["--section-by", "column:section"], True, {"products", "blog", "help", DEFAULT}),
}


@pytest.mark.parametrize("gzip", ["--gzip", "--no-gzip"])
@pytest.mark.parametrize("rule", sorted(RULES))
def test_the_command_builds_sections_on_dask_as_the_local_build_does(
    dask_client: Any, tmp_path: Path, rule: str, gzip: str
) -> None:
    args, root_pages, sections = RULES[rule]
    rows = _rows(2400, seed=len(rule), root_pages=root_pages)
    paths = _write_csv(rows, tmp_path / "in", 3, column=rule == "column")
    common = [*paths, "--base-url", BASE, "--max-urls", str(MAX_URLS), gzip, *args, "-q"]
    files = _built_alike(dask_client, tmp_path, common)
    assert _sections_of(files) == sections
    products = "products" if "products" in sections else "p"
    assert sum(name.startswith(f"sitemap-{products}-") for name in files) > 3
    # a local update takes the set the Dask build wrote (its manifest is the local one),
    # and gives the files a full build of the final URLs gives
    day = tmp_path / "day.csv"
    header, cell = ("loc,lastmod,section", ",products") if rule == "column" else ("loc,lastmod", "")
    day.write_text(f"{header}\n{BASE}p/999999,2024-06-01{cell}\n", encoding="utf-8")
    options = common[len(paths) :]
    runner = CliRunner()
    update = runner.invoke(
        main, ["build", str(day), *options, "--out", str(tmp_path / "dask"), "--update"]
    )
    full = runner.invoke(
        main, ["build", *paths, str(day), *options, "--out", str(tmp_path / "full"), "--stable"]
    )
    assert (update.exit_code, full.exit_code) == (0, 0), update.output + full.output
    assert _files(tmp_path / "dask") == _files(tmp_path / "full") != files


def test_the_python_build_takes_each_rule_form_and_shuffle(
    dask_client: Any, tmp_path: Path
) -> None:
    """A callable and a column name, from Parquet parts; through the staging directory with
    more runs than parts, and through Dask's own shuffle."""
    rows = _rows(3000, seed=5, root_pages=True)
    for directory in ("with", "without"):
        (tmp_path / directory).mkdir()
        for n in range(4):
            chunk = rows[n * len(rows) // 4 : (n + 1) * len(rows) // 4]
            locs, lastmods, sections = (list(column) for column in zip(*chunk, strict=True))
            columns = {"loc": locs, "lastmod": lastmods, "section": [s or None for s in sections]}
            if directory == "without":
                del columns["section"]
            pq.write_table(pa.table(columns), tmp_path / directory / f"part-{n}.parquet")
    limits = CURRENT.lowered(max_urls=MAX_URLS)

    def kind(loc: str) -> str | None:
        return "catalogue" if "/p/" in loc else None

    entries = [{"loc": loc, "lastmod": m, "section": s} for loc, m, s in rows]
    for section, shuffle, runs in (
        ("section", None, 9),
        (kind, "tasks", None),
        ("path:1", "p2p", 2),
    ):
        local_rows: Any = entries if section == "section" else [(loc, m) for loc, m, _ in rows]
        local = write_sitemaps(
            local_rows,
            tmp_path / "local",
            BASE,
            stable=True,
            now=NOW,
            limits=limits,
            section=section,
        )
        spread = build(
            tmp_path / ("with" if section == "section" else "without"), tmp_path / "dask", BASE, client=dask_client, now=NOW, limits=limits,
            section=section, shuffle_method=shuffle, partitions=runs,
        )  # fmt: skip
        assert _files(tmp_path / "dask") == _files(tmp_path / "local"), section
        assert (spread.urls, spread.duplicates, spread.rejected) == (
            local.urls,
            local.duplicates,
            local.rejected,
        )


def test_a_section_name_the_build_cannot_use_fails_it_as_locally(
    dask_client: Any, tmp_path: Path
) -> None:
    paths = _write_csv([(f"{BASE}a", None, "Bad Name")], tmp_path / "in", 1)
    args = ["build", *paths, "--base-url", BASE, "--section-by", "column:section"]
    address = dask_client.scheduler.address
    spread = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "o"), "--dask", address])
    local = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "o"), "--stable"])
    assert spread.exit_code == local.exit_code == 1, spread.output
    for result in (spread, local):  # the Dask build names the loc, a local one the line
        assert "'Bad Name'" in result.output and "lower-case letters" in result.output
        assert "nothing was published" in result.output
    assert not (tmp_path / "o").exists() or not _files(tmp_path / "o")


def test_a_section_column_without_the_rule_is_refused_naming_it(
    dask_client: Any, tmp_path: Path
) -> None:
    paths = _write_csv([(f"{BASE}a", None, "blog")], tmp_path / "in", 1)
    address = dask_client.scheduler.address
    args = ["build", *paths, "--base-url", BASE, "--out", str(tmp_path / "o"), "--dask", address]
    result = CliRunner().invoke(main, args)
    # as a local build refuses it: the input's fault (1), at the file's header
    assert result.exit_code == 1 and "unknown columns ['section']" in result.output, result.output
    assert f"{paths[0]}:1" in result.output
    assert "--section-by column:section" in result.output


# the work divides where the keys crowd: one directory of numbered pages (its keys share
# their top 32 bits), one section, or none (the top 24 bits of every key are 0)
@pytest.mark.parametrize("section", [None, "products"])
def test_crowded_keys_are_cut_into_runs_of_about_equal_size(section: str | None) -> None:
    keys = sorted(key_of(f"{BASE}p/{100_000 + i}", section) for i in range(20_000))
    parts = [keys[i::4] for i in range(4)]
    samples = [(sample_of(part, 512), len(part)) for part in parts]
    buckets = buckets_of(samples, 500)
    assert buckets[0].lo == 0 and buckets[-1].hi == 1 << KEY_BITS
    assert all(a.hi == b.lo for a, b in itertools.pairwise(buckets))
    runs = runs_of(estimates(buckets, samples), 8)
    los = [bucket.lo for bucket in buckets]
    held = [0] * len(runs)
    for key in keys:
        at = bisect_right(los, key) - 1
        held[next(i for i, run in enumerate(runs) if at in run)] += 1
    assert len(runs) == 8 and max(held) < 2 * len(keys) / 8, held


def test_the_plan_over_buckets_is_the_split_over_every_key() -> None:
    """``plan_shards`` over bucket counts, each bucket too big split as ``split_sorted``
    splits it, gives the shards ``split_sorted`` finds over the whole sorted key list."""
    rnd = random.Random(3)
    locs = [f"{BASE}{rnd.choice(['p', 'blog', 'a/b'])}/{rnd.randrange(10**6)}" for _ in range(5000)]
    sections = ["x" if "/p/" in loc else "y" for loc in locs]
    keys = sorted(set(map(key_of, locs, sections)))
    sizing = Sizing(50, 10**6, 0, 0, 0, sections=True)
    whole = [
        (node, stop - start)
        for node, start, stop in split_sorted(
            Node(0, 0), keys, [10] * len(keys), [False] * len(keys), sizing
        )
    ]
    samples = [(sample_of(keys, 64), len(keys))]
    buckets = buckets_of(samples, 300)
    los = [bucket.lo for bucket in buckets]
    counts = [bisect_left(keys, b.hi) - bisect_left(keys, b.lo) for b in buckets]
    planned = []
    for node, _, _, fits in plan_shards(
        buckets, counts, [10 * c for c in counts], [False] * len(buckets), sizing
    ):
        start, stop = bisect_left(keys, node.lo), bisect_left(keys, node.hi)
        if fits:
            planned.append((node, stop - start))
        else:
            inside = split_sorted(
                node, keys[start:stop], [10] * (stop - start), [False] * (stop - start), sizing
            )
            planned += [(at, b - a) for at, a, b in inside]
    assert len(los) > 10
    assert planned == whole


@pytest.mark.parametrize("shuffle", [None, "tasks"])
def test_a_loc_two_partitions_place_in_two_sections_is_kept_once_as_locally(
    dask_client: Any, tmp_path: Path, shuffle: str | None
) -> None:
    """A later partition that gives a loc another section (or none) than the first did:
    a local build keeps the first copy, in its section; the Dask build too, though the two
    copies' keys lie in different sections' ranges (different runs)."""
    rnd = random.Random(9)
    parts: list[list[Row]] = []
    for n in range(3):
        numbers = rnd.sample(range(1500), 700)  # each loc at most once a partition
        parts.append(
            [
                (f"{BASE}p/{i}", f"2024-05-0{n + 1}", rnd.choice(["products", "blog", ""]))
                for i in numbers
            ]
        )
    paths = []
    for n, rows in enumerate(parts):
        paths += _write_csv(rows, tmp_path / f"in{n}", 1)
    common = [
        *paths,
        "--base-url",
        BASE,
        "--max-urls",
        "30",
        "--section-by",
        "column:section",
        "--no-gzip",
        "-q",
    ]
    local = CliRunner().invoke(
        main, ["build", *common, "--out", str(tmp_path / "local"), "--stable"]
    )
    assert local.exit_code == 0, local.output
    report = build(
        paths, tmp_path / "dask", BASE, client=dask_client, section="section",
        limits=CURRENT.lowered(max_urls=30), shuffle_method=shuffle, partitions=5, gzip=False,
    )  # fmt: skip
    files = _files(tmp_path / "local")
    assert _files(tmp_path / "dask") == files
    listed = [
        loc
        for name, data in files.items()
        if name.startswith("sitemap-") and ".xml" in name
        for loc in re.findall(r"<loc>([^<]*)</loc>", data.decode())
        if "/p/" in loc
    ]
    assert len(listed) == len(set(listed)) == report.urls
    assert report.duplicates == 3 * 700 - report.urls


def test_json_lines_parts_with_a_section_key_and_extensions(
    dask_client: Any, tmp_path: Path
) -> None:
    """The section key of JSON Lines (null, absent or blank: the default section), beside
    extension keys (the rows read as mappings), as a local build reads them."""
    rows = _rows(900, seed=4, root_pages=True)
    (tmp_path / "in").mkdir()
    paths = []
    for n in range(3):
        lines = []
        for i, (loc, lastmod, section) in enumerate(rows[n * 300 : (n + 1) * 300]):
            record: dict[str, Any] = {"loc": loc, "lastmod": lastmod}
            if i % 4:
                record["section"] = section or (None if i % 2 else " ")
            if i % 5 == 0:
                record["images"] = [{"loc": f"{BASE}img/{i}.jpg"}]
            lines.append(json.dumps(record))
        path = tmp_path / "in" / f"part-{n}.jsonl"
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    common = [
        *paths,
        "--base-url",
        BASE,
        "--max-urls",
        "25",
        "--section-by",
        "column:section",
        "-q",
    ]
    files = _built_alike(dask_client, tmp_path, common)
    assert _sections_of(files) == {"products", "blog", "help", DEFAULT}

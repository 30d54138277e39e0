"""The build on a Dask cluster (``urlset.dask.build``): the set a single-process stable build
writes, byte for byte, from partitioned input; nothing published when the job fails or is
cancelled. Runs on the shared two-process LocalCluster of conftest.py."""

from __future__ import annotations

import random
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from urlset import CURRENT, InvalidValue, write_sitemaps
from urlset.cli import main

pytest.importorskip("distributed")
pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

from urlset.dask import build  # noqa: E402

BASE = "https://shop.example.com:8443/catalogue/"
NOW = datetime(2025, 6, 1, tzinfo=UTC)
Row = tuple[Any, ...]


def _rows(count: int, seed: int) -> list[Row]:
    """Realistic rows: queries with &, escapes, non-ASCII paths, lastmods of every precision
    (some bad, some in the future), and locs repeated across partitions with other values."""
    rnd = random.Random(seed)
    rows: list[Row] = []
    for i in range(count):
        page = rnd.randrange(count * 3 // 4)  # about a quarter are repeats
        loc = rnd.choice(
            [
                f"{BASE}item/{page}?colour=red&size={page % 9}",
                f"{BASE}produits/café-{page}",
                f"{BASE}a%20b/{page}/{'x' * (page % 200)}",
                f"{BASE}ü/{page}#frag",
            ]
        )
        lastmod = rnd.choice(
            [
                None,
                "2024-03",
                f"2024-05-{1 + i % 28:02d}",
                "2024-05-01T10:20:30+02:00",
                "2031-01-01",
                "not-a-date",
            ]
        )
        rows.append(
            (loc, lastmod, rnd.choice([None, "daily", "weekly"]), rnd.choice([None, 0.5, 1.0]))
        )
    rows.insert(count // 2, ("not a url at all", None, None, None))
    return rows


def _write_parts(rows: list[Row], directory: Path, parts: int) -> None:
    directory.mkdir(parents=True)
    for n in range(parts):
        chunk = rows[n * len(rows) // parts : (n + 1) * len(rows) // parts]
        locs, lastmods, freqs, priorities = (list(c) for c in zip(*chunk, strict=True))
        table = pa.table(
            {
                "loc": pa.array(locs, pa.string()),
                "lastmod": pa.array(lastmods, pa.string()),
                "changefreq": pa.array(freqs, pa.string()),
                "priority": pa.array(priorities, pa.float64()),
            }
        )
        pq.write_table(table, directory / f"part-{n:03d}.parquet")


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


# shards over many buckets, and buckets split; through the staging directory (the default,
# with as many bucket groups as parts, or 7 for 5 parts) and through Dask's own shuffles
@pytest.mark.parametrize(
    ("max_urls", "shuffle", "groups"),
    [(400, None, None), (3, None, 7), (400, "p2p", None), (3, "tasks", None)],
)
def test_the_set_is_the_single_process_one_byte_for_byte(
    dask_client: Any, tmp_path: Path, max_urls: int, shuffle: str | None, groups: int | None
) -> None:
    rows = _rows(4000, seed=max_urls)
    _write_parts(rows, tmp_path / "in", parts=5)
    limits = CURRENT.lowered(max_urls=max_urls)
    local = write_sitemaps(rows, tmp_path / "local", BASE, stable=True, now=NOW, limits=limits)
    problems: list[Any] = []
    spread = build(
        tmp_path / "in", tmp_path / "dask", BASE, client=dask_client, now=NOW, limits=limits,
        on_problem=problems.append, shuffle_method=shuffle, partitions=groups,
    )  # fmt: skip
    assert _files(tmp_path / "dask") == _files(tmp_path / "local")
    assert len(local.files) > 3 and local.indexes
    assert (spread.urls, spread.duplicates) == (local.urls, local.duplicates)
    assert spread.rejected == local.rejected == {"invalid-loc": 1}
    assert spread.kept_without["invalid-lastmod"] == local.kept_without["invalid-lastmod"] > 0
    # the rules run per partition: an entry a later partition repeats is warned about too
    assert spread.kept_without["future-lastmod"] >= local.kept_without["future-lastmod"] > 0
    assert [f.name for f in spread.files] == [f.name for f in local.files]
    everything = (spread.rejected, spread.kept_without, spread.flagged)
    assert len(problems) == sum(sum(counts.values()) for counts in everything)


def _published(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()}


def test_a_failed_job_publishes_nothing(dask_client: Any, tmp_path: Path) -> None:
    rows = _rows(600, seed=7)
    _write_parts(rows, tmp_path / "in", parts=3)
    build(tmp_path / "in", tmp_path / "out", BASE, client=dask_client, now=NOW)
    before = _published(tmp_path / "out")
    bad = [*rows[:300], ("https://elsewhere.example.org/page", None, None, None), *rows[300:]]
    _write_parts(bad, tmp_path / "bad", parts=3)
    with pytest.raises(InvalidValue, match="elsewhere"):
        build(tmp_path / "bad", tmp_path / "out", BASE, client=dask_client, now=NOW)
    assert _published(tmp_path / "out") == before
    assert [p.name for p in (tmp_path / "out").iterdir() if p.is_dir()] == []  # no staging left


def test_a_cancelled_build_publishes_nothing(dask_client: Any, tmp_path: Path) -> None:
    from concurrent.futures import CancelledError

    from distributed import Future

    _write_parts(_rows(20000, seed=3), tmp_path / "in", parts=8)
    out = tmp_path / "out"
    failure: list[BaseException] = []

    def run() -> None:
        try:
            build(tmp_path / "in", out, BASE, client=dask_client, now=NOW)
        except BaseException as exc:  # the thread reports what the build raised
            failure.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 60
    while not list(out.glob(".urlset-staging-*/.dask-report-*")) and time.monotonic() < deadline:
        time.sleep(0.01)
    dask_client.cancel([Future(key, dask_client) for key in list(dask_client.futures)])
    thread.join(60)
    assert not thread.is_alive()
    assert failure and isinstance(failure[0], CancelledError), failure
    assert list(out.iterdir()) == []


def test_the_command_builds_on_a_scheduler_as_the_local_build_does(
    dask_client: Any, tmp_path: Path
) -> None:
    """CSV parts through `urlset build --dask ADDRESS` and through `urlset build --stable`."""
    rows = _rows(1500, seed=11)
    (tmp_path / "in").mkdir()
    paths = []
    for n in range(3):
        path = tmp_path / "in" / f"part-{n}.csv"
        lines = ["loc,lastmod,changefreq,priority"]
        for loc, lastmod, freq, priority in rows[n * 500 : (n + 1) * 500]:
            cells = [loc, lastmod or "", freq or "", "" if priority is None else str(priority)]
            lines.append(",".join(f'"{c}"' if "," in c else c for c in cells))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        paths.append(str(path))
    common = ["--base-url", BASE, "--max-urls", "200", "-q"]
    runner = CliRunner()
    local = runner.invoke(
        main, ["build", *paths, "--out", str(tmp_path / "local"), "--stable", *common]
    )
    address = dask_client.scheduler.address
    spread = runner.invoke(
        main, ["build", *paths, "--out", str(tmp_path / "dask"), "--dask", address, *common]
    )
    assert (local.exit_code, spread.exit_code) == (0, 0), local.output + spread.output
    assert _files(tmp_path / "dask") == _files(tmp_path / "local")
    wrong = runner.invoke(
        main,
        ["build", paths[0], "--out", str(tmp_path / "x"), "--dask", address, "--update", *common],
    )
    assert wrong.exit_code == 2 and "--update" in wrong.output
    kept = runner.invoke(
        main,
        [
            "build",
            paths[0],
            "--out",
            str(tmp_path / "x"),
            "--dask",
            address,
            "--no-dedupe",
            *common,
        ],
    )
    assert kept.exit_code == 2 and "always removes duplicates" in kept.output
    assert not (tmp_path / "x").exists()
    # the folder of CSV parts, given as a folder: its parts read as CSV, the same set
    folder = runner.invoke(
        main,
        ["build", str(tmp_path / "in"), "--out", str(tmp_path / "dir"), "--dask", address, *common],
    )
    assert folder.exit_code == 0, folder.output
    assert _files(tmp_path / "dir") == _files(tmp_path / "local")
    (tmp_path / "in" / "part-3.parquet").write_bytes(b"not parquet")
    mixed = runner.invoke(
        main,
        ["build", str(tmp_path / "in"), "--out", str(tmp_path / "y"), "--dask", address, *common],
    )
    assert mixed.exit_code == 2 and "the inputs mix formats" in mixed.output, mixed.output
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "x.parquet").write_bytes(b"not parquet")
    unreadable = runner.invoke(
        main,
        ["build", str(tmp_path / "bad"), "--out", str(tmp_path / "y"), "--dask", address, *common],
    )
    assert unreadable.exit_code == 2 and "cannot be read as parquet" in unreadable.output
    assert not (tmp_path / "y").exists()


def test_urlset_and_its_help_do_not_load_dask() -> None:
    import subprocess
    import sys

    code = (
        "import sys, urlset; from click.testing import CliRunner; from urlset.cli import main; "
        "assert CliRunner().invoke(main, ['build', '--help']).exit_code == 0; "
        "import urlset.dask; print(sorted(m for m in ('dask', 'distributed') if m in sys.modules), "
        "callable(urlset.dask.build))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["[]", "True"]


def test_an_unknown_shuffle_method_is_refused(dask_client: Any, tmp_path: Path) -> None:
    _write_parts(_rows(50, seed=5), tmp_path / "in", parts=1)
    with pytest.raises(InvalidValue, match="staging, tasks or p2p"):
        build(tmp_path / "in", tmp_path / "out", BASE, client=dask_client, shuffle_method="disk")
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []

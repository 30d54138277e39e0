"""The snapshot store: runs from a fetch and a read, run references, a Parquet round trip,
all-or-nothing runs, and diffs of stored runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_fetch_support import LoopbackServer, sitemapindex
from urlset.cli import main
from urlset.fetching.discovery import SitemapRead
from urlset.fetching.http import fetch_sitemaps_sync
from urlset.store.db import StoreError
from urlset.store.diff import compare
from urlset.store.frames import read_frame
from urlset.store.record import FetchRecorder, store_fetch
from urlset.store.snapshot import SnapshotStore

pytest.importorskip("duckdb")
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset_body(rows: list[tuple[str, str | None]]) -> bytes:
    body = "".join(
        f"<url><loc>{loc}</loc>" + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "") + "</url>"
        for loc, lastmod in rows
    )
    return f'<?xml version="1.0"?><urlset {NS}>{body}</urlset>'.encode()


@pytest.fixture
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.add("/robots.txt", b"User-agent: *\nSitemap: /index.xml\n", "text/plain")
        server.add("/index.xml", sitemapindex([server.url("/a.xml"), server.url("/b.xml")]))
        server.add(
            "/a.xml",
            urlset_body([(server.url("/p/1"), "2014"), (server.url("/p/2?x=1&amp;y=2"), None)]),
        )
        # a relative loc: an issue of this sitemap
        server.add("/b.xml", urlset_body([(server.url("/p/3"), "2024-06"), ("/rel", None)]))
        yield server


def test_a_fetch_is_stored_with_its_issues(site: LoopbackServer, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    reads: list[SitemapRead] = []
    result = fetch_sitemaps_sync(site.base, on_read=reads.append)
    run = store_fetch(db, result, reads)
    with SnapshotStore(db) as store:
        info = store.resolve("latest")
        assert (info.run_id, info.site, info.kind) == (run, result.start, "fetch")
        assert info.url_count == 4  # the relative loc is read (resolved) and reported
        frame = store.frame(run).sort_values("loc")
        assert list(frame["lastmod"].fillna("")) == ["2014", "", "2024-06", ""]
        assert set(frame["sitemap"]) == {site.url("/a.xml"), site.url("/b.xml")}
        assert str(frame["lastmod_at"].iloc[2]) == "2024-06-01 00:00:00+00:00"
        assert frame["lastmod_at"].isna().sum() == 2
        codes = {(i["sitemap"], i["code"]) for i in store.issues(run)}
        assert any(s == site.url("/b.xml") for s, _ in codes)


def test_recorder_streams_and_an_aborted_run_leaves_nothing(
    site: LoopbackServer, tmp_path: Path
) -> None:
    db = tmp_path / "s.duckdb"
    recorder = FetchRecorder(db, site.base)
    result = fetch_sitemaps_sync(site.base, on_read=recorder.on_read)
    first = recorder.finish(result)
    aborted = FetchRecorder(db, site.base)
    fetch_sitemaps_sync(site.base, on_read=aborted.on_read)
    aborted.abort()
    with SnapshotStore(db) as store:
        assert [r.run_id for r in store.runs()] == [first]
        assert store.relation(first).count("*").fetchall()[0][0] == 4


def test_run_references(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    sitemap = tmp_path / "s.xml"
    sitemap.write_bytes(urlset_body([("https://e.com/a", None)]))
    for _ in range(3):
        assert (
            CliRunner().invoke(main, ["read", str(sitemap), "--snapshot", str(db), "-q"]).exit_code
            == 0
        )
    with SnapshotStore(db, read_only=True) as store:
        assert [store.resolve(ref).run_id for ref in ("latest", "-1", "-2", "1", 2)] == [
            3,
            2,
            1,
            1,
            2,
        ]
        for ref, message in [("-3", r"only 3 run\(s\)"), ("9", "no such run"), ("x", "latest, -N")]:
            with pytest.raises(StoreError, match=message):
                store.resolve(ref)
        with pytest.raises(StoreError, match="holds no run of other"):
            store.resolve("latest", site="other")
    with pytest.raises(StoreError, match="no snapshot store"):
        SnapshotStore(tmp_path / "none.duckdb", read_only=True)


def test_parquet_round_trip(site: LoopbackServer, tmp_path: Path) -> None:
    db, copy = tmp_path / "s.duckdb", tmp_path / "copy.duckdb"
    recorder = FetchRecorder(db, site.base)
    recorder.finish(fetch_sitemaps_sync(site.base, on_read=recorder.on_read))
    with SnapshotStore(db) as store:
        store.export_parquet("latest", tmp_path / "run.parquet")
        original = store.frame("latest").sort_values("loc").reset_index(drop=True)
    with SnapshotStore(copy) as other:
        run = other.import_parquet(tmp_path / "run.parquet")
        info = other.resolve(run)
        assert (info.site, info.kind, info.url_count) == (store_site(db), "import", 4)
        back = other.frame(run).sort_values("loc").reset_index(drop=True)
    assert back.equals(original)
    same = compare(f"{db}@latest", f"{copy}@latest", moves=True)
    assert not same.changed and same.compared_sitemaps
    # the Parquet file is itself a diff side and a frame source
    assert not compare(str(tmp_path / "run.parquet"), f"{db}@latest").changed
    assert len(read_frame(tmp_path / "run.parquet")) == 4


def store_site(db: Path) -> str:
    with SnapshotStore(db, read_only=True) as store:
        return store.resolve("latest").site


def test_read_snapshot_then_diff_the_runs(tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_bytes(urlset_body([("https://e.com/a", "2014"), ("https://e.com/b", None)]))
    runner = CliRunner()
    first = runner.invoke(main, ["read", str(sitemap), "--snapshot", str(db), "-f", "locs"])
    assert first.exit_code == 0 and first.output.splitlines()[:2] == [
        "https://e.com/a",
        "https://e.com/b",
    ]
    sitemap.write_bytes(urlset_body([("https://e.com/a", "2014-06"), ("https://e.com/c", None)]))
    assert runner.invoke(main, ["read", str(sitemap), "--snapshot", str(db), "-q"]).exit_code == 0
    result = runner.invoke(main, ["diff", f"{db}@-1", f"{db}@latest", "-f", "jsonl", "-q"])
    assert result.exit_code == 1
    assert [line.split('"loc":')[1].split(",")[0] for line in result.output.splitlines()] == [
        '"https://e.com/c"',
        '"https://e.com/a"',
        '"https://e.com/b"',
    ]
    assert '"lastmod_change":"forward"' in result.output.splitlines()[1]


def test_compare_while_the_store_is_open_in_the_same_process(tmp_path: Path) -> None:
    # a notebook keeps its store open and diffs its runs: a second connection to the file
    # (read-only beside read-write) was refused by DuckDB
    db = tmp_path / "s.duckdb"
    sitemap = tmp_path / "sitemap.xml"
    runner = CliRunner()
    for rows in (
        [("https://e.com/a", "2014")],
        [("https://e.com/a", "2015"), ("https://e.com/b", None)],
    ):
        sitemap.write_bytes(urlset_body(rows))
        assert (
            runner.invoke(main, ["read", str(sitemap), "--snapshot", str(db), "-q"]).exit_code == 0
        )
    for read_only in (False, True):
        with SnapshotStore(db, read_only=read_only) as store:
            result = compare(f"{db}@-1", f"{db}@latest")
            assert (result.counts["added"], result.counts["changed"]) == (1, 1)
            assert len(result.frame()) == 2
            # the store still works beside it, and a read-only store of the same file too
            assert store.resolve("latest").url_count == 2
            with SnapshotStore(db, read_only=True) as reader:
                assert reader.resolve("-1").url_count == 1
            assert len(store.frame("latest")) == 2
    # closed: the next diff opens the file itself
    assert compare(f"{db}@-1", f"{db}@latest").counts["added"] == 1


def test_a_url_side_is_fetched(site: LoopbackServer, tmp_path: Path) -> None:
    db = tmp_path / "s.duckdb"
    recorder = FetchRecorder(db, site.base)
    recorder.finish(fetch_sitemaps_sync(site.base, on_read=recorder.on_read))
    same = compare(f"{db}@latest", site.base, moves=True)
    assert not same.changed and same.compared_sitemaps and same.counts["new_urls"] == 4
    site.add("/b.xml", urlset_body([(site.url("/p/3"), "2024-06")]))
    result = CliRunner().invoke(main, ["diff", f"{db}@latest", site.base])
    assert (
        result.exit_code == 1
        and "removed (first 1 of 1 by loc):\n  " + site.url("/rel") in result.output
    )


def test_fetch_command_stores_the_run_beside_its_output(
    site: LoopbackServer, tmp_path: Path
) -> None:
    db, out = tmp_path / "s.duckdb", tmp_path / "urls.jsonl"
    args = ["fetch", site.base, "--snapshot", str(db), "-q", "--workers", "0"]
    result = CliRunner().invoke(main, [*args, "-o", str(out)])
    assert result.exit_code == 0, result.output  # b.xml's relative loc is resolved (a warning)
    assert len(out.read_text().splitlines()) == 4
    assert CliRunner().invoke(main, [*args, "--tree"]).exit_code == 0
    with SnapshotStore(db) as store:
        runs = store.runs()
        assert len(runs) == 2 and all(r.url_count == 4 and r.kind == "fetch" for r in runs)
    diff = CliRunner().invoke(main, ["diff", f"{db}@-1", f"{db}@latest", "-q"])
    assert diff.exit_code == 0, diff.output


def test_fetch_command_with_an_unusable_store_stops_before_fetching(
    site: LoopbackServer, tmp_path: Path
) -> None:
    (tmp_path / "s.duckdb").write_text("not a database")
    result = CliRunner().invoke(
        main, ["fetch", site.base, "--snapshot", str(tmp_path / "s.duckdb")]
    )
    assert result.exit_code == 2 and "urlset fetch:" in result.output
    assert not site.hits  # nothing was fetched

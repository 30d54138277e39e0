"""`fetch --snapshot` in the render lane: the store fed Arrow columns from the compiled core.

A fetch whose snapshot store is the only other reader of its Urls keeps the render lane on:
the parse threads read canonical records into output text and, beside it, into Arrow record
batches, which the store inserts as they are. What is stored must be exactly what the usual
path stores (Urls made into columns of values): the same rows, keys, counts and issues, on
the mixed shapes of bench_read.py and the real-world corpus, served over loopback HTTP.
"""

from __future__ import annotations

import asyncio
import gzip
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import mixed_sitemap
from test_fetch_render_lane import _chunks, _corpus
from test_fetch_support import LoopbackServer, sitemapindex
from urlset.cli import main
from urlset.fetching.discovery import SitemapRead
from urlset.fetching.http import fetch_sitemaps
from urlset.fetching.parse_pool import UrlBatch, _Parsing
from urlset.limits import ReadLimits
from urlset.reading.output import RENDERERS
from urlset.store.record import store_fetch
from urlset.store.snapshot import RunWriter, SnapshotStore

pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")

SITEMAP = 'https://example.com/a,"b"/caf\u00e9.xml'


def _both(data: bytes, size: int) -> tuple[Any, ...]:
    """A document read by a parse worker that renders JSON Lines with columns beside them:
    (output text, record batches as rows), and the usual path's (text, values as rows)."""
    from urlset.reading.arrow import fetch_schema, fetch_values_batch

    results = []
    for lane in (True, False):
        parsing = _Parsing(("jsonl", RENDERERS["jsonl"]), lane, columns=True)
        parsing.handle(("o", SITEMAP, SITEMAP, ReadLimits()))
        for chunk in _chunks(data, size):
            if not parsing.handle(("d", chunk)):
                break
        _, _, columns, _, issues, rendered, batches, count = parsing.handle(("c",))
        text = b"".join(rendered) if isinstance(rendered, list) else rendered or b""
        if lane:
            assert columns is None and batches is not None
        else:
            batches = [fetch_values_batch(columns, SITEMAP)]
        table = pa.Table.from_batches(batches, schema=fetch_schema())
        assert table.num_rows == count
        results.append((text, table.to_pylist(), issues))
    return results[0], results[1]


@pytest.mark.parametrize("size", [1 << 30, 997])
def test_columns_beside_the_text_are_the_values(size: int) -> None:
    lane, usual = _both(mixed_sitemap(1200), size)
    assert lane == usual
    assert len(lane[1]) == 1200


@pytest.mark.skipif(not _corpus(), reason="../shared is absent")
def test_columns_beside_the_text_on_the_corpus() -> None:
    for path in _corpus():
        lane, usual = _both(path.read_bytes(), 4093)
        assert lane == usual, path.name


def _urlset_files() -> list[Path]:
    """The corpus's urlsets (an index there would send the fetch off this machine)."""
    return [p for p in _corpus() if b"<urlset" in _plain(p)[:4096]]


def _plain(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


@pytest.fixture
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        paths = ["/mixed.xml", "/mixed.xml.gz"]
        server.add("/mixed.xml", mixed_sitemap(3000))
        server.add(
            "/mixed.xml.gz", gzip.compress(mixed_sitemap(2000).replace(b"/products/", b"/p/"))
        )
        for path in _urlset_files():
            server.add(f"/corpus/{path.name}", path.read_bytes())
            paths.append(f"/corpus/{path.name}")
        server.add("/robots.txt", b"User-agent: *\nSitemap: /index.xml\n", "text/plain")
        server.add("/index.xml", sitemapindex([server.url(p) for p in paths]))
        yield server


def _stored(db: Path, run: int) -> tuple[Any, ...]:
    with SnapshotStore(db, read_only=True) as store:
        info = store.resolve(run)
        rows = store.con.execute(
            "SELECT loc, lastmod, changefreq, priority, extensions, sitemap, k, h, sh"
            f" FROM entries WHERE run_id = {run} ORDER BY ALL"
        ).fetchall()
        # in no fixed order: sitemaps finish in any order on parse threads, and the issues of
        # one the reader takes back to a careful lane come in an order that depends on the
        # body's chunks (two runs of the usual path differ too)
        issues = sorted(store.issues(run), key=lambda i: [str(v) for v in i.values()])
        return (info.url_count, info.duplicates, info.partial), rows, issues


def test_a_store_fed_columns_holds_what_the_usual_path_stores(
    site: LoopbackServer, tmp_path: Path
) -> None:
    db = tmp_path / "s.duckdb"
    runs = []
    for lane in (False, True):
        reads: list[SitemapRead] = []
        result = asyncio.run(
            fetch_sitemaps(
                site.base,
                on_read=reads.append,
                workers=2,
                render=("jsonl", RENDERERS["jsonl"]),
                rendered_only=lane,
                columns=lane,
            )
        )
        for event in reads:
            urls = event.urls
            assert isinstance(urls, UrlBatch)
            assert (urls.columns is None and urls.batches is not None) == lane
        runs.append(store_fetch(db, result, reads))
    usual, lane_run = _stored(db, runs[0]), _stored(db, runs[1])
    assert usual[0][0] >= 5000 and usual[2]  # entries (the mixed files alone: 5,000), issues
    assert lane_run == usual
    diff = CliRunner().invoke(main, ["diff", f"{db}@{runs[0]}", f"{db}@{runs[1]}", "-q"])
    assert diff.exit_code == 0, diff.output


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_fetch_command_keeps_the_lane_with_a_snapshot(
    site: LoopbackServer, tmp_path: Path, fmt: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The command with --snapshot (the store gets the lane's record batches) and with
    --cache too (the lane on still: the cache reads the Urls as columns beside the batches)
    stores the same run, and writes the same output."""
    db = tmp_path / "s.duckdb"
    outputs = []
    stored_batches: list[int] = []
    add_batches = RunWriter.add_batches

    def counted(writer: RunWriter, batches: list[Any]) -> None:
        stored_batches.append(len(outputs))
        add_batches(writer, batches)

    monkeypatch.setattr(RunWriter, "add_batches", counted)
    for extra in ([], ["--cache", str(tmp_path / "cache")]):
        out = tmp_path / f"out-{len(outputs)}.{fmt}"
        args = ["fetch", site.base, "--snapshot", str(db), "-q", "--format", fmt, "-o", str(out)]
        result = CliRunner().invoke(main, [*args, *extra])
        assert result.exit_code in (0, 1), result.output
        outputs.append(out.read_bytes())
    assert set(stored_batches) == {0, 1}  # record batches from the lane, in both runs
    if fmt != "parquet":
        assert outputs[0] == outputs[1]
    assert _stored(db, 1) == _stored(db, 2)


@pytest.mark.parametrize("finish", [True, False])
def test_entries_inserted_on_the_store_thread(tmp_path: Path, finish: bool) -> None:
    """A background writer stores what a foreground one does, and an aborted run leaves
    nothing, even with an insert running on the store thread."""
    from urlset.model import Issue, Severity, Url
    from urlset.reading.arrow import fetch_values_batch
    from urlset.reading.output import UrlColumns

    urls = [Url(f"https://example.com/{i}?a=1&b=caf\u00e9", priority=0.5) for i in range(1000)]
    batch = fetch_values_batch(UrlColumns.from_urls(urls), "https://example.com/s.xml")
    db = tmp_path / "s.duckdb"
    with SnapshotStore(db) as store:
        for background in (False, True):
            writer = store.begin("https://example.com/", background=background)
            writer.batches.size = 2500  # a full table every 3 batches: inserts while adding
            for _ in range(10):
                writer.add_batches([batch])
                writer.add_issues([Issue("dev-host", Severity.WARNING, "a host")], "s.xml")
            if background:
                assert writer.thread is not None
            if finish or not background:
                writer.finish()
            else:
                writer.abort()
                assert writer.thread is None
        runs = store.runs()
        assert [r.url_count for r in runs] == ([10_000, 10_000] if finish else [10_000])
        assert [r.duplicates for r in runs] == [9000] * len(runs)
        assert [len(store.issues(r)) for r in runs] == [10] * len(runs)
        if finish:
            rows = [
                store.con.execute(
                    f"SELECT * EXCLUDE (run_id) FROM entries WHERE run_id = {r.run_id} ORDER BY ALL"
                ).fetchall()
                for r in runs
            ]
            assert rows[0] == rows[1] and len(rows[0]) == 10_000


def test_url_columns_write_each_offset_of_one_instant() -> None:
    """Two lastmods of one instant in different offsets are equal datetimes in Python; the
    lastmod text of each is the one written (the memo of texts once gave the first's)."""
    from datetime import UTC, datetime, timedelta, timezone

    from urlset.model import Url
    from urlset.reading.output import UrlColumns

    at = datetime(2024, 3, 1, 10, 0, tzinfo=UTC)
    zones = (timezone(timedelta(hours=1)), timezone(timedelta(hours=-5)), UTC)
    urls = [Url(f"https://a.test/{i}", at.astimezone(zone)) for i, zone in enumerate(zones)]
    assert UrlColumns.from_urls(urls).lastmods == [
        "2024-03-01T11:00:00+01:00",
        "2024-03-01T05:00:00-05:00",
        "2024-03-01T10:00:00Z",
    ]

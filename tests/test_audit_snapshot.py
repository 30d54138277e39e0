"""audit --snapshot: an interrupted audit goes on where it stopped (no URL requested twice),
and a later audit says what changed."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from aiohttp import web
from click.testing import CliRunner

from sources_support import html_page
from test_fetch_support import NS, LoopbackServer, fast_http
from urlset.auditing.driver import Audit, AuditError, AuditOptions
from urlset.auditing.rules import CUT_OFF
from urlset.cli import main

COUNT = 20


def _site(server: LoopbackServer) -> str:
    for i in range(COUNT):
        server.add(f"/p/{i}", html_page().encode(), "text/html")
    body = "".join(f"<url><loc>{server.url(f'/p/{i}')}</loc></url>" for i in range(COUNT))
    server.add("/sitemap.xml", f"<urlset {NS}>{body}</urlset>".encode())
    return server.url("/sitemap.xml")


FAST = 5  # the pages a cut run can finish: the others are held until the cut run is over


def _hold_the_rest(server: LoopbackServer) -> threading.Event:
    """Pages FAST and on answer only once the returned event is set (or after 30 s): a run
    with a deadline is cut with those pages unfinished however loaded the machine is, where a
    rate limit left the cut to the clock."""
    released = threading.Event()

    async def held(request: web.Request) -> web.StreamResponse:
        for _ in range(600):
            if released.is_set():
                break
            await asyncio.sleep(0.05)
        return web.Response(body=html_page().encode(), content_type="text/html")

    for i in range(FAST, COUNT):
        server.handle(f"/p/{i}", held)
    return released


def _cut() -> AuditOptions:
    """Options for a run the deadline cuts while the held pages wait (no read timeout first)."""
    return AuditOptions(
        http=fast_http(deadline=3.0, read_timeout=30.0, total_timeout=30.0), concurrency=2
    )


def test_resume_then_report_changes(tmp_path: Path) -> None:
    db = str(tmp_path / "audit.duckdb")
    with LoopbackServer() as server:
        target = _site(server)
        released = _hold_the_rest(server)
        first = Audit(target, replace(_cut(), snapshot=db)).run_sync()
        cut = first.status_mix[CUT_OFF]  # the held pages in flight when the deadline came
        assert first.status_mix["2xx"] == FAST and 0 < cut <= 2 and first.audited == FAST + cut
        assert any("unfinished: run again to go on" in n for n in first.notes)
        released.set()
        rest = Audit(target, AuditOptions(http=fast_http(), snapshot=db)).run_sync()
        # every URL audited in all: the stored ones counted, not requested again; the ones
        # the deadline cut asked again, as no answer was stored for them
        assert rest.audited == COUNT and rest.status_mix == {"2xx": COUNT}
        assert all(server.hits[f"/p/{i}"] == 1 for i in range(FAST))
        assert sum(server.hits[f"/p/{i}"] for i in range(FAST, COUNT)) == COUNT - FAST + cut
        done_before = FAST
        assert any(f"{done_before:,} URLs were done" in n for n in rest.notes)
        del server.files["/p/3"]  # the page is gone now
        later = Audit(target, AuditOptions(http=fast_http(), snapshot=db)).run_sync()
    assert later.counts["page-not-found"] == 1
    change = next(n for n in later.notes if "page-not-found" in n)
    assert "1 URLs more, 0 fewer" in change and "/p/3" in change
    assert any("since audit 1" in n for n in later.notes)


def test_store_that_cannot_be_opened_is_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "not-a-db"
    bad.write_bytes(b"this is not DuckDB" * 100)
    with LoopbackServer() as server:
        target = _site(server)
        with pytest.raises(AuditError, match="not-a-db"):
            Audit(target, AuditOptions(http=fast_http(), snapshot=str(bad))).run_sync()
        result = CliRunner().invoke(main, ["audit", target, "--snapshot", str(bad)])
    assert result.exit_code == 2
    assert "not-a-db" in result.output


def _site_with_findings(server: LoopbackServer) -> str:
    """COUNT pages; /p/1 is gone and /p/2 redirects to /p/0 (both in a cut run's part)."""
    target = _site(server)
    del server.files["/p/1"]

    async def moved(request: web.Request) -> web.StreamResponse:
        raise web.HTTPMovedPermanently(server.url("/p/0"))

    server.handle("/p/2", moved)
    return target


def test_resumed_results_are_in_every_output(tmp_path: Path) -> None:
    """A resumed audit's JSON Lines has every URL once (the stored ones as they were found,
    redirects too), and its SARIF and HTML count the stored findings."""
    db = str(tmp_path / "audit.duckdb")
    with LoopbackServer() as server:
        target = _site_with_findings(server)
        released = _hold_the_rest(server)
        first = Audit(target, replace(_cut(), snapshot=db)).run_sync()
        assert first.status_mix["2xx"] + first.status_mix["4xx"] == FAST
        released.set()
        runner = CliRunner()
        lines = runner.invoke(main, ["audit", target, "--snapshot", db, "--format", "jsonl"])
        assert server.hits["/p/1"] == 1 and server.hits["/p/2"] == 1  # not asked again
        second = Audit(target, AuditOptions(http=fast_http(), snapshot=db)).run_sync()
        sarif_run = runner.invoke(main, ["audit", target, "--snapshot", db, "--format", "sarif"])
    results = [json.loads(line) for line in lines.output.splitlines()]
    assert sorted(r["loc"] for r in results) == sorted(server.url(f"/p/{i}") for i in range(COUNT))
    resumed = {r["loc"]: r for r in results if r["resumed"]}
    assert len(resumed) == FAST  # the pages the deadline cut were asked again
    gone, moved = resumed[server.url("/p/1")], resumed[server.url("/p/2")]
    assert gone["status"] == 404 and [f["code"] for f in gone["findings"]] == ["page-not-found"]
    assert moved["redirects"] == [{"status": 301, "to": server.url("/p/0")}]
    assert moved["final"] == server.url("/p/0") and moved["status"] == 200
    # a later full run compares itself with the finished one: nothing changed
    assert second.changes is not None and second.changes.to_dict()["codes"] == {}
    sarif = json.loads(sarif_run.output)
    codes = {r["ruleId"] for r in sarif["runs"][0]["results"]}
    assert {"page-not-found", "page-redirect"} <= codes


def test_changes_in_json_and_html(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    db = str(tmp_path / "audit.duckdb")
    with LoopbackServer() as server:
        target = _site(server)
        Audit(target, AuditOptions(http=fast_http(), snapshot=db)).run_sync()
        del server.files["/p/3"]
        runner = CliRunner()
        as_json = runner.invoke(main, ["audit", target, "--snapshot", db, "--format", "json"])
        server.add("/p/3", html_page().encode(), "text/html")
        as_html = runner.invoke(main, ["audit", target, "--snapshot", db, "--format", "html"])
    changes = json.loads(as_json.output)["changes"]
    assert changes["since_audit"] == 1
    assert changes["codes"] == {
        "page-not-found": {"more": 1, "fewer": 0, "new": [server.url("/p/3")], "gone": []}
    }
    assert "Changes since audit 2" in as_html.output
    assert "page-not-found" in as_html.output


def test_a_batch_of_results_reads_back_as_written(tmp_path: Path) -> None:
    """Results go in as one Arrow batch a flush: every column, a status and redirects that
    are absent, findings and a non-ASCII loc included, read back by a resumed run; more
    than one batch (FLUSH) and a last short one."""
    from urlset.auditing.snapshot import FLUSH, open_store
    from urlset.checking.rules import make_issue

    path = str(tmp_path / "audit.duckdb")
    store = open_store(path)
    store.start("https://example.com/", FLUSH + 3, None, 0)
    written = []
    for i in range(FLUSH + 3):
        loc = f"https://example.com/é/{i}"
        status = None if i % 3 == 0 else 200 + i % 2 * 101
        redirects = ((301, f"https://example.com/to/{i}"),) if status == 301 else ()
        findings = [make_issue("page-not-found", f"gone {i}", source=loc)] if i % 5 == 0 else []
        store.add(loc, "s.xml", "x", status, f"{loc}#final", i / 10, findings, redirects)
        written.append((loc, status, i / 10, [f.message for f in findings], redirects))
    store.finish(False)
    store.close()

    again = open_store(path)
    again.start("https://example.com/", FLUSH + 3, None, 0)
    read = sorted(
        (r.loc, r.status, r.seconds, [f.message for f in r.findings], r.redirects)
        for r in again.resumed()
    )
    again.close()
    assert read == sorted(written)

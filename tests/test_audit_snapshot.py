"""audit --snapshot: an interrupted audit goes on where it stopped (no URL requested twice),
and a later audit says what changed."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from sources_support import html_page
from test_fetch_support import NS, LoopbackServer, fast_http
from urlset.auditing.driver import Audit, AuditError, AuditOptions
from urlset.cli import main

COUNT = 20


def _site(server: LoopbackServer) -> str:
    for i in range(COUNT):
        server.add(f"/p/{i}", html_page().encode(), "text/html")
    body = "".join(f"<url><loc>{server.url(f'/p/{i}')}</loc></url>" for i in range(COUNT))
    server.add("/sitemap.xml", f"<urlset {NS}>{body}</urlset>".encode())
    return server.url("/sitemap.xml")


def test_resume_then_report_changes(tmp_path: Path) -> None:
    db = str(tmp_path / "audit.duckdb")
    with LoopbackServer() as server:
        target = _site(server)
        cut = AuditOptions(http=fast_http(deadline=0.5), rate=10.0, snapshot=db, concurrency=2)
        first = Audit(target, cut).run_sync()
        assert 0 < first.audited < COUNT
        assert any("unfinished: run again to go on" in n for n in first.notes)
        done_before = first.audited
        rest = Audit(target, AuditOptions(http=fast_http(), snapshot=db)).run_sync()
        # every URL audited once in all: the stored ones counted, not requested again
        assert rest.audited == COUNT and rest.status_mix == {"2xx": COUNT}
        assert all(server.hits[f"/p/{i}"] == 1 for i in range(COUNT))
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

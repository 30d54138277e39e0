"""``urlset watch``: a loop over a loopback site that changes between runs, the diff handed to
--exec and --webhook, one fetch of a site at a time, and a clean stop on SIGTERM / SIGINT."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import click
import pytest
from aiohttp import web
from click.testing import CliRunner

from test_fetch_support import LoopbackServer
from urlset.cli import main
from urlset.cli.watch import parse_duration
from urlset.store.snapshot import SnapshotStore
from urlset.store.watch import site_lock

pytest.importorskip("duckdb")
NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def body(rows: list[tuple[str, str]]) -> bytes:
    urls = "".join(f"<url><loc>{loc}</loc><lastmod>{m}</lastmod></url>" for loc, m in rows)
    return f'<?xml version="1.0"?><urlset {NS}>{urls}</urlset>'.encode()


@pytest.fixture
def changing() -> Iterator[LoopbackServer]:
    """A site whose sitemap changes after its first answer: /b goes, /c comes, /a moves on."""
    with LoopbackServer() as server:
        served = {"n": 0}

        async def sitemap(request: web.Request) -> web.Response:
            served["n"] += 1
            first = served["n"] == 1
            rows = (
                [(server.url("/a"), "2024-01-01"), (server.url("/b"), "2024")]
                if first
                else [(server.url("/a"), "2024-02-01T08:00:00Z"), (server.url("/c"), "2024-06")]
            )
            return web.Response(body=body(rows), content_type="application/xml")

        server.add("/robots.txt", b"User-agent: *\nSitemap: /sitemap.xml\n", "text/plain")
        server.handle("/sitemap.xml", sitemap)
        yield server


def test_parse_duration() -> None:
    assert [parse_duration(t) for t in ("90", "90s", "5m", "1h30m", "1d", "0.5s")] == [
        90, 90, 300, 5400, 86400, 0.5,
    ]  # fmt: skip
    for bad in ("", "5x", "0s", "m"):
        with pytest.raises(click.BadParameter):
            parse_duration(bad)


def test_two_runs_store_diff_and_exec(changing: LoopbackServer, tmp_path: Path) -> None:
    db = tmp_path / "w.duckdb"
    out = tmp_path / "hook"
    command = f"cat > {out}.jsonl; printf '%s' \"$URLSET_DIFF\" > {out}.json"
    args = ["watch", changing.base, "--every", "0.2s", "--max-runs", "2", "--snapshot", str(db)]
    result = CliRunner().invoke(main, [*args, "--exec", command], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    lines = [line for line in result.output.splitlines() if " run " in line]
    assert "run 1: 2 entries (first run)" in lines[0]
    assert "run 2: 2 entries; added 1, removed 1, changed 1, moved 0 since run 1" in lines[1]
    rows = [json.loads(line) for line in out.with_suffix(".jsonl").read_text().splitlines()]
    assert [(r["change"], r["loc"].rsplit("/", 1)[1]) for r in rows] == [
        ("added", "c"),
        ("changed", "a"),
        ("removed", "b"),
    ]
    assert rows[1]["lastmod_change"] == "forward"
    summary = json.loads(out.with_suffix(".json").read_text())
    assert (summary["run"], summary["previous_run"], summary["counts"]["added"]) == (2, 1, 1)
    with SnapshotStore(db, read_only=True) as store:
        assert [r.url_count for r in store.runs()] == [2, 2]
    assert (tmp_path / "w.duckdb.cache").is_dir()  # fetched with the cache


class _Hook(BaseHTTPRequestHandler):
    received: ClassVar[list[dict[str, Any]]] = []

    def do_POST(self) -> None:
        length = int(self.headers["Content-Length"])
        self.received.append(json.loads(self.rfile.read(length)))
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_webhook_gets_the_summary(changing: LoopbackServer) -> None:
    hook = ThreadingHTTPServer(("127.0.0.1", 0), _Hook)
    thread = threading.Thread(target=hook.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{hook.server_address[1]}/hook"
        args = [
            "watch",
            changing.base,
            "--every",
            "0.1s",
            "--max-runs",
            "2",
            "--webhook",
            url,
            "-q",
        ]
        assert CliRunner().invoke(main, args, catch_exceptions=False).exit_code == 0
    finally:
        hook.shutdown()
        hook.server_close()
    assert len(_Hook.received) == 1
    got = _Hook.received[0]
    assert got["counts"]["removed"] == 1 and got["examples"]["removed"][0]["loc"].endswith("/b")


def test_a_site_being_fetched_elsewhere_is_skipped(changing: LoopbackServer) -> None:
    site = changing.base + "/"
    with site_lock(site) as mine:
        assert mine
        result = CliRunner().invoke(main, ["watch", site, "--every", "1s", "--max-runs", "1"])
    assert result.exit_code == 0
    assert "run skipped: another fetch of this site is still running" in result.output
    assert changing.hits["/robots.txt"] == 0


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_the_loop_cleanly(
    changing: LoopbackServer, tmp_path: Path, signum: int
) -> None:
    db = tmp_path / "w.duckdb"
    code = "import sys; from urlset.cli import main; sys.exit(main())"
    process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            code,
            "watch",
            changing.base,
            "--every",
            "60s",
            "--snapshot",
            str(db),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, PYTHONUNBUFFERED="1"),
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # the first run is stored; now it waits 60 s
        assert "run 1: 2 entries" in first
        began = time.monotonic()
        process.send_signal(signum)
        _, err = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, err
    assert time.monotonic() - began < 10
    assert "stopping after the run in progress" in err and "urlset watch: stopped" in err
    assert "Traceback" not in err
    with SnapshotStore(db, read_only=True) as store:
        assert len(store.runs()) == 1

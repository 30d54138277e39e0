"""``urlset serve DIR``: a real process on loopback, stopped by a signal or its deadline."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from serve_support import fetch
from urlset import write_sitemaps

BASE = "https://example.com/"
URLSET = [sys.executable, "-c", "import sys; from urlset.cli import main; sys.exit(main())"]


@pytest.fixture
def published(tmp_path: Path) -> Path:
    out = tmp_path / "site"
    write_sitemaps([(f"{BASE}a?x=1&y=2", "2026-11-01"), (f"{BASE}b", None)], out, BASE)
    return out


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*URLSET, "serve", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serves_the_set_until_a_signal(published: Path, signum: int) -> None:
    process = _start(str(published), "--port", "0")
    try:
        assert process.stdout is not None
        base = process.stdout.readline().strip()
        assert base.startswith("http://127.0.0.1:")
        status, headers, body = fetch(base.rstrip("/"), "/sitemap.xml.gz")
        assert status == 200 and headers["content-type"] == "application/gzip"
        assert body == (published / "sitemap.xml.gz").read_bytes()
    finally:
        process.send_signal(signum)
        _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err
    assert "stopped" in err


def test_stops_by_itself_after_for(published: Path) -> None:
    process = _start(str(published), "--port", "0", "--for", "1s")
    _, err = process.communicate(timeout=20)
    assert process.returncode == 0, err


def test_usage_errors_exit_2(published: Path, tmp_path: Path) -> None:
    missing = subprocess.run(
        [*URLSET, "serve", str(tmp_path / "nope")],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert missing.returncode == 2 and "not a directory" in missing.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    nothing = subprocess.run(
        [*URLSET, "serve", str(empty)],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert nothing.returncode == 2 and "no sitemap here" in nothing.stderr
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        busy = subprocess.run(
            [*URLSET, "serve", str(published), "--port", port],
            capture_output=True,
            text=True,
            timeout=20,
        )
    assert busy.returncode == 2 and "cannot listen" in busy.stderr

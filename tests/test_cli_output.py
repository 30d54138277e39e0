"""Output that cannot be written is named with the reason (exit 2); a closed pipe is not an
error. Real processes, real pipes, the real /dev/full."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BASE = "https://www.example.com/"
needs_dev_full = pytest.mark.skipif(
    not os.path.exists("/dev/full"), reason="needs /dev/full (a device that is always full)"
)


def _urlset(*args: str, **kwargs: object) -> subprocess.Popen[bytes]:
    code = "from urlset.cli import main; main()"
    return subprocess.Popen([sys.executable, "-c", code, *args], **kwargs)  # type: ignore[call-overload, no-any-return]


def _run(*args: str, stdout: object = subprocess.PIPE) -> tuple[int, str]:
    proc = _urlset(*args, stdout=stdout, stderr=subprocess.PIPE)
    _, err = proc.communicate(timeout=60)
    return proc.returncode, err.decode()


@pytest.fixture
def big(tmp_path: Path) -> Path:
    path = tmp_path / "big.txt"
    path.write_text("".join(f"{BASE}p/{i}?a=1&b=2\n" for i in range(100_000)))
    return path


@needs_dev_full
@pytest.mark.parametrize("fmt", ["jsonl", "csv"])
def test_read_to_a_full_file_names_it(big: Path, fmt: str) -> None:
    status, err = _run("read", str(big), "--format", fmt, "-o", "/dev/full")
    assert status == 2
    assert "urlset read: cannot write /dev/full: No space left on device" in err
    assert "Traceback" not in err and "cannot read" not in err


@needs_dev_full
def test_read_and_check_to_a_full_stdout_name_it(big: Path) -> None:
    with open("/dev/full", "wb") as full:
        status, err = _run("read", str(big), stdout=full)
        assert status == 2 and "Traceback" not in err and "Exception ignored" not in err
        assert "cannot write standard output (/dev/full): No space left on device" in err
        status, err = _run("check", str(big), stdout=full)
        assert status == 2 and "Traceback" not in err and "OSError" not in err
        assert "urlset check: cannot write standard output (/dev/full)" in err


def test_read_into_a_missing_directory_names_it(big: Path, tmp_path: Path) -> None:
    target = tmp_path / "no" / "out.jsonl"
    status, err = _run("read", str(big), "-o", str(target))
    assert status == 2 and f"cannot write {target}: No such file or directory" in err


def _first_line_then_close(*args: str) -> tuple[int, bytes, str]:
    proc = _urlset(*args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()  # as `| head -1` does
    err = proc.stderr.read().decode()
    proc.stderr.close()
    return proc.wait(timeout=60), first, err


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "locs"])
def test_read_into_a_closed_pipe_ends_quietly(big: Path, fmt: str) -> None:
    status, first, err = _first_line_then_close("read", str(big), "--format", fmt)
    assert first.strip()
    assert status == 0
    assert err == ""


def test_check_into_a_closed_pipe_keeps_the_findings_status(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("".join(f"relative/{i}\n" for i in range(20_000)))
    status, first, err = _first_line_then_close("check", str(bad))
    assert b"errors" in first
    assert status == 1 and "Traceback" not in err and "Exception ignored" not in err

"""Access logs as a build source: Common and Combined Log Format, plain and gzipped, rotated
files; what is left out by default, counted; malformed lines never fatal."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from click.testing import CliRunner

from sources_support import assert_valid_set
from urlset.cli import main
from urlset.sources.access_log import AccessLogs, LogLines, LogOptions
from urlset.sources.report import SourceReport

BASE = "https://www.example.com/"
BROWSER = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"


def combined(target: str, status: int = 200, method: str = "GET", agent: str = BROWSER) -> str:
    return (
        f'203.0.113.7 - - [25/Nov/2026:10:00:00 +0000] "{method} {target} HTTP/1.1" {status} 5120 '
        f'"https://www.example.com/" "{agent}"'
    )


def common(target: str, status: int = 200) -> str:
    return f'2001:db8::1 - frank [10/Oct/2000:13:55:36 -0700] "GET {target} HTTP/1.0" {status} -'


@pytest.mark.parametrize(
    ("line", "page", "reason"),
    [
        (combined("/"), "/", None),
        (combined("/blog/post-1"), "/blog/post-1", None),
        (combined("/a.html?utm_source=x&b=2#top"), "/a.html", None),
        (common("/products/shoe.php?id=7"), "/products/shoe.php", None),
        (combined("/caf\\xC3\\xA9/"), "/caf%C3%A9/", None),
        (combined("https://www.example.com/abs?q=1"), "/abs", None),
        (combined("/x", status=404), None, "status 404, not 2xx"),
        (combined("/x", status=304), None, "status 304, not 2xx"),
        (combined("/x", status=301), None, "status 301, not 2xx"),
        (combined("/x", method="POST"), None, "POST request, not GET"),
        (combined("/x", method="HEAD"), None, "HEAD request, not GET"),
        (
            combined("/x", agent="Mozilla/5.0 (compatible; Googlebot/2.1)"),
            None,
            "request by a bot or tool (user agent)",
        ),
        (combined("/x", agent="curl/8.5.0"), None, "request by a bot or tool (user agent)"),
        (combined("/style.css"), None, "not an HTML page (asset extension)"),
        (combined("/img/logo.PNG?v=3"), None, "not an HTML page (asset extension)"),
        (combined("/sitemap.xml"), None, "not an HTML page (asset extension)"),
        (combined("/wp-admin/index.php"), None, "private or utility path"),
        (combined("/Login"), None, "private or utility path"),
        (combined("/search?q=shoes"), None, "private or utility path"),
        (combined("/.env"), None, "private or utility path"),
        (combined("/a/.git/config"), None, "private or utility path"),
        (combined("*", method="GET"), None, "request target is not a path"),
        ("not a log line", None, "malformed line (neither Common nor Combined Log Format)"),
        (
            '1.2.3.4 - - [x] "GET /" 200 1',
            None,
            "malformed line (neither Common nor Combined Log Format)",
        ),
        (
            '1.2.3.4 - - [x] "\\x16\\x03\\x01" 400 1',
            None,
            "malformed line (neither Common nor Combined Log Format)",
        ),
    ],
)
def test_line_rules(line: str, page: str | None, reason: str | None) -> None:
    report = SourceReport("log")
    rules = LogLines(BASE, LogOptions(), report)
    assert rules.page(line.encode(), "log:1") == page
    assert list(report.left_out) == ([reason] if reason else [])


def test_query_kept_on_request_and_base_directory_honoured() -> None:
    report = SourceReport("log")
    kept = LogLines(BASE, LogOptions(keep_query=True), report)
    assert kept.page(combined("/p?id=7&x=%C3%A9").encode(), "l") == "/p?id=7&x=%C3%A9"
    docs = LogLines(BASE + "docs/", LogOptions(), report)
    assert docs.page(combined("/docs/a").encode(), "l") == "/docs/a"
    assert docs.page(combined("/blog/b").encode(), "l") is None
    assert report.left_out == {"outside --base-url's directory": 1}


def _write_logs(folder: Path) -> list[str]:
    """Three rotated logs: the live one, .1 plain, .2.gz gzipped (a line cut in two by a
    crash in the middle), with repeats, bots and junk."""
    live = [combined("/"), combined("/about"), combined("/about"), "garbage", combined("/c.css")]
    one = [common("/blog/"), combined("/blog/", agent="Bingbot/2.0"), combined("/about")]
    two = [combined("/old/page.html"), combined("/ünï/"), combined("/x", status=500)]
    (folder / "access.log").write_text("\n".join(live) + "\n", encoding="utf-8")
    (folder / "access.log.1").write_text("\r\n".join(one) + "\r\n", encoding="utf-8")
    (folder / "access.log.2.gz").write_bytes(gzip.compress(("\n".join(two) + "\n").encode()))
    return [str(folder / name) for name in ("access.log", "access.log.1", "access.log.2.gz")]


def test_rotated_plain_and_gzipped_logs(tmp_path: Path) -> None:
    logs = AccessLogs(_write_logs(tmp_path), BASE, LogOptions())
    rows = [row for batch in logs.batches() for row in batch]
    assert rows == [
        (BASE, None, None, None),
        (BASE + "about", None, None, None),
        (BASE + "blog/", None, None, None),
        (BASE + "old/page.html", None, None, None),
        (BASE + "%C3%BCn%C3%AF/", None, None, None),
    ]
    assert logs.report.entries == 5
    assert logs.requests == 7
    assert logs.report.left_out["malformed line (neither Common nor Combined Log Format)"] == 1
    assert logs.report.examples["malformed line (neither Common nor Combined Log Format)"] == [
        f"{tmp_path / 'access.log'}:4"
    ]
    assert sum(logs.report.left_out.values()) == 4


def test_a_gzipped_log_cut_short_keeps_its_lines(tmp_path: Path) -> None:
    data = gzip.compress(("\n".join(combined(f"/p{i}") for i in range(2000)) + "\n").encode())
    (tmp_path / "access.log.3.gz").write_bytes(data[: len(data) // 2])
    logs = AccessLogs([str(tmp_path / "access.log.3.gz")], BASE, LogOptions())
    rows = [row for batch in logs.batches() for row in batch]
    assert 0 < len(rows) < 2000
    assert any("ends early or is damaged" in note for note in logs.report.notes)


def test_build_from_logs_is_valid(tmp_path: Path) -> None:
    logs = _write_logs(tmp_path)
    out = tmp_path / "out"
    args = ["build", "--base-url", BASE, "--out", str(out)]
    result = CliRunner().invoke(main, [*args, *(f"--access-log={log}" for log in logs)])
    assert result.exit_code == 0, result.output
    assert "access.log and 2 more logs: 5 URLs" in result.output
    assert "left out 1: malformed line" in result.output
    assert "7 page requests for 5 pages" in result.output
    assert assert_valid_set(out)[:2] == [BASE, BASE + "about"]


def test_a_missing_log_is_an_error_and_nothing_is_published(tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = [
        "build",
        "--base-url",
        BASE,
        "--out",
        str(out),
        "--access-log",
        str(tmp_path / "no.log"),
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "no.log: cannot read" in result.output
    assert "nothing was published" in result.output
    assert not out.exists() or not any(out.iterdir())

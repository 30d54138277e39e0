"""``urlset check``: output formats and exit statuses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from urlset.cli import main

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def doc(*locs: str, lastmod: str = "") -> bytes:
    extra = f"<lastmod>{lastmod}</lastmod>" if lastmod else ""
    body = "".join(f"<url><loc>{u}</loc>{extra}</url>\n" for u in locs)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
    )


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    out = {
        "clean": doc("https://www.shop.org/", "https://www.shop.org/a"),
        "error": doc("https://www.shop.org/a b"),
        "warning": doc("https://www.example.com/a"),
        "future": doc("https://www.shop.org/", lastmod="2030-01-01"),
    }
    paths = {}
    for name, data in out.items():
        paths[name] = tmp_path / f"{name}.xml"
        paths[name].write_bytes(data)
    return paths


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def test_clean_exits_0(files: dict[str, Path]) -> None:
    code, out = run(str(files["clean"]), "--now", "2026-01-01")
    assert code == 0
    assert out.splitlines()[0].endswith(": ok")
    assert out.splitlines()[-1] == "checked 1 file, 2 entries: 0 errors, 0 warnings"


def test_errors_exit_1_grouped_by_file(files: dict[str, Path]) -> None:
    code, out = run(str(files["error"]), str(files["clean"]), "--now", "2026-01-01")
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith(str(files["error"])) and "1 error," in lines[0]
    assert "error    url-not-escaped" in lines[1] and '[Search Console: "Invalid URL"]' in lines[1]
    assert lines[2].strip().startswith("hint:")
    assert any(line.startswith(str(files["clean"])) and line.endswith("ok") for line in lines)


def test_fail_on_warning(files: dict[str, Path]) -> None:
    assert run(str(files["warning"]))[0] == 0
    assert run(str(files["warning"]), "--fail-on", "warning")[0] == 1


def test_now_makes_future_dates_reproducible(files: dict[str, Path]) -> None:
    code, out = run(str(files["future"]), "--now", "2026-01-01", "--fail-on", "warning")
    assert code == 1 and "future-lastmod" in out
    assert (
        run(str(files["future"]), "--now", "2031-01-01T00:00:00Z", "--fail-on", "warning")[0] == 0
    )


def test_json(files: dict[str, Path]) -> None:
    code, out = run(str(files["error"]), "--format", "json")
    assert code == 1
    data = json.loads(out)
    assert data["summary"]["errors"] == 1 and data["summary"]["files"] == 1
    issue = data["files"][0]["issues"][0]
    assert issue["code"] == "url-not-escaped" and issue["line"] == 3 and issue["column"] == 11
    assert issue["gsc"] == "Invalid URL" and issue["hint"]


def test_sarif_shape(files: dict[str, Path]) -> None:
    code, out = run(str(files["error"]), str(files["warning"]), "--format", "sarif")
    assert code == 1
    log = json.loads(out)
    assert log["version"] == "2.1.0" and "sarif" in log["$schema"]
    run0 = log["runs"][0]
    rules = run0["tool"]["driver"]["rules"]
    ids = [r["id"] for r in rules]
    assert {"url-not-escaped", "placeholder-host"} <= set(ids)
    for result in run0["results"]:
        assert result["ruleId"] in ids
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in ("error", "warning", "note")
        assert result["message"]["text"]
        for location in result["locations"]:
            physical = location["physicalLocation"]
            assert physical["artifactLocation"]["uri"]
            assert physical["region"]["startLine"] >= 1
            assert physical["region"]["startColumn"] >= 1
    levels = {r["ruleId"]: r["level"] for r in run0["results"]}
    assert levels == {"url-not-escaped": "error", "placeholder-host": "warning"}


def test_stdin(files: dict[str, Path]) -> None:
    code, out = run("-", stdin=files["error"].read_bytes())
    assert code == 1 and out.startswith("<stdin> (urlset, 1 URL)")


def test_directory_with_base_url(tmp_path: Path) -> None:
    (tmp_path / "sitemap.xml").write_bytes(
        f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://www.shop.org/a.xml</loc>'
        "<lastmod>2025-01-01</lastmod></sitemap>"
        "<sitemap><loc>https://www.shop.org/b.xml</loc><lastmod>2025-01-01</lastmod></sitemap>"
        "</sitemapindex>".encode()
    )
    (tmp_path / "a.xml").write_bytes(doc("https://www.shop.org/x", lastmod="2024-12-01"))
    code, out = run(str(tmp_path), "--base-url", "https://www.shop.org/", "--now", "2026-01-01")
    assert code == 1
    assert "missing-child" in out and "b.xml" in out
    assert "checked 2 files" in out


@pytest.mark.parametrize(
    "args",
    [
        ["nope.xml"],
        ["https://www.shop.org/sitemap.xml"],
        ["x.xml", "--now", "soon"],
        ["x.xml", "--now", "2026-01-01T10:00:00"],
        ["x.xml", "--profile", "2005"],
        ["x.xml", "--format", "xml"],
        ["x.xml", "--base-url", "ftp://x.org/"],
        [],
    ],
)
def test_usage_and_io_errors_exit_2(args: list[str], tmp_path: Path) -> None:
    code, out = run(*[str(tmp_path / a) if a == "x.xml" else a for a in args])
    assert code == 2
    assert "Traceback" not in out


def test_profile_2008(tmp_path: Path) -> None:
    refs = "".join(
        f"<sitemap><loc>https://www.shop.org/s{n}.xml</loc><lastmod>2025-01-01</lastmod></sitemap>"
        for n in range(1001)
    )
    path = tmp_path / "index.xml"
    path.write_bytes(
        f'<?xml version="1.0"?><sitemapindex xmlns="{NS}">{refs}</sitemapindex>'.encode()
    )
    assert run(str(path))[0] == 0
    code, out = run(str(path), "--profile", "sitemaps-0.9-2008")
    assert code == 1 and "too-many-sitemaps" in out


def test_schema_flag(tmp_path: Path) -> None:
    path = tmp_path / "s.xml"
    path.write_bytes(
        doc("https://www.shop.org/").replace(b"</loc>", b"</loc><changefreq>Daily</changefreq>")
    )
    _, plain = run(str(path))
    _, with_schema = run(str(path), "--schema")
    assert "schema-error" not in plain and "schema-error" in with_schema


def test_a_directory_lists_fifos_devices_and_dangling_links_with_a_finding(tmp_path: Path) -> None:
    # each used to be left out without a word; a FIFO opened would block the check
    (tmp_path / "sitemap.xml").write_bytes(doc("https://www.shop.org/"))
    os.mkfifo(tmp_path / "sitemap-pipe.xml")
    (tmp_path / "sitemap-old.xml").symlink_to(tmp_path / "gone.xml")
    (tmp_path / "null.xml").symlink_to("/dev/null")
    code, out = run(str(tmp_path), "--format", "json")
    report = json.loads(out)
    found = {
        Path(f["source"]).name: [(i["code"], i["severity"]) for i in f["issues"]]
        for f in report["files"]
    }
    assert found["sitemap-pipe.xml"] == [("not-a-file", "warning")]
    assert found["null.xml"] == [("not-a-file", "warning")]
    assert found["sitemap-old.xml"] == [("dangling-link", "error")]
    assert found["sitemap.xml"] == []
    assert report["summary"]["files"] == 1  # the one sitemap checked
    assert code == 1  # a published name that leads nowhere is an error
    code, text = run(str(tmp_path))
    assert "a named pipe (FIFO)" in text and "not a file" in text and code == 1


def test_quiet_prints_errors_only_and_counts_are_singular_when_one(
    files: dict[str, Path],
) -> None:
    # warnings only: -q prints nothing; the exit status still says what was found
    code, out = run(str(files["warning"]), "-q")
    assert (code, out) == (0, "")
    code, out = run(str(files["warning"]), str(files["error"]), "-q")
    assert code == 1 and "url-not-escaped" in out
    assert "placeholder-host" not in out and "checked" not in out
    assert not [line for line in out.splitlines() if line.lstrip().startswith("warning")]
    # "1 file", "1 entry", "1 warning": never "1 files"
    code, out = run(str(files["warning"]))
    assert "(urlset, 1 URL): 0 errors, 1 warning" in out
    assert out.rstrip().endswith("checked 1 file, 1 entry: 0 errors, 1 warning")

"""``urlset check`` tells the whole truth, briefly: totals over every finding, repeats grouped
in the text output, the same idea of a file as ``read``, columns of values (issue 13)."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from urlset.checking.rules import lookup
from urlset.cli import main

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(body: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
    )


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def check_json(path: Path, *extra: str) -> dict[str, object]:
    code, out = run(str(path), "--format", "json", "--now", "2026-01-01", *extra)
    assert code in (0, 1), out
    report: dict[str, object] = json.loads(out)
    return report


# -- totals over every finding -------------------------------------------------------------


def test_totals_count_findings_past_the_listing_cap(tmp_path: Path) -> None:
    n = 2755
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i}</loc><lastmod>2031-01-01</lastmod></url>\n"
        for i in range(n)
    )
    path = tmp_path / "future.xml"
    path.write_bytes(urlset(body))
    report = check_json(path)
    severity = str(lookup("future-lastmod").severity) + "s"
    (file,) = report["files"]  # type: ignore[attr-defined]
    assert file[severity] == n
    assert report["summary"][severity] == n  # type: ignore[index]
    listed = [i for i in file["issues"] if i["code"] == "future-lastmod"]
    assert 0 < len(listed) < n  # the list is capped; the totals are not


def test_unknown_elements_past_the_cap_are_each_counted_once(tmp_path: Path) -> None:
    n = 1500
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i}</loc><bogus>x</bogus></url>\n" for i in range(n)
    )
    path = tmp_path / "bogus.xml"
    path.write_bytes(urlset(body))
    report = check_json(path)
    (file,) = report["files"]  # type: ignore[attr-defined]
    total = file["errors"] + file["warnings"] + file.get("infos", 0)
    assert total == n, {i["code"] for i in file["issues"]}


def test_a_reader_issue_a_rule_said_better_past_its_cap_is_not_counted_again(
    tmp_path: Path,
) -> None:
    # 600 lines with two nested entries each, then 500 lastmods outside any <url>: 1,700
    # misplaced elements, of which the rules list 1,000. The reader calls the same elements
    # nested-entry and unknown-element; neither may come back beside the rules' findings.
    nested = "".join(
        f"<url><loc>https://www.shop.org/{i}</loc><url><loc>https://www.shop.org/n{i}</loc>"
        "</url></url>\n"
        for i in range(600)
    )
    stray = "<lastmod>2020-01-01</lastmod>\n" * 500
    path = tmp_path / "misplaced.xml"
    path.write_bytes(urlset(nested + stray + "<url><loc>https://www.shop.org/</loc></url>\n"))
    report = check_json(path)
    (file,) = report["files"]  # type: ignore[attr-defined]
    codes = {i["code"] for i in file["issues"]}
    assert codes <= {"misplaced-element", "too-many-errors"}, codes
    assert file["errors"] + file["warnings"] == 1700


# -- text output groups repeats ------------------------------------------------------------


def test_text_output_gives_one_group_per_code_not_a_wall(tmp_path: Path) -> None:
    n = 3887
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i}</loc><lastmod>2031-01-01</lastmod></url>\n"
        for i in range(n)
    )
    path = tmp_path / "future.xml"
    path.write_bytes(urlset(body + "<url><loc>https://www.shop.org/a b</loc></url>\n"))
    code, out = run(str(path), "--now", "2026-01-01")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) < 12, out
    (group,) = [line for line in lines if "future-lastmod" in line and " x" in line]
    # the first entry is on line 3; the count is over every finding, the places the first few
    assert group.split()[:3] == ["warning", "future-lastmod", f"x{n:,}:"]
    places = group.split(":", 1)[1].split(", ")
    assert places[0].strip().startswith("3:") and places[-1] == "..."
    assert lines[0].endswith(f"1 errors, {n:,} warnings")
    assert lines[-1] == f"checked 1 files, {n + 1:,} entries: 1 errors, {n:,} warnings"
    single = [line for line in lines if "url-not-escaped" in line]
    assert len(single) == 1 and f"{n + 3}:" in single[0]
    # the full list stays in the JSON form
    report = check_json(path)
    listed = [i for i in report["files"][0]["issues"] if i["code"] == "future-lastmod"]  # type: ignore[index]
    assert len(listed) == 1000

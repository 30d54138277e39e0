"""A build keeps every valid page: a bad optional value costs only that value, and is reported.

An empty cell, None, NaN or NaT is an absent value, not a bad one. Every left-out or changed
line can be listed with ``--report FILE``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from urlset import InvalidValue, Url, read_file, write_sitemaps
from urlset.cli import main

BASE = "https://www.example.com/"
BAD = {1: "2024-13-01", 2: "often", 3: "1.5"}  # a bad lastmod, changefreq, priority
FIELD = {1: "lastmod", 2: "changefreq", 3: "priority"}


def load(out: Path) -> list[Url]:
    """The URLs of the one sitemap a build wrote into ``out`` (XML or text, gzipped)."""
    (path,) = out.glob("sitemap.*")
    return [entry for entry in read_file(path) if isinstance(entry, Url)]


def _csv(path: Path, rows: int) -> dict[int, int]:
    """A CSV of ``rows`` URLs where every 8th row (12.5%) has one bad optional value; returns
    line number -> the place of the bad value."""
    bad: dict[int, int] = {}
    lines = ["loc,lastmod,changefreq,priority"]
    for i in range(rows):
        row = [f"{BASE}p/{i}?a=1&b={i}", f"2024-02-{1 + i % 28:02d}", "daily", "0.5"]
        if i % 8 == 3:
            place = 1 + (i // 8) % 3
            row[place] = BAD[place]
            bad[len(lines) + 1] = place
        lines.append(",".join(row))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return bad


@pytest.mark.parametrize("output_format", ["xml", "text"])
def test_a_bad_optional_value_drops_only_that_value(tmp_path: Path, output_format: str) -> None:
    src = tmp_path / "urls.csv"
    bad = _csv(src, 1_200)
    out = tmp_path / "out"
    args = ["build", str(src), "--base-url", BASE, "--out", str(out), "--format", output_format]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "1,200 URLs" in result.output
    assert f"wrote {len(bad)} entries without a bad value" in result.output
    for line, place in list(bad.items())[:20]:
        assert f"{src}:{line}: {FIELD[place]} {BAD[place]!r}" in result.output
    entries = load(out)
    assert len(entries) == 1_200
    if output_format == "xml":
        # line n holds URL n - 2; its bad value is absent, the others are kept
        for line, place in bad.items():
            url = entries[line - 2]
            assert url.loc == f"{BASE}p/{line - 2}?a=1&b={line - 2}"
            assert (url.lastmod, url.changefreq, url.priority)[place - 1] is None
            assert sum(v is None for v in (url.lastmod, url.changefreq, url.priority)) == 1


def test_strict_still_fails_on_a_bad_optional_value(tmp_path: Path) -> None:
    src = tmp_path / "urls.csv"
    _csv(src, 50)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["build", str(src), "--base-url", BASE, "--out", str(out), "--strict"]
    )
    assert result.exit_code == 1
    assert f"{src}:5: lastmod '2024-13-01'" in result.output
    assert "nothing was published" in result.output
    assert not (out / "sitemap.xml.gz").exists()
    rows = [(BASE + "a", None, "often", None)]
    with pytest.raises(InvalidValue, match="changefreq 'often'"):
        write_sitemaps(rows, tmp_path / "api", BASE, strict=True)


def test_empty_none_nan_and_nat_are_absent_values(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            "loc": [f"{BASE}p/{i}" for i in range(1_920)],
            "lastmod": [None if i % 2 else "2024-03-04" for i in range(1_920)],
            "changefreq": [np.nan if i % 3 else "weekly" for i in range(1_920)],
            "priority": [np.nan if i % 5 else 0.8 for i in range(1_920)],
        }
    )
    report = write_sitemaps(frame.itertuples(index=False, name=None), tmp_path / "df", BASE)
    assert report.urls == 1_920 and not report.rejected and not report.kept_without
    entries = load(tmp_path / "df")
    assert [e.loc for e in entries] == list(frame["loc"])
    assert entries[1] == Url(f"{BASE}p/1")
    assert entries[0] == Url(f"{BASE}p/0", "2024-03-04", "weekly", 0.8)

    stamps = pd.DataFrame(
        {"loc": [BASE + "a", BASE + "b"], "lastmod": pd.to_datetime(["2024-05-06", None], utc=True)}
    )
    report = write_sitemaps(stamps.to_dict("records"), tmp_path / "nat", BASE)
    assert report.urls == 2 and not report.kept_without
    assert [e.lastmod for e in load(tmp_path / "nat")][1] is None

    rows = [
        (BASE + "x", "", " ", ""),
        (BASE + "y", np.datetime64("NaT"), None, float("nan")),
        {"loc": BASE + "z", "lastmod": "", "priority": float("nan")},
    ]
    report = write_sitemaps(rows, tmp_path / "rows", BASE)
    assert report.urls == 3 and not report.rejected and not report.kept_without
    assert load(tmp_path / "rows") == [Url(BASE + c) for c in "xyz"]


def test_python_entries_keep_their_page_and_report_the_value(tmp_path: Path) -> None:
    seen: list[object] = []
    rows = [
        (BASE + "a", "2024-13-01", None, None),
        {"loc": BASE + "b", "priority": 7},
        Url(BASE + "c"),
        ("not a url", None, None, None),
    ]
    report = write_sitemaps(rows, tmp_path / "o", BASE, on_problem=seen.append)
    assert report.urls == 3
    assert report.kept_without == {"invalid-lastmod": 1, "invalid-priority": 1}
    assert report.rejected == {"invalid-loc": 1}
    assert [(p.code, p.severity) for p in seen] == [  # type: ignore[attr-defined]
        ("invalid-lastmod", "warning"),
        ("invalid-priority", "warning"),
        ("invalid-loc", "error"),
    ]
    assert load(tmp_path / "o") == [Url(BASE + c) for c in "abc"]


def test_report_file_lists_every_problem_line(tmp_path: Path) -> None:
    src = tmp_path / "urls.csv"
    bad = _csv(src, 400)
    with src.open("a", encoding="utf-8") as f:
        f.writelines(f"not a url {i},,,\n" for i in range(30))
    report = tmp_path / "problems.jsonl"
    args = ["build", str(src), "--base-url", BASE, "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, [*args, "--report", str(report)])
    assert result.exit_code == 0, result.output
    assert "... and 10 more (--report FILE lists all)" in result.output  # 30 skipped, 20 shown
    problems = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
    warnings = [p for p in problems if p["severity"] == "warning"]
    errors = [p for p in problems if p["severity"] == "error"]
    assert {p["line"]: p["code"] for p in warnings} == {
        line: f"invalid-{FIELD[place]}" for line, place in bad.items()
    }
    assert [p["line"] for p in errors] == list(range(402, 432))
    assert {p["code"] for p in errors} == {"invalid-loc"}
    assert all(p["source"] == str(src) and p["message"] for p in problems)
    assert set(problems[0]) == {"source", "line", "code", "severity", "message"}


def test_report_file_that_cannot_be_written_fails_before_publishing(tmp_path: Path) -> None:
    src = tmp_path / "urls.txt"
    src.write_text(BASE + "a\n")
    args = ["build", str(src), "--base-url", BASE, "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, [*args, "--report", str(tmp_path / "no" / "r.jsonl")])
    assert result.exit_code == 2
    assert "--report" in result.output and "nothing was published" in result.output
    assert not (tmp_path / "o" / "sitemap.xml.gz").exists()


def test_bad_extension_values_keep_the_page(tmp_path: Path) -> None:
    src = tmp_path / "urls.jsonl"
    lines = [
        {"loc": BASE + "a", "images": [{"loc": "not a url"}]},
        {"loc": BASE + "b", "images": [{"loc": BASE + "i.png"}], "priority": "high"},
    ]
    src.write_text("".join(json.dumps(line) + "\n" for line in lines))
    csv_src = tmp_path / "urls.csv"
    csv_src.write_text(f"loc,image_loc\n{BASE}c,not a url\n")
    out = tmp_path / "o"
    result = CliRunner().invoke(
        main, ["build", str(src), str(csv_src), "--base-url", BASE, "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    # the image at fault is left out alone, with the reader's code (invalid-image)
    assert f"{src}:1: " in result.output and "the image is left out" in result.output
    assert "invalid-image: 2" in result.output
    assert f"{csv_src}:2: " in result.output
    entries = load(out)
    assert [e.loc for e in entries] == [BASE + "a", BASE + "b", BASE + "c"]
    assert entries[0].extensions == () and entries[2].extensions == ()
    assert len(entries[1].extensions) == 1 and entries[1].priority is None


@pytest.mark.parametrize(
    "base",
    [
        "http://localhost:4000/",
        "https://blog.test/",
        "http://10.0.0.7/",
        "https://deploy-preview-9--site.netlify.app/",
        "https://site-git-main-team.vercel.app/",
    ],
)
def test_a_build_for_a_host_that_is_not_production_says_so(tmp_path: Path, base: str) -> None:
    src = tmp_path / "urls.txt"
    src.write_text(base + "a\n")
    result = CliRunner().invoke(
        main, ["build", str(src), "--base-url", base, "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.output
    assert "warning: host " in result.output and "search engines will not crawl" in result.output
    src.write_text("https://www.shop.org/a\n")
    public = CliRunner().invoke(
        main,
        ["build", str(src), "--base-url", "https://www.shop.org/", "--out", str(tmp_path / "q")],
    )
    assert public.exit_code == 0 and "warning:" not in public.output


def test_build_robots_lists_every_entry_point_and_keeps_the_rest(tmp_path: Path) -> None:
    """`build --robots FILE`: the last step of a publish names every index (several past the
    files one index may list); a later, smaller build replaces those lines; other bytes stay."""
    base = "https://www.shop.org/"
    robots = tmp_path / "robots.txt"
    original = b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /cart\r\n\r\nSitemap: https://www.shop.org/news.xml\r\n"
    robots.write_bytes(original)
    src = tmp_path / "urls.txt"
    src.write_text("".join(f"{base}p/{i}\n" for i in range(7)))
    out = tmp_path / "o"
    args = ["build", str(src), "--base-url", base, "--out", str(out), "--robots", str(robots)]
    result = CliRunner().invoke(main, [*args, "--max-urls", "1", "--profile", "sitemaps-0.9-2008"])
    assert result.exit_code == 0, result.output
    assert f"{robots}: Sitemap lines added 1" in result.output
    text = robots.read_bytes()
    assert text.startswith(original) and text.endswith(
        b"Sitemap: https://www.shop.org/sitemap.xml.gz\r\n"
    )
    src.write_text(f"{base}p/0\n")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert robots.read_bytes() == original + b"Sitemap: https://www.shop.org/sitemap.xml.gz\r\n"
    assert "unchanged" in result.output


def test_build_robots_replaces_several_indexes_with_one(tmp_path: Path) -> None:
    from urlset import Limits

    base = "https://www.shop.org/"
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow:\n")
    tiny = Limits("tiny", max_urls=1, max_sitemaps_per_index=3)
    big = write_sitemaps([Url(f"{base}p/{i}") for i in range(7)], tmp_path / "o", base, limits=tiny)
    assert len(big.entry_points) == 3
    from urlset.announce import update_robots_file

    update_robots_file(robots, big.entry_points, replace=big.owns)
    assert robots.read_text().count("Sitemap: ") == 3
    small = write_sitemaps([Url(f"{base}p/0")], tmp_path / "o", base, limits=tiny)
    edit = update_robots_file(robots, small.entry_points, replace=small.owns)
    assert len(edit.removed) == 3
    assert robots.read_text() == "User-agent: *\nDisallow:\n" + f"Sitemap: {base}sitemap.xml.gz\n"

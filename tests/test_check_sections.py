"""Check grouped as the set is: a set written by section (its file names say so) is summed
per section in the text, JSON, SARIF and HTML reports; a set without sections is not."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from urlset import SITEMAPS_2008, write_sitemaps
from urlset.cli import main
from urlset.writing.options import sections_of_names

BASE = "https://www.shop.org/"
HASH = "0123456789abcdef"
ROWS = [
    *((f"{BASE}blog/{i}", "2024-05-01") for i in range(3)),
    *((f"{BASE}shop/{i}", "2023-05-01") for i in range(2)),
]


def _check(out: Path, *args: str) -> str:
    result = CliRunner().invoke(main, ["check", str(out), "--now", "2024-01-01", *args])
    assert result.exit_code in (0, 1), result.output
    return result.output


def test_check_sums_each_section_of_the_set(tmp_path: Path) -> None:
    write_sitemaps(ROWS, tmp_path, BASE, gzip=False, section="path:1")
    text = _check(tmp_path)
    # the blog's lastmods lie after --now: each a warning, in the blog section only
    assert "section blog: 1 file, 3 entries: 0 errors, 3 warnings" in text
    assert "section shop: 1 file, 2 entries: 0 errors, 0 warnings" in text
    data = json.loads(_check(tmp_path, "--format", "json"))
    assert data["sections"]["blog"] == {
        "files": 1,
        "entries": 3,
        "errors": 0,
        "warnings": 3,
        "infos": 0,
    }
    sarif = json.loads(_check(tmp_path, "--format", "sarif"))
    results = sarif["runs"][0]["results"]
    grouped = [r.get("properties", {}).get("section") for r in results]
    assert grouped.count("blog") == 3 and set(grouped) == {"blog", None}  # None: the index's
    html = tmp_path / "report.html"
    _check(tmp_path, "--format", "html", "--output", str(html))
    assert "Files, URLs and findings per section of the set" in html.read_text()


def test_a_set_without_sections_has_no_section_summary(tmp_path: Path) -> None:
    write_sitemaps(ROWS, tmp_path, BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_urls=2))
    assert "section " not in _check(tmp_path)
    assert json.loads(_check(tmp_path, "--format", "json"))["sections"] is None


def test_section_names_are_read_with_the_sets_prefix() -> None:
    names = [f"my-site-blog-2024-1-{HASH}.xml", f"my-site-1-{HASH}.xml", "my-site.xml"]
    assert sections_of_names(names, ["my-site.xml"]) == {names[0]: "blog-2024"}
    plain = [f"sitemap-news-12-{HASH}.xml.gz", f"sitemap-3-{HASH}.xml.gz", "sitemap.xml.gz"]
    assert sections_of_names(plain, []) == {plain[0]: "news"}

"""Diff grouped as the sets are: two sets written by section give their changes per
section (text, the summary JSON, the HTML report); sets without sections give none."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from urlset import write_sitemaps
from urlset.cli import main
from urlset.store.diff import compare
from urlset.store.report import summary_json

BASE = "https://www.shop.org/"


def _sets(tmp_path: Path, **options: object) -> tuple[Path, Path]:
    old, new = tmp_path / "old", tmp_path / "new"
    write_sitemaps(
        [(f"{BASE}blog/{i}",) for i in (1, 2)] + [(f"{BASE}shop/1",)], old, BASE, **options
    )
    rows = [
        (f"{BASE}blog/1",),
        (f"{BASE}blog/3",),
        (f"{BASE}shop/1", "2025-01-01"),
        (f"{BASE}shop/2",),
    ]
    write_sitemaps(rows, new, BASE, **options)
    return old, new


def test_the_changes_of_each_section(tmp_path: Path) -> None:
    old, new = _sets(tmp_path, section="path:1")
    result = compare(str(old), str(new))
    assert result.sections() == {
        "blog": {"added": 1, "removed": 1, "changed": 0, "moved": 0},
        "shop": {"added": 1, "removed": 0, "changed": 1, "moved": 0},
    }
    assert summary_json(result)["sections"]["shop"]["changed"] == 1
    said = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert said.exit_code == 1
    assert "section blog: added 1, removed 1, changed 0" in said.output
    page = tmp_path / "diff.html"
    CliRunner().invoke(main, ["diff", str(old), str(new), "-f", "html", "-o", str(page)])
    assert "Changes per section of the set, by kind" in page.read_text()


def test_sets_without_sections_have_none(tmp_path: Path) -> None:
    old, new = _sets(tmp_path)
    assert compare(str(old), str(new)).sections() == {}
    assert "section " not in CliRunner().invoke(main, ["diff", str(old), str(new)]).output

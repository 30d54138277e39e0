"""An index given alone is compared with the children beside it while its file is still
open: the line of each ref (``ref_lines``, a second pass over the index) is made only then,
and the findings about its children carry the lines the pass made with the check did."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from urlset.checking import files
from urlset.checking.document import CheckOptions, check_document, check_lines_later

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def _tree(top: Path) -> Path:
    """An index (pretty, comments: its refs' lines are not its entries') and some of its
    children beside it: stale, newer, nested, missing."""
    entries = []
    for i in range(12):
        lastmod = "" if i % 4 == 1 else f"\n    <lastmod>2024-05-0{1 + i % 5}</lastmod>"
        comment = "  <!-- a\n  comment -->\n" if i % 5 == 0 else ""
        entries.append(
            f"{comment}  <sitemap>\n    <loc>https://www.acme.com/c-{i}.xml</loc>{lastmod}\n"
            "  </sitemap>\n"
        )
        if i % 3 == 2:
            continue  # missing
        if i == 4:
            body = f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://www.acme.com/x.xml</loc>'
            (top / f"c-{i}.xml").write_text(body + "</sitemap></sitemapindex>\n")
            continue
        day = "2024-05-09" if i % 2 else "2024-04-01"
        (top / f"c-{i}.xml").write_text(
            f'<urlset xmlns="{NS}"><url><loc>https://www.acme.com/p/{i}</loc>'
            f"<lastmod>{day}</lastmod></url></urlset>\n"
        )
    index = top / "index.xml"
    index.write_text(f'<?xml version="1.0"?>\n<sitemapindex xmlns="{NS}">\n' + "".join(entries))
    index.write_text(index.read_text() + "</sitemapindex>\n")
    return index


def _eager(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ref lines made with the check, as before they were left to the comparison."""

    def made_now(*args: Any) -> Any:
        result, lines = check_lines_later(*args)
        if lines is not None:
            result.ref_lines = lines()
        return result, None

    monkeypatch.setattr(files, "check_lines_later", made_now)


@pytest.mark.parametrize("base_url", [None, "https://www.acme.com/"])
def test_children_findings_carry_the_lines_made_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, base_url: str | None
) -> None:
    index = _tree(tmp_path)
    options = CheckOptions(now=NOW, base_url=base_url)
    later = files.check_paths([str(index)], options)
    with monkeypatch.context() as m:
        _eager(m)
        now = files.check_paths([str(index)], options)
    assert [f.issues for f in later.files] == [f.issues for f in now.files]
    codes = {i.code for i in later.files[0].issues}
    assert {"missing-child", "stale-index-lastmod", "nested-index"} <= codes
    lines = {i.line for i in later.files[0].issues if i.code == "missing-child"}
    assert 0 not in lines and len(lines) == 4
    alone = check_document(index.read_bytes(), options, str(index))
    assert later.files[0].ref_lines == alone.ref_lines  # made, as check_document makes them


def test_an_index_alone_without_children_makes_no_lines(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _tree(tmp_path)
    for child in tmp_path.glob("c-*.xml"):
        child.unlink()
    report = files.check_paths([str(index)], CheckOptions(now=NOW))
    assert report.files[0].refs and report.files[0].ref_lines == []  # not compared: not made
    assert (
        report.files[0].issues
        == check_document(index.read_bytes(), CheckOptions(now=NOW), str(index)).issues
    )

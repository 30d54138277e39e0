"""The text report's line per code: its count and the places it was found, if any."""

from __future__ import annotations

import urlset.extensions  # noqa: F401  (adds the extensions' codes to the table, as a check does)
from urlset.checking import rules
from urlset.checking.report import CheckReport, FileResult
from urlset.checking.text import report_lines
from urlset.model import Issue


def _lines(issues: list[Issue]) -> list[str]:
    result = FileResult("site/sitemap.xml", issues=issues, format="urlset", entries=9)
    return list(report_lines(CheckReport(files=[result])))


def test_findings_without_a_place_show_their_count_alone() -> None:
    """Findings of the set (a page's variant never listed) have no line: 'x9:' and the
    first message, not 'x9: , ...'."""
    issues = [
        rules.make_issue("hreflang-unverified", f"variant {i} is not in the set") for i in range(9)
    ]
    group = [line for line in _lines(issues) if "hreflang-unverified" in line]
    assert group and group[0].rstrip().endswith("hreflang-unverified x9:")


def test_findings_with_places_show_five_and_say_there_are_more() -> None:
    issues = [rules.make_issue("invalid-lastmod", f"bad date {i}", line=10 + i) for i in range(9)]
    group = next(line for line in _lines(issues) if "invalid-lastmod" in line)
    assert "x9:" in group and group.rstrip().endswith(", ...")
    assert group.count(",") == 5

"""An index checked against its children (files on disk or downloads alike).

``compare_with_children`` takes an index's ``FileResult`` and its children's results and
adds to the index the findings only the pair can show: a nested index, a lastmod older than
the child's newest, a child that is not there.
"""

from __future__ import annotations

from ..model import Issue
from . import rules
from .report import FileResult, by_position


def compare_with_children(
    index: FileResult, children: list[FileResult | None], missing: list[str]
) -> None:
    """Check an index against its children's results, one per ``index.refs`` entry: a child
    that is an index itself, a lastmod older than the child's newest, a child that is not
    there (``missing[i]`` names where it was looked for; empty when it was not looked for)."""
    added: list[Issue] = []
    lines = index.ref_lines or [0] * len(index.refs)
    # an entry without lastmod whose sitemap has no lastmod either loses nothing
    excused = 0
    for ref, line, child, where in zip(index.refs, lines, children, missing, strict=False):
        if child is None:
            if where:
                message = rules.missing_child(ref.loc, where)
                if message is not None:
                    added.append(rules.make_issue("missing-child", message, line, 0, index.source))
            continue
        if ref.lastmod is None and child.newest_lastmod is None and child.format != "sitemapindex":
            excused += 1
        message = rules.nested_index(child.format)
        if message is not None:
            added.append(rules.make_issue("nested-index", message, line, 0, index.source))
        if ref.lastmod is not None and child.newest_lastmod is not None:
            message = rules.stale_index_lastmod(ref.lastmod, child.newest_lastmod)
            if message is not None:
                added.append(
                    rules.make_issue("stale-index-lastmod", message, line, 0, index.source)
                )
    if excused:
        kept = []
        for issue in index.issues:
            if issue.code == "missing-index-lastmod":
                without = sum(1 for ref in index.refs if ref.lastmod is None)
                message = rules.missing_index_lastmod(without, len(index.refs), excused)
                if message is None:
                    continue
                issue = issue._replace(message=message)
            kept.append(issue)
        index.issues = kept
    if added:
        index.issues = sorted(index.issues + added, key=by_position)

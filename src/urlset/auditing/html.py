"""``urlset audit --format html``: the audit as one self-contained page, made with the
report writers' parts (``reports/``): the summary, the status mix, the findings by code
(Search Console's name beside each), the findings by section of the site, and a chart of
response times. Pure: a report in, HTML text out; matplotlib (the ``report`` extra) draws.
"""

from __future__ import annotations

from datetime import datetime

from ..checking.rules import lookup
from ..reports import plots
from ..reports.page import (
    Column,
    Html,
    Tile,
    document,
    figure,
    join,
    made_by,
    note,
    part,
    table,
    tiles,
)
from ..reports.parts import count_codes, issues_part
from .driver import AuditReport
from .output import summary

# response-time buckets: (upper bound in seconds, label)
TIME_BUCKETS = (
    (0.05, "under 50 ms"),
    (0.2, "50-200 ms"),
    (0.5, "200-500 ms"),
    (1.0, "0.5-1 s"),
    (3.0, "1-3 s"),
    (float("inf"), "3 s or more"),
)
SECTIONS_SHOWN = 100
_STATUS_COLOURS = {"2xx": plots.GREEN, "3xx": plots.BLUE, "4xx": plots.AMBER}


def audit_html(report: AuditReport, made: datetime | None = None) -> str:
    """The page (no script, nothing fetched when viewed)."""
    parts = [
        part("summary", "Summary", "Summary", _summary(report)),
        part("status", "Status", "Answers by status", _status(report)),
        part("findings", "Findings", "Findings by code", _findings(report)),
        part("sections", "Sections", "Findings by section of the site", _sections(report)),
        part("times", "Times", "Response times", _times(report)),
    ]
    if report.changes is not None:
        title = f"Changes since audit {report.changes.since_audit}"
        parts.insert(3, part("changes", "Changes", title, _changes(report)))
    return document(
        "Sitemap audit",
        report.target,
        parts,
        made_by(made, "Each URL the sitemaps list, requested as a search engine would."),
    )


def _describe(code: str) -> str:
    row = lookup(code)
    return f"{row.title} (Search Console: {row.gsc})" if row.gsc else row.title


def _summary(report: AuditReport) -> Html:
    data = summary(report)
    errors = sum(v["count"] for v in data["findings"].values() if v["severity"] == "error")
    warnings = sum(v["count"] for v in data["findings"].values() if v["severity"] == "warning")
    items = [
        Tile("URLs listed", report.listed),
        Tile("sitemaps", len(report.sitemaps)),
        Tile("audited", report.audited),
        Tile("errors", errors, "error" if errors else "ok"),
        Tile("warnings", warnings, "warning" if warnings else "ok"),
        Tile("median time", f"{data['seconds']['median'] * 1000:.0f} ms"),
    ]
    said = []
    if report.sampled:
        said.append(
            f"A random sample of {report.audited:,} of {report.listed:,} URLs: the counts are "
            "the sample's; the text and JSON reports estimate them over the whole list."
        )
    if report.not_requested:
        said.append(f"{report.not_requested:,} URLs were not requested: the deadline passed.")
    said.extend(report.notes)
    return join([tiles(items), *(note(line) for line in said)])


def _status(report: AuditReport) -> Html:
    mix = report.status_mix.most_common()
    if not mix:
        return note("No URL was audited.")
    bars = [plots.Bar(name, n, _STATUS_COLOURS.get(name, plots.RED)) for name, n in mix]
    svg = plots.bar_chart("status", bars, "Answers by status", "URLs")
    data = table("Answers by status", [Column("status"), Column("URLs", numeric=True)], mix)
    caption = (
        "How each audited URL answered, after its redirects: 3xx is a redirect that ended "
        "in one; disallowed URLs were not requested (robots.txt)."
    )
    return figure(svg, caption, data)


def _findings(report: AuditReport) -> Html:
    found = [
        (issue.source or report.target, issue) for v in report.examples.values() for issue in v
    ]
    unlisted = [(code, n - len(report.examples.get(code, ()))) for code, n in report.counts.items()]
    codes = count_codes(found, [(code, n) for code, n in unlisted if n > 0])
    return issues_part(codes, "findings", _describe)


def _sections(report: AuditReport) -> Html:
    rows = sorted(report.sections.items(), key=lambda kv: (-kv[1][1], -kv[1][0]))
    if not rows:
        return note("No URL was audited.")
    shown = [
        (f"{host}{path}", audited, with_findings, f"{with_findings / audited:.0%}")
        for (host, path), (audited, with_findings) in rows[:SECTIONS_SHOWN]
    ]
    columns = [
        Column("section", url=True),
        Column("URLs audited", numeric=True),
        Column("with findings", numeric=True),
        Column("share"),
    ]
    more = len(rows) - len(shown)
    tail = note(f"{more:,} more sections not shown.") if more > 0 else Html("")
    return join([table("URLs with findings, by section", columns, shown), tail])


def _changes(report: AuditReport) -> Html:
    changes = report.changes
    assert changes is not None
    rows = [
        (code, row["more"], row["fewer"], ", ".join(row["new"]) or "-")
        for code, row in changes.to_dict()["codes"].items()
    ]
    if not rows:
        return note(f"No finding changed since audit {changes.since_audit} ({changes.since} UTC).")
    columns = [
        Column("code"),
        Column("URLs more", numeric=True),
        Column("URLs fewer", numeric=True),
        Column("first new", url=True),
    ]
    caption = (
        f"Findings gained and lost per code since audit {changes.since_audit} ({changes.since} UTC)"
    )
    return table(caption, columns, rows)


def _times(report: AuditReport) -> Html:
    counts = [0] * len(TIME_BUCKETS)
    for seconds in report.seconds:
        for n, (bound, _) in enumerate(TIME_BUCKETS):
            if seconds < bound:
                counts[n] += 1
                break
    if not any(counts):
        return note("No URL answered.")
    rows = [(label, n) for (_, label), n in zip(TIME_BUCKETS, counts, strict=True)]
    svg = plots.bar_chart("times", [plots.Bar(lbl, n) for lbl, n in rows], "Response times", "URLs")
    data = table("Response times", [Column("time"), Column("URLs", numeric=True)], rows)
    secs = summary(report)["seconds"]
    caption = (
        f"Time to each answer, redirects and retries included: median "
        f"{secs['median'] * 1000:.0f} ms, 95% under {secs['p95'] * 1000:.0f} ms."
    )
    return figure(svg, caption, data)

"""An ``AuditReport`` as text lines, a JSON summary and SARIF (pure: values in, text out).

Counts of a sampled audit are extrapolated to the whole list with a 95% Wilson interval, so
that a reader sees how sure the figure is. SARIF is the checker's (``CheckReport.to_sarif``:
one rule per code, its Search Console name), each result placed at the page's URL.
"""

from __future__ import annotations

import math
from typing import Any

from ..checking.report import SET_FORMAT, CheckReport, FileResult
from ..checking.rules import lookup
from ..model import Severity
from .driver import AuditReport

SHOWN = 3  # examples per code in the text report
Z95 = 1.96


def wilson(found: int, audited: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``found / audited``."""
    if audited == 0:
        return 0.0, 1.0
    p = found / audited
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * audited)) / (1 + z2 / audited)
    spread = Z95 * math.sqrt(p * (1 - p) / audited + z2 / (4 * audited * audited))
    spread /= 1 + z2 / audited
    return max(0.0, centre - spread), min(1.0, centre + spread)


def estimate(report: AuditReport, count: int) -> dict[str, int]:
    """A sampled count as an estimate over every listed URL, with its 95% interval."""
    low, high = wilson(count, report.audited)
    scale = report.listed
    share = count / report.audited if report.audited else 0.0
    return {
        "estimate": round(share * scale),
        "low": math.floor(low * scale),
        "high": math.ceil(high * scale),
    }


def percentile(values: list[float], share: float) -> float:
    if not values:
        return 0.0
    return values[min(len(values) - 1, int(share * len(values)))]


def _worst_first(code: str, count: int) -> tuple[int, int, str]:
    """Errors first, then warnings, then the rest; the most frequent first within each."""
    rank = {Severity.ERROR: 0, Severity.WARNING: 1}.get(lookup(code).severity, 2)
    return rank, -count, code


def summary(report: AuditReport) -> dict[str, Any]:
    """The report as plain data (the JSON summary and the text's source)."""
    times = sorted(report.seconds)
    codes: dict[str, Any] = {}
    for code, count in sorted(report.counts.items(), key=lambda kv: _worst_first(*kv)):
        row = lookup(code)
        entry: dict[str, Any] = {
            "count": count,
            "severity": str(row.severity),
            "title": row.title,
            "gsc": row.gsc or None,
            "hint": row.hint,
        }
        if report.sampled:
            entry["whole_list"] = estimate(report, count)
        codes[code] = entry
    return {
        "target": report.target,
        "listed": report.listed,
        "sitemaps": len(report.sitemaps),
        "audited": report.audited,
        "sampled": report.sampled,
        "not_requested": report.not_requested,
        "status": dict(report.status_mix.most_common()),
        "seconds": {
            "median": percentile(times, 0.5),
            "p95": percentile(times, 0.95),
            "max": times[-1] if times else 0.0,
        },
        "findings": codes,
        "requests": report.methods,
        "changes": report.changes.to_dict() if report.changes is not None else None,
        "notes": report.notes,
    }


def text_lines(report: AuditReport) -> list[str]:
    """The report for a person: what was audited, the status mix, each code with its count,
    Search Console's name for it, its first examples and the hint."""
    data = summary(report)
    sample = (
        f" (a random sample of {report.audited:,}; counts over the whole list are estimates "
        "with their 95% interval)"
        if report.sampled
        else ""
    )
    out = [
        f"{report.target}: {report.listed:,} URLs listed in {len(report.sitemaps):,} "
        f"sitemaps; {report.audited:,} audited{sample}"
    ]
    if report.not_requested:
        out.append(f"  {report.not_requested:,} not requested: the deadline passed first")
    mix = ", ".join(f"{name} {count:,}" for name, count in data["status"].items())
    out.append(f"  status: {mix}")
    secs = data["seconds"]
    out.append(
        f"  response time: median {secs['median'] * 1000:.0f} ms, "
        f"95% under {secs['p95'] * 1000:.0f} ms, slowest {secs['max'] * 1000:.0f} ms"
    )
    if any(report.methods.values()):
        asked = ", ".join(f"{n:,} {method}" for method, n in report.methods.items() if n)
        out.append(f"  pages requested: {asked} (HEAD where the body was not needed, --head)")
    out.extend(f"  note: {note}" for note in report.notes)
    for code, entry in data["findings"].items():
        gsc = f" [Search Console: {entry['gsc']}]" if entry["gsc"] else ""
        whole = entry.get("whole_list")
        extra = (
            f" (whole list: about {whole['estimate']:,}, {whole['low']:,} to {whole['high']:,})"
            if whole
            else ""
        )
        out.append(f"{entry['severity']} {code} x{entry['count']:,}{extra}: {entry['title']}{gsc}")
        for issue in report.examples.get(code, [])[:SHOWN]:
            where = f"{issue.source}: " if issue.source else ""
            out.append(f"    {where}{issue.message}")
        if entry["count"] > SHOWN:
            out.append("    ...")
        out.append(f"    hint: {entry['hint']}")
    if not data["findings"]:
        out.append("no findings: every URL audited answered 200 and may be indexed")
    return out


def check_report(report: AuditReport) -> CheckReport:
    """The findings as the checker's report: one entry per page with findings, one for the
    findings over the whole list (and the count of those past ``EXAMPLES`` per code)."""
    files: dict[str, FileResult] = {}
    whole = FileResult(report.target, format=SET_FORMAT)
    for code, issues in report.examples.items():
        for issue in issues:
            if issue.source:
                file = files.setdefault(issue.source, FileResult(issue.source, format="page"))
                file.issues.append(issue)
            else:
                whole.issues.append(issue)
        unlisted = report.counts[code] - len(issues)
        if unlisted > 0:
            whole.unlisted[code] = unlisted
    return CheckReport(files=[*files.values(), whole])


def sarif(report: AuditReport, version: str = "") -> dict[str, Any]:
    """SARIF 2.1.0: each finding placed at the page it is about."""
    return check_report(report).to_sarif(version=version)

"""``urlset check --format html``: a ``CheckReport`` as one self-contained page.

In: the report, the limits it was checked under, and the URL counts of the documents
(``UrlStats``, gathered by ``gather.UrlCounter`` as the check read them). Out: HTML text. Sections: the summary
(files, URLs, the images, videos, news and hreflang links discovered, errors and warnings, a
verdict), issues by code, the sitemaps against the
limits, the set's own sections (when it was written by section), lastmod over time, URLs per
path section, and the files (a row each, with what each holds; capped).
"""

from __future__ import annotations

from datetime import datetime

from ..checking.report import SET_FORMAT, CheckReport, FileResult
from ..checking.rules import lookup
from ..limits import CURRENT, Limits
from . import plots
from .page import (
    Column,
    Html,
    Tile,
    count,
    document,
    figure,
    join,
    made_by,
    note,
    part,
    table,
    tiles,
)
from .parts import INDEX, count_codes, issues_part, url_parts
from .stats import UrlStats

FILES_SHOWN = 200  # rows of the files table; the rest are summed in one row


def check_html(
    report: CheckReport,
    stats: UrlStats,
    *,
    limits: Limits = CURRENT,
    made: datetime | None = None,
    left_out: int = 0,
) -> str:
    """The report as an HTML page (no script, nothing fetched when viewed). ``left_out``:
    documents whose URLs ``stats`` does not count (checked over HTTP)."""
    files = [f for f in report.files if f.format != SET_FORMAT]
    codes = count_codes(
        ((f.source, i) for f in report.files for i in f.issues),
        [pair for f in report.files for pair in f.unlisted.items()],
    )
    summary = [_summary(report, stats)]
    if left_out:
        summary.append(
            note(
                "The charts of lastmod and sections count the URLs of local files only:"
                f" {count(left_out, 'document')} checked over HTTP not downloaded again."
            )
        )
    parts = [
        part("summary", "Summary", "Summary", *summary),
        part("issues", "Issues", "Issues by code", issues_part(codes, "codes", _title)),
    ]
    sitemaps = [f for f in files if f.format not in (INDEX, None)]
    if sitemaps:
        parts.append(
            part("limits", "Sizes", "Sitemaps against the limits", _limits(sitemaps, limits))
        )
    by_section = report.sections()
    if by_section:  # the set's own sections (its file names), as Search Console counts them
        parts.append(
            part("set-sections", "Set sections", "The set's sections", _set_sections(by_section))
        )
    parts.extend(url_parts(stats))
    kinds = [kind for kind, n in report.discovered().items() if n]
    parts.append(part("files", "Files", "Files", _files(files, kinds)))
    names = ", ".join(f.source for f in files[:3]) + (
        f" and {len(files) - 3} more" if len(files) > 3 else ""
    )
    return document(
        "Sitemap check",
        names or "no files",
        parts,
        made_by(made, "The checks follow sitemaps.org 0.9 and what search engines accept."),
    )


def _title(code: str) -> str:
    try:
        return lookup(code).title
    except KeyError:
        return ""


def _summary(report: CheckReport, stats: UrlStats) -> Html:
    s = report.summary()
    items = [
        Tile("files", s["files"]),
        Tile("URLs and sitemaps listed", s["entries"]),
        Tile("errors", s["errors"], "error" if s["errors"] else "ok"),
        Tile("warnings", s["warnings"], "warning" if s["warnings"] else "ok"),
    ]
    for kind, n in report.discovered().items():
        if n:
            items.append(Tile(_KIND_COLUMNS[kind], n))
    if stats.urls:
        items.append(Tile("sections", stats.sections.count))
        items.append(Tile("hosts", stats.hosts))
    if s["errors"]:
        verdict = (
            '<p class="verdict error">Errors found: search engines may reject these files or '
            "the URLs named. Fix the errors first; the table below says where each one is.</p>"
        )
    elif s["warnings"]:
        verdict = (
            '<p class="verdict warning">No errors. Warnings point at what search engines '
            "ignore or treat with doubt.</p>"
        )
    else:
        verdict = '<p class="verdict ok">No errors and no warnings.</p>'
    return join([tiles(items), Html(verdict)])


def _limits(sitemaps: list[FileResult], limits: Limits) -> Html:
    points = [plots.Point(f.source, f.entries, f.size, f.errors > 0) for f in sitemaps]
    svg = plots.limits_chart(
        "limits", points, limits.max_urls, limits.max_bytes, "Sitemaps against the limits"
    )
    fullest = max(
        sitemaps, key=lambda f: max(f.entries / limits.max_urls, f.size / limits.max_bytes)
    )
    share = max(fullest.entries / limits.max_urls, fullest.size / limits.max_bytes)
    caption = (
        f"Each of {count(len(sitemaps), 'sitemap')} by URLs and uncompressed size; dashed lines are the"
        f" limits of the {limits.name} profile ({limits.max_urls:,} URLs,"
        f" {limits.max_bytes / 1048576:,.0f} MiB). The fullest, {fullest.source}, is at"
        f" {share:.0%}."
    )
    return figure(svg, caption)


# the files table's column for each kind of typed extension a sitemap's URLs hold
_KIND_COLUMNS = {
    "images": "images",
    "videos": "videos",
    "news": "news",
    "alternates": "hreflang links",
}


def _files(files: list[FileResult], kinds: list[str]) -> Html:
    """A row a file; ``kinds``: the typed extensions to count in columns of their own (those
    the set holds), as Search Console's sitemaps report shows what it discovered."""
    if not files:
        return note("No files were checked.")
    ordered = sorted(files, key=lambda f: (-f.errors, -f.warnings, f.source))
    shown = ordered[:FILES_SHOWN]
    rows: list[tuple[object, ...]] = [
        (
            f.source,
            f.format or "unreadable",
            f.entries,
            *(f.discovered.get(kind, "") for kind in kinds),
            f.size,
            f.errors,
            f.warnings,
        )
        for f in shown
    ]
    rest = ordered[FILES_SHOWN:]
    if rest:
        rows.append(
            (
                f"{count(len(rest), 'more file')}",
                "",
                sum(f.entries for f in rest),
                *(sum(f.discovered.get(kind, 0) for f in rest) for kind in kinds),
                sum(f.size for f in rest),
                sum(f.errors for f in rest),
                sum(f.warnings for f in rest),
            )
        )
    columns = [
        Column("file", url=True),
        Column("format"),
        Column("entries", numeric=True),
        *(Column(_KIND_COLUMNS[kind], numeric=True) for kind in kinds),
        Column("bytes", numeric=True),
        Column("errors", numeric=True),
        Column("warnings", numeric=True),
    ]
    caption = f"{count(len(files), 'file')}, those with errors first" + (
        f" (the first {FILES_SHOWN} shown)" if rest else ""
    )
    return table(caption, columns, rows)


__all__ = ["check_html"]


def _set_sections(by_section: dict[str, dict[str, int]]) -> Html:
    """A row per section the set was written in: its files, URLs and findings."""
    kinds = ("files", "entries", "errors", "warnings")
    columns = [Column("section"), *(Column(kind, numeric=True) for kind in kinds)]
    rows = [(name, *(counts[kind] for kind in kinds)) for name, counts in by_section.items()]
    return table("Files, URLs and findings per section of the set", columns, rows)

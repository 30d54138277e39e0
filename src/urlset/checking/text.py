"""A check report as text for people: per file, one line per code, repeats grouped.

In: a ``CheckReport``. Out: lines. Each file gets a head line (format, entries, totals over
every finding), then one group per code, errors first: the code, how many times it was
found (listed or not) and where the first few are, the first one's message and the code's
hint. The full list is in the JSON and SARIF forms; a set with thousands of the same
finding reads in a few lines.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..codes import plural
from ..model import Issue
from . import rules
from .report import NOT_A_FILE, SET_FORMAT, SEVERITY_RANK, SUMMARY_CODE, CheckReport, FileResult

# how many places a group shows before "..."
PLACES_SHOWN = 5
_INDENT = " " * 11


def _where(issue: Issue) -> str:
    if issue.line and issue.column:
        return f"{issue.line}:{issue.column}"
    return str(issue.line) if issue.line else ""


def _head(f: FileResult) -> str:
    if f.format in (SET_FORMAT, NOT_A_FILE):
        head = f.source if f.format == SET_FORMAT else f"{f.source} ({f.format})"
    else:
        noun = "sitemap" if f.format == "sitemapindex" else "URL"
        found = discovered_text(f.discovered)
        head = f"{f.source} ({f.format or 'unreadable'}, {plural(f.entries, noun)}{found})"
    if not f.issues:
        return f"{head}: ok"
    return f"{head}: {plural(f.errors, 'error')}, {plural(f.warnings, 'warning')}"


# how each kind of typed extension is counted in words
_KIND_NOUNS = {
    "images": ("image", "images"),
    "videos": ("video", "videos"),
    "news": ("news entry", "news entries"),
    "alternates": ("hreflang link", "hreflang links"),
}


def discovered_text(kinds: dict[str, int], lead: str = "; ") -> str:
    """``; 12 images, 40 news entries``: the kinds a document's URLs hold (none: empty)."""
    said = [plural(n, *_KIND_NOUNS[kind]) for kind, n in kinds.items() if n]
    return lead + ", ".join(said) if said else ""


def _groups(f: FileResult) -> Iterator[str]:
    listed: dict[str, list[Issue]] = {}
    for issue in f.issues:
        if issue.code != SUMMARY_CODE:
            listed.setdefault(issue.code, []).append(issue)
    counts = f.code_counts()
    for code in counts:  # counted past a cap, none of them listed: the count alone
        if code not in listed:
            listed[code] = [rules.make_issue(code, "", source=f.source)]

    def order(code: str) -> tuple[int, int, int]:
        first = listed[code][0]
        return (-SEVERITY_RANK[first.severity], first.line, first.column)

    for code in sorted(listed, key=order):
        members = listed[code]
        first = members[0]
        row = rules.row_of(first)
        n = max(counts.get(code, len(members)), len(members))
        places = [w for w in (_where(i) for i in members[: PLACES_SHOWN + 1]) if w]
        shown = ", ".join(places[:PLACES_SHOWN])
        if shown and n > PLACES_SHOWN:
            shown += ", ..."
        tail = f'  [Search Console: "{row.gsc}"]' if row.gsc else ""
        severity = first.severity.value
        if n == 1:
            where = f" {shown}:" if shown else ""
            yield f"  {severity:<7}  {code}:{where} {first.message}{tail}"
        else:
            yield f"  {severity:<7}  {code} x{n:,}:" + (f" {shown}" if shown else "")
            if first.message:
                yield f"{_INDENT}first: {first.message}{tail}"
        if first.hint:
            yield f"{_INDENT}hint: {first.hint}"


def report_lines(report: CheckReport, *, errors_only: bool = False) -> Iterator[str]:
    """The text form of ``report``, one line at a time (without line ends); ``errors_only``
    (``-q``): the files with errors and their error groups, nothing else."""
    for f in report.files:
        if errors_only and not f.errors:
            continue
        yield _head(f)
        if f.issues:
            groups = _groups(f)
            yield from (_errors(groups) if errors_only else groups)
    if errors_only:
        return
    yield from _skipped(report.skipped)
    for name, counts in report.sections().items():
        yield (
            f"section {name}: {plural(counts['files'], 'file')}, "
            f"{plural(counts['entries'], 'entry', 'entries')}: "
            f"{plural(counts['errors'], 'error')}, {plural(counts['warnings'], 'warning')}"
        )
    s = report.summary()
    found = discovered_text(report.discovered(), " holding ")
    yield (
        f"checked {plural(s['files'], 'file')}, {plural(s['entries'], 'entry', 'entries')}"
        f"{found}: {plural(s['errors'], 'error')}, {plural(s['warnings'], 'warning')}"
    )


def _errors(groups: Iterator[str]) -> Iterator[str]:
    """The error groups of a file's lines (a group: its head line, then indented lines)."""
    keep = False
    for line in groups:
        if not line.startswith(_INDENT):
            keep = line.lstrip().startswith("error")
        if keep:
            yield line


def _skipped(skipped: list[tuple[str, str]]) -> Iterator[str]:
    """The files of a directory left out, grouped by why, the first few named."""
    if not skipped:
        return
    yield f"left out {plural(len(skipped), 'file')} that {'is no sitemap' if len(skipped) == 1 else 'are not sitemaps'}:"
    why: dict[str, list[str]] = {}
    for path, reason in skipped:
        why.setdefault(reason, []).append(path)
    for reason, paths in why.items():
        more = ", ..." if len(paths) > PLACES_SHOWN else ""
        count = f" x{len(paths):,}" if len(paths) > 1 else ""
        yield f"  {reason}{count}: {', '.join(paths[:PLACES_SHOWN])}{more}"

"""The sections the reports share: issues by code (chart and table, each code once with its
count, hint and first places), lastmod over time and URLs per section (from ``UrlStats``).

Tables are aggregates: a row per code, per section, per month or year; examples are capped.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date

from ..model import Issue, Severity
from . import plots
from .page import Column, Html, count, figure, join, link, note, part, severity, table, text
from .stats import OTHER, ROOT, Section, UrlStats

FIRST_PLACES = 3  # places listed per code
CODES_CHARTED = 25
SECTIONS_SHOWN = 40
_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}
# the reader and the checker list at most so many issues of a code per document, then one
# of this code saying how many more there were
CAPPED = "too-many-errors"
INDEX = "sitemapindex"  # the format of a sitemap index, which the size charts leave out
_UNLISTED = re.compile(r"(\d+) more (\S+) issues not listed")


@dataclass
class CodeCount:
    """Every issue of one code: how many, the most severe, where the first ones are."""

    code: str
    severity: Severity
    count: int = 0
    hint: str = ""
    places: list[tuple[str, Issue]] = field(default_factory=list)


def count_codes(
    found: Iterable[tuple[str, Issue]], unlisted: Iterable[tuple[str, int]] | None = None
) -> list[CodeCount]:
    """Issues (each with the document it is in) grouped by code: errors first, then by count.
    The issues a document did not list (past a cap) count under their own code: ``unlisted``
    gives them where the caller knows them (a check's ``FileResult.unlisted``), else they are
    read from each "too-many-errors" line."""
    codes: dict[str, CodeCount] = {}
    told = unlisted is not None
    unlisted = list(unlisted or ())
    for where, issue in found:
        capped = _UNLISTED.match(issue.message) if issue.code == CAPPED else None
        if capped is not None:  # the issues past a per-code cap, counted in one
            if not told:
                unlisted.append((capped[2], int(capped[1])))
            continue
        row = codes.get(issue.code)
        if row is None:
            row = codes[issue.code] = CodeCount(issue.code, issue.severity)
        row.count += 1
        if _ORDER[issue.severity] < _ORDER[row.severity]:
            row.severity = issue.severity
        if not row.hint and issue.hint:
            row.hint = issue.hint
        if len(row.places) < FIRST_PLACES:
            row.places.append((where, issue))
    for code, n in unlisted:
        if code in codes:
            codes[code].count += n
    return sorted(codes.values(), key=lambda c: (_ORDER[c.severity], -c.count, c.code))


def issues_part(
    codes: list[CodeCount], name: str, describe: Callable[[str], str] | None = None
) -> Html:
    """The chart of counts by code and the table of codes (title, hint, first places)."""
    if not codes:
        return note("No issues found.")
    bars = [
        plots.Bar(c.code, c.count, plots.SEVERITY_COLOURS[str(c.severity)])
        for c in codes[:CODES_CHARTED]
    ]
    chart = plots.bar_chart(name, bars, "Issues by code", "issues")
    more = len(codes) - len(bars)
    caption = "Issues by code: red errors, amber warnings, grey information." + (
        f" {count(more, 'rarer code')} in the table only." if more > 0 else ""
    )
    rows = []
    for c in codes:
        title = describe(c.code) if describe is not None else ""
        what = join([f"<code>{text(c.code)}</code>", f"<br>{text(title)}" if title else ""])
        places = join(
            f"<li>{text(_place(where, issue))}: {text(issue.message)}</li>"
            for where, issue in c.places
        )
        detail = join(
            [
                f'<span class="hint">{text(c.hint)}</span>' if c.hint else "",
                f'<ul class="where">{places}</ul>',
            ]
        )
        rows.append((what, severity(str(c.severity)), c.count, detail))
    columns = [
        Column("code"),
        Column("severity"),
        Column("count", numeric=True),
        Column("hint and first places"),
    ]
    return join([figure(chart, caption), table("Each code once, most severe first", columns, rows)])


def _place(where: str, issue: Issue) -> str:
    if issue.line and issue.column:
        return f"{where}:{issue.line}:{issue.column}"
    return f"{where}:{issue.line}" if issue.line else where


def lastmod_part(stats: UrlStats, name: str) -> Html:
    """URLs by lastmod month (or year): a chart and its table."""
    months = {day: n for k, n in stats.months.items() if (day := plots.month_of(k)) is not None}
    dated = sum(months.values())
    parts: list[str] = []
    if dated:
        shown, before, after = trim_tails(months)
        svg = plots.lastmod_chart(name, shown, "URLs by lastmod")
        by_year: dict[str, int] = {}
        for key, n in [*stats.months.items(), *stats.year_only.items()]:
            by_year[key[:4]] = by_year.get(key[:4], 0) + n
        data = table(
            "URLs by the year of their lastmod",
            [Column("year"), Column("URLs", numeric=True)],
            sorted(by_year.items()),
        )
        caption = (
            f"{dated:,} of {count(stats.urls, 'URL')} by the month their lastmod names"
            " (as written, in its own zone)."
        )
        first, last = min(shown), max(shown)
        if before:
            caption += f" Not drawn: {count(before, 'URL')} before {first:%B %Y}."
        if after:
            caption += f" Not drawn: {count(after, 'URL')} after {last:%B %Y}."
        parts.append(figure(svg, caption, data))
    else:
        parts.append(note("No URL has a lastmod with a month."))
    if stats.year_only:
        parts.append(note(f"{count(sum(stats.year_only.values()), 'URL')} give a year only."))
    if stats.without_lastmod:
        share = stats.without_lastmod / stats.urls if stats.urls else 0
        parts.append(
            note(
                f"{count(stats.without_lastmod, 'URL')} ({share:.0%}) without a lastmod: search engines"
                " recrawl them on their own schedule."
            )
        )
    return join(parts)


TAIL = 0.005  # months at either end holding this share of URLs or less are not drawn when
SHRINK = 0.5  # that leaves at most this share of the span (outliers, not a long thin tail)


def trim_tails(months: dict[date, int]) -> tuple[dict[date, int], int, int]:
    """The months worth drawing (a stray 1970 or 2099 would squeeze the rest into a few
    bars), and the URLs left out before and after them."""
    keys = sorted(months)
    total = sum(months.values())

    def span(a: int, b: int) -> int:
        return (keys[b].year - keys[a].year) * 12 + keys[b].month - keys[a].month

    def trimmed(lo: int, hi: int, step: int) -> tuple[int, int]:
        """The new end (moved by ``step`` from ``hi``, or from ``lo`` when step is 1) and
        the URLs it leaves out, or no move when that would not shrink the span enough."""
        end, other = (lo, hi) if step == 1 else (hi, lo)
        left = 0
        while end != other and left + months[keys[end]] <= total * TAIL:
            left += months[keys[end]]
            end += step
        new = (end, other) if step == 1 else (other, end)
        if span(*new) > span(lo, hi) * SHRINK:
            return (lo if step == 1 else hi), 0
        return end, left

    hi, after = trimmed(0, len(keys) - 1, -1)
    lo, before = trimmed(0, hi, 1)
    return {k: months[k] for k in keys[lo : hi + 1]}, before, after


BIG_SECTION = 0.4  # a section holding this share of the URLs or more is opened up


def sections_part(stats: UrlStats, name: str) -> Html:
    """URLs per section (host and first path segment): a chart of the largest and a table;
    and, when one section holds much of the site, the subsections inside it."""
    top = stats.sections.top(SECTIONS_SHOWN)
    if not top:
        return note("No URLs were read.")
    many_hosts = stats.hosts > 1
    caption = (
        f"The {min(len(top), 20)} largest of {stats.sections.count:,}"
        " sections (host and first path segment; / is the top level)."
    )
    parts = [_prefix_table(top, stats.urls, many_hosts, name, caption, "section", "sections")]
    big = top[0]
    inside = stats.subsections.top(SECTIONS_SHOWN, within=big.path)
    inside = [s for s in inside if s.host == big.host]
    if big.urls >= stats.urls * BIG_SECTION and big.path != ROOT and len(inside) > 1:
        caption = (
            f"{big.path} holds {big.urls / stats.urls:.0%} of the URLs: the"
            f" {min(len(inside), 20)} largest of its subsections (its own pages as {big.path})."
        )
        parts.append(Html(f"<h3>Inside {text(big.path)}</h3>"))
        parts.append(
            _prefix_table(
                inside,
                big.urls,
                False,
                f"{name}-in",
                caption,
                "subsection",
                f"subsections of {big.path}",
                f"share of {big.path}",
            )
        )
    return join(parts)


def _prefix_table(
    top: list[Section],
    total: int,
    many_hosts: bool,
    name: str,
    caption: str,
    noun: str,
    plural: str,
    share: str = "share",
) -> Html:
    """A chart of the 20 largest prefixes and a table of all in ``top``, with the rest of
    ``total`` in one row."""

    def label(s: Section) -> str:
        return f"{s.host}{s.path}" if many_hosts else s.path

    bars = [plots.Bar(label(s), s.urls) for s in top[:20]]
    svg = plots.bar_chart(name, bars, f"URLs per {noun}", "URLs")
    rows: list[tuple[object, ...]] = [
        (label(s), s.urls, f"{s.urls / total:.1%}", link(s.example)) for s in top
    ]
    rest = total - sum(s.urls for s in top)
    if rest:
        rows.append((OTHER, rest, f"{rest / total:.1%}", ""))
    columns = [
        Column(noun),
        Column("URLs", numeric=True),
        Column(
            "share" if noun == "section" else f"share of {top[0].path.rsplit('/', 2)[0]}/",
            numeric=True,
        ),
        Column("first URL", url=True),
    ]
    return join([figure(svg, caption), table(f"The {len(top)} largest {plural}", columns, rows)])


def url_parts(stats: UrlStats) -> list[tuple[str, str, Html]]:
    """The parts every report draws from its URLs: lastmod over time and URLs per section."""
    if not stats.urls:
        return []
    return [
        part("lastmod", "Lastmod", "Lastmod over time", lastmod_part(stats, "lastmod")),
        part("sections", "Sections", "URLs per section", sections_part(stats, "sections")),
    ]

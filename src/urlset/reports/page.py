"""The parts every report page is made of: one self-contained HTML document (styles inline,
charts inline as SVG, no script, nothing fetched when it is viewed), its summary tiles,
tables with captions and header scopes, figures with their numbers beside them.

Everything a caller passes as text is escaped here; ``Html`` marks markup already made.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from html import escape

from ..codes import plural

_CSS = """
:root { color-scheme: light; --ink: #111827; --muted: #4b5563; --line: #e5e7eb;
  --error: #b91c1c; --warning: #b45309; --info: #4b5563; --ok: #15803d; --accent: #1d4ed8; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans",
  sans-serif; color: var(--ink); background: #f8fafc; }
header { background: #0f172a; color: #f8fafc; padding: 1.2rem 2rem; }
header h1 { margin: 0; font-size: 1.45rem; }
header p { margin: .25rem 0 0; color: #cbd5e1; overflow-wrap: anywhere; }
nav { padding: .5rem 2rem; background: #e2e8f0; font-size: .9rem; display: flex;
  flex-wrap: wrap; gap: .2rem 1.1rem; }
nav a { color: #1e3a8a; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 2rem 3rem; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px;
  padding: 1rem 1.4rem; margin: 1.2rem 0; }
h2 { font-size: 1.15rem; margin: .2rem 0 .8rem; }
h3 { font-size: 1rem; margin: 1.4rem 0 .4rem; }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(7.5rem, 1fr));
  gap: .8rem; margin: 0; }
.tile { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; }
.tile dt { font-size: .8rem; color: var(--muted); text-transform: uppercase;
  letter-spacing: .03em; }
.tile dd { margin: 0; font-size: 1.5rem; font-weight: 600; font-variant-numeric: tabular-nums; }
.tile.error dd { color: var(--error); } .tile.warning dd { color: var(--warning); }
.tile.ok dd { color: var(--ok); }
.verdict { font-weight: 600; margin: .9rem 0 0; }
.verdict.error { color: var(--error); } .verdict.ok { color: var(--ok); }
.verdict.warning { color: var(--warning); }
table { border-collapse: collapse; width: 100%; font-size: .88rem; margin: .4rem 0; }
caption { text-align: left; color: var(--muted); padding-bottom: .3rem; caption-side: top; }
th, td { text-align: left; padding: .35rem .55rem; border-bottom: 1px solid var(--line);
  vertical-align: top; }
thead th { background: #f1f5f9; font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.url { overflow-wrap: anywhere; max-width: 34rem; }
.sev { display: inline-block; padding: 0 .45rem; border-radius: 4px; font-size: .78rem;
  font-weight: 600; color: #fff; }
.sev.error { background: var(--error); } .sev.warning { background: var(--warning); }
.sev.info { background: var(--info); }
.kind { font-weight: 600; }
code { font-size: .85em; background: #f1f5f9; padding: 0 .25rem; border-radius: 3px; }
ul.where { margin: .2rem 0 0; padding-left: 1.1rem; color: var(--muted); }
.hint { color: var(--muted); }
figure { margin: .4rem 0 1rem; }
.scroll { overflow-x: auto; }
.scroll:focus { outline: 2px solid var(--accent); }
figcaption { color: var(--muted); font-size: .88rem; margin-top: .2rem; }
svg.chart { width: 100%; min-width: 36rem; height: auto; display: block; }
details { margin-top: .3rem; } summary { cursor: pointer; color: #1e3a8a; }
.note { color: var(--muted); font-size: .88rem; }
footer { text-align: center; color: var(--muted); font-size: .8rem; padding: 1rem; }
@media (max-width: 40rem) { header, nav { padding-left: 1rem; padding-right: 1rem; }
  main { padding: .5rem .6rem 2rem; } section { padding: .8rem .7rem; } }
@media print { body { background: #fff; } nav { display: none; }
  section { break-inside: avoid; border: 0; } }
"""


class Html(str):
    """Markup made here, inserted as it is (every other string is escaped)."""


def text(value: object) -> Html:
    return value if isinstance(value, Html) else Html(escape(str(value)))


def number(n: int | float) -> str:
    return f"{n:,}" if isinstance(n, int) else f"{n:,.1f}"


def count(n: int, noun: str) -> str:
    """``1 URL``, ``2 URLs``: the number with its noun, plural when it is not one."""
    return plural(n, noun)


def join(parts: Iterable[str]) -> Html:
    return Html("".join(parts))


@dataclass(frozen=True)
class Tile:
    label: str
    value: int | str
    tone: str = ""  # error, warning, ok or "" (the figure's colour; the label says it too)


def tiles(items: Sequence[Tile]) -> Html:
    cells = (
        f'<div class="tile {t.tone}"><dt>{text(t.label)}</dt>'
        f"<dd>{text(number(t.value) if isinstance(t.value, int) else t.value)}</dd></div>"
        for t in items
    )
    return Html(f'<dl class="tiles">{join(cells)}</dl>')


@dataclass(frozen=True)
class Column:
    title: str
    numeric: bool = False
    url: bool = False  # long text that may wrap anywhere


def table(caption: str, columns: Sequence[Column], rows: Iterable[Sequence[object]]) -> Html:
    """A table with a caption and column headers; numbers right-aligned with separators."""
    head = join(
        f'<th scope="col"{" class=num" if c.numeric else ""}>{text(c.title)}</th>' for c in columns
    )
    body = []
    for row in rows:
        cells = []
        for column, value in zip(columns, row, strict=True):
            cls = ' class="num"' if column.numeric else ' class="url"' if column.url else ""
            shown = number(value) if isinstance(value, int | float) and column.numeric else value
            tag = "th" if column is columns[0] and not column.numeric else "td"
            scope = ' scope="row"' if tag == "th" else ""
            cells.append(f"<{tag}{scope}{cls}>{text(shown)}</{tag}>")
        body.append(f"<tr>{''.join(cells)}</tr>")
    # wide tables scroll sideways on a narrow screen, in a region a keyboard can reach
    return Html(
        f'<div class="scroll" role="region" tabindex="0" aria-label="{escape(caption)}">'
        f"<table><caption>{text(caption)}</caption><thead><tr>{head}</tr></thead>"
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def figure(svg: str, caption: str, data: Html | None = None) -> Html:
    """A chart with its caption, and its numbers in a table a click away."""
    numbers = (
        f"<details><summary>The numbers behind this chart</summary>{data}</details>"
        if data is not None
        else ""
    )
    return Html(
        f'<figure><div class="scroll">{svg}</div>'
        f"<figcaption>{text(caption)}</figcaption>{numbers}</figure>"
    )


def section(anchor: str, title: str, *parts: str) -> Html:
    return Html(
        f'<section id="{escape(anchor)}" aria-labelledby="{escape(anchor)}-h">'
        f'<h2 id="{escape(anchor)}-h">{text(title)}</h2>{join(text(p) for p in parts)}</section>'
    )


def part(anchor: str, nav: str, title: str, *content: str) -> tuple[str, str, Html]:
    """A section of the page with its entry in the navigation, for ``document``."""
    return anchor, nav, section(anchor, title, *content)


def note(value: str) -> Html:
    return Html(f'<p class="note">{text(value)}</p>')


def severity(value: str) -> Html:
    return Html(f'<span class="sev {escape(value)}">{escape(value)}</span>')


def link(url: str, label: str | None = None) -> Html:
    """A link to an http(s) URL (anything else is shown as text, never made clickable)."""
    shown = text(label if label is not None else url)
    if not url.lower().startswith(("http://", "https://")):
        return shown
    return Html(f'<a href="{escape(url)}" rel="nofollow noopener">{shown}</a>')


def made_by(made: datetime | None, what: str) -> str:
    """The footer's line: urlset's version, when the report was made, what it shows."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        name = f"urlset {version('urlset')}"
    except PackageNotFoundError:
        name = "urlset"
    stamp = f" at {made.astimezone(UTC):%Y-%m-%d %H:%M} UTC" if made is not None else ""
    return f"Made by {name}{stamp}. {what}"


def document(
    title: str, subtitle: str, sections: Sequence[tuple[str, str, Html]], made: str
) -> str:
    """The whole page: ``sections`` as (anchor, name in the navigation, markup); ``made``
    is the footer's line (``made_by``)."""
    nav = join(f'<a href="#{escape(a)}">{text(name)}</a>' for a, name, _ in sections)
    body = join(markup for _, _, markup in sections)
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{text(title)}</title><style>{_CSS}</style></head><body>"
        f"<header><h1>{text(title)}</h1><p>{text(subtitle)}</p></header>"
        f'<nav aria-label="Sections of this report">{nav}</nav>'
        f"<main>{body}</main><footer>{text(made)}</footer></body></html>\n"
    )

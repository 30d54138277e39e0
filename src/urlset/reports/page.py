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

from ..writing.page_style import PAGE_CSS as _CSS
from ..writing.page_style import count as count  # the reports' parts take it from here
from ..writing.page_style import number


class Html(str):
    """Markup made here, inserted as it is (every other string is escaped)."""


def text(value: object) -> Html:
    return value if isinstance(value, Html) else Html(escape(str(value)))


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
    from .._core import VERSION  # the package's (see cli/check_run.py package_version)

    name = f"urlset {VERSION}"
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

"""The reports' charts, drawn by matplotlib as SVG text to inline in the page.

matplotlib is the ``report`` extra: it is imported only when a chart is drawn, and
``require`` says how to install it when it is missing. Every chart's text stays text
(``svg.fonttype: none``: the page's fonts, selectable, small), its ids are made unique in
the page (several SVGs share one document), and it carries ``role="img"`` and a title for
screen readers; each figure in the page also has its numbers as a table.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

INSTALL = "pip install 'urlset[report]'"

# colours that keep 4.5:1 contrast with white, told apart by more than hue where it matters
BLUE = "#1d4ed8"
RED = "#b91c1c"
AMBER = "#b45309"
GREY = "#4b5563"
GREEN = "#15803d"
_EPOCH = date(1970, 1, 1).toordinal()
SEVERITY_COLOURS = {"error": RED, "warning": AMBER, "info": GREY}

_STYLE: Any = {
    "svg.fonttype": "none",  # text as text, in the page's font
    "text.parse_math": False,  # a $ in a URL's path is a dollar sign, not TeX
    "font.family": "sans-serif",
    "font.size": 10.5,
    "axes.edgecolor": "#94a3b8",
    "axes.labelcolor": "#1f2937",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#e2e8f0",
    "grid.linewidth": 0.8,
    "axes.axisbelow": True,
    "xtick.color": "#374151",
    "ytick.color": "#374151",
}


class ExtraMissing(RuntimeError):
    """The ``report`` extra (matplotlib) is not installed."""


def require() -> None:
    """Raise ``ExtraMissing`` naming the pip command when matplotlib cannot be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError as exc:
        raise ExtraMissing(
            f"HTML reports need matplotlib, which is not installed ({exc}): {INSTALL}"
        ) from None


def _figure(width: float, height: float) -> Figure:
    require()
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height), layout="constrained")


def _svg(fig: Figure, name: str, title: str) -> str:
    """The figure as an SVG element for inlining: no prolog, ids prefixed by ``name``."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": name, "svg.fonttype": "none"}):
        fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    text = buf.getvalue()
    text = text[text.index("<svg") :]
    text = re.sub(r'\bid="([^"]+)"', rf'id="{name}-\1"', text)
    text = re.sub(r'(href|xlink:href)="#([^"]+)"', rf'\1="#{name}-\2"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{name}-\1)", text)
    # matplotlib sets a fixed width and height in pt: let the page's CSS size it
    text = re.sub(r'<svg([^>]*?) width="[^"]*" height="[^"]*"', r"<svg\1", text, count=1)
    title_id = f"{name}-title"
    text = text.replace(
        "<svg",
        f'<svg role="img" aria-labelledby="{title_id}" class="chart"',
        1,
    )
    head_end = text.index(">") + 1
    return f'{text[:head_end]}<title id="{title_id}">{_escape(title)}</title>{text[head_end:]}'


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _styled(draw: Any) -> Any:
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        return draw()


def _thousands(ax: Axes, axis: str) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(MaxNLocator(nbins=6, integer=True))
    target.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}"))


def lastmod_chart(name: str, months: dict[date, int], title: str) -> str:
    """URLs per lastmod month (per year when the months span more than ten years)."""
    first, last = min(months), max(months)
    yearly = (last.year - first.year) * 12 + last.month - first.month > 120
    counts: dict[date, int] = {}
    for day, n in months.items():
        key = day.replace(month=1) if yearly else day
        counts[key] = counts.get(key, 0) + n
    xs = sorted(counts)

    def draw() -> str:
        fig = _figure(9.5, 3.2)
        ax = fig.subplots()
        width = 300 if yearly else 24  # days
        # matplotlib's dates are days since 1970-01-01
        days = [x.toordinal() - _EPOCH for x in xs]
        ax.bar(days, [counts[x] for x in xs], width=width, color=BLUE, align="edge")
        _date_axis(ax, xs, yearly)
        ax.set_ylabel("URLs")
        ax.grid(axis="x", visible=False)
        _thousands(ax, "y")
        ax.set_xlabel("lastmod (year)" if yearly else "lastmod (month)")
        return _svg(fig, name, title)

    return str(_styled(draw))


def _date_axis(ax: Axes, xs: list[date], yearly: bool) -> None:
    """Ticks on whole months or years, at most about ten of them, named plainly."""
    import importlib

    dates: Any = importlib.import_module("matplotlib.dates")  # untyped in matplotlib
    ax.xaxis_date()
    first, last = xs[0], xs[-1]
    months = (last.year - first.year) * 12 + last.month - first.month + 1
    if months > 24:  # ticks on years, whether the bars are years or months
        years = last.year - first.year + 1
        ax.xaxis.set_major_locator(dates.YearLocator(base=max(1, -(-years // 10))))
        ax.xaxis.set_major_formatter(dates.DateFormatter("%Y"))
    else:
        ax.xaxis.set_major_locator(dates.MonthLocator(interval=max(1, -(-months // 10))))
        ax.xaxis.set_major_formatter(dates.DateFormatter("%b %Y"))
    # days: a year's bar is 300 days from its first day, a month's 24
    before, after = (60, 365 + 60) if yearly else (10, 31 + 10)
    ax.set_xlim(first.toordinal() - _EPOCH - before, last.toordinal() - _EPOCH + after)


def month_of(key: str) -> date | None:
    try:
        return date(int(key[:4]), int(key[5:7]), 1)
    except ValueError:
        return None


@dataclass(frozen=True)
class Bar:
    label: str
    value: int
    colour: str = BLUE


def bar_chart(name: str, bars: Sequence[Bar], title: str, unit: str) -> str:
    """Horizontal bars, first at the top, each labelled with its value."""

    def draw() -> str:
        fig = _figure(9.5, 0.9 + 0.3 * len(bars))
        ax = fig.subplots()
        ys = range(len(bars))
        ax.barh(ys, [b.value for b in bars], color=[b.colour for b in bars], height=0.7)
        ax.set_yticks(list(ys), [_short(b.label) for b in bars])
        ax.invert_yaxis()
        ax.grid(axis="y", visible=False)
        top = max((b.value for b in bars), default=0)
        for y, bar in zip(ys, bars, strict=True):
            ax.text(bar.value + top * 0.01, y, f"{bar.value:,}", va="center", fontsize=9)
        ax.set_xlim(0, top * 1.12 or 1)
        ax.set_xlabel(unit)
        _thousands(ax, "x")
        return _svg(fig, name, title)

    return str(_styled(draw))


def stacked_chart(
    name: str, labels: Sequence[str], series: Mapping[str, tuple[Sequence[int], str]], title: str
) -> str:
    """Horizontal stacked bars: one row a label, one colour a series (with a legend)."""

    def draw() -> str:
        fig = _figure(9.5, 1.3 + 0.3 * len(labels))
        ax = fig.subplots()
        ys = list(range(len(labels)))
        left = [0] * len(labels)
        for series_name, (values, colour) in series.items():
            ax.barh(ys, values, left=left, color=colour, height=0.7, label=series_name)
            left = [a + b for a, b in zip(left, values, strict=True)]
        ax.set_yticks(ys, [_short(label) for label in labels])
        ax.invert_yaxis()
        ax.grid(axis="y", visible=False)
        ax.set_xlabel("URLs")
        _thousands(ax, "x")
        fig.legend(loc="outside upper center", frameon=False, ncols=len(series))
        return _svg(fig, name, title)

    return str(_styled(draw))


@dataclass(frozen=True)
class Point:
    label: str
    urls: int
    size: int  # bytes, uncompressed
    bad: bool = False  # has errors


def limits_chart(
    name: str,
    points: Sequence[Point],
    max_urls: int,
    max_bytes: int | None,
    title: str,
    *,
    size_label: str = "uncompressed size (MiB)",
    bad_label: str = "sitemap with errors",
) -> str:
    """Each sitemap's URLs against its size, with the protocol's limits as dashed lines
    (no byte limit drawn when the sizes are not the uncompressed ones)."""
    mib = 1024 * 1024

    def draw() -> str:
        fig = _figure(9.5, 3.6)
        ax = fig.subplots()
        for group, colour, marker, label in (
            ([p for p in points if not p.bad], BLUE, "o", "sitemap"),
            ([p for p in points if p.bad], RED, "X", bad_label),
        ):
            if group:
                xs, ys = [p.urls for p in group], [p.size / mib for p in group]
                ax.scatter(xs, ys, s=30, color=colour, marker=marker, label=label, zorder=3)
        most_urls = max([p.urls for p in points] + [max_urls])
        most_bytes = max([p.size for p in points] + [max_bytes or 0]) / mib or 1.0
        ax.axvline(max_urls, color=GREY, linestyle="--", linewidth=1)
        ax.text(
            max_urls, most_bytes * 1.04, f"{max_urls:,} URLs ", color=GREY, fontsize=9, ha="right"
        )
        if max_bytes is not None:
            ax.axhline(max_bytes / mib, color=GREY, linestyle="--", linewidth=1)
            limit = f"{max_bytes / mib:,.0f} MiB"
            ax.text(0, max_bytes / mib * 1.01, limit, color=GREY, fontsize=9, va="bottom")
        ax.set_xlim(0, most_urls * 1.08)
        ax.set_ylim(0, most_bytes * 1.12)
        ax.set_xlabel("URLs in the sitemap")
        ax.set_ylabel(size_label)
        _thousands(ax, "x")
        fig.legend(loc="outside upper center", frameon=False, ncols=2)
        return _svg(fig, name, title)

    return str(_styled(draw))


def _short(label: str, width: int = 48) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"

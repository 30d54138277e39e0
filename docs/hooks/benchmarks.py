"""mkdocs hook: the benchmarks page is BENCHMARKS.md with a chart under each table of the
latest runs (the sections headed "### Main on ..."), drawn from the table's own figures, so a
chart can never disagree with its numbers. Charts are inline SVG (matplotlib's, no script).
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

PLACEHOLDER = "<!-- benchmarks -->"
SOURCE = Path(__file__).resolve().parents[2] / "BENCHMARKS.md"
NUMBER = re.compile(r"[\d,]+(?:\.\d+)?")


def number(cell: str) -> float | None:
    found = NUMBER.search(cell.replace("*", ""))
    return float(found.group().replace(",", "")) if found else None


def chart(header: list[str], rows: list[list[str]]) -> str | None:
    """URLs a second per row where the table has them, else each peer's time as a multiple of
    urlset's (the cells written ``23.2x``); None for a table of neither kind."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [row[0] for row in rows]
    if "URLs/s" in header:
        column = header.index("URLs/s")
        series = {"URLs a second": [number(row[column]) or 0.0 for row in rows]}
        title = "URLs a second (higher is faster)"
    else:
        peers = [
            i
            for i in range(1, len(header))
            if all(row[i].rstrip("*").endswith("x") for row in rows)
        ]
        if not peers:
            return None
        series = {header[i]: [number(row[i]) or 0.0 for row in rows] for i in peers}
        title = "each peer's time as a multiple of urlset's (higher: urlset is further ahead)"
    figure, axes = plt.subplots(figsize=(8, 0.5 + 0.45 * len(labels) * max(1, len(series) / 2)))
    height = 0.8 / len(series)
    for index, (name, values) in enumerate(series.items()):
        positions = [row + index * height for row in range(len(labels))]
        axes.barh(positions, values, height=height, label=name)
    axes.set_yticks([row + height * (len(series) - 1) / 2 for row in range(len(labels))], labels)
    axes.invert_yaxis()
    axes.set_title(title, fontsize=10)
    if len(series) > 1:
        axes.legend(fontsize=8)
    figure.tight_layout()
    svg = io.StringIO()
    figure.savefig(svg, format="svg")
    plt.close(figure)
    body = svg.getvalue()
    return body[body.index("<svg") :]


def with_charts(markdown: str) -> str:
    out: list[str] = []
    lines = markdown.splitlines()
    latest = False
    index = 0
    charts = 0
    while index < len(lines):
        line = lines[index]
        if line.startswith("#"):
            latest = line.startswith("### Main on")
        if (
            latest
            and line.startswith("|")
            and index + 1 < len(lines)
            and lines[index + 1].startswith("|---")
        ):
            end = index
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            table = lines[index:end]
            split = [[cell.strip() for cell in row.strip("|").split("|")] for row in table]
            out.extend(table)
            svg = chart(split[0], split[2:])
            if svg:
                out.extend(["", f'<figure class="benchmark-chart">{svg}</figure>', ""])
                charts += 1
            index = end
            continue
        out.append(line)
        index += 1
    if charts == 0:
        raise PluginError(
            "docs/hooks/benchmarks.py: no table under a '### Main on' heading of BENCHMARKS.md"
        )
    return "\n".join(out) + "\n"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri != "benchmarks.md":
        return markdown
    if PLACEHOLDER not in markdown:
        raise PluginError(f"docs/benchmarks.md has lost its {PLACEHOLDER} line")
    return markdown.replace(PLACEHOLDER, with_charts(SOURCE.read_text(encoding="utf-8")))

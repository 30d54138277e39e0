"""``urlset fetch --report FILE.html``: what a fetch found, as one self-contained page.

In: the ``DiscoveryResult`` (the tree of documents, their states, counts and issues) and the
``UrlStats`` that ``FetchStats.on_read`` gathered while the URLs streamed by. Out: HTML
text. Sections: the summary (sitemaps, URLs, failures, the run's verdict), the documents'
states, issues by code, URLs per sitemap against the limit, lastmod over time, URLs per
section, and the tree (a row a document, capped; failed and partial ones listed whole).
"""

from __future__ import annotations

from datetime import datetime

from ..codes import rule
from ..fetching.parse_pool import columns_of
from ..fetching.report import size_text, summary
from ..fetching.values import DiscoveryResult, NodeState, SitemapNode, SitemapRead
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
    link,
    made_by,
    note,
    part,
    table,
    text,
    tiles,
)
from .parts import INDEX, count_codes, issues_part, url_parts
from .stats import UrlStats

TREE_SHOWN = 300  # rows of the tree table
PROBLEMS_SHOWN = 500  # failed and partial documents listed
_STATE_COLOURS = {
    NodeState.OK: plots.BLUE,
    NodeState.NOT_MODIFIED: plots.GREEN,
    NodeState.UNCHANGED: plots.GREEN,
    NodeState.PARTIAL: plots.AMBER,
    NodeState.FAILED: plots.RED,
}


class FetchStats(UrlStats):
    """A ``UrlStats`` fed by the fetch as each sitemap is read (``on_read``)."""

    def on_read(self, event: SitemapRead) -> None:
        urls = event.urls
        self.sources += 1
        self.add_columns(columns_of(urls))


def fetch_html(
    result: DiscoveryResult,
    stats: UrlStats,
    *,
    limits: Limits = CURRENT,
    made: datetime | None = None,
) -> str:
    """The fetch as an HTML page (no script, nothing fetched when viewed)."""
    nodes = list(result.nodes())
    found = [(result.start, i) for i in result.issues]
    found += [(n.url, i) for n in nodes for i in n.issues]
    codes = count_codes(found)
    parts = [
        part("summary", "Summary", "Summary", _summary(result, nodes, stats)),
        part("states", "Documents", "Documents by state", _states(nodes)),
        part("issues", "Issues", "Issues by code", issues_part(codes, "codes", _title)),
    ]
    sitemaps = [n for n in nodes if n.kind == "sitemap" and n.format not in (INDEX, None)]
    if sitemaps:
        sizes = _limits(sitemaps, limits)
        parts.append(part("limits", "Sizes", "Sitemaps against the URL limit", sizes))
    parts.extend(url_parts(stats))
    parts.append(part("tree", "Tree", "The sitemap tree", _tree(nodes)))
    return document(
        "Sitemap fetch",
        result.start,
        parts,
        made_by(made, "The site's sitemaps as its robots.txt and indexes lead to them."),
    )


def _title(code: str) -> str:
    """The title of a code in the one table (none for a code without a row)."""
    try:
        return rule(code).title
    except KeyError:
        return ""


def _summary(result: DiscoveryResult, nodes: list[SitemapNode], stats: UrlStats) -> Html:
    errors = len(result.errors)
    received = sum(n.bytes for n in nodes)
    items = [
        Tile("sitemaps read", result.sitemaps_read),
        Tile("URLs", result.url_count),
        Tile("failed", len(result.failed), "error" if result.failed else "ok"),
        Tile("read in part", len(result.incomplete), "warning" if result.incomplete else "ok"),
        Tile("errors", errors, "error" if errors else "ok"),
        Tile("received", size_text(received)),
    ]
    if stats.urls:
        items.append(Tile("sections", stats.sections.count))
    tone = "error" if result.nothing or result.failed else "warning" if result.partial else "ok"
    said = summary(result)
    if result.limits_hit:
        said += ". Raise the caps (--max-urls, --max-sitemaps, --max-depth) to read the rest."
    return join([tiles(items), Html(f'<p class="verdict {tone}">{text(said)}</p>')])


def _states(nodes: list[SitemapNode]) -> Html:
    counts: dict[NodeState, int] = {}
    for node in nodes:
        counts[node.state] = counts.get(node.state, 0) + 1
    ordered = sorted(((str(s), n) for s, n in counts.items()), key=lambda kv: -kv[1])
    bars = [plots.Bar(s, n, _STATE_COLOURS.get(NodeState(s), plots.GREY)) for s, n in ordered]
    svg = plots.bar_chart("states", bars, "Documents by state", "documents")
    caption = (
        "Each document the fetch met (robots.txt, indexes, sitemaps) by how it ended: ok,"
        " not-modified and unchanged (from the cache) were read; partial ones in part."
    )
    data = table(
        "Documents by state", [Column("state"), Column("documents", numeric=True)], ordered
    )
    return figure(svg, caption, data)


def _limits(sitemaps: list[SitemapNode], limits: Limits) -> Html:
    points = [
        plots.Point(n.url, n.url_count, n.bytes, n.failed or n.state is NodeState.PARTIAL)
        for n in sitemaps
    ]
    svg = plots.limits_chart(
        "limits",
        points,
        limits.max_urls,
        None,
        "Sitemaps against the URL limit",
        size_label="received (MiB, as sent: gzip stays gzip)",
        bad_label="failed or read in part",
    )
    fullest = max(sitemaps, key=lambda n: n.url_count)
    caption = (
        f"Each of {count(len(sitemaps), 'sitemap')} by URLs and bytes received; the dashed"
        f" line is the limit of {limits.max_urls:,} URLs. The fullest, {fullest.url},"
        f" lists {fullest.url_count:,}. The byte limit applies to the uncompressed file,"
        " which a fetch does not keep: `urlset check URL` measures it."
    )
    return figure(svg, caption)


_COLUMNS = [
    Column("document", url=True),
    Column("state"),
    Column("format"),
    Column("URLs", numeric=True),
    Column("HTTP", numeric=True),
    Column("received", numeric=True),
    Column("seconds", numeric=True),
    Column("issues", numeric=True),
]


def _row(node: SitemapNode, indent: bool = True) -> tuple[object, ...]:
    pad = "\u2003" * node.depth if indent else ""
    what = join([pad, link(node.url)])
    urls = node.ref_count if node.format == INDEX or node.kind == "robots" else node.url_count
    status = "" if node.status is None else str(node.status)
    seconds = f"{node.seconds:.2f}" if node.seconds else ""
    return (
        what,
        str(node.state),
        node.format or node.kind,
        urls,
        status,
        size_text(node.bytes),
        seconds,
        len(node.issues),
    )


def _tree(nodes: list[SitemapNode]) -> Html:
    shown = [_row(n) for n in nodes[:TREE_SHOWN]]
    caption = f"{count(len(nodes), 'document')} in document order" + (
        f" (the first {TREE_SHOWN}); indexes and robots.txt count the sitemaps they name"
        if len(nodes) > TREE_SHOWN
        else "; indexes and robots.txt count the sitemaps they name"
    )
    parts = [table(caption, _COLUMNS, shown)]
    problems = [n for n in nodes if n.failed or n.state is NodeState.PARTIAL]
    if problems:
        rows = [_row(n, indent=False) for n in problems[:PROBLEMS_SHOWN]]
        more = len(problems) - len(rows)
        what = f"{count(len(problems), 'document')} failed or read in part" + (
            f" (the first {PROBLEMS_SHOWN})" if more else ""
        )
        parts.append(table(what, _COLUMNS, rows))
    elif len(nodes) > TREE_SHOWN:
        parts.append(note("No document failed or was read only in part."))
    return join(parts)

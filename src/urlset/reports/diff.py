"""``urlset diff --format html``: what changed between two sides, as one self-contained page.

In: the diff's summary (``store.report.summary_json``: sides, counts) and its rows (one a
changed loc: change, loc, fields, old and new values and sitemaps), read once as they
stream. Out: HTML text. Sections: the summary, changes by kind and what changed in changed
entries, changes per section, the lastmod the new side gives to what was added or changed,
the moves between sitemaps, and the first examples of each kind (capped).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

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
from .parts import lastmod_part
from .stats import UrlStats

KINDS = ("added", "removed", "changed", "moved")
KIND_COLOURS = {
    "added": plots.GREEN,
    "removed": plots.RED,
    "changed": plots.BLUE,
    "moved": plots.GREY,
}
EXAMPLES = 15  # rows of each kind shown
SECTIONS_CHARTED = 20
MOVES_SHOWN = 30


class DiffStats:
    """The diff's rows counted: per kind a ``UrlStats``, changed fields, moves, examples."""

    def __init__(self) -> None:
        self.kinds = {kind: UrlStats() for kind in KINDS}
        self.fresh = UrlStats()  # added and changed entries, by their new lastmod
        self.fields: Counter[str] = Counter()
        self.moves: Counter[tuple[str, str]] = Counter()
        self.examples: dict[str, list[Mapping[str, Any]]] = {kind: [] for kind in KINDS}

    def add(self, rows: Iterable[Mapping[str, Any]]) -> None:
        batch: dict[str, tuple[list[str], list[str]]] = {k: ([], []) for k in KINDS}
        for row in rows:
            kind = row["change"]
            lastmod = row["old_lastmod" if kind == "removed" else "new_lastmod"]
            locs, lastmods = batch[kind]
            locs.append(row["loc"])
            lastmods.append("" if lastmod is None else str(lastmod))
            fields = row["fields"] or ()
            if kind == "changed":
                for name in fields:
                    if name == "lastmod" and row["lastmod_change"] in ("forward", "back"):
                        name = f"lastmod {row['lastmod_change']}"
                    self.fields[name] += 1
            if kind == "moved":  # a changed loc that moved too counts as changed only
                self.moves[(str(row["old_sitemap"]), str(row["new_sitemap"]))] += 1
            if len(self.examples[kind]) < EXAMPLES:
                self.examples[kind].append(row)
            if len(locs) >= 20_000:
                self._flush(kind, locs, lastmods)
        for kind, (locs, lastmods) in batch.items():
            self._flush(kind, locs, lastmods)

    def _flush(self, kind: str, locs: list[str], lastmods: list[str]) -> None:
        self.kinds[kind].add(locs, lastmods)
        if kind in ("added", "changed"):
            self.fresh.add(locs, lastmods)
        locs.clear()
        lastmods.clear()


def diff_html(
    summary: Mapping[str, Any],
    rows: Iterable[Mapping[str, Any]],
    *,
    compared_sitemaps: bool = True,
    made: datetime | None = None,
) -> str:
    """The diff as an HTML page (no script, nothing fetched when viewed)."""
    found = DiffStats()
    found.add(rows)
    counts: Mapping[str, int] = summary["counts"]
    parts = [part("summary", "Summary", "Summary", _summary(summary, compared_sitemaps))]
    if any(counts[k] for k in KINDS):
        parts.append(part("kinds", "Changes", "Changes by kind", _kinds(counts, found)))
        if summary.get("sections"):  # the sets' own sections (their file names)
            named = _set_sections(summary["sections"])
            parts.append(
                part("set-sections", "Set sections", "Changes per section of the set", named)
            )
        parts.append(part("sections", "Sections", "Changes per path section", _sections(found)))
        if found.fresh.urls:
            fresh = lastmod_part(found.fresh, "lastmod")
            parts.append(part("lastmod", "Lastmod", "Lastmod of what is new or changed", fresh))
        if found.moves:
            parts.append(part("moves", "Moves", "Moves between sitemaps", _moves(found)))
        parts.append(part("examples", "Examples", "Examples", _examples(counts, found)))
    return document(
        "Sitemap diff",
        f"{summary['old']} → {summary['new']}",
        parts,
        made_by(made, "Each loc is compared through its newest entry on each side."),
    )


def _summary(summary: Mapping[str, Any], compared_sitemaps: bool) -> Html:
    c = summary["counts"]
    items = [
        Tile("old entries", c["old_urls"]),
        Tile("new entries", c["new_urls"]),
        Tile("added", c["added"]),
        Tile("removed", c["removed"], "error" if c["removed"] else ""),
        Tile("changed", c["changed"]),
        *([Tile("moved", c["moved"])] if compared_sitemaps else []),
    ]
    changed = sum(c[k] for k in KINDS)
    if not changed:
        verdict = '<p class="verdict ok">No change: both sides list the same entries.</p>'
    else:
        verdict = (
            f'<p class="verdict">{count(changed, "loc")} differ. Lastmod moved forward on'
            f" {c['lastmod_forward']:,}, back on {c['lastmod_back']:,};"
            f" {c['other_fields']:,} changed in other fields only.</p>"
        )
    notes = [tiles(items), Html(verdict)]
    if not compared_sitemaps:
        notes.append(
            note(
                "Moves between sitemaps are not counted (a rebuild that names files by their"
                " content renames them all; --moves compares the sitemaps when the sides"
                " share their names)."
            )
        )
    if c.get("old_duplicates") or c.get("new_duplicates"):
        notes.append(
            note(
                f"Repeated locs: {c['old_duplicates']:,} on the old side,"
                f" {c['new_duplicates']:,} on the new; each is compared through its newest entry."
            )
        )
    return join(notes)


def _kinds(counts: Mapping[str, int], found: DiffStats) -> Html:
    bars = [plots.Bar(kind, counts[kind], KIND_COLOURS[kind]) for kind in KINDS]
    svg = plots.bar_chart("kinds", bars, "Changes by kind", "locs")
    parts = [
        figure(
            svg,
            "Locs added, removed, changed (in any field) and, when asked for, moved between"
            " sitemaps (a moved loc whose fields changed too counts as changed).",
        )
    ]
    if found.fields:
        fields = [plots.Bar(name, n) for name, n in found.fields.most_common()]
        svg = plots.bar_chart("fields", fields, "What changed in changed entries", "entries")
        caption = (
            "The fields that differ in changed entries (an entry may count under several);"
            " lastmod forward or back when both sides give a comparable date."
        )
        parts.append(figure(svg, caption))
    return join(parts)


def _sections(found: DiffStats) -> Html:
    totals: Counter[tuple[str, str]] = Counter()
    for stats in found.kinds.values():
        for key, s in stats.sections.by_key.items():
            totals[key] += s.urls
    top = [key for key, _ in totals.most_common(SECTIONS_CHARTED)]
    many_hosts = len({host for host, _ in totals}) > 1
    labels = [f"{h}{p}" if many_hosts else p for h, p in top]
    series = {}
    for kind in KINDS:
        sections = found.kinds[kind].sections.by_key
        values = [sections[key].urls if key in sections else 0 for key in top]
        if any(values):
            series[kind] = (values, KIND_COLOURS[kind])
    svg = plots.stacked_chart("sections", labels, series, "Changes per section")
    rows = [
        (label, *(series[k][0][i] if k in series else 0 for k in KINDS), totals[key])
        for i, (label, key) in enumerate(zip(labels, top, strict=True))
    ]
    columns = [
        Column("section"),
        *(Column(k, numeric=True) for k in KINDS),
        Column("all", numeric=True),
    ]
    caption = f"The {len(top)} sections with the most changes, of {len(totals):,}."
    return join([figure(svg, caption), table("Changes per section, by kind", columns, rows)])


def _set_sections(sections: Mapping[str, Mapping[str, int]]) -> Html:
    """A row per section the sets were written in: its changes by kind."""
    columns = [Column("section"), *(Column(k, numeric=True) for k in KINDS)]
    rows = [(name, *(kinds.get(k, 0) for k in KINDS)) for name, kinds in sections.items()]
    return table("Changes per section of the set, by kind", columns, rows)


def _moves(found: DiffStats) -> Html:
    rows = [(old, new, n) for (old, new), n in found.moves.most_common(MOVES_SHOWN)]
    caption = f"The most common moves, of {count(len(found.moves), 'pair')} of sitemaps"
    columns = [Column("from", url=True), Column("to", url=True), Column("locs", numeric=True)]
    return table(caption, columns, rows)


def _examples(counts: Mapping[str, int], found: DiffStats) -> Html:
    parts = []
    rows: list[tuple[object, ...]]
    for kind in KINDS:
        shown = found.examples[kind]
        if not shown:
            continue
        caption = f"{kind}: the first {len(shown)} of {counts[kind]:,} by loc"
        if kind == "changed":
            columns = [
                Column("loc", url=True),
                Column("fields"),
                Column("old lastmod"),
                Column("new lastmod"),
            ]
            rows = [
                (
                    r["loc"],
                    ", ".join(r["fields"] or ()),
                    _text(r["old_lastmod"]),
                    _text(r["new_lastmod"]),
                )
                for r in shown
            ]
        elif kind == "moved":
            columns = [Column("loc", url=True), Column("from", url=True), Column("to", url=True)]
            rows = [(r["loc"], _text(r["old_sitemap"]), _text(r["new_sitemap"])) for r in shown]
        else:
            side = "old" if kind == "removed" else "new"
            columns = [Column("loc", url=True), Column("lastmod"), Column("sitemap", url=True)]
            rows = [
                (r["loc"], _text(r[f"{side}_lastmod"]), _text(r[f"{side}_sitemap"])) for r in shown
            ]
        parts.append(table(caption, columns, rows))
    return join(parts)


def _text(value: object) -> str:
    return "" if value is None else str(value)

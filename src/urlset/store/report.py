"""A diff as text (counts and examples) and as rows (JSON Lines, CSV, Parquet)."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator
from typing import Any, Protocol

from ..codes import plural
from .diff import DIFF_COLUMNS, KINDS, Diff
from .snapshot import _quote

_ROWS = 10_000  # rows fetched at once


class TextOut(Protocol):
    def write(self, text: str, /) -> int: ...


def summary(diff: Diff, *, moves: bool = False) -> str:
    """Counts, one line each, then the duplicates when there are any; ``moves``: they were
    asked for (the moved line says when the sides share no sitemap to compare)."""
    c = diff.counts
    lines = [
        f"old: {diff.old.label}: {plural(c['old_urls'], 'entry', 'entries')}",
        f"new: {diff.new.label}: {plural(c['new_urls'], 'entry', 'entries')}",
        f"added    {c['added']:>10,}",
        f"removed  {c['removed']:>10,}",
        f"changed  {c['changed']:>10,}  (lastmod forward {c['lastmod_forward']:,}, back"
        f" {c['lastmod_back']:,}; other fields {c['other_fields']:,})",
    ]
    if moves:
        lines.append(
            f"moved    {c['moved']:>10,}"
            + ("" if diff.compared_sitemaps else "  (sitemaps not compared: the sides share none)")
        )
    for name, kinds in diff.sections().items():  # the sides' own sections
        shown = ", ".join(f"{kind} {n:,}" for kind, n in kinds.items() if n or kind != "moved")
        lines.append(f"section {name}: {shown}")
    if c["old_duplicates"] or c["new_duplicates"]:
        lines.append(
            f"repeated locs: old {c['old_duplicates']:,}, new {c['new_duplicates']:,}"
            " (each compared through its newest entry)"
        )
    return "\n".join(lines) + "\n"


def _describe(row: dict[str, Any]) -> str:
    kind = row["change"]
    if kind in ("added", "removed"):
        return str(row["loc"])
    if kind == "moved":
        return f"{row['loc']}  {row['old_sitemap']} -> {row['new_sitemap']}"
    parts = []
    for name in row["fields"] or ():
        old, new = row[f"old_{name}"], row[f"new_{name}"]
        if name == "extensions":
            parts.append("extensions")
            continue
        text = f"{name} {_show(old)} -> {_show(new)}"
        if name == "lastmod" and row["lastmod_change"] in ("forward", "back"):
            text += f" ({row['lastmod_change']})"
        parts.append(text)
    return f"{row['loc']}  " + "; ".join(parts)


def _show(value: Any) -> str:
    return "(none)" if value is None else str(value)


def text(diff: Diff, *, moves: bool = False) -> str:
    """The summary, then the examples of each kind."""
    out = [summary(diff, moves=moves)]
    for kind in KINDS:
        rows = diff.examples.get(kind) or []
        if rows:
            total = diff.counts[kind]
            out.append(f"\n{kind} (first {len(rows)} of {total:,} by loc):\n")
            out.extend(f"  {_describe(row)}\n" for row in rows)
    return "".join(out)


def rows(diff: Diff) -> Iterator[dict[str, Any]]:
    cursor = diff.con.execute(f"SELECT * FROM {diff.table} ORDER BY change, loc")
    names = [d[0] for d in cursor.description]
    while True:
        batch = cursor.fetchmany(_ROWS)
        if not batch:
            return
        for row in batch:
            yield dict(zip(names, row, strict=True))


def write_jsonl(diff: Diff, out: TextOut) -> None:
    """One object a changed loc, with its non-empty fields."""
    for row in rows(diff):
        record = {k: v for k, v in row.items() if v is not None}
        out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


def write_csv(diff: Diff, out: TextOut) -> None:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(DIFF_COLUMNS)
    for row in rows(diff):
        writer.writerow([_cell(row[c]) for c in DIFF_COLUMNS])


def _cell(value: Any) -> Any:
    """A CSV cell: nothing for none, a list (``fields``) as its names joined by commas."""
    if value is None:
        return ""
    return ",".join(value) if isinstance(value, list) else value


def write_parquet(diff: Diff, path: str) -> None:
    diff.con.execute(
        f"COPY (SELECT * FROM {diff.table} ORDER BY change, loc) TO {_quote(path)}"
        " (FORMAT parquet, COMPRESSION zstd)"
    )


def summary_json(diff: Diff) -> dict[str, Any]:
    """What a webhook or a script gets: sides, counts and examples."""
    return {
        "old": diff.old.label,
        "new": diff.new.label,
        "counts": diff.counts,
        "sections": diff.sections() or None,
        "examples": {
            kind: [{k: v for k, v in row.items() if v is not None} for row in found]
            for kind, found in diff.examples.items()
        },
    }

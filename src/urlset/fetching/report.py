"""What a fetch found, for people and programs: the ``--tree`` text and its JSON form.

In: a DiscoveryResult. Out: ``render_tree`` (the tree, an issue summary per document, and
the run's summary line), ``tree_json`` (the same as one JSON object, ``--tree --format
json``), and ``summary``, the line ``urlset fetch`` ends with. Documents come in document
order, so every run of the same site shows the same tree.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from ..codes import plural
from ..model import Issue
from .values import DiscoveryResult, NodeState, SitemapNode


def size_text(n: int) -> str:
    value = float(n)
    for unit in ("B", "KB", "MB", "GB"):
        if value < 1024 or unit == "GB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{n} B"


def _describe(node: SitemapNode) -> str:
    parts = [node.url]
    if node.final_url and node.final_url != node.url:
        parts.append(f"-> {node.final_url}")
    parts.append(f"[{node.state}]")
    if node.kind == "robots":
        parts.append("robots.txt")
        if node.ok:
            parts.append(f"{plural(node.ref_count, 'sitemap')} named")
    elif node.format:
        parts.append(node.format)
        if node.format == "sitemapindex":
            parts.append(plural(node.ref_count, "sitemap"))
        else:
            parts.append(plural(node.url_count, "URL"))
    if node.via == "well-known" and node.ok:
        parts.append("found at a well-known location")
    if node.state is NodeState.UNCHANGED:
        parts.append("not requested: index lastmod unchanged")
    elif node.status is not None:
        parts.append(f"HTTP {node.status}")
    if node.from_cache:
        parts.append("from cache")
    if node.bytes:
        parts.append(size_text(node.bytes))
    if node.seconds:
        parts.append(f"{node.seconds:.2f} s")
    return "  ".join(parts)


def _issue_lines(issues: list[Issue], limit: int = 6) -> list[str]:
    groups: dict[tuple[str, str], list[Issue]] = {}
    for issue in issues:
        groups.setdefault((str(issue.severity), issue.code), []).append(issue)
    order = {"error": 0, "warning": 1, "info": 2}
    lines = []
    for (severity, code), members in sorted(groups.items(), key=lambda kv: order[kv[0][0]]):
        first = members[0]
        where = f" (line {first.line})" if first.line else ""
        more = f" [x{len(members)}]" if len(members) > 1 else ""
        lines.append(f"{severity} {code}{more}: {first.message}{where}")
    if len(lines) > limit:
        lines = [*lines[:limit], f"... and {len(lines) - limit} more kinds of issue"]
    return lines


def render_tree(result: DiscoveryResult) -> str:
    lines: list[str] = []

    def visit(node: SitemapNode, prefix: str, last: bool, top: bool) -> None:
        branch = "" if top else ("└── " if last else "├── ")
        lines.append(prefix + branch + _describe(node))
        inner = prefix + ("" if top else ("    " if last else "│   "))
        for text in _issue_lines(node.issues):
            lines.append(inner + ("│ " if node.children else "  ") + "  " + text)
        for i, child in enumerate(node.children):
            visit(child, inner, i == len(node.children) - 1, False)

    for root in result.roots:
        visit(root, "", True, True)
    for text in _issue_lines(result.issues):
        lines.append(text)
    lines.append(summary(result))
    return "\n".join(lines) + "\n"


def _node_json(node: SitemapNode) -> dict[str, Any]:
    return {
        "url": node.url,
        "final_url": node.final_url,
        "kind": node.kind,
        "via": node.via,
        "state": str(node.state),
        "requested": node.requested,
        "status": node.status,  # null when no HTTP answer came (or none was asked for)
        "from_cache": node.from_cache,
        "format": node.format,
        "urls": node.url_count,
        "sitemaps": node.ref_count,
        "bytes": node.bytes,
        "seconds": round(node.seconds, 3),
        "issues": [_issue_json(i) for i in node.issues],
        "children": [_node_json(child) for child in node.children],
    }


def _issue_json(issue: Issue) -> dict[str, Any]:
    found: dict[str, Any] = {
        "code": issue.code,
        "severity": str(issue.severity),
        "message": issue.message,
    }
    if issue.line:
        found["line"] = issue.line
    if issue.hint:
        found["hint"] = issue.hint
    return found


def tree_json(result: DiscoveryResult) -> str:
    """The tree as one JSON object (``--tree --format json``), in document order."""
    outcome = "nothing" if result.nothing else "partial" if result.partial else "complete"
    data = {
        "start": result.start,
        "result": outcome,
        "sitemaps_read": result.sitemaps_read,
        "urls": result.url_count,
        "failed": len(result.failed),
        "read_in_part": len(result.incomplete),
        "errors": len(result.errors),
        "limits_hit": result.limits_hit,
        # left out on purpose by --follow and --since
        "not_followed": result.not_followed,
        "older_sitemaps": result.older_sitemaps,
        "older_urls": result.older_urls,
        "issues": [_issue_json(i) for i in result.issues],
        "roots": [_node_json(root) for root in result.roots],
    }
    return json.dumps(data, ensure_ascii=False, indent=2) + "\n"


def _path_of(url: str) -> str:
    parts = urlsplit(url)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def summary(result: DiscoveryResult) -> str:
    label = "PARTIAL result" if result.partial else "complete"
    if result.nothing:
        label = "nothing read"
    text = f"{plural(result.sitemaps_read, 'sitemap')} read, {plural(result.url_count, 'URL')}"
    if result.failed:
        text += f", {len(result.failed)} failed"
    if result.incomplete:
        text += f", {len(result.incomplete)} read in part"
    errors = len(result.errors)
    if errors:
        text += f", {plural(errors, 'error')}"
    if result.limits_hit:
        text += f", stopped by {', '.join(result.limits_hit)}"
    probed = [_path_of(n.url) for n in result.nodes() if n.via == "well-known" and n.ok]
    if probed:
        text += f", found at well-known locations: {', '.join(probed)}"
    left_out = [
        f"{plural(result.not_followed, 'index child', 'index children')} not matching --follow"
        if result.not_followed
        else "",
        f"{plural(result.older_sitemaps, 'index child', 'index children')} older than --since"
        if result.older_sitemaps
        else "",
        f"{plural(result.older_urls, 'URL')} older than --since (or undated)"
        if result.older_urls
        else "",
    ]
    chosen = [part for part in left_out if part]
    if chosen:
        text += f" (left out: {'; '.join(chosen)})"
    return f"{text}: {label}"

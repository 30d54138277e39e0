"""mkdocs hook: the rule table of docs/reference/rules.md, generated from the code's own table
(``urlset.checking.rules.all_codes``), so the page can never disagree with what urlset reports.

If that table moves or its rows change shape, the build fails here and says what it expected,
rather than publishing a stale or empty page.
"""

from __future__ import annotations

from typing import Any

from mkdocs.exceptions import PluginError

PLACEHOLDER = "<!-- rule-table -->"


def rule_table() -> str:
    try:
        from urlset.checking.rules import all_codes

        rows = all_codes()
        lines = [
            "| Code | Severity | Problem | What to do | Search Console |",
            "| --- | --- | --- | --- | --- |",
        ]
        for code, row in sorted(rows.items()):
            cells = [f"`{code}`", row.severity.value, row.title, row.hint, row.gsc or ""]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    except (ImportError, AttributeError, TypeError) as error:
        raise PluginError(
            "docs/hooks/rules.py: the rule table is generated from "
            "urlset.checking.rules.all_codes(), a dict of code -> row with .severity (a Severity), "
            f".title, .hint and .gsc; that is no longer so ({error!r}): update the hook"
        ) from error
    if len(lines) < 2 + 20:
        raise PluginError(f"docs/hooks/rules.py: only {len(lines) - 2} codes: is that the table?")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri != "reference/rules.md":
        return markdown
    if PLACEHOLDER not in markdown:
        raise PluginError(f"docs/reference/rules.md has lost its {PLACEHOLDER} line")
    return markdown.replace(PLACEHOLDER, rule_table())

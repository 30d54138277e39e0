"""The look of every HTML page urlset makes (the reports, the HTML view ``urlset serve`` and
the serve apps give browsers): one stylesheet, inlined in each page (nothing is fetched when
a page is viewed), and numbers written one way.

Beside ``sitemap.xsl``, the look of a sitemap in a browser that applies XSLT.
"""

from __future__ import annotations

from ..codes import plural

PAGE_CSS = """
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


def number(n: int | float) -> str:
    """A count with thousands separators (``1,000``); a fraction with one place."""
    return f"{n:,}" if isinstance(n, int) else f"{n:,.1f}"


def count(n: int, noun: str) -> str:
    """``1 URL``, ``2 URLs``: the number with its noun, plural when it is not one."""
    return plural(n, noun)

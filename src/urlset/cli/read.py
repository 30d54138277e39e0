"""``urlset read SOURCE``: print the entries of any sitemap (JSON Lines, CSV, TSV or locs).

Issues go to standard error (or as JSON to ``--issues-json FILE``). Exit status: 0 read
completely (warnings allowed), 1 errors found (what could be read is still written), 2 the
source could not be read at all, or a usage error.

This module is the command and its options only (what ``urlset read --help`` needs); the
reading and writing load from ``read_run`` when the command runs.
"""

from __future__ import annotations

import click

from .lean import FORMATS  # the lean parse of the console script (cli/lean.py) shares them


@click.command(name="read")
@click.argument("source")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="jsonl",
    show_default=True,
    help="Output format: JSON Lines, CSV, TSV, or bare locs.",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write entries to FILE.")
@click.option(
    "--issues-json",
    type=click.Path(dir_okay=False),
    help="Write the issues as a JSON array to FILE instead of standard error.",
)
@click.option("--base-url", help="The URL the document came from: resolves relative locs.")
@click.option(
    "-q", "--quiet", is_flag=True, help="Print only errors to standard error (no warnings)."
)
@click.option(
    "--max-bytes",
    type=click.IntRange(min=1),
    default=None,
    help="Stop after this many decompressed bytes (default 200 MiB).",
)
@click.option(
    "--snapshot",
    type=click.Path(dir_okay=False),
    help="Also store the entries and issues as a run in this snapshot store (DuckDB file).",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also print how many entries the compiled core rendered and, per reason, how many "
    "it passed to the Python reader (a speed diagnostic).",
)
def read(
    source: str,
    fmt: str,
    output: str | None,
    issues_json: str | None,
    base_url: str | None,
    quiet: bool,
    max_bytes: int | None,
    snapshot: str | None = None,
    verbose: bool = False,
) -> None:
    """Read SOURCE (a file path, or - for standard input) and print its entries.

    Every format is recognised by content: gzip, urlset, sitemapindex, RSS, Atom, text.
    """
    from .read_run import run

    run(source, fmt, output, issues_json, base_url, quiet, max_bytes, snapshot, verbose=verbose)

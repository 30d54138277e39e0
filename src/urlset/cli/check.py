"""``urlset check PATH...``: validate sitemaps the way a search engine does.

Files, directories (every sitemap in them; an index's children are resolved inside the
directory through ``--base-url``) and ``-`` for standard input. Output: text grouped by
file, one line per code with its count and first places (``checking.text``), and a summary
line; or ``--format json`` / ``--format sarif``, which list each finding (up to 1,000 per
code and file; the totals count them all), or ``--format html`` (a report page with charts;
the ``report`` extra), to standard output or ``-o FILE``. Exit status: 0 clean, 1 issues at
or above ``--fail-on`` (a missing or unreadable child among them), 2 a usage error or a run
that could not start (a file named that cannot be read, a start URL not fetched).

This module is the command and its options only (what ``urlset check --help`` needs); the
check and its report load from ``check_run`` when the command runs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..limits import PROFILES
from .lean import CHECK_FAIL_ON, CHECK_FORMATS  # the lean parse (cli/lean.py) shares them
from .shared import allow_private_option

if TYPE_CHECKING:
    from datetime import datetime


@click.command(
    "check", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.argument("paths", nargs=-1, required=True, metavar="PATH_OR_URL...")
@click.option(
    "--base-url",
    metavar="URL",
    help="URL the directory (or the single file) is served at: sets the scope of URLs and "
    "resolves an index's children inside the directory.",
)
@click.option(
    "--sitemap-url",
    metavar="URL",
    help="With --base-url: URL the directory is served at when it is another host or path "
    "than --base-url, the URLs' scope (a set built with `build --sitemap-url`, listed in the "
    "robots.txt of --base-url's host: cross-submission).",
)
@click.option(
    "--profile",
    type=click.Choice(sorted(PROFILES)),
    default="current",
    show_default=True,
    help="Protocol limits to check against.",
)
@click.option(
    "--format", "fmt", type=click.Choice(CHECK_FORMATS), default="text", show_default=True
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@click.option(
    "--fail-on",
    type=click.Choice(CHECK_FAIL_ON),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit status 1.",
)
@click.option("--schema", is_flag=True, help="Also validate against the protocol's XML schema.")
@click.option(
    "--now",
    metavar="DATETIME",
    help="The time a lastmod may not be after (default: the clock); for reproducible checks.",
)
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="Text: only the files with errors and their errors (no warnings, no summary).",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="For URLs: end the whole run after this long, with what was read (as fetch does).",
)
@allow_private_option("the URL's own host", when="For URLs: ")
def check(
    paths: tuple[str, ...],
    base_url: str | None,
    profile: str,
    fmt: str,
    fail_on: str,
    schema: bool,
    now: str | None,
    output: str | None,
    quiet: bool,
    deadline: float | None,
    allow_private: bool,
    sitemap_url: str | None,
) -> None:
    """Validate sitemaps (files, directories, - for standard input).

    A directory is checked whole: every file whose content is a sitemap (XML, gzip or
    not, or text listing URLs); the others are listed as left out, with why. Each index's
    children are looked up in it (through --base-url, or by their URL path beside the
    index) and compared with the index; a missing child is an error.

    An http(s) URL is fetched as `urlset fetch` does (a site's robots.txt and well-known
    locations, an index's children; retries, concurrency, caps) and every sitemap found is
    checked the same way, each index compared with its children.

    Exit status: 0 clean, 1 issues at or above --fail-on (a listed sitemap that is
    missing or cannot be read is one), 2 usage error or a run that could not start (a file
    named that cannot be read, a start URL not fetched).
    """
    from .check_run import run  # the check: none of it for --help
    from .streams import UsageProblem, usage_error

    try:
        run(
            paths,
            base_url,
            profile,
            fmt,
            fail_on,
            schema,
            now,
            output,
            quiet,
            deadline,
            allow_private,
            sitemap_url,
        )
    except UsageProblem as problem:
        raise usage_error(problem) from None


def parse_now(text: str | None) -> datetime:
    """--now as check reads it, a value it refuses a usage error (audit's --now too)."""
    from .check_run import parse_now as parsed
    from .streams import UsageProblem, usage_error

    try:
        return parsed(text)
    except UsageProblem as problem:
        raise usage_error(problem) from None

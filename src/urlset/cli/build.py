"""``urlset build``: URL lists in, a published sitemap set out.

This module is the command and its options only (what ``urlset build --help`` needs); the
writer and the sources load from ``build_run`` when the command runs.
"""

from __future__ import annotations

import gc
import re
from datetime import timedelta
from typing import Any

import click

from ..patterns import lazy

# the lean parse (cli/lean.py) shares them: written out there, so that the options load
# without the writer and the limits
from .lean import BUILD_FORMATS, INPUT_FORMATS, PROFILES
from .site_sources import crawl_limits, directory_options, log_options

# compiled with the first --news-window: not for --help, nor a build without it
_SPAN = lazy(r"(\d+)\s*(d|h|m)", re.IGNORECASE)
_UNITS = {"d": "days", "h": "hours", "m": "minutes"}


def news_window(value: str | None) -> timedelta | None:
    """``--news-window``: a span such as 2d, 36h or 90m (at most two days)."""
    if value is None:
        return None
    m = _SPAN.fullmatch(value.strip())
    span = None if m is None else timedelta(**{_UNITS[m[2].lower()]: int(m[1])})
    if span is None or not timedelta(0) < span <= timedelta(days=2):
        raise click.BadParameter(
            f"{value!r}: give a span of at most two days (news sitemaps list the articles of "
            "the last two days), e.g. 2d, 36h or 90m",
            param_hint="--news-window",
        )
    return span


@click.command()
@click.argument("sources", nargs=-1, metavar="[SOURCE]...")
@click.option(
    "--base-url",
    required=True,
    help="Directory URL every URL must lie under, and the one the sitemap files will be "
    "served from unless --sitemap-url names another.",
)
@click.option(
    "--sitemap-url",
    help="Directory URL the sitemap files will be served from, on another host or path than "
    "--base-url: the index and the printed Sitemap: lines name it, and the robots.txt of "
    "--base-url's host must list those lines.",
)
@click.option(
    "--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Output directory."
)
@click.option(
    "--input-format",
    type=click.Choice(INPUT_FORMATS),
    help="Format of the sources (default: from the file name).",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(BUILD_FORMATS),
    default="xml",
    show_default=True,
    help="Write XML sitemaps or plain-text ones.",
)
@click.option("--gzip/--no-gzip", default=True, show_default=True, help="Write .gz files.")
@click.option(
    "--profile",
    "profile_name",
    type=click.Choice(PROFILES),
    default="current",
    show_default=True,
    help="Protocol limits to split by.",
)
@click.option("--max-urls", type=int, help="A lower URL limit per file.")
@click.option("--max-bytes", type=int, help="A lower byte limit per (uncompressed) file.")
@click.option("--prefix", default="sitemap", show_default=True, help="File name prefix.")
@click.option("--xsl", help="URL of an XSL stylesheet to reference.")
@click.option(
    "--stylesheet",
    is_flag=True,
    help="Publish urlset's XSL stylesheet as sitemap.xsl beside the set and reference it.",
)
@click.option("--schema-location", is_flag=True, help="Write the xsi:schemaLocation header.")
@click.option(
    "--skip-out-of-scope",
    is_flag=True,
    help="Skip URLs outside the base URL's scope instead of failing.",
)
@click.option(
    "--no-dedupe",
    is_flag=True,
    help="Skip duplicate detection (about 2.3 bytes of memory per URL, the rest spilled to disk) when the input is known unique.",
)
@click.option(
    "--strict", is_flag=True, help="Fail on the first bad input line and publish nothing."
)
@click.option(
    "--timezone",
    "tz_name",
    help="Zone for lastmod times written without one (UTC, +02:00, Europe/Paris).",
)
@click.option(
    "--news-window",
    metavar="SPAN",
    callback=lambda _ctx, _param, value: news_window(value),
    help="Keep the news of articles published in this last span (2d, 36h, 90m; at most 2d, "
    "as news sitemaps require): older articles are written without their <news:news>, "
    "and counted.",
)
@click.option(
    "--exclude",
    "exclude",
    multiple=True,
    metavar="PATTERN",
    help="Leave out the URLs of list inputs that PATTERN matches, counted in the report: a "
    "path glob as --section takes ('/admin/**', '/drafts/*': * within a segment, ** across "
    "them; the query aside), or re:REGEX searched anywhere in the URL ('re:[?&]sessionid='). "
    "Repeatable; relative locs are matched once resolved.",
)
@click.option(
    "--report",
    "report_path",
    type=click.Path(dir_okay=False, writable=True),
    help="Write every left-out or changed input line here as JSON Lines "
    "(source, line, code, severity, message).",
)
@click.option(
    "--robots",
    "robots_path",
    type=click.Path(dir_okay=False),
    help="Once published, list the set's entry points in this robots.txt (its Sitemap: lines "
    "for an earlier build of the set are replaced; every other byte is kept).",
)
@click.option(
    "--section-by",
    "section_by",
    metavar="RULE",
    help="Write the set by section, each section's files named after it and all listed in "
    "the index: path:N takes the first N directory segments of each URL's path (/blog/2024/x "
    "is in blog at 1, blog-2024 at 2; a page at the root in 'other'); column:section takes "
    "the input's section column (CSV, TSV) or key (JSON Lines), a blank one 'other'.",
)
@click.option(
    "--section",
    "section_patterns",
    multiple=True,
    metavar="NAME=GLOB",
    help="A named section of URLs whose path matches GLOB (* within a segment, ** across "
    "them: --section products='/p/*' --section blog='/blog/**'); repeatable, the first match "
    "wins, the rest go to 'other'.",
)
@click.option(
    "--include-sitemap",
    "include_sitemaps",
    multiple=True,
    metavar="URL",
    help="Another generator's sitemap (or index) to list in the index beside the set's own "
    "files; repeatable. It must be on the index's own site (scheme, host and port). The set "
    "then always has an index; --update keeps the ones the set has unless given others.",
)
@click.option(
    "--include-sitemaps",
    "include_list",
    type=click.Path(dir_okay=False),
    metavar="FILE",
    help="A file of such sitemap URLs, one a line ('#' comments).",
)
@click.option(
    "--include-fetch",
    is_flag=True,
    help="Download each included sitemap (an index's children one level down) and give its "
    "index entry the newest lastmod it lists; one that cannot be read is listed as given, "
    "with a warning.",
)
@click.option(
    "--stable",
    is_flag=True,
    help="Shard URLs by the URL (its section, directory and place there, so neighbours "
    "share files) and keep a manifest beside the set, so that --update can change it later "
    "by writing only the shards that change.",
)
@click.option(
    "--update",
    is_flag=True,
    help="Change the stable set in --out instead of building it again: SOURCES hold URLs to "
    "add or to write with new values (implies --stable; give the options the set was built "
    "with).",
)
@click.option(
    "--remove",
    "remove_paths",
    multiple=True,
    type=click.Path(dir_okay=False),
    help="With --update: a file of locs to take out of the set, one a line ('#' comments).",
)
@click.option(
    "--changes",
    "changes_path",
    type=click.Path(dir_okay=False, writable=True),
    help="With --stable or --update: write every URL added, removed or changed against the "
    "set in --out here as JSON Lines (loc, change, and for a changed URL its fields).",
)
@click.option(
    "--dask",
    "dask_scheduler",
    metavar="SCHEDULER",
    help="Build on a Dask cluster: the scheduler's address (tcp://host:8786), or 'local' for "
    "a local cluster. SOURCES are Parquet (a file or a directory of parts), CSV, TSV or JSON "
    "Lines, paths or fsspec URLs; the set is the one --stable writes (pip install "
    "'urlset[dask]').",
)
@click.option(
    "--quiet", "-q", is_flag=True, help="Print nothing but errors (entries skipped), no warnings."
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="Also print how many input rows went the per-entry Python way instead of the "
    "compiled core, per reason (a speed diagnostic).",
)
@directory_options
@log_options
@crawl_limits
def build(**params: Any) -> None:
    """Write a sitemap set from URL lists (text, CSV, TSV or JSON Lines; '-' is stdin), a
    site's output folder (its HTML files), --access-log files or a --crawl.

    Splits at 50,000 URLs and at the byte limit, writes an index when there is more than one
    file, and publishes atomically into --out. Exit status: 0 written (skipped lines are
    reported), 1 rejected input under --strict or a limit that cannot be met, 2 usage or I/O.
    """
    # the writer and the sources load when it runs, without the cyclic collector, which
    # would walk their new objects a few times over, and are kept out of its later walks
    # (frozen): they live as long as the process (as cli/lean.py loads the reader)
    gc.disable()
    try:
        from .build_run import build_sitemaps
    finally:
        gc.freeze()
        gc.enable()
    from .streams import UsageProblem, usage_error

    try:
        build_sitemaps(**params)
    except UsageProblem as problem:
        raise usage_error(problem) from None

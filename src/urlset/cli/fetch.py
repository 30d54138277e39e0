"""``urlset fetch``: discover a site's sitemaps, download and read them, write the URLs.

The command only wires options to the driver (http.py) and writes what it gets; the rules
live in discovery.py. Exit status: 0 every sitemap fetched and read, 1 some failed or a cap
cut the result short (what was read is still written, and the result is labelled partial
on stderr), 2 nothing could be read, or a usage or output error.

This module is the command, its options and the checks of how they combine (what ``urlset
fetch --help`` and a usage error need); the run, with discovery, the parse threads and
aiohttp, loads from ``fetch_run`` once the options are good. The defaults and choices the
options share with the implementation are written out here, and tests/test_startup.py
holds them equal.
"""

from __future__ import annotations

import re
from datetime import datetime

import click

from .shared import FETCH_DASK, FETCH_SITES, network_options

FORMATS = ("jsonl", "csv", "tsv", "locs", "parquet")
TREE_FORMATS = ("json",)  # --tree --format json: the tree as one JSON object
# fetching.http_options.DEFAULT_USER_AGENT
DEFAULT_USER_AGENT = "urlset/0.1 (sitemap fetcher; +https://www.sitemaps.org/protocol.html)"


def _parquet_available() -> bool:
    import importlib.util

    return importlib.util.find_spec("pyarrow") is not None


# ----------------------------------------------------------------------------- command
def _target(value: str | None) -> tuple[str, bool]:
    """The start URL, and whether it was given without a scheme: then it is https, with a
    fallback to http when https cannot be connected to. No URL: "" with --sites."""
    if (value is None) != bool(click.get_current_context().meta.get(FETCH_SITES)):
        raise click.UsageError("give either SITE_OR_SITEMAP_URL or --sites FILE")
    if value is None:
        return "", False
    from ..errors import InvalidValue
    from ..urls import to_uri

    text = value.strip()
    bare = "://" not in text
    if bare:
        text = "https://" + text
    try:
        return to_uri(text, field="URL"), bare
    except InvalidValue as exc:
        raise click.BadParameter(str(exc), param_hint="SITE_OR_SITEMAP_URL") from None


@click.command("fetch")
@click.argument("site_or_sitemap_url", metavar="SITE_OR_SITEMAP_URL", required=False)
@click.option("--tree", is_flag=True, help="Show the sitemap tree instead of the URLs.")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(FORMATS + TREE_FORMATS),
    default="jsonl",
    show_default=True,
    help="Output format for the URLs (parquet needs pyarrow); with --tree, json writes the "
    "tree as JSON.",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False),
    help="Keep ETag/Last-Modified and results here; a re-run downloads only what changed.",
)
@click.option(
    "--revalidate",
    is_flag=True,
    help="With --cache: ask the server about every sitemap (conditionally), even one whose "
    "index lastmod says it did not change.",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds for the whole run; what is read by then is written, labelled partial.",
)
@click.option("--concurrency", type=click.IntRange(1, 512), default=16, show_default=True)
@click.option("--per-host", type=click.IntRange(1, 128), default=6, show_default=True)
@network_options(
    timeout=300.0,
    timeout_help="Seconds for one whole download; connecting and each read are bounded too.",
    private_hosts="the start's host",
    refused="a sitemap, redirect or robots.txt line leading to another is refused",
    user_agent=DEFAULT_USER_AGENT,
)
@click.option("--max-depth", type=click.IntRange(0, 100), default=5, show_default=True)
@click.option("--max-sitemaps", type=click.IntRange(1), default=10_000, show_default=True)
@click.option("--max-urls", type=click.IntRange(1), default=50_000_000, show_default=True)
@click.option(
    "--well-known",
    multiple=True,
    help="A path to try when robots.txt names no sitemap (repeat; replaces the default list).",
)
@click.option(
    "--follow",
    metavar="REGEX",
    callback=lambda _ctx, _param, value: _regex(value),
    help="Download only the index children whose URL this regular expression matches "
    "(searched anywhere in it); robots.txt's sitemaps and the start are always read.",
)
@click.option(
    "--since",
    metavar="DATE",
    callback=lambda _ctx, _param, value: _since(value),
    help="Only entries whose lastmod is DATE or later (W3C: 2026-11-01 or "
    "2026-11-01T08:00:00Z); index children whose lastmod is earlier are not downloaded.",
)
@click.option(
    "--always-probe",
    is_flag=True,
    help="Try the well-known locations even when robots.txt names sitemaps.",
)
@click.option(
    "--follow-cross-host",
    is_flag=True,
    help="Follow index children on other hosts (or other ports of its host) too.",
)
@click.option(
    "--workers",
    type=click.IntRange(0, 64),
    default=None,
    help="Threads that parse (default: one per core when there are several; 0: parse "
    "on the event loop).",
)
@click.option(
    "--snapshot",
    type=click.Path(dir_okay=False),
    help="Also store this run (entries, issues) in this snapshot store (a DuckDB file).",
)
@click.option(
    "--report",
    type=click.Path(dir_okay=False),
    help="Also write an HTML report here: the tree, issues, charts of lastmod and sections "
    "(the report extra).",
)
@click.option(
    "--sites",
    type=click.Path(dir_okay=False, exists=True),
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _, value: ctx.meta.update({FETCH_SITES: value}),
    help="Fetch every site listed in this file (one URL a line, '#' comments) on a Dask "
    "cluster into a Parquet dataset in the new directory -o names: urls/, issues/ and sites/ "
    "(a summary row per site), one file a batch of sites (pip install 'urlset[dask]').",
)
@click.option(
    "--dask",
    metavar="SCHEDULER",
    expose_value=False,
    callback=lambda ctx, _, value: ctx.meta.update({FETCH_DASK: value}),
    help="With --sites: the Dask scheduler's address (tcp://host:8786); default: a local cluster.",
)
@click.option(
    "-q", "--quiet", is_flag=True, help="Only errors on stderr: no progress, warnings or summary."
)
def fetch(
    site_or_sitemap_url: str,
    tree: bool,
    fmt: str,
    output: str | None,
    cache_dir: str | None,
    revalidate: bool,
    deadline: float | None,
    user_agent: str,
    concurrency: int,
    per_host: int,
    timeout: float,
    read_timeout: float,
    retries: int,
    max_depth: int,
    max_sitemaps: int,
    max_urls: int,
    well_known: tuple[str, ...],
    follow: str | None,
    since: datetime | None,
    always_probe: bool,
    follow_cross_host: bool,
    allow_private: bool,
    workers: int | None,
    snapshot: str | None,
    report: str | None,
    quiet: bool,
) -> None:
    """Discover and download the sitemaps of SITE_OR_SITEMAP_URL and write their URLs.

    Give a site (https://example.com: robots.txt, then well-known places) or a sitemap or
    index URL. Without a scheme (example.com) https is tried first, then http if https
    cannot be connected to (reported). Exit status: 0 all read, 1 some sitemaps failed or
    were read in part, an error was found, a cap or the deadline was reached (the rest is
    written; the result is labelled partial), 2 nothing read or a usage error.
    """
    start, bare = _target(site_or_sitemap_url)
    _check_format(fmt, tree, output, report)
    from .fetch_run import run

    run(
        start,
        bare,
        tree=tree,
        fmt=fmt,
        output=output,
        cache_dir=cache_dir,
        revalidate=revalidate,
        deadline=deadline,
        user_agent=user_agent,
        concurrency=concurrency,
        per_host=per_host,
        timeout=timeout,
        read_timeout=read_timeout,
        retries=retries,
        max_depth=max_depth,
        max_sitemaps=max_sitemaps,
        max_urls=max_urls,
        well_known=well_known,
        follow=follow,
        since=since,
        always_probe=always_probe,
        follow_cross_host=follow_cross_host,
        allow_private=allow_private,
        workers=workers,
        snapshot=snapshot,
        report=report,
        quiet=quiet,
    )


def _regex(value: str | None) -> str | None:
    if value is not None:
        try:
            re.compile(value)
        except re.error as exc:
            raise click.BadParameter(
                f"{value!r} is not a regular expression: {exc}", param_hint="--follow"
            ) from None
    return value


def _since(value: str | None) -> datetime | None:
    from ..dates import instant, parse_w3c
    from ..errors import InvalidValue

    if value is None:
        return None
    try:
        return instant(parse_w3c(value.strip()))
    except InvalidValue:
        raise click.BadParameter(
            f"{value!r} is not a W3C date: give YYYY-MM-DD or YYYY-MM-DDThh:mm:ssZ "
            "(or with +hh:mm)",
            param_hint="--since",
        ) from None


def _check_format(fmt: str, tree: bool, output: str | None, report: str | None = None) -> None:
    if report is not None:  # before anything is fetched
        from .streams import need_report_extra

        need_report_extra()
    if fmt in TREE_FORMATS and not tree:
        raise click.UsageError(f"--format {fmt} is a format of --tree; for URLs use jsonl")
    if fmt == "parquet" and not tree:
        if not _parquet_available():
            raise click.UsageError(
                "--format parquet needs pyarrow, which is not installed "
                "(pip install 'urlset[arrow]'); use jsonl, csv, tsv or locs"
            )
        if output is None:
            raise click.UsageError("--format parquet writes a file: give -o FILE")


__all__ = ["fetch"]

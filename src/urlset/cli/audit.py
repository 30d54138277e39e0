"""``urlset audit SITE|SITEMAP|DIR``: are the listed URLs pages a search engine would index?

Each listed URL (or a reproducible ``--sample``) is requested politely (``auditing.driver``)
and judged (``auditing.rules``). Output: a text report (status mix, each finding's code with
its count, Search Console's name, first examples and hint), ``--format json`` (the summary),
``jsonl`` (one line per URL as it is audited), ``sarif``, ``html`` (a report page with
charts; the ``report`` extra). Exit status: 0 nothing at or above
``--fail-on``, 1 findings, 2 a usage error or nothing that could be audited.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import click

from .check import parse_now
from .check_run import open_output, package_version
from .shared import network_options
from .streams import Output, need_report_extra, output_errors

if TYPE_CHECKING:
    from ..auditing.driver import AuditOptions

FORMATS = ("text", "json", "jsonl", "sarif", "html")


@click.command(
    "audit", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.argument("target", metavar="SITE|SITEMAP|DIR")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@click.option(
    "--concurrency",
    type=click.IntRange(1, 1024),
    default=16,
    show_default=True,
    help="Requests in flight at once.",
)
@click.option(
    "--per-host",
    type=click.IntRange(1, 256),
    default=8,
    show_default=True,
    help="Requests in flight to one host at once.",
)
@click.option(
    "--rate",
    type=click.FloatRange(min=0, min_open=True),
    help="Requests a second to one host at most (robots.txt's Crawl-delay holds too).",
)
@click.option(
    "--sample",
    type=click.IntRange(min=1),
    metavar="N",
    help="Audit N URLs drawn at random (the same N for the same --seed); counts over the "
    "whole list are then estimated, with their 95% interval.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="The sample's seed.")
@click.option(
    "--deadline",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="End the run after this long; URLs not requested by then are counted.",
)
@click.option(
    "--snapshot",
    type=click.Path(dir_okay=False),
    metavar="DB",
    help="Store each result in this DuckDB file as it comes: an interrupted audit of the "
    "same target goes on where it stopped, and a finished one says what changed since the "
    "last.",
)
@click.option(
    "--crawl",
    is_flag=True,
    help="Also crawl the site from its home page (after the audit): report indexable linked "
    "pages no sitemap lists, and listed URLs no page links to (orphans).",
)
@click.option(
    "--max-pages",
    type=click.IntRange(min=1),
    default=10_000,
    show_default=True,
    help="--crawl: pages requested at most (orphans are judged only when the crawl ends first).",
)
@click.option(
    "--head",
    type=click.Choice(("auto", "always", "never")),
    default="auto",
    show_default=True,
    help="HEAD before GET: auto for URLs whose path names a type other than HTML (.pdf, "
    "images, archives), always, or never. GET follows for HTML, and for a host that answers "
    "HEAD with 405/501 or unlike GET.",
)
@network_options(
    timeout=60.0,
    timeout_help="Seconds for one page, redirects and retries included.",
    private_hosts="the audited site's host",
)
@click.option(
    "--fail-on",
    type=click.Choice(("error", "warning")),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit status 1.",
)
@click.option(
    "--now",
    metavar="DATETIME",
    help="The time a lastmod may not be after (default: the clock).",
)
def audit(target: str, fmt: str, output: str | None, fail_on: str, **settings: Any) -> None:
    """Request every URL that SITE's sitemaps (or the sitemap SITEMAP, or the sitemaps in
    DIR) list, politely, and report what keeps a search engine from indexing it: redirects
    (chains, loops), 4xx, 5xx, timeouts, noindex (meta or X-Robots-Tag), a canonical naming
    another URL, robots.txt disallows (never requested), non-HTML types; lastmods against
    Last-Modified, in the future or the same everywhere; URLs in several sitemaps or under
    several forms of one page.

    robots.txt is read first for each host; its Crawl-delay (or --rate, whichever is
    slower) spaces requests, and 429/Retry-After is waited for.

    Exit status: 0 nothing at or above --fail-on, 1 findings, 2 usage error or nothing
    could be audited.
    """
    from ..auditing.driver import Audit, AuditError, UrlResult
    from ..auditing.output import sarif, summary, text_lines
    from ..model import Severity

    options = _options(settings)
    if fmt == "html":
        need_report_extra()
    with output_errors("audit", closed_pipe_status=1):
        out: Output = open_output(output)
        on_result = None
        if fmt == "jsonl":

            def on_result(result: UrlResult) -> None:
                out.write(json.dumps(result.to_dict(), ensure_ascii=False) + "\n")

        try:
            report = Audit(target, options, on_result).run_sync()
        except AuditError as exc:
            click.echo(f"urlset audit: error: {exc}", err=True)
            sys.exit(2)
        if fmt == "text":
            for line in text_lines(report):
                out.write(line + "\n")
        elif fmt == "html":
            from ..auditing.html import audit_html

            out.write(audit_html(report, options.now))
        elif fmt in ("json", "sarif"):
            data = summary(report) if fmt == "json" else sarif(report, package_version())
            json.dump(data, out, indent=2, ensure_ascii=False)
            out.write("\n")
        out.flush()
        if output is not None:
            out.close()
    worst = report.worst()
    floor = (Severity.ERROR,) if fail_on == "error" else (Severity.ERROR, Severity.WARNING)
    sys.exit(1 if worst in floor else 0)


def _options(settings: dict[str, Any]) -> AuditOptions:
    """The command's options as AuditOptions (the fetcher's settings inside)."""
    from dataclasses import replace

    from ..auditing.driver import AuditOptions
    from ..fetching.http_options import RetryPolicy

    options = AuditOptions(
        concurrency=settings["concurrency"], per_host=settings["per_host"],
        rate=settings["rate"], sample=settings["sample"], seed=settings["seed"],
        now=parse_now(settings["now"]), snapshot=settings["snapshot"],
        crawl=settings["crawl"], crawl_pages=settings["max_pages"], head=settings["head"],
    )  # fmt: skip
    http = replace(
        options.http, deadline=settings["deadline"], total_timeout=settings["timeout"],
        read_timeout=settings["read_timeout"], retry=RetryPolicy(attempts=settings["retries"] + 1),
        allow_private=settings["allow_private"],
    )  # fmt: skip
    if settings["user_agent"]:
        http = replace(http, user_agent=settings["user_agent"])
    return replace(options, http=http)

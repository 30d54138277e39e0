"""``urlset check PATH...``: validate sitemaps the way a search engine does.

Files, directories (every sitemap in them; an index's children are resolved inside the
directory through ``--base-url``) and ``-`` for standard input. Output: text grouped by
file, one line per code with its count and first places (``checking.text``), and a summary
line; or ``--format json`` / ``--format sarif``, which list each finding (up to 1,000 per
code and file; the totals count them all), or ``--format html`` (a report page with charts;
the ``report`` extra), to standard output or ``-o FILE``. Exit status: 0 clean, 1 issues at
or above ``--fail-on`` (a missing or unreadable child among them), 2 a usage error or a run
that could not start (a file named that cannot be read, a start URL not fetched).
"""

from __future__ import annotations

import gc
import sys
import time
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, BinaryIO

import click

from ..limits import PROFILES
from .shared import allow_private_option
from .streams import Output, OutputError, need_report_extra, output_errors, target_name

if TYPE_CHECKING:
    from ..checking.checker import CheckReport

FORMATS = ("text", "json", "sarif", "html")


def _parse_now(text: str | None) -> datetime:
    if text is None:
        return datetime.now(UTC)
    value = text.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise click.BadParameter(
            f"{text!r} is not a date (YYYY-MM-DD) or a datetime with zone", param_hint="--now"
        ) from None
    if parsed.tzinfo is None:
        raise click.BadParameter("give the zone, e.g. 2026-01-01T00:00:00Z", param_hint="--now")
    return parsed


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
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@click.option(
    "--fail-on",
    type=click.Choice(("error", "warning")),
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
    moment = _parse_now(now)
    if fmt == "html":
        need_report_extra()
    try:
        code = _run(
            paths,
            base_url,
            profile,
            fmt,
            fail_on,
            schema,
            moment,
            output,
            deadline,
            quiet,
            allow_private,
            sitemap_url,
        )
    except click.ClickException:
        raise
    except Exception as exc:  # never a traceback: report and exit 2
        click.echo(f"urlset check: {type(exc).__name__}: {exc}", err=True)
        code = 2
    sys.exit(code)


def _run(
    paths: tuple[str, ...],
    base_url: str | None,
    profile: str,
    fmt: str,
    fail_on: str,
    schema: bool,
    now: datetime,
    output: str | None = None,
    deadline: float | None = None,
    quiet: bool = False,
    allow_private: bool = False,
    sitemap_url: str | None = None,
) -> int:
    # loaded without the cyclic collector, then frozen out of its walks (as cli/lean.py's)
    gc.disable()
    try:
        from ..checking.checker import CheckOptions, check_paths
    finally:
        gc.freeze()
        gc.enable()
    from ..errors import InvalidValue
    from ..limits import profile as get_profile
    from ..urls import to_uri

    for option, value in (("--base-url", base_url), ("--sitemap-url", sitemap_url)):
        if value is not None:
            try:
                to_uri(value, field=option[2:].replace("-", " ").replace("url", "URL"))
            except InvalidValue as exc:
                raise click.BadParameter(str(exc), param_hint=option) from None
    if sitemap_url is not None and base_url is None:
        raise click.UsageError("--sitemap-url needs --base-url, the URLs' scope")
    options = CheckOptions(limits=get_profile(profile), base_url=base_url, now=now, schema=schema)
    if sitemap_url is not None:  # the files are served there; their URLs lie under base_url
        options = replace(options, base_url=sitemap_url, url_scope=base_url)
    urls = [p for p in paths if p.lower().startswith(("http://", "https://"))]
    local = [p for p in paths if p not in urls]
    stdin: BinaryIO | None = sys.stdin.buffer if "-" in local else None
    counter = None
    if fmt == "html":  # the report's URL charts count what the checker reads, as it reads
        from ..reports.gather import UrlCounter

        counter = UrlCounter()
    report = check_paths(local, replace(options, on_urls=counter), stdin=stdin)
    if urls:
        from ..fetching.http import HttpOptions
        from ..sitecheck.driver import check_site

        # --deadline bounds the whole run: each URL gets the time the ones before it left
        ends = None if deadline is None else time.monotonic() + deadline
        for url in urls:
            left = None if ends is None else max(ends - time.monotonic(), 0.001)
            http = HttpOptions(deadline=left, allow_private=allow_private)
            site = check_site(url, replace(options, base_url=None), http=http)
            report.files.extend(site.files)
            report.not_started.extend(site.not_started)
    # 2 only when the run could not start from an argument; what it found is 1
    status = 2 if report.not_started else 1 if report.failed(fail_on) else 0
    # a closed pipe still ends with the findings' status: the report was made
    with output_errors("check", closed_pipe_status=status):
        out = _open(output)
        if fmt == "html":
            from ..reports.gather import check_page

            assert counter is not None
            out.write(check_page(report, options.limits, counter, now))
        elif fmt in ("json", "sarif"):
            import json  # the text report, the usual one, needs none

            found = report.to_dict() if fmt == "json" else report.to_sarif(version=_version())
            json.dump(found, out, indent=2, ensure_ascii=False)
            out.write("\n")
        else:
            _text(report, out, quiet)
        out.flush()
        if output is not None:
            out.close()
    return status


def _open(output: str | None) -> Output:
    if output is None:
        return Output(sys.stdout, target_name(None))
    try:
        return Output(open(output, "w", encoding="utf-8"), output)
    except OSError as exc:
        raise OutputError(output, exc) from exc


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("urlset")
    except PackageNotFoundError:
        return ""


def _text(report: CheckReport, out: Output, errors_only: bool) -> None:
    from ..checking.text import report_lines

    for line in report_lines(report, errors_only=errors_only):
        out.write(line + "\n")

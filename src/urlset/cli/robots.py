"""``urlset robots FILE --sitemap URL...``: add, update and take out ``Sitemap:`` lines;
``urlset robots URL-or-FILE --check``: check a robots.txt against the sitemaps it names.

Exit status: 0 written (or checked clean), 1 the check found problems, 2 usage or I/O error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from .streams import Output, output_errors, target_name

if TYPE_CHECKING:
    from ..announce.robots_verify import RobotsCheckReport


@click.command(
    "robots", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.argument("target", metavar="FILE_OR_URL")
@click.option(
    "--sitemap",
    "sitemaps",
    multiple=True,
    metavar="URL",
    help="A sitemap (index) URL robots.txt must name; repeat for several.",
)
@click.option(
    "--remove", multiple=True, metavar="URL", help="Take out the Sitemap: line of this URL."
)
@click.option(
    "--replace-prefix",
    metavar="URL",
    help="Also take out the other Sitemap: lines whose URL starts with this (an earlier "
    "build's indexes); the new lines take their place.",
)
@click.option("--check", is_flag=True, help="Check the robots.txt instead of editing it.")
@click.option(
    "--user-agent",
    default="*",
    show_default=True,
    help="With --check: the crawler whose rules decide what is blocked.",
)
@click.option(
    "--site",
    metavar="URL",
    help="With --check of a file: the site it is served at (default: the host of its first "
    "sitemap).",
)
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def robots(
    target: str,
    sitemaps: tuple[str, ...],
    remove: tuple[str, ...],
    replace_prefix: str | None,
    check: bool,
    user_agent: str,
    site: str | None,
    fmt: str,
) -> None:
    """Add or update Sitemap: lines in a robots.txt FILE, keeping every other byte; or, with
    --check, check a robots.txt (a FILE or an http(s) URL) against the sitemaps it names.

    Editing: each --sitemap URL gets a line unless one names it already; --remove takes a
    line out; other lines are never touched. The file is replaced atomically (created when
    missing).

    Checking: the Sitemap: lines are complete URLs, each sitemap is reachable, is not
    disallowed, and lists only URLs its location allows (or, by cross-submission, URLs of
    the host whose robots.txt names it); URLs that robots.txt disallows for --user-agent
    are counted.

    Exit status: 0 ok, 1 the check found problems, 2 usage or I/O error.
    """
    if check:
        if sitemaps or remove or replace_prefix:
            raise click.UsageError("--check reads a robots.txt; it cannot be combined with edits")
        sys.exit(_safely(_check, target, site, user_agent, fmt))
    if site is not None:
        raise click.UsageError("--site is for --check")
    if not (sitemaps or remove or replace_prefix):
        raise click.UsageError("give --sitemap URL (or --remove URL), or --check")
    if target.lower().startswith(("http://", "https://")):
        raise click.UsageError("edit a file: give the robots.txt path, not a URL")
    sys.exit(_safely(_edit, target, sitemaps, remove, replace_prefix, fmt))


def _safely(run: Callable[..., int], *args: Any) -> int:
    """Never a traceback: an unforeseen error is reported in one line, exit status 2."""
    try:
        return run(*args)
    except (click.ClickException, SystemExit):
        raise
    except Exception as exc:
        click.echo(f"urlset robots: {type(exc).__name__}: {exc}", err=True)
        return 2


def _edit(
    path: str, sitemaps: tuple[str, ...], remove: tuple[str, ...], prefix: str | None, fmt: str
) -> int:
    from ..announce.robots_file import update_robots_file
    from ..errors import InvalidValue, PublishError
    from ..urls import to_uri

    try:
        start = None if prefix is None else to_uri(prefix, field="--replace-prefix")
        owns = None if start is None else (lambda url: url.startswith(start))
        edit = update_robots_file(path, sitemaps, remove, replace=owns)
    except InvalidValue as exc:
        click.echo(f"urlset robots: {exc}; give absolute http(s) URLs", err=True)
        return 2
    except PublishError as exc:
        click.echo(f"urlset robots: {exc}; nothing was changed", err=True)
        return 2
    out = Output(sys.stdout, target_name(None))
    with output_errors("robots"):
        if fmt == "json":
            summary = {
                "file": path,
                "changed": edit.changed,
                "added": list(edit.added),
                "removed": list(edit.removed),
                "already_listed": list(edit.present),
            }
            out.write(json.dumps(summary, indent=2) + "\n")
            return 0
        for url in edit.added:
            out.write(f"added    Sitemap: {url}\n")
        for url in edit.removed:
            out.write(f"removed  Sitemap: {url}\n")
        for url in edit.present:
            out.write(f"kept     Sitemap: {url} (already listed)\n")
        out.write(f"{path}: {'updated' if edit.changed else 'unchanged'}\n")
    return 0


def _check(target: str, site: str | None, user_agent: str, fmt: str) -> int:
    from ..announce.robots_verify import check_robots_sync
    from ..errors import InvalidValue

    try:
        report = check_robots_sync(target, site=site, user_agent=user_agent)
    except InvalidValue as exc:
        click.echo(f"urlset robots: {exc}", err=True)
        return 2
    except OSError as exc:
        click.echo(f"urlset robots: cannot read {target}: {exc.strerror or exc}", err=True)
        return 2
    unreadable = any(i.code == "robots-unavailable" for i in report.issues)
    status = 2 if unreadable else 1 if report.problems else 0
    out = Output(sys.stdout, target_name(None))
    with output_errors("robots", closed_pipe_status=status):
        if fmt == "json":
            out.write(json.dumps(_as_json(report), indent=2, ensure_ascii=False) + "\n")
        else:
            _text(report, out)
    return status


def _as_json(report: RobotsCheckReport) -> dict[str, object]:
    return {
        "robots": report.source,
        "served_at": report.robots_url,
        "user_agent": report.user_agent,
        "issues": [
            {
                "code": i.code,
                "severity": i.severity.value,
                "line": i.line or None,
                "message": i.message,
                "hint": i.hint or None,
            }
            for i in report.issues
        ],
        "sitemaps": [
            {
                "url": t.url,
                "line": t.line,
                "sitemaps_read": t.sitemaps_read,
                "failed": t.failed,
                "urls": t.urls,
                "out_of_scope": t.out_of_scope,
                "blocked": t.blocked,
                "cross_submitted": t.cross_submitted,
            }
            for t in report.tallies
        ],
    }


def _text(report: RobotsCheckReport, out: Output) -> None:
    from ..model import Severity

    where = f" (served at {report.robots_url})" if report.robots_url else ""
    out.write(f"{report.source}{where}: {len(report.tallies)} sitemaps named\n")
    for t in report.tallies:
        state = "unreachable" if t.failed and not t.sitemaps_read else f"{t.urls:,} URLs"
        files = f" in {t.sitemaps_read} files" if t.sitemaps_read > 1 else ""
        out.write(f"  line {t.line:>4}  {t.url}: {state}{files}\n")
    for i in report.issues:
        line = f"line {i.line}" if i.line else "-"
        out.write(f"  {line:>9}  {i.severity.value:<7}  {i.code}: {i.message}\n")
        if i.hint:
            out.write(f"  {'':>9}  {'':<7}  hint: {i.hint}\n")
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    urls = sum(t.urls for t in report.tallies)
    out.write(
        f"checked {len(report.tallies)} sitemaps, {urls:,} URLs for user agent "
        f"{report.user_agent!r}: {errors} errors, {warnings} warnings\n"
    )

"""``urlset announce search-console`` and ``urlset announce bing``: the search engines' own
APIs, as commands of the ``announce`` group (``announce.py``), which this module completes;
the CLI loads the group from here."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

import click

from .announce import SETTINGS, announce, read_entries
from .streams import Output, output_errors, target_name

if TYPE_CHECKING:
    from ..announce.bing import BingReport
    from ..announce.search_console import ConsoleResult

__all__ = ["announce"]


@announce.command("search-console", context_settings=SETTINGS)
@click.argument("site", metavar="PROPERTY")
@click.option(
    "--sitemap",
    "sitemaps",
    multiple=True,
    metavar="URL",
    help="A sitemap to submit (repeat for several); with --status, the ones to show.",
)
@click.option(
    "--status",
    "show_status",
    is_flag=True,
    help="Show what Google says (every sitemap of the property without --sitemap).",
)
@click.option(
    "--key-file",
    envvar="URLSET_GOOGLE_KEY_FILE",
    metavar="FILE",
    help="A service account's JSON key [env URLSET_GOOGLE_KEY_FILE]; default: application "
    "default credentials.",
)
@click.option(
    "--api",
    envvar="URLSET_SEARCH_CONSOLE_API",
    metavar="URL",
    help="The API root [env URLSET_SEARCH_CONSOLE_API; default Google's].",
)
@click.option(
    "--check/--no-check",
    "run_check",
    default=True,
    show_default=True,
    help="Check each sitemap shown with urlset too, beside what Google says.",
)
@click.option(
    "--allow-private", is_flag=True, help="Let the check fetch private or loopback addresses."
)
@click.option("--deadline", type=click.FloatRange(min=0.1), default=60.0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def call_search_console(
    site: str,
    sitemaps: tuple[str, ...],
    show_status: bool,
    key_file: str | None,
    api: str | None,
    run_check: bool,
    allow_private: bool,
    deadline: float,
    fmt: str,
) -> None:
    """Submit sitemaps to Google Search Console, and show what Google says of them beside
    what urlset's check finds. PROPERTY is as Search Console names it:
    https://www.example.com/ or sc-domain:example.com.

    With --sitemap URL: submit it (then, with --status, read its status back). Without:
    list the property's sitemaps and their status. The credentials' account must be an
    owner or user of the property (Search Console > Settings > Users and permissions).

    Exit status: 0 all accepted and no errors found, 1 a call failed or errors reported
    (by Google or by urlset's check), 2 usage error or no credentials.
    """
    from ..announce.search_console import (
        CredentialsError,
        access_token,
        call_search_console_sync,
        property_id,
    )
    from ..errors import InvalidValue

    try:
        site = property_id(site)
    except InvalidValue as exc:
        raise click.UsageError(str(exc)) from None
    status_wanted = show_status or not sitemaps
    try:
        token = access_token(key_file)
        results = call_search_console_sync(
            site, token, submit=sitemaps, status=status_wanted, api=api, deadline=deadline
        )
    except InvalidValue as exc:
        raise click.UsageError(str(exc)) from None
    except CredentialsError as exc:
        click.echo(f"urlset announce search-console: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # never a traceback
        click.echo(f"urlset announce search-console: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    shown = [s for r in results for s in r.sitemaps]
    checks = _check_each([s.path for s in shown], allow_private, deadline) if run_check else {}
    failed = (
        not all(r.ok for r in results)
        or any(s.errors for s in shown)
        or any(c.get("errors") for c in checks.values())
    )
    status = 1 if failed else 0
    out = Output(sys.stdout, target_name(None))
    with output_errors("announce search-console", closed_pipe_status=status):
        _console_report(results, checks, out, fmt)
        unchecked = len({s.path for s in shown} - set(checks)) if run_check else 0
        if unchecked and fmt == "text":
            out.write(f"{unchecked} not checked by urlset: --deadline reached; raise it\n")
    sys.exit(status)


def _check_each(urls: list[str], allow_private: bool, deadline: float) -> dict[str, dict[str, int]]:
    """urlset's check of each sitemap URL (an index with its children): its summary. All of
    them within ``deadline`` seconds: those not reached by then are left unchecked."""
    import asyncio
    import time

    from ..fetching.http import HttpOptions
    from ..sitecheck.driver import check_site_async

    async def run() -> dict[str, dict[str, int]]:
        ends = time.monotonic() + deadline
        found: dict[str, dict[str, int]] = {}
        for url in urls:
            left = ends - time.monotonic()
            if left <= 0:
                break
            http = HttpOptions(deadline=left, allow_private=allow_private)
            report, _ = await check_site_async(url, http=http)
            found[url] = report.summary()
        return found

    return asyncio.run(run()) if urls else {}


def _console_report(
    results: list[ConsoleResult], checks: dict[str, dict[str, int]], out: Output, fmt: str
) -> None:
    if fmt == "json":
        rows = [
            {
                "action": r.action,
                "property": r.site,
                "sitemap": r.sitemap,
                "ok": r.ok,
                "status": r.status,
                "message": r.message,
                "attempts": r.attempts,
                "sitemaps": [
                    {
                        "path": s.path,
                        "google": {
                            "lastSubmitted": s.last_submitted,
                            "lastDownloaded": s.last_downloaded,
                            "isPending": s.is_pending,
                            "isSitemapsIndex": s.is_index,
                            "errors": s.errors,
                            "warnings": s.warnings,
                            "contents": [
                                {"type": c.type, "submitted": c.submitted, "indexed": c.indexed}
                                for c in s.contents
                            ],
                        },
                        "urlset": checks.get(s.path),
                    }
                    for s in r.sitemaps
                ],
            }
            for r in results
        ]
        out.write(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
        return
    for r in results:
        target = r.sitemap or r.site
        if r.action == "submit" or not r.ok:
            out.write(f"{r.action} {target}: {'ok' if r.ok else 'FAILED'}: {r.message}\n")
        if not r.sitemaps:
            continue
        out.write(
            "sitemap\tgoogle: downloaded\tpending\terrors\twarnings\tsubmitted\tindexed"
            "\turlset: entries\terrors\twarnings\n"
        )
        for s in r.sitemaps:
            indexed = [c.indexed for c in s.contents if c.indexed is not None]
            mine = checks.get(s.path)
            urlset_cols = (
                f"{mine['entries']}\t{mine['errors']}\t{mine['warnings']}" if mine else "-\t-\t-"
            )
            out.write(
                f"{s.path}\t{s.last_downloaded or 'never'}\t{'yes' if s.is_pending else 'no'}"
                f"\t{s.errors}\t{s.warnings}\t{s.submitted}"
                f"\t{sum(indexed) if indexed else '-'}\t{urlset_cols}\n"
            )


@announce.command("bing", context_settings=SETTINGS)
@click.argument("source", required=False, metavar="[URLS_FILE|-]")
@click.option("--site", metavar="URL", help="The site, as Bing Webmaster Tools has it: required.")
@click.option(
    "--sitemap",
    "sitemaps",
    multiple=True,
    metavar="URL",
    help="A sitemap to submit (SubmitFeed); repeat for several.",
)
@click.option(
    "--api-key",
    envvar="URLSET_BING_API_KEY",
    help="The Bing Webmaster API key [env URLSET_BING_API_KEY].",
)
@click.option(
    "--api",
    envvar="URLSET_BING_API",
    metavar="URL",
    help="The API root [env URLSET_BING_API; default Bing's].",
)
@click.option(
    "--left",
    "left_file",
    metavar="FILE",
    help="Write the URLs over today's quota here, one a line, to send tomorrow.",
)
@click.option("--batch-size", type=click.IntRange(1, 500), default=500, show_default=True)
@click.option("--deadline", type=click.FloatRange(min=0.1), default=60.0, show_default=True)
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def bing(
    source: str | None,
    site: str | None,
    sitemaps: tuple[str, ...],
    api_key: str | None,
    api: str | None,
    left_file: str | None,
    batch_size: int,
    deadline: float,
    fmt: str,
) -> None:
    """Submit sitemaps (--sitemap) and URLs (URLS_FILE or -, one a line, or JSON Lines as
    `urlset read` writes them) to Bing Webmaster Tools with an API key.

    The day's URL quota is read first (GetUrlSubmissionQuota); what fits is sent in batches
    (SubmitUrlBatch), the rest is reported as left for tomorrow (and written to --left).

    Exit status: 0 all accepted, 1 some refused, unanswered, or URLs not of the site (URLs
    left over the quota alone are not a failure), 2 usage or I/O error.
    """
    from ..announce.bing import submit_bing_sync
    from ..errors import InvalidValue

    if site is None:
        raise click.UsageError("give --site URL: the site as Bing Webmaster Tools has it")
    if not api_key:
        raise click.UsageError(
            "give --api-key KEY (or URLSET_BING_API_KEY): Bing Webmaster Tools > Settings > "
            "API access"
        )
    if source is None and not sitemaps:
        raise click.UsageError("give --sitemap URL, or URLS_FILE (- for standard input)")
    urls: list[str] = []
    if source is not None:
        try:
            urls = [loc for loc, _ in read_entries(source)]
        except OSError as exc:
            click.echo(
                f"urlset announce bing: cannot read {source}: {exc.strerror or exc}", err=True
            )
            sys.exit(2)
        except UnicodeDecodeError:
            click.echo(f"urlset announce bing: cannot read {source}: not UTF-8 text", err=True)
            sys.exit(2)
    try:
        report = submit_bing_sync(
            site,
            api_key,
            sitemaps=sitemaps,
            urls=urls,
            batch_size=batch_size,
            api=api,
            deadline=deadline,
        )
    except InvalidValue as exc:
        raise click.UsageError(str(exc)) from None
    except Exception as exc:  # never a traceback
        click.echo(f"urlset announce bing: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    if left_file is not None:
        try:
            with open(left_file, "w", encoding="utf-8") as handle:
                handle.writelines(f"{url}\n" for url in report.left)
        except OSError as exc:
            click.echo(
                f"urlset announce bing: cannot write {left_file}: {exc.strerror or exc}", err=True
            )
            sys.exit(2)
    status = 0 if report.ok else 1
    out = Output(sys.stdout, target_name(None))
    with output_errors("announce bing", closed_pipe_status=status):
        _bing_report(report, out, fmt, left_file)
    sys.exit(status)


def _bing_report(report: BingReport, out: Output, fmt: str, left_file: str | None) -> None:
    from ..codes import plural

    if fmt == "json":
        data = {
            "site": report.site,
            "calls": [
                {
                    "method": c.method,
                    "ok": c.ok,
                    "status": c.status,
                    "message": c.message,
                    "attempts": c.attempts,
                    "urls": c.size,
                    "first": c.first,
                }
                for c in report.calls
            ],
            "daily_quota": report.daily_quota,
            "monthly_quota": report.monthly_quota,
            "sent": report.sent,
            "left": report.left,
            "refused": [{"url": u, "reason": why} for u, why in report.refused],
            "duplicates": report.duplicates,
        }
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return
    for c in report.calls:
        what = f" {c.first}" if c.method == "SubmitFeed" else ""
        if c.method == "SubmitUrlBatch":
            what = f" {plural(c.size, 'URL')} from {c.first}"
        out.write(f"{c.method}{what}: {'ok' if c.ok else 'FAILED'}: {c.message}\n")
    for url, why in report.refused[:20]:
        out.write(f"not sent: {url}: {why}\n")
    if len(report.refused) > 20:
        out.write(f"not sent: ... and {len(report.refused) - 20:,} more\n")
    if report.daily_quota is not None:
        out.write(f"daily quota {report.daily_quota:,}; {plural(report.sent, 'URL')} sent\n")
    if report.left:
        where = f" (written to {left_file})" if left_file else " (give --left FILE to keep them)"
        out.write(f"{plural(len(report.left), 'URL')} left for tomorrow{where}\n")

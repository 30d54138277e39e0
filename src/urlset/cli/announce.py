"""``urlset announce ping|indexnow|search-console|bing``: tell search engines about a sitemap or
changed URLs, and read what Google's Search Console says of them.

Exit status: 0 every request accepted, 1 some refused or unanswered (or URLs refused before
sending), 2 usage or I/O error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

import click

from .streams import Output, output_errors, target_name

if TYPE_CHECKING:
    from ..announce.indexnow import IndexNowSite
    from ..announce.indexnow_http import IndexNowReport

SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
NO_ENDPOINTS = (
    "give --endpoint URL: there is no default. Google retired its sitemap ping endpoint "
    "(deprecated June 2023, gone by the end of 2023) and Bing retired its own in 2022 in "
    "favour of IndexNow (urlset announce indexnow); list your sitemap in robots.txt "
    "(urlset robots) instead"
)
STATE = ".urlset-indexnow.jsonl"


@click.group("announce", context_settings=SETTINGS)
def announce() -> None:
    """Tell search engines about sitemaps (ping) and changed URLs (IndexNow)."""


@announce.command("ping", context_settings=SETTINGS)
@click.argument("sitemap_url")
@click.option(
    "--endpoint",
    "endpoints",
    multiple=True,
    metavar="URL",
    help="A ping endpoint (e.g. https://engine.example/ping); repeat for several. No default.",
)
@click.option(
    "--deadline",
    type=click.FloatRange(min=0.1),
    default=60.0,
    show_default=True,
    help="Seconds for all the answers, retries included.",
)
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def ping(sitemap_url: str, endpoints: tuple[str, ...], deadline: float, fmt: str) -> None:
    """Send the protocol's HTTP request, <endpoint>?sitemap=<SITEMAP_URL percent-encoded>, to
    each --endpoint and report each answer (2xx: received). Failures are retried (5xx, 429
    with its Retry-After, timeouts) within --deadline.

    Exit status: 0 every endpoint received it, 1 some did not, 2 usage error.
    """
    from ..announce.ping import ping_sitemap_sync
    from ..codes import plural
    from ..errors import InvalidValue

    if not endpoints:
        raise click.UsageError(NO_ENDPOINTS)
    try:
        results = ping_sitemap_sync(sitemap_url, endpoints, deadline=deadline)
    except InvalidValue as exc:
        raise click.UsageError(f"{exc}; give absolute http(s) URLs") from None
    except Exception as exc:  # never a traceback
        click.echo(f"urlset announce ping: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    status = 0 if all(r.received for r in results) else 1
    out = Output(sys.stdout, target_name(None))
    with output_errors("announce ping", closed_pipe_status=status):
        if fmt == "json":
            rows = [
                {
                    "endpoint": r.endpoint,
                    "request": r.request,
                    "received": r.received,
                    "status": r.status,
                    "message": r.message,
                    "attempts": r.attempts,
                    "seconds": round(r.seconds, 3),
                }
                for r in results
            ]
            out.write(json.dumps(rows, indent=2) + "\n")
        else:
            for r in results:
                verdict = "received" if r.received else "NOT received"
                tries = plural(r.attempts, "attempt")
                out.write(f"{r.endpoint}: {verdict}: {r.message} ({tries})\n")
    sys.exit(status)


@announce.command("indexnow", context_settings=SETTINGS)
@click.argument("source", required=False, metavar="[URLS_FILE|-]")
@click.option("--site", metavar="URL", help="The site submitted for (its host): required.")
@click.option(
    "--key", envvar="URLSET_INDEXNOW_KEY", help="The IndexNow key [env URLSET_INDEXNOW_KEY]."
)
@click.option("--new-key", is_flag=True, help="Generate a key (printed) and use it.")
@click.option("--key-length", type=click.IntRange(8, 128), default=32, show_default=True)
@click.option(
    "--key-location",
    metavar="URL",
    help="Where the key file is served (default <site>/<key>.txt); its directory bounds the URLs.",
)
@click.option(
    "--write-key-file",
    "key_dir",
    metavar="DIR",
    help="Write the key file into the site's output directory DIR.",
)
@click.option("--base-url", metavar="URL", help="The URL DIR is served at (default the site root).")
@click.option(
    "--endpoint",
    "endpoints",
    multiple=True,
    metavar="NAME_OR_URL",
    help="indexnow (api.indexnow.org, the default), bing, naver, seznam, yandex, yep, or a URL.",
)
@click.option(
    "--state", metavar="FILE", default=STATE, show_default=True, help="What was accepted."
)
@click.option("--no-state", is_flag=True, help="Remember nothing; send every URL given.")
@click.option("--deadline", type=click.FloatRange(min=0.1), default=120.0, show_default=True)
@click.option("--batch-size", type=click.IntRange(1, 10_000), default=10_000, show_default=True)
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text")
def indexnow(
    source: str | None,
    site: str | None,
    key: str | None,
    new_key: bool,
    key_length: int,
    key_location: str | None,
    key_dir: str | None,
    base_url: str | None,
    endpoints: tuple[str, ...],
    state: str,
    no_state: bool,
    deadline: float,
    batch_size: int,
    fmt: str,
) -> None:
    """Submit changed URLs with IndexNow: from URLS_FILE or - (standard input), one URL a line,
    or JSON Lines with "loc" and "lastmod" as `urlset read` writes them.

    Every URL is checked to belong to --site's host (and the key file's directory) first;
    batches of up to 10,000 are POSTed as JSON, a single URL is sent with GET. Each batch's
    answer is reported: 200 accepted, 202 received (key not yet validated), 400, 403 (key not
    valid), 422 (URLs not of this host), 429 (backed off within --deadline). What was
    accepted is remembered in --state and not sent again unless its lastmod is newer.

    Exit status: 0 all accepted, 1 some refused, unanswered or not of the host, 2 usage or
    I/O error.
    """
    from ..announce.indexnow import IndexNowSite, endpoint_url, generate_key
    from ..errors import InvalidValue, PublishError

    if site is None:
        raise click.UsageError("give --site URL: the site whose URLs are submitted")
    if new_key and key:
        raise click.UsageError("give --key or --new-key, not both")
    if new_key:
        key = generate_key(key_length)
        click.echo(key)
    if not key:
        raise click.UsageError("give --key KEY (or URLSET_INDEXNOW_KEY), or --new-key")
    try:
        where = IndexNowSite.of(site, key, key_location)
        urls = [endpoint_url(e) for e in endpoints] or [endpoint_url("indexnow")]
    except InvalidValue as exc:
        raise click.UsageError(str(exc)) from None
    if key_dir is not None:
        _write_key(where, key_dir, base_url)
    if source is None:
        if key_dir is None and not new_key:
            raise click.UsageError("give URLS_FILE (or - for standard input) to submit")
        sys.exit(0)
    try:
        entries = list(read_entries(source))
    except OSError as exc:
        click.echo(
            f"urlset announce indexnow: cannot read {source}: {exc.strerror or exc}", err=True
        )
        sys.exit(2)
    except UnicodeDecodeError:
        click.echo(
            f"urlset announce indexnow: cannot read {source}: not UTF-8 text; give one URL a "
            "line, or JSON Lines",
            err=True,
        )
        sys.exit(2)
    try:
        report = _submit(where, entries, urls, None if no_state else state, deadline, batch_size)
    except PublishError as exc:
        click.echo(f"urlset announce indexnow: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # never a traceback
        click.echo(f"urlset announce indexnow: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    status = 0 if report.ok else 1
    out = Output(sys.stdout, target_name(None))
    with output_errors("announce indexnow", closed_pipe_status=status):
        _report(report, out, fmt, None if no_state else state)
    sys.exit(status)


def _write_key(site: IndexNowSite, key_dir: str, base_url: str | None) -> None:
    from ..announce.indexnow_http import write_key_file
    from ..errors import InvalidValue, PublishError

    try:
        path = write_key_file(site, key_dir, base_url)
    except InvalidValue as exc:
        raise click.UsageError(
            f"{exc}; the key file must be served from --write-key-file's directory"
        ) from None
    except (PublishError, OSError) as exc:
        click.echo(f"urlset announce indexnow: cannot write the key file: {exc}", err=True)
        sys.exit(2)
    click.echo(f"wrote {path}: publish it at {site.key_location}", err=True)


def read_entries(source: str) -> Iterator[tuple[str, str | None]]:
    """(URL, lastmod) per line: a plain URL, or a JSON object with loc (and lastmod)."""
    if source == "-":
        yield from _entries_of(sys.stdin)
        return
    with open(source, encoding="utf-8-sig") as handle:
        yield from _entries_of(handle)


def _entries_of(handle: IO[str]) -> Iterator[tuple[str, str | None]]:
    for raw in handle:
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            try:
                row = json.loads(line)
            except ValueError:
                yield line, None  # reported as not a URL
                continue
            if isinstance(row, dict) and row.get("type") != "sitemap" and "loc" in row:
                lastmod = row.get("lastmod")
                yield str(row["loc"]), str(lastmod) if lastmod else None
            continue
        yield line, None


def _submit(
    site: IndexNowSite,
    entries: list[tuple[str, str | None]],
    endpoints: list[str],
    state: str | None,
    deadline: float,
    batch_size: int,
) -> IndexNowReport:
    from ..announce.indexnow_http import submit_indexnow_sync

    return submit_indexnow_sync(
        site, entries, endpoints=endpoints, state=state, deadline=deadline, batch_size=batch_size
    )


def _report(report: IndexNowReport, out: Output, fmt: str, state: str | None) -> None:
    from ..codes import plural

    if fmt == "json":
        data = {
            "host": report.site.host,
            "key_location": report.site.key_location,
            "batches": [
                {
                    "endpoint": b.endpoint,
                    "method": b.method,
                    "urls": b.size,
                    "first": b.first,
                    "status": b.status,
                    "outcome": b.outcome.value,
                    "message": b.message,
                    "attempts": b.attempts,
                }
                for b in report.batches
            ],
            "refused": [{"url": u, "reason": why} for u, why in report.refused],
            "already_sent": report.already_sent,
            "duplicates": report.duplicates,
        }
        out.write(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
        return
    for b in report.batches:
        code = f"HTTP {b.status}" if b.status is not None else "no answer"
        out.write(
            f"{b.method} {b.endpoint}: {plural(b.size, 'URL')} from {b.first}: "
            f"{b.outcome} ({code}): "
            f"{b.message}\n"
        )
    for url, why in report.refused[:20]:
        out.write(f"not sent: {url}: {why}\n")
    if len(report.refused) > 20:
        out.write(f"not sent: ... and {len(report.refused) - 20:,} more\n")
    skipped = sum(report.already_sent.values())
    memory = f" (per {state})" if state else ""
    sent = sum(1 for b in report.batches if b.attempts)
    tries = sum(b.attempts for b in report.batches)
    unsent = len(report.batches) - sent
    out.write(
        f"{plural(report.accepted, 'URL')} accepted in {plural(sent, 'request')}"
        + (f" ({plural(tries, 'attempt')})" if tries > sent else "")
        + (f", {plural(unsent, 'batch', 'batches')} not sent" if unsent else "")
        + f"; {skipped:,} already sent before{memory}; {len(report.refused):,} refused "
        f"before sending; {plural(report.duplicates, 'duplicate')}\n"
    )

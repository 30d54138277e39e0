"""``urlset fetch --sites FILE [--dask SCHEDULER] -o DIR``: many sites on a Dask cluster
(``urlset.dask.fetch_sites``) into a Parquet dataset, a line per site on stderr.

Exit status: 0 every site read whole, 1 some site failed or was read in part, 2 no site
could be read, or a usage error."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from ..errors import InvalidValue
from ..urls import to_uri
from .shared import FETCH_DASK, FETCH_SITES

if TYPE_CHECKING:
    from ..fetching.http import HttpOptions
    from ..fetching.values import DiscoveryOptions


def run_sites(
    discovery: DiscoveryOptions, http: HttpOptions, output: str | None, quiet: bool
) -> int:
    """The run --sites asks for; returns the exit status."""
    context = click.get_current_context()
    params = context.params
    if output is None:
        raise click.UsageError("--sites writes a dataset: name a new directory with -o")
    if params["tree"] or params["cache_dir"] or params["snapshot"]:
        raise click.UsageError(
            "--sites writes a Parquet dataset: --tree, --cache and --snapshot do not apply"
        )
    sites = _read_sites(str(context.meta[FETCH_SITES]))
    try:
        from ..dask.fetching import fetch_sites

        summaries = fetch_sites(
            sites, output, scheduler=context.meta.get(FETCH_DASK), discovery=discovery, http=http
        )
    except ImportError as exc:
        raise click.UsageError(str(exc)) from None
    except InvalidValue as exc:
        raise click.UsageError(str(exc)) from None
    if not quiet:
        from ..codes import plural

        for s in summaries:
            state = f"failed: {s.failure}" if s.failure else "partial" if s.partial else "ok"
            click.echo(
                f"{s.site}: {plural(s.sitemaps, 'sitemap')}, {plural(s.urls, 'URL')}, "
                f"{plural(s.errors, 'error')}, {s.seconds:.2f} s ({state})",
                err=True,
            )
    if not any(s.sitemaps for s in summaries):
        return 2
    return 1 if any(s.partial for s in summaries) else 0


def _read_sites(path: str) -> list[str]:
    sites = []
    try:
        with open(path, encoding="utf-8") as file:
            for number, line in enumerate(file, 1):
                text = line.split("#", 1)[0].strip()
                if not text:
                    continue
                if "://" not in text:
                    text = "https://" + text
                try:
                    sites.append(to_uri(text, field="URL"))
                except InvalidValue as exc:
                    raise click.UsageError(f"{path}, line {number}: {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise click.UsageError(f"--sites {path}: cannot read ({exc})") from None
    if not sites:
        raise click.UsageError(f"--sites {path}: lists no site")
    return sites

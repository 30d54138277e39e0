"""``urlset crawl SITE``: a polite crawl of a running site, written as JSON Lines for build."""

from __future__ import annotations

import json
import sys
from typing import IO, Any

import click

from .site_sources import crawl_limits, crawl_options


@click.command()
@click.argument("site")
@click.option(
    "--out",
    "out_path",
    default="-",
    show_default=True,
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write the pages here as JSON Lines ('-' is stdout); `urlset build FILE` reads them.",
)
@click.option("--images", is_flag=True, help="List each page's images (<img src>, og:image).")
@crawl_limits
@click.option("--quiet", "-q", is_flag=True, help="Print nothing but errors.")
def crawl(site: str, out_path: str, images: bool, quiet: bool, **limits: Any) -> None:
    """Crawl SITE from its home page (and its sitemaps): follow same-site links, obey
    robots.txt and its Crawl-delay, <meta name="robots"> and X-Robots-Tag, and list each
    indexable page that is its own canonical URL (loc, lastmod from Last-Modified, hreflang
    alternates, images).

    Exit status: 0 crawled (pages left out are reported on stderr), 1 some pages could not
    be read (5xx, timeouts, connection errors), 2 usage error or a site that cannot be
    crawled (robots.txt unreachable).
    """
    from ..sources.crawl import Crawl
    from ..sources.entries import entry_json
    from ..sources.report import SourceError

    try:
        crawler = Crawl(site, crawl_options(limits, images))
        crawler.run_sync()
    except SourceError as exc:
        click.echo(f"urlset crawl: error: {exc}", err=True)
        sys.exit(2)
    stream: IO[str]
    try:
        stream = sys.stdout if out_path == "-" else open(out_path, "w", encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        click.echo(
            f"urlset crawl: error: --out {out_path}: cannot write ({exc.strerror})", err=True
        )
        sys.exit(2)
    with stream if out_path != "-" else _kept_open(stream):
        for batch in crawler.batches():
            for entry in batch:
                line = entry_json(entry)
                if line is not None:
                    stream.write(json.dumps(line, ensure_ascii=False) + "\n")
    lines = crawler.report.lines()
    for text in lines if not quiet else lines[1:]:
        click.echo(text, err=True)
    sys.exit(1 if crawler.failed else 0)


class _kept_open:
    """stdout as a context manager that does not close it."""

    def __init__(self, stream: IO[str]) -> None:
        self.stream = stream

    def __enter__(self) -> IO[str]:
        return self.stream

    def __exit__(self, *exc: object) -> None:
        self.stream.flush()

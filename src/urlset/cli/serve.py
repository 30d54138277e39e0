"""``urlset serve DIR``: preview a published sitemap set over HTTP, the way a crawler and a
browser will see it (the same core ``urlset.serve.wsgi_app`` gives a web site).

The server is ``serve.server``: connections on an asyncio loop, requests answered on a
bounded pool of worker threads that idle or slow clients cannot hold (each wait has a
timeout), on 127.0.0.1 unless ``--host`` says otherwise. SIGINT or SIGTERM stops it, and so
does ``--for DURATION``. Exit status: 0 stopped, 2 usage error (not a directory, a port in
use).
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

from .watch import parse_duration

if TYPE_CHECKING:
    from ..serve.app import SitemapApp

WORKERS = 8  # requests answered at once; more wait on the loop, holding no worker


def _fail(message: str) -> NoReturn:
    click.echo(f"urlset serve: {message}", err=True)
    sys.exit(2)


@click.command("serve")
@click.argument("directory", type=click.Path(path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, help="Port (0: any free one).")
@click.option("--no-html", is_flag=True, help="Answer browsers with the XML too.")
@click.option("--for", "duration", help="Stop after this long: 30s, 5m, 1h.")
def serve(directory: Path, host: str, port: int, no_html: bool, duration: str | None) -> None:
    """Serve the sitemap set published in DIRECTORY over HTTP, to preview it.

    Crawlers get the files as published (gzip, ETags, 304s); a browser gets an HTML view of
    each sitemap and index. Stops on Ctrl-C or SIGTERM. Exit status: 0 stopped, 2 usage error.
    """
    import asyncio

    from ..serve import DirectorySet, sitemap_app

    seconds = parse_duration(duration) if duration else None
    if not directory.is_dir():
        _fail(f"{directory}: not a directory (give the directory `urlset build` wrote)")
    documents = DirectorySet(directory)
    if not documents.entry_points():
        _fail(f"{directory}: no sitemap here (.xml, .txt, .xml.gz or .txt.gz files)")
    core = sitemap_app(documents, html=not no_html)
    problem = asyncio.run(_serve(core, documents.entry_points(), host, port, seconds))
    if problem is not None:
        _fail(problem)
    click.echo("urlset serve: stopped", err=True)


async def _serve(
    core: SitemapApp, entry_points: list[str], host: str, port: int, seconds: float | None
) -> str | None:
    """Serve until a signal or the deadline; what stopped it from starting, if anything."""
    import asyncio

    from ..serve.server import SitemapServer, serve_until

    server = SitemapServer(core, workers=WORKERS)
    try:
        port = await server.start(host, port)
    except OSError as exc:
        await server.close()
        return f"cannot listen on {host}:{port}: {exc.strerror or exc}"
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{port}/"
    click.echo(base, nl=True)  # the first line of output: where to go (scripts read it)
    for name in entry_points:
        click.echo(f"  {base}{name}", err=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        await serve_until(server, stop, seconds)
    finally:
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.remove_signal_handler(signum)
    return None

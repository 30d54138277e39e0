"""``urlset serve DIR``: preview a published sitemap set over HTTP, the way a crawler and a
browser will see it (the same app ``urlset.serve.wsgi_app`` gives a web site).

The standard library's WSGI server, with a bounded pool of worker threads (a slow client
holds one worker, never a new thread per connection), on 127.0.0.1 unless ``--host`` says
otherwise. SIGINT or SIGTERM stops it, and so does ``--for DURATION``. Exit status: 0 stopped,
2 usage error (not a directory, a port in use).
"""

from __future__ import annotations

import signal
import sys
import threading
from pathlib import Path
from socketserver import BaseServer
from types import FrameType
from typing import NoReturn

import click

from .watch import parse_duration

WORKERS = 8  # requests answered at once; more wait in the listen queue


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
    from ..serve import DirectorySet, sitemap_app
    from ..serve.wsgi import WsgiApp
    from .serve_server import PooledServer

    seconds = parse_duration(duration) if duration else None
    if not directory.is_dir():
        _fail(f"{directory}: not a directory (give the directory `urlset build` wrote)")
    documents = DirectorySet(directory)
    if not documents.entry_points():
        _fail(f"{directory}: no sitemap here (.xml, .txt, .xml.gz or .txt.gz files)")
    try:
        server = PooledServer((host, port), WORKERS)
    except OSError as exc:
        _fail(f"cannot listen on {host}:{port}: {exc.strerror or exc}")
    server.set_app(WsgiApp(sitemap_app(documents, html=not no_html)))
    shown = f"[{host}]" if ":" in host else host
    base = f"http://{shown}:{server.server_address[1]}/"
    click.echo(base, nl=True)  # the first line of output: where to go (scripts read it)
    for name in documents.entry_points():
        click.echo(f"  {base}{name}", err=True)
    _run(server, seconds)


def _run(server: BaseServer, seconds: float | None) -> None:
    """Serve until a signal or the deadline, then stop accepting and finish what runs."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2})
    thread.start()
    try:
        stop.wait(seconds)
    finally:
        server.shutdown()
        thread.join()
        server.server_close()
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    click.echo("urlset serve: stopped", err=True)

"""What ``urlset fetch`` does once it runs: the options made into the driver's settings,
the fetch on the event loop (http.py), the URLs written as each sitemap is read, the tree,
the report and the summary on stderr.

The command and its options are in ``fetch.py``; this module (with discovery, the parse
threads and aiohttp behind it) loads only when a fetch runs.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import IO, TYPE_CHECKING, Any

import click

from ..fetching.discovery import (
    WELL_KNOWN,
    DiscoveryOptions,
    DiscoveryResult,
    NodeState,
    SitemapRead,
)
from ..fetching.http_options import HttpOptions, RetryPolicy
from ..fetching.parse_pool import UrlBatch, columns_of
from ..fetching.report import render_tree, size_text, summary, tree_json
from ..model import Severity
from ..reading.output import RENDERERS, Render
from .shared import URL_COLUMNS
from .streams import quiet_stdout

if TYPE_CHECKING:
    from ..fetching.http import Progress
    from ..reports.fetch import FetchStats
    from ..store.record import FetchRecorder

# the columns of CSV, TSV and Parquet: `urlset read`'s, then the sitemap the URL came from
_FIELDS = (*URL_COLUMNS, "sitemap")


# ----------------------------------------------------------------------------- writers


class _Writer:
    """Writes the URLs of each sitemap as it is read (text formats, UTF-8)."""

    def __init__(self, out: IO[bytes], fmt: str) -> None:
        self.out = out
        self.fmt = fmt
        self.render = RENDERERS[fmt]
        self.count = 0
        if fmt in ("csv", "tsv"):
            out.write((("," if fmt == "csv" else "\t").join(_FIELDS) + "\n").encode())

    def write(self, event: SitemapRead) -> None:
        urls = event.urls
        if isinstance(urls, UrlBatch) and urls.parts is not None and urls.render == self.fmt:
            self.out.writelines(urls.parts)  # as the parse thread made them: no join
        else:
            self.out.write(self.render(columns_of(urls), event.node.url).encode("utf-8"))
        self.count += len(urls)

    def close(self) -> None:
        self.out.flush()


class _Parquet(_Writer):
    """Parquet through pyarrow, in row groups, so memory stays bounded: each sitemap's URLs
    as record batches (reading/arrow.py; made by the parse threads in the render lane)."""

    BATCH = 200_000

    def __init__(self, path: str) -> None:
        self.path = path
        self.fmt = "parquet"
        self.batches: list[Any] = []
        self.pending = 0
        self.writer: Any = None
        self.count = 0

    def write(self, event: SitemapRead) -> None:
        from ..reading.arrow import fetch_values_batch

        urls = event.urls
        if isinstance(urls, UrlBatch) and urls.batches is not None:
            batches = urls.batches
        else:
            batches = [fetch_values_batch(columns_of(urls), event.node.url)]
        self.batches.extend(batches)
        self.pending += len(urls)
        self.count += len(urls)
        if self.pending >= self.BATCH:
            self._flush()

    def _flush(self) -> None:
        import importlib

        from ..reading.arrow import fetch_schema

        pa: Any = importlib.import_module("pyarrow")
        pq: Any = importlib.import_module("pyarrow.parquet")
        schema = fetch_schema()
        if self.writer is None:
            self.writer = pq.ParquetWriter(self.path, schema)
        self.writer.write_table(pa.Table.from_batches(self.batches, schema=schema))
        self.batches, self.pending = [], 0

    def close(self) -> None:
        if self.batches or self.writer is None:
            self._flush()
        self.writer.close()


# ----------------------------------------------------------------------------- progress
class _Bar:
    """A rich progress line on a terminal (rich is imported only here). It refreshes from
    the event loop, not from a thread of its own."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import Progress as RichProgress
        from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

        self.progress: RichProgress = RichProgress(
            SpinnerColumn(),
            TextColumn("{task.description}"),
            TimeElapsedColumn(),
            console=Console(stderr=True),
            transient=True,
            auto_refresh=False,
        )
        self.task = self.progress.add_task("starting", total=None)
        self.shown = 0.0

    def __enter__(self) -> _Bar:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def update(self, p: Progress) -> None:
        self.progress.update(
            self.task,
            description=f"sitemaps {p.done:,} done, {p.queued:,} queued  "
            f"URLs {p.urls:,}  {size_text(p.bytes)}",
        )
        now = time.monotonic()
        if now - self.shown >= 0.1:
            self.shown = now
            self.progress.refresh()


# ----------------------------------------------------------------------------- run
def run(
    start: str,
    bare: bool,
    *,
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
    """The run the command's options ask for (checked by ``fetch.py``); exits with its
    status."""
    discovery = DiscoveryOptions(
        max_depth=max_depth,
        max_sitemaps=max_sitemaps,
        max_urls=max_urls,
        well_known=tuple(well_known) or WELL_KNOWN,
        follow_cross_host=follow_cross_host,
        follow=follow,
        since=since,
        probe_always=always_probe,
        http_fallback=bare,
        revalidate=revalidate,
        ahead=max(64, 2 * concurrency),  # enough requests out to keep every slot busy
    )
    http = HttpOptions(
        user_agent=user_agent,
        concurrency=concurrency,
        per_host=per_host,
        connect_timeout=min(10.0, timeout),
        read_timeout=min(read_timeout, timeout),
        total_timeout=timeout,
        retry=RetryPolicy(attempts=retries + 1),
        deadline=deadline,
        allow_private=allow_private,
    )
    if not start:  # --sites: many sites on a Dask cluster
        from .fetch_sites import run_sites

        sys.exit(run_sites(discovery, http, output, quiet))
    try:
        _return_large_buffers()
        status = _run(
            start, discovery, http, cache_dir, tree, fmt, output, quiet, workers, snapshot, report
        )
    except click.ClickException:
        raise
    except KeyboardInterrupt:
        click.echo("urlset fetch: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:  # the reader of standard output has gone: not an error
        quiet_stdout()
        sys.exit(0)
    except OSError as exc:
        click.echo(f"urlset fetch: cannot write output: {exc}", err=True)
        sys.exit(2)
    except Exception as exc:  # never a traceback
        click.echo(f"urlset fetch: internal error: {type(exc).__name__}: {exc}", err=True)
        sys.exit(2)
    sys.exit(status)


def _default_workers() -> int:
    """A parse thread per core when there are several (with one, parsing on the event loop
    costs no hand-over)."""
    cores = os.cpu_count() or 1
    return cores if cores > 1 else 0


def _skip_exit_collection() -> None:
    """Spare the interpreter's exit its walk of every object still alive (the modules a
    fetch imports, its result): ``gc.freeze`` as the last exit handler, so the collections
    Python makes while it finalizes see nothing. What the run opens it closes itself
    (output, cache, store), so no finalizer is left to a collection. Measured on a tiny
    site (index and 3 children, callgrind, the whole process): 503 M instructions -> 469 M
    (the imports are 415 M of the 503). In a process that runs fetch in process (the
    tests) it acts only when that process exits."""
    if not _EXIT_FREEZE:
        import atexit
        import gc

        # exit handlers run last registered first: those of what the run opens come before
        atexit.register(gc.freeze)
        _EXIT_FREEZE.append(True)


_EXIT_FREEZE: list[bool] = []  # registered once a process


def _return_large_buffers() -> None:
    """Have glibc give multi-megabyte buffers (a sitemap's rendered output, a worker's
    batch) back to the OS when freed. By default glibc raises its mmap threshold after the
    first such free and then keeps later ones in its heaps: measured on the 500,000-URL
    bench, peak RSS 135-175 MiB without this, 105-110 MiB with it (for ~0.2 s more system
    time)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        # M_MMAP_THRESHOLD: fixed at 4 MiB, which also stops glibc raising it
        libc.mallopt(-3, 4 * 1024 * 1024)
    except (OSError, AttributeError):
        return


def _open_writer(fmt: str, output: str | None) -> tuple[_Writer, Callable[[], None]]:
    if fmt == "parquet":
        assert output is not None
        return _Parquet(output), lambda: None
    if output is None:
        out: IO[bytes] = sys.stdout.buffer
        close: Callable[[], None] = lambda: None  # noqa: E731
    else:
        # a buffer smaller than a rendered part (~300 KiB a gzip piece), so that parts go
        # to the file as they are, not copied into the buffer first
        out = open(output, "wb", buffering=1 << 16)  # noqa: SIM115
        close = out.close
    return _Writer(out, fmt), close


def _run(
    start: str,
    discovery: DiscoveryOptions,
    http: HttpOptions,
    cache_dir: str | None,
    tree: bool,
    fmt: str,
    output: str | None,
    quiet: bool,
    workers: int | None,
    snapshot: str | None = None,
    report: str | None = None,
) -> int:
    _skip_exit_collection()
    workers = _default_workers() if workers is None else workers
    stats = None
    if report is not None:
        from ..reports.fetch import FetchStats

        stats = FetchStats()
    writer: _Writer | None = None
    close_output: Callable[[], None] = lambda: None  # noqa: E731
    if not tree:
        writer, close_output = _open_writer(fmt, output)
    bar: _Bar | None = None
    if not quiet and sys.stderr.isatty():
        bar = _Bar()
    try:
        if bar is not None:
            with bar:
                result = _fetch(
                    start, discovery, http, cache_dir, writer, bar.update, workers, snapshot, stats
                )
        else:
            result = _fetch(
                start, discovery, http, cache_dir, writer, None, workers, snapshot, stats
            )
        if writer is not None:
            writer.close()
    finally:
        close_output()
    if tree:
        text = render_tree(result) if fmt != "json" else tree_json(result)
        if output is None:
            click.echo(text, nl=False)
        else:
            with open(output, "w", encoding="utf-8") as fh:
                fh.write(text)
    if report is not None and stats is not None:
        from ..reports.fetch import fetch_html

        with open(report, "w", encoding="utf-8") as fh:
            fh.write(fetch_html(result, stats, made=datetime.now(UTC)))
    _report(result, tree, quiet)
    if result.nothing:
        return 2
    return 1 if result.partial else 0


def _fetch(
    start: str,
    discovery: DiscoveryOptions,
    http: HttpOptions,
    cache_dir: str | None,
    writer: _Writer | None,
    on_progress: Callable[[Progress], None] | None,
    workers: int,
    snapshot: str | None = None,
    stats: FetchStats | None = None,
) -> DiscoveryResult:
    # aiohttp loads here, not with the module, so `urlset fetch --help` starts fast
    from ..fetching.http import fetch_sitemaps
    from ..fetching.running import run_loop

    render: tuple[str, Render | None] | None = None
    if writer is not None and writer.fmt in RENDERERS:
        render = (writer.fmt, RENDERERS[writer.fmt])
    elif writer is not None and writer.fmt == "parquet":
        render = ("parquet", None)  # record batches, from the render lane only
    recorder = _recorder(snapshot, start)  # opened first: a locked store fails before fetching
    readers = [r.write for r in (writer,) if r is not None]
    readers += [recorder.on_read] if recorder is not None else []
    readers += [stats.on_read] if stats is not None else []

    def on_read(event: SitemapRead) -> None:
        for read in readers:
            read(event)

    try:
        result = run_loop(
            fetch_sitemaps(
                start,
                discovery=discovery,
                http=http,
                cache_dir=cache_dir,
                on_read=on_read if readers else None,
                on_progress=on_progress,
                workers=workers,
                render=render,
                # the render lane gives the writer its output text, the store Arrow columns
                # and the other readers (the report's counts, the cache) UrlColumns
                rendered_only=render is not None,
                values=stats is not None or cache_dir is not None,
                columns=recorder is not None,
            )
        )
    except BaseException:
        if recorder is not None:
            recorder.abort()
        raise
    if recorder is not None:
        recorder.abort() if result.nothing else recorder.finish(result)
    return result


def _recorder(snapshot: str | None, start: str) -> FetchRecorder | None:
    """The snapshot store's recorder of this run (exit 2 when the store cannot be used)."""
    if snapshot is None:
        return None
    from ..store.db import StoreError
    from ..store.record import FetchRecorder

    try:
        return FetchRecorder(snapshot, start)
    except StoreError as exc:
        click.echo(f"urlset fetch: {exc}", err=True)
        sys.exit(2)


_ERRORS_SHOWN = 10  # on stderr, beyond the failed and partial sitemaps


def _report(result: DiscoveryResult, tree: bool, quiet: bool = False) -> None:
    """The summary on stderr: what failed, which caps were hit, partial or complete;
    ``quiet``: the errors only."""
    echo: Callable[[str], None] = lambda text: click.echo(text, err=True)  # noqa: E731
    if not tree:
        shown = 0
        for node in result.nodes():
            errors = [i for i in node.issues if i.severity is Severity.ERROR]
            if node.kind == "sitemap" and (node.failed or node.state is NodeState.PARTIAL):
                said = errors or node.issues
                reason = f"{said[0].code}: {said[0].message}" if said else str(node.state)
                label = "failed" if node.failed else "partial"
                echo(f"{label}: {node.url}: {reason}")
                errors = errors[1:]
            for issue in errors:
                shown += 1
                if shown <= _ERRORS_SHOWN:
                    echo(f"error {issue.code}: {node.url}: {issue.message}")
        if shown > _ERRORS_SHOWN:
            echo(f"... and {shown - _ERRORS_SHOWN} more errors (--tree shows them all)")
        for issue in result.issues:
            if not quiet or issue.severity is Severity.ERROR:
                echo(f"{issue.severity} {issue.code}: {issue.message}")
    if not quiet:
        echo("urlset fetch: " + summary(result))


__all__ = ["run"]

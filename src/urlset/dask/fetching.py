"""Many sites fetched on a Dask cluster into a partitioned Parquet dataset.

Sites are cut into batches; a batch is one task, so a site is always fetched by one worker
(its per-host limits hold across the cluster), with the usual fetcher and limits
(``fetching.http.fetch_sitemaps``), a few sites of the batch at a time. A batch writes three
files, each under a hidden temporary name and then renamed, so a reader of the dataset
never sees half a partition:

    out/urls/batch-00000.parquet     site, loc, lastmod, changefreq, priority, extensions, sitemap
    out/issues/batch-00000.parquet   site, sitemap, code, severity, message, line, column
    out/sites/batch-00000.parquet    one summary row per site (``SiteSummary``)

A worker that dies loses only the batch it was running: the scheduler runs that task again
on another worker, which writes the same three files (its earlier, unfinished temporary
files are hidden, and removed at the end of the run).
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from collections.abc import Iterable
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from ..errors import InvalidValue
from ..fetching.http import HttpOptions, fetch_sitemaps
from ..fetching.parse_pool import columns_of
from ..fetching.values import DiscoveryOptions, DiscoveryResult, SitemapRead
from ..model import Issue, Severity
from ..store.entries import Batches, arrow_schema
from .cluster import connect

KINDS = ("urls", "issues", "sites")
_AT_ONCE = 8  # sites of one batch fetched at the same time


@dataclass(frozen=True)
class SiteSummary:
    """One site's fetch: what was read, what went wrong, how long it took. ``failure``: why
    nothing could be read (the fetcher's first error: the connection refused, robots.txt
    unreachable, ...), or why the fetch broke off; None when some sitemap was read."""

    site: str
    batch: int
    sitemaps: int
    urls: int
    errors: int
    failed_sitemaps: int
    partial: bool
    seconds: float
    failure: str | None = None


def fetch_sites(
    sites: Iterable[str],
    out: str | os.PathLike[str],
    *,
    scheduler: str | None = None,
    client: Any = None,
    batch_size: int = 20,
    discovery: DiscoveryOptions | None = None,
    http: HttpOptions | None = None,
) -> list[SiteSummary]:
    """Fetch every site of ``sites`` (site, robots.txt or sitemap URLs; each once) on the
    cluster at ``scheduler`` (default: a local cluster) or ``client``, ``batch_size`` sites a
    task, into the dataset in ``out`` (a new or empty directory the workers can write).
    Returns one summary per site, in the order given."""
    todo = list(dict.fromkeys(sites))
    if batch_size < 1:
        raise InvalidValue("batch size", batch_size, "must be at least 1")
    root = Path(out)
    if root.exists() and any(root.iterdir()):
        raise InvalidValue("out", str(root), "holds files already; give a new or empty directory")
    for kind in KINDS:
        (root / kind).mkdir(parents=True, exist_ok=True)
    batches = [todo[i : i + batch_size] for i in range(0, len(todo), batch_size)]
    with connect(scheduler, client) as dask_client:
        futures = dask_client.map(
            fetch_batch,
            range(len(batches)),
            batches,
            out=str(root),
            discovery=discovery,
            http=http,
            pure=False,
        )
        try:
            done: list[list[SiteSummary]] = dask_client.gather(futures)
        finally:
            dask_client.cancel(futures)
            for kind in KINDS:  # what tasks lost with their workers had not finished
                for leftover in (root / kind).glob(".batch-*"):
                    leftover.unlink(missing_ok=True)
    order = {site: n for n, site in enumerate(todo)}
    return sorted((s for batch in done for s in batch), key=lambda s: order[s.site])


def fetch_batch(
    number: int,
    sites: list[str],
    out: str,
    discovery: DiscoveryOptions | None = None,
    http: HttpOptions | None = None,
) -> list[SiteSummary]:
    """One task: the batch's sites fetched, its three files written. The URL file is
    written as the sites are read (an Arrow table of at most 200,000 rows held at once)."""
    import pyarrow.parquet as pq

    root = Path(out)
    name = f"batch-{number:05d}.parquet"
    # hidden until renamed; the worker's pid and a random part keep attempts apart
    attempt = f"{os.getpid()}-{uuid.uuid4().hex}"
    temporary = {kind: root / kind / f".{name}.{attempt}" for kind in KINDS}
    writer = pq.ParquetWriter(temporary["urls"], _url_schema())
    try:
        summaries, issues = asyncio.run(_fetch_all(number, sites, writer, discovery, http))
        writer.close()
        _write_table(temporary["issues"], issues, _issue_schema())
        rows = {f.name: [getattr(s, f.name) for s in summaries] for f in fields(SiteSummary)}
        _write_table(temporary["sites"], rows, _site_schema())
        for kind in ("issues", "sites", "urls"):
            os.replace(temporary[kind], root / kind / name)
    finally:
        writer.close()
        for path in temporary.values():
            path.unlink(missing_ok=True)
    return summaries


async def _fetch_all(
    number: int,
    sites: list[str],
    writer: Any,
    discovery: DiscoveryOptions | None,
    http: HttpOptions | None,
) -> tuple[list[SiteSummary], dict[str, list[Any]]]:
    issues: dict[str, list[Any]] = {name: [] for name in _issue_schema().names}
    slots = asyncio.Semaphore(_AT_ONCE)

    async def one(site: str) -> SiteSummary:
        async with slots:
            return await _fetch_site(number, site, writer, issues, discovery, http)

    summaries = await asyncio.gather(*(one(site) for site in sites))
    return list(summaries), issues


async def _fetch_site(
    number: int,
    site: str,
    writer: Any,
    issues: dict[str, list[Any]],
    discovery: DiscoveryOptions | None,
    http: HttpOptions | None,
) -> SiteSummary:
    """One site fetched, its URLs written as they come, its issues collected."""
    import pyarrow as pa

    batches = Batches()

    def write(table: Any) -> None:
        writer.write_table(table.add_column(0, "site", pa.array([site] * len(table), pa.string())))

    def on_read(event: SitemapRead) -> None:
        urls = event.urls
        columns = columns_of(urls)
        full = batches.add(columns, event.node.url)
        if full is not None:
            write(full)

    started = time.monotonic()
    try:
        result = await fetch_sitemaps(site, discovery=discovery, http=http, on_read=on_read)
    except Exception as exc:  # a site that breaks the fetcher must not lose the batch
        return SiteSummary(site, number, 0, 0, 1, 0, True, time.monotonic() - started, repr(exc))
    rest = batches.take()
    if rest is not None:
        write(rest)
    _add_issues(issues, site, result)
    return SiteSummary(
        site,
        number,
        result.sitemaps_read,
        result.url_count,
        len(result.errors),
        len(result.failed),
        result.partial,
        round(time.monotonic() - started, 3),
        _failure(result),
    )


def _failure(result: DiscoveryResult) -> str | None:
    """Why a site gave nothing (its first error, e.g. the connection refused); None when
    some sitemap was read."""
    if not result.nothing:
        return None
    for node in result.nodes():
        for issue in node.issues:
            if issue.severity is Severity.ERROR:
                return f"{node.url}: {issue.message}"
    for issue in result.issues:
        if issue.severity is Severity.ERROR:
            return issue.message
    return "no sitemap was found"


def _add_issues(issues: dict[str, list[Any]], site: str, result: DiscoveryResult) -> None:
    found: list[tuple[str | None, Issue]] = [
        (node.url, issue) for node in result.nodes() for issue in node.issues
    ]
    found += [(None, issue) for issue in result.issues]
    for sitemap, issue in found:
        row = (site, sitemap, issue.code, issue.severity.value, issue.message)
        for name, value in zip(
            ("site", "sitemap", "code", "severity", "message"), row, strict=True
        ):
            issues[name].append(value)
        issues["line"].append(issue.line)
        issues["column"].append(issue.column)


def _write_table(path: Path, columns: dict[str, list[Any]], schema: Any) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    pq.write_table(pa.table(columns, schema=schema), path)


def _url_schema() -> Any:
    import pyarrow as pa

    return pa.schema([("site", pa.string()), *arrow_schema()])


def _issue_schema() -> Any:
    import pyarrow as pa

    text = pa.string()
    names = ("site", "sitemap", "code", "severity", "message")
    return pa.schema([*((n, text) for n in names), ("line", pa.int64()), ("column", pa.int64())])


def _site_schema() -> Any:
    import pyarrow as pa

    types = {str: pa.string(), int: pa.int64(), bool: pa.bool_(), float: pa.float64()}
    sample = SiteSummary("", 0, 0, 0, 0, 0, False, 0.0, "")
    return pa.schema(
        [
            (f.name, types[type(v)])
            for f, v in zip(fields(SiteSummary), astuple(sample), strict=True)
        ]
    )

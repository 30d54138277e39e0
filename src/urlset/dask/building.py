"""A stable sitemap set built on a Dask cluster, byte for byte the single-process one,
with or without sections.

The stable layout (``writing.stable``) makes a shard's content a function of the URLs in
its key range alone, so the work divides along the key space (the tasks: ``staging``):

1. each input partition is checked by the same ``checked_batches`` a local build runs (rules,
   scope, duplicates inside the partition), rendered, keyed in its section and sorted by
   key into a file in the build's staging directory; it returns a sample of its keys;
2. the driver cuts the key space into buckets by the samples (``plan.buckets_of``: trie
   nodes of about equal URL counts, wherever the keys crowd: a section, a directory) and
   hands runs of them to tasks; one reads the parts of every partition's file that overlap
   its run, in partition order, keeps the first copy of each loc (the one a single-process
   build keeps) and writes each bucket to a file, returning its URL count, entry bytes and
   typed flag. A worker holds one input partition or one run at a time, so its memory is
   bounded by those, not by the set (Dask's own shuffle, still selectable, made it grow
   with the whole set: BENCHMARKS.md);
3. the driver walks the trie over those counts (``plan.plan_shards``: the shards a local
   build finds, never across a section's node) and hands groups of shards to the workers,
   which write them with the local build's ``_ShardWriter`` (gzip, SHA-256, names by
   section and content);
4. the driver writes the index and the manifest and publishes, only once every shard is
   in staging: a failed or cancelled job leaves the published set as it was.

The staging directory lies inside ``out``, which every worker must be able to write (on a
local cluster it is; on a cluster of machines, a shared file system).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidValue, LimitExceeded
from ..writing.files import Publisher
from ..writing.options import BuildOptions, FileNames, prepare_build
from ..writing.report import BuildProblem, BuildReport
from ..writing.sections import Sections, sections_for
from ..writing.shards import Leaf, Node
from ..writing.sources import refused_header
from ..writing.stable import _publish, _sizing, note_section
from .cluster import connect
from .partitions import known, reader_message, reads_alone
from .plan import Plan, Sample, buckets_of, estimates, plan_shards, runs_of
from .staging import (
    HASHES,
    BucketRow,
    Drops,
    Spilled,
    find_conflicts,
    partition_frame,
    read_pickle,
    spill_partition,
    stage_buckets,
    stage_run,
    write_shards,
)

if TYPE_CHECKING:
    from dask.dataframe import DataFrame
    from distributed import Client

MAX_RUNS = 1 << 10  # runs of buckets step 2 makes at most
_BUCKET_URLS = 1 << 17  # URLs a bucket holds at most, by the samples (a shard task's part)
_MIN_BUCKET_URLS = 64
_EXAMPLES = 20
_SETTLE_SECONDS = 60  # after a failure, how long the other running tasks are waited for
_GROUP_URLS = 250_000  # URLs a shard-writing task holds at most (beyond one big node)


def build(
    data: DataFrame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    out: str | os.PathLike[str],
    base_url: str,
    *,
    scheduler: str | None = None,
    client: Client | None = None,
    input_format: str | None = None,
    partitions: int | None = None,
    shuffle_method: str | None = None,
    on_problem: Callable[[BuildProblem], None] | None = None,
    **options: Any,
) -> BuildReport:
    """Build the stable sitemap set of ``data`` into ``out`` on a Dask cluster.

    ``data``: a Dask DataFrame, or paths / fsspec URLs of Parquet (a file or a directory of
    partitions), CSV, TSV or JSON Lines, with the columns loc and optionally lastmod,
    changefreq, priority. ``scheduler``: the address of a running scheduler; without it and
    without ``client``, a local cluster runs the job. ``partitions``: how many tasks the
    shuffle gathers the buckets in (default: as many as the input has partitions, at most
    1,024); ``section``: as ``write_sitemaps`` takes it (a column name: a column of ``data``);
    ``shuffle_method``: "staging" (the default, through files in the staging directory)
    or Dask's own shuffle, "tasks" or "p2p", whose worker memory grows with the whole set.
    The other options are
    ``write_sitemaps``'s; the set is the one ``write_sitemaps(..., stable=True)`` writes
    from the partitions' rows in order, file for file and byte for byte, and the report
    counts the same (a warning about an entry that a later partition repeats is counted
    too, since partitions are checked apart)."""
    if options.get("dedupe") is False:
        raise InvalidValue("dedupe", False, "the Dask build always removes duplicates")
    options.setdefault("now", datetime.now(UTC))  # one clock for every worker's rules
    options["stable"] = True
    if options.get("section") is not None and not isinstance(options["section"], Sections):
        options["section"] = _sections(options["section"])
    opts, _scope, report, names = prepare_build(base_url, on_problem, options)
    with connect(scheduler, client) as dask_client:
        parts = _inputs(data, input_format, opts)
        with Publisher(Path(out), names.stale) as publisher:
            shape = (partitions, shuffle_method)
            work = (publisher.staging, dask_client, parts)
            leaves = _run(opts, report, names, work, shape)
            report.urls = sum(leaf.urls for leaf in leaves)
            _publish(leaves, set(), opts, opts.sitemap_directory(), report, publisher, names)
    return report


Inputs = tuple[list[Any], list[str | None], str | None]  # partitions, their files, format


def _inputs(
    data: DataFrame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    input_format: str | None,
    opts: BuildOptions,
) -> Inputs:
    """The partitions to check: each CSV, TSV or JSON Lines file read whole on a worker by
    the local build's reader (a line it cannot use skipped and reported at its file:line, as
    a local build does), else the delayed partitions of a Dask DataFrame of the input."""
    import dask.dataframe as dd

    if not isinstance(data, dd.DataFrame):
        paths, fmt = _parts_of(_paths_of(data), input_format)
        if reads_alone(fmt, opts):
            for path in paths:
                _readable(path)
            return [None] * len(paths), list(paths), fmt
    column = None if opts.section is None else opts.section.column
    frame = read_frame(data, input_format, () if column is None else (column,))
    parts = frame.to_delayed()
    return parts, _partition_sources(data, input_format, len(parts)), None


def _paths_of(data: str | os.PathLike[str] | Sequence[str | os.PathLike[str]]) -> list[str]:
    if isinstance(data, str | os.PathLike):
        return [os.fspath(data)]
    paths = [os.fspath(path) for path in data]
    if not paths:
        raise InvalidValue("input", paths, "give at least one path")
    return paths


def _partition_sources(data: object, input_format: str | None, count: int) -> list[str | None]:
    """The file each partition reads, where each reads one (CSV, TSV, JSON Lines: read
    whole, ``_read``); None for the others (a Parquet file's row groups, a DataFrame's)."""
    if isinstance(data, str | os.PathLike):
        data = [data]
    if not isinstance(data, list | tuple):
        return [None] * count
    paths, fmt = _parts_of(list(map(os.fspath, data)), input_format)
    if fmt == "parquet" or len(paths) != count:
        return [None] * count
    return list(paths)


def _sections(rule: object) -> Sections:
    """``section=`` as ``write_sitemaps`` takes it: a callable of the loc, ``path:N``, or the
    name of a column of the input (each partition reads its own: ``staging``)."""
    if isinstance(rule, str) and rule and not rule.startswith("path:"):
        return Sections.by_column(rule)
    return sections_for((), rule)[1]


def read_frame(
    data: DataFrame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    input_format: str | None = None,
    columns: tuple[str, ...] = (),
) -> DataFrame:
    """``data`` as a Dask DataFrame with the build's columns and ``columns`` (a section
    column), or InvalidValue naming a column the build cannot use, or the format it cannot
    tell."""
    import dask.dataframe as dd

    where = "the DataFrame's columns"
    if isinstance(data, dd.DataFrame):
        frame = data
    else:
        paths, fmt = _parts_of(_paths_of(data), input_format)
        for path in paths:
            _readable(path)
        try:
            frame = _read(dd, paths, fmt)
        except (ValueError, OSError) as exc:  # what the readers say about files they refuse
            reason = f"cannot be read as {fmt} ({reader_message(exc)})"
            raise InvalidValue("input", paths[0], reason) from None
        # Dask takes the first file's header (CSV, TSV) or keys for every partition's
        where = f"{paths[0]}:1" if fmt in ("csv", "tsv") else paths[0]
    unknown = [str(c) for c in frame.columns if not known(str(c)) and c not in columns]
    if "loc" not in frame.columns or unknown:
        raise refused_header(where, unknown)  # as a local build refuses it: exit 1
    return frame


def _readable(path: str) -> None:
    """A local input file that cannot be opened fails as it fails a local build (OSError:
    exit 2, the file and why); fsspec URLs and Parquet datasets are left to their readers."""
    if "://" in path or os.path.isdir(path):
        return
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise OSError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _read(dd: Any, paths: list[str], fmt: str) -> DataFrame:
    text = {"dtype": str, "keep_default_na": False}  # values as written; empty is absent
    if fmt == "parquet":
        return dd.read_parquet(paths)
    if fmt in ("csv", "tsv"):
        return dd.read_csv(paths, sep="," if fmt == "csv" else "\t", blocksize=None, **text)
    if fmt == "jsonl":
        import dask

        # extension keys hold objects (news: {...}); Dask would make them strings
        with dask.config.set({"dataframe.convert-string": False}):
            return dd.read_json(paths, lines=True, dtype=False, convert_dates=False, blocksize=None)
    raise InvalidValue("input format", fmt, "use parquet, csv, tsv or jsonl")


def _parts_of(paths: list[str], input_format: str | None) -> tuple[list[str], str]:
    """The paths to read and their format. A local directory is a dataset of parts: Parquet
    as it is, CSV, TSV or JSON Lines as its files (hidden ones and markers like _SUCCESS
    left out), whose names must tell one format unless ``input_format`` names it."""
    out: list[str] = []
    formats: set[str] = set()
    for path in paths:
        if not os.path.isdir(path):
            out.append(path)
            formats.add(input_format or _format_of(path))
            continue
        parts = sorted(
            os.path.join(path, name)
            for name in os.listdir(path)
            if not name.startswith((".", "_")) and os.path.isfile(os.path.join(path, name))
        )
        if not parts:
            raise InvalidValue("input", path, "is a directory without files")
        kinds = {input_format or _format_of(part) for part in parts}
        if kinds == {"parquet"}:
            out.append(path)  # a Parquet dataset, read whole
        else:
            out += parts
        formats |= kinds
    if len(formats) != 1:
        raise InvalidValue(
            "input format", sorted(formats), "the inputs mix formats; give one format"
        )
    return out, formats.pop()


def _format_of(path: str) -> str:
    name = path.rstrip("/").removesuffix(".gz").lower()
    if name.endswith((".parquet", ".pq")) or os.path.isdir(path):
        return "parquet"
    for suffix, fmt in (
        (".csv", "csv"),
        (".tsv", "tsv"),
        (".jsonl", "jsonl"),
        (".ndjson", "jsonl"),
    ):
        if name.endswith(suffix):
            return fmt
    if name.endswith(".txt"):
        reason = (
            "is a text list: the Dask build reads Parquet, CSV, TSV or JSON Lines "
            "(build a text list without it)"
        )
    else:
        reason = "cannot be told from the name; give input_format (--input-format)"
    raise InvalidValue("input format", path, reason)


def _run(
    opts: BuildOptions,
    report: BuildReport,
    names: FileNames,
    work: tuple[Path, Client, Inputs],
    shape: tuple[int | None, str | None],
) -> list[Leaf]:
    """Steps 1-3: the leaves of the set, written into ``staging`` by ``client``'s workers,
    in key order (``parts``: the input partitions, ``sources``: the file each reads, when
    known, ``fmt``: the format of those read whole by the local reader)."""
    import dask

    staging, client, (parts, sources, fmt) = work
    partitions, method = shape
    if method not in (None, "staging", "tasks", "p2p"):
        raise InvalidValue("shuffle method", method, "use staging, tasks or p2p")
    listen = report.listener is not None
    spill = dask.delayed(spill_partition, pure=False)
    spilled: list[Spilled] = _gather(
        client,
        client.compute(
            [
                spill(part, n, opts, str(staging), listen, sources[n], fmt)
                for n, part in enumerate(parts)
            ]
        ),
    )
    sections: dict[int, str] = {}  # a section's top key bits -> its name, across partitions
    for number, (_, _, found) in enumerate(spilled):
        _merge(report, *read_pickle(staging / f".dask-report-{number}"))
        for name in found.values():
            note_section(sections, name)
    samples: list[Sample] = [(keys, urls) for urls, keys, _ in spilled]
    total = sum(urls for urls, _, _ in spilled)
    if not total:
        raise LimitExceeded(report.nothing_written())
    count = max(1, min(partitions or len(parts), MAX_RUNS))
    drops = _conflicts(opts, len(spilled), str(staging), count, client)
    report.duplicates += sum(map(len, drops.values()))
    buckets = buckets_of(samples, min(_BUCKET_URLS, max(_MIN_BUCKET_URLS, total // (4 * count))))
    runs = runs_of(estimates(buckets, samples), count)
    if method in (None, "staging"):
        futures = client.map(
            stage_run, [buckets[run.start : run.stop] for run in runs], [run.start for run in runs],
            parts=len(spilled), staging=str(staging), drops=drops, pure=False,
        )  # fmt: skip
        rows = [row for staged in _gather(client, futures) for row in staged]
    else:
        counts = (len(spilled), len(runs), method)
        rows = _stage_through_dask(buckets, drops, str(staging), counts, client)
    urls, body, typed = [0] * len(buckets), [0] * len(buckets), [False] * len(buckets)
    for bucket, n, b, t, dropped in rows:
        report.duplicates += int(dropped)
        if bucket >= 0:
            urls[bucket], body[bucket], typed[bucket] = int(n), int(b), bool(t)
    sizing = _sizing(opts)
    groups = _groups(list(plan_shards(buckets, urls, body, typed, sizing)), urls, client)
    futures = client.map(
        write_shards, groups, opts=opts, staging=str(staging), names=names, sizing=sizing,
        sections=sections, pure=False,
    )  # fmt: skip
    written: list[list[Leaf]] = _gather(client, futures)
    return sorted((leaf for leaves in written for leaf in leaves), key=lambda leaf: leaf.node.lo)


def _conflicts(opts: BuildOptions, parts: int, staging: str, count: int, client: Client) -> Drops:
    """With sections by a column, the copies of a loc that a later partition places in
    another section than the first did (``staging.find_conflicts``), by partition."""
    drops: Drops = {}
    if opts.section is None or opts.section.column is None:
        return drops  # a loc's section is a function of the loc
    bounds = [HASHES * i // count for i in range(count + 1)]
    futures = client.map(
        find_conflicts, bounds[:-1], bounds[1:], parts=parts, staging=staging, pure=False
    )
    for found in _gather(client, futures):
        for number, hashes in found.items():
            drops.setdefault(number, set()).update(hashes)
    return drops


def _stage_through_dask(
    buckets: list[Node],
    drops: Drops,
    staging: str,
    shape: tuple[int, int, str],
    client: Client,
) -> list[BucketRow]:
    """Step 2 through Dask's shuffle ("tasks" or "p2p"), kept to measure against the
    staging one: each worker passes a share of the whole set's entry texts through it."""
    import dask
    import dask.dataframe as dd
    import pandas as pd

    meta = pd.DataFrame(
        {
            "bucket": pd.Series(dtype="int64"),
            "ordinal": pd.Series(dtype="int64"),
            "key": pd.Series(dtype="uint64"),
            "loc": pd.Series(dtype=object),
            "entry": pd.Series(dtype=object),
            "typed": pd.Series(dtype=bool),
        }
    )
    parts, count, method = shape
    los = [bucket.lo for bucket in buckets]
    read = dask.delayed(partition_frame, pure=False)
    with dask.config.set({"dataframe.convert-string": False}):  # texts stay objects
        entries = dd.from_delayed(
            [read(n, staging, los, drops) for n in range(parts)], meta=meta, verify_meta=False
        )
        columns = ("bucket", "urls", "body", "typed", "duplicates")
        stats = entries.shuffle(
            on="bucket", npartitions=count, shuffle_method=method
        ).map_partitions(
            stage_buckets,
            staging,
            meta=pd.DataFrame({k: pd.Series(dtype="int64") for k in columns}),
        )
    tables: list[pd.DataFrame] = _gather(client, client.compute(stats.to_delayed()))
    return [
        tuple(map(int, row))  # type: ignore[misc]
        for table in tables
        for row in table.itertuples(index=False)
    ]


def _gather(client: Client, futures: list[Any]) -> Any:
    """The futures' results, in order. When one fails, the others are left to end before
    the error goes on: cancelling does not stop a task already running on a worker, and
    one still writing into staging as the build removes it would leave files behind."""
    from distributed import wait

    try:
        return client.gather(futures)
    except BaseException:
        with contextlib.suppress(TimeoutError):  # Publisher retries the removal a while
            wait(futures, timeout=_SETTLE_SECONDS)
        raise
    finally:
        client.cancel(futures)


def _groups(plan: list[Plan], urls: list[int], client: Client) -> list[list[Plan]]:
    """The plan cut into runs of shards of about equal URL counts, a few per worker and
    at most about ``_GROUP_URLS`` each."""
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    target = max(1, min(_GROUP_URLS, sum(urls) // (4 * workers)))
    groups: list[list[Plan]] = [[]]
    held = 0
    for item in plan:
        if held >= target:
            groups.append([])
            held = 0
        groups[-1].append(item)
        held += sum(urls[b] for b in item[1])
    return groups


def _merge(report: BuildReport, part: BuildReport, problems: list[BuildProblem]) -> None:
    """A partition's report added to the build's, its problems passed on in input order."""
    report.duplicates += part.duplicates
    report.rejected.update(part.rejected)
    report.kept_without.update(part.kept_without)
    report.flagged.update(part.flagged)
    report.noted.update(part.noted)
    report.news_outside_window += part.news_outside_window
    report.excluded += part.excluded
    for mine, theirs in (
        (report.examples, part.examples),
        (report.warnings, part.warnings),
        (report.flag_examples, part.flag_examples),
        (report.note_examples, part.note_examples),
    ):
        mine += theirs[: max(0, _EXAMPLES - len(mine))]
    if report.listener is not None:
        for problem in problems:
            report.listener(problem)

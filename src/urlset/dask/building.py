"""A stable sitemap set built on a Dask cluster, byte for byte the single-process one.

The stable layout (``writing.stable``) makes a shard's content a function of the URLs in
its key range alone, so the work divides along the key space:

1. each input partition is checked by the same ``checked_batches`` a local build runs (rules,
   scope, duplicates inside the partition) and rendered to entry texts, each tagged with
   the top ``BUCKET_BITS`` of its loc's key and its place in the input (partition, row);
2. a shuffle on that bucket, through the build's staging directory: each partition writes
   its entries to one file per bucket group, then one task per group reads that group's
   files in partition order, keeps the first copy of each loc (the one a single-process
   build keeps) and writes each bucket to a file, returning its URL count, entry bytes and
   typed flag. A worker holds one input partition or one group at a time, so its memory is
   bounded by those, not by the set (Dask's own shuffle, still selectable, made it grow
   with the whole set: BENCHMARKS.md);
3. the driver walks the trie over those counts (``plan_shards``, the walk a local build
   makes) and hands groups of shards to the workers, which write them with the local
   build's ``_ShardWriter`` (gzip, SHA-256, names by content);
4. the driver writes the index and the manifest and publishes, only once every shard is
   in staging: a failed or cancelled job leaves the published set as it was.

The staging directory lies inside ``out``, which every worker must be able to write (on a
local cluster it is; on a cluster of machines, a shared file system).
"""

from __future__ import annotations

import contextlib
import os
import pickle
import tempfile
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidValue, LimitExceeded
from ..urls import Scope
from ..writing.checked import checked_batches
from ..writing.document import uses_typed_prefix
from ..writing.files import Publisher
from ..writing.options import BuildOptions, FileNames, prepare_build
from ..writing.report import BuildProblem, BuildReport
from ..writing.shards import SECTION_BITS, Leaf, Node, Sizing, entry_size, key_of
from ..writing.stable import (
    _publish,
    _ShardWriter,
    _sizing,
    _standalone,
    plan_shards,
    split_shard,
)
from .cluster import connect
from .partitions import known, partition_entries

if TYPE_CHECKING:
    import pandas as pd
    from dask.dataframe import DataFrame
    from distributed import Client

BUCKET_BITS = 10  # 1,024 buckets: ~1M URLs each at a billion, a shard group's working set
_ORDINAL_SHIFT = 40  # an entry's place: partition << 40 | row (a trillion rows a partition)
_EXAMPLES = 20
_SETTLE_SECONDS = 60  # after a failure, how long the other running tasks are waited for
_GROUP_URLS = 250_000  # URLs a shard-writing task holds at most (beyond one big node)
Plan = tuple[Node, range, bool, bool]  # a shard (or a bucket to split), its buckets, typed, fits


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
    without ``client``, a local cluster runs the job. ``partitions``: how many bucket groups the
    shuffle makes (default: as many as the input has partitions, at most 1,024);
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
    opts, _scope, report, names = prepare_build(base_url, on_problem, options)
    if opts.section is not None:
        raise InvalidValue(
            "section",
            opts.section.describe,
            f"a build on Dask has no sections: its shuffle buckets are the top {BUCKET_BITS} "
            f"bits of the key, inside the {SECTION_BITS} a section takes, so one worker would "
            "hold a whole section; build the sections without --dask, in one process (--stable "
            "works per section, and --update keeps a day's work small)",
        )
    with connect(scheduler, client) as dask_client:
        frame = read_frame(data, input_format)
        with Publisher(Path(out), names.stale) as publisher:
            shape = (partitions, shuffle_method)
            leaves = _run(frame, opts, report, names, publisher.staging, dask_client, shape)
            report.urls = sum(leaf.urls for leaf in leaves)
            _publish(leaves, set(), opts, opts.sitemap_directory(), report, publisher, names)
    return report


def read_frame(
    data: DataFrame | str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    input_format: str | None = None,
) -> DataFrame:
    """``data`` as a Dask DataFrame with the build's columns (InvalidValue naming a column
    the build cannot use, or the format it cannot tell)."""
    import dask.dataframe as dd

    if isinstance(data, dd.DataFrame):
        frame = data
    else:
        paths = (
            [os.fspath(data)] if isinstance(data, str | os.PathLike) else list(map(os.fspath, data))
        )
        if not paths:
            raise InvalidValue("input", paths, "give at least one path")
        paths, fmt = _parts_of(paths, input_format)
        try:
            frame = _read(dd, paths, fmt)
        except (ValueError, OSError) as exc:  # what the readers say about files they refuse
            raise InvalidValue("input", paths[0], f"cannot be read as {fmt} ({exc})") from None
    unknown = [str(c) for c in frame.columns if not known(str(c))]
    if "loc" not in frame.columns or unknown:
        raise InvalidValue(
            "columns",
            list(map(str, frame.columns)),
            "the Dask build reads loc and optionally lastmod, changefreq, priority, and the "
            "extension columns (image_*, video_*, news_*, alternates, alternate_<hreflang>) "
            "or keys (images, videos, news, alternates, extensions) a local build reads"
            + (f"; drop {', '.join(unknown)}" if unknown else "; loc is missing"),
        )
    return frame


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
    raise InvalidValue(
        "input format", path, "cannot be told from the name; give input_format (--input-format)"
    )


def _run(
    frame: DataFrame,
    opts: BuildOptions,
    report: BuildReport,
    names: FileNames,
    staging: Path,
    client: Client,
    shape: tuple[int | None, str | None],
) -> list[Leaf]:
    """Steps 1-3: the leaves of the set, written into ``staging``, in key order."""
    listen = report.listener is not None
    partitions, method = shape
    count = max(1, min(partitions or frame.npartitions, 1 << BUCKET_BITS))
    if method in (None, "staging"):
        rows = _stage_through_files(frame, opts, str(staging), listen, count, client)
    elif method in ("tasks", "p2p"):
        rows = _stage_through_dask(frame, opts, str(staging), listen, count, method, client)
    else:
        raise InvalidValue("shuffle method", method, "use staging, tasks or p2p")
    for number in range(frame.npartitions):
        _merge(report, *_read_pickle(staging / f".dask-report-{number}"))
    size = 1 << BUCKET_BITS
    urls, body, typed = [0] * size, [0] * size, [False] * size
    for bucket, n, b, t, dropped in rows:
        report.duplicates += int(dropped)
        if bucket >= 0:
            urls[bucket], body[bucket], typed[bucket] = int(n), int(b), bool(t)
    if not sum(urls):
        raise LimitExceeded(report.nothing_written())
    sizing = _sizing(opts)
    groups = _groups(list(plan_shards(urls, body, typed, sizing, BUCKET_BITS)), urls, client)
    futures = client.map(
        _write_shards,
        groups,
        opts=opts,
        staging=str(staging),
        names=names,
        sizing=sizing,
        pure=False,
    )
    written: list[list[Leaf]] = _gather(client, futures)
    return sorted((leaf for leaves in written for leaf in leaves), key=lambda leaf: leaf.node.lo)


BucketRow = tuple[int, int, int, int, int]  # bucket (-1: none), URLs, body, typed, duplicates


def _stage_through_files(
    frame: DataFrame, opts: BuildOptions, staging: str, listen: bool, count: int, client: Client
) -> list[BucketRow]:
    """Step 2 through the staging directory: each input partition writes its entries to
    one file per bucket group (``_spill_partition``), then one task per group reads that
    group's files in partition order (``_stage_group``). A worker holds one partition or
    one group at a time, never a share of the whole set."""
    import pandas as pd

    spilled = frame.map_partitions(
        _spill_partition,
        opts,
        staging,
        listen,
        count,
        meta=pd.DataFrame({"entries": pd.Series(dtype="int64")}),
        enforce_metadata=False,
    )
    _gather(client, client.compute(spilled.to_delayed()))
    futures = client.map(
        _stage_group, range(count), parts=frame.npartitions, count=count, staging=staging,
        pure=False,
    )  # fmt: skip
    staged: list[list[BucketRow]] = _gather(client, futures)
    return [row for rows in staged for row in rows]


def _stage_through_dask(
    frame: DataFrame,
    opts: BuildOptions,
    staging: str,
    listen: bool,
    count: int,
    method: str,
    client: Client,
) -> list[BucketRow]:
    """Step 2 through Dask's shuffle ("tasks" or "p2p"), kept to measure against the
    staging one: each worker passes a share of the whole set's entry texts through it."""
    import pandas as pd

    meta = pd.DataFrame(
        {
            "bucket": pd.Series(dtype="int64"),
            "ordinal": pd.Series(dtype="int64"),
            "loc": pd.Series(dtype=object),
            "entry": pd.Series(dtype=object),
            "typed": pd.Series(dtype=bool),
        }
    )
    entries = frame.map_partitions(
        _check_partition, opts, staging, listen, meta=meta, enforce_metadata=False
    )
    columns = ("bucket", "urls", "body", "typed", "duplicates")
    stats = entries.shuffle(on="bucket", npartitions=count, shuffle_method=method).map_partitions(
        _stage_buckets, staging, meta=pd.DataFrame({k: pd.Series(dtype="int64") for k in columns})
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


Entries = tuple[list[int], list[str], list[str], list[bool]]  # buckets, locs, texts, typed


def _entries(
    frame: pd.DataFrame, opts: BuildOptions, staging: str, listen: bool, number: int
) -> Entries:
    """Step 1 for input partition ``number``: its entries checked and rendered, each with
    its bucket, in input order. The partition's report (with its problems when they are
    listened to) goes to a file in staging, which the driver reads once every partition is
    done."""
    problems: list[BuildProblem] = []
    report = BuildReport(listener=problems.append if listen else None)
    scope = Scope.of(opts.base_directory())
    locs: list[str] = []
    texts: list[str] = []
    typed: list[bool] = []
    with tempfile.TemporaryDirectory(prefix="urlset-dask-") as spill:
        entries = partition_entries(frame, opts, number)
        for batch in checked_batches(entries, opts, scope, report, Path(spill)):
            batch_locs, batch_texts = _standalone(batch, opts)
            locs += batch_locs
            texts += batch_texts
            if uses_typed_prefix("".join(batch_texts)):
                typed += map(uses_typed_prefix, batch_texts)
            else:
                typed += repeat(False, len(batch_texts))
    report.listener = None
    _write_pickle(Path(staging) / f".dask-report-{number}", (report, problems))
    shift = 64 - BUCKET_BITS
    return [key_of(loc) >> shift for loc in locs], locs, texts, typed


def _number(partition_info: dict[str, Any] | None) -> int:
    return 0 if partition_info is None else int(partition_info["number"])


def _group_of(bucket: int, count: int) -> int:
    """The bucket group (of ``count``, each a run of whole buckets) ``bucket`` falls in."""
    return bucket * count >> BUCKET_BITS


def _spill_partition(
    frame: pd.DataFrame,
    opts: BuildOptions,
    staging: str,
    listen: bool,
    count: int,
    partition_info: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Step 1, then the first half of step 2: the partition's entries written to one file
    per bucket group, ``.dask-part-{group}-{partition}`` (hidden name, then renamed)."""
    import pandas as pd

    number = _number(partition_info)
    buckets, locs, texts, typed = _entries(frame, opts, staging, listen, number)
    spread: dict[int, Entries] = {}
    for bucket, loc, text, flag in zip(buckets, locs, texts, typed, strict=True):
        into = spread.setdefault(_group_of(bucket, count), ([], [], [], []))
        into[0].append(bucket)
        into[1].append(loc)
        into[2].append(text)
        into[3].append(flag)
    for group, held in spread.items():
        _write_pickle(Path(staging) / f".dask-part-{group}-{number}", held)
    return pd.DataFrame({"entries": [len(locs)]})


def _stage_group(group: int, parts: int, count: int, staging: str) -> list[BucketRow]:
    """The second half of step 2 for one bucket group: its files read in partition order,
    the first copy of each loc kept (the one a single-process build keeps), each bucket
    written to staging; a row per bucket with its counts, and one (bucket -1) with the
    duplicates dropped."""
    kept: dict[int, dict[str, str]] = {}
    typed: set[int] = set()
    dropped = 0
    for number in range(parts):
        try:
            buckets, locs, texts, flags = _read_pickle(
                Path(staging) / f".dask-part-{group}-{number}"
            )
        except FileNotFoundError:
            continue  # none of the partition's entries fell in this group
        for bucket, loc, text, flag in zip(buckets, locs, texts, flags, strict=True):
            items = kept.setdefault(bucket, {})
            if loc in items:
                dropped += 1
            else:
                items[loc] = text
                if flag:
                    typed.add(bucket)
    rows: list[BucketRow] = [(-1, 0, 0, 0, dropped)]
    for bucket in sorted(kept):
        items = kept.pop(bucket)
        _write_pickle(Path(staging) / f".dask-bucket-{bucket}", (list(items), list(items.values())))
        rows.append(
            (bucket, len(items), entry_size("".join(items.values())), int(bucket in typed), 0)
        )
    return rows


def _check_partition(
    frame: pd.DataFrame,
    opts: BuildOptions,
    staging: str,
    listen: bool,
    partition_info: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """Step 1 for Dask's shuffle: the entries as a frame, each with its place in the input
    (partition, row)."""
    import pandas as pd

    number = _number(partition_info)
    buckets, locs, texts, typed = _entries(frame, opts, staging, listen, number)
    first = number << _ORDINAL_SHIFT
    return pd.DataFrame(
        {
            "bucket": pd.Series(buckets, dtype="int64"),
            "ordinal": pd.Series(range(first, first + len(locs)), dtype="int64"),
            "loc": pd.Series(locs, dtype=object),
            "entry": pd.Series(texts, dtype=object),
            "typed": pd.Series(typed, dtype=bool),
        }
    )


def _stage_buckets(frame: pd.DataFrame, staging: str) -> pd.DataFrame:
    """Step 2 for one part of the shuffle: each loc's first entry kept, each bucket written
    to staging (to a temporary name, then renamed: a retried task never leaves half a file);
    a row per bucket with its counts, and one (bucket -1) with the duplicates dropped."""
    import pandas as pd

    ordered = frame.sort_values("ordinal", kind="stable")
    unique = ordered.drop_duplicates("loc", keep="first")
    rows = [(-1, 0, 0, 0, len(ordered) - len(unique))]
    for bucket, group in unique.groupby("bucket", sort=True):
        locs = [str(loc) for loc in group["loc"]]
        texts = [str(text) for text in group["entry"]]
        _write_pickle(Path(staging) / f".dask-bucket-{bucket}", (locs, texts))
        body = entry_size("".join(texts))
        rows.append((int(bucket), len(locs), body, int(group["typed"].any()), 0))
    return pd.DataFrame(rows, columns=["bucket", "urls", "body", "typed", "duplicates"])


def _write_pickle(path: Path, value: object) -> None:
    """``value`` in ``path``, written under a temporary name and renamed: a task retried
    after its worker died never leaves half a file."""
    temporary = path.with_name(f"{path.name}.{uuid.uuid4().hex}")
    with open(temporary, "wb") as file:
        pickle.dump(value, file, pickle.HIGHEST_PROTOCOL)
    os.replace(temporary, path)


def _read_pickle(path: Path) -> Any:
    with open(path, "rb") as file:
        return pickle.load(file)


def _read_bucket(staging: str, bucket: int) -> dict[str, str]:
    try:
        locs, texts = _read_pickle(Path(staging) / f".dask-bucket-{bucket}")
    except FileNotFoundError:
        return {}  # no entry fell in this bucket
    return dict(zip(locs, texts, strict=True))


def _write_shards(
    plan: list[Plan], opts: BuildOptions, staging: str, names: FileNames, sizing: Sizing
) -> list[Leaf]:
    """Step 3 for a run of shards: each written by the local build's writer."""
    writer = _ShardWriter(opts, Path(staging), names)
    try:
        for node, buckets, typed, fits in plan:
            items: dict[str, str] = {}
            for bucket in buckets:
                items.update(_read_bucket(staging, bucket))
            if fits and not typed:  # with extensions, its news entries are counted too
                writer.write(node, items, typed)
            else:
                for at, shard, flag in split_shard(node, items, sizing, typed=typed):
                    writer.write(at, shard, flag)
        return writer.close()
    finally:
        writer.discard()


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

"""The Dask build's tasks (on the workers), each reading and writing the build's staging
directory; the driver (``building``) runs them in order.

1. ``spill_partition``: an input partition checked by the local build's ``checked_batches``
   and rendered, each entry keyed in its section as a local build keys it, sorted by key and
   pickled in chunks (``.dask-part-N``, with the first key of each chunk in
   ``.dask-part-N-index``); returned: the partition's URL count, a sample of its keys and its
   sections. With sections by a column, a loc's section is the input's word, which two
   partitions may say differently: each also writes its locs' hashes and sections
   (``.dask-sections-N``), and ``find_conflicts`` finds, by ranges of the hash, the copies
   to leave out (a later partition's in another section than the first copy's);
2. ``stage_run``: a run of buckets (``plan.buckets_of``) gathered from every partition's
   chunks that overlap it, in partition order, the first copy of each loc kept (the one a
   single-process build keeps), each bucket pickled (``.dask-bucket-I``) and counted;
3. ``write_shards``: shards planned over the counts (``plan.plan_shards``), written by the
   local build's ``_ShardWriter``.

Every file is written under a temporary name and renamed: a task retried after its worker
died never leaves half a file.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import uuid
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import replace
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InvalidValue
from ..urls import Scope
from ..writing.checked import checked_batches
from ..writing.document import uses_typed_prefix
from ..writing.options import BuildOptions, FileNames, base_prefix
from ..writing.report import BuildProblem, BuildReport
from ..writing.sections import Sections, sections_for
from ..writing.shards import Leaf, Node, Sizing, entry_size
from ..writing.stable import SECTION_MASK, _ShardWriter, _standalone, keys_of, split_shard
from .partitions import file_entries, partition_entries
from .plan import Plan, sample_of

if TYPE_CHECKING:
    import pandas as pd

_CHUNK = 4096  # entries a pickled chunk of a partition's file holds
SAMPLE = 512  # keys a partition returns for the driver to cut the buckets by
_ORDINAL_SHIFT = 40  # an entry's place: partition << 40 | row (a trillion rows a partition)
BucketRow = tuple[int, int, int, int, int]  # bucket (-1: none), URLs, body, typed, duplicates
Spilled = tuple[int, list[int], dict[int, str]]  # URLs, sampled keys, sections by top key bits
Chunk = tuple[list[int], list[str], list[str], list[bool]]  # keys, locs, texts, typed
Drops = dict[int, set[int]]  # partition -> the hashes of the locs it must leave out


def spill_partition(
    frame: pd.DataFrame | None,
    number: int,
    opts: BuildOptions,
    staging: str,
    listen: bool,
    source: str | None = None,
    fmt: str | None = None,
) -> Spilled:
    """Step 1 for input partition ``number``: the rows of ``frame``, read from ``source``
    (a file, when the partition is one), or without ``frame``, the file ``source`` read by
    the local build's reader as ``fmt``. Its report (with its problems when they are
    listened to) goes to ``.dask-report-N``, which the driver reads once every partition is
    done."""
    problems: list[BuildProblem] = []
    report = BuildReport(listener=problems.append if listen else None)
    given = frame
    scope = Scope.of(opts.base_directory())
    sections: dict[int, str] = {}
    keyed: list[tuple[int, str, str, bool]] = []
    try:
        if frame is None:  # the reader names each line at fault: file:line
            assert source is not None and fmt is not None
            entries, opts = file_entries(source, fmt, opts)
        else:
            frame, opts = _with_sections(frame, opts)
            entries = partition_entries(frame, opts, number)
        with tempfile.TemporaryDirectory(prefix="urlset-dask-") as spill:
            for batch in checked_batches(entries, opts, scope, report, Path(spill)):
                locs, texts = _standalone(batch, opts)
                if uses_typed_prefix("".join(texts)):
                    typed: Iterator[bool] = map(uses_typed_prefix, texts)
                else:
                    typed = repeat(False, len(texts))
                keyed += zip(keys_of(locs, opts, sections), locs, texts, typed, strict=True)
    except InvalidValue as exc:  # a value that fails the build (--strict, scope, a section)
        if given is None:
            raise  # said at its file:line by the reader
        raise located(exc, given, source or f"partition {number} of the input") from None
    if source is not None and given is not None:
        _placed(report, problems, source)
    report.listener = None
    write_pickle(Path(staging) / f".dask-report-{number}", (report, problems))
    keyed.sort(key=lambda entry: entry[0])  # stable: the partition's order among equal keys
    write_sorted(Path(staging) / f".dask-part-{number}", keyed)
    if opts.section is not None and opts.section.column is not None:
        tops = sorted((loc_hash(loc), key & SECTION_MASK) for key, loc, _, _ in keyed)
        write_sorted(Path(staging) / f".dask-sections-{number}", tops)
    return len(keyed), sample_of([entry[0] for entry in keyed], SAMPLE), sections


def _placed(report: BuildReport, problems: list[BuildProblem], source: str) -> None:
    """The entries the partition left out or wrote without a value, said to be in
    ``source`` (its file) as a local build names the file; not their lines, which the
    partition's rows come without."""
    for examples in (report.examples, report.warnings):
        examples[:] = [e if e.startswith(source) else f"{source}: {e}" for e in examples]
    own = report.rejected.keys() | report.kept_without.keys()
    problems[:] = [
        p._replace(source=source) if p.source is None and p.code in own else p for p in problems
    ]


def located(exc: InvalidValue, frame: pd.DataFrame, source: str) -> InvalidValue:
    """``exc`` saying where: the partition's file (or number) and the first data row that
    holds the value. Not its line: the partition's rows come without their line numbers
    (a reader skips blank lines), so the row is counted among the data rows."""
    row = None
    wanted = str(exc.value)
    for column in sorted(frame.columns, key=lambda name: name != exc.field):
        values = frame[column].astype(str).tolist()
        if wanted in values:
            row = values.index(wanted) + 1
            break
    at = source if row is None else f"{source}, data row {row}"
    reason = f"{exc.reason} (in {at}; the Dask build reads rows without their line numbers)"
    return InvalidValue(exc.field, exc.value, reason)


def write_sorted(path: Path, rows: Sequence[tuple[Any, ...]]) -> None:
    """``rows``, sorted by their first value, in pickled chunks of columns in ``path``, and
    the first value and offset of each chunk in ``path`` + ``-index`` (``chunks_of``)."""
    firsts: list[Any] = []
    offsets: list[int] = []
    temporary = path.with_name(f"{path.name}.{uuid.uuid4().hex}")
    with open(temporary, "wb") as file:
        for start in range(0, len(rows), _CHUNK):
            chunk = rows[start : start + _CHUNK]
            firsts.append(chunk[0][0])
            offsets.append(file.tell())
            pickle.dump(tuple(map(list, zip(*chunk, strict=True))), file, pickle.HIGHEST_PROTOCOL)
    os.replace(temporary, path)
    write_pickle(path.with_name(f"{path.name}-index"), (firsts, offsets))


def loc_hash(loc: str) -> int:
    """128 bits of a hash of ``loc`` (two locs that share them: about never)."""
    return int.from_bytes(hashlib.blake2b(loc.encode(), digest_size=16).digest(), "big")


def _with_sections(frame: pd.DataFrame, opts: BuildOptions) -> tuple[pd.DataFrame, BuildOptions]:
    """With sections by a column of the input: the partition without that column, and the
    sections it names (as a local build reads a table's: ``sections_for``)."""
    column = None if opts.section is None else opts.section.column
    if column is None:
        return frame, opts
    if column not in frame.columns:
        return frame, replace(opts, section=Sections.by_column(column))
    _, sections = sections_for(frame[["loc", column]], column, base_prefix(opts.base_url))
    return frame.drop(columns=[column]), replace(opts, section=sections)


def chunks_of(path: Path, lo: int, hi: int) -> Iterator[Any]:
    """The chunks of a file ``write_sorted`` wrote that may hold first values in [lo, hi)."""
    firsts, offsets = read_pickle(path.with_name(f"{path.name}-index"))
    start = max(0, bisect_left(firsts, lo) - 1)  # the chunk before may reach into the range
    with open(path, "rb") as file:
        for at in range(start, len(firsts)):
            if firsts[at] >= hi:
                return
            file.seek(offsets[at])
            yield pickle.load(file)


HASHES = 1 << 128  # the range of ``loc_hash``


def find_conflicts(lo: int, hi: int, parts: int, staging: str) -> dict[int, list[int]]:
    """With sections by a column: the locs (by ``loc_hash`` in [lo, hi)) that a partition
    places in another section than the first partition that has them did, by partition.
    A local build keeps the first copy of a loc, in its section; these copies lie in
    another section's key range, where no run would meet the first, so they are dropped
    by hash."""
    first: dict[int, int] = {}  # a loc's hash -> the top key bits of its first section
    found: dict[int, list[int]] = {}
    for number in range(parts):
        for hashes, tops in chunks_of(Path(staging) / f".dask-sections-{number}", lo, hi):
            for at, top in zip(hashes, tops, strict=True):
                if lo <= at < hi and first.setdefault(at, top) != top:
                    found.setdefault(number, []).append(at)
    return found


def stage_run(
    buckets: list[Node], first: int, parts: int, staging: str, drops: Drops
) -> list[BucketRow]:
    """Step 2 for the run of ``buckets`` numbered from ``first``: a row per bucket with its
    counts, and one (bucket -1) with the duplicates dropped (not counting the ``drops``:
    ``find_conflicts``'s, counted by the driver)."""
    lo, hi = buckets[0].lo, buckets[-1].hi
    los = [bucket.lo for bucket in buckets]
    kept: list[dict[str, tuple[str, int]]] = [{} for _ in buckets]
    typed = [False] * len(buckets)
    dropped = 0
    for number in range(parts):
        dropping = drops.get(number)
        for keys, locs, texts, flags in chunks_of(Path(staging) / f".dask-part-{number}", lo, hi):
            for key, loc, text, flag in zip(keys, locs, texts, flags, strict=True):
                if not lo <= key < hi or (dropping and loc_hash(loc) in dropping):
                    continue
                at = bisect_left(los, key + 1) - 1
                if loc in kept[at]:
                    dropped += 1
                else:
                    kept[at][loc] = text, key
                    typed[at] |= flag
    rows: list[BucketRow] = [(-1, 0, 0, 0, dropped)]
    for at, items in enumerate(kept):
        if items:
            write_pickle(Path(staging) / f".dask-bucket-{first + at}", items)
            body = entry_size("".join(text for text, _ in items.values()))
            rows.append((first + at, len(items), body, int(typed[at]), 0))
    return rows


def partition_frame(number: int, staging: str, los: list[int], drops: Drops) -> pd.DataFrame:
    """Partition ``number``'s entries (but its ``drops``) as a frame for Dask's shuffle,
    each with its bucket (of those starting at ``los``) and its place in the input
    (partition, row)."""
    import pandas as pd

    columns: Chunk = ([], [], [], [])
    dropping = drops.get(number)
    for chunk in chunks_of(Path(staging) / f".dask-part-{number}", 0, 1 << 64):
        for row in zip(*chunk, strict=True):
            if not dropping or loc_hash(row[1]) not in dropping:
                for into, value in zip(columns, row, strict=True):
                    into.append(value)  # type: ignore[attr-defined]
    keys, locs, texts, typed = columns
    first = number << _ORDINAL_SHIFT
    return pd.DataFrame(
        {
            "bucket": pd.Series([bisect_left(los, k + 1) - 1 for k in keys], dtype="int64"),
            "ordinal": pd.Series(range(first, first + len(locs)), dtype="int64"),
            "key": pd.Series(keys, dtype="uint64"),
            "loc": pd.Series(locs, dtype=object),
            "entry": pd.Series(texts, dtype=object),
            "typed": pd.Series(typed, dtype=bool),
        }
    )


def stage_buckets(frame: pd.DataFrame, staging: str) -> pd.DataFrame:
    """Step 2 for one part of Dask's shuffle: each loc's first entry kept, each bucket
    pickled; a row per bucket with its counts, and one (bucket -1) with the duplicates."""
    import pandas as pd

    ordered = frame.sort_values("ordinal", kind="stable")
    unique = ordered.drop_duplicates("loc", keep="first")
    rows = [(-1, 0, 0, 0, len(ordered) - len(unique))]
    for bucket, group in unique.groupby("bucket", sort=True):
        texts = [str(text) for text in group["entry"]]
        keys = map(int, group["key"])
        items = dict(zip(map(str, group["loc"]), zip(texts, keys, strict=True), strict=True))
        write_pickle(Path(staging) / f".dask-bucket-{bucket}", items)
        body = entry_size("".join(texts))
        rows.append((int(bucket), len(items), body, int(group["typed"].any()), 0))
    return pd.DataFrame(rows, columns=["bucket", "urls", "body", "typed", "duplicates"])


def write_shards(
    plan: list[Plan],
    opts: BuildOptions,
    staging: str,
    names: FileNames,
    sizing: Sizing,
    sections: dict[int, str],
) -> list[Leaf]:
    """Step 3 for a run of shards: each written by the local build's writer, in its section
    (``sections``: the set's, by their top key bits)."""
    writer = _ShardWriter(opts, Path(staging), names)
    try:
        for node, buckets, typed, fits in plan:
            held: dict[str, tuple[str, int]] = {}
            for bucket in buckets:
                held.update(_read_bucket(staging, bucket))
            items = {loc: text for loc, (text, _) in held.items()}

            def section_of(loc: str, held: dict[str, tuple[str, int]] = held) -> str | None:
                return sections.get(held[loc][1] & SECTION_MASK)

            if fits and not typed:  # with extensions, its news entries are counted too
                shards: Any = [(node, items, typed)]
            else:
                shards = split_shard(node, items, sizing, typed=typed, section_of=section_of)
            for at, shard, flag in shards:
                section = sections.get(at.lo & SECTION_MASK) if shard and opts.section else None
                writer.write(at, shard, flag, section)
        return writer.close()
    finally:
        writer.discard()


def write_pickle(path: Path, value: object) -> None:
    """``value`` in ``path``, written under a temporary name and renamed."""
    temporary = path.with_name(f"{path.name}.{uuid.uuid4().hex}")
    with open(temporary, "wb") as file:
        pickle.dump(value, file, pickle.HIGHEST_PROTOCOL)
    os.replace(temporary, path)


def read_pickle(path: Path) -> Any:
    with open(path, "rb") as file:
        return pickle.load(file)


def _read_bucket(staging: str, bucket: int) -> dict[str, tuple[str, int]]:
    try:
        items: dict[str, tuple[str, int]] = read_pickle(Path(staging) / f".dask-bucket-{bucket}")
    except FileNotFoundError:
        return {}  # no entry fell in this bucket
    return items

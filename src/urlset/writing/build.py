"""Building a sitemap set: entries in, split documents plus index out, published atomically.

``write_sitemaps`` is the whole job: it checks and de-duplicates entries, fills documents up
to the URL and byte limits (counted exactly by ``SitemapDocument``), writes an index when
there is more than one document, and publishes through ``files.Publisher``.
"""

from __future__ import annotations

import mmap
import os
import re
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import tzinfo
from itertools import islice, repeat
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from ..dates import Lastmod, instant
from ..errors import InputError, InvalidValue, LimitExceeded, PublishError
from ..extensions import JSON_KEYS, from_json_fields
from ..limits import CURRENT, Limits
from ..model import SitemapRef, Url, row_columns, urls_from_rows
from ..urls import Scope, to_uri
from .document import (
    DocumentStats,
    EntryTooLarge,
    Rendered,
    SitemapDocument,
    index_document,
    render_rows,
    urlset_header,
)
from .files import DEFAULT_GZIP_LEVEL, FileSink, Publisher, gzip_bytes

_BATCH = 8192  # entries written at once (~1 MiB of XML); 16k: no faster, 10 MB more
_FINISHING = 2  # files compressing beside the one being written (each holds at most ~4 MiB)
_SEAL_AT = 1 << 19  # hashes in a run that goes to disk (4 MiB)
_READ_WHOLE_RUN = 512  # probes of one batch above which a sealed run is read whole
_CHUNK = 1 << 16  # hashes read from a sealed run at a time (512 KiB)
_EXAMPLES = 20  # rejected entries described one by one in the report; the rest are counted


class FileReport(NamedTuple):
    """One published file: its name, public URL, entries, uncompressed and on-disk bytes."""

    name: str
    url: str
    entries: int
    bytes: int
    written: int
    lastmod: Lastmod | None


@dataclass
class BuildReport:
    """What a build wrote and what it left out, and why."""

    files: list[FileReport] = field(default_factory=list)
    indexes: list[FileReport] = field(default_factory=list)
    urls: int = 0
    duplicates: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    @property
    def entry_points(self) -> list[str]:
        """The URLs to list in robots.txt (``Sitemap:`` lines) and to submit."""
        return [f.url for f in (self.indexes or self.files)]

    def nothing_written(self) -> str:
        """Why a build wrote no URL, with the first rejected entries."""
        if not self.rejected and not self.duplicates:
            return "no URLs to write: the input is empty"
        counts = [f"{kind}: {count:,}" for kind, count in self.rejected.most_common()]
        if self.duplicates:
            counts.append(f"duplicate: {self.duplicates:,}")
        first = "".join(f"\n  {example}" for example in self.examples[:5])
        return f"no URLs to write: every entry was left out ({', '.join(counts)}){first}"

    def reject(self, kind: str, message: str) -> None:
        self.rejected[kind] += 1
        if len(self.examples) < _EXAMPLES:
            self.examples.append(message)


def _own_pages(count: int, dtype: type[np.generic]) -> np.ndarray[Any, Any]:
    """An array in its own anonymous mapping: long-lived traces of all sizes come and go as
    runs merge, and from malloc they would leave the heap fragmented (~13 MB at 10M URLs)."""
    size = count * np.dtype(dtype).itemsize
    return np.frombuffer(mmap.mmap(-1, max(size, 1)), dtype=dtype, count=count)


def _file_chunks(path: Path) -> Iterator[np.ndarray[Any, np.dtype[np.uint64]]]:
    with open(path, "rb") as file:
        while len(chunk := np.fromfile(file, dtype=np.uint64, count=_CHUNK)):
            yield chunk


def _merged(
    first: Iterator[np.ndarray[Any, np.dtype[np.uint64]]],
    second: Iterator[np.ndarray[Any, np.dtype[np.uint64]]],
) -> Iterator[np.ndarray[Any, np.dtype[np.uint64]]]:
    """Two streams of ascending chunks of hashes as one ascending stream (no hash in both)."""
    empty = np.empty(0, dtype=np.uint64)
    a, b = next(first, empty), next(second, empty)
    while len(a) and len(b):
        cut = min(a[-1], b[-1])  # everything up to it is in hand on both sides
        at_a, at_b = int(np.searchsorted(a, cut, "right")), int(np.searchsorted(b, cut, "right"))
        out = np.concatenate((a[:at_a], b[:at_b]))
        out.sort()
        yield out
        a, b = a[at_a:], b[at_b:]
        if not len(a):
            a = next(first, empty)
        if not len(b):
            b = next(second, empty)
    for rest, stream in ((a, first), (b, second)):
        if len(rest):
            yield rest
        yield from stream


class _SealedRun:
    """A sorted run of 64-bit hashes kept in a file, with 18 bits a hash in memory.

    The run is cut into about len/16 buckets by the hashes' top bits; memory holds where each
    bucket starts and, for every hash, the 16 bits after its bucket's (its tag). A probe whose
    bucket holds its tag (1 in ~4,096 for a loc never seen, every loc seen before) is read
    back from the file, so the answer stays exact. Built from ascending chunks of hashes,
    so that merging two runs never holds more than a few chunks of full hashes.
    """

    def __init__(
        self, path: Path, chunks: Iterable[np.ndarray[Any, np.dtype[np.uint64]]], count: int
    ) -> None:
        self.path, self.count = path, count
        bits = max(1, count.bit_length() - 5)
        self._shift = shift = 64 - bits
        self._starts = _own_pages((1 << bits) + 1, np.uint32)
        self._tags = _own_pages(count, np.uint16)
        done, bucket = 0, 0  # hashes written; buckets whose start is known
        try:
            with open(path, "wb") as file:
                for chunk in chunks:
                    file.write(np.ascontiguousarray(chunk).data)  # tofile loses the errno
                    ids = chunk >> shift
                    last = int(ids[-1]) + 1
                    # buckets up to the chunk's last start in it: earlier chunks hold only lower ones
                    self._starts[bucket:last] = done + np.searchsorted(ids, np.arange(bucket, last))
                    # storing into uint16 keeps the low 16 bits: the tag
                    self._tags[done : done + len(chunk)] = chunk >> (shift - 16)
                    done, bucket = done + len(chunk), last
        except OSError as exc:
            raise PublishError(
                f"{path}: the duplicate check could not keep its hashes on disk "
                f"({exc.strerror or exc}); free space there, or turn de-duplication off "
                "(--no-dedupe, dedupe=False) for input known to be unique"
            ) from exc
        self._starts[bucket:] = done
        self._depth = int(np.diff(self._starts).max()).bit_length()  # binary-search steps
        self._fd = os.open(path, os.O_RDONLY)

    def close(self) -> Path:
        """Close the file and give back its path (the trace goes with this object)."""
        os.close(self._fd)
        return self.path

    def holds(self, probes: np.ndarray[Any, np.dtype[np.uint64]]) -> np.ndarray[Any, Any]:
        """For each probe, whether it is in the run."""
        buckets = (probes >> self._shift).astype(np.intp)
        low = self._starts[buckets].astype(np.intp)
        end = self._starts[buckets + 1].astype(np.intp)
        tags = ((probes >> (self._shift - 16)) & 0xFFFF).astype(np.uint16)
        high, last = end.copy(), self.count - 1
        for _ in range(self._depth):  # the first tag >= the probe's, in its bucket
            middle = (low + high) >> 1
            open_ = low < high
            less = self._tags[np.minimum(middle, last)] < tags
            low = np.where(open_ & less, middle + 1, low)
            high = np.where(open_ & ~less, middle, high)
        maybe = np.flatnonzero((low < end) & (self._tags[np.minimum(low, last)] == tags))
        found = np.zeros(len(probes), dtype=bool)
        if len(maybe) > _READ_WHOLE_RUN:  # cheaper than that many reads
            wanted = probes[maybe]
            hit = np.zeros(len(maybe), dtype=bool)
            for chunk in _file_chunks(self.path):
                at = np.minimum(np.searchsorted(chunk, wanted), len(chunk) - 1)
                hit |= chunk[at] == wanted
            found[maybe] = hit
            return found
        for i in maybe.tolist():
            first = stop = int(low[i])
            while stop < end[i] and self._tags[stop] == tags[i]:
                stop += 1
            window = os.pread(self._fd, 8 * (stop - first), 8 * first)
            found[i] = probes[i] in np.frombuffer(window, dtype=np.uint64)
        return found


class SeenLocs:
    """The locs written so far, as 64-bit hashes: exact, and 18 bits a loc in memory at scale.

    New hashes go into sorted runs in memory, merged when a newer run grows to half the size
    of the one before it. A run that reaches ``seal_at`` hashes (4 MiB) is sealed: written to
    a file in ``spill_dir`` and kept in memory as a ``_SealedRun`` trace (2.3 bytes a loc),
    so ten million URLs take ~25 MB, not 80; sealed runs merge the same way, file to file, so
    a lookup visits a few of them. Without a ``spill_dir`` every run stays whole in memory.
    Two distinct locs share a 64-bit hash with probability about n**2 / 2**65 (3e-6 for ten
    million URLs); such a loc would be counted as a duplicate.
    """

    def __init__(self, spill_dir: Path | None = None, *, seal_at: int = _SEAL_AT) -> None:
        self._runs: list[np.ndarray[Any, np.dtype[np.uint64]]] = []
        self._sealed: list[_SealedRun] = []
        self._spill_dir = spill_dir
        self._seal_at = seal_at
        self._files = 0

    def first_seen(self, locs: list[str]) -> list[bool]:
        """For each loc, whether it is new (not seen before, not earlier in this batch); records them."""
        hashes = np.fromiter(map(hash, locs), dtype=np.int64, count=len(locs)).view(np.uint64)
        keep: list[bool] = self.first_seen_hashes(hashes).tolist()
        return keep

    def first_seen_hashes(
        self, hashes: np.ndarray[Any, np.dtype[np.uint64]]
    ) -> np.ndarray[Any, np.dtype[np.bool_]]:
        """``first_seen`` for the locs' hashes: a boolean array."""
        # look up each distinct hash once, in sorted order (cache-friendly), then map back
        ordered = np.sort(hashes)
        repeats = bool((ordered[1:] == ordered[:-1]).any())
        if repeats:  # a loc twice in the batch: the first one counts (argsort, 10x a sort)
            unique, first = np.unique(hashes, return_index=True)
        else:
            unique = ordered
        fresh = np.ones(len(unique), dtype=bool)
        for run in self._runs:
            at = np.minimum(np.searchsorted(run, unique), len(run) - 1)
            fresh &= run[at] != unique
        if self._sealed and fresh.any():
            fresh = self._not_sealed(unique, fresh)
        if repeats:
            keep = np.zeros(len(hashes), dtype=bool)
            keep[first[fresh]] = True
        elif fresh.all():
            keep = np.ones(len(hashes), dtype=bool)
        else:
            keep = np.isin(hashes, unique[fresh])
        if fresh.any():
            self._record(unique[fresh])
        return keep

    def _not_sealed(
        self, unique: np.ndarray[Any, np.dtype[np.uint64]], fresh: np.ndarray[Any, Any]
    ) -> np.ndarray[Any, Any]:
        """``fresh`` less the hashes some sealed run holds."""
        unsure = np.flatnonzero(fresh)
        for sealed in self._sealed:
            unsure = unsure[~sealed.holds(unique[unsure])]
        fresh = np.zeros(len(unique), dtype=bool)
        fresh[unsure] = True
        return fresh

    def _record(self, new: np.ndarray[Any, np.dtype[np.uint64]]) -> None:
        runs, seal_at = self._runs, self._seal_at
        runs.append(new)
        while len(runs) > 1 and 2 * len(runs[-1]) >= len(runs[-2]) and len(runs[-2]) < seal_at:
            newer = runs.pop()
            merged = np.concatenate((runs[-1], newer))
            merged.sort(kind="stable")  # two sorted runs: timsort merges them in one pass
            runs[-1] = merged
        while self._spill_dir is not None and runs and len(runs[0]) >= seal_at:
            hashes = runs.pop(0)  # in chunks: the trace's temporaries stay about a MiB
            self._seal((hashes[i : i + _CHUNK] for i in range(0, len(hashes), _CHUNK)), len(hashes))

    def _seal(self, chunks: Iterable[np.ndarray[Any, np.dtype[np.uint64]]], count: int) -> None:
        assert self._spill_dir is not None
        self._files += 1
        sealed = self._sealed
        sealed.append(_SealedRun(self._spill_dir / f".seen-{self._files}", chunks, count))
        if len(sealed) > 1 and 2 * sealed[-1].count >= sealed[-2].count:
            count = sealed[-1].count + sealed[-2].count
            newer, older = sealed.pop().close(), sealed.pop().close()  # traces freed first
            self._seal(_merged(_file_chunks(older), _file_chunks(newer)), count)
            older.unlink()
            newer.unlink()

    def close(self) -> None:
        """Close and remove the files of sealed runs."""
        for sealed in self._sealed:
            sealed.close().unlink()
        self._sealed.clear()


@dataclass(frozen=True)
class BuildOptions:
    """How a set is written. ``base_url`` is the directory URL the files will be served from."""

    base_url: str
    limits: Limits = CURRENT
    gzip: bool = True
    text: bool = False
    prefix: str = "sitemap"
    xsl: str | None = None
    schema_location: bool = False
    skip_out_of_scope: bool = False
    strict: bool = False
    dedupe: bool = True
    default_tz: tzinfo | None = None
    gzip_level: int = DEFAULT_GZIP_LEVEL

    def base_directory(self) -> str:
        uri = to_uri(self.base_url, field="base URL")
        last = uri.rsplit("/", 1)[1]
        if "?" in uri:
            raise InvalidValue("base URL", self.base_url, "must not have a query")
        if re.search(r"\.(xml|txt|gz)$", last, re.IGNORECASE):
            raise InvalidValue(
                "base URL",
                self.base_url,
                "names a file; give the directory the sitemaps are served from, "
                "e.g. https://example.com/",
            )
        return uri if uri.endswith("/") else uri + "/"


Entry = Url | tuple[Any, ...] | Mapping[str, Any] | InputError


def write_sitemaps(
    entries: Iterable[Entry],
    out_dir: str | Path,
    base_url: str,
    *,
    progress: Callable[[int], object] | None = None,
    **options: Any,
) -> BuildReport:
    """Write ``entries`` as a published sitemap set in ``out_dir``; see BuildOptions for options.

    Entries are ``Url`` values, (loc, lastmod, changefreq, priority) rows (the fastest:
    checked a column at a time), mappings with those keys, or ``InputError`` values a source
    produced for a line it could not read. Bad entries are
    left out and reported; with ``strict=True`` the first one raises and nothing is published.
    A URL outside the base URL's scope raises ``InvalidValue`` unless ``skip_out_of_scope``.
    """
    opts = BuildOptions(base_url, **options)
    directory = opts.base_directory()
    scope = Scope.of(directory)
    report = BuildReport()
    names = _Names(opts.prefix, gzip=opts.gzip, text=opts.text)
    with Publisher(Path(out_dir), names.stale) as publisher:
        parts = _write_parts(entries, opts, scope, report, publisher.staging, names, progress)
        if not parts:
            raise LimitExceeded(report.nothing_written())
        children, indexes = _finish(parts, opts, directory, report, publisher.staging, names)
        report.removed = publisher.publish(children, indexes)
    return report


class _Names:
    def __init__(self, prefix: str, *, gzip: bool, text: bool) -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", prefix):
            raise InvalidValue("prefix", prefix, "use letters, digits, '.', '_' and '-' only")
        self.prefix = prefix
        self.gz = ".gz" if gzip else ""
        self.ext = ".txt" if text else ".xml"
        self.stale = re.compile(rf"{re.escape(prefix)}(?:-index)?(?:-\d+)?\.(?:xml|txt)(?:\.gz)?")

    def part(self, number: int) -> str:
        return f"{self.prefix}-{number}{self.ext}{self.gz}"

    def single(self) -> str:
        return f"{self.prefix}{self.ext}{self.gz}"

    def index(self, number: int, count: int) -> str:
        if count == 1:
            return f"{self.prefix}.xml{self.gz}"
        return f"{self.prefix}-index-{number}.xml{self.gz}"


class _Part(NamedTuple):
    name: str
    entries: int
    bytes: int
    written: int
    lastmod: Lastmod | None


def _checked(
    entries: Iterable[Entry],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    spill_dir: Path,
) -> Iterator[list[Url] | Rendered]:
    """Batches of valid, in-scope, first-seen URLs; rejected entries go to the report.

    A batch of rows whose values all pass the column checks, inside the scope, is rendered
    at once and never becomes ``Url`` values (the fast path); any other batch goes entry by
    entry."""
    seen = SeenLocs(spill_dir)
    try:
        prefix = scope.prefix
        iterator = iter(entries)
        while batch := list(islice(iterator, _BATCH)):
            kinds = set(map(type, batch))
            columns = None
            if kinds == {tuple}:
                columns = row_columns(batch, prefix, default_tz=opts.default_tz)  # type: ignore[arg-type]
            rendered = None if columns is None else render_rows(columns, text=opts.text)
            if rendered is not None:
                new = seen.first_seen(rendered.locs) if opts.dedupe else [True]
                if not all(new):
                    report.duplicates += new.count(False)
                    rendered = rendered.select(new)
                if rendered:
                    yield rendered
                continue
            if kinds == {Url}:
                good: list[Url] = batch  # type: ignore[assignment]
            elif kinds == {tuple}:
                good = _from_rows(batch, opts, report)  # type: ignore[arg-type]
            else:
                good = [url for url in map(_convert, batch, repeat(opts), repeat(report)) if url]
            locs = [url[0] for url in good]
            if not all(map(str.startswith, locs, repeat(prefix))):
                good = [url for url in good if _in_scope(url, scope, opts, report)]
                locs = [url[0] for url in good]
            new = seen.first_seen(locs) if opts.dedupe else [True]
            if not all(new):
                report.duplicates += new.count(False)
                good = [url for url, fresh in zip(good, new, strict=True) if fresh]
            if good:
                yield good
    finally:
        seen.close()


def _in_scope(url: Url, scope: Scope, opts: BuildOptions, report: BuildReport) -> bool:
    reason = scope.violation(url.loc)
    if reason is None:
        return True
    prefix = scope.prefix
    if not opts.skip_out_of_scope or opts.strict:
        raise InvalidValue("loc", url.loc, f"{reason}; sitemap served from {prefix}")
    report.reject(
        "out of scope", f"{url.loc}: not allowed in a sitemap served from {prefix}: {reason}"
    )
    return False


def _from_rows(rows: list[tuple[Any, ...]], opts: BuildOptions, report: BuildReport) -> list[Url]:
    converted = urls_from_rows(rows, default_tz=opts.default_tz)
    if InvalidValue not in set(map(type, converted)):
        return converted  # type: ignore[return-value]
    return [url for url in map(_convert, converted, repeat(opts), repeat(report)) if url]


def _convert(entry: object, opts: BuildOptions, report: BuildReport) -> Url | None:
    try:
        if isinstance(entry, (InputError, InvalidValue)):
            raise entry
        if isinstance(entry, Url):
            return entry
        if isinstance(entry, tuple):
            return Url(*entry, default_tz=opts.default_tz)
        if isinstance(entry, Mapping):
            fields = {k: v for k, v in entry.items() if k not in JSON_KEYS}
            if len(fields) < len(entry):  # images, videos, news, alternates, raw extensions
                fields["extensions"] = from_json_fields(entry)
            return Url.from_dict(fields, default_tz=opts.default_tz)
        raise InvalidValue(
            "entry", entry, "must be a Url, a (loc, lastmod, changefreq, priority) row or a mapping"
        )
    except (InvalidValue, InputError) as exc:
        if opts.strict:
            raise
        kind = "unreadable line" if exc.field == "line" else f"invalid {exc.field}"
        report.reject(kind, str(exc))
        return None
    except TypeError:
        error = InvalidValue("entry", entry, "a row is (loc, lastmod, changefreq, priority)")
        if opts.strict:
            raise error from None
        report.reject("invalid entry", str(error))
        return None


def _write_parts(
    entries: Iterable[Entry],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    staging: Path,
    names: _Names,
    progress: Callable[[int], object] | None,
) -> list[_Part]:
    limits = opts.limits
    header = "" if opts.text else urlset_header(xsl=opts.xsl, schema_location=opts.schema_location)
    parts: list[_Part] = []
    sink: FileSink | None = None
    document: SitemapDocument | None = None
    # closed documents whose files still compress and fsync on their own threads, oldest first
    finishing: deque[tuple[FileSink, DocumentStats]] = deque()

    def settle() -> None:
        done, stats = finishing.popleft()
        done.wait()
        parts.append(
            _Part(done.path.name, stats.urls, stats.bytes, done.written, stats.newest_lastmod)
        )

    def close_current() -> None:
        assert sink is not None and document is not None
        finishing.append((sink, document.close()))
        sink.finish()
        if len(finishing) > _FINISHING:
            settle()

    try:
        for batch in _checked(entries, opts, scope, report, staging):
            start = 0
            while start < len(batch):
                if document is None:
                    sink = FileSink(
                        staging / names.part(len(parts) + len(finishing) + 1),
                        gzip=opts.gzip,
                        level=opts.gzip_level,
                    )
                    document = SitemapDocument(
                        sink,
                        max_urls=limits.max_urls,
                        max_bytes=limits.max_bytes,
                        text=opts.text,
                        header=header,
                    )
                start = document.add(batch, start)
                if start < len(batch):
                    close_current()
                    document = None
            report.urls += len(batch)
            if progress is not None:
                progress(report.urls)
        if document is not None:
            close_current()
            document = None
        while finishing:
            settle()
    except EntryTooLarge as exc:
        raise LimitExceeded(
            f"{exc.url.loc[:100]}: this entry alone is {exc.size} bytes and cannot fit in a "
            f"sitemap of at most {limits.max_bytes} bytes; raise the byte limit"
        ) from None
    finally:
        if document is not None and sink is not None:
            sink.discard()
        for unsettled, _ in finishing:
            unsettled.discard()
    return parts


def _finish(
    parts: list[_Part],
    opts: BuildOptions,
    directory: str,
    report: BuildReport,
    staging: Path,
    names: _Names,
) -> tuple[list[str], list[str]]:
    """Name the parts, write the index or indexes; return (children, indexes) to publish."""
    if len(parts) == 1:
        part = parts[0]
        (staging / part.name).rename(staging / names.single())
        parts = [part._replace(name=names.single())]
    for part in parts:
        report.files.append(FileReport(part.name, directory + part.name, *part[1:]))
    if len(parts) == 1:
        return [parts[0].name], []
    per_index = opts.limits.max_sitemaps_per_index
    groups = [report.files[i : i + per_index] for i in range(0, len(report.files), per_index)]
    if len(groups) > opts.limits.max_sitemaps_per_index:
        raise LimitExceeded(
            f"{len(report.files)} sitemaps need more than {per_index} indexes; "
            "that many URLs cannot be listed under this profile"
        )
    indexes = []
    for number, group in enumerate(groups, 1):
        name = names.index(number, len(groups))
        refs = [SitemapRef._trusted(f.url, f.lastmod) for f in group]
        data = index_document(refs, xsl=opts.xsl, schema_location=opts.schema_location).encode()
        if len(data) > opts.limits.max_bytes:
            raise LimitExceeded(
                f"index {name} would be {len(data)} bytes, over the limit of {opts.limits.max_bytes}"
            )
        written = gzip_bytes(data, opts.gzip_level) if opts.gzip else data
        _write_file(staging / name, written)
        newest = max((f.lastmod for f in group if f.lastmod is not None), default=None, key=instant)
        report.indexes.append(
            FileReport(name, directory + name, len(group), len(data), len(written), newest)
        )
        indexes.append(name)
    return [f.name for f in report.files], indexes


def _write_file(path: Path, data: bytes) -> None:
    sink = FileSink(path, gzip=False)
    sink(data)
    sink.close()

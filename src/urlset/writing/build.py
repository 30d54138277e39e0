"""Building a sitemap set: entries in, split documents plus index out, published atomically.

``write_sitemaps`` is the whole job: it checks and de-duplicates entries, fills documents up
to the URL and byte limits (counted exactly by ``SitemapDocument``), writes an index when
there is more than one document, and publishes through ``files.Publisher``.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, tzinfo
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..dates import Lastmod, instant
from ..errors import InputError, InvalidValue, LimitExceeded
from ..extensions import JSON_KEYS, from_json_fields
from ..limits import CURRENT, Limits
from ..model import SitemapRef, Url, row_from_dict, url_keeping_loc, urls_from_rows
from ..urls import Scope, non_production_host, placeholder_host, plain_directory, to_uri
from .compiled import refused_runs, render_batch, rows_between, without_future
from .dedupe import SeenLocs
from .document import (
    DocumentStats,
    EntryTooLarge,
    Rendered,
    SitemapDocument,
    index_document,
    urlset_header,
)
from .entry_rules import EntryRules
from .files import DEFAULT_GZIP_LEVEL, FileSink, Publisher, gzip_bytes

# the build's API names them from here
from .report import BuildProblem as BuildProblem
from .report import BuildReport as BuildReport
from .report import FileReport as FileReport
from .source_rows import SourceEntries, SourceRows, entry_batches
from .tables import TableBatch

if TYPE_CHECKING:
    from .shards import Change  # named in annotations only: shards loads with a stable build

_BATCH = 8192  # entries written at once (~1 MiB of XML); 16k: no faster, 10 MB more
_FINISHING = 2  # files compressing beside the one being written (each holds at most ~4 MiB)
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


@dataclass(frozen=True)
class BuildOptions:
    """How a set is written. ``base_url`` is the scope every URL must lie under and, unless
    ``sitemap_url`` names another, the directory URL the files will be served from.
    ``sitemap_url``: the directory URL the files will be served from, on another host or
    path; the index's child locs and the entry points name it, and the protocol then needs
    the robots.txt of the base URL's host to list the entry points (a cross-submit)."""

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
    sitemap_url: str | None = None
    now: datetime | None = (
        None  # for the rules check shares (future lastmod, news age); None: the clock
    )
    stable: bool = False  # shards by a hash of the loc, for incremental rebuilds (stable.py)
    # called with each batch as it is written (a list of Urls, or rows the core rendered:
    # ``locs``, no extensions): the set-wide rules on what was written (hreflang)
    on_written: Callable[[Any], object] | None = None

    def base_directory(self) -> str:
        return _directory(self.base_url, "base URL")

    def sitemap_directory(self) -> str:
        """The directory URL the files will be served from."""
        if self.sitemap_url is None:
            return self.base_directory()
        return _directory(self.sitemap_url, "sitemap URL")


def _directory(url: str, name: str) -> str:
    uri = to_uri(url, field=name)
    last = uri.rsplit("/", 1)[1]
    if "?" in uri:
        raise InvalidValue(name, url, "must not have a query")
    if re.search(r"\.(xml|txt|gz)$", last, re.IGNORECASE):
        hint = "names a file; give the directory the sitemaps are served from, e.g. https://example.com/"
        raise InvalidValue(name, url, hint)
    return uri if uri.endswith("/") else uri + "/"


Entry = Url | tuple[Any, ...] | Mapping[str, Any] | InputError | SourceRows | SourceEntries


def write_sitemaps(
    entries: Iterable[Entry],
    out_dir: str | Path,
    base_url: str,
    *,
    progress: Callable[[int], object] | None = None,
    on_problem: Callable[[BuildProblem], None] | None = None,
    on_change: Callable[[Change], None] | None = None,
    **options: Any,
) -> BuildReport:
    """Write ``entries`` as a published sitemap set in ``out_dir``; see BuildOptions for options.

    Entries are ``Url`` values, (loc, lastmod, changefreq, priority) rows (fast: checked and
    written in the compiled core), mappings with those keys, or ``InputError`` values a
    source produced for a line it could not use; or ``entries`` is a table with those
    columns (the fastest: an Arrow table or record batch, a pandas or Polars DataFrame, any
    object exporting an Arrow stream; see ``writing.tables``), read without a Python object
    per URL. An entry whose loc is bad is left out; one with a bad lastmod, changefreq or
    priority is written without that value (an empty string, None or NaN is an absent value,
    not a bad one). Both are counted in the report, and each is passed to ``on_problem`` as a
    ``BuildProblem``; with ``strict=True`` the first one raises and nothing is published.
    A URL outside the base URL's scope raises ``InvalidValue`` unless ``skip_out_of_scope``,
    also when ``sitemap_url`` says the files will be served from elsewhere.
    With ``stable=True`` the URLs are sharded by a hash of their loc (``writing.stable``):
    ``on_change`` then receives each URL added, removed or changed against the set in
    ``out_dir``, and ``update_sitemaps`` can change the set without building it again.
    """
    opts, scope, report, names = prepare_build(base_url, on_problem, options)
    directory = opts.sitemap_directory()
    if opts.stable:
        from .stable import build_stable

        with Publisher(Path(out_dir), names.stale) as publisher:
            build_stable(entries, opts, scope, report, publisher, names, progress, on_change)
        note_repaired(report, publisher)
        return report
    with Publisher(Path(out_dir), names.stale) as publisher:
        parts = _write_parts(entries, opts, scope, report, publisher.staging, names, progress)
        if not parts:
            raise LimitExceeded(report.nothing_written())
        sets = _finish(parts, opts, directory, report, publisher.staging, names)
        report.removed = publisher.publish(sets)
    note_repaired(report, publisher)
    return report


def note_repaired(report: BuildReport, publisher: Publisher) -> None:
    """Say which published files were damaged in place and written again."""
    if publisher.repaired:
        report.notes["damaged-file"] = (
            f"{', '.join(publisher.repaired)}: damaged in place (other bytes, same size); "
            "written again"
        )


def prepare_build(
    base_url: str, on_problem: Callable[[BuildProblem], None] | None, options: dict[str, Any]
) -> tuple[BuildOptions, Scope, BuildReport, _Names]:
    """A build's options, scope, report (with the notes about the whole set) and names."""
    opts = BuildOptions(base_url, **options)
    scope = Scope.of(opts.base_directory())
    report = BuildReport(listener=on_problem)
    not_public = non_production_host(scope.host)
    if not_public is not None:
        report.notes["dev-host"] = f"{not_public}: search engines will not crawl these URLs"
    placeholder = placeholder_host(scope.host)
    if placeholder is not None:
        report.notes["placeholder-host"] = f"{placeholder}: set the site's public URL as --base-url"
    report.robots_txt = scope.prefix.removesuffix(scope.directory) + "/robots.txt"
    names = _Names(opts.prefix, gzip=opts.gzip, text=opts.text)
    report.entry_point_names = re.compile(re.escape(opts.sitemap_directory()) + names.stale.pattern)
    return opts, scope, report, names


class _Names:
    """The file names of a set. A child of an index is named by its number and the first
    ``DIGITS`` hex digits of the SHA-256 of its bytes (``sitemap-1-3fa9c2d1e5b60a47.xml.gz``):
    a rebuild gives an unchanged child its name and bytes again, and a changed one a new name,
    so publishing a child never alters a file a published index lists. 16 digits (64 bits):
    the publisher takes a file already in place under a child's name (and size) for that
    child, so a changed child must never take its old name: with 64 bits, the chance is
    2**-64 for each changed child (8 digits would make it 1 in 4 billion, which a site
    rebuilding hundreds of children a day for years could meet). The index and a set's only
    file keep fixed names (robots.txt names them); the unhashed child names of earlier
    versions still count as ours when stale."""

    DIGITS = 16

    def __init__(self, prefix: str, *, gzip: bool, text: bool) -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", prefix):
            raise InvalidValue("prefix", prefix, "use letters, digits, '.', '_' and '-' only")
        self.prefix = prefix
        self.gz = ".gz" if gzip else ""
        self.ext = ".txt" if text else ".xml"
        self.stale = re.compile(
            rf"{re.escape(prefix)}(?:-index(?:-\d+)?|-\d+(?:-[0-9a-f]{{{self.DIGITS}}})?)?"
            rf"\.(?:xml|txt)(?:\.gz)?|\.{re.escape(prefix)}-manifest-[0-9a-f]{{16}}\.json"
        )

    def staged(self, number: int) -> str:
        """The name a part is written under in the staging directory, before its hash is known."""
        return f"{self.prefix}-{number}{self.ext}{self.gz}"

    def child(self, number: int, digest: str) -> str:
        return f"{self.prefix}-{number}-{digest[: self.DIGITS]}{self.ext}{self.gz}"

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
    digest: str


def _checked(
    entries: Iterable[Entry],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    spill_dir: Path,
) -> Iterator[list[Url] | Rendered]:
    """Batches of valid, in-scope, first-seen URLs; rejected entries go to the report.

    A batch of rows (a list of rows, a table's, a source's ``SourceRows``) is rendered in the
    compiled core and never becomes ``Url`` values (the fast path); a row the core refuses
    goes entry by entry on its own, in its place (``compiled.refused_runs``), counted by
    reason in ``report.left_core``, as is a batch that cannot go the fast way at all."""
    seen = SeenLocs(spill_dir)
    rules = EntryRules(opts.now or datetime.now(UTC), report, strict=opts.strict)
    now = (rules.now - _EPOCH) // _MICROSECOND  # as the core compares lastmods
    # rows are rendered at once only without a zone to apply, under a plain directory
    bypass = "default-tz" if opts.default_tz is not None else None
    if bypass is None and not plain_directory(scope.prefix):
        bypass = "base-url"
    try:
        for given, kinds in entry_batches(entries, _BATCH):
            rendered = render_batch(given, kinds, scope.prefix, opts.text, report.left_core, bypass)
            if rendered is None:
                yield from _one_by_one(given, kinds, opts, scope, report, seen, rules)
                continue
            errors = deque(given.errors if kinds == {SourceRows} else ())  # unreadable lines
            count = len(given)
            refused = rendered.refused()
            if not rendered.all_current(now):  # each such entry the rules leave without it
                rendered, refused = without_future(rendered, count, rendered.future(now))
            for start, end, run in refused_runs(rendered, count, refused):
                while errors and errors[0][0] <= (start if run is None else end):
                    _from_input_error(errors.popleft()[1], opts, report)  # in their place
                if run is None:
                    part = rows_between(given, start, end)  # with the errors among its rows
                    while errors and errors[0][0] < end:
                        errors.popleft()
                    yield from _one_by_one(part, kinds, opts, scope, report, seen, rules)
                    continue
                if opts.dedupe:
                    fresh = seen.first_seen_packed(run.hashes())
                    if 0 in fresh:
                        report.duplicates += fresh.count(0)
                        run = run.select(fresh)
                for index, text in run.without_day():  # reported, written as given
                    rules.without_day(run.locs[index], text)
                if run:
                    if opts.on_written is not None:
                        opts.on_written(run)
                    yield run
            for _, error in errors:
                _from_input_error(error, opts, report)
            for _, why in refused:
                report.left_core[why] += 1
    finally:
        seen.close()


def _one_by_one(
    given: Any,
    kinds: set[type],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    seen: SeenLocs,
    rules: EntryRules,
) -> Iterator[list[Url]]:
    """A batch entry by entry: each checked, converted, its problems reported."""
    lines: tuple[str, dict[str, int]] | None = None  # a source's line of each loc
    if kinds == {SourceEntries}:
        given = given.entries
        kinds = set(map(type, given))
    if kinds == {SourceRows}:
        lines = (given.source, given.lines_by_loc())
        given = given.entries()
        kinds = set(map(type, given))
    if kinds == {TableBatch}:
        given = given.rows()
        kinds = set(map(type, given))
    if kinds == {Url}:
        good: list[Url] = given
    elif kinds == {tuple}:
        good = _from_rows(given, opts, report)
    else:
        good = [
            url
            for url in map(_convert, given, given, repeat(opts), repeat(report))
            if url is not None
        ]
    prefix = scope.prefix
    locs = [url[0] for url in good]
    if not all(map(str.startswith, locs, repeat(prefix))):
        good = [url for url in good if _in_scope(url, scope, opts, report, lines)]
        locs = [url[0] for url in good]
    new = seen.first_seen(locs) if opts.dedupe else [True]
    if not all(new):
        report.duplicates += new.count(False)
        good = [url for url, fresh in zip(good, new, strict=True) if fresh]
    if good:
        good = rules.apply(good)
        if opts.on_written is not None:
            opts.on_written(good)
        yield good


def _in_scope(
    url: Url,
    scope: Scope,
    opts: BuildOptions,
    report: BuildReport,
    lines: tuple[str, dict[str, int]] | None = None,
) -> bool:
    """Whether ``url`` lies in the scope; one outside is reported (with its source and
    line, from ``lines`` when known) or raises."""
    reason = scope.violation(url.loc)
    if reason is None:
        return True
    prefix = scope.prefix
    where = (
        f"sitemap served from {prefix}"
        if opts.sitemap_url is None
        else f"sitemap set for URLs under {prefix}"
    )
    source, line = (None, None) if lines is None else (lines[0], lines[1].get(url.loc))
    if not opts.skip_out_of_scope or opts.strict:
        at = "" if line is None else f" ({source}:{line})"
        raise InvalidValue("loc", url.loc, f"{reason}; {where}{at}")
    message = f"{url.loc}: not allowed in a {where}: {reason}"
    if line is not None:
        message = f"{source}:{line}: {message}"
    report.reject("out-of-scope", message, source, line)
    return False


def _from_rows(rows: list[tuple[Any, ...]], opts: BuildOptions, report: BuildReport) -> list[Url]:
    converted = urls_from_rows(rows, default_tz=opts.default_tz)
    if InvalidValue not in set(map(type, converted)):
        return converted  # type: ignore[return-value]
    return [
        url
        for url in map(_convert, converted, rows, repeat(opts), repeat(report))
        if url is not None
    ]


def _convert(entry: object, row: object, opts: BuildOptions, report: BuildReport) -> Url | None:
    """The Url an entry gives (``row``: what it was made from, when it is already a Url or an
    error), or None when it is left out; every problem goes to the report."""
    if isinstance(entry, Url):
        return entry
    if isinstance(entry, InputError):
        return _from_input_error(entry, opts, report)
    if isinstance(entry, InvalidValue):
        entry = row
    notes: list[str] = []  # extension values left out alone, as the reader does
    try:
        if isinstance(entry, Mapping):
            fields = {k: v for k, v in entry.items() if k not in JSON_KEYS}
            if len(fields) < len(entry):  # images, videos, news, alternates, raw extensions
                fields["extensions"] = from_json_fields(entry, None if opts.strict else notes)
            entry = row_from_dict(fields)
        if not isinstance(entry, tuple):
            raise InvalidValue(
                "entry",
                entry,
                "must be a Url, a (loc, lastmod, changefreq, priority) row or a mapping",
            )
        url, dropped = url_keeping_loc(entry, default_tz=opts.default_tz)
    except InvalidValue as exc:
        if opts.strict:
            raise
        report.reject(f"invalid-{exc.field}", str(exc))
        return None
    except TypeError:
        error = InvalidValue("entry", entry, "a row is (loc, lastmod, changefreq, priority)")
        if opts.strict:
            raise error from None
        report.reject("invalid-entry", str(error))
        return None
    if dropped and opts.strict:
        raise dropped[0]
    for note in notes:
        report.warn(getattr(note, "code", "invalid-extensions"), f"{url[0]}: {note}")
    for bad in dropped:
        report.warn(f"invalid-{bad.field}", f"{bad} (written without its {bad.field})")
    return url


def _from_input_error(error: InputError, opts: BuildOptions, report: BuildReport) -> Url | None:
    if opts.strict:
        raise error
    code = "unreadable-line" if error.field == "line" else f"invalid-{error.field}"
    if error.kept is None:
        report.reject(code, str(error), error.source, error.line)
        return None
    if error.notes:  # each value left out under its own code, as check reports it
        for note_code, message in error.notes:
            report.warn(
                note_code, f"{error.source}:{error.line}: {message}", error.source, error.line
            )
    else:
        report.warn(code, str(error), error.source, error.line)
    kept: Url = error.kept
    return kept


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
            _Part(
                done.path.name,
                stats.urls,
                stats.bytes,
                done.written,
                stats.newest_lastmod,
                done.hexdigest(),
            )
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
                        staging / names.staged(len(parts) + len(finishing) + 1),
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
) -> list[list[str]]:
    """Name the parts, write the index or indexes; return the sets to publish, each an
    index's children and then the index (or a set's only file)."""
    final = [names.single()] if len(parts) == 1 else []
    final = final or [names.child(n, part.digest) for n, part in enumerate(parts, 1)]
    for part, name in zip(parts, final, strict=True):
        (staging / part.name).rename(staging / name)
        report.files.append(
            FileReport(name, directory + name, part.entries, part.bytes, part.written, part.lastmod)
        )
    if len(parts) == 1:
        return [final]
    return write_indexes(opts, directory, report, staging, names)


def write_indexes(
    opts: BuildOptions, directory: str, report: BuildReport, staging: Path, names: _Names
) -> list[list[str]]:
    """Write the index or indexes of ``report.files`` into ``staging``; return the sets to
    publish, each an index's children and then the index."""
    per_index = opts.limits.max_sitemaps_per_index
    groups = [report.files[i : i + per_index] for i in range(0, len(report.files), per_index)]
    if len(groups) > opts.limits.max_sitemaps_per_index:
        raise LimitExceeded(
            f"{len(report.files)} sitemaps need more than {per_index} indexes; "
            "that many URLs cannot be listed under this profile"
        )
    sets = []
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
        sets.append([*(f.name for f in group), name])
    return sets


def _write_file(path: Path, data: bytes) -> None:
    sink = FileSink(path, gzip=False)
    sink(data)
    sink.close()

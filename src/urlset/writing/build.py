"""Building a sitemap set: entries in, split documents plus index out, published atomically.

``write_sitemaps`` is the whole job: it checks and de-duplicates entries (``checked``), fills
documents up to the URL and byte limits (counted exactly by ``SitemapDocument``), writes an
index when there is more than one document (``indexes``), and publishes through
``files.Publisher``; a stable set is ``stable``'s to build.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..dates import Lastmod
from ..errors import LimitExceeded
from ..urls import Scope
from .checked import checked_batches
from .document import DocumentStats, EntryTooLarge, SitemapDocument, urlset_header
from .files import FileSink, Publisher
from .indexes import write_indexes
from .options import BuildOptions, Entry, FileNames, prepare_build

# the build's API names them from here
from .report import BuildProblem as BuildProblem
from .report import BuildReport as BuildReport
from .report import FileReport as FileReport

if TYPE_CHECKING:
    from .shards import Change  # named in annotations only: shards loads with a stable build

_FINISHING = 2  # files compressing beside the one being written (each holds at most ~4 MiB)


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


class _Part(NamedTuple):
    name: str
    entries: int
    bytes: int
    written: int
    lastmod: Lastmod | None
    digest: str


def _write_parts(
    entries: Iterable[Entry],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    staging: Path,
    names: FileNames,
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
        for batch in checked_batches(entries, opts, scope, report, staging):
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
    names: FileNames,
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

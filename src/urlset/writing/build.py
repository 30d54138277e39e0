"""Building a sitemap set: entries in, split documents plus index out, published atomically.

``write_sitemaps`` is the whole job: it checks and de-duplicates entries (``checked``), fills
documents up to the URL and byte limits (counted exactly by ``SitemapDocument``), writes an
index when there is more than one document (``indexes``), and publishes through
``files.Publisher``; a stable set is ``stable``'s to build.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from ..dates import Lastmod
from ..errors import LimitExceeded
from ..model import Url
from ..urls import Scope
from .checked import checked_batches
from .document import DocumentStats, EntryTooLarge, Rendered, SitemapDocument, urlset_header
from .files import FileSink, Publisher
from .indexes import write_indexes
from .options import BuildOptions, Entry, FileNames, base_prefix, prepare_build

# the build's API names them from here
from .report import BuildProblem as BuildProblem
from .report import BuildReport as BuildReport
from .report import FileReport as FileReport
from .sections import by_section, sections_for

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
    ``section``: the URLs are written by section, each section's files named after it
    (``sitemap-blog-2-<hash>.xml.gz``) and all listed in the index: the name of a key of
    mapping entries, a callable of the loc (a name, or None for ``sections.DEFAULT``),
    ``"path:N"`` (the first N directory segments) or a ``writing.sections.Sections``.
    With ``stable=True`` the URLs are sharded by a hash of their loc (``writing.stable``):
    ``on_change`` then receives each URL added, removed or changed against the set in
    ``out_dir``, and ``update_sitemaps`` can change the set without building it again.
    """
    if options.get("section") is not None:
        base = base_prefix(base_url)
        entries, options["section"] = sections_for(entries, options["section"], base)
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
    section: str | None


class _Documents:
    """The documents of a build in input order, one open at a time per section (one in
    all without sections); closed ones compress on their own threads, a few at once."""

    def __init__(self, opts: BuildOptions, staging: Path, names: FileNames) -> None:
        self._opts = opts
        self._staging = staging
        self._names = names
        self._header = (
            "" if opts.text else urlset_header(xsl=opts.xsl, schema_location=opts.schema_location)
        )
        self._open: dict[str | None, tuple[FileSink, SitemapDocument]] = {}
        # closed documents whose files still compress and fsync, oldest first
        self._finishing: deque[tuple[FileSink, DocumentStats, str | None]] = deque()
        self._started = 0
        self.parts: list[_Part] = []

    def add(self, batch: list[Url] | Rendered, section: str | None) -> None:
        start = 0
        while start < len(batch):
            _, document = self._open.get(section) or self._start(section)
            start = document.add(batch, start)
            if start < len(batch):
                self._close(section)

    def _start(self, section: str | None) -> tuple[FileSink, SitemapDocument]:
        opts = self._opts
        self._started += 1
        sink = FileSink(
            self._staging / self._names.staged(self._started),
            gzip=opts.gzip,
            level=opts.gzip_level,
        )
        document = SitemapDocument(
            sink,
            max_urls=opts.limits.max_urls,
            max_bytes=opts.limits.max_bytes,
            text=opts.text,
            header=self._header,
        )
        self._open[section] = sink, document
        return sink, document

    def _close(self, section: str | None) -> None:
        sink, document = self._open.pop(section)
        self._finishing.append((sink, document.close(), section))
        sink.finish()
        if len(self._finishing) > _FINISHING:
            self._settle()

    def _settle(self) -> None:
        done, stats, section = self._finishing.popleft()
        done.wait()
        self.parts.append(
            _Part(
                done.path.name,
                stats.urls,
                stats.bytes,
                done.written,
                stats.newest_lastmod,
                done.hexdigest(),
                section,
            )
        )

    def close(self) -> list[_Part]:
        """Every part, by section (in name order) and in input order within one."""
        for section in sorted(self._open, key=str):
            self._close(section)
        while self._finishing:
            self._settle()
        return sorted(self.parts, key=lambda part: part.section or "")

    def discard(self) -> None:
        for sink, _ in self._open.values():
            sink.discard()
        for unsettled, _, _ in self._finishing:
            unsettled.discard()


def _write_parts(
    entries: Iterable[Entry],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    staging: Path,
    names: FileNames,
    progress: Callable[[int], object] | None,
) -> list[_Part]:
    documents = _Documents(opts, staging, names)
    try:
        for batch in checked_batches(entries, opts, scope, report, staging):
            for section, part in by_section(batch, opts.section):
                documents.add(part, section)
            report.urls += len(batch)
            if progress is not None:
                progress(report.urls)
        return documents.close()
    except EntryTooLarge as exc:
        raise LimitExceeded(
            f"{exc.url.loc[:100]}: this entry alone is {exc.size} bytes and cannot fit in a "
            f"sitemap of at most {opts.limits.max_bytes} bytes; raise the byte limit"
        ) from None
    finally:
        documents.discard()


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
    # a set with sections, or with other sitemaps to list, has an index
    alone = len(parts) == 1 and opts.section is None and not opts.include
    final = [names.single()] if alone else []
    if not alone:
        numbered: Counter[str | None] = Counter()
        for part in parts:
            numbered[part.section] += 1
            final.append(names.child(numbered[part.section], part.digest, part.section))
    for part, name in zip(parts, final, strict=True):
        (staging / part.name).rename(staging / name)
        report.files.append(
            FileReport(name, directory + name, part.entries, part.bytes, part.written, part.lastmod)
        )
    if alone:
        return [final]
    return write_indexes(opts, directory, report, staging, names)

"""Writing an index: the index or indexes of a set's files, at most the profile's number of
children each."""

from __future__ import annotations

from pathlib import Path

from ..dates import instant
from ..errors import LimitExceeded
from ..model import SitemapRef
from .document import index_document
from .files import FileSink, gzip_bytes
from .options import BuildOptions, FileNames
from .report import BuildReport, FileReport


def write_indexes(
    opts: BuildOptions, directory: str, report: BuildReport, staging: Path, names: FileNames
) -> list[list[str]]:
    """Write the index or indexes of ``report.files`` into ``staging``; return the sets to
    publish, each an index's children and then the index."""
    per_index = opts.limits.max_sitemaps_per_index
    # the set's own files, then the included sitemaps (``includes``; checked by prepare_build)
    listed: list[FileReport | SitemapRef] = [*report.files, *opts.include]  # type: ignore[list-item]
    groups = [listed[i : i + per_index] for i in range(0, len(listed), per_index)]
    if len(groups) > opts.limits.max_sitemaps_per_index:
        raise LimitExceeded(
            f"{len(listed)} sitemaps need more than {per_index} indexes; "
            "that many URLs cannot be listed under this profile"
        )
    report.included = [ref.loc for ref in opts.include]  # type: ignore[union-attr]
    sets = []
    for number, group in enumerate(groups, 1):
        name = names.index(number, len(groups))
        refs = [
            f if isinstance(f, SitemapRef) else SitemapRef._trusted(f.url, f.lastmod) for f in group
        ]
        data = index_document(refs, xsl=opts.xsl, schema_location=opts.schema_location).encode()
        if len(data) > opts.limits.max_bytes:
            raise LimitExceeded(
                f"index {name} would be {len(data)} bytes, over the limit of {opts.limits.max_bytes}"
            )
        written = gzip_bytes(data, opts.gzip_level) if opts.gzip else data
        _write_file(staging / name, written)
        newest = max((f.lastmod for f in refs if f.lastmod is not None), default=None, key=instant)
        report.indexes.append(
            FileReport(name, directory + name, len(group), len(data), len(written), newest)
        )
        sets.append([*(f.name for f in group if isinstance(f, FileReport)), name])
    return sets


def _write_file(path: Path, data: bytes) -> None:
    sink = FileSink(path, gzip=False)
    sink(data)
    sink.close()

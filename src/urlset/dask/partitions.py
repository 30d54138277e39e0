"""A partition of the Dask build's input as the entries a local build takes from the same
rows (``writing.checked.checked_batches`` runs on them in each partition): a CSV, TSV or
JSON Lines file read whole by the local build's reader (``file_entries``), or a Parquet
partition's or a DataFrame's rows (``partition_entries``)."""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import replace
from itertools import chain, repeat
from typing import IO, TYPE_CHECKING, Any

from ..extensions import JSON_KEYS
from ..writing.options import BuildOptions, base_prefix
from ..writing.sections import COLUMN, Sections
from ..writing.source_tables import extension_table, known_column
from ..writing.sources import iter_batches, open_source, unreadable

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("loc", "lastmod", "changefreq", "priority")
READ_ALONE = ("csv", "tsv", "jsonl")  # formats a partition reads with the local reader


def reads_alone(fmt: str, opts: BuildOptions) -> bool:
    """Whether the partitions of a ``fmt`` input each read their file with the local build's
    reader: a text format, sections (if by a column) named by the column it reads."""
    column = None if opts.section is None else opts.section.column
    return fmt in READ_ALONE and column in (None, COLUMN)


def file_entries(source: str, fmt: str, opts: BuildOptions) -> tuple[Iterable[Any], BuildOptions]:
    """The entries of the file ``source`` as a local build reads them (``iter_batches``): a
    line it cannot use comes as an ``InputError`` at its line, skipped and reported (or
    failing the build under --strict) as a local build does; with sections by a column, the
    options whose sections the reading records."""
    sections: dict[str, str] | None = None
    if opts.section is not None and opts.section.column is not None:
        sections = {}
        opts = replace(opts, section=Sections.by_column(opts.section.column, sections))
    batches = _batches(source, fmt, opts, sections)
    return chain.from_iterable(batches), opts


def _batches(
    source: str, fmt: str, opts: BuildOptions, sections: dict[str, str] | None
) -> Iterator[Any]:
    """``source``'s batches; a file that cannot be read fails as in a local build (exit 2)."""
    try:
        with _opened(source) as stream:
            tz = opts.default_tz
            yield from iter_batches(
                stream, fmt, source, default_tz=tz, rows=True, sections=sections
            )
    except (OSError, EOFError, zlib.error) as exc:
        raise OSError(unreadable(source, exc)) from None


def _opened(source: str) -> IO[str]:
    """A local file as a local build opens it; an fsspec URL through fsspec (a .gz one
    decompressed), as text whose bytes the reader reads."""
    if "://" not in source:
        return open_source(source)
    import fsspec  # type: ignore[import-untyped]  # Dask's: reads its fsspec URLs

    raw = fsspec.open(source, "rb", compression="infer").open()
    return io.TextIOWrapper(raw, encoding="utf-8-sig", errors="surrogateescape", newline="")


def known(column: str) -> bool:
    """A column the build reads: a core one, an extension column or key, or an ignored one."""
    return column in JSON_KEYS or known_column(column)


def partition_entries(frame: pd.DataFrame, opts: BuildOptions, number: int) -> Iterable[Any]:
    """A partition's entries as a local build takes them: (loc, lastmod, changefreq,
    priority) rows (a missing value None); with extension keys (images, news, ...: JSON Lines,
    Parquet), each row a mapping of its values; with extension columns (image_loc,
    news_title, ...: CSV, TSV), each row read as the local build reads such a table's, its
    problems placed at the row's number in the partition."""
    if any(column in JSON_KEYS for column in frame.columns):
        records = frame.astype(object).where(frame.notna(), None).to_dict("records")
        return [{k: v for k, v in record.items() if v is not None} for record in records]
    if any(column not in COLUMNS for column in frame.columns):
        return _table_rows(frame, opts, number)
    columns: list[Iterable[Any]] = []
    for name in COLUMNS:
        if name not in frame.columns:
            columns.append(repeat(None, len(frame)))
            continue
        column = frame[name].astype(object)
        columns.append(column.where(column.notna(), None).tolist())
    return list(zip(*columns, strict=False))


def _table_rows(frame: pd.DataFrame, opts: BuildOptions, number: int) -> Iterable[Any]:
    """A partition with extension columns, row by row as ``source_tables`` reads a CSV's."""
    header = [str(column) for column in frame.columns]
    positions = [header.index(name) if name in header else -1 for name in COLUMNS]
    extra = [(i, name) for i, name in enumerate(header) if name not in COLUMNS]
    cells = frame.astype(object).where(frame.notna(), "").astype(str).values.tolist()
    records = ((row + 1, texts, None) for row, texts in enumerate(cells))
    shape = (positions, extra, len(header))
    return extension_table(
        records, f"partition {number}", *shape, opts.default_tz, 4096, base_prefix(opts.base_url)
    )


def reader_message(exc: BaseException) -> str:
    """What a reader said, without the wrapping Dask adds to an error of a reading task
    ("An error occurred while calling the read_csv method ... Original Message: ...")."""
    return str(exc).rpartition("Original Message: ")[2]

"""A partition of the Dask build's input as the entries a local build takes from the same
rows (``writing.checked.checked_batches`` runs on them in each partition)."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import repeat
from typing import TYPE_CHECKING, Any

from ..extensions import JSON_KEYS
from ..writing.options import BuildOptions, base_prefix
from ..writing.source_tables import extension_table, known_column

if TYPE_CHECKING:
    import pandas as pd

COLUMNS = ("loc", "lastmod", "changefreq", "priority")


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

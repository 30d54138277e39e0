"""Opening DuckDB the one way the store needs it: UTC, a memory limit, clear errors.

DuckDB is imported here only (the ``store`` extra installs it), so ``import urlset`` and the
commands that do not use it never load it.
"""

from __future__ import annotations

import importlib
from typing import Any

MEMORY_LIMIT = "768MB"  # DuckDB spills joins and sorts to disk beyond it; peak RSS stays < 1 GB


class StoreError(Exception):
    """A snapshot store or a diff side cannot be used: the message says what, where and what
    to do."""


def duckdb() -> Any:
    try:
        return importlib.import_module("duckdb")
    except ImportError:
        raise StoreError(
            "snapshots and diffs need DuckDB, which is not installed: pip install 'urlset[store]'"
        ) from None


def connect(
    path: str = ":memory:", *, read_only: bool = False, memory_limit: str = MEMORY_LIMIT
) -> Any:
    """A DuckDB connection in UTC with a memory limit; a locked or broken file is a
    StoreError naming it."""
    db = duckdb()
    try:
        con = db.connect(path, read_only=read_only)
    except db.Error as exc:
        raise StoreError(f"cannot open the snapshot store {path}: {_first_line(exc)}") from None
    return configured(con, memory_limit)


def configured(con: Any, memory_limit: str = MEMORY_LIMIT) -> Any:
    """``con`` (a new connection, or a cursor of one: another session of its database) set
    up as the store needs it."""
    con.execute(f"SET TimeZone = 'UTC'; SET memory_limit = '{memory_limit}'")
    # no progress bar: DuckDB would draw it on standard output, among a command's output
    con.execute("SET preserve_insertion_order = false; SET enable_progress_bar = false")
    return con


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def arrow_table(relation: Any) -> Any:
    """A relation's rows as an Arrow table (``to_arrow_table`` in newer DuckDB)."""
    method = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return method()

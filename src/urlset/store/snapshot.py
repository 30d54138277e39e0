"""The snapshot store: runs of a site's entries in one DuckDB file, with Parquet to share them.

    runs     run_id, started, finished, site, kind (fetch | read | import), url_count,
             duplicates (entries whose loc came earlier in the run), partial
    entries  run_id + the keyed columns of ``entries.TABLE_DDL`` (W3C lastmod text,
             changefreq, priority, extensions as JSON, the sitemap it came from, k, h, sh)
    issues   run_id, sitemap, code, severity, message, line, col, source

A run is written in one transaction: a run that fails or is interrupted leaves nothing.
Runs are named ``latest``, ``-N`` (N runs before the latest) or by their id (``resolve``).
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..model import Issue
from ..reading.output import UrlColumns
from .db import StoreError, arrow_table, configured, connect
from .entries import COLUMNS, TABLE_DDL, Batches, distinct_locs, keyed, select_list

SCHEMA = f"""
CREATE SEQUENCE IF NOT EXISTS run_ids START 1;
CREATE TABLE IF NOT EXISTS runs (
    run_id INTEGER PRIMARY KEY, started TIMESTAMPTZ NOT NULL, finished TIMESTAMPTZ,
    site VARCHAR NOT NULL, kind VARCHAR NOT NULL, url_count BIGINT, duplicates BIGINT,
    partial BOOLEAN
);
CREATE TABLE IF NOT EXISTS entries (run_id INTEGER NOT NULL, {TABLE_DDL});
CREATE TABLE IF NOT EXISTS issues (
    run_id INTEGER NOT NULL, sitemap VARCHAR, code VARCHAR, severity VARCHAR,
    message VARCHAR, line INTEGER, col INTEGER, source VARCHAR
);
"""
RUN_REF = re.compile(r"latest|-\d+|\d+")
# the stores open in this process, by the file's absolute path: DuckDB refuses a second
# connection to a file with another configuration (read-only beside read-write), so a
# read-only store or a diff of a file whose store is open shares its database (a notebook
# keeps a store open and diffs its runs)
_OPEN: dict[str, SnapshotStore] = {}


def open_store(path: str | os.PathLike[str]) -> SnapshotStore | None:
    """The store open on the file ``path`` in this process, if one is."""
    return _OPEN.get(os.path.abspath(os.fspath(path)))


@dataclass(frozen=True, slots=True)
class RunInfo:
    run_id: int
    started: str  # ISO 8601, UTC
    site: str
    kind: str
    url_count: int
    duplicates: int
    partial: bool


class SnapshotStore:
    """A DuckDB file of runs (``":memory:"`` for one that lives as long as the object).

    ``relation(run)``, ``frame(run)`` and ``arrow(run)`` give a run's entries as a DuckDB
    relation, a pandas DataFrame or an Arrow table."""

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self.path = os.fspath(path)
        if read_only and self.path != ":memory:" and not os.path.isfile(self.path):
            raise StoreError(f"no snapshot store at {self.path}: store a run first with --snapshot")
        key = os.path.abspath(self.path) if self.path != ":memory:" else ""
        owner = _OPEN.get(key) if key else None
        # a reader beside a store open in this process shares its database; otherwise this
        # store owns its connection, and is the one others share while it is open
        self._key = "" if owner is not None else key
        self.con: Any
        if owner is not None and read_only:
            self.con = configured(owner.con.cursor())
        else:
            self.con = connect(self.path, read_only=read_only)
            if self._key:
                _OPEN.setdefault(self._key, self)
        if not read_only:
            self.con.execute(SCHEMA)
        _check_keys(self.con, self.path)

    def close(self) -> None:
        if self._key and _OPEN.get(self._key) is self:
            del _OPEN[self._key]
        self.con.close()

    def shared_connection(self) -> Any:
        """Another session of this store's database (a cursor), set up as the store's: what
        a diff of its runs joins in while the store stays open."""
        return configured(self.con.cursor())

    def __enter__(self) -> SnapshotStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing
    def begin(self, site: str, kind: str = "fetch", *, background: bool = False) -> RunWriter:
        """A run being written; ``background``: its entries inserted on a thread of their own
        (``RunWriter``)."""
        return RunWriter(self, site, kind, background)

    def import_parquet(self, path: str | os.PathLike[str]) -> int:
        """Store a Parquet file of entries (``export_parquet``'s, or any with ``loc`` and
        some of the other text columns) as a new run; its site and time come from the
        file's metadata when it has them."""
        path = os.fspath(path)
        meta = _parquet_meta(self.con, path)
        writer = self.begin(meta.get("site", path), "import")
        source = f"read_parquet({_quote(path)}, union_by_name = true)"
        writer.insert_sql(_with_text_columns(self.con, source))
        return writer.finish(partial=meta.get("partial") == "true")

    # -- reading
    def runs(self, site: str | None = None) -> list[RunInfo]:
        where, params = ("WHERE site = ?", [site]) if site else ("", [])
        rows = self.con.execute(
            "SELECT run_id, strftime(started, '%Y-%m-%dT%H:%M:%S.%fZ'), site, kind, url_count,"
            f" duplicates, partial FROM runs {where} ORDER BY run_id",
            params,
        ).fetchall()
        return [RunInfo(r[0], r[1], r[2], r[3], r[4] or 0, r[5] or 0, bool(r[6])) for r in rows]

    def resolve(self, ref: str | int = "latest", site: str | None = None) -> RunInfo:
        """A run by reference: ``latest``, ``-N`` (N runs before the latest), or an id;
        with ``site``, counting only that site's runs."""
        runs = self.runs(site)
        text = str(ref)
        where = f" of {site}" if site else ""
        if not RUN_REF.fullmatch(text):
            raise StoreError(f"{self.path}@{text}: a run is latest, -N or a run id")
        if not runs:
            raise StoreError(f"{self.path} holds no run{where} yet")
        if text == "latest" or text.startswith("-"):
            back = 0 if text == "latest" else int(text[1:])
            if back >= len(runs):
                raise StoreError(
                    f"{self.path}@{text}: only {len(runs)} run(s){where} are stored "
                    f"(runs {runs[0].run_id}..{runs[-1].run_id})"
                )
            return runs[-1 - back]
        for run in runs:
            if run.run_id == int(text):
                return run
        raise StoreError(f"{self.path}@{text}: no such run{where} (stored: {_ids(runs)})")

    def relation(self, run: RunInfo | int | str = "latest") -> Any:
        info = run if isinstance(run, RunInfo) else self.resolve(run)
        return self.con.sql(f"SELECT {select_list()} FROM entries WHERE run_id = {info.run_id}")

    def frame(self, run: RunInfo | int | str = "latest") -> Any:
        """A run's entries as a pandas DataFrame (``k``, ``h``, ``sh`` left out)."""
        return self.arrow(run).to_pandas()

    def arrow(self, run: RunInfo | int | str = "latest") -> Any:
        return arrow_table(self.relation(run).select(*COLUMNS[:7]))

    def issues(self, run: RunInfo | int | str = "latest") -> list[dict[str, Any]]:
        info = run if isinstance(run, RunInfo) else self.resolve(run)
        cursor = self.con.execute(
            "SELECT sitemap, code, severity, message, line, col AS column, source FROM issues"
            " WHERE run_id = ? ORDER BY rowid",
            [info.run_id],
        )
        names = [d[0] for d in cursor.description]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def export_parquet(self, run: RunInfo | int | str, path: str | os.PathLike[str]) -> RunInfo:
        """Write a run's entries (the text columns) to a Parquet file, with the run's site,
        time and id in the file's metadata."""
        info = run if isinstance(run, RunInfo) else self.resolve(run)
        meta = {
            "urlset_site": info.site,
            "urlset_started": info.started,
            "urlset_run": str(info.run_id),
            "urlset_partial": "true" if info.partial else "false",
        }
        kv = ", ".join(f"{_quote(k)}: {_quote(v)}" for k, v in meta.items())
        out = os.fspath(path)
        self.con.execute(
            "COPY (SELECT loc, lastmod, changefreq, priority, extensions, sitemap FROM entries"
            f" WHERE run_id = {info.run_id}) TO {_quote(out)}"
            f" (FORMAT parquet, COMPRESSION zstd, KV_METADATA {{{kv}}})"
        )
        return info


class RunWriter:
    """One run being stored: ``add`` entries (columns and their sitemap, or ``add_batches``)
    and ``add_issues`` as they come, then ``finish`` (or ``abort``). Entries go to DuckDB in
    Arrow batches.

    ``background``: each full batch is inserted on a store thread while the caller goes on
    (a fetch keeps fetching and parsing: DuckDB keys and inserts without the GIL); at most
    one insert runs while the next batch fills, so memory stays at two batches; every other
    use of the connection waits for it (DuckDB refuses a second call on a busy connection,
    and a cursor would be another transaction), and its error is raised there."""

    def __init__(
        self, store: SnapshotStore, site: str, kind: str, background: bool = False
    ) -> None:
        self.store = store
        self.con = store.con
        self.batches = Batches()
        self.thread = (
            ThreadPoolExecutor(1, thread_name_prefix="urlset-store") if background else None
        )
        self.inserting: Future[None] | None = None
        self.con.execute("BEGIN TRANSACTION")
        self.run_id: int = self.con.execute("SELECT nextval('run_ids')").fetchall()[0][0]
        self.started = datetime.now(UTC)
        self.con.execute(
            "INSERT INTO runs (run_id, started, site, kind) VALUES (?, ?, ?, ?)",
            [self.run_id, self.started.isoformat(), site, kind],
        )
        self.done = False

    def add(self, columns: UrlColumns, sitemap: str | None) -> None:
        table = self.batches.add(columns, sitemap)
        if table is not None:
            self._insert_arrow(table)

    def add_batches(self, batches: list[Any]) -> None:
        """Add entries as Arrow record batches of ``TEXT_COLUMNS`` (``entries.arrow_schema``),
        as the render lane makes them: DuckDB reads them as they are."""
        table = self.batches.add_batches(batches)
        if table is not None:
            self._insert_arrow(table)

    def add_issues(self, issues: Iterable[Issue], sitemap: str | None = None) -> None:
        self._wait()  # the connection takes one call at a time
        rows = [
            [self.run_id, sitemap, i.code, str(i.severity), i.message, i.line, i.column, i.source]
            for i in issues
        ]
        if rows:
            self.con.executemany("INSERT INTO issues VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rows)

    def _insert_arrow(self, table: Any) -> None:
        self._wait()
        if self.thread is not None:
            self.inserting = self.thread.submit(self._insert_now, table)
        else:
            self._insert_now(table)

    def _wait(self) -> None:
        """The insert running on the store thread done (its error raised here)."""
        inserting, self.inserting = self.inserting, None
        if inserting is not None:
            inserting.result()

    def _insert_now(self, table: Any) -> None:
        self.con.register("_urlset_batch", table)
        try:
            self._insert_select(keyed("_urlset_batch"))
        finally:
            self.con.unregister("_urlset_batch")

    def insert_sql(self, select: str) -> None:
        """Insert the keyed rows a SELECT gives (``entries.keyed`` of some source)."""
        self._wait()
        self._insert_select(select)

    def _insert_select(self, select: str) -> None:
        self.con.execute(f"INSERT INTO entries SELECT {self.run_id}, * FROM ({select})")

    def finish(self, *, partial: bool = False) -> int:
        """Count, commit, and return the run's id."""
        table = self.batches.take()
        if table is not None:
            self._insert_arrow(table)
        self._wait()
        rows = f"(SELECT k, loc FROM entries WHERE run_id = {int(self.run_id)})"
        count = self.con.execute(f"SELECT count(*) FROM {rows}").fetchall()[0][0]
        distinct = distinct_locs(self.con, rows)
        self.con.execute(
            "UPDATE runs SET finished = ?, url_count = ?, duplicates = ?, partial = ?"
            " WHERE run_id = ?",
            [datetime.now(UTC).isoformat(), count, count - distinct, partial, self.run_id],
        )
        self.con.execute("COMMIT")
        self.done = True
        self._stop()
        return self.run_id

    def abort(self) -> None:
        if not self.done:
            self.done = True
            with contextlib.suppress(Exception):  # rolled back whatever the insert raised
                self._wait()
            self.con.execute("ROLLBACK")
        self._stop()

    def _stop(self) -> None:
        if self.thread is not None:
            self.thread.shutdown(wait=True)
            self.thread = None


def _check_keys(con: Any, path: str) -> None:
    """Refuse a store whose entries carry the keys of an earlier urlset (a 128-bit ``k`` and
    ``fp``, no ``h``): a diff would read them wrongly."""
    names = {
        row[0]
        for row in con.execute(
            "SELECT column_name FROM duckdb_columns() WHERE database_name = current_database()"
            " AND schema_name = 'main' AND table_name = 'entries'"
        ).fetchall()
    }
    if names and "h" not in names:
        con.close()
        raise StoreError(
            f"{path} was written by an earlier urlset (entries keyed by 128-bit MD5): export"
            " its runs with that version (export_parquet) and import them here, or store anew"
        )


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _ids(runs: list[RunInfo]) -> str:
    ids = [str(r.run_id) for r in runs]
    return ", ".join(ids) if len(ids) <= 10 else ", ".join([*ids[:3], "...", *ids[-3:]])


def _parquet_meta(con: Any, path: str) -> dict[str, str]:
    if not os.path.isfile(path):
        raise StoreError(f"no Parquet file at {path}")
    try:
        rows = con.execute(
            "SELECT decode(key), decode(value) FROM parquet_kv_metadata(?)", [path]
        ).fetchall()
    except Exception as exc:
        raise StoreError(f"{path} is not a readable Parquet file: {exc}") from None
    return {k.removeprefix("urlset_"): v for k, v in rows if k.startswith("urlset_")}


def _with_text_columns(con: Any, source: str) -> str:
    """``keyed`` over a source that may lack some text columns (NULL for those); one
    without ``loc`` is refused."""
    names = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
    if "loc" not in names:
        raise StoreError(f"{source}: no 'loc' column (found: {', '.join(sorted(names))})")
    from .entries import TEXT_COLUMNS

    cells = [name if name in names else f"NULL AS {name}" for name in TEXT_COLUMNS]
    return keyed(f"(SELECT {', '.join(cells)} FROM {source})")

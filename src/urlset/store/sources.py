"""Diff sides and frames: any source of entries, loaded into a DuckDB connection as keyed rows.

    DB@latest, DB@-1, DB@<run id>    a stored run (the file is attached read-only)
    https://... or http://...         fetched (robots.txt, indexes, every sitemap)
    a directory                       every sitemap file in it (.xml, .gz, .txt, .rss, .atom),
                                      each entry's sitemap its path inside the directory
    *.jsonl / *.ndjson, *.csv, *.tsv, *.parquet (optionally .gz)
                                      entries as `urlset read`, `fetch` or `export` write them
    any other file                    a sitemap (urlset, index, text, RSS, Atom; gzipped or not)

Entries from sitemaps go through the reader a column at a time (``UrlColumns``) into Arrow
batches; entries files are read by DuckDB itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..model import Issue, Url
from .db import StoreError
from .entries import TEXT_COLUMNS, Batches, arrow_schema, distinct_locs, keyed, select_list
from .snapshot import RUN_REF, SnapshotStore, _quote, open_store

SNAPSHOT = re.compile(rf"(?P<db>.+)@(?P<run>{RUN_REF.pattern})")
SITEMAP_SUFFIXES = (".xml", ".gz", ".txt", ".rss", ".atom")
_TABLE_FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".tsv": "tsv"}
_BATCH = 8192
# the loaded sides' tables: an in-memory database every cursor of the session's database sees
# (a temp table is its own cursor's), so that two sides load at once (diff.compare)
SIDES = "urlset_sides"
# JSON Lines keys that are not extension fields (what remains is the extensions object)
_NOT_EXTENSIONS = '{"loc":null,"lastmod":null,"changefreq":null,"priority":null,"sitemap":null}'


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a diff, loaded: the rows of ``source`` (a table) that match ``where``."""

    label: str
    source: str
    where: str
    count: int
    duplicates: int
    named_sitemaps: bool  # entries carry the sitemap they came from
    session_keys: bool = False  # keyed for this session only (entries.SESSION_KEYS)

    @property
    def table(self) -> str:
        """The side's keyed rows as a table expression."""
        return f"(SELECT {select_list()} FROM {self.source} WHERE {self.where})"


def shared_connection(*specs: str) -> Any:
    """A session of the database of a store open in this process that a spec names
    (``DB@run``), or None: a diff run there reads the store's runs as they are, where a
    second connection to the file would be refused."""
    for spec in specs:
        match = SNAPSHOT.fullmatch(spec)
        store = open_store(match["db"]) if match else None
        if store is not None:
            return store.shared_connection()
    return None


def load(
    con: Any,
    spec: str,
    name: str,
    *,
    site: str | None = None,
    fetch: Callable[[str, Batches, Callable[[Any], None]], None] | None = None,
) -> Side:
    """Load ``spec`` (see the module doc) into ``con`` as side ``name`` (a table name, in
    the ``SIDES`` database)."""
    match = SNAPSHOT.fullmatch(spec)
    if match and os.path.isfile(match["db"]):
        return _snapshot(con, match["db"], match["run"], name, site)
    name = f"{attach_sides(con)}.{name}"
    if spec.lower().startswith(("http://", "https://")):
        return _from_batches(con, name, spec, lambda b, put: (fetch or fetch_entries)(spec, b, put))
    path = Path(spec)
    if path.is_dir():
        return _from_stream(con, name, spec, _dir_batches(path))
    if not path.is_file():
        hint = " (a snapshot is DB@latest, DB@-1 or DB@<run id>)" if "@" in spec else ""
        raise StoreError(f"{spec}: no such file, directory or snapshot{hint}")
    fmt = table_format(spec)
    if fmt is not None:
        return _from_table_file(con, name, spec, fmt)
    repeats: list[Issue] = []
    return _from_stream(
        con, name, spec, sitemap_batches(path, None, repeats), unique=lambda: not repeats
    )


def attach_sides(con: Any) -> str:
    """The ``SIDES`` database, attached to ``con``'s database once."""
    con.execute(f"ATTACH IF NOT EXISTS ':memory:' AS {SIDES}")
    return SIDES


def table_format(path: str) -> str | None:
    """jsonl, csv, tsv or parquet by the file's name (a ``.gz`` after it allowed), else None."""
    lower = path.lower().removesuffix(".gz")
    if lower.endswith(".parquet"):
        return "parquet"
    return next((fmt for suffix, fmt in _TABLE_FORMATS.items() if lower.endswith(suffix)), None)


def _snapshot(con: Any, db: str, run: str, name: str, site: str | None) -> Side:
    with SnapshotStore(db, read_only=True) as store:
        info = store.resolve(run, site)
    alias = _attach(con, db)
    where = f"run_id = {info.run_id}"
    named = con.execute(
        f"SELECT count(sitemap) > 0 FROM (SELECT sitemap FROM {alias}.entries WHERE {where} LIMIT 1)"
    ).fetchall()[0][0]
    label = f"{db}@{info.run_id} ({info.site}, {info.started})"
    return Side(label, f"{alias}.entries", where, info.url_count, info.duplicates, bool(named))


def _attach(con: Any, db: str) -> str:
    path = os.path.abspath(db)
    for alias, attached in con.execute(
        "SELECT database_name, path FROM duckdb_databases()"
    ).fetchall():
        if attached and os.path.abspath(attached) == path:
            return str(alias)
    count = con.execute("SELECT count(*) FROM duckdb_databases()").fetchall()[0][0]
    alias = f"snap{count}"
    try:
        con.execute(f"ATTACH {_quote(path)} AS {alias} (READ_ONLY)")
    except Exception as exc:
        raise StoreError(f"cannot open the snapshot store {db}: {exc}") from None
    return alias


def _from_table_file(con: Any, name: str, path: str, fmt: str) -> Side:
    quoted = _quote(path)
    if fmt == "parquet":
        source = f"read_parquet({quoted})"
    elif fmt == "jsonl":
        source = (
            "(SELECT json->>'loc' AS loc, json->>'lastmod' AS lastmod,"
            " json->>'changefreq' AS changefreq, json->>'priority' AS priority,"
            f" CAST(json_merge_patch(json, '{_NOT_EXTENSIONS}') AS VARCHAR) AS extensions,"
            " json->>'sitemap' AS sitemap"
            f" FROM read_json_objects({quoted}, format = 'newline_delimited')"
            " WHERE coalesce(json->>'type', 'url') <> 'sitemap')"
        )
    else:
        delim = "," if fmt == "csv" else "\t"
        source = (
            f"read_csv({quoted}, header = true, all_varchar = true, delim = {_quote(delim)},"
            " quote = '\"', escape = '\"')"
        )
    try:
        names = {row[0] for row in con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()}
        if "loc" not in names:
            raise StoreError(f"{path}: no 'loc' column (found: {', '.join(sorted(names))})")
        cells = [c if c in names else f"NULL AS {c}" for c in TEXT_COLUMNS]
        con.execute(
            f"CREATE OR REPLACE TABLE {name} AS "
            + keyed(f"(SELECT {', '.join(cells)} FROM {source})", session=True)
        )
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"cannot read {path} as {fmt}: {_first(exc)}") from None
    return _counted(con, name, path)


def _counted(con: Any, name: str, label: str) -> Side:
    """A side loaded here (its keys the session's), counted in one scan unless keys repeat."""
    count, keys, named = con.execute(
        f"SELECT count(*), count(DISTINCT k), count(sitemap) > 0 FROM {name}"
    ).fetchall()[0]
    duplicates = count - (keys if keys == count else distinct_locs(con, name))
    return Side(label, name, "true", count, duplicates, bool(named), session_keys=True)


Put = Callable[[Any], None]


def _from_batches(con: Any, name: str, label: str, produce: Callable[[Batches, Put], None]) -> Side:
    """A side made of Arrow batches: ``produce`` adds entries to the Batches and calls
    ``put`` with each full table."""
    empty = keyed(_EMPTY, session=True)
    con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT * FROM ({empty}) LIMIT 0")

    def put(table: Any) -> None:
        con.register("_urlset_side", table)
        try:
            con.execute(f"INSERT INTO {name} {keyed('_urlset_side', session=True, read=True)}")
        finally:
            con.unregister("_urlset_side")

    batches = Batches()
    produce(batches, put)
    last = batches.take()
    if last is not None:
        put(last)
    return _counted(con, name, label)


_EMPTY = (
    "(SELECT NULL::VARCHAR AS loc, NULL::VARCHAR AS lastmod, NULL::VARCHAR AS changefreq,"
    " NULL::DOUBLE AS priority, NULL::VARCHAR AS extensions, NULL::VARCHAR AS sitemap)"
)


def read_urls(path: Path) -> Iterator[list[Url]]:
    """The Urls of one sitemap file in lists (index entries and issues left out); an
    unreadable file is a StoreError."""
    from ..reading.reader import read_file

    try:
        result = read_file(path)
        batch: list[Url] = []
        for entry in result:
            if type(entry) is Url:
                batch.append(entry)
                if len(batch) >= _BATCH:
                    yield batch
                    batch = []
        if batch:
            yield batch
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None


def _from_stream(
    con: Any,
    name: str,
    label: str,
    batches: Iterator[Any],
    unique: Callable[[], bool] = lambda: False,
) -> Side:
    """A side made of Arrow record batches, streamed into DuckDB by one statement: DuckDB
    scans each batch where pyarrow holds it and keeps only its keyed rows, so the side costs
    its table and one batch in flight. An error of ``batches`` (a StoreError) is raised as
    itself, not as DuckDB's error about the stream it ended. ``unique`` (asked once they are
    read): the batches are known to hold no loc twice, so their locs are not counted."""
    import pyarrow as pa

    failed: list[BaseException] = []

    def guarded() -> Iterator[Any]:
        try:
            yield from batches
        except BaseException as exc:  # raised again below, once DuckDB has let go
            failed.append(exc)

    stream = pa.RecordBatchReader.from_batches(arrow_schema(), on_one_thread(guarded()))
    con.register("_urlset_side", stream)
    try:
        con.execute(
            f"CREATE OR REPLACE TABLE {name} AS " + keyed("_urlset_side", session=True, read=True)
        )
    except Exception:
        if not failed:
            raise
    finally:
        con.unregister("_urlset_side")
    if failed:
        raise failed[0]
    if unique():
        count, named = con.execute(f"SELECT count(*), count(sitemap) > 0 FROM {name}").fetchall()[0]
        return Side(label, name, "true", count, 0, bool(named), session_keys=True)
    return _counted(con, name, label)


def on_one_thread(items: Iterator[Any]) -> Iterator[Any]:
    """``items``, made on one thread of their own and handed over two at a time. DuckDB
    pulls a stream's batches from whichever of its threads is free, while the reader's
    careful lane must stay on one thread: a libxml2 parser fed from a thread other than the
    one that made it frees its names into the wrong dictionary (free(): invalid pointer)."""
    import queue
    import threading

    handed: queue.Queue[tuple[bool, Any]] = queue.Queue(maxsize=2)
    stop = threading.Event()

    def hand(entry: tuple[bool, Any]) -> None:
        while not stop.is_set():  # the consumer gone: nothing waits for it
            try:
                handed.put(entry, timeout=0.05)
                return
            except queue.Full:
                continue

    def produce() -> None:
        try:
            for item in items:
                if stop.is_set():
                    break
                hand((False, item))
        except BaseException as exc:  # raised on the consumer's side
            hand((True, exc))
            return
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()
        hand((True, None))

    worker = threading.Thread(target=produce, name="urlset-side-reader", daemon=True)
    worker.start()
    try:
        while True:
            done, item = handed.get()
            if done:
                if item is not None:
                    raise item
                return
            yield item
    finally:
        stop.set()
        worker.join()


def sitemap_batches(
    path: Path, sitemap: str | None, repeats: list[Issue] | None = None
) -> Iterator[Any]:
    """One sitemap file's Urls as Arrow record batches (``arrow_schema``), a chunk at a time,
    in the render lane: the core reads canonical records, a text sitemap's lines and an
    index's records straight into Arrow columns (no Python object per entry); the reader's
    other Urls join them in their places (``fetch_batches``). An index's entries are no Urls:
    a side holds the Urls of the sitemaps it reads, not the index's list of them.
    ``repeats`` collects the reader's ``duplicate-loc`` findings: the first loc listed twice
    in the document is always reported (the reader's set of locs, core and Python lanes
    alike, holds every loc as the batches have it), so none means no loc repeats."""
    from ..reading.arrow import fetch_batches
    from ..reading.reader import FILE_CHUNK, SitemapReader
    from ..reading.rendered import RenderedRun, RenderSpec

    spec = RenderSpec("arrow", "", indexes=True, texts=True)
    reader = SitemapReader(str(path), render=spec)
    at = 0  # entries of the document handed on so far: runs count from its start

    def hand_on(events: list[Any]) -> list[Any]:
        nonlocal at
        if repeats is not None:
            repeats.extend(e for e in events if type(e) is Issue and e.code == "duplicate-loc")
        runs = spec.take()
        if spec.index:  # the records and the values of an index: dropped, unmade
            spec.columns()
            return []
        urls = [event for event in events if type(event) is Url]
        if not urls and not runs:
            return []
        if at:
            runs = [RenderedRun(run.at - at, run.count, None) for run in runs]
        at += len(urls) + sum(run.count for run in runs)
        return fetch_batches(urls, spec, sitemap or "", runs)

    try:
        with path.open("rb") as f:
            while not reader.done and (chunk := f.read(FILE_CHUNK)):
                yield from hand_on(reader.feed(chunk))
        yield from hand_on(reader.close())
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None


def sitemap_files(directory: Path) -> list[Path]:
    return sorted(
        p
        for p in directory.rglob("*")
        if p.is_file() and p.name.lower().endswith(SITEMAP_SUFFIXES) and not p.name.startswith(".")
    )


def _dir_batches(directory: Path) -> Iterator[Any]:
    files = sitemap_files(directory)
    if not files:
        raise StoreError(f"{directory}: no sitemap files in it ({', '.join(SITEMAP_SUFFIXES)})")
    for path in files:
        yield from sitemap_batches(path, path.relative_to(directory).as_posix())


def fetch_entries(url: str, batches: Batches, put: Put) -> None:
    """Fetch a site or sitemap URL and add every entry, with the sitemap it came from: in
    the render lane, as Arrow record batches (no Python object per canonical entry), as
    ``fetch --format parquet`` reads them."""
    from ..fetching.http import fetch_sitemaps
    from ..fetching.parse_pool import UrlBatch, columns_of
    from ..fetching.running import run_loop
    from ..fetching.values import SitemapRead

    def on_read(event: SitemapRead) -> None:
        urls = event.urls
        if isinstance(urls, UrlBatch) and urls.batches is not None:
            table = batches.add_batches(urls.batches)
        else:
            table = batches.add(columns_of(urls), event.node.url)
        if table is not None:
            put(table)

    result = run_loop(
        fetch_sitemaps(url, on_read=on_read, render=("parquet", None), rendered_only=True)
    )
    if result.nothing:
        reasons = [f"{n.url}: {n.issues[0].message}" for n in result.failed if n.issues]
        raise StoreError(
            f"nothing could be fetched from {url}" + (f" ({reasons[0]})" if reasons else "")
        )


def _first(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

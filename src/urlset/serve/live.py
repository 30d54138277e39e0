"""Live sources: sitemaps computed from an application's own data, on demand.

A ``LiveSet`` takes a callable that gives the entries (an iterable, pages of entries, or
the rows of a SQL query through any DB-API connection) and, when first asked for a document
or when its snapshot is older than ``max_age``, builds them with the stable build
(``write_sitemaps(..., stable=True)``) into its own directory: the same checks, splitting and
exact byte accounting as ``urlset build``, shards named by a hash of their URLs' locs (a
shard's URL does not move when an unrelated page is added), in bounded memory whatever the
size. Requests are answered from that directory (``DirectorySet``); a refresh runs on a
background thread while the previous snapshot is still served, and is published atomically.
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from ..writing.build import BuildReport, write_sitemaps
from ..writing.options import Entry
from .documents import DirectorySet, Document

EntriesFactory = Callable[[], Iterable[Entry]]
_FETCH = 8192  # rows fetched from a cursor at a time
RETRY_AFTER = 5  # seconds before a failed first snapshot is tried again by a request


def from_pages(pages: Callable[[], Iterable[Sequence[Entry]]]) -> EntriesFactory:
    """Entries from a callable that yields pages (lists) of entries."""

    def entries() -> Iterator[Entry]:
        for page in pages():
            yield from page

    return entries


def from_query(connect: Callable[[], Any], sql: str, params: Sequence[Any] = ()) -> EntriesFactory:
    """Entries from a SQL query through the DB-API (PEP 249): ``connect()`` opens a connection
    (closed after the snapshot); the query selects loc, and optionally lastmod, changefreq,
    priority, in that order: each row is a build row."""

    def entries() -> Iterator[Entry]:
        connection = connect()
        try:
            cursor = connection.cursor()
            cursor.execute(sql, tuple(params))
            while rows := cursor.fetchmany(_FETCH):
                yield from (tuple(row) for row in rows)
            cursor.close()
        finally:
            connection.close()

    return entries


class LiveSet:
    """A sitemap set computed from ``entries()`` (called again for each snapshot).

    ``base_url``: the site (the scope every URL must lie under); ``sitemap_url``: where the
    app serves the sitemaps, if not there; ``max_age``: seconds a snapshot is served before
    the next is built (None: only when ``refresh`` is called); ``directory``: where snapshots
    are kept (default: a temporary directory); other keywords are build options (``gzip``
    defaults to False here: the server compresses per request)."""

    def __init__(
        self,
        entries: EntriesFactory,
        base_url: str,
        *,
        max_age: float | None = 300.0,
        directory: str | Path | None = None,
        clock: Callable[[], float] = time.monotonic,
        **options: Any,
    ) -> None:
        self._entries = entries
        self._base_url = base_url
        self._options = {"gzip": False, **options, "stable": True}
        named = getattr(entries, "section", None)  # a source that names sections (Django's)
        if named is not None:
            self._options.setdefault("section", named)
        self._max_age = max_age
        self._clock = clock
        if directory is None:  # removed with this set (or at exit)
            directory = tempfile.mkdtemp(prefix="urlset-serve-")
            self._cleanup = weakref.finalize(self, shutil.rmtree, directory, True)
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self._files = DirectorySet(self.directory)
        self._built_at: float | None = None
        self._failed_at = 0.0
        self._lock = threading.Lock()  # one build at a time
        self._starting = threading.Lock()  # one background refresh started at a time
        self._refreshing: threading.Thread | None = None
        self.report: BuildReport | None = None
        self.error: str | None = None

    @classmethod
    def from_iterable(cls, entries: Iterable[Entry], base_url: str, **kw: Any) -> LiveSet:
        """A set over an iterable that can be iterated again (a list, a view of a dict...)."""
        return cls(lambda: entries, base_url, **kw)

    def refresh(self) -> BuildReport:
        """Build a snapshot now (waits for one already running); raises what the build or the
        source raises."""
        with self._lock:
            return self._build()

    def _build(self) -> BuildReport:
        try:
            report = write_sitemaps(
                self._entries(), self.directory, self._base_url, **self._options
            )
        except Exception as exc:  # the source is the application's: a DB error, anything
            self.error = f"the sitemaps could not be computed: {type(exc).__name__}: {exc}"
            self._failed_at = self._clock()
            raise
        self.report, self.error = report, None
        self._built_at = self._clock()
        return report

    def _background(self) -> None:
        with contextlib.suppress(Exception):  # kept in self.error; the previous snapshot
            self.refresh()  # is still served

    def _first(self) -> bool:
        """The first snapshot, built once however many requests wait for it."""
        with self._lock:
            if self._built_at is not None:
                return True
            if self.error is not None and self._clock() - self._failed_at < RETRY_AFTER:
                return False
            try:
                self._build()
            except Exception:
                return False
            return True

    def _current(self) -> bool:
        """Make sure a snapshot exists (built here the first time) and start a refresh when it
        is too old; whether there is one to serve."""
        if self._built_at is None:
            return self._first()
        if self._max_age is None or self._clock() - self._built_at <= self._max_age:
            return True
        with self._starting:
            if self._refreshing is None or not self._refreshing.is_alive():
                self._refreshing = threading.Thread(target=self._background, daemon=True)
                self._refreshing.start()
        return True

    def problem(self) -> str | None:
        return None if self._current() else self.error

    def names(self) -> list[str]:
        return self._files.names() if self._current() else []

    def entry_points(self) -> list[str]:
        return self._files.entry_points() if self._current() else []

    def document(self, name: str) -> Document | None:
        return self._files.document(name) if self._current() else None

"""Storing what a fetch or a read produced as a run.

For ``urlset fetch --snapshot DB``: a ``FetchRecorder`` takes each ``SitemapRead`` as the fetch
hands it on (chain ``recorder.on_read`` with the output writer's; a fetch in the render lane
with ``columns`` hands on record batches, stored as they are) and ``finish(result)`` stores
the run's issues and commits; ``store_fetch`` does the same for reads already collected.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from ..fetching.parse_pool import UrlBatch, columns_of
from ..fetching.values import DiscoveryResult, SitemapRead
from ..model import Issue
from ..reading.output import UrlColumns
from .snapshot import RunWriter, SnapshotStore


class FetchRecorder:
    """One fetch run being stored: in an open SnapshotStore, or in the store at a path
    (opened here and closed by ``finish`` or ``abort``)."""

    def __init__(self, store: SnapshotStore | str | os.PathLike[str], site: str) -> None:
        self.owns_store = not isinstance(store, SnapshotStore)
        self.store = store if isinstance(store, SnapshotStore) else SnapshotStore(store)
        # entries inserted on a store thread: the fetch goes on meanwhile
        self.writer: RunWriter = self.store.begin(site, "fetch", background=True)

    def on_read(self, event: SitemapRead) -> None:
        urls = event.urls
        if isinstance(urls, UrlBatch) and urls.batches is not None:
            self.writer.add_batches(urls.batches)  # the render lane's: no Url values
        else:
            self.writer.add(columns_of(urls), event.node.url)

    def finish(self, result: DiscoveryResult) -> int:
        """Store the run's issues (each sitemap's, then the run's own), commit, close; returns
        the run id."""
        try:
            for node in result.nodes():
                self.writer.add_issues(node.issues, node.url)
            self.writer.add_issues(result.issues)
            return self.writer.finish(partial=result.partial)
        finally:
            self.abort()

    def abort(self) -> None:
        """Store nothing (an interrupted fetch; after ``finish``, nothing to undo)."""
        self.writer.abort()
        if self.owns_store:
            self.store.close()


def store_fetch(
    db: str | os.PathLike[str], result: DiscoveryResult, reads: Iterable[SitemapRead]
) -> int:
    """Store a finished fetch (its result and the SitemapReads it handed on) as one run."""
    recorder = FetchRecorder(db, result.start)
    try:
        for event in reads:
            recorder.on_read(event)
    except BaseException:
        recorder.abort()
        raise
    return recorder.finish(result)


def store_read(
    db: str | os.PathLike[str],
    source: str,
    batches: Iterable[UrlColumns],
    issues: Iterable[Issue],
) -> int:
    """Store the entries of one read sitemap (``urlset read --snapshot``) as a run whose
    site is the source's name; the entries' sitemap is the source too."""
    with SnapshotStore(db) as store:
        writer = store.begin(source, "read")
        try:
            for columns in batches:
                writer.add(columns, source)
            writer.add_issues(issues, source)
            return writer.finish()
        finally:
            writer.abort()

"""The watch loop: fetch a site with the cache, store the run, diff it with the previous run
of that site, hand the outcome on; then wait, until told to stop.

- One fetch of a site at a time: a run takes an exclusive lock on a file named after the
  site (``site_lock``) for as long as it fetches and stores; a run that finds the lock held
  (another watch of the same site) is skipped and reported, never run beside it. Inside one
  loop runs never overlap: the next waits for the one before to end.
- Stopping: ``stop`` (a threading.Event the command sets on SIGTERM or SIGINT) ends the
  wait at once; a run in progress finishes and is stored first.
- The store is opened for each run and closed after it, so ``urlset diff DB@-1 DB@latest``
  can read it between runs (DuckDB lets one process write a file at a time).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from ..fetching.http import HttpOptions, fetch_sitemaps
from ..fetching.running import run_loop
from ..fetching.values import DiscoveryOptions, DiscoveryResult
from .db import StoreError
from .diff import Diff, diff_sides
from .record import FetchRecorder
from .snapshot import RunInfo, SnapshotStore
from .sources import Side


@dataclass(frozen=True, slots=True)
class WatchOptions:
    site: str
    every: float  # seconds from the start of one run to the start of the next
    db: str  # the snapshot store (":memory:" keeps runs only while the loop lives)
    cache_dir: str
    max_runs: int | None = None
    discovery: DiscoveryOptions | None = None
    http: HttpOptions | None = None
    examples: int = 5


@dataclass(slots=True)
class Outcome:
    """One round: a stored run (``run``), or ``skipped`` with the reason. ``diff`` compares
    it with the site's previous run (None for the first); it is only valid inside the
    ``on_run`` call, while the store is open."""

    number: int
    started: datetime
    run: RunInfo | None = None
    previous: RunInfo | None = None
    result: DiscoveryResult | None = None
    diff: Diff | None = None
    skipped: str | None = None


def lock_path(site: str) -> str:
    digest = hashlib.sha256(site.encode()).hexdigest()[:24]
    folder = os.path.join(tempfile.gettempdir(), f"urlset-watch-{os.getuid()}")
    os.makedirs(folder, mode=0o700, exist_ok=True)
    return os.path.join(folder, f"{digest}.lock")


@contextlib.contextmanager
def site_lock(site: str) -> Iterator[bool]:
    """Yields True while this process alone fetches ``site``; False when another holds it."""
    with open(lock_path(site), "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def run_side(store: SnapshotStore, run: RunInfo) -> Side:
    label = f"run {run.run_id} ({run.started})"
    return Side(label, "entries", f"run_id = {run.run_id}", run.url_count, run.duplicates, True)


class Watcher:
    """Runs rounds until ``max_runs`` or ``stop``; ``on_run`` gets each Outcome."""

    def __init__(self, options: WatchOptions, on_run: Callable[[Outcome], None]) -> None:
        self.options = options
        self.on_run = on_run
        self.memory = SnapshotStore(":memory:") if options.db == ":memory:" else None

    def loop(self, stop: Callable[[float], bool]) -> int:
        """``stop(seconds)`` waits up to that long and says whether to stop (an Event's
        ``wait``). Returns the number of rounds."""
        number = 0
        while self.options.max_runs is None or number < self.options.max_runs:
            number += 1
            began = time.monotonic()
            self.round(number)
            if self.options.max_runs is not None and number >= self.options.max_runs:
                break
            if stop(max(0.0, self.options.every - (time.monotonic() - began))):
                break
        if self.memory is not None:
            self.memory.close()
        return number

    def round(self, number: int) -> None:
        outcome = Outcome(number, datetime.now(UTC))
        with site_lock(self.options.site) as mine:
            if not mine:
                outcome.skipped = "another fetch of this site is still running"
                self.on_run(outcome)
                return
            try:
                store = self.memory or SnapshotStore(self.options.db)
            except StoreError as exc:
                if number == 1:  # a store that cannot be used at all
                    raise
                outcome.skipped = str(exc)  # locked by a reader right now: next round
                self.on_run(outcome)
                return
            try:
                self._fetch_and_store(store, outcome)
                self.on_run(outcome)
            finally:
                if self.memory is None:
                    store.close()

    def _fetch_and_store(self, store: SnapshotStore, outcome: Outcome) -> None:
        options = self.options
        recorder = FetchRecorder(store, options.site)
        try:
            result = run_loop(
                fetch_sitemaps(
                    options.site,
                    discovery=options.discovery,
                    http=options.http,
                    cache_dir=options.cache_dir,
                    on_read=recorder.on_read,
                )
            )
        except BaseException:
            recorder.abort()
            raise
        outcome.result = result
        if result.nothing:  # a site that is down is not a site whose URLs all went
            recorder.abort()
            reasons = [i.message for n in result.failed for i in n.issues[:1]]
            reasons += [i.message for i in result.issues[:1]]
            outcome.skipped = "nothing could be fetched" + (f": {reasons[0]}" if reasons else "")
            return
        run_id = recorder.finish(result)
        runs = store.runs(options.site)
        outcome.run = next(r for r in runs if r.run_id == run_id)
        earlier = [r for r in runs if r.run_id < run_id]
        if earlier:
            outcome.previous = earlier[-1]
            outcome.diff = diff_sides(
                store.con,
                run_side(store, outcome.previous),
                run_side(store, outcome.run),
                examples=options.examples,
            )

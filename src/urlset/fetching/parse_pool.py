"""The ParsePool: sitemap readers in worker processes, fed a body's chunks as they arrive.

In: a document's source URL, base URL, limits and an async iterator of its chunks. Out: the
reader's format and verdict, its refs and issues, and the Urls as a UrlBatch (columns, and the
rendered output when the pool was given a renderer); WorkerLost when a worker dies.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading
from array import array
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from multiprocessing.connection import Connection
from typing import Any, overload

from ..limits import ReadLimits
from ..model import Issue, SitemapRef, Url
from ..reading.output import Render, UrlColumns
from .issues import STOP_CODES

# Parsing is the CPU cost of a fetch (the download is cheap on a fast link), and the reader
# is Python: one core reads ~150k URLs/s. A ParsePool runs readers in worker processes, so a
# fetch uses every core. The event loop still does all the I/O; each body's chunks are sent
# to one worker as they arrive (coalesced, acknowledged: constant memory, and the download
# stops when the worker's reader stops at a limit). The Urls come back as columns, which
# pickle at C speed, and, when the caller names a renderer, already rendered as output bytes,
# so the main process does no per-URL work at all unless someone looks at the Urls. A worker
# that dies costs the sitemap it was reading (reported); with none left, parsing moves back
# into the main process.

_COALESCE = 256 * 1024


class UrlBatch(Sequence[Url]):
    """Urls from a parse worker: compact columns, made into Url values only when looked at.

    ``rendered`` is the output of these Urls (UTF-8, one line per Url) when the pool was given
    a renderer, and ``render`` its name; slicing from the start keeps it in step.
    """

    __slots__ = ("_urls", "columns", "render", "rendered")

    def __init__(
        self, columns: UrlColumns, render: str | None = None, rendered: bytes | None = None
    ) -> None:
        self.columns = columns
        self._urls: list[Url] | None = None
        self.render = render
        self.rendered = rendered

    def __len__(self) -> int:
        return self.columns.count

    def _all(self) -> list[Url]:
        if self._urls is None:
            self._urls = self.columns.urls()
        return self._urls

    @overload
    def __getitem__(self, index: int) -> Url: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Url]: ...

    def __getitem__(self, index: int | slice) -> Url | Sequence[Url]:
        if isinstance(index, slice) and index.start in (None, 0) and index.step in (None, 1):
            stop = len(self) if index.stop is None else max(0, min(index.stop, len(self)))
            rendered = None
            if self.rendered is not None:
                end = 0
                for _ in range(stop):
                    end = self.rendered.index(b"\n", end) + 1
                rendered = self.rendered[:end]
            return UrlBatch(self.columns.head(stop), self.render, rendered)
        return self._all()[index]

    def __iter__(self) -> Iterator[Url]:
        return iter(self._all())


def columns_of(urls: Sequence[Url]) -> UrlColumns:
    """The columns of a read's Urls: a worker's batch as it came, others made from the values."""
    return urls.columns if isinstance(urls, UrlBatch) else UrlColumns.from_urls(urls)


def _pool_worker(conn: Connection, render: tuple[str, Render] | None) -> None:
    """A parse worker: ("o", source, base, limits) opens a reader, ("d", bytes) feeds it
    (answered True while it reads on), ("c",) closes it (answered with the result).

    Urls become columns as each chunk is read, so the worker holds no Url objects."""
    from ..reading.reader import SitemapReader

    reader: SitemapReader | None = None
    parts: list[UrlColumns] = []
    others: list[SitemapRef | Issue] = []
    sitemap = ""

    def take(events: list[Url | SitemapRef | Issue]) -> bool:
        rest = [e for e in events if type(e) is not Url]
        if rest:
            others.extend(rest)  # type: ignore[arg-type]
            events = [e for e in events if type(e) is Url]
        if events:
            parts.append(UrlColumns.from_urls(events))  # type: ignore[arg-type]
        return any(type(i) is Issue and i.code in STOP_CODES for i in rest)

    conn.send("ready")
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        kind = message[0]
        if kind == "d" and reader is not None:
            stopped = take(reader.feed(message[1]))
            conn.send(not (stopped or reader.fatal))
        elif kind == "o":
            reader = SitemapReader(message[1], base_url=message[2], limits=message[3])
            parts, others, sitemap = [], [], message[1]
        elif kind == "c" and reader is not None:
            take(reader.close())
            columns = _concat(parts)
            refs = [(r[0], r[1]) for r in others if type(r) is SitemapRef]
            issues = [i for i in others if type(i) is Issue]
            rendered = None
            if render is not None and columns.count:
                rendered = render[1](columns, sitemap).encode("utf-8")
            conn.send((reader.format, reader.fatal, columns, refs, issues, rendered))
            reader, parts, others = None, [], []
        else:
            return


def _concat(parts: list[UrlColumns]) -> UrlColumns:
    if len(parts) == 1:
        return parts[0]
    extensions: list[tuple[Any, ...]] | None = None
    if any(p.extensions is not None for p in parts):
        extensions = []
        for p in parts:
            extensions.extend(p.extensions if p.extensions is not None else [()] * p.count)
    priorities: array[float] = array("d")
    for p in parts:
        priorities.extend(p.priorities)
    return UrlColumns(
        [loc for p in parts for loc in p.locs],
        [t for p in parts for t in p.lastmods],
        b"".join(p.changefreqs for p in parts),
        priorities,
        extensions,
    )


def fork_is_safe() -> bool:
    """Forking is cheap (workers share the modules already imported) but safe only while
    this process has a single thread, and only on Linux (macOS system libraries are not
    fork-safe; Python itself spawns there)."""
    return sys.platform.startswith("linux") and threading.active_count() == 1


class _Worker:
    __slots__ = ("conn", "lock", "process")

    def __init__(self, process: Any, conn: Connection) -> None:
        self.process = process
        self.conn = conn
        self.lock = threading.Lock()  # one exchange at a time, from whichever thread

    def exchange(self, message: tuple[Any, ...]) -> Any:
        with self.lock:
            self.conn.send(message)
            return self.conn.recv()

    def reset(self) -> bool:
        """Close whatever document the worker holds (after a failed download); False when
        the worker is gone."""
        with self.lock:
            try:
                self.conn.send(("c",))
                self.conn.recv()
            except (OSError, EOFError):
                return False
        return True


class WorkerLost(Exception):
    """A parse worker process ended while it read a document."""


class ParsePool:
    """Worker processes running SitemapReaders; see the section comment above."""

    def __init__(self, workers: int, render: tuple[str, Render] | None = None) -> None:
        import multiprocessing

        from ..reading import reader as _reader  # imported before forking, so workers have it

        del _reader
        method = "fork" if fork_is_safe() else "spawn"
        context: Any = multiprocessing.get_context(method)
        self.render = render
        self._workers: list[_Worker] = []
        for _ in range(workers):
            parent, child = context.Pipe()
            process = context.Process(target=_pool_worker, args=(child, render), daemon=True)
            process.start()
            child.close()
            self._workers.append(_Worker(process, parent))
        self._free: asyncio.Queue[_Worker | None] | None = None
        self._alive = len(self._workers)

    async def start(self) -> None:
        """Wait until every worker is ready (a spawned one imports urlset first), so that
        no download's timeout runs while a worker starts."""
        loop = asyncio.get_running_loop()
        for worker in self._workers:
            await loop.run_in_executor(None, worker.conn.recv)

    async def _acquire(self) -> _Worker | None:
        """A free worker, or None once every worker has died."""
        if self._free is None:
            self._free = asyncio.Queue()
            for each in self._workers:
                self._free.put_nowait(each)
            self._alive = len(self._workers)
        if self._alive == 0:
            return None
        worker = await self._free.get()
        if worker is None:
            self._free.put_nowait(None)  # wake the next waiter too
        return worker

    def _release(self, worker: _Worker, alive: bool) -> None:
        assert self._free is not None
        if alive:
            self._free.put_nowait(worker)
            return
        self._alive -= 1
        if self._alive == 0:
            self._free.put_nowait(None)

    def close(self) -> None:
        for worker in self._workers:
            with contextlib.suppress(OSError):
                worker.conn.send(("q",))
        for worker in self._workers:
            worker.process.join(2)
            if worker.process.is_alive():
                worker.process.kill()
            worker.conn.close()
        self._workers = []

    async def parse(
        self,
        source: str,
        base_url: str,
        limits: ReadLimits,
        chunks: AsyncIterator[bytes],
        count: Callable[[int], bool],
        keep: Callable[[str | None, list[Url | SitemapRef | Issue], Sequence[Url]], None]
        | None = None,
    ) -> tuple[str | None, bool, list[SitemapRef | Issue], UrlBatch] | None:
        """Stream ``chunks`` to a worker; ``count(n)`` is told each chunk's size and returns
        False to stop. Returns (format, fatal, refs and issues, Urls), or None without
        touching ``chunks`` when no worker is left. Raises WorkerLost if the worker dies.
        When the chunks stop with an error (a reset, a timeout), ``keep`` is given what the
        worker read of them."""
        worker = await self._acquire()
        if worker is None:
            return None
        loop = asyncio.get_running_loop()
        healthy: bool | None = False
        pending: list[bytes] = []
        try:
            with worker.lock:
                worker.conn.send(("o", source, base_url, limits, source))
            pending = []
            size = 0
            going = True
            async for chunk in chunks:
                if not count(len(chunk)):
                    break
                pending.append(chunk)
                size += len(chunk)
                if size >= _COALESCE:
                    message = ("d", b"".join(pending))
                    pending, size = [], 0
                    going = await loop.run_in_executor(None, worker.exchange, message)
                    if not going:
                        break
            if pending and going:
                await loop.run_in_executor(None, worker.exchange, ("d", b"".join(pending)))
            result = await loop.run_in_executor(None, worker.exchange, ("c",))
            healthy = True
        except (OSError, EOFError) as exc:
            self._release(worker, False)
            healthy = None
            raise WorkerLost(f"the parse worker ended ({type(exc).__name__})") from None
        finally:
            if healthy:
                self._release(worker, True)
            elif healthy is False and keep is not None:
                # cut off halfway: what the worker read is kept (it has at most one chunk
                # left to read, so this short wait holds up the event loop only briefly)
                salvaged = _salvage(worker, pending)
                self._release(worker, salvaged is not None)
                if salvaged is not None:
                    fmt, _, others, urls = self._result(salvaged)
                    keep(fmt, list(others), urls)
            elif healthy is False:
                # a download that failed halfway leaves the worker inside a document
                done = loop.run_in_executor(None, worker.reset)
                done.add_done_callback(lambda f: self._release(worker, f.result()))
        return self._result(result)

    def _result(
        self, result: tuple[Any, ...]
    ) -> tuple[str | None, bool, list[SitemapRef | Issue], UrlBatch]:
        fmt, fatal, columns, refs, issues, rendered = result
        others: list[SitemapRef | Issue] = [SitemapRef._trusted(loc, lm) for loc, lm in refs]
        others.extend(issues)
        name = self.render[0] if self.render is not None else None
        return fmt, fatal, others, UrlBatch(columns, name, rendered)


def _salvage(worker: _Worker, pending: list[bytes]) -> tuple[Any, ...] | None:
    """Close the document a worker holds after its body was cut off: what it read, or None
    when the worker is gone."""
    try:
        if pending:
            worker.exchange(("d", b"".join(pending)))
        result: tuple[Any, ...] = worker.exchange(("c",))
    except (OSError, EOFError):
        return None
    return result


# A pool is started only when there is enough to parse: a body of this many bytes (a gzip
# file counted at GZIP_RATIO times its size), or this many bytes parsed in the main process
# so far. Below it, forking and feeding workers costs more than parsing here (a small
# site's three sitemaps parse in a few milliseconds; starting workers takes longer).
POOL_AFTER = 1 << 20
GZIP_RATIO = 8


class LazyPool:
    """A ParsePool of ``workers`` processes, started the first time ``get`` is awaited."""

    def __init__(
        self, workers: int, render: tuple[str, Render] | None = None, after: int = POOL_AFTER
    ) -> None:
        self.workers = workers
        self.render = render
        self.after = after  # bytes that make parsing worth a pool (see POOL_AFTER)
        self.pool: ParsePool | None = None
        self._starting: asyncio.Future[ParsePool | None] | None = None

    @property
    def ready(self) -> ParsePool | None:
        """The pool once it has started, else None."""
        starting = self._starting
        if starting is None or not starting.done() or starting.cancelled():
            return None
        return starting.result()

    def start_soon(self) -> None:
        """Start the pool in the background (``ready`` says when it has)."""
        if self._starting is None:
            self._starting = asyncio.ensure_future(self._start())

    async def get(self) -> ParsePool | None:
        """The pool, started now if need be; None when it could not start (parse here)."""
        self.start_soon()
        assert self._starting is not None
        return await asyncio.shield(self._starting)

    async def _start(self) -> ParsePool | None:
        try:
            pool = ParsePool(self.workers, self.render)
        except OSError:
            return None
        self.pool = pool
        try:
            await pool.start()
        except (EOFError, OSError):  # a worker could not start: parse here instead
            pool.close()
            self.pool = None
            return None
        return pool

    def close(self) -> None:
        if self._starting is not None and not self._starting.done():
            self._starting.cancel()
        if self.pool is not None:
            self.pool.close()
            self.pool = None

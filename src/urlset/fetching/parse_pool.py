"""The ParsePool: sitemap readers on parse threads, fed a body's chunks as they arrive.

In: a document's source URL, base URL, limits and an async iterator of its chunks. Out: the
reader's format and verdict, its refs and issues, and the Urls as a UrlBatch (columns, and the
rendered output when the pool was given a renderer).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any, overload

from ..limits import ReadLimits
from ..model import Issue, SitemapRef, Url
from ..reading.output import Render, UrlColumns, line_tail
from ..reading.rendered import RenderedRun, RenderSpec, merge_rendered
from .lane_columns import concat, core_columns, in_document_order

if TYPE_CHECKING:
    from ..reading.reader import SitemapReader

# Parsing is the CPU cost of a fetch (the download is cheap on a fast link). The reader's
# record scan (compiled core) and gzip inflation (zlib) release the GIL, so a ParsePool runs
# readers on parse threads and a fetch uses every core without worker processes: nothing to
# start, nothing to pickle (a small site pays no start-up; measured in BENCHMARKS.md, the
# 500,000-URL fetch is as fast as or faster than it was with forked workers). The event loop
# still does all the I/O; each body's chunks go to one parse thread as they arrive
# (coalesced, in step: constant memory, and the download stops when the reader stops at a
# limit). The Urls come back as columns and, when the caller names a renderer, already
# rendered as output bytes, so the event loop does no per-URL work.

_COALESCE = 256 * 1024


class UrlBatch(Sequence[Url]):
    """Urls from a parse worker: compact columns, made into Url values only when looked at.

    ``rendered`` is the output of these Urls (UTF-8, one line per Url) when the pool was given
    a renderer (``parts``: the same in pieces, which a writer takes as they are), and
    ``render`` its name; slicing from the start keeps it in step. A pool that renders only
    (``rendered_only``) gives no columns: its ``count`` Urls are their output, or for
    "parquet" ``batches``, Arrow record batches in Parquet's columns; one asked for
    ``columns`` too gives both, the output text and the batches (for a snapshot store); one
    asked for ``values`` gives the output and the Urls' columns (for a report or a cache),
    made from the core's compact buffers each time they are asked for (``columns``), so the
    batches waiting for the event loop hold no Python string a URL.
    """

    __slots__ = ("_columns", "_urls", "batches", "parts", "render", "size")

    def __init__(
        self,
        columns: UrlColumns | None,
        render: str | None = None,
        rendered: bytes | list[bytes] | None = None,
        count: int = 0,
        batches: list[Any] | None = None,
    ) -> None:
        self._columns = columns
        self.batches = batches
        self.parts = [rendered] if isinstance(rendered, bytes) else rendered
        self.size = columns.count if isinstance(columns, UrlColumns) else count
        self._urls: list[Url] | None = None
        self.render = render

    def __len__(self) -> int:
        return self.size

    @property
    def columns(self) -> UrlColumns | None:
        """The Urls as columns; None for a batch that holds them as output only."""
        columns = self._columns
        return columns() if callable(columns) else columns

    @property
    def rendered(self) -> bytes | None:
        if self.parts is None:
            return None
        if len(self.parts) != 1:
            self.parts = [b"".join(self.parts)]
        return self.parts[0]

    def _all(self) -> list[Url]:
        if self._urls is None:
            columns = self.columns
            if columns is None:
                raise LookupError("a rendered-only batch holds its URLs as output text only")
            self._urls = columns.urls()
        return self._urls

    @overload
    def __getitem__(self, index: int) -> Url: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Url]: ...

    def __getitem__(self, index: int | slice) -> Url | Sequence[Url]:
        if isinstance(index, slice) and index.start in (None, 0) and index.step in (None, 1):
            stop = len(self) if index.stop is None else max(0, min(index.stop, len(self)))
            rendered, text = None, self.rendered
            if text is not None:
                end = 0
                for _ in range(stop):
                    end = text.index(b"\n", end) + 1
                rendered = text[:end]
            batches = None if self.batches is None else _head_batches(self.batches, stop)
            head = None if self.columns is None else self.columns.head(stop)
            return UrlBatch(head, self.render, rendered, stop, batches)
        return self._all()[index]

    def __iter__(self) -> Iterator[Url]:
        return iter(self._all())


def _head_batches(batches: list[Any], rows: int) -> list[Any]:
    """The first ``rows`` rows of record ``batches``."""
    out = []
    for batch in batches:
        if rows <= 0:
            break
        out.append(batch.slice(0, rows))
        rows -= batch.num_rows
    return out


def columns_of(urls: Sequence[Url]) -> UrlColumns:
    """The columns of a read's Urls: a worker's batch as it came, others made from the values."""
    columns = urls.columns if isinstance(urls, UrlBatch) else None
    return columns if columns is not None else UrlColumns.from_urls(urls)


class _Parsing:
    """One parse worker's state: ("o", source, base, limits) opens a reader, ("d", bytes)
    feeds it (answered True while it reads on), ("c",) closes it (answered with the result).

    Urls become columns as each chunk is read, so the worker holds no Url objects. With
    ``rendered_only`` the reader renders (the render lane, reading/rendered.py): canonical
    records become output text in the compiled core, the few other Urls are kept as they
    are and rendered into their places at the end. ``columns``: the Urls as record batches
    too (FETCH_COLUMNS, reading/arrow.py), besides the output text. ``values``: the Urls as
    UrlColumns too (lane_columns.py), for a reader of their values besides the output."""

    def __init__(
        self,
        render: tuple[str, Render | None] | None,
        rendered_only: bool = False,
        columns: bool = False,
        values: bool = False,
    ) -> None:
        self.render = render
        self.rendered_only = rendered_only and render is not None
        self.columns = columns
        self.values = values
        self.reader: SitemapReader | None = None
        self.parts: list[UrlColumns] = []
        self.urls: list[Url] = []  # the render lane's Urls not rendered in the core
        self.spec: RenderSpec | None = None
        self.others: list[SitemapRef | Issue] = []
        self.sitemap = ""

    def _take(self, events: list[Url | SitemapRef | Issue]) -> None:
        rest = [e for e in events if type(e) is not Url]
        if rest:
            self.others.extend(rest)  # type: ignore[arg-type]
            events = [e for e in events if type(e) is Url]
        if events and self.spec is not None:
            self.urls.extend(events)  # type: ignore[arg-type]
        elif events:
            self.parts.append(UrlColumns.from_urls(events))  # type: ignore[arg-type]

    def handle(self, message: tuple[Any, ...]) -> Any:
        """The answer to ``message`` (None for "o", which is not answered); raises EOFError
        for a message out of turn or "q"."""
        from ..reading.reader import SitemapReader

        kind, reader = message[0], self.reader
        if kind == "d" and reader is not None:
            self._take(reader.feed(message[1]))
            return not (reader.done or reader.fatal)
        if kind == "o":
            self.sitemap = message[1]
            self.spec = None
            if self.render is not None and self.rendered_only:
                fmt = self.render[0]
                if fmt == "parquet":  # Arrow columns (reading/arrow.py)
                    self.spec = RenderSpec("arrow", "")
                else:
                    tail = line_tail(fmt, self.sitemap)
                    self.spec = RenderSpec(fmt, tail, columns=self.columns or self.values)
            self.reader = SitemapReader(
                message[1], base_url=message[2], limits=message[3], render=self.spec
            )
            self.parts, self.urls, self.others = [], [], []
            return None
        if kind == "c" and reader is not None:
            self._take(reader.close())
            refs = [(r[0], r[1]) for r in self.others if type(r) is SitemapRef]
            issues = [i for i in self.others if type(i) is Issue]
            columns, rendered, batches, count = self._output()
            self.reader, self.parts, self.urls, self.others = None, [], [], []
            return (reader.format, reader.fatal, columns, refs, issues, rendered, batches, count)
        raise EOFError(f"parse worker message {kind!r} out of turn")

    def _output(
        self,
    ) -> tuple[
        UrlColumns | Callable[[], UrlColumns] | None,
        bytes | list[bytes] | None,
        list[Any] | None,
        int,
    ]:
        """The document's Urls: (columns, output text (in pieces), Parquet's record batches,
        count)."""
        spec, render, sitemap = self.spec, self.render, self.sitemap
        if spec is None:
            columns = concat(self.parts)
            out: bytes | None = None
            if render is not None and render[1] is not None and columns.count:
                out = render[1](columns, sitemap).encode("utf-8")
            return columns, out, None, columns.count
        count = len(self.urls) + spec.rendered
        runs = spec.take()
        values: Callable[[], UrlColumns] | None = None
        if self.values:  # the core's records (taken) and the reader's Urls, in order
            values = partial(_lane_values, self.urls, spec.columns(), runs)
        batches = None
        wanted = spec.fmt == "arrow" or self.columns  # Parquet's, or the store's
        if values is not None and wanted:
            from ..reading.arrow import fetch_values_batch

            batches = [fetch_values_batch(values(), sitemap)]
        elif wanted:
            from ..reading.arrow import fetch_batches

            batches = fetch_batches(self.urls, spec, sitemap, runs)
        if spec.fmt == "arrow" or render is None or render[1] is None:
            return values, None, batches, count
        text = render[1]

        def rendered(urls: Sequence[Url]) -> bytes:
            return text(UrlColumns.from_urls(urls), sitemap).encode("utf-8")

        return values, merge_rendered(self.urls, runs, rendered), batches, count


def _lane_values(
    urls: list[Url], buffers: tuple[Any, ...] | None, runs: list[RenderedRun]
) -> UrlColumns:
    return in_document_order(urls, core_columns(buffers), runs)


class _Worker:
    """A parse thread and the document it reads. The reader lives on that one thread from
    open to close: an lxml parser used from threads other than its own crashes the process
    (measured: free() aborts within a few runs of the 500,000-URL bench)."""

    __slots__ = ("parsing", "thread")

    thread: ThreadPoolExecutor | None

    def __init__(
        self,
        render: tuple[str, Render | None] | None,
        rendered_only: bool = False,
        inline: bool = False,
        columns: bool = False,
        values: bool = False,
    ) -> None:
        """``inline``: no thread, the caller's (the event loop's) does the parsing."""
        self.parsing = _Parsing(render, rendered_only, columns, values)
        self.thread = None if inline else ThreadPoolExecutor(1, thread_name_prefix="urlset-parse")

    def exchange(self, message: tuple[Any, ...]) -> Any:
        """``message``'s answer (see _Parsing), computed on the parse thread."""
        if self.thread is None:
            return self.parsing.handle(message)
        return self.thread.submit(self.parsing.handle, message).result()

    async def ask(self, message: tuple[Any, ...]) -> Any:
        if self.thread is None:
            return self.parsing.handle(message)
        return await asyncio.wrap_future(self.thread.submit(self.parsing.handle, message))

    def reset(self) -> None:
        """Drop whatever document the worker holds (after a failed download)."""
        if self.thread is None:
            self._reset()
            return
        self.thread.submit(self._reset).result()

    def _reset(self) -> None:
        parsing = self.parsing
        self.parsing = _Parsing(
            parsing.render, parsing.rendered_only, parsing.columns, parsing.values
        )

    def close(self) -> None:
        if self.thread is None:
            self._reset()
            return
        self.thread.submit(self._reset)  # the reader is freed on its own thread too
        self.thread.shutdown(wait=True)


class ParsePool:
    """Parse threads running SitemapReaders; see the section comment above."""

    def __init__(
        self,
        workers: int,
        render: tuple[str, Render | None] | None = None,
        rendered_only: bool = False,
        columns: bool = False,
        values: bool = False,
    ) -> None:
        """``rendered_only``: the Urls are wanted as ``render``'s output (UrlBatch), with
        ``columns`` as record batches too (``UrlBatch.batches``), with ``values`` as
        UrlColumns too (``UrlBatch.columns``). ``workers`` 0: one reader at a time, on the
        event loop."""
        self.render = render
        self._workers = [
            _Worker(render, rendered_only, columns=columns, values=values) for _ in range(workers)
        ]
        if not workers:
            self._workers = [
                _Worker(render, rendered_only, inline=True, columns=columns, values=values)
            ]
        self._free: asyncio.Queue[_Worker] | None = None

    async def _acquire(self) -> _Worker:
        if self._free is None:
            self._free = asyncio.Queue()
            for each in self._workers:
                self._free.put_nowait(each)
        return await self._free.get()

    def _release(self, worker: _Worker) -> None:
        assert self._free is not None
        self._free.put_nowait(worker)

    def close(self) -> None:
        for worker in self._workers:
            worker.close()
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
    ) -> tuple[str | None, bool, list[SitemapRef | Issue], UrlBatch]:
        """Stream ``chunks`` to a parse thread; ``count(n)`` is told each chunk's size and
        returns False to stop. Returns (format, fatal, refs and issues, Urls). When the
        chunks stop with an error (a reset, a timeout), ``keep`` is given what was read of
        them."""
        worker = await self._acquire()
        finished = False
        pending: list[bytes] = []
        try:
            await worker.ask(("o", source, base_url, limits))
            size = 0
            going = True
            async for chunk in chunks:
                pending.append(chunk)
                size += len(chunk)
                if not count(len(chunk)):  # a backstop: the reader's own limit stops first
                    break
                if size >= _COALESCE:
                    message = ("d", b"".join(pending))
                    pending, size = [], 0
                    going = await worker.ask(message)
                    if not going:
                        break
            if pending and going:
                await worker.ask(("d", b"".join(pending)))
            pending = []
            result = await worker.ask(("c",))
            finished = True
        finally:
            if not finished:
                # cut off halfway: what was read is kept (the parse thread has at most one
                # chunk left to read, so this short wait holds up the event loop briefly)
                salvaged = _salvage(worker, pending) if keep is not None else None
                if salvaged is None:
                    worker.reset()
                elif keep is not None:
                    fmt, _, others, urls = self._result(salvaged)
                    keep(fmt, list(others), urls)
            self._release(worker)
        return self._result(result)

    def _result(
        self, result: tuple[Any, ...]
    ) -> tuple[str | None, bool, list[SitemapRef | Issue], UrlBatch]:
        fmt, fatal, columns, refs, issues, rendered, batches, count = result
        others: list[SitemapRef | Issue] = [SitemapRef._trusted(loc, lm) for loc, lm in refs]
        others.extend(issues)
        name = self.render[0] if self.render is not None else None
        return fmt, fatal, others, UrlBatch(columns, name, rendered, count, batches)


def _salvage(worker: _Worker, pending: list[bytes]) -> tuple[Any, ...] | None:
    """Close the document a worker holds after its body was cut off: what it read, or None
    when it holds none (cut off before it was opened)."""
    try:
        if pending:
            worker.exchange(("d", b"".join(pending)))
        result: tuple[Any, ...] = worker.exchange(("c",))
    except EOFError:
        return None
    return result

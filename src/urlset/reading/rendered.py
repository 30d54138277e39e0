"""The render lane: a plain urlset's canonical records rendered straight into output text.

A reader given ``render=RenderSpec(fmt, sitemap)`` still passes every entry on through its
sink (counts, duplicates, limits, findings), but the runs of canonical records the compiled
lane reads (xml_compiled) are rendered by the compiled core (``urlset._core.RecordRenderer``,
rust/core/src/read/render.rs) into the output text of ``fmt``, without the GIL and without a
Python object per record. They do not appear among the reader's events; they collect in
``RenderSpec.runs`` as ``RenderedRun``s, each saying at which entry it starts, so a consumer
puts them back between the entries it did get (``merge_rendered``).

A loc that is not a URI as written but that the core makes one of (rust/core/src/values/iri.rs)
is rendered as that URI; the run says which, and the sink reports them (``normalized-url``)
where the usual path would, just before the run's entries. A record the sink must see itself
-- its loc seen before, its origin not yet judged for development hosts, a limit due, or
anything not canonical -- is read by the compiled lane's usual path at the same position, so
entries, issues and output stay what they are without this lane. The lane and that path
share the document's duplicate set (``Sink.seen``). The lane's loop is
``xml_compiled.render_records``; this module holds the types the reader, its sink and its
consumers share, below all of them.
"""

from __future__ import annotations

import threading
from array import array
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from .._core import RecordRenderer
from ..model import Issue

E = TypeVar("E")

# Why an entry of a document read in the render lane was passed on as the reader's value
# instead of rendered by the core (``RenderSpec.left``, ``left_core``):
LEFT_REASONS = {
    "duplicate": "its loc was listed before in the document (reported)",
    "limit": "an entry count was due (the protocol's 50,000, or ReadLimits.max_entries)",
    "new-origin": "the first entry on a host with a finding, whose loc the core made a URI of",
    "values": "a value the reader judges (corrected or reported)",
    "extension": "extensions other than plain images, videos, news and links, typed in Python",
    "piece": "markup the compiled lane does not read, parsed by lxml on its own",
    "careful": "read by the careful (lxml) lane: the rest of a document handed over, or a "
    "document the compiled lane never takes (RSS, Atom, another encoding)",
    "index": "an entry of a sitemap index read by a consumer that follows it (fetch; "
    "RenderSpec.indexes)",
    "text": "a line of a text sitemap the reader reads: white space around it, not a URL, "
    "not UTF-8, too long, a duplicate (or any, without RenderSpec.texts)",
}
_LEFT_TOTAL: Counter[str] = Counter()
_LEFT_LOCK = threading.Lock()


def left_core(*, reset: bool = False) -> dict[str, int]:
    """Entries that left the compiled path in this process, per reason (``LEFT_REASONS``),
    over every reader closed in the render lane (``urlset read``, ``read_arrow``, fetch's
    parse threads); ``reset`` starts the count again. Benchmarks print it; tests hold it
    at zero."""
    with _LEFT_LOCK:
        counts = {reason: n for reason, n in _LEFT_TOTAL.items() if n}
        if reset:
            _LEFT_TOTAL.clear()
    return counts


def add_left(counts: dict[str, int]) -> None:
    """Add one closed reader's ``left`` counts to the process's (``left_core``)."""
    if counts:
        with _LEFT_LOCK:
            _LEFT_TOTAL.update(counts)


class RenderedRun:
    """``count`` entries, from entry ``at`` of the document on, as output text (bytes; None
    for "arrow", whose records stay in the renderer's columns: ``RenderSpec.columns``)."""

    __slots__ = ("at", "count", "text")

    def __init__(self, at: int, count: int, text: bytes | None) -> None:
        self.at = at
        self.count = count
        self.text = text


class RenderSpec:
    """What a reader renders: ``fmt`` (jsonl, csv, tsv, locs) with ``tail`` ending each line
    (``output.line_tail``), or "arrow" (columns); the runs rendered so far collect in
    ``runs``. ``columns`` with a text ``fmt``: the same records in Arrow columns too, for a
    consumer besides the output (a fetch's snapshot store). ``indexes``: a sitemap index's
    records are rendered too (as ``urlset read`` writes a ``SitemapRef``; in columns, loc and
    lastmod); without it, a consumer that follows an index (fetch) gets its entries as values.
    ``texts``: a text sitemap's lines are rendered too (reading/text.py), as records with a
    loc only; without it (fetch, check) they come as the reader's values. ``judged``:
    "arrow"'s locs made URIs judged for check's ``plain_records`` (False: a reader of the
    columns alone, ``read_arrow``)."""

    def __init__(
        self,
        fmt: str,
        tail: str,
        *,
        columns: bool = False,
        indexes: bool = False,
        texts: bool = False,
        judged: bool = True,
    ) -> None:
        self.fmt = fmt
        self.judged = judged
        self.tail = tail
        self.indexes = indexes
        self.texts = texts
        self.index = False  # the document read is a sitemap index (rendered: ``indexes``)
        self.runs: list[RenderedRun] = []
        self.rendered = 0  # entries in runs so far
        # called after a run while no entry waits in the reader's output (``urlset read``
        # writes the runs then): a run's text freed before the next is made reuses the same
        # memory, where a chunk's runs held together were faulted in afresh each chunk
        self.on_run: Callable[[], None] | None = None
        # entries passed on as the reader's values instead, per reason (LEFT_REASONS): the
        # reader's sink counts them
        self.left: dict[str, int] = {}
        self.renderer: RecordRenderer | None = None
        self.with_columns = columns and fmt != "arrow"
        self.column_renderer: RecordRenderer | None = None
        self.told: set[str] = set()  # origins the renderers know (know)
        # the machine as the caller found it before threads of its own ran (read_arrow's
        # import of pyarrow), for the gzip thread's choice (Gunzip's ``looked``); None: the
        # reader looks itself
        self.looked: tuple[int | None] | None = None

    def add_run(self, at: int, count: int, text: bytes | None, waiting: Sequence[object]) -> None:
        """A run of ``count`` entries from entry ``at`` on; ``waiting``: what the reader has
        yet to hand on (``Sink.out``), its entries to be written before the run."""
        self.runs.append(RenderedRun(at, count, text))
        self.rendered += count
        if self.on_run is not None and not any(type(e) is not Issue for e in waiting):
            self.on_run()

    def take(self) -> list[RenderedRun]:
        """The runs rendered since the last call."""
        runs, self.runs = self.runs, []
        return runs

    def take_before(self, given: int) -> list[RenderedRun]:
        """``take``'s runs that no entry still to come goes before: ``given`` entries of the
        document (the runs' records among them) are the reader's so far; a writer that
        flushes part-way through a chunk's entries has not had those between the later
        runs, which wait for the next call."""
        taken = 0
        for run in self.runs:
            if run.at > given:
                break
            given += run.count
            taken += 1
        runs, self.runs = self.runs[:taken], self.runs[taken:]
        return runs

    def start(
        self,
        limit: int,
        prefixes: tuple[str | None, ...],
        raw: tuple[list[tuple[str, str]], int] = ([], 0),
        *,
        index: bool = False,
    ) -> RecordRenderer:
        """The document's renderer (values up to ``limit`` long), which the reader's sink
        makes its duplicate set from now on. Given the prefixes the root binds to the image,
        video, news and XHTML namespaces, records with plain images, videos, news and hreflang
        links are rendered too (their extensions as JSON), by both renderers alike; given
        ``raw`` (every prefix the root binds, and the levels an element may nest), so are
        records with plain elements of other namespaces (kept raw, as the reader keeps them).
        ``index``: the document is a sitemap index (``indexes``)."""
        namespaces, levels = raw
        self.index = index
        renderer = RecordRenderer(
            self.fmt,
            self.tail,
            limit,
            *prefixes,
            namespaces=namespaces,
            raw_levels=levels,
            index=index,
            judge_locs=self.judged,
        )
        self.renderer = renderer
        if self.with_columns:
            self.column_renderer = RecordRenderer(
                "arrow",
                "",
                limit,
                *prefixes,
                namespaces=namespaces,
                raw_levels=levels,
                index=index,
            )
            self.column_renderer.note_room([0] * 6, 0)  # the text renderer's are said
        return renderer

    def columns(self) -> Any:
        """The records of every run so far as Arrow buffers (taken), or None: "arrow"'s, or
        those read into columns beside the text (``columns``)."""
        renderer = self.column_renderer or self.renderer
        return renderer.columns() if renderer is not None and self.rendered else None

    def column_views(self) -> Any:
        """As ``columns``, each buffer the core's own (``_core.ColumnBuffer``, for Arrow to
        wrap without a copy) instead of bytes."""
        renderer = self.column_renderer or self.renderer
        return renderer.column_views() if renderer is not None and self.rendered else None

    def also_columns(self, data: bytes, pos: int, end: int, line: int, count: int) -> None:
        """Read the ``count`` records just rendered from ``data[pos:end]`` into columns too.
        The column renderer knows the origins the sink judged (``know``) and the run's locs,
        so it stops at none of them: it reads exactly the records the text renderer did."""
        assert self.column_renderer is not None
        done = self.column_renderer.render(data, pos, end, line, count)[2]
        # the same as the text renderer's, reported
        self.column_renderer.order_notes()
        self.column_renderer.value_notes()
        self.column_renderer.pad_notes()
        if done != count:
            raise RuntimeError(f"the render lane read {count} records as text, {done} as columns")

    def know(self, origin: str) -> None:
        """An origin the sink has judged, told to the renderers (``told``): the column
        renderer here, the text renderer by the caller."""
        self.told.add(origin)
        if self.column_renderer is not None:
            self.column_renderer.know(origin)


def in_order(
    entries: Sequence[E], runs: Sequence[RenderedRun]
) -> Iterator[Sequence[E] | RenderedRun]:
    """A document's entries in order: the rendered ``runs`` and, in the places between them,
    slices of ``entries`` (its other entries, in order)."""
    taken = entry = 0
    for run in runs:
        before = run.at - entry
        if before:
            yield entries[taken : taken + before]
            taken += before
        yield run
        entry = run.at + run.count
    if taken < len(entries):
        yield entries[taken:]


def take_order(values: int, runs: Sequence[RenderedRun]) -> array[int]:
    """Row numbers, in document order, into a table of the ``values`` entries the reader gave
    followed by the records of ``runs`` (the core's, in order)."""
    order: array[int] = array("q")
    taken = entry = core = 0
    for run in runs:
        before = run.at - entry
        order.extend(range(taken, taken + before))
        taken += before
        order.extend(range(values + core, values + core + run.count))
        core += run.count
        entry = run.at + run.count
    order.extend(range(taken, values))
    return order


def merge_rendered(
    urls: Sequence[E],
    runs: Sequence[RenderedRun],
    render: Callable[[Sequence[E]], bytes],
) -> list[bytes]:
    """A document's output, in pieces: the rendered ``runs`` with ``urls`` (its other
    entries, in order) rendered by ``render`` (one line each) in the places between them."""
    if not urls:
        return [run.text for run in runs if run.text]
    lines = render(urls)
    if not runs:
        return [lines]
    # the other entries rendered in one call, then put in their places a line at a time (no
    # output line holds a line feed: JSON and CSV escape or quote them, URIs have none)
    split = lines.split(b"\n")
    parts: list[bytes] = []
    taken = 0
    for part in in_order(urls, runs):
        if isinstance(part, RenderedRun):
            parts.append(part.text or b"")
        else:
            parts.append(b"\n".join(split[taken : taken + len(part)]) + b"\n")
            taken += len(part)
    return parts

"""The compiled lane: the bytes of a plain ``<urlset>``'s body in, entries out.

``CompiledLane`` takes over after the root start tag of a UTF-8 urlset in the sitemaps.org
namespace (``start``). It keeps the bytes fed to it up to the last '</url>' and hands them to
the compiled tokenizer (``urlset._core.UrlsetScanner``, rust/core/src/read/), which reads runs
of canonical records (loc, lastmod, changefreq, priority in protocol order, values that need
no correction) without the GIL and gives them back a column at a time; they become ``Url``
values in bulk. What it stops at is read here:

* a record whose core values are followed by prefixed elements: its extensions are typed by
  ``extensions.fast_extensions`` when they are in the plain form writers produce (plain
  images, the commonest, the tokenizer types itself: such a record stays in its run, its
  images' texts given with it, rust/core/src/read/images.rs);
* anything else (comments, odd values, unknown elements), one piece up to each '</url>' at a
  time, is parsed on its own by lxml in the root element's namespace context and read by the
  full lane's ``ElementReader``.

Only a piece that is not well-formed by itself ends the lane: the rest of the document goes
to the full lane (``FullLane``), after padding that puts libxml2 at the same line, column and
block offset as if it had read everything itself.
"""

from __future__ import annotations

import gc
import re
import sys
from functools import partial
from typing import TYPE_CHECKING, Any

from .._core import RecordRenderer, UrlsetScanner, entity_delta, overlong, plain_end, untracked_rows
from ..extensions import PREFIXES, SAFE_PARSER_OPTIONS, fast_extensions, trusted_maker_of
from ..model import ChangeFreq, RawElement, SitemapRef, Url
from .rendered import RenderSpec
from .run_issues import add_each, note_room, rendered_issues, run_issues, scanned_notes
from .sink import Sink, leaving
from .xml_common import DONE, FAST, FULL, JOIN_BELOW, SITEMAP_NS, Status
from .xml_elements import ElementReader, value_text
from .xml_full import FullLane, tail_and_filler
from .xml_prolog import plain_prefixes

if TYPE_CHECKING:
    from .._core import ExtendedRecord, JudgedEntry, SlotMaker

FAST_WAIT_CAP = 1_048_576
_PAD_COMMENT_SIZE = 4096
_PAD_COMMENT = b"<!--" + b" " * (_PAD_COMMENT_SIZE - 7) + b"-->"
_NO_EXTENSIONS = ()
_NAMES = ("loc", "lastmod", "changefreq", "priority")


class CompiledLane:
    """Reads from ``buf`` while the lane is FAST; ``fline``/``fcol``/``fbytes`` say where its
    unread rest starts in the document (``line0``/``col0``: where the body started)."""

    def __init__(self, sink: Sink, status: Status, elements: ElementReader, full: FullLane) -> None:
        self.sink = sink
        self.status = status
        self.elements = elements
        self.full = full
        self.scanner: UrlsetScanner | None = None
        self.renderer: RecordRenderer | None = None  # the render lane's (reading/rendered.py)
        self.index = False
        self.entry_end = b"</url>"
        self.buf = bytearray()
        self.fbytes = 0
        self.fline = 1
        self.fcol = 1
        self.fdelta = 0  # of fcol, what the guard's entity changes add on its line
        self.line0 = 1
        self.col0 = 1
        self.throughout = False  # entered the lane and left it only at close or a size limit
        self.records_only = True  # no piece between records needed a parser
        self.locs_plain = True  # no loc made a URI, no record with extensions
        self.mini_head = b""
        self.mini_tail = b""
        self.mini_line = 1
        self.mini_parser: Any = None  # lxml's, made for the first piece it reads
        self.root_prefixes: dict[str, str] = {}
        self.strays_known, self.strays_told = 0, set[tuple[str, str]]()  # _know_strays

    def start(self, root_tag: re.Match[bytes], head: bytes, rest: bytes) -> None:
        """Take over with ``rest``, after ``head`` (the document up to the end of the root
        start tag ``root_tag``, which the full lane has read, and a piece's context)."""
        tag = root_tag.group(0)
        self.index = index = root_tag.group(1) == b"sitemapindex"
        self.entry_end = b"</sitemap>" if index else b"</url>"
        self.root_prefixes = _prefixes(root_tag.group(2), tag + b"</" + root_tag.group(1) + b">")
        prefixes = _typed_prefixes(self.root_prefixes)
        limit = self.sink.limits.max_value_length
        raw = _raw_scope(self.root_prefixes, self.sink.limits.max_depth)
        self.scanner = UrlsetScanner(
            index,
            limit,
            list(ChangeFreq),
            *prefixes,
            namespaces=raw[0],
            raw_levels=raw[1],
            makers=partial(_makers, prefixes),
        )
        render = self.sink.render
        if render is not None and (render.indexes or not index):  # also the duplicate set
            self.renderer = self.sink.seen = render.start(limit, prefixes, raw, index=index)
        self.mini_head = tag
        self.mini_tail = b"</" + root_tag.group(1) + b">"
        self.mini_line = 1 + tag.count(b"\n")
        self.fline = self.line0 = 1 + head.count(b"\n")
        self.fcol = self.col0 = len(head) - head.rfind(b"\n")
        self.status.state = FAST
        self.buf = bytearray()
        self._read(rest)

    def feed(self, data: bytes, held: int = 0) -> None:
        buf = self.buf
        if not buf or held:  # no copy (``held``: data starts with buf, XmlBody.held)
            self._read(data)
        elif len(buf) < JOIN_BELOW:
            self._read(bytes(buf) + data)  # one copy of the chunk (with a record's start)
        else:
            buf += data  # a record that keeps growing: amortised, copied once it ends
            self._read(buf)

    def close(self) -> None:
        # proven only when what is left after the last record is the root's end tag, with
        # whitespace, comments... a parser passes over (an index's entries as a urlset's)
        ended = plain_end(bytes(self.buf), self.mini_tail)
        self.throughout = ended
        blank = self.fline - self.line0 + self.fcol + len(self.buf)
        if ended and self.full.end_unread(blank):
            return
        self._handoff(aligned=not ended)

    def _read(self, buf: bytes | bytearray) -> None:
        """Read the whole records in ``buf`` (what was not read, then what came), keeping
        the rest in ``self.buf``; hand over to the full lane at the first piece that is not
        well-formed by itself, or when no record ends within FAST_WAIT_CAP."""
        end = buf.rfind(self.entry_end)
        if end < 0:
            self.buf = buf if type(buf) is bytearray else bytearray(buf)
            if len(buf) > FAST_WAIT_CAP:
                self._handoff()
            return
        end += len(self.entry_end)
        if type(buf) is bytes:
            data = buf
        else:
            with memoryview(buf) as view:  # one copy (a slice of buf would be two)
                data = view[:end].tobytes()
        end, stretch = _before_stretch(data, end, self.entry_end, self.full.guard.cap)
        enabled = gc.isenabled()
        if enabled:  # many small tuples built in a tight loop: collections would only cost
            gc.disable()
        try:
            pos, line = self._records(data, end) if end else (0, self.fline)
        finally:
            if enabled:
                gc.enable()
        _consumed(self, data, pos, line)
        self.buf = bytearray(buf[pos:])  # the start of the next record, as a rule
        if (pos < end or stretch) and self.status.state == FAST:
            self._handoff()

    def _records(self, data: bytes, end: int) -> tuple[int, int]:
        """Read ``data[:end]``; returns how far it got and the line there."""
        if self.renderer is not None:
            assert self.sink.render is not None
            return render_records(self, self.sink.render, self.renderer, data, end)
        pos, line = 0, self.fline
        assert self.scanner is not None
        sink, status, scan = self.sink, self.status, self.scanner.scan
        while status.state == FAST:
            left = max(sink.limits.max_entries + 1 - sink.count, 1)
            note_room(sink, self.scanner)  # its notes past the sink's caps only counted
            found = scan(data, pos, end, line, left, sink.converted_listed())
            pos, line, stop, locs, lastmods, freqs, prios, lines, origins, converted = found[:10]
            made, (any_extended, raws) = found[10:]
            if made or raws:  # a URI made or raw elements: check's own loc scan
                self.locs_plain = False
            extended = self.scanner.scanned_extensions() if any_extended else []
            if locs and not self._emit(
                locs, lastmods, freqs, prios, lines, origins, converted, extended
            ):
                return pos, line
            if stop is None:
                if pos >= end:
                    return pos, line
                continue
            pos, line, going = self.stopped(data, stop, pos, line)
            if not going:
                return pos, line
        return pos, line

    def stopped(self, data: bytes, stop: Any, pos: int, line: int) -> tuple[int, int, bool]:
        """Read what a scan stopped at (``pos``, ``line``: where the scan says reading goes
        on): where reading goes on, and False when it must stop."""
        self.records_only = False
        sink = self.sink  # why these entries leave the render lane, if it runs: leaving
        if isinstance(stop, list):
            with leaving(sink, "values"):
                return pos, line, self._judged(stop)
        start, stop_at = stop[0], stop[1]
        with leaving(sink, "extension"):
            typed = len(stop) == 5 and self._extension_record(stop[2], stop[3], stop[4])
        with leaving(sink, "piece"):
            if not typed and not self._piece(data, start, stop_at, line):
                return start, line, False
        return stop_at, line + data.count(b"\n", start, stop_at), True

    def _emit(
        self,
        locs: list[str],
        lastmods: list[object],
        freqs: list[ChangeFreq | None],
        prios: list[float | None],
        lines: bytes,
        origins: list[tuple[int, str]],
        converted: list[tuple[int, int, str | None, str]],
        extended: list[ExtendedRecord],
    ) -> bool:
        """Pass on a run of records (``extended``: those with plain extensions) and its issues in
        bulk when nothing is due (no limit, new host finding or duplicate); else one at a time
        (``add_each``). False when reading must stop."""
        sink = self.sink
        assert self.scanner is not None  # what gave the run
        notes, judged, pads = scanned_notes(self.scanner)
        n = len(locs)
        entries: list[Url] | list[SitemapRef]
        if self.index:
            entries = untracked_rows(SitemapRef, n, (locs, lastmods))
        else:
            entries = _urls(locs, lastmods, freqs, prios, extended)
        if (
            sink.count + n <= sink.next_check
            and not sink.findings_due(origins)
            and sink.seen.add_all_new(locs)
        ):
            run_issues(sink, converted, 0, notes, judged, pads)
            sink.count += n
            sink.out.extend(entries)
            return True
        if not add_each(sink, entries, memoryview(lines).cast("I"), converted, notes, judged, pads):
            self.status.state = DONE
            return False
        return True

    def _judged(self, run: list[JudgedEntry]) -> bool:
        """Entries some of whose values are texts the sink judges (corrected or reported), as
        the full lane's ElementReader does for the same elements; the others come typed.
        False when reading must stop."""
        sink = self.sink
        parsers = (sink.loc, sink.lastmod, sink.changefreq, sink.priority)
        for line, *items in run:
            values: list[Any] = items
            no_loc = items[0] is None  # no loc element at all (the values are judged in place)
            for i, item in enumerate(items):
                if type(item) is tuple:
                    if len(item) == 3:  # a loc the core made a URI of (values/iri.rs)
                        values[i] = sink.converted(item[1], item[2], item[0])
                        continue
                    at, text = item
                    checked = value_text(sink, _NAMES[i], text, at)
                    values[i] = None if checked is None else parsers[i](checked, at)
            loc, lastmod, changefreq, priority = values
            if loc is None:
                _missing_loc(sink, self.entry_end, line, no_loc)
                continue
            if self.index:
                entry: Url | SitemapRef = SitemapRef._trusted(loc, lastmod)
            else:
                entry = Url._trusted(loc, lastmod, changefreq, priority)
            if not sink.add(entry, line):
                self.status.state = DONE
                return False
        return True

    def _extension_record(
        self, fragment: str | None, line: int, values: tuple[str, Any, Any, float | None]
    ) -> bool:
        """A canonical record head (``values`` on ``line``) followed by extension elements
        (``fragment``): typed without an XML parser when they are in the plain form
        (``fast_extensions``); False leaves the record to lxml (nothing is emitted then)."""
        loc, lastmod, changefreq, priority = values
        if not self.root_prefixes or fragment is None or "\x00" in fragment:
            return False
        if "]]>" in fragment:  # not well-formed outside a CDATA section: libxml2 reports it
            return False
        extensions = fast_extensions(fragment, self.root_prefixes)
        if extensions is None:
            return False
        url = Url._trusted(loc, lastmod, changefreq, priority, extensions)
        if not self.sink.add(url, line):
            self.status.state = DONE
        return True

    def _piece(self, data: bytes, start: int, stop: int, line: int) -> bool:
        """Parse ``data[start:stop]`` (starting on ``line``) on its own with lxml, in the root
        element's namespace context; False when it is not well-formed by itself."""
        piece = data[start:stop]
        try:
            piece.decode("utf-8")
        except UnicodeDecodeError:
            return False  # libxml2 reports it, in the full lane
        if self.mini_parser is None:
            self.mini_parser = _piece_parser()
        events = _piece_events(self.mini_parser, self.mini_head + piece + self.mini_tail)
        if events is None:
            return False
        sink = self.sink
        delta = line - self.mini_line
        sink.line_shift += delta
        try:
            self.elements.events(events, truncated=False)
        finally:
            sink.line_shift -= delta
        _know_strays(self)
        return True

    def _handoff(self, aligned: bool = True) -> None:
        """Give the rest to the full lane, at the same line, column and block offset
        (``aligned``) or just after the root start tag."""
        self.status.state = FULL
        if not aligned:
            self.fbytes, self.fline, self.fcol, self.fdelta = 0, self.line0, self.col0, 0
        # The pad has the byte length of what was read (libxml2 sees the rest at the full
        # lane's stream offsets, FullLane._feed_blocks) and ends at the same line and column.
        tail, filler = tail_and_filler(self.fbytes, self.fline - self.line0, self.fcol, self.col0)
        # comments, not spaces: megabytes of whitespace would hit libxml2's text-node limit
        if filler % _PAD_COMMENT_SIZE < 7:
            self.full.pad(b" " * (filler % _PAD_COMMENT_SIZE))
            filler -= filler % _PAD_COMMENT_SIZE
        else:
            size = filler % _PAD_COMMENT_SIZE
            self.full.pad(b"<!--" + b" " * (size - 7) + b"-->")
            filler -= size
        block = _PAD_COMMENT * (FAST_WAIT_CAP // _PAD_COMMENT_SIZE)
        while filler > 0:
            step = min(filler, len(block))
            self.full.pad(block[:step])
            filler -= step
        for i in range(0, len(tail), FAST_WAIT_CAP):
            self.full.pad(tail[i : i + FAST_WAIT_CAP])
        self.full.guard.col0 -= self.fdelta
        data = bytes(self.buf)
        self.buf = bytearray()
        if data and self.status.state == FULL:
            self.full.feed(data)


def render_records(
    lane: CompiledLane, spec: RenderSpec, renderer: RecordRenderer, data: bytes, end: int
) -> tuple[int, int]:
    """``CompiledLane._records`` in the render lane: read ``data[:end]``; returns how far it
    got and the line there."""
    pos, line = 0, lane.fline
    sink, status = lane.sink, lane.status
    assert lane.scanner is not None
    scan, render = lane.scanner.scan, renderer.render
    limits = sink.limits
    columns = spec.column_renderer is not None
    while status.state == FAST:
        room = min(sink.next_check, limits.max_entries + 1) - sink.count
        if room > 0:
            was, was_line = pos, line
            listed = sink.converted_listed()  # locs made URIs past it are only counted
            pos, line, n, text, converted, made, more = render(data, pos, end, line, room, listed)
            if made:  # a loc not a URI as written, or images: as CompiledLane._records
                lane.locs_plain = False
            if n:
                rendered_issues(sink, renderer, converted, more)  # its only issues
                if columns:
                    spec.also_columns(data, was, pos, was_line, n)
                spec.add_run(sink.count, n, text, sink.out)
                sink.count += n
            if pos >= end:
                return pos, line
        # one entry the sink must see, or what the scanner stops at: the usual path; the
        # entries after a first one to judge join its run (a site whose every lastmod is
        # lenient, or every other invalid, is one call, not one a record)
        at, at_line = pos, line
        found = scan(data, pos, end, line, 1, judged=max(limits.max_entries + 1 - sink.count, 1))
        pos, line, stop, locs = found[:4]
        lines, origins, made_uris, made, (_, raws) = found[7:]
        if made or raws:  # as CompiledLane._records
            lane.locs_plain = False
        if locs:
            record_line = int.from_bytes(lines[:4], sys.byteorder)
            origin = origins[0][1]
            judged = _new_origin(sink, locs[0])
            due = sink.count >= min(sink.next_check, limits.max_entries)
            notes, values, pads = scanned_notes(lane.scanner)
            if not due and (
                origin not in spec.told
                if judged is None
                else not (
                    (made_uris or notes or values[0] or pads[0]) and _finding_due(sink, judged)
                )
            ):
                # the first entry on an origin, judged here as Sink.add would (or by an entry of
                # the usual path), then rendered in the run; not when a finding is due and its
                # loc was made a URI or it has issues of its own: those come first, as ever
                if judged is not None:
                    sink.origin(judged, record_line)
                renderer.know(origin)
                spec.know(origin)
                pos, line = at, at_line
                continue
            run_issues(sink, made_uris, 0, notes, values, pads)
            entry = _first_entry(lane, found)
            sink.reason = "limit" if due else "new-origin" if judged else "duplicate"
            added = sink.add(entry, record_line)
            sink.reason = "careful"
            if not added:
                status.state = DONE
                return pos, line
            renderer.know(origin)
            spec.know(origin)
            continue
        if stop is None:
            if pos >= end:
                return pos, line
            continue
        pos, line, going = lane.stopped(data, stop, pos, line)
        if not going:
            return pos, line
    return pos, line


def _first_entry(lane: CompiledLane, found: tuple[Any, ...]) -> Url | SitemapRef:
    """The first entry of what ``lane``'s scanner found (``scan``'s values)."""
    locs, lastmods, freqs, prios = found[3:7]
    if lane.index:
        return SitemapRef._trusted(locs[0], lastmods[0])
    assert lane.scanner is not None
    extended = lane.scanner.scanned_extensions() if found[11][0] else []
    extensions = next((made for record, made in extended if record == 0), ())
    return Url._trusted(locs[0], lastmods[0], freqs[0], prios[0], extensions)


def _consumed(lane: CompiledLane, data: bytes, pos: int, line: int) -> None:
    """Count the first ``pos`` bytes of ``data`` as read by ``lane``; ``line`` is the line reading
    reached."""
    if not pos:
        return
    last = data.rfind(b"\n", 0, pos) + 1
    tail = data[last:pos]
    width = len(tail) if tail.isascii() else len(tail.decode("utf-8"))
    if line != lane.fline:
        lane.fline, lane.fcol, lane.fdelta = line, 1 + width, 0
    else:
        lane.fcol += width
    lane.fbytes += pos
    if data.find(b"&", 0, pos) >= 0:
        # the guard hands '&lt;' '&gt;' over one byte longer, '&quot;' '&apos;' one shorter
        lane.fbytes += entity_delta(data, 0, pos)
        delta = entity_delta(tail, 0, len(tail))  # fdelta: of libxml2's, not the guard's
        lane.fcol, lane.fdelta = lane.fcol + delta, lane.fdelta + delta


def _know_strays(lane: CompiledLane) -> None:
    """Tell the core the elements the reader reported as ``unknown-element`` since the last
    call: it reports each once a document, so the core reads the next ones itself."""
    strays = lane.elements.strays
    if len(strays) == lane.strays_known:
        return
    lane.strays_known = len(strays)
    render = lane.sink.render
    columns = render.column_renderer if render else None
    for code, shown in strays - lane.strays_told:
        if code == "unknown-element" and shown.startswith("{"):
            namespace, name = shown[1:].split("}", 1)
            # columns keep none of the protocol's namespace raw (RootScope::raw_strays): the
            # text renderer beside them reads the same records
            both = columns is None or namespace != SITEMAP_NS
            for told in (lane.scanner, lane.renderer if both else None, columns):
                if told is not None:
                    told.know_stray(namespace, name)
    lane.strays_told = set(strays)


def _finding_due(sink: Sink, origin: str) -> bool:
    """Whether ``Sink.origin`` would report something for ``origin`` (not yet judged)."""
    return "@" in origin or sink.dev_host(origin) is not None


def _new_origin(sink: Sink, loc: str) -> str | None:
    """The origin of ``loc`` (``scheme://authority/``, as ``Sink.add`` takes it) when the sink
    has not judged it yet, else None."""
    end = loc.find("/", 8)
    origin = loc[: end + 1]
    return None if origin in sink.origins else origin


def _before_stretch(data: bytes, end: int, entry_end: bytes, cap: int) -> tuple[int, bool]:
    """Where the lane's reading of ``data[:end]`` ends: before an overlong stretch (the
    guard stops at it, in the careful lane), at the last entry end tag before it; and
    whether there is one."""
    stretch = overlong(data, 0, end, cap)
    if stretch is None:
        return end, False
    cut = data.rfind(entry_end, 0, stretch)
    return (cut + len(entry_end) if cut >= 0 else 0), True


def _missing_loc(sink: Sink, entry_end: bytes, line: int, no_loc: bool) -> None:
    """An entry without a loc element, reported as ElementReader reports it (``no_loc``;
    else its loc was judged unusable, and reported, already)."""
    if no_loc:
        sink.issue("missing-loc", f"<{entry_end[2:-1].decode()}> without <loc>", line)


def _urls(
    locs: list[str],
    lastmods: list[object],
    freqs: list[ChangeFreq | None],
    prios: list[float | None],
    extended: list[ExtendedRecord],
) -> list[Url]:
    """A run's ``Url`` values, built in bulk (untracked by the cyclic collector: see
    ``untracked_rows``); ``extended``: the records with plain extensions, made."""
    n = len(locs)
    if not extended:
        return untracked_rows(Url, n, (locs, lastmods, freqs, prios, _NO_EXTENSIONS))
    extensions: list[tuple[object, ...]] = [_NO_EXTENSIONS] * n
    for record, made in extended:
        extensions[record] = made
    return untracked_rows(Url, n, (locs, lastmods, freqs, prios, extensions))


def _makers(
    prefixes: tuple[str | None, ...],
) -> tuple[SlotMaker | None, SlotMaker | None, SlotMaker | None, SlotMaker | None, type]:
    """What the scanner makes the extensions it types with, asked for by its first record
    with one: the trusted maker of each kind whose namespace the root binds (its module
    loaded only then), and ``RawElement``."""
    made = [trusted_maker_of(k) if p else None for k, p in zip(_TYPED, prefixes, strict=True)]
    return (*made, RawElement)  # type: ignore[return-value]


def _raw_scope(prefixes: dict[str, str], max_depth: int) -> tuple[list[tuple[str, str]], int]:
    """What the core keeps elements of other namespaces raw with: the root's prefixes, and
    how many levels such an element may nest below ``<url>`` (at depth 2) within
    ReadLimits.max_depth."""
    return list(prefixes.items()), max(max_depth - 2, 0)


_TYPED = ("image", "video", "news", "xhtml")  # the kinds the scanner types, in its order


def _typed_prefixes(prefixes: dict[str, str]) -> tuple[str | None, ...]:
    """The prefixes the root binds to the image, video, news and XHTML namespaces (of two
    for one, the last, as ``fast_extensions`` takes it), each None when it binds none."""
    if not prefixes:
        return None, None, None, None  # a plain sitemap loads no extension
    found: dict[str, str] = {}
    for prefix, namespace in prefixes.items():
        kind = PREFIXES.get(namespace)  # the extension's own name: image, video, news, xhtml
        if kind is not None:
            found[kind] = prefix
    return tuple(found.get(kind) for kind in _TYPED)


def _piece_parser() -> Any:
    from lxml import etree  # loaded by the first piece: a plain urlset may have none

    return etree.XMLParser(recover=False, **SAFE_PARSER_OPTIONS)


def _piece_events(parser: Any, text: bytes) -> list[tuple[str, Any]] | None:
    """The start and end events of the elements inside the root of ``text``, as lxml reads
    them with ``parser``; None when ``text`` is not well-formed."""
    from lxml import etree

    try:
        root = etree.fromstring(text, parser)
    except etree.XMLSyntaxError:
        return None
    if any(e.level >= 2 for e in parser.error_log):
        return None
    return list(etree.iterwalk(root, events=("start", "end")))[1:-1]


def _prefixes(attributes: bytes, root: bytes) -> dict[str, str]:
    """The namespace prefixes of the root start tag with ``attributes`` (``root``: the
    root's start and end tags) as an XML parser reads them (a pattern over the tag's text
    would also match inside another attribute's value): by ``plain_prefixes`` when it can
    tell, else by lxml."""
    plain = plain_prefixes(attributes)
    if plain is not None:
        return plain
    from lxml import etree

    try:
        element = etree.fromstring(root, _piece_parser())
    except etree.XMLSyntaxError:
        return {}
    return {k: v for k, v in element.nsmap.items() if k is not None}

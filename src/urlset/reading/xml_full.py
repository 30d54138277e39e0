"""The full lane's first half: bytes in, lxml's start and end events out, with libxml2's
errors as issues.

``FullLane`` feeds lxml's ``XMLPullParser`` (recover mode; entities never resolved, no
network, no DTD) through the ``Guard``, in blocks that start at fixed offsets of its input,
so that libxml2's recovery never depends on the caller's chunks. Its events go to the
``ElementReader``; its error log becomes issues with line and column. At close it tells a
document cut inside an entry or before the root's end from one libxml2 merely held back.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ..extensions import SAFE_PARSER_OPTIONS
from .sink import Sink
from .xml_common import DONE, FULL, Status
from .xml_elements import ElementReader
from .xml_guard import Guard

if TYPE_CHECKING:
    from lxml import etree

    from .xml_lines import LateLines

LX_BLOCK = 65_536
_PLAIN_END_CAP = 1_000_000

_ERROR_CODES = {
    "ERR_UNDECLARED_ENTITY": "undefined-entity",
    "WAR_UNDECLARED_ENTITY": "undefined-entity",
    "ERR_INVALID_CHAR": "invalid-character",
    "ERR_INVALID_DEC_CHARREF": "invalid-character",
    "ERR_INVALID_HEX_CHARREF": "invalid-character",
    "ERR_INVALID_CHARREF": "invalid-character",
    "ERR_INVALID_ENCODING": "invalid-encoding",
    "ERR_UNSUPPORTED_ENCODING": "invalid-encoding",
    "ERR_UNKNOWN_ENCODING": "invalid-encoding",
    "ERR_TAG_NOT_FINISHED": "truncated",
    "ERR_DOCUMENT_EMPTY": "empty-document",
    "ERR_DOCUMENT_END": "content-after-root",  # "Extra content at the end of the document"
}


def _parser() -> etree.XMLPullParser:
    from lxml import etree  # loaded with the first parser: a plain urlset may never need one

    return etree.XMLPullParser(
        events=("start", "end"), recover=True, dtd_validation=False, **SAFE_PARSER_OPTIONS
    )


class FullLane:
    """Reads a document (or its rest, after the fast lane) with libxml2."""

    def __init__(self, sink: Sink, status: Status, guard: Guard, elements: ElementReader) -> None:
        self.sink = sink
        self.status = status
        self.guard = guard
        self.elements = elements
        self.parser: etree.XMLPullParser | None = None  # made when libxml2 first reads
        # the head (the document up to the root start tag's end) the compiled lane took
        # over without libxml2 (Prolog.plain_head): libxml2 reads it first if it reads at all
        self.head: bytes | None = None
        self.lines: LateLines  # elements' lines past 65,535: made with the parser
        self.nerr = 0  # entries of libxml2's error log read so far
        self.syntax_errors = 0  # issues reported from it
        self.lx_pending = bytearray()
        # raw-stream positions of entry tags, for telling a cut final entry (see _track_tags)
        self.fed = 0
        self.tag_carry = b""
        self.tag_start: re.Pattern[bytes] | None = None
        self.tag_end: re.Pattern[bytes] | None = None
        self.root_end: re.Pattern[bytes] | None = None
        self.root_end_raw = False
        self.tag_name = self.root_name = b""
        self.last_start = -1
        self.last_end = -1

    def feed(self, data: bytes, final: bool = False, now: bool = False) -> None:
        """Pass ``data`` through the guard to libxml2 (``now``: at once, not in blocks)."""
        if self.parser is None:
            self._start()
        guard = self.guard
        data = guard.filter(data, final)
        if self.status.state == DONE:
            return
        if data:
            self._feed_blocks(data, now=now)
        if guard.stopping is not None:
            # the bytes before the overlong stretch are read whole, then reading stops
            self._flush()
            guard.stop(*guard.stopping)

    def _start(self) -> None:
        """Make the parser; give it the deferred head first, as ``feed(head, now=True)``
        would have, except the root's start event: ``ElementReader.plain_root`` read it."""
        from .xml_lines import LateLines  # with the parser: a plain urlset never needs it

        self.parser = parser = _parser()
        self.lines = LateLines(self.sink.late)
        head, self.head = self.head, None
        if not head:
            return
        data = self.guard.filter(head, False)
        self.lines.fed(data)
        parser.feed(data)
        events = list(parser.read_events())
        assert len(events) == 1 and events[0][0] == "start", events
        self.lines.read(events)
        self._errors()
        self._track_tags(data)

    def end_unread(self, blank: int) -> bool:
        """At the end of a document whose plain head libxml2 never read (``head``), when what
        is left is the root's end tag after ``blank`` characters of whitespace: libxml2 would
        read them without a word (a text node of ten million characters is one it reports,
        hence the bound). True when so: the root has ended, reading is done."""
        if self.head is None or blank >= _PLAIN_END_CAP:
            return False
        self.elements.plain_end()
        self.status.state = DONE
        return True

    def _feed_blocks(self, data: bytes, *, now: bool = False, track: bool = True) -> None:
        """Feed libxml2 in blocks that start at fixed offsets of its input (after the root
        start tag, which goes alone), one block a call, whatever the caller's chunks:
        libxml2's recovery from broken markup depends on where its input chunks end, and this
        keeps it identical; and its push parser refuses a single feed of over 10 MB
        ("Buffer size limit exceeded")."""
        if now:
            self._block(data, track)
            return
        pending = self.lx_pending
        if not pending and len(data) >= LX_BLOCK:
            with memoryview(data) as view:
                end = len(data) - len(data) % LX_BLOCK
                for at in range(0, end, LX_BLOCK):
                    self._block(view[at : at + LX_BLOCK].tobytes(), track)
            pending += data[end:]
            return
        pending += data
        while len(pending) >= LX_BLOCK:
            block = bytes(pending[:LX_BLOCK])
            del pending[:LX_BLOCK]
            self._block(block, track)

    def _flush(self) -> None:
        if self.lx_pending and self.status.state != DONE:
            block = bytes(self.lx_pending)
            self.lx_pending = bytearray()
            self._block(block, True)

    def _block(self, data: bytes, track: bool) -> None:
        if self.status.state == DONE:
            return
        from lxml import etree

        assert self.parser is not None
        self.lines.fed(data)
        try:
            self.parser.feed(data)
        except etree.XMLSyntaxError as exc:
            self._errors()
            self._fatal_syntax(exc)
            return
        events = list(self.parser.read_events())
        self.lines.read(events)
        self.elements.events(events, truncated=False)
        self._errors()
        if track:
            self._track_tags(data)
        else:
            self.fed += len(data)
            self.tag_carry = b""

    def pad(self, pad: bytes) -> None:
        """Feed whitespace standing for what the fast lane read: libxml2 counts its lines and
        columns; the guard and the tag tracking only account for it."""
        if self.status.state != FULL:
            return
        if self.parser is None:
            self._start()
        self.guard.skip(pad)
        self._feed_blocks(pad, track=False)

    def _track_tags(self, data: bytes) -> None:
        """Remember where the last entry start tag and the last entry end tag lie in the raw
        stream, so that close() can tell a cut final entry from one libxml2 merely held back."""
        window = self.tag_carry + data
        base = self.fed - len(self.tag_carry)
        self.fed += len(data)
        self.tag_carry = window[-64:]
        if self.tag_start is None:
            if not self.elements.entry_local:
                return
            self.tag_name = self.elements.entry_local.encode()
            self.root_name = self.elements.root_local.encode()
            name, root = re.escape(self.tag_name), re.escape(self.root_name)
            self.tag_start = re.compile(rb"<(?:[\w.\-]+:)?" + name + rb"[ \t\r\n>]")
            self.tag_end = re.compile(rb"</(?:[\w.\-]+:)?" + name + rb"[ \t\r\n]*>")
            self.root_end = re.compile(rb"</(?:[\w.\-]+:)?" + root + rb"[ \t\r\n]*>")
        assert self.tag_end is not None and self.root_end is not None
        if not self.root_end_raw and self.root_name in window and self.root_end.search(window):
            self.root_end_raw = True
        if (at := last_tag(self.tag_start, window, self.tag_name)) >= 0:
            self.last_start = max(self.last_start, base + at)
        if (at := last_tag(self.tag_end, window, self.tag_name)) >= 0:
            self.last_end = max(self.last_end, base + at)

    def _fatal_syntax(self, exc: etree.XMLSyntaxError) -> None:
        line, column = exc.position if exc.position else (0, 0)
        self.sink.issue("not-well-formed", str(exc.msg or exc), line, column)
        if self.status.format is None:
            self.sink.fatal = True
        self.status.state = DONE

    def close(self) -> None:
        from lxml import etree

        if self.parser is None:
            self._start()
        assert self.parser is not None
        ended = self.elements.root_ended
        if self.guard.hold:
            self.feed(b"", final=True)
        self._flush()
        if self.status.state == DONE:
            return
        self.lines.close()
        try:
            self.parser.close()
        except etree.XMLSyntaxError as exc:
            events = list(self.parser.read_events())
            self.lines.read(events)
            self._errors()
            # a document without a root gets its own issue unless an error explains it
            # already, whenever that error came (feeding at once or in chunks alike)
            if self.status.format is None and not events:
                if not self.syntax_errors:
                    self._fatal_syntax(exc)
                else:
                    self.sink.fatal = True
                return
            self.elements.events(events, truncated=self.last_start > self.last_end)
            return
        events = list(self.parser.read_events())
        self.lines.read(events)
        self._errors()
        if self.status.format is None:
            if not self.syntax_errors:
                self.sink.issue("not-well-formed", "no root element found")
            self.sink.fatal = True
            return
        self.elements.events(events, truncated=self.last_start > self.last_end)
        stopped = any(
            self.sink.per_code.get(c) for c in ("truncated", "value-too-long", "depth-limit")
        )
        if not ended and not self.root_end_raw and not stopped and self.status.state != DONE:
            self.sink.issue(
                "truncated", f"the document ends before the end of <{self.elements.root_local}>"
            )

    def _errors(self) -> None:
        assert self.parser is not None
        log = self.parser.feed_error_log
        n = len(log)
        issue = self.sink.issue
        for i in range(self.nerr, n):
            e = log[i]
            if e.level < 2:  # libxml2 warnings (e.g. a relative namespace URI) are not ours
                continue
            message = e.message.strip()
            code = _ERROR_CODES.get(e.type_name, "not-well-formed")
            if code == "content-after-root":
                message = "content after the end of the root element; it was not read"
            if e.type_name == "ERR_RESERVED_XML_NAME" and "only at the start" in message:
                # an XML declaration: a second document after the root, else markup in the body
                # (whitespace before the first one the prolog removes and reports itself)
                if self.elements.root_ended:
                    code = "content-after-root"
                    message = "a second XML document after the root element; it was not read"
                elif self.status.format is None:
                    code = "leading-whitespace"
            elif "not proper UTF-8" in message or "Invalid bytes in character" in message:
                code = "invalid-encoding"
            elif "Resource limit exceeded" in message or "huge text node" in message:
                code = "value-too-long"
            elif "Excessive depth" in message:  # libxml2's own limit; its advice is not ours
                limit = message.rpartition(":")[2].split(",")[0].strip()
                if self.sink.limits.max_depth < (int(limit) if limit.isdigit() else 0):
                    self.syntax_errors += 1  # ReadLimits.max_depth was reported first
                    continue
                code = "depth-limit"
                message = f"elements nest deeper than {limit} levels, the most the parser takes"
            issue(code, message, e.line, e.column)
            self.syntax_errors += 1
        self.nerr = n


def tail_and_filler(fbytes: int, lines: int, fcol: int, col0: int) -> tuple[bytes, int]:
    """The compiled lane's pad (``CompiledLane._handoff``): its end, which puts libxml2 at column ``fcol`` after ``lines`` more lines, and
    how many bytes of filler go before it so that the pad is ``fbytes`` long (modulo
    LX_BLOCK, all that matters for where libxml2's blocks end)."""
    tail = b"\n" * lines + b" " * (fcol - 1) if lines else b" " * (fcol - col0)
    filler = max(fbytes - len(tail), 0) % LX_BLOCK
    if filler and not lines:  # on the root's line: in columns the tail has
        same_line = same_line_pad(len(tail), filler)
        if same_line is not None:
            return same_line, 0
    return tail, filler


def same_line_pad(width: int, extra: int) -> bytes | None:
    """``width`` columns of pad that are ``extra`` bytes longer (what multi-byte characters
    read on the root's line add), as a comment of 4-byte characters: filler bytes before it
    would move libxml2's columns. None when the columns are too few to hold them."""
    fours, rest = divmod(extra, 3)
    body = "\U00010000" * fours + ("", "\u00e9", "\u4e00")[rest]
    columns = 7 + fours + (rest > 0)
    if columns > width:
        return None
    return b" " * (width - columns) + f"<!--{body}-->".encode()


def last_tag(tag: re.Pattern[bytes], window: bytes, name: bytes) -> int:
    """Where the last match of ``tag`` in ``window`` starts (-1: none), for a pattern of a
    tag of ``name`` (its '<', then no other, then ``name`` after a prefix or none): each
    place of ``name`` tried from the end at the '<' before it, each '<' once. Finding every
    match to keep the last cost a feed's read ~5 us an item."""
    end = len(window)
    while (at := window.rfind(name, 0, end)) >= 0:
        lt = window.rfind(b"<", 0, at)
        if lt < 0:
            return -1
        if tag.match(window, lt):
            return lt  # no match starts later: none holds a later place of the name
        end = lt
    return -1

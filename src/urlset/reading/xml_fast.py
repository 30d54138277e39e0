"""The fast lane's driver: the bytes of a plain ``<urlset>``'s body in, whole records out.

``FastLane`` takes over after the root start tag of a UTF-8 urlset in the sitemaps.org
namespace (``start``). It buffers the bytes fed to it, decodes them up to the last '</url>'
and gives that text to ``RecordReader``, keeping count of the line, column and byte offset
reading has reached. Where the records cannot go on, it hands the rest of the document to
the full lane (``FullLane``), after padding that puts libxml2 at the same line, column and
block offset as if it had read everything itself.
"""

from __future__ import annotations

import gc
import re

from .xml_common import FAST, FULL, Status
from .xml_full import LX_BLOCK, FullLane
from .xml_guard import entity_delta
from .xml_records import RecordReader

FAST_WAIT_CAP = 1_048_576
_PAD_COMMENT_SIZE = 4096
_PAD_COMMENT = b"<!--" + b" " * (_PAD_COMMENT_SIZE - 7) + b"-->"


class FastLane:
    """Reads from ``buf`` while the lane is FAST; ``fline``/``fcol``/``fbytes`` say where its
    unread rest starts in the document (``line0``/``col0``: where the body started)."""

    def __init__(self, status: Status, records: RecordReader, full: FullLane) -> None:
        self.status = status
        self.records = records
        self.full = full
        self.buf = bytearray()
        self.fbytes = 0
        self.fline = 1
        self.fcol = 1
        self.line0 = 1
        self.col0 = 1
        self.throughout = False  # entered the fast lane and left it only at close

    def start(self, root_tag: re.Match[bytes], head: bytes, rest: bytes) -> None:
        """Take over with ``rest``, after ``head`` (the document up to the end of
        ``root_tag``, the root start tag, which the full lane has read)."""
        self.records.start(root_tag)
        self.fline = self.line0 = 1 + head.count(b"\n")
        self.fcol = self.col0 = len(head) - head.rfind(b"\n")
        self.status.state = FAST
        self.buf = bytearray(rest)
        self._read()

    def feed(self, data: bytes) -> None:
        self.buf += data
        self._read()

    def close(self) -> None:
        # proven only when what is left after the last record is the root's end tag
        self.throughout = bytes(self.buf).strip(b" \t\r\n") == b"</urlset>"
        self._handoff()

    def _read(self) -> None:
        """Read the whole records in ``buf``, decoded; hand over to the full lane at the first
        stretch the records cannot take, or when no record ends within FAST_WAIT_CAP."""
        buf = self.buf
        end = buf.rfind(b"</url>")
        if end < 0:
            if len(buf) > FAST_WAIT_CAP:
                self._handoff()
            return
        end += 6
        bad = False
        try:
            text = buf[:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            # read the records before the first invalid byte, then let libxml2 report it
            bad = True
            end = buf.rfind(b"</url>", 0, exc.start)
            if end < 0:
                self._handoff()
                return
            text = buf[: end + 6].decode("utf-8")
        enabled = gc.isenabled()
        if enabled:  # many small tuples built in a tight loop: collections would only cost
            gc.disable()
        try:
            pos = self.records.read(text, self.fline)
        finally:
            if enabled:
                gc.enable()
        self._consumed(text, pos)
        if (bad or pos < len(text)) and self.status.state == FAST:
            self._handoff()

    def _consumed(self, text: str, pos: int) -> None:
        """Drop the first ``pos`` characters of ``text`` (the start of ``buf``) as read."""
        if not pos:
            return
        lines = text.count("\n", 0, pos)
        if lines:
            self.fline += lines
            self.fcol = pos - text.rfind("\n", 0, pos)
        else:
            self.fcol += pos
        nbytes = pos if text.isascii() else len(text[:pos].encode("utf-8"))
        self.fbytes += nbytes
        if "&" in text:
            # the guard hands '&lt;' '&gt;' over one byte longer, '&quot;' '&apos;' one shorter
            done = text[:pos]
            self.fbytes += entity_delta(done)
            if lines:
                self.fcol += entity_delta(done[done.rfind("\n") :])
            else:
                self.fcol += entity_delta(done)
        del self.buf[:nbytes]

    def _handoff(self) -> None:
        """Give the rest to the full lane, at the same line and column."""
        self.status.state = FULL
        # The pad has the byte length of what was read, so libxml2 sees the rest at the
        # same stream offsets as in the full lane (see FullLane._feed_blocks), and ends at the
        # same line and column: spaces, then the newlines, then the last line's columns.
        if self.fline > self.line0:
            tail = b"\n" * (self.fline - self.line0) + b" " * (self.fcol - 1)
        else:
            tail = b" " * (self.fcol - self.col0)
        # only the offset modulo LX_BLOCK matters for where libxml2's blocks end
        filler = max(self.fbytes - len(tail), 0) % LX_BLOCK
        # the filler is comments, not spaces: one text node of megabytes of whitespace would
        # hit libxml2's text-node limit
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
        data = bytes(self.buf)
        self.buf = bytearray()
        if data and self.status.state == FULL:
            self.full.feed(data)

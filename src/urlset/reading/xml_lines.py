"""Elements' lines past 65,535, which libxml2 keeps in 16 bits.

From line ``LINE_CAP`` on, lxml's ``sourceline`` is libxml2's guess from the text around the
element (a line late for an element without text in a pretty-printed file; the line its
text ends on for a value written over lines; 65,535 itself with no text near). Below it the
line is exact: the line of the start tag's ``>``, counted in line feeds only (a carriage
return alone ends no line for libxml2). ``start_tags`` finds the start tags in the bytes as
libxml2 reads them, so that ``LateLines`` (the full lane) and check's structure walk
(``checking.xmlevents.start_tag_lines``) give the same lines past the cap as libxml2 gives
below it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from ..patterns import lazy
from .xml_common import LINE_CAP

# the markup that holds no start tag (skipped), else a start tag: its name (group 1) and its
# closing '>' (group 2, empty where the bytes end before it); a comment, CDATA section or
# processing instruction may end there too (cut: the next block's bytes complete it)
_MARKUP = lazy(
    rb"<!--.*?(?:-->|\Z)|<!\[CDATA\[.*?(?:\]\]>|\Z)|<\?.*?(?:\?>|\Z)|<!DOCTYPE(?:[^\[>]|\[.*?\])*>"
    rb"|<([^\s/>!?][^\s/>]*)(?:[^>\"']|\"[^\"]*(?:\"|\Z)|'[^']*(?:'|\Z))*+(>|\Z)",
    re.S,
)
_CLOSES = (b"-->", b"]]>", b"?>")


def start_tags(body: bytes) -> Iterator[re.Match[bytes]]:
    """Each start tag in ``body`` in document order, as libxml2 reads them (comments, CDATA
    sections, processing instructions and the DOCTYPE hold none): its match, group 1 its
    name, ending after its ``>`` (libxml2's line for its element is the line that ends on)."""
    return (m for m in _MARKUP.finditer(body) if m.group(1) is not None)


class LateLines:
    """Follows the bytes the full lane feeds libxml2 (``fed``) and the elements it reads of
    them (``read``, their start events), so that each element past ``cap`` gets its start
    tag's line in ``late``. Below the cap it keeps only the blocks fed since the last element
    read (the anchor, whose line libxml2 gives exactly) and the block before (its tag's
    start). Once a batch's last element reaches the cap, it numbers the start tags after the
    anchor's, counting lines from it: libxml2's push parser reads a start tag as soon as its
    ``>`` is fed, so the tags that end in the bytes fed are the elements read, in order.
    Where a tag's name is not its element's (libxml2 recovering from broken markup may count
    otherwise), numbering stops: the guesses stay. The reader looks an element up only where
    libxml2's line is at the cap or past it (an element without text near it whose start tag
    spans the line before the cap keeps libxml2's line)."""

    def __init__(self, late: dict[Any, int], cap: int = LINE_CAP) -> None:
        self.late = late
        self.cap = cap  # lower in tests, to hold the count to libxml2's lines below its cap
        self.anchor: Any = None  # the last element read, below the cap
        self.blocks: list[bytes] = []  # fed from the one with the anchor's "<" (or before)
        self.numbering = False
        self.stopped = False
        self.closed = False
        self.rest = b""  # the bytes fed from a start tag or comment not yet whole
        self.rest_line = 1  # the line ``rest`` starts on
        self.tags: deque[tuple[int, bytes]] = deque()  # (line, name) of tags not yet read

    def fed(self, data: bytes) -> None:
        if self.numbering:
            self._number(self.rest + data, len(self.rest))
        elif not self.stopped:
            self.blocks.append(data)

    def close(self) -> None:
        """No more bytes come: the tags ``rest`` holds are whole as they are."""
        self.closed = True
        if self.numbering and self.rest:
            self._number(self.rest, 0)

    def read(self, events: Sequence[tuple[str, Any]]) -> None:
        """The elements whose start events are among ``events`` (what libxml2 read of the
        bytes fed), each with the next tag numbered."""
        begin = 0
        if not self.numbering:
            if self.stopped:
                return
            begin = self._reached(events)
            if begin < 0:
                return
        tags, late, cap = self.tags, self.late, self.cap
        for i in range(begin, len(events)):
            action, el = events[i]
            if action != "start":
                continue
            if not tags:
                self._stop()
                return
            line, name = tags.popleft()
            if name.rpartition(b":")[2] != el.tag.rpartition("}")[2].encode():
                self._stop()
                return
            if line >= cap:
                late[el] = line

    def _reached(self, events: Sequence[tuple[str, Any]]) -> int:
        """-1 while the last element read in ``events`` is below the cap (it is the anchor
        from now on); else numbering starts, and the index of the event after the anchor."""
        last = len(events) - 1
        while last >= 0 and events[last][0] != "start":
            last -= 1
        if last < 0:
            return -1
        if (events[last][1].sourceline or 0) < self.cap:
            self.anchor = events[last][1]
            blocks = self.blocks
            start = len(blocks) - 2
            while start > 0 and b"<" not in blocks[start]:  # inside the anchor's tag
                start -= 1
            if start > 0:
                del blocks[:start]
            return -1
        starts = [i for i in range(last, -1, -1) if events[i][0] == "start"]
        after = 0  # the elements read after the anchor
        for i in starts:
            if (events[i][1].sourceline or 0) < self.cap:
                self.anchor = events[i][1]
                break
            after += 1
        self._start(after)
        return len(events) if self.stopped else starts[after - 1]

    def _start(self, after: int) -> None:
        """Numbering starts after the anchor's tag: the last but ``after`` that ends in the
        bytes fed, the next ones being read already."""
        anchor, self.anchor = self.anchor, None
        buf = b"".join(self.blocks)
        self.blocks = []
        ends = [(m.group(1), m.end()) for m in _MARKUP.finditer(buf) if m.group(2) == b">"]
        if anchor is None or len(ends) <= after:
            self._stop()
            return
        name, end = ends[-1 - after]
        if name.rpartition(b":")[2] != anchor.tag.rpartition("}")[2].encode():
            self._stop()
            return
        self.numbering = True
        self.rest_line = anchor.sourceline
        self._number(buf[end:], 0)

    def _number(self, buf: bytes, read: int) -> None:
        """The start tags in ``buf`` (from ``rest_line``) that end past ``read``; until the
        end (``closed``), the bytes from markup its end cuts kept for the next."""
        line, counted = self.rest_line, 0
        end, last, cut = len(buf), 0, -1
        tags = self.tags
        for m in _MARKUP.finditer(buf):
            name = m.group(1)
            if (
                not self.closed
                and m.end() == end
                and (m.group(2) == b"" if name else not buf.endswith(_CLOSES))
            ):
                cut = m.start()  # the next bytes complete it
                break
            last = m.end()
            if name is None or last <= read:
                continue
            line += buf.count(b"\n", counted, last)
            counted = last
            tags.append((line, name))
        if cut < 0:  # "<!-" or a lone "<" at the end is no markup yet
            cut = buf.rfind(b"<", last)
        keep = end if cut < 0 else cut
        self.rest = buf[keep:]
        self.rest_line = line + buf.count(b"\n", counted, keep)

    def _stop(self) -> None:
        self.numbering = False
        self.stopped = True
        self.tags.clear()
        self.rest = b""

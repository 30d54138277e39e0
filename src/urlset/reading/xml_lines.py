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

LINE_CAP = 65_535

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
    """Follows the bytes the full lane feeds libxml2 (``fed``): it counts their line feeds,
    and from the block that may hold an element past ``LINE_CAP`` numbers their start tags,
    so that each element libxml2 then reads (``read``, with its start events) gets its start
    tag's line in ``late`` (past the cap only). libxml2's push parser reads a start tag as
    soon as its ``>`` is fed: the tags it has yet to read are those that end in the bytes
    fed from there on. Where a tag's name is not its element's (libxml2 recovering from
    broken markup may count otherwise), numbering stops: the guesses stay."""

    def __init__(self, late: dict[Any, int], cap: int = LINE_CAP) -> None:
        self.late = late
        self.cap = cap  # lower in tests, to hold the count to libxml2's lines below its cap
        self.line = 1  # the line libxml2's input has reached
        self.previous = b""  # the blocks fed before, from the last with a "<"
        self.numbering = False
        self.stopped = False
        self.rest = b""  # the bytes fed from a start tag or comment not yet whole
        self.rest_line = 1  # the line ``rest`` starts on
        self.tags: deque[tuple[int, bytes]] = deque()  # (line, name) of tags not yet read

    def fed(self, data: bytes) -> None:
        if self.numbering:
            self._number(self.rest + data, len(self.rest))
            return
        self.line += data.count(b"\n")
        if self.line < self.cap or self.stopped:  # each element ending in them is below it
            # from the block with the last "<": where a tag not yet read may start
            self.previous = data if b"<" in data else self.previous + data
            return
        self.numbering = True
        previous, self.previous = self.previous, b""
        self.rest_line = self.line - data.count(b"\n") - previous.count(b"\n")
        self._number(previous + data, len(previous))

    def _number(self, buf: bytes, read: int, final: bool = False) -> None:
        """The start tags in ``buf`` (from ``rest_line``) that end past ``read``; unless
        ``final``, the bytes from markup its end cuts kept for the next."""
        line, counted = self.rest_line, 0
        end, last, cut = len(buf), 0, -1
        tags = self.tags
        for m in _MARKUP.finditer(buf):
            name = m.group(1)
            if (
                not final
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

    def close(self) -> None:
        """No more bytes come: the tags ``rest`` holds are whole as they are."""
        if self.numbering and self.rest:
            self._number(self.rest, 0, final=True)

    def read(self, events: Sequence[tuple[str, Any]]) -> None:
        """The elements whose start events are among ``events`` (what libxml2 read of the
        bytes fed), each with the next tag numbered."""
        if not self.numbering:
            return
        tags, late = self.tags, self.late
        for action, el in events:
            if action != "start":
                continue
            if not tags:
                self._stop()
                return
            line, name = tags.popleft()
            if name.rpartition(b":")[2] != el.tag.rpartition("}")[2].encode():
                self._stop()
                return
            if line >= self.cap:
                late[el] = line

    def _stop(self) -> None:
        self.numbering = False
        self.stopped = True
        self.tags.clear()
        self.rest = b""

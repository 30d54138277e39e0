"""The column of a value finding: where in its line the value it is about is written.

A finding about a value (a lastmod, a priority, an extension field) is made where its line
is known but not its column (libxml2 gives elements a line only). The column is the first
place in that line of the value the message quotes (an element's text, else an attribute's),
else of the element the code is about.
The reader fills it in from the bytes it has just read (``RecentLines``), and check from the
document read again (``checking.positions.place_values``): both with ``LineSearch``, so one
finding has one position in either.
"""

from __future__ import annotations

from collections import deque

from .._core import find_on_line, newlines
from ..patterns import lazy

# the element whose text a finding is about, when its message does not quote the value
VALUE_ELEMENT = {
    "future-lastmod": b"lastmod",
    "duplicate-loc": b"loc",
    "dev-host": b"loc",
    "url-userinfo": b"loc",
}
_QUOTED = lazy(r"'([^'\n]{1,2048})'")


def _escaped(text: str) -> str:
    """``text`` as XML text writes it (xml.sax.saxutils.escape, which loads urllib.request)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def value_needles(code: str, message: str, best: bool = False) -> list[tuple[bytes, int]]:
    """What the value of a finding of ``code`` saying ``message`` is written as, best first,
    and the column of the value past where the needle starts (the value quoted in the
    message, else its element); ``best``: the first of them alone (the others are looked for
    only where it is not found)."""
    out = []
    quoted = _QUOTED.search(message) if "'" in message else None
    if quoted is not None:
        value = quoted.group(1)
        out.append((b">" + value.encode("utf-8", "replace"), 2))
        if best:
            return out
        out.append((b">" + _escaped(value).encode("utf-8", "replace"), 2))
        # else an attribute's value (an hreflang href)
        out.append((b'="' + _escaped(value).encode("utf-8", "replace"), 3))
    name = VALUE_ELEMENT.get(code)
    if name is not None:
        out.append((b"<" + name + b">", len(name) + 3))
    return out


class LineSearch:
    """The first place of each needle in one line, fed a piece of the line at a time."""

    def __init__(self, needles: list[tuple[bytes, int]]) -> None:
        self.needles = needles
        self.first: list[int] = [-1] * len(self.needles)
        self.longest = max((len(n) for n, _ in self.needles), default=1)
        self.tail = b""
        self.fed = 0  # bytes of the line fed so far

    def feed(self, window: bytes, start: int, end: int) -> None:
        if self.first and self.first[0] >= 0:
            return  # the best needle is found: nothing can change the column
        seam = self.tail + window[start : min(end, start + self.longest - 1)]
        for k, (needle, _) in enumerate(self.needles):
            if self.first[k] >= 0:
                continue
            at = seam.find(needle)
            if 0 <= at < len(self.tail):  # across the seam between two pieces
                self.first[k] = self.fed - len(self.tail) + at
                continue
            at = window.find(needle, start, end)
            if at >= 0:
                self.first[k] = self.fed + at - start
        self.fed += end - start
        keep = self.longest - 1
        self.tail = (self.tail + window[max(start, end - keep) : end])[-keep:] if keep else b""

    def column(self) -> int:
        for (_, past), at in zip(self.needles, self.first, strict=True):
            if at >= 0:
                return at + past
        return 0


# The reader's findings come at most a libxml2 block (xml_full.LX_BLOCK) and an entry after
# the bytes they are about: this much of what came before the newest piece is kept.
KEEP = 1 << 18


class RecentLines:
    """The newest pieces of a document the reader was given (at least ``KEEP`` bytes before
    the last), with the line each starts at: the lines of the entries being read, for the
    columns of their findings. A piece may come after bytes of the one before (``add``'s
    ``start``): it is read from there on."""

    def __init__(self) -> None:
        # (line the piece starts at, its bytes, where in them it starts, offsets its lines
        # start at: made when needed)
        self.pieces: deque[tuple[int, bytes, int, list[int]]] = deque()
        self.kept = 0  # bytes in pieces
        self.next_line = 1
        # (piece, line, offset in it where the line starts): the last line placed
        self.cursor: tuple[bytes, int, int] | None = None

    def add(self, data: bytes, start: int = 0) -> None:
        """The next piece: ``data[start:]``."""
        size = len(data) - start
        if size <= 0:
            return
        pieces = self.pieces
        pieces.append((self.next_line, data, start, []))
        self.kept += size
        # every piece read: Python's count is 5-10x slower
        self.next_line += newlines(data, start)
        while self.kept - _size(pieces[0]) >= KEEP + size:
            self.kept -= _size(pieces.popleft())

    def column(self, code: str, message: str, line: int) -> int:
        """The column on ``line`` of the value a finding of ``code`` saying ``message`` is
        about, when that line is among the recent ones and holds the value; else 0."""
        if not line or not self.pieces or line < self.pieces[0][0]:
            return 0
        best = value_needles(code, message, best=True)
        if not best:
            return 0
        column = self._best_on_its_line(line, *best[0])
        if column:
            return column
        search = LineSearch(value_needles(code, message))  # the line piece by piece: rare
        for first, piece, begin, starts in self.pieces:
            if not starts:  # where each of its lines starts, once per piece
                starts.append(begin)
                at = piece.find(b"\n", begin)
                while at >= 0:
                    starts.append(at + 1)
                    at = piece.find(b"\n", at + 1)
            if line >= first + len(starts):
                continue  # the line starts in a later piece
            # the line, or its rest when it began in the piece before
            start = starts[line - first] if line >= first else begin
            nl = piece.find(b"\n", start)
            search.feed(piece, start, len(piece) if nl < 0 else nl)
            if nl >= 0:
                break
        return search.column()

    def _best_on_its_line(self, line: int, needle: bytes, past: int) -> int:
        """The column of the best needle when its first place from the start of ``line`` is
        on that line, found from the last line placed in the same piece by C-speed searches
        (a reader's findings come in line order): what ``LineSearch`` gives, without making
        the offsets of every line of the piece. 0: not found so, for the line by line search
        (the line began in an earlier piece, the needle is elsewhere or across two pieces)."""
        for holding in reversed(self.pieces):
            if holding[0] < line:
                break
        else:
            return 0
        first, piece, begin, _ = holding
        cursor = self.cursor
        if cursor is not None and cursor[0] is piece and cursor[1] <= line:
            _, from_line, from_at = cursor
        else:
            from_line, from_at = first, begin
        # a line without it (a value written padded) is searched to its end, not the piece's
        found = find_on_line(piece, from_at, line - from_line, needle)
        if found is None:
            return 0
        start, at = found
        self.cursor = (piece, line, start)
        return at - start + past


def _size(piece: tuple[int, bytes, int, list[int]]) -> int:
    """The bytes of a piece of ``RecentLines`` (those from where it starts)."""
    return len(piece[1]) - piece[2]

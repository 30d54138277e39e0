"""Lines and columns of offsets in a document read a window at a time (the checker's scans
of the bytes: ``positions``, ``raw_text``)."""

from __future__ import annotations

from .._core import newlines


class Lines:
    """Lines and columns (from 1, in bytes) of offsets in a document read a window at a
    time: ``enter`` each window in turn, then ask of offsets in it (``line_at`` in
    increasing order). Lines are counted by the compiled core (``bytes.count`` takes a byte
    at a time: placing findings spread over a document counts its every line twice)."""

    __slots__ = ("_counted", "_line", "base", "last_nl", "lines", "window")

    def __init__(self) -> None:
        self.lines = 1  # the line the window starts on
        self.last_nl = -1  # the document offset of the last line end before the window
        self.base = 0
        self.window = b""
        self._line, self._counted = 1, 0  # the line at offset ``_counted`` of the window

    def enter(self, base: int, window: bytes) -> None:
        """The next window, at ``base`` in the document."""
        before = self.window
        if before:
            self.past(newlines(before), before.rfind(b"\n"))
        self.base, self.window = base, window
        self._line, self._counted = self.lines, 0

    def past(self, newlines: int, last: int | None) -> None:
        """Past the window, which holds ``newlines`` line ends, the last at ``last`` (-1 or
        None: none), as a scan of it counted them: the next ``enter`` counts none."""
        self.lines += newlines
        if last is not None and last >= 0:
            self.last_nl = self.base + last
        self.window = b""

    @property
    def carry(self) -> int:
        """What the line the window starts on holds before it, in bytes."""
        return self.base - self.last_nl - 1

    def line_at(self, offset: int) -> int:
        """The line of ``offset`` (no smaller than the one asked before in this window)."""
        self._line += newlines(self.window, self._counted, offset)
        self._counted = offset
        return self._line

    def line_of(self, offset: int) -> int:
        """The line of any ``offset`` of the window (counted on from the last one asked)."""
        if offset >= self._counted:
            return self.line_at(offset)
        return self.lines + newlines(self.window, 0, offset)

    def column_at(self, offset: int) -> int:
        nl = self.window.rfind(b"\n", 0, offset)
        return offset - nl if nl >= 0 else offset + self.carry + 1

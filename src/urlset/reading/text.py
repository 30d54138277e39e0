"""The plain-text sitemap: one URL per line, UTF-8 ("Sitemaps protocol: Text file").

Blank lines are skipped; a line ends with LF, CR LF or CR alone. Every line
that is not an absolute http(s) URL becomes an issue with its line number; with a base URL,
relative lines are resolved (and still reported).
"""

from __future__ import annotations

from ..model import Url
from ..patterns import lazy
from .sink import Sink

_LINE_BREAK = lazy(rb"\r\n?|\n")


class TextBody:
    """Reads a text sitemap pushed in chunks; entries and issues go to ``sink``."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.max_line = sink.limits.max_value_length
        self.carry = b""
        self.line = 0
        self.skipping = False
        self.first = True
        self.dead = False
        self.after_cr = False  # the last chunk ended with a CR

    def feed(self, data: bytes) -> None:
        if self.dead:
            return
        if self.first:
            if not data:
                return
            self.first = False
            if data[:3] == b"\xef\xbb\xbf":
                data = data[3:]
        if self.after_cr and data[:1] == b"\n":
            data = data[1:]  # the LF of a CR LF split between chunks
        self.after_cr = data[-1:] == b"\r"
        # CR LF, or CR alone (old Mac files), ends a line too
        lines = _LINE_BREAK.split(data) if b"\r" in data else data.split(b"\n")
        lines[0] = self.carry + lines[0] if self.carry else lines[0]
        self.carry = lines.pop()
        for raw in lines:
            self.line += 1
            if self.skipping:
                self.skipping = False
                continue
            if not self._line(raw):
                return
        if len(self.carry) > self.max_line:
            if not self.skipping:
                self._too_long(self.line + 1)
                self.skipping = True
            self.carry = b""

    def close(self) -> None:
        if self.carry and not self.skipping and not self.dead:
            self.line += 1
            self._line(self.carry)
        self.carry = b""
        self.dead = True

    def stop(self) -> None:
        self.dead = True

    def _too_long(self, line: int) -> None:
        self.sink.issue(
            "value-too-long",
            f"line longer than {self.max_line:,} bytes (ReadLimits.max_value_length); skipped",
            line,
            1,
        )

    def _line(self, raw: bytes) -> bool:
        sink = self.sink
        line = self.line
        if len(raw) > self.max_line:
            self._too_long(line)
            return True
        stripped = raw.strip()
        if not stripped:
            return True
        try:
            text = stripped.decode("utf-8")
        except UnicodeDecodeError as exc:
            sink.issue("invalid-encoding", f"line is not UTF-8 ({exc.reason})", line, exc.start + 1)
            return True
        if len(stripped) != len(raw):
            sink.issue("whitespace-in-value", f"{text[:100]!r} has whitespace around it", line, 1)
        if "\x00" in text:
            sink.issue(
                "invalid-character", "the line holds a NUL byte", line, text.index("\x00") + 1
            )
            return True
        loc = sink.loc(text, line, 1)
        if loc is None:
            return True
        if not sink.add(Url._trusted(loc), line):
            self.dead = True
            return False
        return True

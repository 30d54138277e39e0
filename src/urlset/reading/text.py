"""The plain-text sitemap: one URL per line, UTF-8 ("Sitemaps protocol: Text file").

Blank lines are skipped; a line ends with LF, CR LF or CR alone. Every line
that is not an absolute http(s) URL becomes an issue with its line number; with a base URL,
relative lines are resolved (and still reported).

In the render lane (``RenderSpec(texts=True)``: ``urlset read``, ``read_arrow``) the lines
whose URL needs no word from the reader are rendered by the compiled core
(``RecordRenderer.render_text``, rust/core/src/read/text.rs) as records with a loc only; it
stops at any other line, which is read here in its place, and at the first line on an origin
the sink has not judged, which is judged here (as ``Sink.add`` would) before the run goes on.
"""

from __future__ import annotations

from .._core import RecordRenderer
from ..model import Url
from ..patterns import lazy
from .run_issues import converted_run
from .sink import Sink, leaving

_LINE_BREAK = lazy(rb"\r\n?|\n")
_NO_PREFIXES = (None, None, None, None)


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
        render = sink.render
        # the render lane: the core's renderer, also the document's duplicate set
        self.renderer: RecordRenderer | None = None
        if render is not None and render.texts:
            self.renderer = sink.seen = render.start(self.max_line, _NO_PREFIXES)

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
        if self.renderer is not None:
            self._render(self.carry + data if self.carry else data, final=False)
            return
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
            if self.renderer is not None:
                self._render(self.carry, final=True)
            else:
                self.line += 1
                self._line(self.carry)
        self.carry = b""
        self.dead = True

    def _render(self, buf: bytes, final: bool) -> None:
        """The render lane's ``feed``: the whole lines of ``buf`` (all of it when ``final``)
        read by the core where it can, the rest kept for the next chunk."""
        cut = len(buf) if final else max(buf.rfind(b"\n"), buf.rfind(b"\r")) + 1
        pos = 0
        if self.skipping and cut:  # the rest of a line too long to keep: skipped
            found = _LINE_BREAK.search(buf, 0, cut)
            pos = found.end() if found is not None else cut
            self.line += 1
            self.skipping = False
        if pos < cut:
            self._lines(buf, pos, cut)
        self.carry = buf[cut:]
        if len(self.carry) > self.max_line:
            if not self.skipping:
                self._too_long(self.line + 1)
                self.skipping = True
            self.carry = b""

    def _lines(self, buf: bytes, pos: int, end: int) -> None:
        """Lines ``buf[pos:end]``: runs the core renders, and each line it stops at read
        here (``_line``) or, on an origin the sink has not judged, judged and rendered."""
        sink, renderer, spec = self.sink, self.renderer, self.sink.render
        assert renderer is not None and spec is not None
        limits, line = sink.limits, self.line + 1
        while pos < end and not self.dead:
            due = sink.count >= min(sink.next_check, limits.max_entries)
            if not due:
                at, at_line = pos, line
                found = renderer.render_text(buf, pos, end, line, sink.next_check - sink.count)
                pos, line, n, text, converted, _, new = found
                if n:
                    converted_run(sink, converted, column=1)  # a line's URL starts it
                    if spec.column_renderer is not None:  # the same lines into columns
                        done = spec.column_renderer.render_text(buf, at, pos, at_line, n)[2]
                        assert done == n, "the text and column renderers read alike"
                    spec.add_run(sink.count, n, text, sink.out)
                    sink.count += n
                if pos >= end:
                    break
                if new is None and sink.count >= min(sink.next_check, limits.max_entries):
                    continue  # stopped at the count: the limit is due
                if new is not None:  # the first line on an origin: judged as Sink.add would
                    origin, made = new
                    judged = origin not in sink.origins
                    if not (judged and made and sink.findings_due([(0, origin)])):
                        if judged:
                            sink.origin(origin, line, 1)  # the line is its URL
                        renderer.know(origin)
                        spec.know(origin)
                        continue
            # this line the reader's way (a duplicate, a value it judges, a limit due...)
            found_break = _LINE_BREAK.search(buf, pos, end)
            stop, after = found_break.span() if found_break is not None else (end, end)
            self.line = line
            reason = "limit" if due else "new-origin" if new is not None else sink.reason
            with leaving(sink, reason):
                self._line(buf[pos:stop])
            pos, line = after, line + 1
        self.line = line - 1

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
        if not sink.add(Url._trusted(loc), line, len(raw) - len(raw.lstrip()) + 1):
            self.dead = True
            return False
        return True

"""The guard in front of libxml2: raw bytes in, the bytes libxml2 may safely see out.

libxml2 handles some input badly: a bare '&' makes its push parser wait for a ';' that may
never come, a comment, CDATA section or processing instruction left open (or a stretch
without markup) is buffered whole, and after any error it drops predefined entity
references from text. The guard reports a bare '&' and passes it on escaped, stops reading
on an open section or a markup-free flood, and hands predefined entities over as character
references. It counts lines and columns of what passed, for its issues' positions.
"""

from __future__ import annotations

from ..patterns import lazy
from .sink import Sink
from .xml_common import DONE, Status

_OPENERS = {b"<!--": b"-->", b"<![CDATA[": b"]]>", b"<?": b"?>"}
# libxml2 (2.14) in recover mode drops predefined entity references from text once it has
# seen any error ("a&amp;b" becomes "ab"); character references survive, so these are
# handed over as character references ('&amp;' keeps its length, the others change by one)
_PREDEFINED = {
    b"&amp;": b"&#38;",
    b"&lt;": b"&#60;",
    b"&gt;": b"&#62;",
    b"&quot;": b"&#34;",
    b"&apos;": b"&#39;",
}
_GUARD_TOKEN = lazy(rb"&|<!--|<!\[CDATA\[|<\?")
_REFERENCE = lazy(rb"&(?:#[0-9]{1,8}|#x[0-9a-fA-F]{1,8}|[A-Za-z_:][A-Za-z0-9_.:\-]{0,50});")

_CONTINUATION = bytes(range(0x80, 0xC0))
_REPLACEMENT = b"&#xFFFD;"


def _xml_char(point: int) -> bool:
    """True for a code point XML 1.0 allows (its production Char)."""
    if point < 0x20:
        return point in (0x9, 0xA, 0xD)
    return point <= 0xD7FF or 0xE000 <= point <= 0xFFFD or 0x10000 <= point <= 0x10FFFF


def _code_point(point: int) -> str:
    if point > 0x10FFFF:
        return "no character (past U+10FFFF)"
    kind = "a surrogate" if 0xD800 <= point <= 0xDFFF else "a non-character"
    if point < 0x20:
        kind = "a control character"
    return f"U+{point:04X}, {kind}"


def _chars(data: bytes) -> int:
    """Characters in UTF-8 ``data``: columns count characters, as libxml2's do."""
    return len(data) if data.isascii() else len(data.translate(None, _CONTINUATION))


def entity_delta(data: bytes, start: int = 0, end: int | None = None) -> int:
    """How much longer the guard makes ``data[start:end]`` (see _PREDEFINED), counted
    without copying or decoding it."""
    return (
        data.count(b"&lt;", start, end)
        + data.count(b"&gt;", start, end)
        - data.count(b"&quot;", start, end)
        - data.count(b"&apos;", start, end)
    )


class Guard:
    """Filters the byte stream on its way to libxml2 (``filter``), keeping what it must see
    more of before deciding (``hold``) and where the stream stands (``base``: bytes passed,
    ``lines`` and ``col0``: the position after them)."""

    def __init__(self, sink: Sink, status: Status) -> None:
        self.sink = sink
        self.status = status
        self.hold = b""
        self.ctx: bytes | None = None  # the closer of the open section, if one is open
        self.ctx_start = 0
        self.ctx_line = 0
        self.ctx_col = 0
        self.base = 0
        self.lines = 0
        self.col0 = 0
        self.last_gt = 0
        self.cap = sink.limits.max_value_length + 65_536

    def filter(self, data: bytes, final: bool) -> bytes:
        """What libxml2 must not see, handled before it does.

        * A bare '&' (not starting an entity or character reference): libxml2's push parser
          then waits for a ';' that may never come, holding the rest of the document in
          memory. It is reported here with its position and passed on as '&amp;'.
        * A comment, CDATA section or processing instruction left open, or a stretch without
          any '>' longer than the value limit: libxml2 would buffer it all. Reading stops.
        """
        if self.hold:
            data = self.hold + data
            self.hold = b""
        n = len(data)
        out: list[bytes] = []
        i = emit = 0
        hold = 0
        while i < n:
            closer = self.ctx
            if closer is not None:
                j = data.find(closer, i)
                if j < 0:
                    hold = 0 if final else min(len(closer) - 1, n - i)
                    if self.base + n - self.ctx_start > self.cap:
                        return self._unclosed()
                    break
                i = j + len(closer)
                self.ctx = None
                continue
            m = _GUARD_TOKEN.search(data, i)
            if m is None:
                if not final:
                    lt = data.rfind(b"<", max(i, n - 9))
                    if lt >= 0 and any(t.startswith(data[lt:]) for t in _OPENERS):
                        hold = n - lt
                break
            k = m.start()
            token = m.group()
            if token == b"&":
                ref = _REFERENCE.match(data, k)
                if ref is not None:
                    i = ref.end()
                    replacement = _PREDEFINED.get(ref.group())
                    if replacement is None and data[k + 1] == 0x23:  # '#'
                        replacement = self._char_ref(data, k, ref.group())
                    if replacement is not None:
                        out.append(data[emit:k])
                        out.append(replacement)
                        emit = i
                    continue
                if n - k < 64 and not final:
                    hold = n - k
                    break
                line, column = self.position(data, k)
                self.sink.issue(
                    "unescaped-ampersand",
                    "'&' not followed by an entity name and ';' (read as '&amp;')",
                    line,
                    column,
                )
                out.append(data[emit:k])
                out.append(b"&amp;")
                emit = i = k + 1
                continue
            self.ctx = _OPENERS[token]
            self.ctx_start = self.base + k
            self.ctx_line, self.ctx_col = self.position(data, k)
            i = m.end()
        end = n - hold
        if hold:
            self.hold = data[end:]
        if out:
            out.append(data[emit:end])
            done = b"".join(out)
        else:
            done = data[:end]
        return done if self._passed(data[:end]) else b""

    def _char_ref(self, data: bytes, k: int, ref: bytes) -> bytes | None:
        """A character reference (``ref``, at ``k``) to a code point XML forbids (a
        surrogate, one past U+10FFFF, a control but tab, LF and CR, U+FFFE, U+FFFF): libxml2
        would pass a surrogate on as bytes no decoder takes, drop NUL and keep the others.
        Reported here and handed over as U+FFFD, which a loc is skipped for and a date or
        text fails on, in every place a reference may stand. None for an allowed one."""
        digits = ref[3:-1] if ref[2] in b"xX" else ref[2:-1]
        point = int(digits, 16 if ref[2] in b"xX" else 10)
        if _xml_char(point):
            return None
        line, column = self.position(data, k)
        self.sink.issue(
            "invalid-character",
            f"{ref.decode('ascii')} refers to {_code_point(point)}, which XML forbids "
            "(read as U+FFFD)",
            line,
            column,
        )
        return _REPLACEMENT

    def _passed(self, consumed: bytes) -> bool:
        """Move the position past ``consumed``; False (reading stops) when that makes a
        stretch without any '>' longer than the cap."""
        lines = consumed.count(b"\n")
        last_nl = consumed.rfind(b"\n")
        if lines:
            self.lines += lines
            self.col0 = _chars(consumed[last_nl + 1 :])
        else:
            self.col0 += _chars(consumed)
        gt = consumed.rfind(b">")
        if gt >= 0:
            self.last_gt = self.base + gt
        self.base += len(consumed)
        if self.base - self.last_gt > self.cap and self.ctx is None:
            self.stop(
                "value-too-long",
                f"no markup for {self.cap:,} bytes: a value or tag longer than "
                "ReadLimits.max_value_length",
                self.lines + 1,
                self.col0,
            )
            return False
        return True

    def _unclosed(self) -> bytes:
        """Stop: the open section has gone on for longer than the cap."""
        self.stop(
            "not-well-formed",
            f"a comment, CDATA section or processing instruction is not closed "
            f"within {self.cap:,} bytes",
            self.ctx_line,
            self.ctx_col,
        )
        return b""

    def position(self, data: bytes, k: int) -> tuple[int, int]:
        nl = data.rfind(b"\n", 0, k)
        line = self.lines + data.count(b"\n", 0, k) + 1
        column = _chars(data[nl + 1 : k]) + 1 if nl >= 0 else self.col0 + _chars(data[:k]) + 1
        return line, column

    def stop(self, code: str, message: str, line: int, column: int) -> None:
        self.sink.issue(code, message, line, column)
        if self.status.format is None:
            self.sink.fatal = True
        self.status.state = DONE

    def skip(self, pad: bytes) -> None:
        """Account for ``pad``, fed to libxml2 past the guard (it stands for what the fast
        lane read, and holds no markup to check)."""
        lines = pad.count(b"\n")
        if lines:
            self.lines += lines
            self.col0 = len(pad) - pad.rfind(b"\n") - 1
        else:
            self.col0 += len(pad)
        self.base += len(pad)
        self.last_gt = self.base

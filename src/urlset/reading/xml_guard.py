"""The guard in front of libxml2: raw bytes in, the bytes libxml2 may safely see out.

libxml2 handles some input badly: a bare '&' makes its push parser wait for a ';' that may
never come, a comment, CDATA section or processing instruction left open (or a stretch
without markup) is buffered whole, and after any error it drops predefined entity
references from text. The guard reports a bare '&' and passes it on escaped, stops reading
on an open section or a markup-free flood, and hands predefined entities over as character
references. It counts lines and columns of what passed, for its issues' positions.
"""

from __future__ import annotations

from .._core import run_over
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
        self.last_gt = -1  # where the last '>' passed stands
        self.cap = sink.limits.max_value_length + 65_536
        # why reading stops once what ``filter`` gave is read: (code, message, line, column)
        self.stopping: tuple[str, str, int, int] | None = None
        self.cursor: tuple[bytes, int, int, int] | None = None  # the last position (position)

    def filter(self, data: bytes, final: bool) -> bytes:
        """What libxml2 must not see, handled before it does.

        * A bare '&' (not starting a reference): libxml2's push parser then waits for a ';'
          that may never come, holding the rest in memory. Reported, passed on as '&amp;'.
        * A stretch without any '>', or a comment, CDATA section or processing instruction,
          longer than the cap: libxml2 would buffer it all. Reading stops at the byte that
          makes it too long, wherever the chunks end: the bytes before it are passed on and
          ``stopping`` says why (``FullLane`` reads them, then stops).
        """
        if self.hold:
            data = self.hold + data
            self.hold = b""
        n = len(data)
        stop_at = self._run_end(data)
        if stop_at is not None:
            data, n, final = data[:stop_at], stop_at, True
        section_at = None
        out: list[bytes] = []
        i = emit = 0
        hold = 0
        tokens = _Tokens(data)
        while i < n:
            closer = self.ctx
            if closer is not None:
                j = data.find(closer, i)
                over = self.ctx_start + self.cap + 1 - self.base  # where it grows too long
                if (j < 0 and over < n) or (j >= 0 and j + len(closer) > over):
                    section_at = over
                    break
                if j < 0:
                    hold = 0 if final else min(len(closer) - 1, n - i)
                    break
                i = j + len(closer)
                self.ctx = None
                continue
            found = tokens.next(i)
            if found is None:
                if not final:
                    lt = data.rfind(b"<", max(i, n - 9))
                    if lt >= 0 and any(t.startswith(data[lt:]) for t in _OPENERS):
                        hold = n - lt
                break
            k, token = found
            if token == b"&":
                ref = _REFERENCE.match(data, k)
                if ref is not None:
                    i = ref.end()
                    replacement = self._replacement(data, k, ref.group())
                    if replacement is not None:
                        out.append(data[emit:k])
                        out.append(replacement)
                        emit = i
                    continue
                if n - k < 64 and not final:
                    hold = n - k
                    break
                self._bare_ampersand(data, k)
                out.append(data[emit:k])
                out.append(b"&amp;")
                emit = i = k + 1
                continue
            self.ctx = _OPENERS[token]
            self.ctx_start = self.base + k
            self.ctx_line, self.ctx_col = self.position(data, k)
            i = k + len(token)
        end = n - hold if section_at is None else section_at
        if hold:
            self.hold = data[end:]
        if out:
            out.append(data[emit:end])
            done = b"".join(out)
        else:
            done = data[:end]
        if section_at is not None or stop_at is not None:
            self._stop_at(data, stop_at if section_at is None else None)
        self._passed(data[:end])
        return done

    def _stop_at(self, data: bytes, run_end: int | None) -> None:
        """Say why reading stops once what ``filter`` passed is read: the open section grew
        too long, or the run without markup that ends at ``data[run_end]``."""
        if run_end is None:
            self.stopping = (
                "not-well-formed",
                f"a comment, CDATA section or processing instruction longer than "
                f"{self.cap:,} bytes (ReadLimits.max_value_length); reading stops",
                self.ctx_line,
                self.ctx_col,
            )
            return
        self.stopping = (
            "value-too-long",
            f"no markup for {self.cap:,} bytes: a value or tag longer than "
            "ReadLimits.max_value_length; reading stops",
            *self.position(data, run_end),
        )

    def _run_end(self, data: bytes) -> int | None:
        """Where in ``data`` the run without '>' (begun after the last one passed) grows
        longer than the cap, or None."""
        run_before = self.base - self.last_gt - 1
        if len(data) + run_before <= self.cap:
            return None
        return run_over(data, 0, len(data), run_before, self.cap)

    def _bare_ampersand(self, data: bytes, k: int) -> None:
        self.sink.issue(
            "unescaped-ampersand",
            "'&' not followed by an entity name and ';' (read as '&amp;')",
            *self.position(data, k),
        )

    def _replacement(self, data: bytes, k: int, ref: bytes) -> bytes | None:
        """What libxml2 is given for the reference ``ref`` at ``k``; None: itself."""
        replacement = _PREDEFINED.get(ref)
        if replacement is None and ref[1] == 0x23:  # '#': a character reference
            return self._char_ref(data, k, ref)
        return replacement

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

    def _passed(self, consumed: bytes) -> None:
        """Move the position past ``consumed``."""
        self.cursor = None
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

    def position(self, data: bytes, k: int) -> tuple[int, int]:
        """The line and column of ``data[k]`` (``data``: what ``filter`` reads). Asked for
        in increasing order within one ``filter`` call, it counts on from the last answer,
        so that a flood of comments or references costs linear time."""
        cursor = self.cursor
        if cursor is not None and cursor[0] is data and cursor[1] <= k:
            _, at, line, column = cursor
        else:
            at, line, column = 0, self.lines + 1, self.col0 + 1
        lines = data.count(b"\n", at, k)
        if lines:
            line += lines
            column = _chars(data[data.rfind(b"\n", at, k) + 1 : k]) + 1
        else:
            column += _chars(data[at:k])
        self.cursor = (data, k, line, column)
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
            self.col0 += _chars(pad)
        self.base += len(pad)
        self.last_gt = self.base - 1  # what the fast lane read ends with a '>'


class _Tokens:
    """The places of the guard's tokens in ``data`` ('&' and the openers of ``_OPENERS``),
    found from a place on: each kind's next place kept until passed. ``bytes.find`` of each,
    not a regular expression that tries each '<' (a feed's many tags: ~17 ns a byte)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.amp = self.bang = self.query = -1  # the next of each kind found (len: none)

    def next(self, i: int) -> tuple[int, bytes] | None:
        """The first token at ``i`` or after it, and its place."""
        data = self.data
        none = len(data)
        if self.amp < i:
            self.amp = _found(data.find(b"&", i), none)
        if self.query < i:
            self.query = _found(data.find(b"<?", i), none)
        while self.bang < i or not (
            data.startswith(b"<!--", self.bang) or data.startswith(b"<![CDATA[", self.bang)
        ):
            if self.bang >= none:
                break
            self.bang = _found(data.find(b"<!", max(i, self.bang + 1)), none)
        k = min(self.amp, self.query, self.bang)
        if k >= none:
            return None
        if k == self.amp:
            return k, b"&"
        if k == self.query:
            return k, b"<?"
        return k, b"<!--" if data.startswith(b"<!--", k) else b"<![CDATA["


def _found(at: int, none: int) -> int:
    return none if at < 0 else at

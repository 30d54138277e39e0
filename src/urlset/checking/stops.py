"""Where the reader's entry limit stopped, in the bytes as check's scans read them.

The reader stops at the entry past ``ReadLimits.max_entries`` (``ReadResult.entry_stop``:
that entry's line and loc); every scan of the bytes stops there too, so that no rule
reports on an entry the report says was not read. A text sitemap stops at the start of
that line; an XML document after the last entry's end tag before that entry, found by its
loc from its line on (a one-line document holds every entry on line 1), as the URI the
reader made of it or as the text it made it of. A loc written otherwise still (a host the
reader lowered in case) is not found: then the document stops after the last entry's end
tag before that line, which may drop the findings of entries passed on earlier on that
line, never report one past it.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Iterator
from contextlib import suppress

from .._core import newlines as count_newlines

# what stands around a loc's text: its tags (or a CDATA section's brackets), or blanks
_BEFORE = frozenset(b">[ \t\r\n")
_AFTER = frozenset(b"<] \t\r\n")


def _written(loc: str) -> list[bytes]:
    """A loc as it may be written: the URI the reader made of it, or the text it made it of
    (percent-escapes decoded, an internationalised host in Unicode), escaped for XML or not."""
    from urllib.parse import unquote, urlsplit  # here: only a document the limit stopped

    texts = {loc, unquote(loc)}
    host = urlsplit(loc).hostname or ""
    if "xn--" in host:
        with suppress(UnicodeError):
            texts |= {text.replace(host, host.encode("ascii").decode("idna")) for text in texts}
    written = texts | {text.replace("&", "&amp;") for text in texts}
    return [text.encode("utf-8") for text in sorted(written)]


def _first_loc(data: bytes, start: int, written: list[bytes]) -> int:
    """Where in ``data`` from ``start`` on the first of ``written`` stands as a loc's whole
    text (a longer loc starting alike is not it); -1: nowhere (yet: the last bytes of
    ``data`` are searched again with the next piece)."""
    first = -1
    for text in written:
        at = data.find(text, start + 1)
        while at >= 0 and (first < 0 or at < first):
            after = at + len(text)
            if after >= len(data):
                break
            if data[at - 1] in _BEFORE and data[after] in _AFTER:
                first = at
                break
            at = data.find(text, at + 1)
    return first


# the longest end tag of an entry searched across two pieces
_TAG = 64


def _end_tag(name: str) -> re.Pattern[bytes]:
    return re.compile(rb"</(?:[\w.-]+:)?" + name.encode("ascii") + rb"\s*>")


def stop_offset(pieces: Iterable[bytes], line: int, loc: str, entry: str | None) -> int | None:
    """The offset in the bytes given as ``pieces`` (lines ended by LF) where reading stopped:
    the start of ``line`` when ``entry`` is None (a text sitemap), else the end of the last
    end tag of an ``entry`` element before the first place of ``loc`` from ``line`` on
    (before ``line`` when ``loc`` is not found there). None: no such line."""
    if entry is None and line <= 1:
        return 0
    ends = None if entry is None else _end_tag(entry)
    written = [] if entry is None else _written(loc)
    # what a loc (escaped) or an end tag across two pieces needs of the first
    keep = 0 if entry is None else 5 * len(loc) + _TAG
    offset = 0  # of the piece
    carry = b""  # the last bytes before it
    newlines = 0  # before it
    line_start = 0 if line <= 1 else -1
    last_end, before_line = 0, -1  # after the last entry end seen; before the line
    for piece in pieces:
        if line_start < 0:
            count = count_newlines(piece)
            if newlines + count < line - 1:  # the line starts after this piece
                newlines += count
                if ends is not None:  # (the piece searched alone: not copied)
                    last_end = _last_end(piece, offset, ends, len(piece), last_end)
                    seam = carry[-_TAG:] + piece[:_TAG]  # a tag across the two
                    last_end = _last_end(
                        seam, offset - len(carry[-_TAG:]), ends, len(seam), last_end
                    )
                    carry = _tail(carry, piece, keep)
                offset += len(piece)
                continue
            at = -1
            for _ in range(line - 1 - newlines):
                at = piece.find(b"\n", at + 1)
            line_start = offset + at + 1
            if ends is None:
                return line_start
        assert ends is not None
        joined, base = carry + piece, offset - len(carry)
        if before_line < 0:
            before_line = _last_end(joined, base, ends, line_start - base, last_end)
        found = _first_loc(joined, max(line_start - base, 0), written)
        if found >= 0:
            return _last_end(joined, base, ends, found, last_end)
        last_end = _last_end(joined, base, ends, len(joined), last_end)
        carry = _tail(carry, piece, keep)
        offset += len(piece)
    return None if line_start < 0 else before_line


def _tail(carry: bytes, piece: bytes, keep: int) -> bytes:
    """The last ``keep`` bytes of ``carry`` and then ``piece``."""
    if len(piece) >= keep:
        return piece[len(piece) - keep :]
    return (carry + piece)[-keep:]


def _last_end(joined: bytes, base: int, ends: re.Pattern[bytes], before: int, last: int) -> int:
    """The offset just after the last match of ``ends`` in ``joined[:before]`` (``joined``
    starts at ``base``), else ``last``: searched from ``before`` back a stretch at a time."""
    stretch = 4096
    low = before
    while low > 0:
        high, low = low, max(low - stretch, 0)
        # (a tag may end up to its length past the stretch searched)
        found = deque(ends.finditer(joined, low, min(high + _TAG, before)), maxlen=1)
        if found:
            return max(base + found[0].end(), last)
        stretch *= 4
    return last


def cut_at(pieces: Iterable[bytes], offset: int) -> Iterator[bytes]:
    """``pieces`` up to ``offset`` bytes."""
    left = offset
    for piece in pieces:
        if len(piece) >= left:
            if left:
                yield piece[:left]
            return
        left -= len(piece)
        yield piece


def position_of(pieces: Iterable[bytes], offset: int) -> tuple[int, int]:
    """The line and column (of bytes, from 1) of ``offset`` in the bytes given as
    ``pieces``."""
    line, line_start, base = 1, 0, 0
    for piece in cut_at(pieces, offset):
        count = count_newlines(piece)
        if count:
            line += count
            line_start = base + piece.rfind(b"\n") + 1
        base += len(piece)
    return line, offset - line_start + 1

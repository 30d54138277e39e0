"""Byte-level stages of the reader: gzip by magic bytes, and format detection by content.

Neither file names nor content types decide anything here: a ``.xml`` file may be gzipped,
a ``.gz`` file may already be plain (a server's Content-Encoding decoded it), a ``.txt`` may be
XML. Only the bytes count.
"""

from __future__ import annotations

import codecs
import os
import re
from collections.abc import Callable, Iterator
from typing import NamedTuple

from .._core import GzipInflater
from ..patterns import lazy

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
# decompressed output is produced in pieces of at most this size, so that a gzip bomb is
# stopped by the size limit after one piece, never after inflating everything
GZIP_PIECE = 262_144
SNIFF_WINDOW = 65_536
# compressed bytes from which a thread inflates ahead (None: the core's choice, when the load
# leaves a core free; see Gunzip)
GZIP_THREAD_FROM: int | None = None
# a thread of its own only pays when a core is free: on a busy machine it shares a core with
# the reader (measured: ~1-3 ms more on a 50k read at load 5-6 on 2 cores, not less)
_INLINE = 1 << 62


class GzipError(Exception):
    """The gzip stream is corrupt; ``code`` is the issue code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Gunzip:
    """Incremental gzip decoder (multi-member streams too) with bounded output pieces.

    Inflated in the compiled core (rust/core/src/read/gzip.rs) without the GIL, a piece of at
    most GZIP_PIECE bytes at a time, so a consumer that stops taking pieces (the size limit)
    stops the inflation. Damage gives the same output however the stream is chunked: the
    output before the damaged symbol, then GzipError.

    From ``thread_from`` compressed bytes on a thread of the core's inflates up to two pieces
    ahead while the consumer reads the last one (rust/core/src/read/gzip_ahead.rs): the same
    pieces and errors, the inflation's time hidden behind the tokenizer's; a consumer that
    stops taking pieces still stops it. None: GZIP_THREAD_FROM, by default the core's choice
    (64 KiB where a second core exists) when the load average leaves a core free besides
    this reader's, else never.
    """

    def __init__(
        self, thread_from: int | None = None, looked: tuple[int | None] | None = None
    ) -> None:
        # the machine as this stream found it (free_core_from), before a thread of its own
        # ran, or as the caller found it (``looked``: before threads of the caller's own,
        # read_arrow's import); None when the caller chose ``thread_from``
        self.looked: tuple[int | None] | None = None
        if thread_from is None:
            self.looked = looked or (free_core_from(),)
            thread_from = GZIP_THREAD_FROM if GZIP_THREAD_FROM is not None else self.looked[0]
        self.piece = GZIP_PIECE  # the most bytes a piece holds
        self._core = GzipInflater(self.piece, thread_from)

    def feed(self, data: bytes) -> Iterator[bytes]:
        core = self._core
        core.push(data)
        while True:
            try:
                piece = core.next_piece()
            except ValueError as exc:
                raise GzipError("gzip-corrupt", f"gzip data is corrupt: {exc}") from None
            if piece is None:
                return
            yield piece

    def feed_after(
        self, data: bytes, held: Callable[[], bytearray | None]
    ) -> Iterator[tuple[bytes, int]]:
        """``feed``, each piece after what ``held`` says the consumer holds unread just
        before it is inflated (or None): (those bytes and the piece in one, their length). The
        consumer's own join would copy every piece once more."""
        core = self._core
        core.push(data)
        while True:
            before = held()
            try:
                piece = core.next_piece(before)
            except ValueError as exc:
                raise GzipError("gzip-corrupt", f"gzip data is corrupt: {exc}") from None
            if piece is None:
                return
            yield piece, 0 if before is None else len(before)

    @property
    def complete(self) -> bool:
        """The last member ended, and no partial member follows."""
        return self._core.complete

    @property
    def trailing(self) -> bool:
        """Bytes other than zero padding follow the last member."""
        return self._core.trailing

    @property
    def threaded(self) -> bool:
        """A thread of the core's was started to inflate the stream ahead."""
        return self._core.threaded


def free_core_from() -> int | None:
    """None (the core's choice of size) when a core is free now besides the reader's own,
    else a size never reached: never a second thread (the gzip inflated ahead; read_arrow's
    import of pyarrow). Now: the threads the kernel has running or ready this instant, the reader's
    own included (/proc/loadavg); the load averages trail by a minute, so a read right after
    another command (a benchmark's runs, a build then a check) saw its own last minute as
    load. Where that count is not kept, the 1-minute load average."""
    cores = os.cpu_count() or 1
    try:
        with open("/proc/loadavg", "rb") as f:
            others: float = int(f.read().split()[3].split(b"/")[0]) - 1
    except (OSError, ValueError, IndexError):
        try:
            others = os.getloadavg()[0] - 0.5
        except OSError:  # not known here: the core decides by the number of cores
            return None
    return None if others < cores - 1 else _INLINE


class Sniffed(NamedTuple):
    kind: str  # "xml" | "text" | "html" | "unknown" | "empty" | "utf16" (or 32: ``reason``)
    skip: int = 0  # bytes of junk before the XML to skip
    reason: str = ""


_URL_LINE = lazy(rb"[ \t]*https?://", re.I)
_XML_START = lazy(
    rb"<\?xml[ \t\r\n]|<(?:[A-Za-z_][\w.\-]*:)?(?:urlset|sitemapindex|rss|feed|RDF)[ \t\r\n>/]"
)
_WORD_LINE = lazy(rb"[ \t]*[^\s<>\x00]+[ \t\r]*")


def sniff(head: bytes, final: bool) -> Sniffed | None:
    """Decide the format from the first bytes; None until enough bytes are there."""
    if head[:4] in (b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff"):
        return Sniffed("utf16", reason="UTF-32")
    if head[:2] == b"\xff\xfe" and len(head) < 4 and not final:
        return None  # UTF-16 or UTF-32: the next bytes tell
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or _utf16_ascii(head[:4]):
        return Sniffed("utf16", reason="UTF-16")
    if len(head) < 4 and b"\x00" in head and not final:
        return None
    n = len(head)
    pos = 0
    while pos < n:  # whitespace, and byte order marks in it (the prolog reports them)
        if head[pos] in b" \t\r\n":
            pos += 1
        elif head.startswith(BOM, pos):
            pos += 3
        else:
            break
    if pos >= n:
        if final or n > SNIFF_WINDOW:
            return Sniffed("empty" if final else "unknown", reason="only whitespace")
        return None
    if head[pos] == 0x3C:  # '<'
        if n - pos < 16 and not final:
            return None
        lower = head[pos : pos + 16].lower()
        if lower.startswith(b"<!doctype html") or lower.startswith(b"<html"):
            return Sniffed("html")
        return Sniffed("xml")
    newline = head.find(b"\n", pos)
    if newline < 0 and not final and n < SNIFF_WINDOW:
        return None
    first = head[pos : newline if newline >= 0 else n]
    if _URL_LINE.match(first):
        return Sniffed("text")
    if not final and n < SNIFF_WINDOW:
        return None
    found = _XML_START.search(head, pos, SNIFF_WINDOW)
    if found is not None:
        return Sniffed("xml", skip=found.start(), reason="text before the XML")
    if b"\x00" in head[:SNIFF_WINDOW]:
        return Sniffed("unknown", reason="binary data")
    if _WORD_LINE.fullmatch(first):
        try:
            first.decode("utf-8")
        except UnicodeDecodeError:
            return Sniffed("unknown", reason="neither XML nor text")
        return Sniffed("text")
    return Sniffed("unknown", reason="neither XML nor a list of URLs")


def _utf16_ascii(head: bytes) -> bool:
    """True when ``head`` (4 bytes) is two ASCII characters in UTF-16 without a byte order
    mark ('<?' of a declaration, 'ht' of a text sitemap's URL, either byte order)."""
    if len(head) < 4:
        return False
    if head[1] == head[3] == 0:
        return 0x20 < head[0] < 0x7F and 0x20 < head[2] < 0x7F
    return head[0] == head[2] == 0 and 0x20 < head[1] < 0x7F and 0x20 < head[3] < 0x7F


_DECL_ENCODING = lazy(r"""(<\?xml[^>]*?)[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*["'][^"']*["']""")


class WideToUtf8:
    """Re-encodes a UTF-16 or UTF-32 (``encoding``) document as UTF-8 (dropping its encoding
    declaration)."""

    def __init__(self, encoding: str = "UTF-16") -> None:
        self.encoding = encoding
        self._decoder: codecs.IncrementalDecoder | None = None
        self._head = b""
        self._first = True
        self._pending = ""
        self.errors = 0

    def feed(self, data: bytes, final: bool = False) -> bytes:
        if self._decoder is None:
            self._head += data
            if len(self._head) < 4 and not final:
                return b""
            head = self._head
            if self.encoding == "UTF-32":
                name = "utf-32"  # its byte order mark says which
            elif head[:2] in (b"\xff\xfe", b"\xfe\xff"):
                name = "utf-16"
            elif head[:1] == b"\x00":
                name = "utf-16-be"
            else:
                name = "utf-16-le"
            self._decoder = codecs.getincrementaldecoder(name)("replace")
            data = head
            self._head = b""
        text = self._decoder.decode(data, final)
        self.errors += text.count("\ufffd")
        if self._first:
            text = (self._pending + text).lstrip("\ufeff")
            if "?>" in text or len(text) > 200 or final:
                text = _DECL_ENCODING.sub(r"\1", text, count=1)
                self._first = False
                self._pending = ""
            else:
                self._pending = text
                return b""
        return text.encode("utf-8")

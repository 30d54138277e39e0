"""Byte-level stages of the reader: gzip by magic bytes, and format detection by content.

Neither file names nor content types decide anything here: a ``.xml`` file may be gzipped,
a ``.gz`` file may already be plain (a server's Content-Encoding decoded it), a ``.txt`` may be
XML. Only the bytes count.
"""

from __future__ import annotations

import codecs
import re
import zlib
from collections.abc import Iterator
from typing import NamedTuple

GZIP_MAGIC = b"\x1f\x8b"
BOM = b"\xef\xbb\xbf"
# decompressed output is produced in pieces of at most this size, so that a gzip bomb is
# stopped by the size limit after one piece, never after inflating everything
GZIP_PIECE = 262_144
SNIFF_WINDOW = 65_536
# compressed bytes between two copies of the gzip decoder's state (see Gunzip)
CHECKPOINT = 65_536


class GzipError(Exception):
    """The gzip stream is corrupt; ``code`` is the issue code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class Gunzip:
    """Incremental gzip decoder (multi-member streams too) with bounded output pieces.

    Damage gives the same output however the stream is chunked: zlib drops the output of
    the call that finds it, so the decoder keeps a copy of its state every CHECKPOINT
    compressed bytes and, on an error, decodes again from there up to the damaged byte
    (``_salvage``): the output before the damage, then GzipError.
    """

    def __init__(self) -> None:
        self._d = zlib.decompressobj(31)
        self._tail = b""
        self._started = False
        self.trailing = False
        self._checkpoint()

    def _checkpoint(self) -> None:
        # the decoder as it is now, the compressed bytes it consumed since, the output since
        self._mark = self._d.copy()
        self._since = bytearray()
        self._given = 0

    def feed(self, data: bytes) -> Iterator[bytes]:
        if self._tail:
            data = self._tail + data
            self._tail = b""
        while data:
            d = self._d
            if d.eof:
                if len(data) < 2 and data == GZIP_MAGIC[: len(data)]:
                    self._tail = data
                    return
                if data[:2] != GZIP_MAGIC:
                    # bytes after the last member: zero padding is common and harmless
                    if data.strip(b"\x00"):
                        self.trailing = True
                    return
                self._d = d = zlib.decompressobj(31)
                self._checkpoint()
            self._started = True
            try:
                piece = d.decompress(data, GZIP_PIECE)
            except zlib.error as exc:
                piece = self._salvage(data)
                if piece:
                    yield piece
                raise GzipError("gzip-corrupt", f"gzip data is corrupt: {exc}") from None
            rest = d.unused_data if d.eof else d.unconsumed_tail
            self._since += data[: len(data) - len(rest)]
            self._given += len(piece)
            if len(self._since) >= CHECKPOINT:
                self._checkpoint()
            if piece:
                yield piece
            data = rest

    def _salvage(self, data: bytes) -> bytes:
        """The output before the damage that made the decoder fail on ``data``, past what
        was given already: the bytes since the checkpoint decoded again, a block and then a
        byte at a time, up to the byte zlib refuses."""
        d = self._mark.copy()
        todo = bytes(self._since) + data
        skip = self._given
        out = bytearray()
        pos = 0
        step = 4096
        while pos < len(todo) and len(out) <= GZIP_PIECE and not d.eof:
            trial = d.copy()
            try:
                got = trial.decompress(todo[pos : pos + step])
            except zlib.error:
                if step == 1:
                    break
                step = 1  # the damage is in this block: go on a byte at a time
                continue
            d = trial
            pos += step
            if skip:
                cut = min(skip, len(got))
                skip -= cut
                got = got[cut:]
            out += got
        return bytes(out[:GZIP_PIECE])

    @property
    def complete(self) -> bool:
        return self._d.eof and not self._tail


class Sniffed(NamedTuple):
    kind: str  # "xml" | "text" | "html" | "unknown" | "empty" | "utf16"
    skip: int = 0  # bytes of junk before the XML to skip
    reason: str = ""


_URL_LINE = re.compile(rb"[ \t]*https?://", re.I)
_XML_START = re.compile(
    rb"<\?xml[ \t\r\n]|<(?:[A-Za-z_][\w.\-]*:)?(?:urlset|sitemapindex|rss|feed|RDF)[ \t\r\n>/]"
)
_WORD_LINE = re.compile(rb"[ \t]*[^\s<>\x00]+[ \t\r]*")


def sniff(head: bytes, final: bool) -> Sniffed | None:
    """Decide the format from the first bytes; None until enough bytes are there."""
    if head[:2] in (b"\xff\xfe", b"\xfe\xff") or head[:4] in (
        b"<\x00?\x00",
        b"\x00<\x00?",
    ):
        return Sniffed("utf16")
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


_DECL_ENCODING = re.compile(
    r"""(<\?xml[^>]*?)[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*["'][^"']*["']"""
)


class Utf16ToUtf8:
    """Re-encodes a UTF-16 document as UTF-8 (dropping its encoding declaration)."""

    def __init__(self) -> None:
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
            if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
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

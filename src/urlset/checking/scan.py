"""One streaming pass over a document's bytes, beside the reader's: what the checker needs
to know of the bytes as written, a window at a time, the document never held whole.

``Tee`` hands the reader the stored chunks and gives ``Scan`` the same bytes decompressed
(and a UTF-16 document converted to UTF-8, as the reader reads it). ``Scan`` keeps the
sizes, the line count (while the document may be a text sitemap) and the head of the
document. When the reader's fast lane did not
prove the document plain, ``Provers`` reads it again (``pieces``) on windows cut right
after an entry's end tag (``</url>``, ``</sitemap>``: no pattern spans one): each loc text
judged as written (``raw_text.LocTexts``), and unless the reader proved it, the protocol's
elements in the protocol's order (``structure.StructureProver``). A structure they cannot
prove is read again whole by the lxml walk (``whole``); the positions of findings are
found a window at a time (``windows.windows_of``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import cast

from .._core import newlines
from ..limits import Limits
from ..reading.sniff import GZIP_MAGIC, Gunzip, GzipError, WideToUtf8, sniff
from .findings import Findings
from .raw_text import LocTexts
from .source import Source, plain_chunks
from .structure import StructureProver
from .windows import windows_of

# windows of about this many bytes; without an entry's end tag in this many, the provers give
# up (the slow scans decide) and the pass only counts
WINDOW = 1 << 22
MAX_WINDOW = 1 << 26
_HEAD = 1 << 16
_ENDS = (b"</url>", b"</sitemap>")


class Scan:
    """What one pass learns of the bytes; ``feed`` the decompressed pieces, then ``finish``."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.size = 0  # decompressed bytes, before any UTF-16 conversion
        self.length = 0  # bytes as the scans see them (UTF-8)
        self.newlines = 0
        self.lone_crs = 0  # CRs that end a line alone (a text file's line ends, as LFs)
        self.last = b""
        self.head = b""  # the first bytes as the scans see them
        self.utf16 = False  # UTF-16 or UTF-32 (`wide` says which), converted to UTF-8
        self.wide = "UTF-16"
        self.blank = True  # nothing but whitespace so far
        self._undecided = bytearray()
        self._decided = False
        self._convert: WideToUtf8 | None = None
        # whether the line counts are still wanted (only a text sitemap's lines are counted
        # against a limit): asked a piece at a time, so that an XML document's are not
        self.lines_wanted: Callable[[], bool] = lambda: True

    def feed(self, piece: bytes) -> None:
        if not piece:
            return
        self.size += len(piece)
        if not self._decided:
            self._undecided += piece
            if len(self._undecided) >= 4096:
                self._decide(False)
            return
        self._utf8(piece if self._convert is None else self._convert.feed(piece))

    def finish(self) -> None:
        if not self._decided:
            self._decide(True)
        elif self._convert is not None:
            self._utf8(self._convert.feed(b"", final=True))

    def _decide(self, final: bool) -> None:
        """UTF-16 or not, judged on the first 4 KB as ``check_document`` always did."""
        self._decided = True
        held, self._undecided = bytes(self._undecided), bytearray()
        sniffed = sniff(held[:4096], True)
        if sniffed is not None and sniffed.kind == "utf16":
            self.utf16 = True
            self.wide = sniffed.reason  # UTF-16 or UTF-32
            self._convert = WideToUtf8(self.wide)
            self._utf8(self._convert.feed(held, final=final))
        else:
            self._utf8(held)

    def _utf8(self, data: bytes) -> None:
        if not data:
            return
        self.length += len(data)
        if self.lines_wanted():
            self.newlines += newlines(data)
            if b"\r" in data or self.last == b"\r":
                # a CR LF split between two pieces was counted a lone CR in the first
                self.lone_crs += (
                    data.count(b"\r")
                    - data.count(b"\r\n")
                    - (self.last == b"\r" and data[:1] == b"\n")
                )
        self.last = data[-1:]
        if self.blank and data.strip():
            self.blank = False
        if len(self.head) < _HEAD:
            self.head += data[: _HEAD - len(self.head)]


class Provers:
    """One pass over the document's windows, cut right after an entry's end tag
    (``windows.windows_of``): the loc texts judged as written (``raw_text.LocTexts``, its
    findings to ``found``), and unless the reader proved it already (``structure=False``),
    the protocol's elements proven in the protocol's order. Run only when the reader's fast
    lane did not prove the document plain. Past ``max_window`` bytes without an entry's end
    tag the structure is not proven (the lxml walk decides); the locs are still judged, in
    a window that grows until an entry ends."""

    def __init__(
        self,
        limits: Limits,
        found: Findings,
        *,
        structure: bool = True,
        window: int = WINDOW,
        max_window: int = MAX_WINDOW,
    ) -> None:
        self.window = window
        self.max_window = max_window
        self.locs = LocTexts(limits, found)
        self.structure: StructureProver | None = StructureProver() if structure else None

    @property
    def locs_plain(self) -> bool:
        """Whether no loc text was worth a closer look."""
        return not self.locs.flagged

    def run(self, pieces: Callable[[], Iterable[bytes]]) -> Provers:
        structure = self.structure
        for base, window in windows_of(pieces, False, self.window, _ENDS)():
            self.locs.window(base, window)
            if structure is not None:
                if len(window) > self.max_window:  # no entry ends in it: the walk decides
                    structure.give_up()
                structure.feed(window)
        return self


class Tee:
    """The stored chunks for the reader; each also decompressed into ``scan``. An iterator
    with no ``close``: when the reader stops early, ``finish`` scans the rest."""

    def __init__(self, source: Source, scan: Scan, cap: int) -> None:
        self._chunks = iter(source)
        self._scan = scan
        self._cap = cap
        self._gzip: Gunzip | None = None
        self._first = True
        self._plain = 0
        self._stopped = False

    def __iter__(self) -> Tee:
        return self

    def __next__(self) -> bytes:
        chunk = next(self._chunks)
        self._take(chunk)
        return chunk

    def finish(self) -> Scan:
        for chunk in self._chunks:
            self._take(chunk)
        self._scan.finish()
        return self._scan

    def _take(self, chunk: bytes) -> None:
        if self._first:
            self._first = False
            if chunk[:2] == GZIP_MAGIC:
                self._gzip = Gunzip()
        if self._stopped:
            return
        if self._gzip is None:
            self._scan.feed(chunk)
            return
        try:
            for piece in self._gzip.feed(chunk):
                self._plain += len(piece)
                if self._plain > self._cap:  # at most cap + 1, as the reader stops there
                    self._scan.feed(piece[: len(piece) - (self._plain - self._cap - 1)])
                    self._stopped = True
                    return
                self._scan.feed(piece)
        except GzipError:
            self._stopped = True  # what came before the damage is the document


def whole(source: Source, scan: Scan, cap: int, entry_ends: tuple[bytes, ...] = ()) -> bytes:
    """The document as the slow scans read it (UTF-8), read again from ``source``."""
    out = bytearray()
    for piece in pieces(source, scan, cap, entry_ends):
        out += piece
    # a bytearray is read as bytes by every scan: converting would hold the document twice
    return cast(bytes, out)


def pieces(
    source: Source, scan: Scan, cap: int, entry_ends: tuple[bytes, ...] = ()
) -> Iterator[bytes]:
    """The document as the slow scans read it (UTF-8), a piece at a time (``plain_chunks``)."""
    convert = WideToUtf8(scan.wide) if scan.utf16 else None
    for piece in plain_chunks(source, cap, () if scan.utf16 else entry_ends):
        yield piece if convert is None else convert.feed(piece)
    if convert is not None:
        yield convert.feed(b"", final=True)

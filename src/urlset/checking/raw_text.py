"""The text as written, scanned in the bytes: what the reader's parsed values no longer show.

``LocTexts`` judges each loc's text (escaping, ASCII, length) as written, a window of an
XML document at a time; ``text_lines`` and ``text_with_header`` judge the lines of a text
sitemap. They give their findings to a ``Findings``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from functools import cache
from itertools import islice

from .._core import LOC_JUDGE, LOC_TOO_LONG, loc_texts, newlines, odd_text_lines
from ..extensions import PREFIXES
from ..limits import Limits
from ..model import SITEMAP_NS
from ..patterns import lazy
from ..reading.xml_prolog import plain_prefixes
from . import rules
from .findings import Findings
from .lines import Lines

# --- loc text as written ----------------------------------------------------------------------

_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}
_ENTITY = lazy(r"&(?:amp|lt|gt|quot|apos);")


class LocTexts:
    """The findings on the loc texts as written, with their positions, judged a window at a
    time (``window``: windows that never split an element's text, in document order). The
    compiled core (``_core.loc_texts``) finds every text of an element named loc (prefixed
    or not: image:loc too; not of a prefix the root declares for another namespace,
    ``<other:loc>``) and flags those with a byte worth a closer look (beyond ``&amp;``
    and ``&apos;``) or over the length limit; of those, it judges an IRI's (too long)
    itself, so that past the cap of its code they are only counted, a window at a time, and
    leaves any other to ``_loc_text``. That an IRI is no URI is the reader's finding
    (``normalized-url``, the URI it made named), passed on as it is: one truth for read and
    check. ``flagged`` counts the texts it flagged."""

    def __init__(self, limits: Limits, found: Findings) -> None:
        self.limits = limits
        self.found = found
        self.lines = Lines()
        self.flagged = 0
        self.foreign: list[bytes] | None = None  # read from the first window's root tag

    def window(self, base: int, window: bytes) -> None:
        lines, found, limits = self.lines, self.found, self.limits
        lines.enter(base, window)
        if self.foreign is None:
            self.foreign = _foreign_prefixes(window)
        columns, newlines, last = loc_texts(
            window, limits.max_loc_length, lines.lines, lines.carry, self.foreign
        )
        lines.past(newlines, last)  # the window's lines are counted
        flags = columns[4]
        if not flags:
            return
        self.flagged += len(flags)
        if not flags.translate(None, _READ_ONLY):
            return  # IRIs, no more: the reader's normalized-url says what they were read as
        starts, ends, rows, places = (memoryview(c).cast("Q") for c in columns[:4])
        rest = bytearray(flags)
        for k in self._listed(flags, rows):
            _loc_text(window[starts[k] : ends[k]], rows[k], places[k], limits, found)
            rest[k] = 0
        # the others, as ``_loc_text`` would find them past the caps: counted only
        for bit, code in _JUDGED:
            found.count(code, sum(map(rest.count, _WITH[bit])))

    def _listed(self, flags: bytes, rows: memoryview) -> list[int]:
        """Which flagged texts go to ``_loc_text``: any the core did not judge, of those it
        judged the first a code's room may still list (the core's verdicts are the rules',
        so each of them lists one finding of its code: the ones after it would be counted
        only; the caps are checked again there), any on a line a reader issue is watched
        at."""
        room = self.found.room
        listed = {m.start() for m in _any_of(_JUDGE).finditer(flags)}
        for bit, code in _JUDGED:
            if room(code):
                listed.update(
                    m.start() for m in islice(_any_of(_WITH[bit]).finditer(flags), room(code))
                )
        watch = self.found.watch
        if watch and not watch.isdisjoint(rows):
            listed.update(k for k, row in enumerate(rows) if row in watch)
        return sorted(listed)


# a sitemap's root start tag, its attributes (group 1)
_ROOT_TAG = lazy(rb"<(?:[A-Za-z_][\w.-]*:)?(?:urlset|sitemapindex)(\s[^>]*)?>")
# the namespaces whose elements named loc (or *_loc) hold URLs a search engine reads
_LOC_NAMESPACES = frozenset(
    (SITEMAP_NS, *(uri for uri, name in PREFIXES.items() if name in ("image", "video")))
)


def _foreign_prefixes(head: bytes) -> list[bytes]:
    """The prefixes the root start tag in ``head`` declares for other namespaces: their
    ``<other:loc>`` is no URL the reader reads, so no loc text to judge. None are known when
    the tag is not plain (``plain_prefixes``): then every element named loc is judged."""
    m = _ROOT_TAG.search(head)
    declared = plain_prefixes(m.group(1) or b"") if m else None
    return [p.encode() for p, uri in (declared or {}).items() if uri not in _LOC_NAMESPACES]


# the verdicts the core gives (a bit of the flags each) and the codes they are; its other
# verdict, an IRI's (non-ASCII), is the reader's normalized-url (with the URI it made)
_JUDGED = ((LOC_TOO_LONG, "url-too-long"),)
# the flags of a text the reader judges alone (an IRI, not too long)
_READ_ONLY = bytes(v for v in range(1, 8) if not v & (LOC_TOO_LONG | LOC_JUDGE))
_WITH = {bit: bytes(v for v in range(1, 8) if v & bit and not v & LOC_JUDGE) for bit, _ in _JUDGED}
_JUDGE = bytes(v for v in range(1, 8) if v & LOC_JUDGE)


@cache
def _any_of(values: bytes) -> re.Pattern[bytes]:
    return re.compile(b"[" + re.escape(values) + b"]")


def _loc_text(raw: bytes, line: int, column: int, limits: Limits, found: Findings) -> None:
    """The rules on one loc text as written, found at ``line``, ``column``."""
    text = raw.decode("utf-8", "replace")
    stripped = text.strip()
    if not stripped:
        return
    message = rules.unescaped_ampersand(text)
    if message is not None:
        found.add("unescaped-ampersand", message, line, column)
    message = rules.url_not_escaped(_ENTITY.sub(lambda e: _ENTITIES[e.group()], text))
    if message is not None:
        found.add("url-not-escaped", message, line, column)
    message = rules.url_too_long(_ENTITY.sub(lambda e: _ENTITIES[e.group()], stripped), limits)
    if message is not None:
        found.add("url-too-long", message, line, column)


# --- text sitemaps ---------------------------------------------------------------------------


# a CR that ends a line by itself (old Mac files): a line end, as the reader takes it
_LONE_CR = lazy(rb"\r(?!\n)")


def lone_cr_as_lf(pieces: Iterable[bytes]) -> Iterator[bytes]:
    """A text file's pieces with each CR that ends a line alone made a LF: the reader ends a
    text line at LF, CR LF or a CR alone (``reading/text.py``), and check's line scans
    (lines, entry places, columns) count LFs, so that their lines are the reader's. The
    bytes keep their offsets (one byte for one; a CR at a piece's end waits for the next)."""
    held = b""
    for piece in pieces:
        data = held + piece if held else piece
        held = b""
        if data.endswith(b"\r"):  # the LF of a CR LF may start the next piece
            data, held = data[:-1], b"\r"
        if b"\r" in data:
            data = _LONE_CR.sub(b"\n", data)
        if data:
            yield data
    if held:
        yield b"\n"


def text_lines(pieces: Iterable[bytes], found: Findings) -> None:
    """The findings on the lines of a text sitemap, read a piece at a time (no more than a
    line held): each non-blank line a URL, or a header line at either end (the first and
    the last non-blank lines, when there are more than two). A line that is an absolute
    http(s) URL of printable ASCII without a character a URI never holds is quiet (no rule
    finds anything on it, at an edge or not) and is only counted: the others (found by the
    core in one pass a piece, ``odd_text_lines``) are judged once the last non-blank line is
    known."""
    lines = _Lines()
    for piece in pieces:
        lines.read(piece)
    lines.read(b"", final=True)
    edges = (lines.first, lines.last) if lines.count > 2 else ()
    for n, line in lines.odd:
        _text_line(n, line, n in edges, found)


class _Lines:
    """``text_lines``' reading: the count of non-blank lines, the first and the last of them,
    and the lines that are not quiet with their numbers (decoded as ``_lines`` decodes them),
    lines numbered as ``_lines`` numbers them."""

    def __init__(self) -> None:
        self.rest = b""  # the start of a line the next piece ends
        self.n = 0  # lines read so far
        self.count = 0  # non-blank lines
        self.first = self.last = 0  # the first and last non-blank lines
        self.odd: list[tuple[int, str]] = []

    def read(self, piece: bytes, final: bool = False) -> None:
        """The whole lines of ``piece`` after what came before (``final``: the last line,
        the text's rest, even when empty)."""
        data = self.rest + piece if self.rest else piece
        cut = len(data) if final else data.rfind(b"\n")
        if cut < 0:
            self.rest = data
            return
        chunk, self.rest = data[:cut], data[cut + 1 :]
        base = self.n
        odd: list[int] = []  # numbers of the lines found odd, blank or not
        for number, start, end in odd_text_lines(chunk):
            n = base + 1 + number
            odd.append(n)
            line = _decoded(chunk[start:end], n)
            if line.strip():
                self.count += 1
                self.first = self.first or n
                self.last = n
                self.odd.append((n, line))
        self.n = base + newlines(chunk) + 1
        quiet = self.n - base - len(odd)
        if not quiet:
            return
        self.count += quiet
        numbers = set(odd)
        first = base + 1
        while first in numbers:
            first += 1
        last = self.n
        while last in numbers:
            last -= 1
        self.first = min(self.first, first) if self.first > base else self.first or first
        self.last = max(self.last, last)


def _lines(pieces: Iterable[bytes]) -> Iterator[tuple[int, str]]:
    """(number, text) of each line, decoded as the whole text would be (a byte order mark
    dropped)."""
    n = 0
    rest = b""
    for piece in pieces:
        data = rest + piece if rest else piece
        start = 0
        while (nl := data.find(b"\n", start)) >= 0:
            n += 1
            yield n, _decoded(data[start:nl], n)
            start = nl + 1
        rest = data[start:]
    yield n + 1, _decoded(rest, n + 1)


def _decoded(line: bytes, n: int) -> str:
    text = line.decode("utf-8", "replace")
    return text[1:] if n == 1 and text.startswith("\ufeff") else text


def _text_line(n: int, line: str, edge: bool, found: Findings) -> None:
    if _absolute(line):
        # a URL as written: spaces and characters a URI never holds
        message = rules.url_not_escaped(line)
        if message is not None:
            found.add("url-not-escaped", message, n, 1)
        # its other forms (an IRI): the reader's normalized-url, which check passes on
        return
    if edge:
        message = rules.text_header_line(line)
        if message is not None:
            found.add("text-header-line", message, n, 1)
            return
    message = rules.text_not_url(line)
    if message is not None:
        found.add("text-not-url", message, n, 1)


_LONGEST_LINE = 1 << 20


def text_with_header(pieces: Iterable[bytes], found: Findings) -> None:
    """The reader takes a text sitemap only when its first line is a URL: name the header
    lines of a file whose other lines are URLs. Read a piece at a time, a line at most
    ``_LONGEST_LINE`` long (a longer one makes it no list of URLs): a binary file of
    hundreds of megabytes is never held whole, nor decoded whole."""
    numbered: list[tuple[int, str]] = []  # the non-blank lines up to the first URL
    first_url: int | None = None
    carry = b""
    n = 0
    for piece in pieces:
        lines = (carry + piece).split(b"\n") if carry else piece.split(b"\n")
        carry = lines.pop()
        if len(carry) > _LONGEST_LINE:
            return
        for raw in lines:
            n += 1
            verdict = _header_line(raw, n, numbered, first_url is not None)
            if verdict is False:
                return
            if verdict is True and first_url is None:
                first_url = len(numbered) - 1
                if first_url == 0 or first_url > 5:
                    return
    if carry and _header_line(carry, n + 1, numbered, first_url is not None) is False:
        return
    if first_url is None:  # the last line, without a line feed, may be the first URL
        first_url = next((k for k, (_, line) in enumerate(numbered) if _absolute(line)), None)
    if first_url is None or first_url == 0 or first_url > 5:
        return
    for line_number, line in numbered[:first_url]:
        message = rules.text_header_line(line)
        if message is not None:
            found.add("text-header-line", message, line_number, 1)


def _header_line(
    raw: bytes, n: int, numbered: list[tuple[int, str]], after_url: bool
) -> bool | None:
    """One line (``n``) of ``text_with_header``: False when the file is no list of URLs
    with a header (not UTF-8, a line after the first URL that is not one, no URL in the
    first lines); True for the first URL; None to read on."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    if not line.strip():
        return None
    absolute = _absolute(line)
    if after_url:
        return None if absolute else False
    numbered.append((n, line))
    if absolute:
        return True
    return False if len(numbered) > 6 else None


def _absolute(line: str) -> bool:
    return line.strip().lower().startswith(("http://", "https://"))

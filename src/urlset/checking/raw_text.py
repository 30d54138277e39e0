"""The text as written, scanned in the bytes: what the reader's parsed values no longer show.

``plain_locs`` proves a window of an XML document's bytes holds only plain loc texts;
``raw_locs`` takes the document's bytes and judges each loc's text (escaping, ASCII,
length) as written; ``text_lines`` and ``text_with_header`` judge the lines of a text
sitemap. They give their findings to a ``Findings``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from ..limits import Limits
from ..patterns import lazy
from . import rules
from .findings import Findings

# --- loc text as written ----------------------------------------------------------------------

# any element named loc, prefixed or not (image:loc, video:content_loc too): its text
_LOC_TEXT = lazy(rb"loc>([^<]*)</")
_SUSPECT = lazy(rb"[\x00-\x20\x7f-\xff&`^{}|\\\"]")
_URI_BYTES = bytes(b for b in range(0x21, 0x7F) if b not in b'&`^{}|\\"')  # not _SUSPECT
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}
_ENTITY = lazy(r"&(?:amp|lt|gt|quot|apos);")


# the locs are first looked at in windows of about this many bytes (memory stays bounded)
_WINDOW = 1 << 22


def plain_locs(plain: bytes, limits: Limits) -> bool:
    """True when every loc text is plain as written (no byte worth a closer look, no
    length over the limit), judged a window at a time."""
    start = 0
    size = len(plain)
    while start < size:
        end = plain.find(b"</", min(start + _WINDOW, size))
        end = size if end < 0 else end + 2
        texts = _LOC_TEXT.findall(plain, start, end)
        start = end
        if not texts:
            continue
        if max(map(len, texts)) > limits.max_loc_length:
            return False
        joined = b"".join(texts)
        odd = joined.translate(None, _URI_BYTES)  # what is left is worth a closer look
        if odd and (odd.strip(b"&") != b"" or len(odd) != _plain_entities(joined)):
            return False
    return True


def _plain_entities(text: bytes) -> int:
    """How many entities in ``text`` stand for a character a URI holds as it is: & and '
    (which build writes as &apos;, the protocol's escaping)."""
    return text.count(b"&amp;") + text.count(b"&apos;")


def raw_locs(
    windows: Callable[[], Iterable[tuple[int, bytes]]], limits: Limits, found: Findings
) -> None:
    """The findings on the loc texts as written, with their positions (the scan's
    ``plain_locs`` proves most documents need none), read a window at a time (``windows``:
    (offset, bytes) pieces that never split an element's text); only the texts with a byte
    worth a closer look (``_SUSPECT``) or over the length limit are judged."""
    longest = limits.max_loc_length
    lines = 1  # lines before the window
    last_nl = -1  # offset of the last line end before the window
    for base, window in windows():
        line, last = lines, 0
        for m in _LOC_TEXT.finditer(window):
            raw = m.group(1)
            if len(raw) <= longest and (
                not raw.translate(None, _URI_BYTES)  # a byte at C speed, mostly
                or not _SUSPECT.search(raw.replace(b"&amp;", b"").replace(b"&apos;", b""))
            ):
                continue
            start = m.start(1)
            line += window.count(b"\n", last, start)
            last = start
            nl = window.rfind(b"\n", 0, start)
            column = start - nl if nl >= 0 else base + start - last_nl
            _loc_text(raw, line, column, limits, found)
        lines += window.count(b"\n")
        nl = window.rfind(b"\n")
        if nl >= 0:
            last_nl = base + nl


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
    message = rules.url_not_ascii(text)
    if message is not None:
        found.add("normalized-url", message, line, column)
    message = rules.url_too_long(_ENTITY.sub(lambda e: _ENTITIES[e.group()], stripped), limits)
    if message is not None:
        found.add("url-too-long", message, line, column)


# --- text sitemaps ---------------------------------------------------------------------------


def text_lines(pieces: Iterable[bytes], found: Findings) -> None:
    """The findings on the lines of a text sitemap, read a piece at a time (no more than a
    line held): each non-blank line a URL, or a header line at either end."""
    first = 0  # the first non-blank line
    count = 0
    held: list[tuple[int, str]] = []  # non-blank lines not yet known to be the last or not
    for n, line in _lines(pieces):
        if not line.strip():
            continue
        count += 1
        if count == 1:
            first = n
        held.append((n, line))
        if count >= 3:  # more than two lines: the first is an edge; the newest may be one
            while len(held) > 1:
                m, text = held.pop(0)
                _text_line(m, text, m == first, found)
    for m, text in held:  # the last line is an edge when there are more than two
        _text_line(m, text, count > 2, found)


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
        message = rules.url_not_ascii(line)
        if message is not None:
            found.add("normalized-url", message, n, 1)
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

"""Where the entries a rule flagged are in the bytes (line and column).

The reader gives entries no position; ``place_entries`` takes the pending findings (code,
message, loc) and gives ``Issue`` objects placed at their entry's loc (or the value they are
about), found by its text in the bytes, a window at a time (``windows_of``: the document is
never held for this). A loc not written as its URI (an IRI, a relative loc) is found at
its entry, by the number the rules gave it, its text made a URI to be sure; else among
every loc text (``_LocTexts``); else (CDATA, a prefixed element, RSS, Atom) by one lxml
pass over the whole document (``_Locator``). ``place_values`` fills in the column of the reader's value
findings, also a window at a time. ``index_lines.lines_of_refs`` gives the line of each child
entry of an index (``_Locator`` when a pass over the bytes cannot vouch for them).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable

from .._core import ElementTexts
from ..errors import InvalidValue
from ..model import Issue
from ..patterns import lazy
from ..reading.columns import VALUE_ELEMENT, LineSearch, value_needles
from ..urls import is_plain_uri, to_uri
from . import rules
from .lines import Lines
from .progress import Found, Progress
from .windows import Windows
from .xmlevents import drop, parse_events, split_tag


def _entry_locs(plain: bytes, fmt: str | None) -> list[tuple[int, str]]:
    """(line, text) of every entry's loc (RSS link, Atom link href), in document order."""
    if fmt == "text":
        text = plain.decode("utf-8", "replace")
        return [(n, s.strip()) for n, s in enumerate(text.split("\n"), 1) if s.strip()]
    out: list[tuple[int, str]] = []
    stack: list[str] = []
    for action, el in parse_events(plain):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        local = split_tag(tag)[1]
        if action == "start":
            stack.append(local)
            continue
        if stack:
            stack.pop()
        parent = stack[-1] if stack else ""
        if (local == "loc" and parent in ("url", "sitemap")) or (
            local == "link" and parent == "item"
        ):
            out.append((el.sourceline or 0, (el.text or "").strip()))
        elif local == "link" and parent == "entry":
            out.append((el.sourceline or 0, (el.get("href") or "").strip()))
        if stack and local in ("url", "sitemap", "item", "entry"):
            drop(el)
    return out


class _Locator:
    def __init__(self, plain: bytes, fmt: str | None, base_url: str | None) -> None:
        self.plain = plain
        self.locs = _entry_locs(plain, fmt)
        self.base_url = base_url
        self.by_text: dict[str, list[int]] = {}
        for line, text in self.locs:
            self.by_text.setdefault(text, []).append(line)
        self.by_uri: dict[str, list[int]] | None = None
        self.used: dict[str, int] = {}
        self._lines: list[bytes] | None = None

    def _uri(self, text: str) -> str | None:
        return _uri_of(text, self.base_url)

    def line_of(self, loc: str) -> int:
        lines = self.by_text.get(loc)
        if lines is None:
            if self.by_uri is None:
                self.by_uri = {}
                for line, text in self.locs:
                    uri = self._uri(text)
                    if uri is not None:
                        self.by_uri.setdefault(uri, []).append(line)
            lines = self.by_uri.get(loc)
            if lines is None:
                return 0
        k = self.used.get(loc, 0)
        self.used[loc] = k + 1
        return lines[min(k, len(lines) - 1)]

    def column_of(self, line: int, loc: str) -> int:
        if not line:
            return 0
        if self._lines is None:
            self._lines = self.plain.split(b"\n")
        if line > len(self._lines):
            return 0
        raw = self._lines[line - 1]
        for needle in (loc.encode("utf-8"), loc.replace("&", "&amp;").encode("utf-8"), b"loc>"):
            at = raw.find(needle)
            if at >= 0:
                return at + 1 + (4 if needle == b"loc>" else 0)
        return 0


def place_entries(
    windows: Windows,
    fmt: str | None,
    pending: list[tuple[str, str, str, bool, int]],
    source: str,
    base_url: str | None,
    plain: Callable[[], bytes],
    entries: int | None = None,
) -> list[Issue]:
    """Issues for entry findings, placed at the loc's text as written (or escaped): each
    found in document order after the last one, the same finding on the same loc again at
    that loc's next occurrence. Two passes over ``windows`` (where each loc is written,
    then the lines and columns). A loc not written as its URI is looked for at its entry
    (the number the rules gave it), else among every loc text (``_LocTexts``), else by the
    lxml locator on the whole document (``plain``). ``entries``: how many the reader passed
    on when it passed on every entry of the document (``SitemapReader.plain_structure``):
    the entry numbered n is the document's nth, and the first pass ends with the last
    finding's entry."""
    text = fmt == "text"
    raws = [loc.encode("utf-8") for _code, _message, loc, _ordered, _entry in pending]
    needles = set(raws)
    if not text:
        needles.update(raw.replace(b"&", b"&amp;") for raw in raws if b"&" in raw)
    placed = _placing(pending, raws, fmt, entries)
    occurrences = _occurrences(windows, needles, fmt, placed)
    pos = 0
    last_at: dict[tuple[str, str], int] = {}
    spots: list[tuple[int, bytes | None]] = []
    for (code, _message, loc, ordered, _entry), raw in zip(pending, raws, strict=True):
        start = pos if ordered else 0
        before = last_at.get((code, loc))
        if before is not None:
            start = max(start, before + 1)
        at = _first_at(occurrences, raw, start, text)
        if at >= 0:
            last_at[(code, loc)] = at
            if ordered:
                pos = at
        name = VALUE_ELEMENT.get(code)
        spots.append((at, None if name == b"loc" else name))
    places = _lines_and_columns(windows, [spot for spot in spots if spot[0] >= 0])
    unwritten = [p for p, spot in zip(pending, spots, strict=True) if spot[0] < 0]
    at_entry = {} if fmt not in _SITEMAPS else _at_entries(windows, fmt, unwritten, base_url)
    others = {p[2] for p in unwritten if p[4] not in at_entry}
    found = _LocTexts(windows, others, base_url) if others and fmt in _SITEMAPS else None
    out = []
    locator: _Locator | None = None
    for (code, message, loc, _ordered, entry), spot in zip(pending, spots, strict=True):
        if spot[0] >= 0:
            where, column = places[spot]
        elif entry in at_entry:
            where, column = at_entry[entry]
        elif found is not None and found.has(loc):
            where, column = found.place_of(loc)
        else:  # not a <loc> text the scan reads (CDATA, a prefixed element, RSS, Atom)
            if locator is None:
                locator = _Locator(plain(), fmt, base_url)
            where = locator.line_of(loc)
            column = locator.column_of(where, loc)
        out.append(rules.make_issue(code, message, where, column, source))
    return out


def _at_entries(
    windows: Windows,
    fmt: str | None,
    unwritten: list[tuple[str, str, str, bool, int]],
    base_url: str | None,
) -> dict[int, tuple[int, int]]:
    """(line, column) of the loc of each numbered entry that holds the loc its finding
    names, its text made a URI (one pass over ``windows``, counting entry start tags; an
    entry the reader dropped shifts the count, and its findings are looked for otherwise)."""
    wanted = {entry: loc for _c, _m, loc, _o, entry in unwritten if entry >= 0}
    todo = sorted(wanted)
    tag, closing = (b"<url>", b"</url>") if fmt == "urlset" else (b"<sitemap>", b"</sitemap>")
    out: dict[int, tuple[int, int]] = {}
    k = 0
    before = 0  # entries before the window
    lines = Lines()
    for base, window in windows():
        if k >= len(todo):
            break
        lines.enter(base, window)
        count = window.count(tag)
        cursor, index = 0, 0  # past the ``index``th start tag found in this window
        while k < len(todo) and todo[k] < before + count:
            entry = todo[k]
            k += 1
            while index <= entry - before:
                at = window.find(tag, cursor)
                cursor, index = at + 1, index + 1
            m = _LOC_ELEMENT.search(window, cursor)
            close = window.find(closing, cursor)
            if m is None or 0 <= close < m.start():  # no loc of its own
                continue
            text = _xml_text(m.group(1))
            loc = wanted[entry]
            if text != loc and _uri_of(text, base_url) != loc:
                continue
            out[entry] = (lines.line_at(m.start()), _column_of(lines, m.start(), loc))
        before += count
    return out


_SITEMAPS = ("urlset", "sitemapindex")
# an unprefixed loc element's text, the offset of its start tag (the element's line)
_LOC_ELEMENT = lazy(rb"<loc>([^<]*)</loc>")
_XML_ENTITY = lazy(r"&(?:#[0-9]+|#x[0-9a-fA-F]+|[a-z]+);")


class _LocTexts:
    """Where the locs not written as their URI are (an IRI, a loc around spaces or with
    entities, a relative one): every ``<loc>`` text read a window at a time, and only a
    text that is not a URI as written made one (``to_uri``), the rest skipped at the cost
    of a set lookup. Places as ``_Locator`` gives them: the loc element's line, the column
    of the loc as written there, else of its text; the same loc again at its next place."""

    def __init__(self, windows: Windows, wanted: set[str], base_url: str | None) -> None:
        self.base_url = base_url
        # a text equal to the loc first (as lxml's text), then one whose URI it is
        self.by_text: dict[str, list[tuple[int, int]]] = {}
        self.by_uri: dict[str, list[tuple[int, int]]] = {}
        self.used: dict[str, int] = {}
        lines = Lines()
        for base, window in windows():
            lines.enter(base, window)
            for m in _LOC_ELEMENT.finditer(window):
                raw = m.group(1)
                if is_plain_uri_bytes(raw):
                    continue  # its own URI, and not wanted: placed by its text already
                text = _xml_text(raw)
                kind = self.by_text if text in wanted else None
                if kind is None:
                    uri = _uri_of(text, base_url)
                    if uri not in wanted:
                        continue
                    text, kind = uri or "", self.by_uri
                start = m.start()
                place = (lines.line_at(start), _column_of(lines, start, text))
                kind.setdefault(text, []).append(place)

    def has(self, loc: str) -> bool:
        return loc in self.by_text or loc in self.by_uri

    def place_of(self, loc: str) -> tuple[int, int]:
        places = self.by_text.get(loc) or self.by_uri[loc]
        k = self.used.get(loc, 0)
        self.used[loc] = k + 1
        return places[min(k, len(places) - 1)]


def is_plain_uri_bytes(raw: bytes) -> bool:
    """``is_plain_uri`` of a loc text as written (its bytes; an entity, a space or a byte
    beyond ASCII is never plain)."""
    return raw.isascii() and b"&" not in raw and is_plain_uri(raw.decode("ascii"))


def _xml_text(raw: bytes) -> str:
    """A loc element's text as the XML parse gives it, stripped as ``_entry_locs`` does."""
    text = raw.decode("utf-8", "replace")
    if "&" in text:
        text = _XML_ENTITY.sub(_entity, text)
    return text.strip()


def _entity(m: re.Match[str]) -> str:
    name = m.group()[1:-1]
    if name[0] == "#":
        code = int(name[2:], 16) if name[1] in "xX" else int(name[1:])
        return chr(code) if 0 < code <= 0x10FFFF else m.group()
    return _NAMED.get(name, m.group())


_NAMED = {"amp": "&", "lt": "<", "gt": ">", "quot": '"', "apos": "'"}


def _uri_of(text: str, base_url: str | None) -> str | None:
    """The URI of a loc's text as the reader makes it (resolved against ``base_url`` when
    relative), or None when it makes none."""
    try:
        return to_uri(text)
    except InvalidValue:
        pass
    if base_url is None:
        return None
    from urllib.parse import urljoin

    try:
        return to_uri(urljoin(base_url, text))
    except (InvalidValue, ValueError):
        return None


def _column_of(lines: Lines, start: int, loc: str) -> int:
    """The column of the loc element starting at ``start`` in the window of ``lines``: of
    the loc as written in its line from there, else escaped, else of the element's text."""
    window = lines.window
    ends = window.find(b"\n", start)
    row = window[start : ends if ends >= 0 else len(window)]
    offset = len(b"<loc>")
    for needle in (loc.encode("utf-8"), loc.replace("&", "&amp;").encode("utf-8")):
        at = row.find(needle)
        if at >= 0:
            offset = at
            break
    return lines.column_at(start) + offset


def place_values(windows: Windows, issues: list[Issue]) -> list[Issue]:
    """``issues`` with the column of their value filled in where they have a line only (the
    reader's value findings: lastmod, changefreq, priority, extension fields): the value's
    first place in its line, found in one pass over ``windows``."""
    wanted: dict[int, list[int]] = {}
    for n, issue in enumerate(issues):
        if issue.line and not issue.column:
            wanted.setdefault(issue.line, []).append(n)
    if not wanted:
        return issues
    out = list(issues)
    lines = sorted(wanted)
    k = 0  # the next line wanted is lines[k]
    line = 1
    searches: list[tuple[int, LineSearch]] = []

    def done() -> None:
        for n, search in searches:
            column = search.column()
            if column:
                out[n] = issues[n]._replace(column=column)
        searches.clear()

    for _base, window in windows():
        start = 0
        size = len(window)
        after = window.count(b"\n")  # the line ends at ``start`` or later: counted once
        while start <= size and (searches or k < len(lines)):
            if not searches and lines[k] == line:
                searches.extend(
                    (n, LineSearch(value_needles(issues[n].code, issues[n].message)))
                    for n in wanted[lines[k]]
                )
                k += 1
            if not searches:  # skip to the line wanted, or to the next window
                left = lines[k] - line
                if after < left:
                    line += after
                    break
                after -= left
                while left:
                    start = window.index(b"\n", start) + 1
                    left -= 1
                line = lines[k]
                continue
            nl = window.find(b"\n", start)
            for _n, search in searches:
                search.feed(window, start, size if nl < 0 else nl)
            if nl < 0:
                break
            done()
            line += 1
            after -= 1
            start = nl + 1
        if k >= len(lines) and not searches:
            break
    done()
    return out


# --- placing a window at a time -----------------------------------------------------------------
#
# ``place_entries`` and ``place_values`` read the document as ``Windows`` (windows.py), so a
# large document with many findings is placed in the memory of a window.

# whether the occurrences so far, the window just read the last, place every finding
Placed = Callable[[Found, bytes], bool] | None
Regex = re.Pattern[bytes]
_TEXT_TOKEN = lazy(rb"(?:(?<=[\n \t])|\A)[^\n\r \t]+")


def _occurrences(
    windows: Windows, needles: set[bytes], fmt: str | None, placed: Placed = None
) -> Found:
    """Offset of every occurrence of each needle written as an element's text (a text
    sitemap: as a whitespace-delimited word), in document order, in one pass (in XML until
    ``placed`` says the occurrences so far place every finding: later ones move none). In
    XML, the texts of ``>([^<]+)<`` (or, a few needle prefixes, of the texts starting with
    one) are found and looked up in the compiled core (``_core.ElementTexts``)."""
    if fmt == "text":
        return _text_occurrences(windows, needles, placed)
    prefixes = sorted({n[:8] for n in needles}, key=len, reverse=True)
    few_prefixes = len(prefixes) <= 64 and all(prefixes)
    if few_prefixes and len(needles) <= _FEW:
        return _few_occurrences(windows, needles, _texts_pattern(prefixes), placed)
    texts = ElementTexts(needles, prefixes if few_prefixes else None)
    for base, window in windows():
        texts.scan(window, base)
        if placed is not None and placed(texts.found, window):
            break  # as in _few_occurrences
    return texts.found


def _text_occurrences(windows: Windows, needles: set[bytes], placed: Placed) -> Found:
    """``_occurrences`` in a text sitemap: each needle where it is a whole word (``_TEXT_TOKEN``
    finds it). A few needles are each looked for by ``bytes.find`` and their places tested,
    so the other words cost nothing in Python; many, by every word looked up. Until
    ``placed`` says the occurrences so far place every finding, as in XML."""
    found: Found = {}
    few = len(needles) <= _FEW and not any(_SPACE.search(needle) for needle in needles)
    for base, window in windows():
        if not few:
            for m in _TEXT_TOKEN.finditer(window):
                text = m.group()
                if text in needles:
                    found.setdefault(text, []).append(base + m.start())
        else:
            _few_words(window, base, needles, found)
        if placed is not None and placed(found, window):
            break
    return found


def _few_words(window: bytes, base: int, needles: set[bytes], found: Found) -> None:
    """``_text_occurrences`` of a few needles in one window, each by ``bytes.find``."""
    for needle in needles:
        at = window.find(needle)
        while at >= 0:
            end = at + len(needle)
            if (at == 0 or window[at - 1] in b"\n \t") and window[end : end + 1] in _WORD_END:
                found.setdefault(needle, []).append(base + at)
            at = window.find(needle, at + 1)


_SPACE = lazy(rb"[\n\r \t]")
_WORD_END = (b"", b"\n", b"\r", b" ", b"\t")


def _texts_pattern(prefixes: list[bytes]) -> Regex:
    """The texts ``_occurrences`` looks at, of a few needle prefixes (longest first)."""
    return re.compile(rb">((?:" + b"|".join(map(re.escape, prefixes)) + rb")[^<]*)<")


_FEW = 32  # needles looked for as themselves (an alternation tried at each '>'), not prefixes


def _few_occurrences(windows: Windows, needles: set[bytes], texts: Regex, placed: Placed) -> Found:
    """``_occurrences`` of a few needles in an XML document: each looked for as an element's
    whole text, so that the other texts cost nothing in Python. An occurrence counts where
    ``texts`` (which the many needles' way runs over every text) would have found it: not
    when a '>' before it in the same text starts a text of ``texts`` that takes it in."""
    found: Found = {}
    matches = _marked_texts(needles)
    for base, window in windows():
        for at, needle in matches(window):
            opened = window.rfind(b"<", 0, at)
            inner = window.find(b">", opened + 1, at)
            while inner >= 0:  # a '>' inside the text: rare
                if texts.match(window, inner):
                    break
                inner = window.find(b">", inner + 1, at)
            else:
                found.setdefault(needle, []).append(base + at + 1)
        if placed is not None and placed(found, window):
            break  # later windows add later occurrences only: no finding would move
    return found


def _marked_texts(needles: set[bytes]) -> Callable[[bytes], list[tuple[int, bytes]]]:
    """The matches of the pattern ``>(needle|...)<`` in a window, as (offset of its '>',
    needle), in document order. One needle without '<' and '>' is found as ``>needle<`` by
    ``bytes.find`` (a fraction of the pattern's cost, which stops at every '>'; a search a
    needle, beyond one, costs more than the pattern): then no two matches overlap, so these
    are the pattern's."""
    if len(needles) > 1 or any(b"<" in needle or b">" in needle for needle in needles):
        exact = re.compile(rb">(" + b"|".join(map(re.escape, needles)) + rb")<")
        return lambda window: [(m.start(), m.group(1)) for m in exact.finditer(window)]
    marked = [(b">" + needle + b"<", needle) for needle in needles]

    def matches(window: bytes) -> list[tuple[int, bytes]]:
        out = []
        for text, needle in marked:
            at = window.find(text)
            while at >= 0:
                out.append((at, needle))
                at = window.find(text, at + 1)
        out.sort()
        return out

    return matches


def _placing(
    pending: list[tuple[str, str, str, bool, int]],
    raws: list[bytes],
    fmt: str | None,
    entries: int | None,
) -> Placed:
    """``_occurrences``' test: every finding placed by the occurrences so far, or, the
    entries numbered as the document's (``entries`` given), every finding's entry read: an
    occurrence after it would be another entry's (an entry whose loc is not written as its
    URI is placed at its own, by number, instead). Entries are counted only where that may
    end the pass well before the document's end: in its last tenth it would cost more than
    it saves."""
    last = max((entry for *_, entry in pending), default=-1)
    counted = (
        fmt in _SITEMAPS
        and entries is not None
        and last < entries - entries // 10
        and all(entry >= 0 for *_, entry in pending)
    )
    tag = b"<url>" if fmt == "urlset" else b"<sitemap>"
    seen = 0
    progress = Progress(pending, raws, fmt == "text")

    def placed(found: Found, window: bytes) -> bool:
        nonlocal seen
        if progress.placed(found):
            return True
        if counted:
            seen += window.count(tag)
        return counted and seen > last

    return placed


def _first_at(occurrences: Found, raw: bytes, start: int, text: bool) -> int:
    """The first occurrence of a loc (``raw``: its UTF-8) from ``start`` on, as written,
    else escaped (an XML text's '&' written '&amp;'); -1: none."""
    # an element's text is found when its ">" is at ``start`` or later
    least = start if text else start + 1
    offsets = occurrences.get(raw)
    if offsets:
        k = bisect_left(offsets, least)
        if k < len(offsets):
            return offsets[k]
    if text or b"&" not in raw:
        return -1  # escaped, it is the same needle
    offsets = occurrences.get(raw.replace(b"&", b"&amp;"))
    if offsets:
        k = bisect_left(offsets, least)
        if k < len(offsets):
            return offsets[k]
    return -1


def _lines_and_columns(
    windows: Windows, wanted: list[tuple[int, bytes | None]]
) -> dict[tuple[int, bytes | None], tuple[int, int]]:
    """(line, column) of each (offset of a loc's text, element whose value is meant) in one
    pass: the value's place when the entry holds that element, else the loc's."""
    out: dict[tuple[int, bytes | None], tuple[int, int]] = {}
    todo = sorted(set(wanted), key=lambda spot: (spot[0], spot[1] or b""))
    k = 0
    lines = Lines()
    for base, window in windows():
        if k >= len(todo):
            break
        lines.enter(base, window)
        end = base + len(window)
        while k < len(todo) and todo[k][0] < end:
            at, name = todo[k]
            k += 1
            value = _value_in(window, at - base, name)
            out[(at, name)] = (lines.line_of(value), lines.column_at(value))
    return out


def _value_in(window: bytes, at: int, name: bytes | None) -> int:
    """``value_of_entry`` inside one window (an entry is never split between two)."""
    if name is None:
        return at
    end = window.find(b"</url>", at)
    if end < 0:
        end = window.find(b"</sitemap>", at)
    start = max(window.rfind(b"<url>", 0, at), window.rfind(b"<sitemap>", 0, at))
    inside = window.find(b"<" + name + b">", max(start, 0), end if end >= 0 else len(window))
    return at if inside < 0 else inside + len(name) + 2

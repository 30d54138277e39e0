"""robots.txt ``Sitemap:`` lines, read and edited without touching any other byte.

In: the bytes of a robots.txt, and the sitemap URLs to add or take out. Out: the new bytes
and what changed (``RobotsEdit``). Pure: no file, no clock.

"You can specify the location of the Sitemap using a robots.txt file ... Sitemap:
<sitemap_location> ... This directive is independent of the user-agent line, so it doesn't
matter where you place it in your file" (sitemaps.org 0.9, "Informing search engine
crawlers"). A line counts as a ``Sitemap:`` line when protego, the project's robots.txt
parser, reads it as one (``sitemap``, ``site-map``, ``sitemaps``, any case, a comment after
it); every other line - comments, groups, blank lines, other directives - is copied as it
is, with its own line ending (CRLF, LF or CR) and a byte-order mark kept in front.

New lines are written ``Sitemap: <URI>`` after the file's last ``Sitemap:`` line (or where a
replaced line stood, or at the end), with the file's most common line ending; a file that
ended without a line break still does. So adding a URL and taking it out again gives back
the original bytes.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..errors import InvalidValue
from ..urls import to_uri

BOM = b"\xef\xbb\xbf"
_LINE = re.compile(rb"([^\r\n]*)(\r\n|\n|\r|)")


@dataclass(frozen=True, slots=True)
class Line:
    """One line of a robots.txt: its text and ending as bytes, and its ``Sitemap:`` value."""

    number: int  # 1-based
    text: bytes  # without the line ending (and without a leading byte-order mark)
    ending: bytes  # b"\r\n", b"\n", b"\r", or b"" for a last line without one
    sitemap: str | None  # the value protego reads on this line, None when not a Sitemap line


def _sitemap_value(text: bytes) -> str | None:
    if b"site" not in text.lower():  # every spelling protego accepts holds "site"
        return None
    from protego import Protego

    found = list(Protego.parse(text.decode("utf-8", errors="replace")).sitemaps)
    return str(found[0]).strip() if found else None


def split_lines(data: bytes) -> list[Line]:
    """The lines of ``data`` (a leading byte-order mark is not part of the first line)."""
    body = data.removeprefix(BOM)
    lines = []
    for number, m in enumerate(_LINE.finditer(body), 1):
        text, ending = m.group(1), m.group(2)
        if not text and not ending:
            break  # the empty match at the end (every other match holds a byte)
        lines.append(Line(number, text, ending, _sitemap_value(text)))
    return lines


def sitemap_lines(data: bytes) -> list[Line]:
    """The ``Sitemap:`` lines of a robots.txt, in order."""
    return [line for line in split_lines(data) if line.sitemap is not None]


def same_sitemap_key(value: str) -> str:
    """What two ``Sitemap:`` values are compared by: the URI, or the text when not a URL."""
    try:
        return to_uri(value.strip(), field="Sitemap")
    except InvalidValue:
        return value.strip()


@dataclass(frozen=True, slots=True)
class RobotsEdit:
    """The edited bytes and what changed."""

    data: bytes
    added: tuple[str, ...]  # URLs given a new line
    removed: tuple[str, ...]  # values of the lines taken out, as written
    present: tuple[str, ...]  # URLs asked for that a line already named (left as written)
    original: bytes

    @property
    def changed(self) -> bool:
        return self.data != self.original


def _uris(urls: Iterable[str], what: str) -> list[str]:
    out: list[str] = []
    for url in urls:
        uri = to_uri(url.strip(), field=what)
        if uri not in out:
            out.append(uri)
    return out


def edit_sitemaps(
    data: bytes,
    add: Sequence[str] = (),
    remove: Sequence[str] = (),
    *,
    replace: Callable[[str], bool] | None = None,
) -> RobotsEdit:
    """``data`` with a ``Sitemap:`` line for each URL of ``add`` and none for those of ``remove``.

    A URL already named by a line (compared as URIs) keeps that line as written. ``replace``,
    when given, says which other ``Sitemap:`` values this edit owns (the entry points of an
    earlier build, say): those not in ``add`` are taken out, and the new lines go where the
    first of them stood. Lines the edit does not own are never touched. InvalidValue when a
    URL is not an absolute http(s) URL or is both added and removed.
    """
    wanted = _uris(add, "sitemap URL")
    dropped_keys = set(_uris(remove, "sitemap URL"))
    both = [u for u in wanted if u in dropped_keys]
    if both:
        raise InvalidValue("sitemap URL", both[0], "is both added and removed")
    bom = BOM if data.startswith(BOM) else b""
    lines = split_lines(data)
    keep: list[bool] = []
    present: list[str] = []
    removed: list[str] = []
    first_dropped = last_sitemap = None
    for i, line in enumerate(lines):
        ok = True
        if line.sitemap is not None:
            key = same_sitemap_key(line.sitemap)
            owned = replace is not None and key not in wanted and replace(key)
            if key in dropped_keys or owned:
                ok = False
                removed.append(line.sitemap)
                if first_dropped is None:
                    first_dropped = i
            else:
                last_sitemap = i
                if key in wanted and key not in present:
                    present.append(key)
        keep.append(ok)
    new = [u for u in wanted if u not in present]
    if first_dropped is not None and replace is not None:
        at = first_dropped
    elif last_sitemap is not None:
        at = last_sitemap + 1
    else:
        at = len(lines)
    eol = _common_ending(lines)
    records: list[list[bytes]] = []
    for i, line in enumerate(lines):
        if i == at:
            records.extend([b"Sitemap: " + u.encode("ascii"), eol] for u in new)
        if keep[i]:
            records.append([line.text, line.ending])
    if at >= len(lines):
        records.extend([b"Sitemap: " + u.encode("ascii"), eol] for u in new)
    # every line but the last ends with a line break; the last one does when the file did
    for record in records[:-1]:
        if not record[1]:
            record[1] = eol
    if records:
        ended = not lines or bool(lines[-1].ending)
        if not ended:
            records[-1][1] = b""
        elif not records[-1][1]:
            records[-1][1] = eol
    out = bom + b"".join(text + ending for text, ending in records)
    return RobotsEdit(out, tuple(new), tuple(removed), tuple(present), data)


def _common_ending(lines: Sequence[Line]) -> bytes:
    """The file's usual line ending; a lone CR only in a file with no LF at all, since a CR
    written before a blank LF line would read as one CRLF and swallow that line."""
    counts = Counter(line.ending for line in lines if line.ending)
    if counts[b"\r\n"] or counts[b"\n"]:
        return b"\r\n" if counts[b"\r\n"] > counts[b"\n"] else b"\n"
    return b"\r" if counts[b"\r"] else b"\n"

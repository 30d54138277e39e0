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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from ..errors import InvalidValue
from ..urls import to_uri

BOM = b"\xef\xbb\xbf"
_LINE = re.compile(rb"([^\r\n]*)(\r\n|\n|\r|)")
_SITE_LINE = re.compile(rb"site", re.IGNORECASE)  # every spelling protego accepts holds it


@dataclass(frozen=True, slots=True)
class PolicyChange:
    """What a policy did: ``added`` a group, ``replaced`` the rules of the group at ``line``,
    or found them ``unchanged``."""

    agents: tuple[str, ...]
    change: str
    line: int  # the group's first line in the file written


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
    groups: tuple[PolicyChange, ...] = ()  # what each policy did (robots_policy)

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
    body = data[len(bom) :]
    # only the Sitemap lines are held (their byte spans): a robots.txt of millions of lines is
    # copied by slices, never held a line at a time
    cuts: list[tuple[int, int]] = []  # the lines taken out: start, end (after the ending)
    present: list[str] = []
    removed: list[str] = []
    first_dropped = last_sitemap = None
    read_to = -1  # the end of the last line read (a line may hold "site" twice)
    for m in _SITE_LINE.finditer(body):
        if m.start() < read_to:
            continue
        start = max(body.rfind(b"\n", 0, m.start()), body.rfind(b"\r", 0, m.start())) + 1
        line = _LINE.match(body, start)
        assert line is not None  # the pattern matches at every position
        read_to = line.end()
        value = _sitemap_value(line.group(1))
        if value is None:
            continue
        key = same_sitemap_key(value)
        owned = replace is not None and key not in wanted and replace(key)
        if key in dropped_keys or owned:
            removed.append(value)
            if first_dropped is None:
                first_dropped = start
            cuts.append((start, line.end()))
        else:
            last_sitemap = line.end()
            if key in wanted and key not in present:
                present.append(key)
    new = [u for u in wanted if u not in present]
    if first_dropped is not None and replace is not None:
        at = first_dropped
    elif last_sitemap is not None:
        at = last_sitemap
    else:
        at = len(body)
    eol = _common_ending(body)
    ended = not body or body.endswith((b"\n", b"\r"))
    block = b"".join(b"Sitemap: " + u.encode("ascii") + eol for u in new)
    pieces: list[bytes] = []
    done = 0
    for start, end in [*cuts, (len(body), len(body))]:  # `at` is never inside a cut
        if done <= at <= start:
            pieces.append(body[done:at])
            before = next((p for p in reversed(pieces) if p), b"")
            if before and not before.endswith((b"\n", b"\r")) and block:
                block = eol + block  # the file's last line is one no longer
            pieces.append(block)
            done, at = at, -1
        pieces.append(body[done:start])
        done = end
    out = b"".join(pieces)
    if not ended:  # a file that ended without a line break still does
        out = out.removesuffix(b"\n").removesuffix(b"\r")
    elif out and not out.endswith((b"\n", b"\r")):
        out += eol
    return RobotsEdit(bom + out, tuple(new), tuple(removed), tuple(present), data)


def _common_ending(body: bytes) -> bytes:
    """The file's usual line ending; a lone CR only in a file with no LF at all, since a CR
    written before a blank LF line would read as one CRLF and swallow that line."""
    crlf = body.count(b"\r\n")
    lf = body.count(b"\n") - crlf
    if crlf or lf:
        return b"\r\n" if crlf > lf else b"\n"
    return b"\r" if body.count(b"\r") else b"\n"

"""The line of each entry of a sitemap index, which check's findings about its children
(``children.compare_with_children``) carry: from one pass over the bytes when the index's
``<sitemap>`` entries are its refs one for one (in the compiled core when each loc is
written as it is, ``_core.index_run_lines``, a run of whole entries at a time: the index is
not held whole for it), else from the lxml walk ``positions`` makes. The refs are any
sequences whose first item is the loc (the index's ``SitemapRef`` values), or its locs
themselves (an index read into columns makes no value for them)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from .._core import index_run_lines
from ..model import SitemapRef
from .positions import _LOC_ELEMENT, _Locator, _uri_of, _xml_text

# an index's entries as these passes read them: their locs, or SitemapRefs (a loc first)
Refs = list[str] | list[SitemapRef]

_OPEN = b"<sitemap>"
_CLOSE = b"</sitemap>"


def lines_of_refs(
    pieces: Callable[[], Iterable[bytes]],
    plain: Callable[[], bytes],
    refs: Refs,
    base_url: str | None,
) -> list[int]:
    """The line of each child entry's loc: the nth ``<sitemap>``'s loc for the nth ref when
    every one holds the ref's loc (one pass over the bytes, ``pieces()`` of the index), else
    by the lxml locator (over ``plain()``, the index whole)."""
    lines = ref_lines_in_pieces(pieces(), refs)
    if lines is not None:
        return lines
    data = plain()
    lines = _ref_lines_in_order(data, refs, base_url)
    if lines is not None:
        return lines
    locator = _Locator(data, "sitemapindex", base_url)
    return [locator.line_of(_loc(ref)) for ref in refs]


def _loc(ref: str | SitemapRef) -> str:
    return ref if isinstance(ref, str) else ref[0]


def ref_lines_in_pieces(pieces: Iterable[bytes], refs: Refs) -> list[int] | None:
    """``ref_lines_at_once`` of the bytes ``pieces`` make, a run of whole entries at a time:
    each run ends after a ``</sitemap>`` (no entry's start tag, loc or end cut in two, and
    every start tag in it followed by an end tag in it), and holds as many start tags as the
    refs it takes; the bytes after the last end tag hold no start tag. None where the pass
    over the whole would give None, or a run holds a start tag the pass would pass over."""
    out: list[int] = []
    held = b""
    line = 1  # the line the run starts on
    for piece in pieces:
        data = held + piece if held else piece
        end = data.rfind(_CLOSE)
        if end < 0:
            held = data
            continue
        end += len(_CLOSE)
        run = data[:end] if end < len(data) else data
        held = data[end:]
        found = index_run_lines(run, refs, len(out), line)
        if found is None:
            return None
        out += found[0]
        line += found[1]
    if _OPEN in held or len(out) != len(refs):
        return None
    return out


def ref_lines_at_once(plain: bytes, refs: Refs) -> list[int] | None:
    """``_ref_lines_in_order`` in one pass of the compiled core, when each entry's loc text
    is its ref's loc as written (plain ASCII, no entity, no space around it); else None."""
    found = index_run_lines(plain, refs, 0, 1)
    return None if found is None or len(found[0]) != len(refs) else found[0]


def _ref_lines_in_order(plain: bytes, refs: Refs, base_url: str | None) -> list[int] | None:
    """``lines_of_refs`` when the index's ``<sitemap>`` entries are its refs one for one, each
    with an unprefixed loc whose text is the ref's (as written or made a URI); else None."""
    if plain.count(b"<sitemap>") != len(refs):
        return None
    out: list[int] = []
    cursor = counted = 0
    line = 1
    for ref in refs:
        start = plain.find(b"<sitemap>", cursor)
        m = _LOC_ELEMENT.search(plain, start)
        close = plain.find(b"</sitemap>", start)
        if m is None or 0 <= close < m.start():
            return None
        text = _xml_text(m.group(1))
        loc = _loc(ref)
        if text != loc and _uri_of(text, base_url) != loc:
            return None
        line += plain.count(b"\n", counted, m.start())
        counted = m.start()
        out.append(line)
        cursor = m.end()
    return out

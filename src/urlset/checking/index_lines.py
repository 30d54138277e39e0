"""The line of each entry of a sitemap index, which check's findings about its children
(``children.compare_with_children``) carry: from one pass over the bytes when the index's
``<sitemap>`` entries are its refs one for one (in the compiled core when each loc is
written as it is, ``_core.index_loc_lines``), else from the lxml walk ``positions`` makes."""

from __future__ import annotations

from .._core import index_loc_lines
from ..model import SitemapRef
from .positions import _LOC_ELEMENT, _Locator, _uri_of, _xml_text


def lines_of_refs(plain: bytes, refs: list[SitemapRef], base_url: str | None) -> list[int]:
    """The line of each child entry's loc: the nth ``<sitemap>``'s loc for the nth ref when
    every one holds the ref's loc (one pass over the bytes), else by the lxml locator."""
    lines = ref_lines_at_once(plain, refs)
    if lines is None:
        lines = _ref_lines_in_order(plain, refs, base_url)
    if lines is not None:
        return lines
    locator = _Locator(plain, "sitemapindex", base_url)
    return [locator.line_of(ref.loc) for ref in refs]


def ref_lines_at_once(plain: bytes, refs: list[SitemapRef]) -> list[int] | None:
    """``_ref_lines_in_order`` in one pass of the compiled core, when each entry's loc text
    is its ref's loc as written (plain ASCII, no entity, no space around it); else None."""
    return index_loc_lines(plain, [ref[0] for ref in refs])


def _ref_lines_in_order(
    plain: bytes, refs: list[SitemapRef], base_url: str | None
) -> list[int] | None:
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
        if text != ref.loc and _uri_of(text, base_url) != ref.loc:
            return None
        line += plain.count(b"\n", counted, m.start())
        counted = m.start()
        out.append(line)
        cursor = m.end()
    return out

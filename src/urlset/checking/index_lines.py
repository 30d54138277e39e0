"""The line of each entry of a sitemap index, which check's findings about its children
(``children.compare_with_children``) carry: from one pass over the bytes when the index's
``<sitemap>`` entries are its refs one for one, else from the lxml walk ``positions`` makes."""

from __future__ import annotations

import operator
import re
from itertools import accumulate, chain, repeat

from ..model import SitemapRef
from .positions import _LOC_ELEMENT, _Locator, _uri_of, _xml_text


def lines_of_refs(plain: bytes, refs: list[SitemapRef], base_url: str | None) -> list[int]:
    """The line of each child entry's loc: the nth ``<sitemap>``'s loc for the nth ref when
    every one holds the ref's loc (one pass over the bytes), else by the lxml locator."""
    lines = _ref_lines_at_once(plain, refs)
    if lines is None:
        lines = _ref_lines_in_order(plain, refs, base_url)
    if lines is not None:
        return lines
    locator = _Locator(plain, "sitemapindex", base_url)
    return [locator.line_of(ref.loc) for ref in refs]


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


def _ref_lines_at_once(plain: bytes, refs: list[SitemapRef]) -> list[int] | None:
    """``_ref_lines_in_order`` in a few C-speed passes, when every ``<sitemap>`` holds one
    loc element whose bytes are its ref's loc as it is (no entity, no space around it);
    else None. The nth entry's loc is then the nth loc element, each inside its entry."""
    opens = [m.start() for m in _OPEN.finditer(plain)]
    if len(opens) != len(refs):
        return None
    closes = [m.start() for m in _CLOSE.finditer(plain)]
    found = list(_LOC_ELEMENT.finditer(plain))
    if len(closes) != len(refs) or len(found) != len(refs):
        return None
    locs = "\n".join(map(_LOC, refs))
    texts = b"\n".join(map(operator.methodcaller("group", 1), found))
    if locs.count("\n") >= len(refs) or b"&" in texts or texts != locs.encode("utf-8"):
        return None
    starts = list(map(re.Match.start, found))
    ends = list(map(re.Match.end, found))
    lt, le = operator.lt, operator.le
    if not (
        all(map(lt, opens, starts))
        and all(map(lt, starts, closes))
        and all(map(lt, closes[:-1], opens[1:]))
        and all(map(le, ends[:-1], opens[1:]))
    ):
        return None
    newlines = map(plain.count, repeat(b"\n"), chain((0,), starts), starts)
    return list(accumulate(newlines, initial=1))[1:]


_OPEN = re.compile(rb"<sitemap>")
_CLOSE = re.compile(rb"</sitemap>")
_LOC = operator.itemgetter(0)

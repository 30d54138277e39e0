"""A document's bytes as libxml2 reads them, for the checks that need positions of elements.

``for_lxml`` takes the bytes and gives them with any junk before the first markup blanked
(lines kept); ``parse_events`` gives the (start/end, element) events of a recovering pull
parse of them; ``split_tag`` splits an element's tag into namespace and local name.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from typing import Any

from ..patterns import lazy
from ..reading.xml_lines import start_tags


def split_tag(tag: str) -> tuple[str, str]:
    if tag[:1] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def drop(el: Any) -> None:
    """Free an element whose end was read, and the siblings read before it: a pull parse
    of a large document keeps only the open elements."""
    el.clear()
    parent = el.getparent()
    if parent is not None:
        while el.getprevious() is not None:
            del parent[0]


def for_lxml(plain: bytes) -> bytes:
    """The document with anything before its first markup blanked out (lines kept), and a
    misplaced XML declaration with it, so that libxml2 reads on at the same positions."""
    body = plain[3:] if plain.startswith(b"\xef\xbb\xbf") else plain
    start = body.find(b"<")
    if start <= 0:
        return body
    if body.startswith(b"<?xml", start):
        end = body.find(b"?>", start)
        if end > 0:
            start = end + 2
    return _BLANK.sub(b" ", body[:start]) + body[start:]


_BLANK = lazy(rb"[^\n]")


def start_tag_lines(body: bytes, ordinals: Iterable[int]) -> dict[int, tuple[int, str]]:
    """The line and the local name of each start tag numbered in ``ordinals`` (the root's
    is 1), counted in ``body`` (``for_lxml``'s bytes) in document order as libxml2 reads them
    (``reading.xml_lines.start_tags``), the line as libxml2 gives it below 65,535: where the
    tag ends, in line feeds. A caller takes a line only where the name is its element's (a
    document libxml2 read by recovering may count otherwise)."""
    wanted = sorted(set(ordinals))
    out: dict[int, tuple[int, str]] = {}
    if not wanted:
        return out
    line, counted_to, k = 1, 0, 0
    for n, m in enumerate(start_tags(body), 1):
        if n < wanted[k]:
            continue
        line += body.count(b"\n", counted_to, m.end())
        counted_to = m.end()
        out[n] = (line, m.group(1).decode("utf-8", "replace").rpartition(":")[2])
        k += 1
        if k == len(wanted):
            break
    return out


def parse_events(plain: bytes) -> Iterator[tuple[str, Any]]:
    from lxml import etree  # a plain document is checked without libxml2's walk

    parser = etree.XMLPullParser(
        events=("start", "end"),
        recover=True,
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        huge_tree=True,
        remove_comments=True,
        remove_pis=True,
    )
    body = for_lxml(plain)
    step = 1 << 20
    for i in range(0, len(body), step):
        try:
            parser.feed(bytes(body[i : i + step]))
        except etree.XMLSyntaxError:
            return
        yield from parser.read_events()
    with contextlib.suppress(etree.XMLSyntaxError):
        parser.close()
    yield from parser.read_events()

"""The order and place of the protocol's elements in an XML sitemap or index.

``check_structure`` takes the document's bytes and its format and gives a ``Findings`` the
misplaced, unknown and out-of-order elements: a few regular expressions over the bytes
prove the common case right; when they cannot, one lxml pass names each problem.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..model import SITEMAP_NS
from .findings import Findings
from .xmlevents import drop, parse_events, split_tag

# every namespace declaration: the prefix (empty for the default namespace) and the URI
_XMLNS = re.compile(rb"xmlns(?::([^\s=]+))?\s*=\s*[\"']([^\"']*)")
_ROOT = re.compile(rb"<(urlset|sitemapindex)[\s>/]")
_X = rb"[A-Za-z_][\w.\-]*:"  # a prefixed (extension) element


class _Shape(NamedTuple):
    """Byte patterns that find a break of the protocol's order, fast.

    ``after`` looks at what follows each closing tag of the protocol (one pattern, so one
    pass), ``entry`` at what opens an entry, ``after_extension`` for a protocol element
    after an extension element. Unknown and misplaced elements need no pattern: the reader
    reports every element it does not expect (unknown-element, unexpected-child), and then
    the lxml walk names them.
    """

    after: re.Pattern[bytes]
    entry: re.Pattern[bytes]
    after_extension: re.Pattern[bytes]


_SHAPES = {
    "urlset": _Shape(
        re.compile(
            rb"</(?:loc>\s*<(?!lastmod>|changefreq>|priority>|/url>|" + _X + rb")"
            rb"|lastmod>\s*<(?!changefreq>|priority>|/url>|" + _X + rb")"
            rb"|changefreq>\s*<(?!priority>|/url>|" + _X + rb")"
            rb"|priority>\s*<(?!/url>|" + _X + rb"))"
        ),
        re.compile(rb"<url>\s*<(?!loc>)"),
        re.compile(rb"</" + _X + rb"[^>]*>\s*<(?:loc|lastmod|changefreq|priority)>"),
    ),
    "sitemapindex": _Shape(
        re.compile(
            rb"</(?:loc>\s*<(?!lastmod>|/sitemap>|" + _X + rb")"
            rb"|lastmod>\s*<(?!/sitemap>|" + _X + rb"))"
        ),
        re.compile(rb"<sitemap>\s*<(?!loc>)"),
        re.compile(rb"</" + _X + rb"[^>]*>\s*<(?:loc|lastmod)>"),
    ),
}
# reader codes that mean an element stands where the protocol does not expect it
UNEXPECTED = frozenset(("unknown-element", "unexpected-child", "loc-as-text"))


def check_structure(plain: bytes, fmt: str, found: Findings, unexpected: bool) -> None:
    if not unexpected and _structure_plain(plain, fmt):
        return
    for code, message, line in _structure_walk(plain, fmt):
        found.add(code, message, line)


def _structure_plain(plain: bytes, fmt: str) -> bool:
    """True when the bytes show the protocol's elements in the protocol's order.

    Only for the plain shape (the default namespace is the protocol's, declared once, no
    comments or CDATA after the root); anything else goes to ``_structure_walk``.
    """
    root = _ROOT.search(plain)
    if root is None or root.group(1).decode() != fmt:
        return False
    # comments, CDATA or text after a closing tag make a pattern below match, and the lxml
    # walk then decides: a false alarm costs time, never a missed finding
    after = root.start()
    end = plain.find(b">", after)
    head = plain[after:end]
    if SITEMAP_NS.encode() not in head:
        return False
    declared = _XMLNS.findall(plain)
    if sum(1 for prefix, _ in declared if not prefix) != 1:
        return False  # a second default namespace could put protocol names elsewhere
    if any(prefix and uri == SITEMAP_NS.encode() for prefix, uri in declared):
        return False  # protocol elements written with a prefix
    shape = _SHAPES[fmt]
    if shape.after.search(plain, end) or shape.entry.search(plain, end):
        return False
    # prefixed (extension) elements exist only where a prefix is declared
    has_prefixes = any(prefix for prefix, _ in declared)
    return not has_prefixes or not shape.after_extension.search(plain, end)


_ORDER = {
    "urlset": ("url", ("loc", "lastmod", "changefreq", "priority")),
    "sitemapindex": ("sitemap", ("loc", "lastmod")),
}
_VOCABULARY = frozenset(
    ("urlset", "url", "sitemapindex", "sitemap", "loc", "lastmod", "changefreq", "priority")
)


def _structure_walk(plain: bytes, fmt: str) -> list[tuple[str, str, int]]:
    """Every misplaced, unknown or out-of-order element of the protocol's namespace."""
    entry_name, order = _ORDER[fmt]
    out: list[tuple[str, str, int]] = []
    stack: list[tuple[str, str]] = []  # (ns, local) of open elements
    core: set[str] = {SITEMAP_NS}
    rank = -1  # position in ``order`` of the last protocol child of the open entry
    foreign_seen = False
    for action, el in parse_events(plain):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        ns, local = split_tag(tag)
        if action == "end":
            if stack:
                stack.pop()
            if len(stack) >= 1:
                drop(el)
            continue
        depth = len(stack)
        parent = stack[-1] if stack else None
        stack.append((ns, local))
        line = el.sourceline or 0
        if depth == 0:
            core = {ns, SITEMAP_NS}
            continue
        in_core = ns in core
        if depth == 1:
            if in_core:
                if local == entry_name:
                    rank, foreign_seen = -1, False
                else:
                    out.append(_stray(local, f"<{fmt}>", line))
            continue
        assert parent is not None
        parent_core = parent[0] in core
        if depth == 2 and parent_core and parent[1] == entry_name:
            if not in_core:
                foreign_seen = True
                continue
            if local in order:
                position = order.index(local)
                if foreign_seen or position < rank:
                    after = "an extension element" if foreign_seen else f"<{order[rank]}>"
                    out.append(
                        (
                            "element-order",
                            f"<{local}> comes after {after} in <{entry_name}>",
                            line,
                        )
                    )
                rank = max(rank, position)
            else:
                out.append(_stray(local, f"<{entry_name}>", line))
            continue
        if in_core and parent_core and depth == 3:
            out.append(_stray(local, f"<{parent[1]}>", line))
    return out


def _stray(local: str, where: str, line: int) -> tuple[str, str, int]:
    """A protocol-namespace element that does not belong ``where``: misplaced when the
    protocol has it elsewhere, unknown when the protocol has no such element."""
    if local in _VOCABULARY:
        return ("misplaced-element", f"<{local}> is not allowed in {where}", line)
    return ("unknown-sitemap-element", f"<{local}> is not an element of the protocol", line)

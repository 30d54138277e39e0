"""The order and place of the protocol's elements in an XML sitemap or index.

``StructureProver`` proves the common case right over the bytes, a window at a time (the
order in the compiled core, ``core/src/check/order.rs``); when it cannot, ``check_structure`` takes the document's bytes
and its format and gives a ``Findings`` the misplaced, unknown and out-of-order elements,
named by one lxml pass.
"""

from __future__ import annotations

from collections.abc import Iterator

from .._core import breaks_order, declares_namespace
from ..model import PROTOCOL_NAMES, SITEMAP_NS
from ..patterns import lazy
from ..reading.xml_common import LINE_CAP
from .findings import Findings
from .xmlevents import drop, for_lxml, parse_events, split_tag, start_tag_lines

# every namespace declaration: the prefix (empty for the default namespace) and the URI
_XMLNS = lazy(rb"xmlns(?::([^\s=]+))?\s*=\s*[\"']([^\"']*)")
_ROOT = lazy(rb"<(urlset|sitemapindex)[\s>/]")
# reader codes that mean an element stands where the protocol does not expect it
UNEXPECTED = frozenset(("unknown-element", "unexpected-child", "loc-as-text"))


def check_structure(plain: bytes, fmt: str, found: Findings) -> None:
    """Every misplaced, unknown or out-of-order element, by one lxml pass (the scan's
    ``StructureProver`` proves most documents need none). A misplaced or unknown element is
    one finding per tag and place, at its first line with the count: search engines skip
    such elements and read the URLs (the reader reports them so too)."""
    strays: dict[tuple[str, str], list[int]] = {}
    for code, message, line in _structure_walk(plain, fmt):
        if code == "element-order":
            found.add(code, message, line)
            continue
        seen = strays.get((code, message))
        if seen is None:
            strays[(code, message)] = [line, 1]
        else:
            seen[1] += 1
    for (code, message), (line, n) in strays.items():
        found.add(code, message + (f" ({n:,} times; the first here)" if n > 1 else ""), line)


class StructureProver:
    """Whether the bytes show the protocol's elements in the protocol's order, judged a
    window at a time (``feed``; no pattern here spans an entry's end tag, where the windows
    are cut), then ``proves(fmt)``.

    Only for the plain shape (the default namespace is the protocol's, declared once, no
    comments or CDATA after the root); anything else goes to the lxml walk. Comments, CDATA
    or text after a closing tag make a pattern match, and the walk then decides: a false
    alarm costs time, never a missed finding.
    """

    def __init__(self) -> None:
        self.root: str | None = None
        self.defaults = 0  # default namespace declarations
        self.prefixes = False  # a prefixed declaration seen
        self.broken = False  # something the plain shape does not allow

    def give_up(self) -> None:
        self.broken = True

    def feed(self, window: bytes) -> None:
        if self.broken:
            return
        start = 0
        if self.root is None:
            root = _ROOT.search(window)
            if root is not None:
                self.root = root.group(1).decode()
                start = window.find(b">", root.start())
                if start < 0 or SITEMAP_NS.encode() not in window[root.start() : start]:
                    self.broken = True
                    return
        prefixed_before = self.prefixes
        # (a window without a declaration, as most after the root's, costs one memmem)
        for prefix, uri in _XMLNS.findall(window) if declares_namespace(window) else ():
            if not prefix:
                self.defaults += 1
            elif uri == SITEMAP_NS.encode():
                self.broken = True  # protocol elements written with a prefix
                return
            else:
                self.prefixes = True
        if self.defaults > 1:  # a second default namespace could put protocol names elsewhere
            self.broken = True
        if self.root is None or self.broken:
            return
        if self.prefixes and not prefixed_before and start == 0:
            self.broken = True  # a prefix declared after the root's window: not the plain shape
            return
        # an element out of the protocol's order (core/src/check/order.rs: a protocol end
        # tag followed by one the protocol does not allow next, an entry that does not open
        # with its loc, a protocol element after an extension's end tag, where prefixed
        # extension elements can be, a prefix being declared)
        self.broken = breaks_order(window, start, self.root == "sitemapindex", self.prefixes)

    def finish(self) -> None:
        """Nothing is kept between windows but the counts: nothing to close."""

    def proves(self, fmt: str) -> bool:
        return not self.broken and self.root == fmt and self.defaults == 1


_ORDER = {
    "urlset": ("url", ("loc", "lastmod", "changefreq", "priority")),
    "sitemapindex": ("sitemap", ("loc", "lastmod")),
}


def _structure_walk(plain: bytes, fmt: str) -> list[tuple[str, str, int]]:
    """Every misplaced, unknown or out-of-order element of the protocol's namespace, at its
    start tag's line (past ``LINE_CAP``, counted in the bytes: ``start_tag_lines``)."""
    out: list[tuple[str, str, int]] = []
    capped: dict[int, tuple[int, str]] = {}  # finding -> its element's start tag, name
    for code, message, line, ordinal, local in _walk(plain, fmt):
        if line >= LINE_CAP:
            capped[len(out)] = (ordinal, local)
        out.append((code, message, line))
    if not capped:
        return out
    lines = start_tag_lines(for_lxml(plain), (ordinal for ordinal, _ in capped.values()))
    for i, (ordinal, local) in capped.items():
        line, name = lines.get(ordinal, (0, ""))
        if name == local:  # else libxml2 counted the tags otherwise: its guess stays
            out[i] = (*out[i][:2], line)
    return out


def _walk(plain: bytes, fmt: str) -> Iterator[tuple[str, str, int, int, str]]:
    """``_structure_walk``'s findings as lxml gives their lines, each with its element's
    number among the document's start tags and its local name."""
    entry_name, order = _ORDER[fmt]
    ordinal = 0
    stack: list[tuple[str, str]] = []  # (ns, local) of open elements
    core: set[str] = {SITEMAP_NS}
    rank = -1  # position in ``order`` of the last protocol child of the open entry
    foreign_seen = False
    wrapped = 0  # 1 inside a repeated root (<urlset><urlset>: the reader's nested-root)
    for action, el in parse_events(plain):
        tag = el.tag
        if not isinstance(tag, str):
            continue
        ns, local = split_tag(tag)
        if action == "end":
            if stack:
                stack.pop()
            if wrapped and len(stack) == 1:
                wrapped = 0
            if len(stack) >= 1:
                drop(el)
            continue
        ordinal += 1
        depth = len(stack) - wrapped
        parent = stack[-1] if stack else None
        stack.append((ns, local))
        line = el.sourceline or 0
        if depth == 0:
            core = {ns, SITEMAP_NS}
            continue
        in_core = ns in core
        if depth == 1:
            if in_core and local == fmt and not wrapped:
                wrapped = 1
            elif in_core:
                if local == entry_name:
                    rank, foreign_seen = -1, False
                else:
                    yield (*_stray(local, f"<{fmt}>", line), ordinal, local)
            continue
        assert parent is not None
        parent_core = parent[0] in core
        if depth == 2 and parent_core and parent[1] == entry_name:
            if not in_core:
                foreign_seen = True
                continue
            if local == entry_name:
                continue  # an entry inside an entry: the reader's nested-entry says it
            if local in order:
                position = order.index(local)
                if foreign_seen or position < rank:
                    after = "an extension element" if foreign_seen else f"<{order[rank]}>"
                    message = f"<{local}> comes after {after} in <{entry_name}>"
                    yield ("element-order", message, line, ordinal, local)
                rank = max(rank, position)
            else:
                yield (*_stray(local, f"<{entry_name}>", line), ordinal, local)
            continue
        if in_core and parent_core and depth == 3 and parent[1] != entry_name:
            yield (*_stray(local, f"<{parent[1]}>", line), ordinal, local)


def _stray(local: str, where: str, line: int) -> tuple[str, str, int]:
    """A protocol-namespace element that does not belong ``where``: misplaced when the
    protocol has it elsewhere, unknown when the protocol has no such element."""
    if local in PROTOCOL_NAMES:
        return ("misplaced-element", f"<{local}> is not allowed in {where}", line)
    return ("unknown-element", f"<{local}> is not an element of the protocol", line)

"""The full lane's second half: lxml's start and end events in, entries and issues out.

``ElementReader.events`` takes the (action, element) pairs of lxml's pull parser, or of a
stretch the fast lane parsed on its own, tracks the depth, reads the root element (the
format, its namespace), and turns each entry element into a ``Url`` or ``SitemapRef`` for the
sink (sitemap entries here, feed entries in xml_feeds), dropping elements once read so that
memory stays flat.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from ..dates import Lastmod
from ..errors import InvalidValue
from ..extensions import PREFIXES
from ..model import PROTOCOL_NAMES, ChangeFreq, SitemapRef, Url
from ..urls import is_plain_uri, made_uri_finding, to_uri
from .sink import Sink, relative
from .xml_common import DONE, LINE_CAP, SITEMAP_NS, Status, split_tag
from .xml_feeds import atom_entry, rss_entry

_V = TypeVar("_V")

XHTML_NS = "http://www.w3.org/1999/xhtml"
# the extensions' namespaces by their usual prefixes
EXTENSION_NS = {name: uri for uri, name in PREFIXES.items()}

# root element -> (format, entry element, depth of the entries)
_FORMATS = {
    "urlset": ("urlset", "url", 2),
    "sitemapindex": ("sitemapindex", "sitemap", 2),
    "rss": ("rss", "item", 3),
    "RDF": ("rss", "item", 2),
    "feed": ("atom", "entry", 2),
}


def _serialise(el: Any) -> str:
    """``el`` on its own: declarations of the namespaces it uses, and no others."""
    from lxml import etree  # loaded where an element is read: a plain urlset never is

    alone = copy.deepcopy(el)
    alone.tail = None
    etree.cleanup_namespaces(alone)
    return etree.tostring(alone, encoding="unicode")


class ElementReader:
    """Entries from parsed elements; ``status.format`` and the entry element's name and depth
    are set when the root is read."""

    def __init__(self, sink: Sink, status: Status) -> None:
        self.sink = sink
        self.late = sink.late
        self.status = status
        self.max_depth = sink.limits.max_depth
        self.depth = 0
        self.entry_local = ""
        self.entry_depth = 2
        self.core_ns: frozenset[str] = frozenset()
        self.root_ended = False
        self.root_local = ""
        # the entries open now: [depth, ended by a nested entry, is an entry element]
        self.open: list[list[Any]] = []
        # unexpected elements reported: one finding per code and tag, at its first place
        self.strays: set[tuple[str, str]] = set()

    def events(self, events: Sequence[tuple[str, Any]], truncated: bool) -> None:
        last = _last_cut(self, events) if truncated else -1
        open_entries = self.open
        for i, (action, el) in enumerate(events):
            if action == "start":
                self.depth += 1
                depth = self.depth
                if depth == 1:
                    self._root(el)
                    if self.status.state == DONE:
                        return
                elif depth > self.max_depth:
                    self.sink.issue(
                        "depth-limit",
                        f"elements nest deeper than {self.max_depth} levels (ReadLimits.max_depth)",
                        self.sink.line_of(el),
                    )
                    self.sink.fatal = self.sink.fatal or self.sink.count == 0
                    self.status.state = DONE
                    return
                elif depth == 2 and _wrapper(self, el):
                    self.entry_depth = 3
                elif depth == self.entry_depth:
                    open_entries.append([depth, False, self.is_entry(el)])
                elif _nested(self, open_entries, depth, el):
                    self._unclosed(el, open_entries[-1])
                    open_entries.append([depth, False, True])
                    if self.sink.stopped:
                        self.status.state = DONE
                        return
                continue
            depth = self.depth
            self.depth -= 1
            if open_entries and open_entries[-1][0] == depth:
                if open_entries.pop()[1]:
                    self._rest(el)
                elif i == last:
                    _cut(self, el)
                else:
                    self._entry(el)
                _drop(el, self.late)
                if self.sink.stopped:
                    self.status.state = DONE
                    return
            elif depth == 2:
                if self.entry_depth == 3 and split_tag(el.tag)[1] == "channel":
                    continue
                if self.entry_depth == 3 and self.status.format in ("urlset", "sitemapindex"):
                    self.entry_depth = 2  # the end of a repeated root: entries follow at 2
                    _drop(el, self.late)
                    continue
                self.unknown(el)
                _drop(el, self.late)
            elif depth == 1:
                self.root_ended = True

    # -- an entry left open: the next entry's start ends it --
    def is_entry(self, el: Any) -> bool:
        tag = el.tag
        if not isinstance(tag, str):
            return False
        ns, local = split_tag(tag)
        return local == self.entry_local and ns in self.core_ns

    def _unclosed(self, el: Any, parent_row: list[Any]) -> None:
        """``el`` starts inside the open entry ``el.getparent()``: that entry ends here, with
        the children before ``el`` (once: later siblings of ``el`` are entries of their own)."""
        if parent_row[1]:
            return
        parent_row[1] = True
        parent = el.getparent()
        line = self.sink.line_of(el)
        opened = self.sink.shifted(self.sink.line_of(parent))
        name = self.entry_local
        self.sink.issue(
            "nested-entry",
            f"<{name}> starts inside the <{name}> of line {opened}, "
            "which was not closed before it; that one ends here",
            line,
        )
        self._entry(parent, stop=el)

    def _rest(self, el: Any) -> None:
        """The end of an entry a nested one ended: what follows its nested entries."""
        for child in el:
            if isinstance(child.tag, str) and not self.is_entry(child):
                self.unknown(child)

    def _root(self, el: Any) -> None:
        tag = el.tag
        ns, local = split_tag(tag)
        sink = self.sink
        status = self.status
        line = sink.line_of(el)
        self.root_local = local
        if local.lower() == "html":
            status.format = "html"
            sink.fatal = True
            sink.issue("html-page", "the document is an HTML page", line)
            status.state = DONE
            return
        spec = _FORMATS.get(local)
        if spec is None:
            status.format = "unknown"
            sink.fatal = True
            sink.issue("unknown-root", f"root element <{local}> is not a sitemap or feed", line)
            status.state = DONE
            return
        status.format, self.entry_local, self.entry_depth = spec
        if status.format in ("urlset", "sitemapindex"):
            if ns == "":
                sink.issue("missing-namespace", f"<{local}> has no namespace", line)
            elif ns != SITEMAP_NS:
                sink.issue("wrong-namespace", f"<{local}> is in namespace {ns!r}", line)
            if el.prefix is not None:
                sink.issue(
                    "prefixed-elements",
                    f"sitemap elements are written with the prefix {el.prefix}:",
                    line,
                )
            self.core_ns = frozenset((ns, SITEMAP_NS, ""))
        else:
            self.core_ns = frozenset((ns, ""))

    def plain_root(self, local: str) -> None:
        """A plain head's root start tag (``Prolog.plain_head``), read as ``_root`` reads it."""
        self.depth = 1
        self.root_local = local
        self.status.format, self.entry_local, self.entry_depth = _FORMATS[local]
        self.core_ns = frozenset((SITEMAP_NS, ""))

    def plain_end(self) -> None:
        """The root's end tag right after the last entry, as its end event reads it."""
        self.depth = 0
        self.root_ended = True

    def unknown(self, el: Any) -> None:
        """An element the protocol does not expect here: each code and tag once (``stray``)."""
        tag = el.tag
        if isinstance(tag, str) and self.status.format not in ("rss", "atom"):
            stray(self.sink, self.strays, self.core_ns, tag, self.sink.line_of(el))

    def text(self, el: Any, line: int) -> str | None:
        """``_value_text`` of the value element ``el`` (``line``: its entry's)."""
        if (plain := _plain_value(el, self.sink.limits.max_value_length)) is not None:
            return plain
        at = el.sourceline or line  # Sink.line_of written out, as in ``_value``, ``_entry``
        return _value_text(self.sink, el, self.late.get(el, at) if at >= LINE_CAP else at)

    def _entry(self, el: Any, stop: Any = None) -> None:
        """Pass on the entry ``el`` (its children before ``stop``, if given)."""
        tag = el.tag
        if not isinstance(tag, str):
            return
        ns, local = split_tag(tag)
        fmt = self.status.format
        if local != self.entry_local or (ns not in self.core_ns and fmt != "rss"):
            self.unknown(el)
            return
        line = el.sourceline or 0
        if line >= LINE_CAP:
            line = self.late.get(el, line)
        if fmt == "urlset" or fmt == "sitemapindex":
            self._sitemap_entry(el, line, fmt == "sitemapindex", stop)
        elif fmt == "rss":
            rss_entry(el, line, self.sink, self.text)
        else:
            atom_entry(el, line, self.sink, self.text)

    def _sitemap_entry(self, el: Any, line: int, index: bool, stop: Any = None) -> None:
        sink = self.sink
        core = self.core_ns
        loc: str | None = None
        have_loc = False
        lastmod: Lastmod | None = None
        changefreq: ChangeFreq | None = None
        priority: float | None = None
        extensions: list[Any] = []
        seen: set[str] = set()

        def flush() -> bool:
            if loc is None:
                return True
            if index:
                return sink.add(SitemapRef._trusted(loc, lastmod), line)
            return sink.add(
                Url._trusted(loc, lastmod, changefreq, priority, tuple(extensions)), line
            )

        for child in el:
            if child is stop:
                break
            ctag = child.tag
            if not isinstance(ctag, str):
                continue
            cns, clocal = split_tag(ctag)
            if cns in core:
                if clocal == "loc":
                    if have_loc:
                        sink.issue(
                            "repeated-element",
                            "a second <loc> in one entry starts a new entry",
                            sink.line_of(child, line),
                        )
                        if not flush():
                            return
                        loc, lastmod, changefreq, priority = None, None, None, None
                        extensions = []
                        seen = set()
                    have_loc = True
                    loc = self._value(child, line, sink.loc)
                    continue
                if clocal in seen and clocal in ("lastmod", "changefreq", "priority"):
                    sink.issue(
                        "repeated-element",
                        f"<{clocal}> given twice; the first value was used",
                        sink.line_of(child, line),
                    )
                    continue
                if clocal == "lastmod":
                    seen.add(clocal)
                    lastmod = self._value(child, line, sink.lastmod)
                    continue
                if not index and clocal == "changefreq":
                    seen.add(clocal)
                    changefreq = self._value(child, line, sink.changefreq)
                    continue
                if not index and clocal == "priority":
                    seen.add(clocal)
                    priority = self._value(child, line, sink.priority)
                    continue
                self.unknown(child)
                if index:
                    continue
            elif index:
                self.unknown(child)
                continue
            extensions.append(self._extension(child, cns, line))
        if not have_loc:
            text = (el.text or "").strip()
            if text:
                sink.issue("loc-as-text", f"{text[:200]!r} is not inside <loc>", line)
                loc = sink.loc(text, line)
            else:
                sink.issue("missing-loc", f"<{self.entry_local}> without <loc>", line)
                return
        flush()

    def _value(self, el: Any, line: int, parse: Callable[[str, int], _V | None]) -> _V | None:
        """The value of a core element (loc, lastmod, changefreq, priority) by ``parse``, a
        Sink method; None, with the issue reported, when there is none."""
        at = el.sourceline or line  # a call per value would cost more than the line
        if at >= LINE_CAP:
            at = self.late.get(el, at)
        text = _value_text(self.sink, el, at)
        return None if text is None else parse(text, at)

    def _extension(self, el: Any, ns: str, line: int) -> Any:
        """Typed (Image, Video, News, Alternate) where urlset models the element; else raw,
        with the reason reported, so that nothing is lost on a round trip."""
        if ns == XHTML_NS and self.sink.base_url is not None:
            _resolve_href(self.sink, el, line)
        # the registry loads with a document's first extension element
        from ..extensions.common import warning_code
        from ..extensions.registry import parse_element
        from ..extensions.rules import INVALID_CODES

        parsed = parse_element(el, _serialise)
        if parsed.error and not parsed.unmodelled and ns in INVALID_CODES:
            self.sink.issue(INVALID_CODES[ns], parsed.error, self.sink.line_of(el, line))
        for warning in parsed.warnings:
            self.sink.issue(warning_code(warning), warning, self.sink.line_of(el, line))
        if parsed.error is None:
            made_uris(self.sink, el, line)
        return parsed.value


# The URL fields of the typed extensions (the values read them as URIs: ``required_uri``,
# ``optional_uri``): an element's tag -> the attribute that holds the URL, None for its text.
# News holds none. The image's and the video's are children of their element; the link's
# href is its own.
_URL_FIELDS: dict[str, str | None] = {
    **{f"{{{EXTENSION_NS['image']}}}{local}": None for local in ("loc", "license")},
    **{
        f"{{{EXTENSION_NS['video']}}}{local}": None
        for local in ("thumbnail_loc", "content_loc", "player_loc", "gallery_loc")
    },
    f"{{{EXTENSION_NS['video']}}}uploader": "info",
    f"{{{XHTML_NS}}}link": "href",
}
_LINK = f"{{{XHTML_NS}}}link"


def made_uris(sink: Sink, el: Any, line: int) -> None:
    """Each URL of the typed extension element ``el`` its value made a URI of, reported at
    its element's line, as a loc made a URI is."""
    fields = _URL_FIELDS
    for node in (el,) if el.tag == _LINK else el:
        attribute = fields.get(node.tag, "")
        if attribute == "":
            continue
        text = node.text if attribute is None else node.get(attribute)
        if text:
            _made_uri(sink, text.strip(), sink.line_of(node, line))


def _made_uri(sink: Sink, text: str, line: int) -> None:
    """An extension's URL text (stripped, entities decoded) on ``line``, as its typed value
    reads it: when that is another text (a URI made of it), reported in the words a loc
    made a URI is (``Sink.converted``; not counted among the locs made URIs, whose texts
    the compiled core lists)."""
    if is_plain_uri(text):
        return
    try:
        uri = to_uri(text)
    except InvalidValue:
        return  # the typed value refused it: not read as a URL
    if uri != text:
        sink.issue(*made_uri_finding(text, uri), line)


# -- helpers of ElementReader --


def _plain_value(el: Any, limit: int) -> str | None:
    """The text of the value element ``el`` when it is plain, as most are (text alone, not
    empty, at most ``limit`` long, no whitespace around it): nothing to report, no line
    needed; else None (``_value_text`` reads it)."""
    text: str | None = el.text
    if text and not len(el) and len(text) <= limit:
        return None if text[0].isspace() or text[-1].isspace() else text
    return None


def _value_text(sink: Sink, el: Any, at: int) -> str | None:
    """``value_text`` of the value element ``el`` on line ``at``, its markup reported."""
    text: str | None = el.text
    if len(el):
        text = "".join(t for t in el.itertext() if isinstance(t, str))
        sink.issue(
            "unexpected-child", f"<{split_tag(el.tag)[1]}> holds markup; its text was used", at
        )
    if text is None:
        return ""
    return value_text(sink, split_tag(el.tag)[1], text, at)


def value_text(sink: Sink, name: str, text: str, line: int) -> str | None:
    """The text of a value element ``<name>`` on ``line`` stripped (whitespace around it
    reported), or None when it is longer than ReadLimits.max_value_length (reported); for
    the compiled lane's texts too."""
    limit = sink.limits.max_value_length
    if len(text) > limit:
        sink.issue(
            "value-too-long",
            f"<{name}> holds {len(text):,} characters (ReadLimits.max_value_length is {limit:,})",
            line,
        )
        return None
    stripped = text.strip()
    if len(stripped) != len(text):
        sink.padded(name, stripped, line)
    return stripped


def _drop(el: Any, late: dict[Any, int]) -> None:
    """Free an entry read (and the siblings before it), and its elements' late lines."""
    if late:
        _forget(el, late)
    el.clear()
    parent = el.getparent()
    if parent is not None:
        while el.getprevious() is not None:
            if late:
                _forget(parent[0], late)
            del parent[0]


def _forget(el: Any, late: dict[Any, int]) -> None:
    for node in el.iter():
        late.pop(node, None)


def _nested(reader: ElementReader, open_entries: list[list[Any]], depth: int, el: Any) -> bool:
    """True when ``el`` (at ``depth``) is an entry element that starts right inside an
    open entry of a urlset or an index: ``<url><loc>a</loc> <url>...``."""
    return (
        bool(open_entries)
        and depth == open_entries[-1][0] + 1
        and open_entries[-1][2]
        and reader.status.format in ("urlset", "sitemapindex")
        and reader.is_entry(el)
    )


def _cut(reader: ElementReader, el: Any) -> None:
    """The entry ``el`` the document's end cut off: reported, with its loc, not passed on."""
    loc = ""
    for child in el:
        if isinstance(child.tag, str) and split_tag(child.tag)[1] in ("loc", "link"):
            loc = (child.text or child.get("href") or "").strip()
            break
    what = f" ({loc[:200]})" if loc else ""
    reader.sink.issue(
        "truncated-entry",
        f"the document ends inside this <{reader.entry_local}>{what}; it was not passed on",
        reader.sink.line_of(el),
    )


def _repeats_root(reader: ElementReader, el: Any) -> bool:
    """``el``, right inside a urlset's or an index's root, repeats the root element
    (``<urlset><urlset>``, as some sites publish): its entries are read, as the other
    readers read them."""
    tag = el.tag
    if not isinstance(tag, str) or reader.status.format not in ("urlset", "sitemapindex"):
        return False
    ns, local = split_tag(tag)
    return local == reader.root_local and ns in reader.core_ns


def _wrapper(reader: ElementReader, el: Any) -> bool:
    """``_repeats_root`` where entries are still expected at depth 2, reported."""
    if reader.entry_depth != 2 or not _repeats_root(reader, el):
        return False
    local = reader.root_local
    reader.sink.issue(
        "nested-root",
        f"<{local}> inside <{local}>: the entries inside the second were read",
        reader.sink.line_of(el),
    )
    return True


def _last_cut(reader: ElementReader, events: Sequence[tuple[str, Any]]) -> int:
    """Index of the end event of the entry the document's end cut off (the last entry
    end in ``events`` of an entry not already ended by a nested one), or -1."""
    last = -1
    depth = reader.depth
    entry_depth = reader.entry_depth
    stack = [list(row) for row in reader.open]
    for i, (action, el) in enumerate(events):
        if action == "start":
            depth += 1
            if depth == 2 and entry_depth == 2 and _repeats_root(reader, el):
                entry_depth = 3
            elif depth == entry_depth:
                stack.append([depth, False, reader.is_entry(el)])
            elif _nested(reader, stack, depth, el):
                stack[-1][1] = True
                stack.append([depth, False, True])
            continue
        if stack and stack[-1][0] == depth and not stack.pop()[1]:
            last = i
        elif depth == 2 and entry_depth == 3 and reader.status.format != "rss":
            entry_depth = 2
        depth -= 1
    return last


def _resolve_href(sink: Sink, el: Any, line: int) -> None:
    """A relative href of ``<xhtml:link>`` resolved against the document's URL, as a
    loc is (reported): search engines and other readers take such alternates."""
    href = el.get("href")
    if href is None:
        return
    text = href.strip()
    if not text or not relative(text):
        return
    uri = sink.resolve(text, sink.line_of(el, line), what="hreflang href ")
    if uri is not None:
        el.set("href", uri)


def stray(
    sink: Sink, strays: set[tuple[str, str]], core: frozenset[str], tag: str, line: int
) -> None:
    """``misplaced-element`` for one of the protocol's names, ``unknown-element`` for any other
    (search engines skip it); each code and tag once, at its first place, as a check says."""
    ns, local = split_tag(tag)
    shown = f"{{{ns}}}{local}" if ns else local
    misplaced = ns in core and local in PROTOCOL_NAMES
    code = "misplaced-element" if misplaced else "unknown-element"
    if (code, shown) not in strays:
        strays.add((code, shown))
        what = "in the wrong place" if misplaced else "not expected here"
        sink.issue(code, f"<{shown}> is {what}", line)

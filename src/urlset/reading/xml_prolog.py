"""The prolog: the raw bytes before the root element in, the root start tag out.

``Prolog.scan`` reads what comes before the root start tag on raw bytes, before anything
reaches libxml2: a byte order mark, whitespace before the XML declaration (removed and
reported, since libxml2 recovers from it but then drops entity references), the declared
encoding (reported unless UTF-8), comments and processing instructions. A DOCTYPE is refused
(an HTML one names the document an HTML page) and reading stops. It gives the root start
tag's match, or says to wait for more bytes or to leave the document to the full lane.
"""

from __future__ import annotations

import re
from functools import cache

from ..patterns import lazy
from .sink import Sink
from .xml_common import DONE, SITEMAP_NS, Status

# what scan gives instead of the root start tag
WAIT = "wait"  # more bytes are needed to tell
TO_FULL = "full"  # the full lane reads the document from where it stands
STOPPED = "stopped"  # a DOCTYPE: reading stops (the issue is reported)

PROLOG_CAP = 65_536
_WS = lazy(rb"[ \t\r\n]+")
_BOM = b"\xef\xbb\xbf"
_WS_BOM = lazy(rb"(?:[ \t\r\n]|\xef\xbb\xbf)+")
_START_TAG = lazy(
    rb"<([A-Za-z_][^\s/>]*)((?:[ \t\r\n]+[^\s=/>]+[ \t\r\n]*=[ \t\r\n]*"
    rb"(?:\"[^\"<]*\"|'[^'<]*'))*)[ \t\r\n]*(/?)>"
)
_DEFAULT_NS = lazy(rb"""(?:^|[ \t\r\n])xmlns[ \t\r\n]*=[ \t\r\n]*(["'])([^"']*)\1""")
_ENCODING = lazy(rb"""encoding[ \t\r\n]*=[ \t\r\n]*["']([A-Za-z0-9._\-]+)["']""")


def _position(buf: bytearray, pos: int) -> tuple[int, int]:
    head = bytes(buf[:pos])
    return head.count(b"\n") + 1, pos - head.rfind(b"\n")


class Prolog:
    """Scans the start of a document, rescanning it whole as bytes arrive (``scan``);
    ``utf8`` stays True unless another encoding is declared."""

    def __init__(self, sink: Sink, status: Status) -> None:
        self.sink = sink
        self.status = status
        self.checked = False  # whitespace before the XML declaration was looked for
        self.utf8 = True

    def scan(self, buf: bytearray, final: bool) -> re.Match[bytes] | str:
        """The root start tag's match in ``buf`` (the document so far), else WAIT, TO_FULL
        or STOPPED; ``final`` when no more bytes will come."""
        pos = 3 if buf[:3] == b"\xef\xbb\xbf" else 0
        if not self.checked:
            if not self._leading_space(buf, pos, final):
                return self._wait(buf, final)
            self.checked = True
        n = len(buf)
        while pos < n:
            c = buf[pos]
            if c in b" \t\r\n":
                m = _WS.match(buf, pos)
                assert m is not None
                pos = m.end()
                continue
            if c != 0x3C:  # '<'
                return TO_FULL
            if buf.startswith(b"<?", pos):
                end = buf.find(b"?>", pos)
                if end < 0:
                    return self._wait(buf, final)
                if buf.startswith(b"<?xml", pos):
                    self._declaration(buf, pos, end)
                pos = end + 2
                continue
            if buf.startswith(b"<!--", pos):
                end = buf.find(b"-->", pos)
                if end < 0:
                    return self._wait(buf, final)
                pos = end + 3
                continue
            if buf.startswith(b"<!", pos):
                if n - pos < 15 and not final:
                    return self._wait(buf, final)
                self._doctype(buf, pos)
                return STOPPED
            m = _START_TAG.match(buf, pos)
            if m is None:
                if not final and not _tag_closed(buf, pos):
                    return self._wait(buf, final)
                return TO_FULL
            return m
        return TO_FULL if final else WAIT

    def plain_root(self, root_tag: re.Match[bytes]) -> bool:
        """True when ``root_tag`` opens a non-empty ``<urlset>`` or ``<sitemapindex>`` in the
        sitemaps.org namespace, in a document declared (if at all) UTF-8: the fast lane's
        case."""
        name = root_tag.group(1)
        if not (self.utf8 and name in (b"urlset", b"sitemapindex") and not root_tag.group(3)):
            return False
        ns = _DEFAULT_NS.search(root_tag.group(2))
        return ns is not None and ns.group(2) == SITEMAP_NS.encode()

    @staticmethod
    def _wait(buf: bytearray, final: bool) -> str:
        return TO_FULL if final or len(buf) > PROLOG_CAP else WAIT

    def _leading_space(self, buf: bytearray, pos: int, final: bool) -> bool:
        """Whitespace before <?xml: libxml2 recovers from it but then drops entity
        references such as &amp; from the text, so it is removed here and reported (a
        warning: search engines read such files). So is a byte order mark after the first
        byte, before the root, which libxml2 would take for text. False when more bytes are
        needed to tell."""
        space = _WS_BOM.match(buf, pos)
        if space is None:
            return True
        end = space.end()
        if len(buf) < end + 5 and not final:
            return False
        bom = _BOM in buf[pos:end]
        if buf.startswith(b"<?xml", end) or bom:
            line, column = _position(buf, end)
            what = "whitespace and a byte order mark" if bom else "whitespace"
            where = "the XML declaration" if buf.startswith(b"<?xml", end) else "the root"
            self.sink.issue(
                "leading-whitespace",
                f"{what} before {where} (removed)",
                line,
                column,
            )
            junk = bytes(buf[pos:end])
            self.sink.line_shift += junk.count(b"\n")
            self.sink.col_shift += len(junk) - junk.rfind(b"\n") - 1
            del buf[pos:end]
        return True

    def plain_head(self, head: bytes, root_tag: re.Match[bytes]) -> bool:
        """True when ``head`` (the document up to the end of ``root_tag``, a plain root) is
        one libxml2 reads without a word: at most a BOM, a plain XML declaration and
        whitespace before the root start tag, whose attributes are plain (``plain_prefixes``).
        The compiled lane then takes over without libxml2 reading the head."""
        start = _plain()[0].match(head)
        return (
            start is not None
            and start.end() == root_tag.start()
            and plain_prefixes(root_tag.group(2)) is not None
        )

    def _declaration(self, buf: bytearray, pos: int, end: int) -> None:
        enc = _ENCODING.search(buf, pos, end)
        odd = enc is not None and enc.group(1).lower() not in (b"utf-8", b"utf8")
        if odd and self.utf8:  # the prolog is rescanned as bytes arrive
            self.utf8 = False
            self.sink.issue(
                "non-utf8-encoding",
                f"declared encoding {enc.group(1).decode('ascii')}; "  # type: ignore[union-attr]
                "the protocol requires UTF-8",
                *_position(buf, pos),
            )

    def _doctype(self, buf: bytearray, pos: int) -> None:
        head = bytes(buf[pos : pos + 15]).lower()
        line, column = _position(buf, pos)
        if head.startswith(b"<!doctype html"):
            self.status.format = "html"
            self.sink.fatal = True
            self.sink.issue("html-page", "the document is an HTML page", line, column)
        else:
            self.sink.fatal = True
            self.sink.issue(
                "doctype-refused",
                "the document has a DOCTYPE; refused (no entity is ever expanded)",
                line,
                column,
            )
        self.status.state = DONE


@cache
def _plain() -> tuple[re.Pattern[bytes], ...]:
    """The patterns of plain heads, compiled at the first XML document (a text sitemap
    never needs them): the prolog (a BOM, an XML declaration of version 1.0, encoding UTF-8
    if any, whitespace), an attribute, a name, an attribute value, a namespace URI."""
    return (
        re.compile(
            rb"(?:\xef\xbb\xbf)?"
            rb"(?:<\?xml[ \t\r\n]+version[ \t\r\n]*=[ \t\r\n]*(?:\"1\.0\"|'1\.0')"
            rb"(?:[ \t\r\n]+encoding[ \t\r\n]*=[ \t\r\n]*(?:\"[Uu][Tt][Ff]-8\"|'[Uu][Tt][Ff]-8'))?"
            rb"[ \t\r\n]*\?>)?[ \t\r\n]*"
        ),
        re.compile(rb"[ \t\r\n]+([^\s=/>]+)[ \t\r\n]*=[ \t\r\n]*(?:\"([^\"<]*)\"|'([^'<]*)')"),
        re.compile(rb"[A-Za-z_][A-Za-z0-9_.\-]*"),
        re.compile(rb"[\x20-\x7e\t\r\n]*"),
        # a URI libxml2 takes without a word (it reports '`', '{', a second '#', a bad
        # escape...): a scheme, an authority of a plain host and port, plain path characters
        re.compile(
            rb"[A-Za-z][A-Za-z0-9+.\-]*:(?://[A-Za-z0-9.\-]+(?::[0-9]{1,5})?)?"
            rb"(?:[A-Za-z0-9\-._~!$'()*+,;=:@/?]|%[0-9A-Fa-f]{2})*"
        ),
    )


_RESERVED_URIS = (b"http://www.w3.org/XML/1998/namespace", b"http://www.w3.org/2000/xmlns/")


def plain_prefixes(attributes: bytes) -> dict[str, str] | None:
    """The namespace prefixes a root start tag with ``attributes`` (``_START_TAG``'s group
    2) declares, as an XML parser reads them, when those attributes are plain: printable
    ASCII without references, names with at most one prefix (none reserved, each declared),
    no attribute twice, namespace URIs without whitespace. None otherwise: then libxml2 may
    have a word to say, or normalise a value."""
    _, attribute, name_pattern, plain_value, plain_uri = _plain()
    declared: dict[str, str] = {}
    plain: set[bytes] = set()
    prefixed: list[tuple[bytes, bytes]] = []
    for m in attribute.finditer(attributes):
        name = m.group(1)
        value = m.group(2) if m.group(2) is not None else m.group(3)
        if b"&" in value or not plain_value.fullmatch(value):
            return None
        prefix, colon, local = name.rpartition(b":")
        if not name_pattern.fullmatch(local) or (colon and not name_pattern.fullmatch(prefix)):
            return None
        if prefix == b"xmlns":
            key = local.decode("ascii")
            if key in declared or local.lower().startswith(b"xml"):
                return None
            if value in _RESERVED_URIS or not plain_uri.fullmatch(value):
                return None
            declared[key] = value.decode("ascii")
        elif colon:
            if prefix.lower().startswith(b"xml"):
                return None
            prefixed.append((prefix, local))
        else:
            if name in plain or (name.lower().startswith(b"xml") and name != b"xmlns"):
                return None
            if name == b"xmlns" and (value in _RESERVED_URIS or not plain_uri.fullmatch(value)):
                return None
            plain.add(name)
    expanded = set()
    for prefix, local in prefixed:
        uri = declared.get(prefix.decode("ascii"))
        if uri is None or (uri, local) in expanded:
            return None
        expanded.add((uri, local))
    return declared


# a tag up to its closing '>': one outside quoted attribute values
_TAG_TO_CLOSE = lazy(rb"""<(?:[^"'>]|"[^"]*"|'[^']*')*>""")


def _tag_closed(buf: bytearray, pos: int) -> bool:
    """True when the tag starting at ``pos`` has its closing '>' in ``buf``: a '>' inside a
    quoted attribute value does not end it, so more bytes may still make it a well-formed
    start tag, as they would fed at once."""
    return _TAG_TO_CLOSE.match(buf, pos) is not None

"""The XML side of the reader: bytes of one XML document in, entries and issues out.

Two lanes read the same document and must give the same result:

* the **full lane** is lxml's ``XMLPullParser`` in recover mode (entities never resolved, no
  network, no DTD). It handles everything: urlset, sitemapindex, RSS 2.0 / 1.0, Atom 0.3 /
  1.0, any namespace, extensions, broken markup. Errors come from libxml2 with line and
  column. A guard in front of it (``XmlBody._guard``) handles what libxml2 handles badly: a
  bare '&' (reported, passed on escaped), sections left open and markup-free floods (reading
  stops), predefined entities (passed on as character references). libxml2 is fed in blocks
  at fixed offsets of its input, so that its recovery never depends on the caller's chunks.
* the **fast lane** handles the common case, a UTF-8 ``<urlset>`` in the sitemaps.org
  namespace. Records holding only loc, lastmod, changefreq and priority in protocol order,
  with values that need no correction, are matched by one regular expression and become
  ``Url`` values in bulk. Anything between them (extensions, comments, odd values) is parsed
  on its own by lxml in the root element's namespace context and handled by the full lane's
  code. Only a stretch that is not well-formed by itself hands the rest of the document to
  the full lane, after whitespace and comments that put libxml2 at the same line, column and
  block offset.

``tests/test_read_corpus.py`` and ``tests/test_read_property.py`` prove the lanes equal on the
corpus and on generated and mutated documents, fed in any chunk sizes.
"""

from __future__ import annotations

import copy
import gc
import re
import string
from collections.abc import Callable, Sequence
from datetime import UTC
from email.utils import parsedate_to_datetime
from itertools import repeat
from typing import Any

from lxml import etree

from ..dates import Lastmod
from ..extensions import SAFE_PARSER_OPTIONS, fast_extensions, parse_element
from ..extensions.rules import INVALID_CODES
from ..limits import MAX_LOC_LENGTH
from ..model import ChangeFreq, SitemapRef, Url
from .sink import (
    CHANGEFREQ,
    ESCAPE,
    HASH_MASK,
    HOST,
    MAX_ISSUES_PER_CODE,
    SCHEME,
    Sink,
    fast_lastmod,
    fast_priority,
)

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
ATOM10_NS = "http://www.w3.org/2005/Atom"
ATOM03_NS = "http://purl.org/atom/ns#"
RDF_NS = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

_BAD: Any = object()


class _Table(dict[str | None, Any]):
    """Value text -> value for the fast lane (a bounded cache of ``parse``); _BAD when the
    text is not in the plain form, and then ``refused`` is set. Refused texts are kept
    apart, never in the dict, so every lookup of one sets the flag: a block's lookups are
    judged by the flag, not by a scan of their results for _BAD (``x in list`` calls
    ``==`` per item, 16-20 ns a value)."""

    def __init__(self, parse: Callable[[str], Any], known: dict[str | None, Any]) -> None:
        super().__init__(known)
        self.parse = parse
        self.refused = False
        self.bad: set[str] = set()

    def __missing__(self, key: str | None) -> Any:
        if key is None:  # no element (every table is made with None: None; for the typing)
            return None
        value = None if key in self.bad else self.parse(key)
        if value is None:
            self.refused = True
            if len(self.bad) < 4096:
                self.bad.add(key)
            return _BAD
        if len(self) < 4096:
            self[key] = value
        return value


# --- the full lane: lxml -------------------------------------------------------------------

_ERROR_CODES = {
    "ERR_UNDECLARED_ENTITY": "undefined-entity",
    "WAR_UNDECLARED_ENTITY": "undefined-entity",
    "ERR_INVALID_CHAR": "invalid-character",
    "ERR_INVALID_DEC_CHARREF": "invalid-character",
    "ERR_INVALID_HEX_CHARREF": "invalid-character",
    "ERR_INVALID_CHARREF": "invalid-character",
    "ERR_INVALID_ENCODING": "invalid-encoding",
    "ERR_UNSUPPORTED_ENCODING": "invalid-encoding",
    "ERR_UNKNOWN_ENCODING": "invalid-encoding",
    "ERR_TAG_NOT_FINISHED": "truncated",
    "ERR_DOCUMENT_EMPTY": "empty-document",
}


def _split(tag: str) -> tuple[str, str]:
    if tag[0] == "{":
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def _entity_delta(text: str) -> int:
    """How much longer the guard makes ``text`` (see _PREDEFINED)."""
    return text.count("&lt;") + text.count("&gt;") - text.count("&quot;") - text.count("&apos;")


def _serialise(el: Any) -> str:
    """``el`` on its own: declarations of the namespaces it uses, and no others."""
    alone = copy.deepcopy(el)
    alone.tail = None
    etree.cleanup_namespaces(alone)
    return etree.tostring(alone, encoding="unicode")


def _parser() -> etree.XMLPullParser:
    return etree.XMLPullParser(
        events=("start", "end"), recover=True, dtd_validation=False, **SAFE_PARSER_OPTIONS
    )


# prolog scanning on raw bytes, before anything reaches libxml2
_WS = re.compile(rb"[ \t\r\n]+")
_START_TAG = re.compile(
    rb"<([A-Za-z_][^\s/>]*)((?:[ \t\r\n]+[^\s=/>]+[ \t\r\n]*=[ \t\r\n]*"
    rb"(?:\"[^\"<]*\"|'[^'<]*'))*)[ \t\r\n]*(/?)>"
)
_DEFAULT_NS = re.compile(rb"""(?:^|[ \t\r\n])xmlns[ \t\r\n]*=[ \t\r\n]*(["'])([^"']*)\1""")
_ENCODING = re.compile(rb"""encoding[ \t\r\n]*=[ \t\r\n]*["']([A-Za-z0-9._\-]+)["']""")
PROLOG_CAP = 65_536
LX_BLOCK = 65_536
_PAD_COMMENT_SIZE = 4096
_PAD_COMMENT = b"<!--" + b" " * (_PAD_COMMENT_SIZE - 7) + b"-->"
FAST_WAIT_CAP = 1_048_576

# The fast lane's record: protocol order, no attributes, no comments, XML whitespace between
# elements. Values are taken up to the next '<' and checked in bulk afterwards (_plain_locs,
# the reader's _Tables): a loc that is a plain http(s) URI as written (the characters of
# urls.is_plain_uri but quotes, '&' only as '&amp;', '%' only in an escape), a
# lastmod of W3C digits, an exact changefreq, a priority from 0 to 1; such a record is
# well-formed XML. Whatever does not pass goes to the full lane's code.
_S = r"[ \t\r\n]*"
_URI_CHARS = rf"(?:[A-Za-z0-9\-._~!$()*+,;=:@/?]|{ESCAPE})*"
_URI = rf"https?://{HOST}/{_URI_CHARS}(?:&amp;{_URI_CHARS})*"
_RECORD = re.compile(
    rf"<url>{_S}<loc>([^<]*)</loc>{_S}(?:<lastmod>([^<]*)</lastmod>{_S})?"
    rf"(?:<changefreq>([^<]*)</changefreq>{_S})?(?:<priority>([^<]*)</priority>{_S})?</url>"
)
# the head of a canonical record whose core values are followed by extension elements (up
# to its '</url>'); they are typed by extensions.fast_extensions when they are in the plain
# form writers produce
_EXT_HEAD = re.compile(
    rf"{_S}<url>{_S}<loc>({_URI})</loc>{_S}"
    rf"(?:<lastmod>(\d{{4}}-\d\d-\d\d(?:T[0-9:]{{8}}(?:Z|[+-]\d\d:\d\d))?)</lastmod>{_S})?"
    rf"(?:<changefreq>(always|hourly|daily|weekly|monthly|yearly|never)</changefreq>{_S})?"
    rf"(?:<priority>(0(?:\.\d{{1,4}})?|1(?:\.0{{1,4}})?)</priority>{_S})?"
    r"(?=<[A-Za-z_][^<>]*?:)"
)
_RETRY_WINDOW = 16  # records tried at once after one the fast checks refused
_ROOT_PREFIX = re.compile(rb'xmlns:([A-Za-z_][A-Za-z0-9_.-]*)=["\']([^"\']*)["\']')
_LOCS = re.compile(rf"(?:{_URI}\n)*{_URI}").fullmatch
_LOC = re.compile(_URI).fullmatch
_ORIGIN = re.compile(rf"https?://{HOST}/").match
# what a run of _LOC texts joined by line breaks may contain, and the '%' that starts no
# escape (or one of a dot, which WHATWG reads as a dot segment)
_LOC_BYTES = (string.ascii_letters + string.digits + "-._~!$()*+,;=:@/?&%\n").encode()
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})|%2[eE]").search


def _plain_locs(locs: list[str], joined: str) -> bool:
    """True when every loc text in ``locs`` (``joined`` by line breaks) matches _LOC.

    Cheap when the locs share one origin, as in nearly every sitemap: the origin is matched
    once, then string counts and one byte translation stand for the pattern.
    """
    n = len(locs)
    if joined.count("\n") != n - 1 or not joined.isascii():
        return False
    if joined.encode().translate(None, _LOC_BYTES):
        return False
    if "&" in joined and joined.count("&") != joined.count("&amp;"):
        return False
    if "%" in joined and _BAD_ESCAPE(joined):
        return False
    origin = _ORIGIN(joined)
    if origin is None:
        return False
    if joined.count("\n" + origin[0]) == n - 1:
        return True
    return _LOCS(joined) is not None


_XML_SPACE = " \t\r\n"

_PROLOG, _FAST, _SLOW, _DONE = range(4)

_OPENERS = {b"<!--": b"-->", b"<![CDATA[": b"]]>", b"<?": b"?>"}
# libxml2 (2.14) in recover mode drops predefined entity references from text once it has
# seen any error ("a&amp;b" becomes "ab"); character references survive, so these are
# handed over as character references ('&amp;' keeps its length, the others change by one)
_PREDEFINED = {
    b"&amp;": b"&#38;",
    b"&lt;": b"&#60;",
    b"&gt;": b"&#62;",
    b"&quot;": b"&#34;",
    b"&apos;": b"&#39;",
}
_GUARD_TOKEN = re.compile(rb"&|<!--|<!\[CDATA\[|<\?")
_REFERENCE = re.compile(rb"&(?:#[0-9]{1,8}|#x[0-9a-fA-F]{1,8}|[A-Za-z_:][A-Za-z0-9_.:\-]{0,50});")

_CONTINUATION = bytes(range(0x80, 0xC0))


def _chars(data: bytes) -> int:
    """Characters in UTF-8 ``data``: columns count characters, as libxml2's do."""
    return len(data) if data.isascii() else len(data.translate(None, _CONTINUATION))


_FORMATS = {
    "urlset": ("urlset", "url", 2),
    "sitemapindex": ("sitemapindex", "sitemap", 2),
    "rss": ("rss", "item", 3),
    "RDF": ("rss", "item", 2),
    "feed": ("atom", "entry", 2),
}


class XmlBody:
    """Reads one XML document pushed in chunks; entries and issues go to ``sink``."""

    def __init__(self, sink: Sink, *, fast: bool = True) -> None:
        self.sink = sink
        limits = sink.limits
        self.max_depth = limits.max_depth
        self.max_value = limits.max_value_length
        self.fast_allowed = fast and limits.max_depth >= 3 and limits.max_value_length >= 2048
        self.state = _PROLOG
        self.buf = bytearray()
        self.parser = _parser()
        self.nerr = 0  # entries of libxml2's error log read so far
        self.syntax_errors = 0  # issues reported from it
        self.depth = 0
        self.format: str | None = None
        self.entry_local = ""
        self.entry_depth = 2
        self.core_ns: frozenset[str] = frozenset()
        self.rss_ns = frozenset(("", "http://purl.org/rss/1.0/"))
        self.container = ""
        self.root_ended = False
        self.encoding_utf8 = True
        self.root_local = ""
        self.prolog_checked = False
        # the guard in front of libxml2 (see _guard)
        self.g_hold = b""
        self.g_ctx: bytes | None = None
        self.g_ctx_start = 0
        self.g_ctx_line = 0
        self.g_ctx_col = 0
        self.g_base = 0
        self.g_lines = 0
        self.g_col0 = 0
        self.g_last_gt = 0
        self.g_cap = limits.max_value_length + 65_536
        self.lx_pending = bytearray()
        self.fbytes = 0
        # raw-stream positions of entry tags, for telling a cut final entry (see _track_tags)
        self.fed = 0
        self.tag_carry = b""
        self.tag_start: re.Pattern[bytes] | None = None
        self.tag_end: re.Pattern[bytes] | None = None
        self.root_end: re.Pattern[bytes] | None = None
        self.root_end_raw = False
        self.last_start = -1
        self.last_end = -1
        # fast lane state
        self.fline = 1
        self.fcol = 1
        self.line0 = 1
        self.col0 = 1
        self.dates = _Table(fast_lastmod, {None: None})
        self.lpos = 0
        self.lline = 1
        self.mini_head = b""
        self.mini_tail = b""
        self.root_prefixes: dict[str, str] = {}
        self.mini_line = 1
        self.mini_parser = etree.XMLParser(recover=False, **SAFE_PARSER_OPTIONS)
        self.prios = _Table(fast_priority, {None: None})
        # exact spellings only: any other text is refused
        self.changefreqs = _Table(lambda _text: None, {None: None, **CHANGEFREQ})
        self.fast_throughout = False  # entered the fast lane and left it only at close
        self.fast_records_only = True  # no stretch between records needed a parser

    @property
    def dead(self) -> bool:
        return self.state == _DONE

    @property
    def plain_records(self) -> bool:
        """True when every entry was a canonical record of the fast lane's pattern (protocol
        order, no attributes, locs proven plain as written), the body held nothing else but
        whitespace, and after the last record came only the root's end tag."""
        return self.fast_throughout and self.fast_records_only

    # -- driving --
    def feed(self, data: bytes) -> None:
        state = self.state
        if state == _FAST:
            self.buf += data
            self._fast()
        elif state == _SLOW:
            self._slow(data)
        elif state == _PROLOG:
            self.buf += data
            self._prolog(final=False)

    def close(self) -> None:
        if self.state == _PROLOG:
            self._prolog(final=True)
        if self.state == _FAST:
            # proven only when what is left after the last record is the root's end tag
            self.fast_throughout = bytes(self.buf).strip(b" \t\r\n") == b"</urlset>"
            self._handoff()
        if self.state == _SLOW:
            self._close_parser()
        self.state = _DONE

    def stop(self) -> None:
        self.state = _DONE

    # -- prolog: find the root start tag on raw bytes, refuse DOCTYPEs --
    def _prolog(self, final: bool) -> None:
        buf = self.buf
        pos = 3 if buf[:3] == b"\xef\xbb\xbf" else 0
        if not self.prolog_checked:
            # whitespace before <?xml: libxml2 recovers from it but then drops entity
            # references such as &amp; from the text, so it is removed here and reported
            space = _WS.match(buf, pos)
            if space is not None:
                end = space.end()
                if len(buf) < end + 5 and not final:
                    return self._prolog_wait(final)
                if buf.startswith(b"<?xml", end):
                    line, column = self._position(end)
                    self.sink.issue(
                        "leading-whitespace",
                        "whitespace before the XML declaration (removed)",
                        line,
                        column,
                    )
                    junk = bytes(buf[pos:end])
                    self.sink.line_shift += junk.count(b"\n")
                    self.sink.col_shift += len(junk) - junk.rfind(b"\n") - 1
                    del buf[pos:end]
            self.prolog_checked = True
        n = len(buf)
        while pos < n:
            c = buf[pos]
            if c in b" \t\r\n":
                m = _WS.match(buf, pos)
                assert m is not None
                pos = m.end()
                continue
            if c != 0x3C:  # '<'
                return self._to_slow()
            if buf.startswith(b"<?", pos):
                end = buf.find(b"?>", pos)
                if end < 0:
                    return self._prolog_wait(final)
                if buf.startswith(b"<?xml", pos):
                    enc = _ENCODING.search(buf, pos, end)
                    odd = enc is not None and enc.group(1).lower() not in (b"utf-8", b"utf8")
                    if odd and self.encoding_utf8:  # the prolog is rescanned as bytes arrive
                        self.encoding_utf8 = False
                        self.sink.issue(
                            "non-utf8-encoding",
                            f"declared encoding {enc.group(1).decode('ascii')}; "  # type: ignore[union-attr]
                            "the protocol requires UTF-8",
                            *self._position(pos),
                        )
                pos = end + 2
                continue
            if buf.startswith(b"<!--", pos):
                end = buf.find(b"-->", pos)
                if end < 0:
                    return self._prolog_wait(final)
                pos = end + 3
                continue
            if buf.startswith(b"<!", pos):
                if n - pos < 15 and not final:
                    return self._prolog_wait(final)
                head = bytes(buf[pos : pos + 15]).lower()
                line, column = self._position(pos)
                if head.startswith(b"<!doctype html"):
                    self.format = "html"
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
                self.state = _DONE
                return None
            m = _START_TAG.match(buf, pos)
            if m is None:
                if buf.find(b">", pos) < 0 and not final:
                    return self._prolog_wait(final)
                return self._to_slow()
            end = m.end()
            fast = (
                self.fast_allowed
                and self.encoding_utf8
                and m.group(1) == b"urlset"
                and not m.group(3)
            )
            if fast:
                ns = _DEFAULT_NS.search(m.group(2))
                fast = ns is not None and ns.group(2) == SITEMAP_NS.encode()
            head_bytes = bytes(buf[:end])
            rest = bytes(buf[end:])
            self.buf = bytearray()
            self.state = _SLOW
            self._slow(head_bytes, now=True)
            if self.state != _SLOW:
                return None
            if fast and self.format == "urlset" and not self.g_hold:
                root_tag = m.group(0)
                self.mini_head = root_tag
                self.mini_tail = b"</" + m.group(1) + b">"
                self.root_prefixes = {
                    k.decode("utf-8", "replace"): v.decode("utf-8", "replace")
                    for k, v in _ROOT_PREFIX.findall(root_tag)
                }
                self.mini_line = 1 + root_tag.count(b"\n")
                nl = head_bytes.count(b"\n")
                last = head_bytes.rfind(b"\n")
                self.fline = self.line0 = 1 + nl
                self.fcol = self.col0 = len(head_bytes) - last
                self.state = _FAST
                self.buf = bytearray(rest)
                self._fast()
            elif rest:
                self._slow(rest)
            return None
        if final:
            self._to_slow()
        return None

    def _prolog_wait(self, final: bool) -> None:
        if final or len(self.buf) > PROLOG_CAP:
            self._to_slow()

    def _to_slow(self) -> None:
        data = bytes(self.buf)
        self.buf = bytearray()
        self.state = _SLOW
        if data:
            self._slow(data)

    def _position(self, pos: int) -> tuple[int, int]:
        head = bytes(self.buf[:pos])
        return head.count(b"\n") + 1, pos - head.rfind(b"\n")

    # -- the fast lane --
    def _fast(self) -> None:
        buf = self.buf
        end = buf.rfind(b"</url>")
        if end < 0:
            if len(buf) > FAST_WAIT_CAP:
                self._handoff()
            return
        end += 6
        bad = False
        try:
            text = buf[:end].decode("utf-8")
        except UnicodeDecodeError as exc:
            # read the records before the first invalid byte, then let libxml2 report it
            bad = True
            end = buf.rfind(b"</url>", 0, exc.start)
            if end < 0:
                self._handoff()
                return
            text = buf[: end + 6].decode("utf-8")
        enabled = gc.isenabled()
        if enabled:  # many small tuples built in a tight loop: collections would only cost
            gc.disable()
        try:
            pos = self._fast_text(text)
        finally:
            if enabled:
                gc.enable()
        self._fast_consumed(text, pos)
        if (bad or pos < len(text)) and self.state == _FAST:
            self._handoff()

    def _fast_text(self, text: str) -> int:
        """Read the records of ``text`` (which ends with '</url>'); returns how far it got.

        Runs of canonical records are read directly; anything between them (a record with
        extensions, a comment, an unusual value) is parsed on its own by lxml, in the root
        element's namespace context, and handled by the full lane's code. Only if that
        stretch is not well-formed by itself does the full lane take over the document.
        """
        parts = _RECORD.split(text)
        total = len(parts) // 5
        gaps = parts[0::5]
        tail = gaps.pop()
        done = 0
        if not tail and not "".join(gaps).strip(_XML_SPACE):
            done = self._fast_run(parts, 0, total, text, None)
            if done == total:
                return len(text)
        spans = [m.span() for m in _RECORD.finditer(text)]
        if self.state != _FAST:
            return spans[done - 1][1] if done else 0
        self.lpos = 0
        self.lline = self.fline
        # records before ``done`` were passed on above; go on with the one that was not
        cur = spans[done - 1][1] if done else 0
        r = done
        # run_end[i]: where the run of records from i that only whitespace separates ends
        # (one backward pass: rescanning from each record would be quadratic)
        run_end = [total] * (total + 1)
        for i in range(total - 2, r - 1, -1):
            between = text[spans[i][1] : spans[i + 1][0]]
            run_end[i] = i + 1 if between.strip(_XML_SPACE) else run_end[i + 1]
        # after a record the fast checks refuse, try a short stretch first and double it
        # while records pass, so a document of refused records costs linear time
        window = total
        while True:
            gap_end = spans[r][0] if r < total else len(text)
            if cur < gap_end and text[cur:gap_end].strip(_XML_SPACE):
                reached = self._fast_gap(text, cur, gap_end)
                if reached < gap_end or self.state != _FAST:
                    return reached
            cur = gap_end
            if r == total:
                return cur
            s = min(run_end[r], r + window)
            done = self._fast_run(parts, r, s, text, spans)
            if self.state != _FAST:
                return cur
            if done < s - r:  # this record's values need the full lane's judgement
                x = r + done
                start, stop = spans[x]
                reached = self._fast_gap(text, start, stop)
                if reached < stop or self.state != _FAST:
                    return reached
                cur = stop
                r = x + 1
                window = _RETRY_WINDOW
            else:
                cur = spans[s - 1][1]
                r = s
                window = min(total, window * 2)

    def _line_of(self, text: str, offset: int) -> int:
        """Line of ``offset`` in ``text`` (offsets asked in increasing order per text)."""
        self.lline += text.count("\n", self.lpos, offset)
        self.lpos = offset
        return self.lline

    def _fast_gap(self, text: str, start: int, stop: int) -> int:
        """Parse ``text[start:stop]`` (what lies between canonical records) on its own, one
        piece up to each '</url>' at a time, so that where a piece starts never depends on
        how the input was chunked; returns how far it got."""
        while start < stop:
            end = text.find("</url>", start, stop)
            end = stop if end < 0 else end + 6
            if text[start:end].strip(_XML_SPACE) and not self._fast_piece(text, start, end):
                return start
            if self.state != _FAST:
                return end
            start = end
        return stop

    def _fast_piece(self, text: str, start: int, stop: int) -> bool:
        self.fast_records_only = False
        line = self._line_of(text, start)
        if self.root_prefixes and self._fast_extension_record(text, start, stop, line):
            return True
        mini = self.mini_head + text[start:stop].encode("utf-8") + self.mini_tail
        parser = self.mini_parser
        try:
            root = etree.fromstring(mini, parser)
        except etree.XMLSyntaxError:
            return False
        if any(e.level >= 2 for e in parser.error_log):
            return False
        events = list(etree.iterwalk(root, events=("start", "end")))[1:-1]
        sink = self.sink
        delta = line - self.mini_line
        sink.line_shift += delta
        try:
            self._events(events, truncated=False)
        finally:
            sink.line_shift -= delta
        return True

    def _fast_extension_record(self, text: str, start: int, stop: int, line: int) -> bool:
        """A canonical record with image or hreflang extensions in their plain form, read
        without an XML parser; False leaves the record to lxml (nothing is emitted then)."""
        m = _EXT_HEAD.match(text, start, stop)
        # a piece ends at its first '</url>' (_fast_gap)
        if m is None or not text.endswith("</url>", start, stop):
            return False
        body = text[m.end() : stop - 6]
        if "\x00" in body:
            return False
        extensions = fast_extensions(body, self.root_prefixes)
        if extensions is None:
            return False
        sink = self.sink
        url_at = text.index("<url>", start)
        at = line + text.count("\n", start, url_at)  # the line of <url>, as lxml gives it

        def line_of(group: int) -> int:  # a value's issues name its element's line
            return at + text.count("\n", url_at, m.start(group))

        loc = sink.loc(m[1].replace("&amp;", "&"), line_of(1))
        if loc is None:
            return False
        lastmod = None if m[2] is None else sink.lastmod(m[2], line_of(2))
        changefreq = None if m[3] is None else sink.changefreq(m[3], line_of(3))
        priority = None if m[4] is None else sink.priority(m[4], line_of(4))
        sink.add(Url._trusted(loc, lastmod, changefreq, priority, extensions), at)
        return True

    def _fast_run(
        self,
        parts: list[str | None],
        a: int,
        b: int,
        text: str,
        spans: list[tuple[int, int]] | None,
    ) -> int:
        """Records a..b-1 of ``parts``, with C-level maps when nothing is unusual; any doubt
        (a duplicate, a limit, an odd value) and the record loop decides."""
        sink = self.sink
        limit = b - a
        if limit == 0 or sink.count + limit > sink.next_check:
            return self._fast_records(parts, a, b, text, spans)
        first = 5 * a
        stop = 5 * b
        locs = parts[first + 1 : stop : 5]
        joined = "\n".join(locs)  # type: ignore[arg-type]
        if not _plain_locs(locs, joined):  # type: ignore[arg-type]
            return self._fast_records(parts, a, b, text, spans)
        if "&" in joined:
            locs = list(map(str.replace, locs, repeat("&amp;"), repeat("&")))  # type: ignore[arg-type]
        if "/." in joined or max(map(len, locs)) > MAX_LOC_LENGTH:  # type: ignore[arg-type]
            return self._fast_records(parts, a, b, text, spans)
        tables = self.dates, self.changefreqs, self.prios
        for table in tables:
            table.refused = False
        lastmods = list(map(self.dates.__getitem__, parts[first + 2 : stop : 5]))
        changefreqs = list(map(self.changefreqs.__getitem__, parts[first + 3 : stop : 5]))
        priorities = list(map(self.prios.__getitem__, parts[first + 4 : stop : 5]))
        if any(table.refused for table in tables):
            return self._fast_records(parts, a, b, text, spans)
        hashes = list(map(HASH_MASK.__and__, map(hash, locs)))
        seen = sink.seen
        if not seen.isdisjoint(hashes) or len(set(hashes)) != limit:
            return self._fast_records(parts, a, b, text, spans)
        seen.update(hashes)
        sink.count += limit
        sink.out.extend(
            map(
                tuple.__new__,
                repeat(Url, limit),
                zip(
                    locs,
                    lastmods,
                    changefreqs,
                    priorities,
                    repeat((), limit),
                    strict=False,
                ),
            )
        )
        return limit

    def _fast_records(
        self,
        parts: list[str | None],
        a: int,
        b: int,
        text: str,
        spans: list[tuple[int, int]] | None,
    ) -> int:
        """Pass on records a..b-1 of ``parts`` (from _RECORD.split) while each is clean;
        returns how many were passed on."""
        sink = self.sink
        out = sink.out
        seen = sink.seen
        dates = self.dates
        prios = self.prios
        changefreqs = self.changefreqs
        new = tuple.__new__
        url = Url
        no_extensions = ()
        first = 5 * a
        stop = 5 * b
        done = 0
        count = sink.count
        check = sink.next_check
        for loc, lastmod, changefreq, priority in zip(
            parts[first + 1 : stop : 5],
            parts[first + 2 : stop : 5],
            parts[first + 3 : stop : 5],
            parts[first + 4 : stop : 5],
            strict=True,
        ):
            assert loc is not None
            if _LOC(loc) is None:
                break
            if "&" in loc:
                loc = loc.replace("&amp;", "&")
            if "/." in loc or len(loc) > MAX_LOC_LENGTH:
                break
            lm = dates[lastmod]
            if lm is _BAD:
                break
            cf = changefreqs[changefreq]
            pr = prios[priority]
            if cf is _BAD or pr is _BAD:
                break
            if count >= check:
                sink.count = count
                if not sink.counted(False):
                    self.state = _DONE
                    break
                check = sink.next_check
            count += 1
            h = hash(loc) & HASH_MASK
            if h in seen:
                per_code = sink.per_code
                if per_code.get("duplicate-loc", 0) < MAX_ISSUES_PER_CODE:
                    if spans is None:
                        spans = [m.span() for m in _RECORD.finditer(text)]
                        self.lpos = 0
                        self.lline = self.fline
                    sink.duplicate(loc, self._line_of(text, spans[a + done][0]))
                else:
                    per_code["duplicate-loc"] += 1
            else:
                seen.add(h)
            out.append(new(url, (loc, lm, cf, pr, no_extensions)))
            done += 1
        sink.count = count
        return done

    def _fast_consumed(self, text: str, pos: int) -> None:
        """Drop the first ``pos`` characters of ``text`` (the start of ``buf``) as read."""
        if not pos:
            return
        lines = text.count("\n", 0, pos)
        if lines:
            self.fline += lines
            self.fcol = pos - text.rfind("\n", 0, pos)
        else:
            self.fcol += pos
        nbytes = pos if text.isascii() else len(text[:pos].encode("utf-8"))
        self.fbytes += nbytes
        if "&" in text:
            # the guard hands '&lt;' '&gt;' over one byte longer, '&quot;' '&apos;' one shorter
            done = text[:pos]
            self.fbytes += _entity_delta(done)
            if lines:
                self.fcol += _entity_delta(done[done.rfind("\n") :])
            else:
                self.fcol += _entity_delta(done)
        del self.buf[:nbytes]

    def _handoff(self) -> None:
        """Give the rest to the full lane, at the same line and column."""
        self.state = _SLOW
        # The pad has the byte length of what was read, so libxml2 sees the rest at the
        # same stream offsets as in the full lane (see _lx_feed), and ends at the same line
        # and column: spaces, then the newlines, then the last line's columns.
        if self.fline > self.line0:
            tail = b"\n" * (self.fline - self.line0) + b" " * (self.fcol - 1)
        else:
            tail = b" " * (self.fcol - self.col0)
        # only the offset modulo LX_BLOCK matters for where libxml2's blocks end
        filler = max(self.fbytes - len(tail), 0) % LX_BLOCK
        # the filler is comments, not spaces: one text node of megabytes of whitespace would
        # hit libxml2's text-node limit
        if filler % _PAD_COMMENT_SIZE < 7:
            self._pad(b" " * (filler % _PAD_COMMENT_SIZE))
            filler -= filler % _PAD_COMMENT_SIZE
        else:
            size = filler % _PAD_COMMENT_SIZE
            self._pad(b"<!--" + b" " * (size - 7) + b"-->")
            filler -= size
        block = _PAD_COMMENT * (FAST_WAIT_CAP // _PAD_COMMENT_SIZE)
        while filler > 0:
            step = min(filler, len(block))
            self._pad(block[:step])
            filler -= step
        for i in range(0, len(tail), FAST_WAIT_CAP):
            self._pad(tail[i : i + FAST_WAIT_CAP])
        data = bytes(self.buf)
        self.buf = bytearray()
        if data and self.state == _SLOW:
            self._slow(data)

    def _pad(self, pad: bytes) -> None:
        """Feed whitespace standing for what the fast lane read: libxml2 counts its lines and
        columns; the guard and the tag tracking only account for it."""
        if self.state != _SLOW:
            return
        lines = pad.count(b"\n")
        if lines:
            self.g_lines += lines
            self.g_col0 = len(pad) - pad.rfind(b"\n") - 1
        else:
            self.g_col0 += len(pad)
        self.g_base += len(pad)
        self.g_last_gt = self.g_base
        self._lx_feed(pad, track=False)

    # -- the full lane --
    def _slow(self, data: bytes, final: bool = False, now: bool = False) -> None:
        data = self._guard(data, final)
        if self.state == _DONE or not data:
            return
        self._lx_feed(data, now=now)

    def _lx_feed(self, data: bytes, *, now: bool = False, track: bool = True) -> None:
        """Feed libxml2 in blocks that start at fixed offsets of its input (after the root
        start tag, which goes alone), whatever the caller's chunks: libxml2's recovery from
        broken markup depends on where its input chunks end, and this keeps it identical."""
        if now:
            self._lx_block(data, track)
            return
        pending = self.lx_pending
        pending += data
        if len(pending) < LX_BLOCK:
            return
        cut = len(pending) - len(pending) % LX_BLOCK
        block = bytes(pending[:cut])
        del pending[:cut]
        self._lx_block(block, track)

    def _lx_flush(self) -> None:
        if self.lx_pending and self.state != _DONE:
            block = bytes(self.lx_pending)
            self.lx_pending = bytearray()
            self._lx_block(block, True)

    def _lx_block(self, data: bytes, track: bool) -> None:
        if self.state == _DONE:
            return
        try:
            self.parser.feed(data)
        except etree.XMLSyntaxError as exc:
            self._errors()
            self._fatal_syntax(exc)
            return
        self._events(list(self.parser.read_events()), truncated=False)
        self._errors()
        if track:
            self._track_tags(data)
        else:
            self.fed += len(data)
            self.tag_carry = b""

    def _guard(self, data: bytes, final: bool) -> bytes:
        """What libxml2 must not see, handled before it does.

        * A bare '&' (not starting an entity or character reference): libxml2's push parser
          then waits for a ';' that may never come, holding the rest of the document in
          memory. It is reported here with its position and passed on as '&amp;'.
        * A comment, CDATA section or processing instruction left open, or a stretch without
          any '>' longer than the value limit: libxml2 would buffer it all. Reading stops.
        """
        if self.g_hold:
            data = self.g_hold + data
            self.g_hold = b""
        n = len(data)
        out: list[bytes] = []
        i = emit = 0
        hold = 0
        while i < n:
            closer = self.g_ctx
            if closer is not None:
                j = data.find(closer, i)
                if j < 0:
                    hold = 0 if final else min(len(closer) - 1, n - i)
                    if self.g_base + n - self.g_ctx_start > self.g_cap:
                        self._guard_stop(
                            "not-well-formed",
                            f"a comment, CDATA section or processing instruction is not closed "
                            f"within {self.g_cap:,} bytes",
                            self.g_ctx_line,
                            self.g_ctx_col,
                        )
                        return b""
                    break
                i = j + len(closer)
                self.g_ctx = None
                continue
            m = _GUARD_TOKEN.search(data, i)
            if m is None:
                if not final:
                    lt = data.rfind(b"<", max(i, n - 9))
                    if lt >= 0 and any(t.startswith(data[lt:]) for t in _OPENERS):
                        hold = n - lt
                break
            k = m.start()
            token = m.group()
            if token == b"&":
                ref = _REFERENCE.match(data, k)
                if ref is not None:
                    i = ref.end()
                    replacement = _PREDEFINED.get(ref.group())
                    if replacement is not None:
                        out.append(data[emit:k])
                        out.append(replacement)
                        emit = i
                    continue
                if n - k < 64 and not final:
                    hold = n - k
                    break
                line, column = self._guard_position(data, k)
                self.sink.issue(
                    "unescaped-ampersand",
                    "'&' not followed by an entity name and ';' (read as '&amp;')",
                    line,
                    column,
                )
                out.append(data[emit:k])
                out.append(b"&amp;")
                emit = i = k + 1
                continue
            self.g_ctx = _OPENERS[token]
            self.g_ctx_start = self.g_base + k
            self.g_ctx_line, self.g_ctx_col = self._guard_position(data, k)
            i = m.end()
        end = n - hold
        if hold:
            self.g_hold = data[end:]
        if out:
            out.append(data[emit:end])
            done = b"".join(out)
        else:
            done = data[:end]
        consumed = data[:end]
        lines = consumed.count(b"\n")
        last_nl = consumed.rfind(b"\n")
        if lines:
            self.g_lines += lines
            self.g_col0 = _chars(consumed[last_nl + 1 :])
        else:
            self.g_col0 += _chars(consumed)
        gt = consumed.rfind(b">")
        if gt >= 0:
            self.g_last_gt = self.g_base + gt
        self.g_base += end
        if self.g_base - self.g_last_gt > self.g_cap and self.g_ctx is None:
            self._guard_stop(
                "value-too-long",
                f"no markup for {self.g_cap:,} bytes: a value or tag longer than "
                "ReadLimits.max_value_length",
                self.g_lines + 1,
                self.g_col0,
            )
            return b""
        return done

    def _guard_position(self, data: bytes, k: int) -> tuple[int, int]:
        nl = data.rfind(b"\n", 0, k)
        line = self.g_lines + data.count(b"\n", 0, k) + 1
        column = _chars(data[nl + 1 : k]) + 1 if nl >= 0 else self.g_col0 + _chars(data[:k]) + 1
        return line, column

    def _guard_stop(self, code: str, message: str, line: int, column: int) -> None:
        self.sink.issue(code, message, line, column)
        if self.format is None:
            self.sink.fatal = True
        self.state = _DONE

    def _track_tags(self, data: bytes) -> None:
        """Remember where the last entry start tag and the last entry end tag lie in the raw
        stream, so that close() can tell a cut final entry from one libxml2 merely held back."""
        window = self.tag_carry + data
        base = self.fed - len(self.tag_carry)
        self.fed += len(data)
        self.tag_carry = window[-64:]
        if self.tag_start is None:
            if not self.entry_local:
                return
            name = re.escape(self.entry_local.encode())
            self.tag_start = re.compile(rb"<(?:[\w.\-]+:)?" + name + rb"[ \t\r\n>]")
            self.tag_end = re.compile(rb"</(?:[\w.\-]+:)?" + name + rb"[ \t\r\n]*>")
            root = re.escape(self.root_local.encode())
            self.root_end = re.compile(rb"</(?:[\w.\-]+:)?" + root + rb"[ \t\r\n]*>")
        assert self.tag_end is not None and self.root_end is not None
        if self.root_end.search(window):
            self.root_end_raw = True
        for m in self.tag_start.finditer(window):
            self.last_start = max(self.last_start, base + m.start())
        for m in self.tag_end.finditer(window):
            self.last_end = max(self.last_end, base + m.start())

    def _fatal_syntax(self, exc: etree.XMLSyntaxError) -> None:
        line, column = exc.position if exc.position else (0, 0)
        self.sink.issue("not-well-formed", str(exc.msg or exc), line, column)
        if self.format is None:
            self.sink.fatal = True
        self.state = _DONE

    def _close_parser(self) -> None:
        ended = self.root_ended
        if self.g_hold:
            self._slow(b"", final=True)
        self._lx_flush()
        if self.state == _DONE:
            return
        try:
            self.parser.close()
        except etree.XMLSyntaxError as exc:
            events = list(self.parser.read_events())
            self._errors()
            # a document without a root gets its own issue unless an error explains it
            # already, whenever that error came (feeding at once or in chunks alike)
            if self.format is None and not events:
                if not self.syntax_errors:
                    self._fatal_syntax(exc)
                else:
                    self.sink.fatal = True
                return
            self._events(events, truncated=self.last_start > self.last_end)
            return
        events = list(self.parser.read_events())
        self._errors()
        if self.format is None:
            if not self.syntax_errors:
                self.sink.issue("not-well-formed", "no root element found")
            self.sink.fatal = True
            return
        self._events(events, truncated=self.last_start > self.last_end)
        stopped = any(
            self.sink.per_code.get(c) for c in ("truncated", "value-too-long", "depth-limit")
        )
        if not ended and not self.root_end_raw and not stopped and self.state != _DONE:
            self.sink.issue("truncated", f"the document ends before the end of <{self.root_local}>")

    def _errors(self) -> None:
        log = self.parser.feed_error_log
        n = len(log)
        issue = self.sink.issue
        for i in range(self.nerr, n):
            e = log[i]
            if e.level < 2:  # libxml2 warnings (e.g. a relative namespace URI) are not ours
                continue
            message = e.message.strip()
            code = _ERROR_CODES.get(e.type_name, "not-well-formed")
            if e.type_name == "ERR_RESERVED_XML_NAME" and "only at the start" in message:
                code = "leading-whitespace"
            elif "not proper UTF-8" in message or "Invalid bytes in character" in message:
                code = "invalid-encoding"
            elif "Resource limit exceeded" in message or "huge text node" in message:
                code = "value-too-long"
            elif "Excessive depth" in message:
                code = "depth-limit"
            issue(code, message, e.line, e.column)
            self.syntax_errors += 1
        self.nerr = n

    def _events(self, events: Sequence[tuple[str, Any]], truncated: bool) -> None:
        last = -1
        if truncated:
            depth = self.depth
            for i, (action, _el) in enumerate(events):
                if action == "start":
                    depth += 1
                else:
                    if depth == self.entry_depth:
                        last = i
                    depth -= 1
        for i, (action, el) in enumerate(events):
            if action == "start":
                self.depth += 1
                if self.depth == 1:
                    self._root(el)
                    if self.state == _DONE:
                        return
                elif self.depth > self.max_depth:
                    self.sink.issue(
                        "depth-limit",
                        f"elements nest deeper than {self.max_depth} levels (ReadLimits.max_depth)",
                        el.sourceline or 0,
                    )
                    self.sink.fatal = self.sink.fatal or self.sink.count == 0
                    self.state = _DONE
                    return
                continue
            depth = self.depth
            self.depth -= 1
            if depth == self.entry_depth:
                if i == last:
                    self._cut(el)
                else:
                    self._entry(el)
                self._drop(el)
                if self.sink.stopped:
                    self.state = _DONE
                    return
            elif depth == 2:
                if self.entry_depth == 3 and _split(el.tag)[1] == "channel":
                    continue
                self._unknown(el)
                self._drop(el)
            elif depth == 1:
                self.root_ended = True

    @staticmethod
    def _drop(el: Any) -> None:
        el.clear()
        parent = el.getparent()
        if parent is not None:
            while el.getprevious() is not None:
                del parent[0]

    def _root(self, el: Any) -> None:
        tag = el.tag
        ns, local = _split(tag)
        sink = self.sink
        line = el.sourceline or 0
        self.root_local = local
        if local.lower() == "html":
            self.format = "html"
            sink.fatal = True
            sink.issue("html-page", "the document is an HTML page", line)
            self.state = _DONE
            return
        spec = _FORMATS.get(local)
        if spec is None:
            self.format = "unknown"
            sink.fatal = True
            sink.issue("unknown-root", f"root element <{local}> is not a sitemap or feed", line)
            self.state = _DONE
            return
        self.format, self.entry_local, self.entry_depth = spec
        if self.format in ("urlset", "sitemapindex"):
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

    def _unknown(self, el: Any) -> None:
        tag = el.tag
        if not isinstance(tag, str) or self.format in ("rss", "atom"):
            return
        ns, local = _split(tag)
        shown = f"{{{ns}}}{local}" if ns else local
        self.sink.issue("unknown-element", f"<{shown}> is not expected here", el.sourceline or 0)

    def _text(self, el: Any, line: int) -> str | None:
        text: str | None = el.text
        if len(el):
            text = "".join(t for t in el.itertext() if isinstance(t, str))
            self.sink.issue(
                "unexpected-child",
                f"<{_split(el.tag)[1]}> holds markup; its text was used",
                el.sourceline or line,
            )
        if text is None:
            return ""
        if len(text) > self.max_value:
            self.sink.issue(
                "value-too-long",
                f"<{_split(el.tag)[1]}> holds {len(text):,} characters "
                f"(ReadLimits.max_value_length is {self.max_value:,})",
                el.sourceline or line,
            )
            return None
        stripped = text.strip()
        if len(stripped) != len(text):
            self.sink.issue(
                "whitespace-in-value",
                f"<{_split(el.tag)[1]}> {stripped[:100]!r} has whitespace around it",
                el.sourceline or line,
            )
        return stripped

    def _cut(self, el: Any) -> None:
        loc = ""
        for child in el:
            if isinstance(child.tag, str) and _split(child.tag)[1] in ("loc", "link"):
                loc = (child.text or child.get("href") or "").strip()
                break
        what = f" ({loc[:200]})" if loc else ""
        self.sink.issue(
            "truncated-entry",
            f"the document ends inside this <{self.entry_local}>{what}; it was not passed on",
            el.sourceline or 0,
        )

    def _entry(self, el: Any) -> None:
        tag = el.tag
        if not isinstance(tag, str):
            return
        ns, local = _split(tag)
        if local != self.entry_local or (ns not in self.core_ns and self.format != "rss"):
            self._unknown(el)
            return
        line = el.sourceline or 0
        fmt = self.format
        if fmt == "urlset" or fmt == "sitemapindex":
            self._sitemap_entry(el, line, fmt == "sitemapindex")
        elif fmt == "rss":
            self._rss_entry(el, line)
        else:
            self._atom_entry(el, line)

    def _sitemap_entry(self, el: Any, line: int, index: bool) -> None:
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
            ctag = child.tag
            if not isinstance(ctag, str):
                continue
            cns, clocal = _split(ctag)
            if cns in core:
                if clocal == "loc":
                    if have_loc:
                        sink.issue(
                            "repeated-element",
                            "a second <loc> in one entry starts a new entry",
                            child.sourceline or line,
                        )
                        if not flush():
                            return
                        loc, lastmod, changefreq, priority = None, None, None, None
                        extensions = []
                        seen = set()
                    have_loc = True
                    text = self._text(child, line)
                    if text is not None:
                        loc = sink.loc(text, child.sourceline or line)
                    continue
                if clocal in seen and clocal in ("lastmod", "changefreq", "priority"):
                    sink.issue(
                        "repeated-element",
                        f"<{clocal}> given twice; the first value was used",
                        child.sourceline or line,
                    )
                    continue
                if clocal == "lastmod":
                    seen.add(clocal)
                    text = self._text(child, line)
                    if text is not None:
                        lastmod = sink.lastmod(text, child.sourceline or line)
                    continue
                if not index and clocal == "changefreq":
                    seen.add(clocal)
                    text = self._text(child, line)
                    if text is not None:
                        changefreq = sink.changefreq(text, child.sourceline or line)
                    continue
                if not index and clocal == "priority":
                    seen.add(clocal)
                    text = self._text(child, line)
                    if text is not None:
                        priority = sink.priority(text, child.sourceline or line)
                    continue
                self._unknown(child)
                if index:
                    continue
            elif index:
                self._unknown(child)
                continue
            # typed (Image, Video, News, Alternate) where urlset models the element; else
            # raw, with the reason reported, so that nothing is lost on a round trip
            parsed = parse_element(child, _serialise)
            extensions.append(parsed.value)
            if parsed.error and not parsed.unmodelled and cns in INVALID_CODES:
                sink.issue(INVALID_CODES[cns], parsed.error, child.sourceline or line)
            for warning in parsed.warnings:
                sink.issue("extension-order", warning, child.sourceline or line)
        if not have_loc:
            text = (el.text or "").strip()
            if text:
                sink.issue("loc-as-text", f"{text[:200]!r} is not inside <loc>", line)
                loc = sink.loc(text, line)
            else:
                sink.issue("missing-loc", f"<{self.entry_local}> without <loc>", line)
                return
        flush()

    def _rss_entry(self, el: Any, line: int) -> None:
        sink = self.sink
        link = guid = None
        lastmod: Lastmod | None = None
        for child in el:
            ctag = child.tag
            if not isinstance(ctag, str):
                continue
            cns, clocal = _split(ctag)
            if clocal == "link" and cns in self.rss_ns and link is None:
                link = self._text(child, line)
            elif clocal == "guid" and guid is None:
                text = self._text(child, line)
                permalink = child.get("isPermaLink", "true").strip().lower() != "false"
                if text and (permalink or SCHEME(text)):
                    guid = text
            elif clocal == "pubDate" and lastmod is None:
                text = self._text(child, line)
                if text is not None:
                    lastmod = self._rfc822(text, child.sourceline or line)
            elif clocal == "date" and lastmod is None:  # dc:date in RSS 1.0
                text = self._text(child, line)
                if text is not None:
                    lastmod = sink.lastmod(text, child.sourceline or line)
        text = link or guid
        if not text:
            sink.issue("missing-link", "<item> has no <link>", line)
            return
        loc = sink.loc(text, line)
        if loc is not None:
            sink.add(Url._trusted(loc, lastmod), line)

    def _rfc822(self, text: str, line: int) -> Lastmod | None:
        try:
            value = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            value = None
        if value is not None and value.tzinfo is None and text.rstrip().endswith("-0000"):
            value = value.replace(tzinfo=UTC)  # RFC 5322: -0000 is UTC, source zone unknown
        if value is None or value.tzinfo is None:
            shown = text[:100]
            self.sink.issue("invalid-pubdate", f"{shown!r} is not an RFC 822 date with zone", line)
            return None
        return value

    def _atom_entry(self, el: Any, line: int) -> None:
        sink = self.sink
        plain = alternate = None
        lastmod_text: str | None = None
        fallback_date: str | None = None
        for child in el:
            ctag = child.tag
            if not isinstance(ctag, str):
                continue
            clocal = _split(ctag)[1]
            if clocal == "link":
                href = (child.get("href") or "").strip()
                rel = child.get("rel")
                if href:
                    if rel is None and plain is None:
                        plain = href
                    elif rel == "alternate" and alternate is None:
                        alternate = href
            elif clocal in ("updated", "modified") and lastmod_text is None:
                lastmod_text = self._text(child, line)
            elif clocal in ("published", "issued") and fallback_date is None:
                fallback_date = self._text(child, line)
        href = plain or alternate
        if not href:
            sink.issue("missing-link", "<entry> has no <link href>", line)
            return
        loc = sink.loc(href, line)
        text = lastmod_text if lastmod_text is not None else fallback_date
        lastmod = sink.lastmod(text, line) if text else None
        if loc is not None:
            sink.add(Url._trusted(loc, lastmod), line)

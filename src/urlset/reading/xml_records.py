"""The fast lane's records: the text of whole ``<url>`` records in, ``Url`` values out.

``RecordReader.read`` takes decoded text that ends with a '</url>'. Runs of canonical records
(``_RECORD``: loc, lastmod, changefreq, priority in protocol order, values in their plain
form) become ``Url`` values in bulk; anything between them (a record with extensions, a
comment, an unusual value) is parsed on its own by lxml in the root element's namespace
context and read by the full lane's ``ElementReader``. It returns how far it got: a stretch
that is not well-formed by itself ends the fast lane there.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable
from itertools import repeat
from typing import Any

from lxml import etree

from ..extensions import SAFE_PARSER_OPTIONS, fast_extensions
from ..limits import MAX_LOC_LENGTH
from ..model import Url
from .sink import (
    CHANGEFREQ,
    ESCAPE,
    HASH_MASK,
    HOST,
    MAX_ISSUES_PER_CODE,
    Sink,
    fast_lastmod,
    fast_priority,
)
from .xml_common import DONE, FAST, Status
from .xml_elements import ElementReader

XML_SPACE = " \t\r\n"
_BAD: Any = object()

# The fast lane's record: protocol order, no attributes, no comments, XML whitespace between
# elements. Values are taken up to the next '<' and checked in bulk afterwards (_plain_locs,
# the _Tables): a loc that is a plain http(s) URI as written (the characters of
# urls.is_plain_uri but quotes, '&' only as '&amp;', '%' only in an escape), a
# lastmod of W3C digits, an exact changefreq, a priority from 0 to 1; such a record is
# well-formed XML. Whatever does not pass is read by the full lane's ElementReader.
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
_ORIGINS = re.compile(r"^https?://[^/\n]*/", re.M).findall  # of locs _LOCS matched
# what a run of _LOC texts joined by line breaks may contain, and the '%' that starts no
# escape (or one of a dot, which WHATWG reads as a dot segment)
_LOC_BYTES = (string.ascii_letters + string.digits + "-._~!$()*+,;=:@/?&%\n").encode()
_BAD_ESCAPE = re.compile(r"%(?![0-9A-Fa-f]{2})|%2[eE]").search


def _plain_locs(locs: list[str], joined: str) -> bool:
    """True when every loc text in ``locs`` (``joined`` by line breaks) matches _LOC."""
    return _loc_origin(locs, joined) is not None


def _loc_origin(locs: list[str], joined: str) -> str | None:
    """The origin (``scheme://authority/``) every loc text in ``locs`` (``joined`` by line
    breaks) starts with when each matches _LOC, "" when they match on several origins,
    None when one does not match.

    Cheap when the locs share one origin, as in nearly every sitemap: the origin is matched
    once, then string counts and one byte translation stand for the pattern.
    """
    n = len(locs)
    if joined.count("\n") != n - 1 or not joined.isascii():
        return None
    if joined.encode().translate(None, _LOC_BYTES):
        return None
    if "&" in joined and joined.count("&") != joined.count("&amp;"):
        return None
    if "%" in joined and _BAD_ESCAPE(joined):
        return None
    origin = _ORIGIN(joined)
    if origin is None:
        return None
    if joined.count("\n" + origin[0]) == n - 1:
        return origin[0]
    return "" if _LOCS(joined) is not None else None


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


def _extension_record(
    text: str, start: int, stop: int, line: int, sink: Sink, prefixes: dict[str, str]
) -> bool:
    """A canonical record with image or hreflang extensions in their plain form, read
    without an XML parser; False leaves the record to lxml (nothing is emitted then)."""
    m = _EXT_HEAD.match(text, start, stop)
    # a piece ends at its first '</url>' (_fast_gap)
    if m is None or not text.endswith("</url>", start, stop):
        return False
    body = text[m.end() : stop - 6]
    if "\x00" in body:
        return False
    extensions = fast_extensions(body, prefixes)
    if extensions is None:
        return False
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


class RecordReader:
    """Reads the records of a plain urlset's body, text of whole records at a time (``read``),
    after ``start`` gave it the root start tag."""

    def __init__(self, sink: Sink, status: Status, elements: ElementReader) -> None:
        self.sink = sink
        self.status = status
        self.elements = elements
        self.dates = _Table(fast_lastmod, {None: None})
        self.prios = _Table(fast_priority, {None: None})
        # exact spellings only: any other text is refused
        self.changefreqs = _Table(lambda _text: None, {None: None, **CHANGEFREQ})
        self.line = 1  # the line the text being read starts on
        # _line_of's place: the line of offset lpos in the text being read
        self.lpos = 0
        self.lline = 1
        self.mini_head = b""
        self.mini_tail = b""
        self.root_prefixes: dict[str, str] = {}
        self.mini_line = 1
        self.mini_parser = etree.XMLParser(recover=False, **SAFE_PARSER_OPTIONS)
        self.records_only = True  # no stretch between records needed a parser

    def start(self, root_tag: re.Match[bytes]) -> None:
        """The root start tag (xml_prolog's ``_START_TAG`` match): the context a stretch is
        parsed in."""
        tag = root_tag.group(0)
        self.mini_head = tag
        self.mini_tail = b"</" + root_tag.group(1) + b">"
        self.root_prefixes = {
            k.decode("utf-8", "replace"): v.decode("utf-8", "replace")
            for k, v in _ROOT_PREFIX.findall(tag)
        }
        self.mini_line = 1 + tag.count(b"\n")

    def read(self, text: str, line: int) -> int:
        """Read the records of ``text`` (which ends with '</url>' and starts on ``line``);
        returns how far it got.

        Runs of canonical records are read directly; anything between them (a record with
        extensions, a comment, an unusual value) is parsed on its own by lxml, in the root
        element's namespace context, and read by the full lane's ElementReader. Only if that
        stretch is not well-formed by itself does the full lane take over the document.
        """
        self.line = line
        parts = _RECORD.split(text)
        total = len(parts) // 5
        gaps = parts[0::5]
        tail = gaps.pop()
        done = 0
        if not tail and not "".join(gaps).strip(XML_SPACE):
            done = self._fast_run(parts, 0, total, text, None)
            if done == total:
                return len(text)
        spans = [m.span() for m in _RECORD.finditer(text)]
        if self.status.state != FAST:
            return spans[done - 1][1] if done else 0
        self.lpos = 0
        self.lline = line
        # records before ``done`` were passed on above; go on with the one that was not
        cur = spans[done - 1][1] if done else 0
        r = done
        # run_end[i]: where the run of records from i that only whitespace separates ends
        # (one backward pass: rescanning from each record would be quadratic)
        run_end = [total] * (total + 1)
        for i in range(total - 2, r - 1, -1):
            between = text[spans[i][1] : spans[i + 1][0]]
            run_end[i] = i + 1 if between.strip(XML_SPACE) else run_end[i + 1]
        # after a record the fast checks refuse, try a short stretch first and double it
        # while records pass, so a document of refused records costs linear time
        window = total
        while True:
            gap_end = spans[r][0] if r < total else len(text)
            if cur < gap_end and text[cur:gap_end].strip(XML_SPACE):
                reached = self._fast_gap(text, cur, gap_end)
                if reached < gap_end or self.status.state != FAST:
                    return reached
            cur = gap_end
            if r == total:
                return cur
            s = min(run_end[r], r + window)
            done = self._fast_run(parts, r, s, text, spans)
            if self.status.state != FAST:
                return cur
            if done < s - r:  # this record's values need the full lane's judgement
                x = r + done
                start, stop = spans[x]
                reached = self._fast_gap(text, start, stop)
                if reached < stop or self.status.state != FAST:
                    return reached
                cur = stop
                r = x + 1
                window = _RETRY_WINDOW
            else:
                cur = spans[s - 1][1]
                r = s
                window = min(total, window * 2)

    def _spans(self, text: str) -> list[tuple[int, int]]:
        """Where the records of ``text`` lie, for the line of one (``_line_of`` from its
        start): the bulk path does not need them, a finding does."""
        self.lpos = 0
        self.lline = self.line
        return [m.span() for m in _RECORD.finditer(text)]

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
            if text[start:end].strip(XML_SPACE) and not self._fast_piece(text, start, end):
                return start
            if self.status.state != FAST:
                return end
            start = end
        return stop

    def _fast_piece(self, text: str, start: int, stop: int) -> bool:
        self.records_only = False
        line = self._line_of(text, start)
        if self.root_prefixes and _extension_record(
            text, start, stop, line, self.sink, self.root_prefixes
        ):
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
            self.elements.events(events, truncated=False)
        finally:
            sink.line_shift -= delta
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
        origin = _loc_origin(locs, joined)  # type: ignore[arg-type]
        if origin is None:
            return self._fast_records(parts, a, b, text, spans)
        # the hosts of the block, judged once per origin; a finding due sends the block to
        # the record loop, which reports it at its first entry
        known = sink.origins
        if origin not in known:
            for new in [origin] if origin else set(_ORIGINS(joined)) - known:
                if sink.dev_host(new) is not None:
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
        origins = sink.origins
        origin = "\n"  # no loc starts with it
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
                    self.status.state = DONE
                    break
                check = sink.next_check
            count += 1
            h = hash(loc) & HASH_MASK
            if h in seen:
                per_code = sink.per_code
                if per_code.get("duplicate-loc", 0) < MAX_ISSUES_PER_CODE:
                    if spans is None:
                        spans = self._spans(text)
                    sink.duplicate(loc, self._line_of(text, spans[a + done][0]))
                else:
                    per_code["duplicate-loc"] += 1
            else:
                seen.add(h)
            if not loc.startswith(origin):
                origin = loc[: loc.find("/", 8) + 1]
                if origin not in origins:
                    if spans is None:
                        spans = self._spans(text)
                    sink.origin(origin, self._line_of(text, spans[a + done][0]))
            out.append(new(url, (loc, lm, cf, pr, no_extensions)))
            done += 1
        sink.count = count
        return done

"""The XML side of the reader: bytes of one XML document in, entries and issues out.

Two lanes read the same document and must give the same result:

* the **full lane** is lxml's ``XMLPullParser`` in recover mode (entities never resolved, no
  network, no DTD). It handles everything: urlset, sitemapindex, RSS 2.0 / 1.0, Atom 0.3 /
  1.0, any namespace, extensions, broken markup. Errors come from libxml2 with line and
  column. A guard in front of it (xml_guard) handles what libxml2 handles badly: a bare '&'
  (reported, passed on escaped), sections left open and markup-free floods (reading stops),
  predefined entities (passed on as character references). libxml2 is fed in blocks at
  fixed offsets of its input, so that its recovery never depends on the caller's chunks
  (xml_full); its elements become entries in xml_elements (sitemaps) and xml_feeds (RSS,
  Atom).
* the **fast lane** handles the common case, a UTF-8 ``<urlset>`` in the sitemaps.org
  namespace (xml_compiled). Records holding only loc, lastmod, changefreq and priority in
  protocol order, with values that need no correction, are read by the compiled tokenizer
  (``urlset._core``) and become ``Url`` values in bulk. Anything between them (extensions,
  comments, odd values) is parsed on its own by lxml in the root element's namespace context
  and handled by the full lane's code. Only a stretch that is not well-formed by itself hands
  the rest of the document to the full lane, after whitespace and comments that put libxml2
  at the same line, column and block offset.

Before either, the prolog (xml_prolog) is read on raw bytes up to the root start tag, which
decides the lane. ``XmlBody`` holds the parts and passes each chunk to the one reading.

``tests/test_read_corpus.py`` and ``tests/test_read_property.py`` prove the lanes equal on the
corpus and on generated and mutated documents, fed in any chunk sizes.
"""

from __future__ import annotations

import re

from .._core import overlong
from .sink import Sink
from .xml_common import DONE, FAST, FULL, JOIN_BELOW, PROLOG, Status
from .xml_prolog import TO_FULL, Prolog


class XmlBody:
    """Reads one XML document pushed in chunks; entries and issues go to ``sink``."""

    def __init__(self, sink: Sink, *, fast: bool = True) -> None:
        self.sink = sink
        limits = sink.limits
        self.fast_allowed = fast and limits.max_depth >= 3 and limits.max_value_length >= 2048
        self.status = status = Status()
        self.buf = bytearray()  # the document while its prolog is read
        self.prolog = Prolog(sink, status)
        # the lanes load with the first XML document (lxml with them): a text sitemap never
        # needs them
        from .xml_compiled import CompiledLane
        from .xml_elements import ElementReader
        from .xml_full import FullLane
        from .xml_guard import Guard

        self.elements = ElementReader(sink, status)
        self.guard = Guard(sink, status)
        self.full = FullLane(sink, status, self.guard, self.elements)
        self.fast = CompiledLane(sink, status, self.elements, self.full)

    @property
    def format(self) -> str | None:
        """What the root element named ("urlset", "sitemapindex", "rss", "atom", "html",
        "unknown"), None before it is read."""
        return self.status.format

    @property
    def dead(self) -> bool:
        return self.status.state == DONE

    @property
    def plain_records(self) -> bool:
        """True when every entry was a canonical record of the fast lane's pattern (protocol
        order, no attributes, locs proven plain as written), the body held nothing else but
        whitespace, and after the last record came only the root's end tag; every loc plain
        as written, or made a URI of a text that holds nothing else a check reads again
        (``_core.loc_read_iri_only``: the sink judges each it is given, the renderer every
        one of its runs), so that the reader's normalized-url says all of it."""
        fast = self.fast
        odd = self.sink.odd_made or (fast.renderer is not None and fast.renderer.odd_made)
        return self.plain_structure and (fast.locs_plain or not odd)

    @property
    def plain_structure(self) -> bool:
        """``plain_records`` whatever the locs and extensions of the records (the core
        reads an entry's elements in another order as a record too: that is said here)."""
        fast = self.fast
        reordered = (fast.scanner is not None and fast.scanner.reordered) or (
            fast.renderer is not None and fast.renderer.reordered
        )
        return fast.throughout and fast.records_only and not reordered

    def held(self) -> bytearray | None:
        """The start of a record the fast lane holds unread, which it would join the next
        chunk to (the gzip inflater joins them instead: ``Gunzip.feed_after``); None where
        the chunk is wanted alone."""
        buf = self.fast.buf
        return buf if self.status.state == FAST and 0 < len(buf) < JOIN_BELOW else None

    def feed(self, data: bytes, held: int = 0) -> None:
        """The next chunk; after the ``held`` bytes ``held`` gave (the start of ``data``)."""
        state = self.status.state
        if state == FAST:
            self.fast.feed(data, held)
        elif state == FULL:
            self.full.feed(data)
        elif state == PROLOG:
            self.buf += data
            self._prolog(final=False)

    def close(self) -> None:
        status = self.status
        if status.state == PROLOG:
            self._prolog(final=True)
        if status.state == FAST:
            self.fast.close()
        if status.state == FULL:
            self.full.close()
        status.state = DONE

    def stop(self) -> None:
        """No more is read. Stopped in the fast lane (not by the end of the document, which
        ``close`` read: by a size limit), the records read are all there is to prove (a
        check judges the bytes the reader read)."""
        if self.status.state == FAST:
            self.fast.throughout = True
        self.status.state = DONE

    def _prolog(self, final: bool) -> None:
        found = self.prolog.scan(self.buf, final)
        if isinstance(found, str):
            if found == TO_FULL:
                self._to_full(bytes(self.buf))
            return
        self._root_tag(found)

    def _root_tag(self, m: re.Match[bytes]) -> None:
        """The full lane reads the prolog and the root start tag ``m`` at once; then the fast
        lane takes the rest if the root allows it, else the full lane goes on."""
        end = m.end()
        head = bytes(self.buf[:end])
        # a head with an overlong stretch is the guard's to stop at (FullLane)
        fast = (
            self.fast_allowed
            and self.prolog.plain_root(m)
            and overlong(head, 0, end, self.full.guard.cap) is None
        )
        rest = bytes(self.buf[end:])
        self.buf = bytearray()
        if fast and self.prolog.plain_head(head, m):
            # libxml2 would read this head without a word: it reads it only if it must read on
            self.full.head = head
            self.elements.plain_root(m.group(1).decode("ascii"))
            self.fast.start(m, head, rest)
            return
        self.status.state = FULL
        self.full.feed(head, now=True)
        if self.status.state != FULL:
            return
        # after an error in the head libxml2 reads on in its own way: the full lane follows it
        clean = not self.full.syntax_errors
        if (
            fast
            and clean
            and self.status.format in ("urlset", "sitemapindex")
            and not self.guard.hold
        ):
            self.fast.start(m, head, rest)
        elif rest:
            self.full.feed(rest)

    def _to_full(self, data: bytes) -> None:
        self.buf = bytearray()
        self.status.state = FULL
        if data:
            self.full.feed(data)

"""Feed entries: one RSS ``<item>`` or Atom ``<entry>`` element (lxml) in, a ``Url`` out.

RSS 2.0 and 1.0: the ``<link>`` (else a permalink ``<guid>``), dated by ``<pubDate>`` (RFC 822)
or ``dc:date``. Atom 1.0 and 0.3: the plain or alternate ``<link href>``, dated by
``<updated>``/``<modified>``, else ``<published>``/``<issued>``. The entry goes to the sink,
with an issue for anything missing or unreadable.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC
from typing import Any

from ..dates import Lastmod
from ..model import Url
from .sink import SCHEME, Sink
from .xml_common import split_tag

# the namespaces of an RSS <link>: none (RSS 2.0) or RSS 1.0's
RSS_NS = frozenset(("", "http://purl.org/rss/1.0/"))

# an element's text as a value (stripped), or None when it cannot be one; reports why
ValueText = Callable[[Any, int], str | None]


def rss_entry(el: Any, line: int, sink: Sink, text_of: ValueText) -> None:
    link = guid = None
    lastmod: Lastmod | None = None
    for child in el:
        ctag = child.tag
        if not isinstance(ctag, str):
            continue
        cns, clocal = split_tag(ctag)
        if clocal == "link" and cns in RSS_NS and link is None:
            link = text_of(child, line)
        elif clocal == "guid" and guid is None:
            text = text_of(child, line)
            permalink = child.get("isPermaLink", "true").strip().lower() != "false"
            if text and (permalink or SCHEME.match(text)):
                guid = text
        elif clocal == "pubDate" and lastmod is None:
            text = text_of(child, line)
            if text is not None:
                lastmod = rfc822(text, sink.line_of(child, line), sink)
        elif clocal == "date" and lastmod is None:  # dc:date in RSS 1.0
            text = text_of(child, line)
            if text is not None:
                lastmod = sink.lastmod(text, sink.line_of(child, line))
    text = link or guid
    if not text:
        sink.issue("missing-link", "<item> has no <link>", line)
        return
    loc = sink.loc(text, line)
    if loc is not None:
        sink.add(Url._trusted(loc, lastmod), line)


def rfc822(text: str, line: int, sink: Sink) -> Lastmod | None:
    from email.utils import parsedate_to_datetime  # here: only RSS dates need the email package

    try:
        value = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        value = None
    if value is not None and value.tzinfo is None and text.rstrip().endswith("-0000"):
        value = value.replace(tzinfo=UTC)  # RFC 5322: -0000 is UTC, source zone unknown
    if value is None or value.tzinfo is None:
        shown = text[:100]
        sink.issue("invalid-pubdate", f"{shown!r} is not an RFC 822 date with zone", line)
        return None
    return value


def atom_entry(el: Any, line: int, sink: Sink, text_of: ValueText) -> None:
    plain = alternate = None
    lastmod_text: str | None = None
    fallback_date: str | None = None
    for child in el:
        ctag = child.tag
        if not isinstance(ctag, str):
            continue
        clocal = split_tag(ctag)[1]
        if clocal == "link":
            href = (child.get("href") or "").strip()
            rel = child.get("rel")
            if href:
                if rel is None and plain is None:
                    plain = href
                elif rel == "alternate" and alternate is None:
                    alternate = href
        elif clocal in ("updated", "modified") and lastmod_text is None:
            lastmod_text = text_of(child, line)
        elif clocal in ("published", "issued") and fallback_date is None:
            fallback_date = text_of(child, line)
    href = plain or alternate
    if not href:
        sink.issue("missing-link", "<entry> has no <link href>", line)
        return
    loc = sink.loc(href, line)
    text = lastmod_text if lastmod_text is not None else fallback_date
    lastmod = sink.lastmod(text, line) if text else None
    if loc is not None:
        sink.add(Url._trusted(loc, lastmod), line)

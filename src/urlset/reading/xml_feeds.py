"""Feed entries: one RSS ``<item>`` or Atom ``<entry>`` element (lxml) in, a ``Url`` out.

RSS 2.0 and 1.0: the ``<link>`` (else a permalink ``<guid>``), dated by ``<pubDate>`` (RFC 822)
or ``dc:date``. Atom 1.0 and 0.3: the plain or alternate ``<link href>``, dated by
``<updated>``/``<modified>``, else ``<published>``/``<issued>``. The entry goes to the sink,
with an issue for anything missing or unreadable.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from ..dates import Lastmod
from ..model import Url
from .sink import SCHEME, Sink
from .xml_common import split_tag

# the namespaces of an RSS <link>: none (RSS 2.0) or RSS 1.0's
RSS_NS = frozenset(("", "http://purl.org/rss/1.0/"))

# an element's text as a value (stripped), or None when it cannot be one; reports why
ValueText = Callable[[Any, int], str | None]


def _rss_kind(tag: str) -> str:
    """What an RSS item's child of ``tag`` gives: its link, guid, date or dc:date ("" none)."""
    ns, local = split_tag(tag)
    if local == "link":
        return local if ns in RSS_NS else ""
    return local if local in ("guid", "pubDate", "date") else ""


# the kind of each child tag met, worked out once: an item has a few and feeds repeat them
_RSS_KINDS: dict[str, str] = {}


def rss_entry(el: Any, line: int, sink: Sink, text_of: ValueText) -> None:
    link = guid = None
    lastmod: Lastmod | None = None
    kinds = _RSS_KINDS
    for child in el:
        ctag = child.tag
        if not isinstance(ctag, str):
            continue
        kind = kinds.get(ctag)
        if kind is None:
            kind = _rss_kind(ctag)
            if len(kinds) < 1024:
                kinds[ctag] = kind
        if not kind:
            continue
        if kind == "link":
            if link is None:
                link = text_of(child, line)
        elif kind == "guid" and guid is None:
            text = text_of(child, line)
            permalink = child.get("isPermaLink", "true").strip().lower() != "false"
            if text and (permalink or SCHEME.match(text)):
                guid = text
        elif kind == "pubDate" and lastmod is None:
            text = text_of(child, line)
            if text is not None:
                lastmod = rfc822(text, sink.line_of(child, line), sink)
        elif kind == "date" and lastmod is None:  # dc:date in RSS 1.0
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


# the form feeds write (RFC 822 as RFC 5322 writes it, a year of four digits: the email
# package reads 0-99 as 19xx/20xx): read without the email package, which takes ~10 us a
# date; any other form goes to it
_MONTH_NAMES = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_CANONICAL_DATE = re.compile(
    r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\d{1,2}) "
    rf"({'|'.join(_MONTH_NAMES)}) ([1-9]\d{{3}}) "
    r"(\d\d):(\d\d):(\d\d) (?:([+-])(\d\d)(\d\d)|GMT)"
)
_MONTHS = {name: k for k, name in enumerate(_MONTH_NAMES, 1)}
_ZONES: dict[tuple[str, str, str], timezone] = {}


def canonical_rfc822(text: str) -> datetime | None:
    """``text`` as ``email.utils.parsedate_to_datetime`` reads it when it is written in the
    canonical form (``Mon, 06 May 2024 10:00:00 +0000`` or ``... GMT``) and is a valid
    moment; None otherwise (the email package reads it, or says why not)."""
    m = _CANONICAL_DATE.fullmatch(text)
    if m is None:
        return None
    day, month, year, hour, minute, second, sign, zone_hours, zone_minutes = m.groups()
    if sign is None:
        zone = UTC
    elif (found := _ZONES.get((sign, zone_hours, zone_minutes))) is not None:
        zone = found
    elif sign == "-" and zone_hours == zone_minutes == "00":
        return None  # -0000: no zone known (RFC 5322), as the email package reads it
    else:
        # the email package's arithmetic, minutes past 59 included
        seconds = int(zone_hours) * 3600 + int(zone_minutes) * 60
        try:
            zone = timezone(timedelta(seconds=-seconds if sign == "-" else seconds))
        except ValueError:
            return None
        if len(_ZONES) < 256:
            _ZONES[sign, zone_hours, zone_minutes] = zone
    try:
        return datetime(
            int(year), _MONTHS[month], int(day), int(hour), int(minute), int(second), tzinfo=zone
        )
    except ValueError:
        return None


def rfc822(text: str, line: int, sink: Sink) -> Lastmod | None:
    value = canonical_rfc822(text)
    if value is None:
        from email.utils import parsedate_to_datetime  # only odd RSS dates need the package

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

"""Serialising entries: sitemap documents as text, with exact byte accounting.

Pure: nothing here opens a file. ``SitemapDocument`` writes one urlset (or text sitemap) to
a sink function that takes bytes, counting every byte so that a file is closed before the
next entry would pass the byte limit (DESIGN: "writers write to a sink and count bytes").
The per-URL loop is written out inline because it is the hot path of every build.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import date, datetime
from typing import NamedTuple

from .dates import Lastmod, format_w3c, newest
from .model import SitemapRef, Url

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
URLSET_SCHEMA = f"{SITEMAP_NS} {SITEMAP_NS}/sitemap.xsd"
INDEX_SCHEMA = f"{SITEMAP_NS} {SITEMAP_NS}/siteindex.xsd"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

# "All data values in a Sitemap must be entity-escaped" (sitemaps.org 0.9, "Entity escaping")
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&apos;"))
_FLUSH_BYTES = 1 << 20  # hand the sink about 1 MiB at a time


def escape(text: str) -> str:
    """Entity-escape a data value; values without special characters come back unchanged."""
    if "&" in text or "<" in text or ">" in text or '"' in text or "'" in text:
        for raw, entity in _ENTITIES:
            text = text.replace(raw, entity)
    return text


def _prologue(xsl: str | None) -> str:
    text = XML_DECLARATION
    if xsl:
        text += f'<?xml-stylesheet type="text/xsl" href="{escape(xsl)}"?>\n'
    return text


def urlset_header(*, xsl: str | None = None, schema_location: bool = False) -> str:
    attrs = f' xmlns="{SITEMAP_NS}"'
    if schema_location:
        attrs += f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{URLSET_SCHEMA}"'
    return f"{_prologue(xsl)}<urlset{attrs}>\n"


URLSET_FOOTER = "</urlset>\n"


def format_priority(priority: float) -> str:
    """A priority as a decimal with one to four places (0.5, 0.85, 1.0); never exponent form."""
    text = f"{priority:.4f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def url_element(url: Url) -> str:
    """One <url> element and its newline, as the document writer emits it."""
    parts = [f"<url><loc>{escape(url.loc)}</loc>"]
    if url.lastmod is not None:
        parts.append(f"<lastmod>{format_w3c(url.lastmod)}</lastmod>")
    if url.changefreq is not None:
        parts.append(f"<changefreq>{url.changefreq.value}</changefreq>")
    if url.priority is not None:
        parts.append(f"<priority>{format_priority(url.priority)}</priority>")
    parts.extend(extension.xml for extension in url.extensions)
    parts.append("</url>\n")
    return "".join(parts)


def index_document(
    refs: Iterable[SitemapRef], *, xsl: str | None = None, schema_location: bool = False
) -> str:
    """A whole sitemap index document (indexes are small: at most 50,000 short entries)."""
    attrs = f' xmlns="{SITEMAP_NS}"'
    if schema_location:
        attrs += f' xmlns:xsi="{XSI_NS}" xsi:schemaLocation="{INDEX_SCHEMA}"'
    parts = [f"{_prologue(xsl)}<sitemapindex{attrs}>\n"]
    for ref in refs:
        lastmod = "" if ref.lastmod is None else f"<lastmod>{format_w3c(ref.lastmod)}</lastmod>"
        parts.append(f"<sitemap><loc>{escape(ref.loc)}</loc>{lastmod}</sitemap>\n")
    parts.append("</sitemapindex>\n")
    return "".join(parts)


class DocumentStats(NamedTuple):
    urls: int
    bytes: int
    newest_lastmod: Lastmod | None


class EntryTooLarge(Exception):
    """One entry alone does not fit in an empty document under the byte limit."""

    def __init__(self, url: Url, size: int) -> None:
        self.url = url
        self.size = size
        super().__init__(url.loc)


class SitemapDocument:
    """One sitemap being written: XML urlset or plain text, never past its limits.

    ``add`` writes entries until the next one would pass ``max_urls`` or ``max_bytes``
    (the closing tag included in the count) and returns where it stopped; the caller then
    closes this document and starts the next.
    """

    def __init__(
        self,
        sink: Callable[[bytes], object],
        *,
        max_urls: int,
        max_bytes: int,
        text: bool = False,
        header: str = "",
    ) -> None:
        self._sink = sink
        self._text = text
        self._footer = "" if text else URLSET_FOOTER
        header = "" if text else (header or urlset_header())
        self._parts: list[str] = [header]
        self._pending = len(header.encode())
        self._size = self._pending
        self._budget = max_bytes - len(self._footer)
        self._room = max_urls
        self._urls = 0
        self._newest: Lastmod | None = None
        self._lastmod_text: dict[Lastmod, str] = {}
        self._priority_text: dict[float, str] = {}

    @property
    def urls(self) -> int:
        return self._urls

    def add(self, urls: Sequence[Url], start: int = 0) -> int:
        """Write ``urls[start:]`` until this document is full; return the index reached."""
        parts = self._parts
        append = parts.append
        size, pending, budget = self._size, self._pending, self._budget
        room = self._room - self._urls
        newest_lastmod = self._newest
        lastmod_text = self._lastmod_text
        priority_text = self._priority_text
        text = self._text
        stop = len(urls)
        if room < stop - start:
            stop = start + room
        index = start
        while index < stop:
            url = urls[index]
            loc, lastmod, changefreq, priority, extensions = url
            if "&" in loc or "'" in loc or "<" in loc or ">" in loc or '"' in loc:
                loc = escape(loc)
            if text:
                entry = url[0] + "\n"
            else:
                entry = f"<url><loc>{loc}</loc>"
                if lastmod is not None:
                    formatted = lastmod_text.get(lastmod)
                    if formatted is None:
                        if len(lastmod_text) > 4096:
                            lastmod_text.clear()
                        formatted = lastmod_text[lastmod] = (
                            f"<lastmod>{format_w3c(lastmod)}</lastmod>"
                        )
                    entry += formatted
                if changefreq is not None:
                    entry += f"<changefreq>{changefreq.value}</changefreq>"
                if priority is not None:
                    formatted = priority_text.get(priority)
                    if formatted is None:
                        formatted = priority_text[priority] = (
                            f"<priority>{format_priority(priority)}</priority>"
                        )
                    entry += formatted
                if extensions:
                    entry += "".join(extension.xml for extension in extensions)
                entry += "</url>\n"
            length = len(entry) if entry.isascii() else len(entry.encode())
            if size + length > budget:
                if self._urls == 0 and index == start:
                    raise EntryTooLarge(url, length)
                break
            append(entry)
            size += length
            pending += length
            if lastmod is not None and lastmod is not newest_lastmod:
                same_kind = type(lastmod) is type(newest_lastmod)
                if same_kind and type(lastmod) in (datetime, date):
                    if lastmod > newest_lastmod:  # type: ignore[operator]
                        newest_lastmod = lastmod
                else:
                    newest_lastmod = newest(newest_lastmod, lastmod)
            index += 1
            if pending >= _FLUSH_BYTES:
                self._flush()
                parts = self._parts
                append = parts.append
                pending = 0
        self._urls += index - start
        self._size, self._pending, self._newest = size, pending, newest_lastmod
        return index

    def _flush(self) -> None:
        if self._parts:
            self._sink("".join(self._parts).encode())
            self._parts.clear()
        self._pending = 0

    def close(self) -> DocumentStats:
        """Write the closing tag and hand over the last bytes; return what was written."""
        self._parts.append(self._footer)
        self._size += len(self._footer)
        self._flush()
        return DocumentStats(self._urls, self._size, self._newest)

"""Serialising entries: sitemap documents as text, with exact byte accounting.

Pure: nothing here opens a file. ``SitemapDocument`` writes one urlset (or text sitemap) to
a sink function that takes bytes, counting every byte so that a file is closed before the
next entry would pass the byte limit (DESIGN: "writers write to a sink and count bytes").
The per-URL loop is written out inline because it is the hot path of every build.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Collection, Iterable, Sequence
from datetime import date, datetime
from functools import cache
from itertools import accumulate
from operator import itemgetter
from typing import Any, NamedTuple

# "All data values in a Sitemap must be entity-escaped" (sitemaps.org 0.9, "Entity escaping"):
# escape turns & < > " ' into their entities, in the compiled core (rust/core/src/write)
from .._core import RenderedRows, escape, typed_declarations
from .._core import render_rows as _render_rows
from ..dates import Lastmod, format_w3c, from_formatted, latest_moment
from ..extensions import PREFIXES
from ..limits import MAX_LOC_LENGTH
from ..model import (
    SITEMAP_NS,
    ChangeFreq,
    SitemapRef,
    Url,
)

XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"
URLSET_SCHEMA = f"{SITEMAP_NS} {SITEMAP_NS}/sitemap.xsd"
INDEX_SCHEMA = f"{SITEMAP_NS} {SITEMAP_NS}/siteindex.xsd"
XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n'

_FLUSH_BYTES = 1 << 20  # hand the sink about 1 MiB at a time


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


def url_element(url: Url, declared: Collection[str] = ()) -> str:
    """One <url> element and its newline, as the document writer emits it.

    ``declared``: the extension namespaces the root element already declares.
    """
    return _xml_entries_ext([url], declared)[0]  # the writer's own formatting, not a copy


# Namespaces of typed extensions (image, video, news, xhtml). A streaming writer has sent the
# <urlset> start tag before it sees later URLs, so a declaration goes where it is known in
# time: on the root when the document's first batch shows the namespace in use (the usual
# layout, and what naive consumers expect), otherwise on the <url> element that uses it.
# Both are namespace-well-formed XML and valid against sitemap.xsd (xmlns attributes are not
# schema attributes). Raw elements carry their own declarations and need nothing here.


def declarations(namespaces: Iterable[str]) -> str:
    """The xmlns attributes for typed extension namespaces: ` xmlns:image="..."`."""
    return "".join(f' xmlns:{PREFIXES[ns]}="{ns}"' for ns in namespaces)


def _url_declarations(extensions: Sequence[object], declared: Collection[str]) -> str:
    if not extensions:
        return ""
    kinds = set(map(type, extensions))
    return "".join(
        _DECLARATION[ns] for cls, ns in _typed().declared_by if cls in kinds and ns not in declared
    )


_DECLARATION = {ns: f' xmlns:{prefix}="{ns}"' for ns, prefix in PREFIXES.items()}
_ALL_DECLARATIONS = sum(len(d.encode()) for d in _DECLARATION.values())


class _Typed(NamedTuple):
    declared_by: tuple[tuple[type, str], ...]  # registry.DECLARED_BY
    body: dict[type, Callable[[Any], str]]  # each typed class's element without declarations


@cache
def _typed() -> _Typed:
    """The typed extensions' classes, taken from the registry when an entry first has an
    extension: a build of plain URLs loads no extension module."""
    from ..extensions.registry import DECLARED_BY, TYPED

    return _Typed(DECLARED_BY, {cls: cls.body for cls in TYPED})


def _namespaces_of(extensions: Iterable[object]) -> list[str]:
    from ..extensions.registry import namespaces_of

    return namespaces_of(extensions)


def _xml_of(extension: Any) -> str:
    xml: str = extension.xml
    return xml


def extension_markup(extensions: Iterable[object]) -> str:
    """The children a <url> gets for its extensions: typed values without their declarations
    (the root or the <url> declares them), raw elements (and anything else that carries its
    own serialisation in ``xml``) exactly as they are."""
    body = _typed().body.get
    return "".join([body(type(e), _xml_of)(e) for e in extensions])


def declare_on_root(header: str, namespaces: Iterable[str]) -> str:
    """``header`` (ending in the <urlset ...> start tag and a newline) with declarations added."""
    attrs = declarations(namespaces)
    if not attrs:
        return header
    return header[:-2] + attrs + header[-2:]


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
    closes this document and starts the next. Entries are formatted a batch at a time and
    the cut is found on cumulative byte counts, which keeps the per-URL work in C.
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
        self._header = header
        # extension namespaces declared on the root; decided with the first batch written
        self._declared: tuple[str, ...] = ()
        self._flushed = False  # whether bytes went to the sink (the root among them)
        self._parts: list[bytes] = [header.encode()]
        self._pending = len(self._parts[0])
        self._size = self._pending
        self._budget = max_bytes - len(self._footer)
        self._max_urls = max_urls
        self._urls = 0
        self._news = 0  # news entries written (at most 1,000 a sitemap)
        self._newest: Lastmod | None = None

    @property
    def urls(self) -> int:
        return self._urls

    def add(self, urls: Sequence[Url] | Rendered, start: int = 0) -> int:
        """Write ``urls[start:]`` until this document is full; return the index reached."""
        if isinstance(urls, Rendered):
            return self._add_rendered(urls, start)
        batch = urls[start : start + self._max_urls - self._urls]
        if not batch:
            return start
        plain = not any(map(_EXTENSIONS, batch))
        if not plain and not self._text:
            batch = self._within_news(batch)
            if not batch:
                return start
        rendered = render_urls(batch, text=self._text) if plain or self._text else None
        if rendered is not None:  # the usual case: the compiled core renders them
            return start + self._add_rendered(rendered, 0)
        if self._text:
            entries = _text_entries(batch)
        elif plain:
            entries = _xml_entries_ext(batch, self._declared)
        elif self._root_open() and self._header.endswith(">\n"):
            entries = self._first_with_extensions(batch)
        else:
            entries = _xml_entries_ext(batch, self._declared)
        return start + self._append(entries, batch, [url[1] for url in batch])

    def _within_news(self, batch: Sequence[Url]) -> Sequence[Url]:
        """The entries of ``batch`` that keep this document within the news extension's
        1,000 news entries a sitemap (a first entry is taken whatever it holds)."""
        from ..extensions.news import MAX_NEWS_PER_SITEMAP, News  # only with extensions

        counts = [sum(type(e) is News for e in url[4]) for url in batch]
        if not any(counts):
            return batch
        ends = list(accumulate(counts, initial=self._news))
        fits = max(bisect_right(ends, MAX_NEWS_PER_SITEMAP) - 1, 0 if self._urls else 1)
        self._news = ends[fits]
        return batch[:fits]

    def _add_rendered(self, rendered: Rendered, start: int) -> int:
        """Write ``rendered[start:]`` until this document is full; return the index reached.
        The cut is found in the core on the entries' exact byte counts. Entries with typed
        extensions get their namespaces declared as ``add`` declares them for values: on the
        root with the document's first such entries while it is open, else on each ``<url>``."""
        limit = self._max_urls - self._urls
        if start >= len(rendered) or limit <= 0:
            return start
        news = not self._text and rendered.has_news()
        if news:  # within the news extension's 1,000 news entries a sitemap
            from ..extensions.news import MAX_NEWS_PER_SITEMAP  # only with news

            room = max(MAX_NEWS_PER_SITEMAP - self._news, 0)  # (a first entry may pass it)
            limit = rendered.news_fit(start, limit, room, self._urls == 0)
            if limit == 0:
                return start
        declared = _bits(self._declared)
        undeclared = rendered.namespaces(start, start + limit) & ~declared and not self._text
        if undeclared and self._root_open() and self._header.endswith(">\n"):
            declared = self._declare_rendered(rendered, start, limit)
        fits = rendered.fit(start, limit, self._budget - self._size, declared)
        if fits == 0:
            if self._urls == 0:
                size = rendered.size(start, declared)
                raise EntryTooLarge(Url._trusted(rendered.locs[start]), size)
            return start
        end = start + fits
        if news:
            self._news += rendered.news_in(start, end)
        data = rendered.text(start, end, declared)
        self._parts.append(data)
        self._pending += len(data)
        self._size += len(data)
        self._urls += fits
        newest = rendered.newest(start, end)
        if newest is not None:
            self._newer(from_formatted(newest))
        if self._pending >= _FLUSH_BYTES:
            self._flush()
        return end

    def _append(
        self, entries: list[str], batch: Sequence[Url], lastmods: Sequence[Lastmod | None]
    ) -> int:
        """Write as many of ``entries`` as fit; return how many."""
        joined, fits, size = self._measure(entries)
        if fits == 0 and self._urls == 0:
            raise EntryTooLarge(batch[0], len(entries[0].encode()))
        if fits < len(entries):
            joined = "".join(entries[:fits])
        if joined:
            self._parts.append(joined.encode())
            self._pending += size - self._size
            self._size = size
            self._urls += fits
            self._track_newest(lastmods[:fits])
            if self._pending >= _FLUSH_BYTES:
                self._flush()
        return fits

    def _measure(self, entries: list[str]) -> tuple[str, int, int]:
        """The joined entries, how many of them fit the budget, and the document's size with
        those in."""
        joined = "".join(entries)
        ascii = joined.isascii()
        total = len(joined) if ascii else len(joined.encode())
        if self._size + total <= self._budget:  # the usual case: no cut in this batch
            return joined, len(entries), self._size + total
        sizes: Iterable[int] = map(len, entries) if ascii else [len(e.encode()) for e in entries]
        # ends[i]: the document's size once entries[:i + 1] are in; the first end past the
        # budget is where this document stops
        ends = list(accumulate(sizes, initial=self._size))
        fits = bisect_right(ends, self._budget) - 1
        return joined, fits, ends[fits]

    def _root_open(self) -> bool:
        """Whether the root may still take declarations: the start tag not yet handed to the
        sink, and room for the longest. Entries written before keep their bytes (those
        without extensions, or with those the root declares already), so a document's bytes
        never depend on how its entries came in batches or runs: the compiled core renders
        runs of rows between the rows it leaves to the per-entry way."""
        if self._flushed:
            return False
        return self._urls == 0 or self._size + _ALL_DECLARATIONS <= self._budget

    def _first_with_extensions(self, batch: Sequence[Url]) -> list[str]:
        """Entries of a batch with extensions while the root is open, declaring on the root
        the typed namespaces that the written part of the batch uses besides those it declares
        already, and only those (a namespace is declared where it is used). When the byte limit cuts the batch before some
        namespace's first use, the root is written again without it: the root shrinks and the
        entries that fit before are unchanged, so they still fit and use every namespace left
        on the root. At most two rounds."""
        before = set(self._declared)
        uses = before.union(_namespaces_of(_all_extensions(batch)))
        namespaces = tuple(ns for ns in TYPED_NAMESPACES if ns in uses)
        while True:
            header = declare_on_root(self._header, namespaces).encode()
            grown = len(header) - len(self._parts[0])
            self._parts[0] = header
            self._size += grown
            self._pending += grown
            entries = _xml_entries_ext(batch, namespaces)
            _, fits, _ = self._measure(entries)
            used = _namespaces_of(_all_extensions(batch[: max(fits, 0)]))
            if set(namespaces) <= before.union(used):
                self._declared = namespaces
                return entries
            namespaces = tuple(ns for ns in namespaces if ns in used or ns in before)

    def _declare_rendered(self, rendered: Rendered, start: int, limit: int) -> int:
        """``_first_with_extensions`` for entries the core rendered: the root declares the
        typed namespaces that the part of ``rendered[start:start + limit]`` that fits uses,
        besides those it declares already; their bits."""
        before = _bits(self._declared)
        bits = rendered.namespaces(start, start + limit) | before
        while True:
            namespaces = [ns for ns, bit in _NAMESPACE_BITS.items() if bits & bit]
            header = declare_on_root(self._header, namespaces).encode()
            grown = len(header) - len(self._parts[0])
            self._parts[0] = header
            self._size += grown
            self._pending += grown
            fits = rendered.fit(start, limit, self._budget - self._size, bits)
            used = rendered.namespaces(start, start + fits) | before
            if not bits & ~used:
                self._declared = tuple(namespaces)
                return bits
            bits &= used

    def _track_newest(self, written: Sequence[Lastmod | None]) -> None:
        """Keep the newest lastmod; of equal instants spelt in other zones, the first written
        (a set keeps the first of equal values), so the index never depends on batching."""
        distinct: set[Lastmod] = set(written)  # type: ignore[arg-type]
        distinct.discard(None)
        if not distinct:
            return
        kinds = set(map(type, distinct))
        if kinds == {date} or kinds == {datetime}:  # one kind compares directly, in C
            newest = max(distinct)
        else:  # ordered as check orders them: a date by the end of its day
            newest = max((v for v in written if v is not None), key=latest_moment)
        self._newer(newest)

    def _newer(self, lastmod: Lastmod) -> None:
        if self._newest is None or latest_moment(lastmod) > latest_moment(self._newest):
            self._newest = lastmod

    def _flush(self) -> None:
        if self._parts:
            self._sink(b"".join(self._parts))
            self._parts.clear()
        self._pending = 0
        self._flushed = True

    def close(self) -> DocumentStats:
        """Write the closing tag and hand over the last bytes; return what was written."""
        self._parts.append(self._footer.encode())
        self._size += len(self._footer)
        self._flush()
        return DocumentStats(self._urls, self._size, self._newest)


# Stable sets (``writing.stable``) keep entry texts from one build to the next, so an entry's
# text must not depend on the document around it: typed extensions are written for a root
# that declares every typed namespace, and such a root is used whenever an entry uses one.
TYPED_NAMESPACES = tuple(PREFIXES)
_TYPED_TAGS = tuple(f"<{prefix}:" for prefix in PREFIXES.values())


def standalone_entries(batch: Sequence[Url], *, text: bool = False) -> list[str]:
    """Entries whose text is the same in any document (see ``stable_header``)."""
    rendered = render_urls(batch, text=text) if text or not any(map(_EXTENSIONS, batch)) else None
    if rendered is not None:
        return rendered.entries()
    if text:
        return _text_entries(batch)
    return _xml_entries_ext(batch, TYPED_NAMESPACES)


def uses_typed_prefix(entries: str) -> bool:
    """Whether entry texts use a typed extension prefix (their root must declare them all)."""
    return any(tag in entries for tag in _TYPED_TAGS)


def stable_header(
    *, typed: bool, xsl: str | None = None, schema_location: bool = False, body: str = ""
) -> str:
    """The urlset start of a stable set's document. Its entries are written before their
    document is known (``standalone_entries``): they use the typed prefixes without declaring
    them, so the root declares each namespace whose prefix ``body`` (the entries) uses, as
    the streaming writer does; without ``body``, every typed one when ``typed`` (the largest
    header, which the sizing counts)."""
    header = urlset_header(xsl=xsl, schema_location=schema_location)
    if not typed:
        return header
    if not body:
        return declare_on_root(header, TYPED_NAMESPACES)
    used = [ns for ns, tag in zip(TYPED_NAMESPACES, _TYPED_TAGS, strict=True) if tag in body]
    return declare_on_root(header, used)


def _text_entries(batch: Sequence[Url]) -> list[str]:
    return [url[0] + "\n" for url in batch]


# element text for values that repeat across a sitemap; None maps to no element at all
_CHANGEFREQ_XML: dict[ChangeFreq | None, str] = {
    None: "",
    **{c: f"<changefreq>{c.value}</changefreq>" for c in ChangeFreq},
}
_PRIORITY_XML: dict[float | None, str] = {None: ""}
_LASTMOD_XML: dict[Lastmod | None, str] = {None: ""}
_LASTMOD_CACHE = 8192


def _lastmod_xml(lastmod: Lastmod) -> str:
    if len(_LASTMOD_XML) > _LASTMOD_CACHE:
        _LASTMOD_XML.clear()
        _LASTMOD_XML[None] = ""
    text = f"<lastmod>{format_w3c(lastmod)}</lastmod>"
    # only dates: aware datetimes in different zones compare equal at the same instant,
    # and a cached text would then carry another entry's zone
    if type(lastmod) is date:
        _LASTMOD_XML[lastmod] = text
    return text


def _priority_xml(priority: float) -> str:
    if len(_PRIORITY_XML) > _LASTMOD_CACHE:
        _PRIORITY_XML.clear()
        _PRIORITY_XML[None] = ""
    text = _PRIORITY_XML[priority] = f"<priority>{format_priority(priority)}</priority>"
    return text


_EXTENSIONS = itemgetter(4)


def _all_extensions(batch: Sequence[Url]) -> Iterable[object]:
    return (extension for url in batch for extension in url[4])


Rendered = RenderedRows  # entries rendered in the compiled core (rust/core/src/write)
# the typed namespaces the core renders, by the bit its entries use for each
_NAMESPACE_BITS = {ns: 1 << bit for bit, (_, ns) in enumerate(typed_declarations())}


def _bits(namespaces: Iterable[str]) -> int:
    """The core's bits for these typed namespaces (those it renders)."""
    return sum(_NAMESPACE_BITS.get(ns, 0) for ns in namespaces)


def render_rows(
    rows: list[tuple[Any, ...]], prefix: str, *, text: bool = False, beside: bool = False
) -> Rendered | None:
    """Entries for (loc, lastmod, changefreq, priority) rows, rendered in the compiled core
    with every value checked there: locs plain URIs under ``prefix`` (a directory for which
    ``urls.plain_directory`` holds), strict W3C lastmods parsed and written back, changefreq
    names, decimal priorities, blank values and NaN absent. A row whose loc or value is
    invalid or unusual is refused in its place (``Rendered.refused``): it goes the per-entry
    way, where it is reported (IRIs the core makes URIs of, as ``urls.to_uri`` would).
    ``beside``: check and render on a second thread while this one reads the rows (only the
    reading needs the GIL: it copies each row's texts), which a build asks for whether or not
    it compresses: its main thread is the critical path, and the threads compressing shards
    take the core time left on both cores (BENCHMARKS.md, Build)."""
    return _render_rows(rows, prefix, MAX_LOC_LENGTH, text, beside)


def render_urls(batch: Sequence[Url], *, text: bool = False) -> Rendered | None:
    """``render_rows`` for ``Url`` values without extensions (their locs are URIs already);
    None when one is not of the usual types."""
    rendered = _render_rows(batch, None, MAX_LOC_LENGTH, text, False)
    return None if rendered is None or rendered.refused() else rendered


def _xml_entries_ext(batch: Sequence[Url], declared: Collection[str]) -> list[str]:
    """Entries of a batch with extensions; ``declared``: namespaces the root declares."""
    lastmod_get = _LASTMOD_XML.get
    priority_get = _PRIORITY_XML.get
    changefreq_xml = _CHANGEFREQ_XML
    return [
        "<url"
        + (_url_declarations(extensions, declared) if extensions else "")
        + "><loc>"
        + (escape(loc) if "&" in loc or "'" in loc else loc)
        + "</loc>"
        + (lastmod_get(lastmod) or _lastmod_xml(lastmod) if lastmod is not None else "")
        + changefreq_xml[changefreq]
        + (priority_get(priority) or _priority_xml(priority) if priority is not None else "")
        + (extension_markup(extensions) if extensions else "")
        + "</url>\n"
        for loc, lastmod, changefreq, priority, extensions in batch
    ]

"""hreflang reciprocity across a sitemap set.

Search engines use ``<xhtml:link rel="alternate" hreflang="..." href="...">`` annotations
only when they are confirmed from both sides: every variant of a page lists every other
variant and itself ("return links"). One page's alternates and the page itself form a
group; each page of the group must link to every member of the group.

``Reciprocity`` takes the URLs of a set as a build or a check streams them and hands them to
the compiled core's set engine (``_core.LinkSet``, ``rust/core/src/set/``): each page's links
as rows of 64-bit hashes (XXH3, the build's de-duplication hash), on disk past a megabyte a
table, its strings in blocks beside them; the core's hash of every page without alternates
(``_core.loc_hashes``, ``RenderedRows.hashes``, check's loc column), to tell "in the set but
lists no alternates" from "not in this set". Check's records go to it straight from the
core's columns (``add_json_rows``: no JSON decoded here, no dict per record), a build's
rendered batches as they are (``add_written``). ``judged()`` then names each page that lacks
a link, the link it lacks, and the page whose annotations require it (the first ``cap`` of
each code; the rest counted), the core reading back the strings of those alone. The spill
directory goes with ``close``, the collection of this object, or the end of the process
(``weakref.finalize``), and with the engine's own collection (its ``Drop``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .._core import SET_SPILL_BYTES, LinkSet, loc_hashes
from ..model import Url

if TYPE_CHECKING:
    from pathlib import Path

    from .hreflang import Alternate

T = TypeVar("T")
Known = Callable[[list[str]], list[bool]]  # a set asked which locs it holds

SPILL_BYTES = SET_SPILL_BYTES  # bytes a table of the engine holds before it spills
STRING_BATCH = 4096  # pages whose strings the engine keeps in one block


class MissingLink(NamedTuple):
    """``page`` does not link to ``target``; ``named_by`` lists both as variants of one page.

    ``hreflang`` is the code ``named_by`` gives ``target`` ("" when ``named_by`` does not
    list ``target`` itself, i.e. a page missing its self-link).
    """

    page: str
    target: str
    hreflang: str
    named_by: str


class Unlisted(NamedTuple):
    """``variant`` is named as hreflang ``hreflang`` by ``named_by`` but lists no alternates.

    ``in_set``: the variant is a URL of this set (a certain failure); otherwise it is not in
    the set and cannot be verified here.
    """

    variant: str
    hreflang: str
    named_by: str
    in_set: bool


class SetLinks(NamedTuple):
    """What ``Reciprocity.judged`` finds: the findings listed (the first ``cap`` of each
    code, in the order the rule walks the set) and how many of each there are."""

    missing: list[MissingLink]
    missing_count: int
    unlisted: list[Unlisted]
    unlisted_counts: dict[bool, int]  # True: variants in the set (hreflang-unlisted)
    pages: int


class Reciprocity:
    """Collect the alternates of a set; then ``judged()`` (or ``missing()`` and
    ``unlisted()``) says what is wrong. Held as hashes in the core, on disk past a few
    megabytes; ``close`` removes its files (else collection or the process's end does)."""

    def __init__(self, *, track_plain: bool = True) -> None:
        """``track_plain=False``: keep no hash of the pages without alternates (8 bytes a
        URL); ``missing()`` does not need them, only ``unlisted()``, which then takes every
        variant for one outside the set, unless ``settle`` was told which are in it."""
        self._set = LinkSet(SPILL_BYTES, STRING_BATCH)
        self._close = weakref.finalize(self, self._set.close)
        self._track_plain = track_plain
        self._loose: list[str] = []  # locs given one at a time, hashed a batch at a time
        self._judged: dict[tuple[int | None, bool], SetLinks] = {}

    def add(self, url: Url) -> None:
        """Record one URL of the set (its typed alternates; others are ignored)."""
        if not url.extensions:
            self._note_plain(url.loc)
            return
        from .hreflang import Alternate  # loaded with the first URL that has extensions

        self.add_links(url.loc, [e for e in url.extensions if type(e) is Alternate])

    def add_links(self, loc: str, alternates: Iterable[Alternate]) -> None:
        """Record a page's alternates directly (a URL listed twice gets the union)."""
        self._add_found(loc, [(a.href, a.hreflang) for a in alternates])

    def add_hrefs(self, loc: str, found: dict[str, str]) -> None:
        """Record a page's alternates given as {href: hreflang}."""
        self._add_found(loc, list(found.items()))

    def add_json_rows(
        self, buffers: tuple[Any, Any, Any, Any, int], rows: Sequence[int] | bytes
    ) -> None:
        """Records of check's run of the core's columns that have alternates, in order:
        ``buffers`` (the extensions' offsets and values, the locs' offsets and values, the
        run's first row: ``Records.column_buffers``) and the records (from the run's first;
        native-endian u32s or ints): each one's links read from its JSON in the core."""
        words = rows if isinstance(rows, bytes) else _words(rows)
        if words:
            self._judged.clear()
            ext_offsets, ext_values, loc_offsets, loc_values, start = buffers
            self._set.add_json_rows(
                ext_offsets, ext_values or b"", loc_offsets, loc_values or b"", start, words
            )

    def _add_found(self, loc: str, links: list[tuple[str, str]]) -> None:
        """Record a page's alternates as (href, hreflang) pairs."""
        if not links:
            self._note_plain(loc)
            return
        self._judged.clear()
        self._set.add_page(loc, links)

    def add_plain(self, loc: str) -> None:
        """Record a page of the set known to have no extensions at all (the checker's fast path)."""
        self._note_plain(loc)

    def add_plain_many(self, locs: Iterable[str]) -> None:
        """``add_plain`` for many pages at once (the checker's runs of the core's records)."""
        if self._track_plain:
            self._loose.extend(locs)
            self._hash_loose(_LOOSE)

    def add_plain_hashes(self, hashes: bytes) -> None:
        """``add_plain_many`` for pages given as their locs' hashes (``_core.loc_hashes``,
        native-endian: check's runs of the core's records, hashed from its buffers)."""
        if self._track_plain and hashes:
            self._judged.clear()
            self._set.add_plain(hashes)

    def _note_plain(self, loc: str) -> None:
        if self._track_plain:
            self._loose.append(loc)
            if len(self._loose) >= _LOOSE:
                self._hash_loose()

    def _hash_loose(self, at_least: int = 0) -> None:
        """Hash the locs waiting in ``_loose`` (when there are ``at_least``)."""
        if len(self._loose) < max(at_least, 1):
            return
        self._judged.clear()
        self._set.add_plain(hashes_of(self._loose))
        self._loose.clear()

    def tap(self, entries: Iterable[T]) -> Iterator[T]:
        """Pass ``entries`` through unchanged, recording each ``Url`` on the way: checks the
        set a build writes without a second pass (``write_sitemaps(rec.tap(urls), ...)``,
        then ``rec.missing()``). Entries the build later rejects are recorded too."""
        add = self.add
        for entry in entries:
            if isinstance(entry, Url):
                if entry[4]:
                    add(entry)
                else:
                    self._note_plain(entry[0])
            yield entry

    def tap_batches(self, batches: Iterable[Sequence[T]]) -> Iterator[Sequence[T]]:
        """``tap`` for entries that come a list at a time (``sources.iter_batches``): Urls,
        and (loc, lastmod, changefreq, priority) rows, loose or as a source's ``SourceRows``,
        which have no alternates."""
        add = self.add
        for batch in batches:
            kinds = set(map(type, batch))
            if kinds == {tuple}:
                self.add_plain_many([row[0] for row in batch])  # type: ignore[index]
            elif Url in kinds:
                urls: list[Url] = [entry for entry in batch if type(entry) is Url]  # type: ignore[misc]
                self.add_plain_many([url[0] for url in urls if not url[4]])
                for url in urls:
                    if url[4]:
                        add(url)
            elif self._track_plain:
                # a source's unchecked rows (writing.SourceRows, one entry for the batch)
                for entry in batch:
                    rows = getattr(entry, "rows", None)
                    if rows is not None:
                        self.add_plain_many([row[0] for row in rows])
            yield batch

    def add_written(self, batch: Sequence[Url] | Any) -> None:
        """A batch a build wrote: ``Url`` values, or rows the core rendered
        (``_core.RenderedRows``: its entries with hreflang links and the hashes of the
        others taken in the core, no string made here), so that the set judged is the one
        published."""
        if not hasattr(batch, "links"):
            for _ in self.tap_batches([batch]):
                pass
            return
        written: Any = batch  # the core's entries (urlset._core.RenderedRows)
        self._judged.clear()
        self._set.add_rendered(written, self._track_plain)

    def judged(self, cap: int | None = None, *, include_self: bool = False) -> SetLinks:
        """The set's findings: the first ``cap`` of each code (all without one), in the
        order the rule walks the set, and how many of each there are."""
        key = (cap, include_self)
        said = self._judged.get(key)
        if said is None:
            said = self._judged[key] = self._judge(cap, include_self, None)
        return said

    def _judge(self, cap: int | None, include_self: bool, known: Known | None) -> SetLinks:
        """``judged`` worked out in the core: the hashes joined, the strings of the listed
        read back."""
        self._hash_loose()
        if not self._set.records:  # no page with alternates: nothing to find
            return SetLinks([], 0, [], {True: 0, False: 0}, 0)
        # a de-duplication set (``SeenLocs.known``) is asked on the hashes, others on hrefs
        packed = getattr(getattr(known, "__self__", None), "first_seen_packed", None)
        missing, missing_count, unlisted, in_set, outside, pages = self._set.judge(
            cap, include_self, packed, None if packed is not None else known
        )
        return SetLinks(
            [MissingLink(*found) for found in missing],
            missing_count,
            [Unlisted(*found) for found in unlisted],
            {True: in_set, False: outside},
            pages,
        )

    def close(self) -> None:
        """Remove the files the set's hashes spilled to (collection does too)."""
        self._close()

    @property
    def spill_path(self) -> Path | None:
        """The engine's spill directory, once a table went to a file."""
        path = self._set.spill_path
        if path is None:
            return None
        from pathlib import Path  # here: a check starts without it (~17M instructions)

        return Path(path)

    @property
    def pages(self) -> int:
        """Pages seen that have alternates."""
        if not self._set.records:
            return 0
        return self.judged(_CAP).pages

    def missing(self, *, include_self: bool = True) -> Iterator[MissingLink]:
        """Each (page, missing target) once, in the order pages were added.

        ``include_self=False`` leaves out pages that lack only their self-link (a per-URL
        rule can report those without the set).
        """
        return iter(self.judged(include_self=include_self).missing)

    def settle(self, known: Known) -> None:
        """Once the whole set is in: ask ``known`` which of the variants that list no
        alternates are in the set (a build's de-duplication set answers it, so the build keeps
        no hash of its own per URL: ``track_plain=False``); ``unlisted`` then says so."""
        if self._set.records:
            self._judged[(_CAP, False)] = self._judge(_CAP, False, known)

    def unlisted(self) -> Iterator[Unlisted]:
        """Variants named by some page that list no alternates themselves (each once)."""
        return iter(self.judged().unlisted)

    def unlisted_found(self) -> tuple[list[tuple[str, str, str]], list[bool]]:
        """``unlisted()`` as columns: each (variant, hreflang, named_by), and whether it is in
        the set."""
        found = self.judged().unlisted
        return [(u.variant, u.hreflang, u.named_by) for u in found], [u.in_set for u in found]

    def unlisted_capped(self, cap: int) -> tuple[list[Unlisted], dict[bool, int]]:
        """``unlisted()`` with at most ``cap`` variants in the set and ``cap`` outside it, in
        order, and how many of each there are (``True``: in the set): past the caps a
        variant is counted, never made a value."""
        said = self.judged(cap)
        return said.unlisted, said.unlisted_counts


def hashes_of(locs: list[str]) -> bytes:
    """The core's 64-bit hash of each loc (a text that is not UTF-8, a lone surrogate, is
    hashed as its UTF-8 with U+FFFD, as the engine takes it: no URL holds one, and the core
    hashes UTF-8 only)."""
    try:
        return loc_hashes(locs)
    except UnicodeEncodeError:
        fixed = [loc.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for loc in locs]
        return loc_hashes(fixed)


def _words(rows: Sequence[int]) -> bytes:
    from array import array

    return array("I", rows).tobytes()


_CAP = 1_000  # findings listed a code, as check and build list them
_LOOSE = 4096  # locs hashed at once


def describe(link: MissingLink) -> str:
    """One sentence naming the page, the link it lacks, and why it needs it."""
    if link.page == link.target:
        return (
            f"{link.page} lacks a link to itself"
            + (f" (hreflang {link.hreflang!r})" if link.hreflang else "")
            + f"; {link.named_by} lists it as a variant"
        )
    code = f"hreflang={link.hreflang!r} " if link.hreflang else ""
    return (
        f"{link.page} lacks <xhtml:link {code}href={link.target!r}>: "
        f"{link.named_by} lists both as variants of one page"
    )

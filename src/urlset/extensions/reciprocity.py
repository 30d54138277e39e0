"""hreflang reciprocity across a sitemap set.

Search engines use ``<xhtml:link rel="alternate" hreflang="..." href="...">`` annotations
only when they are confirmed from both sides: every variant of a page lists every other
variant and itself ("return links"). One page's alternates and the page itself form a
group; each page of the group must link to every member of the group.

``Reciprocity`` takes the URLs of a set one at a time (a build or a check streams them) and
keeps only what the rule needs: the alternates of pages that have some, and a 64-bit hash
of every other loc, 8 bytes a URL (to tell "in the set but lists no alternates" from "not in
this set"): the compiled core's (``_core.loc_hashes``, ``RenderedRows.hashes``), so a build
hands over the hashes it computed to de-duplicate, without a Python string per URL.
``missing()`` then names each page that lacks a link, the link it lacks, and the page whose
annotations require it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from .._core import loc_hashes
from ..model import Url

if TYPE_CHECKING:
    from .hreflang import Alternate

T = TypeVar("T")


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


class Reciprocity:
    """Collect the alternates of a set; then ``missing()`` and ``unlisted()`` say what is wrong."""

    def __init__(self, *, track_plain: bool = True) -> None:
        """``track_plain=False``: keep no hash of the pages without alternates (8 bytes a
        URL); ``missing()`` does not need them, only ``unlisted()``, which then takes every
        variant for one outside the set, unless ``settle`` was told which are in it."""
        # loc -> its links (href, hreflang, href, hreflang, ...): a tuple takes a third of
        # the memory of a dict of two, and a set holds one for each page with alternates
        self._links: dict[str, Links] = {}
        self._track_plain = track_plain
        self._settled: dict[str, bool] = {}  # variant -> in the set, as ``settle`` was told
        # the core's hashes of locs without alternates: 8 bytes a URL (a set of ints takes
        # ~70); locs given one at a time wait in _loose to be hashed a batch at a time
        self._plain = bytearray()
        self._loose: list[str] = []

    def add(self, url: Url) -> None:
        """Record one URL of the set (its typed alternates; others are ignored)."""
        if not url.extensions:
            self.add_links(url.loc, ())
            return
        from .hreflang import Alternate  # loaded with the first URL that has extensions

        links = [e for e in url.extensions if type(e) is Alternate]
        self.add_links(url.loc, links)

    def add_links(self, loc: str, alternates: Iterable[Alternate]) -> None:
        """Record a page's alternates directly (a URL listed twice gets the union)."""
        self._add_found(loc, {a.href: a.hreflang for a in alternates})

    def add_hrefs(self, loc: str, found: dict[str, str]) -> None:
        """Record a page's alternates given as {href: hreflang} (check's runs of the core's
        records, from their JSON)."""
        self._add_found(loc, found)

    def _add_found(self, loc: str, found: dict[str, str]) -> None:
        """Record a page's alternates as {href: hreflang}."""
        if not found:
            self._note_plain(loc)
            return
        known = self._links.get(loc)
        if known is None:
            self._links[loc] = _flat(found)
        else:
            merged = _pairs(known)
            for href, code in found.items():
                merged.setdefault(href, code)
            self._links[loc] = _flat(merged)

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
        if self._track_plain:
            self._plain += hashes

    def _note_plain(self, loc: str) -> None:
        if self._track_plain:
            self._loose.append(loc)
            if len(self._loose) >= _LOOSE:
                self._hash_loose()

    def _hash_loose(self, at_least: int = 0) -> None:
        """Hash the locs waiting in ``_loose`` into ``_plain`` (when there are ``at_least``)."""
        if len(self._loose) < max(at_least, 1):
            return
        self._plain += _hashes(self._loose)
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
        """A batch a build wrote: ``Url`` values, or rows the core rendered (``locs``,
        ``hashes()`` and ``links()``: the (hreflang, href) links of the entries that have
        some, ``link_maps()`` as (index, loc, {href: hreflang})), so that the set judged is the
        one published."""
        if not hasattr(batch, "links"):
            for _ in self.tap_batches([batch]):
                pass
            return
        written: Any = batch  # the core's entries (urlset._core.RenderedRows)
        found: list[tuple[int, str, dict[str, str]]] = written.link_maps()
        hashes: bytes = written.hashes() if self._track_plain else b""
        if not found:  # the usual run: its hashes as the core made them, no loc read
            self._plain += hashes
            return
        if hashes:
            linked = {index for index, _, _ in found}  # the other entries are plain
            self._plain += b"".join(
                hashes[8 * index : 8 * index + 8]
                for index in range(len(hashes) // 8)
                if index not in linked
            )
        links = self._links
        batch_links = {loc: hrefs for _, loc, hrefs in found}
        if len(batch_links) == len(found) and links.keys().isdisjoint(batch_links):
            # the usual batch: each page new, recorded at once
            links.update((loc, _flat(hrefs)) for loc, hrefs in batch_links.items())
            return
        for _, loc, hrefs in found:
            self._add_found(loc, hrefs)

    @property
    def pages(self) -> int:
        """Pages seen that have alternates."""
        return len(self._links)

    def missing(self, *, include_self: bool = True) -> Iterator[MissingLink]:
        """Each (page, missing target) once, in the order pages were added.

        ``include_self=False`` leaves out pages that lack only their self-link (a per-URL
        rule can report those without the set).
        """
        links = self._links
        reported: set[tuple[str, str]] = set()
        for loc, flat in links.items():
            own = flat[0::2]
            listed = loc in own
            group = own if listed else (*own, loc)
            for page in group:
                if page == loc:  # the page itself lists the whole group but perhaps itself
                    if listed or not include_self or (loc, loc) in reported:
                        continue
                    reported.add((loc, loc))
                    yield MissingLink(loc, loc, "", loc)
                    continue
                their_links = links.get(page)
                if their_links is None:
                    continue
                # a large group's links looked up in a set, a few in the tuple
                theirs: Collection[str] = their_links[0::2]
                if len(theirs) > 8:
                    theirs = set(theirs)
                for target in group:
                    if target in theirs or (page, target) in reported:
                        continue
                    if page == target and not include_self:
                        continue
                    reported.add((page, target))
                    yield MissingLink(page, target, _code_of(flat, target), loc)

    def settle(self, known: Callable[[list[str]], list[bool]]) -> None:
        """Once the whole set is in: ask ``known`` which of the variants that list no
        alternates are in the set (a build's de-duplication set answers it, so the build keeps
        no hash of its own per URL: ``track_plain=False``); ``unlisted`` then says so."""
        hrefs = [href for href, _, _ in self._named_unlisted()]
        if hrefs:
            self._settled = dict(zip(hrefs, known(hrefs), strict=True))

    def _named_unlisted(self) -> list[tuple[str, str, str]]:
        """(variant, its hreflang, the page naming it) of each variant named that lists no
        alternates, once each."""
        return list(self._each_named_unlisted())

    def _each_named_unlisted(self) -> Iterator[tuple[str, str, str]]:
        """``_named_unlisted`` one at a time."""
        links = self._links
        reported: set[str] = set()
        for loc, flat in links.items():
            for href, code in zip(flat[0::2], flat[1::2], strict=True):
                if href in links or href in reported:
                    continue
                reported.add(href)
                yield href, code, loc

    def unlisted(self) -> Iterator[Unlisted]:
        """Variants named by some page that list no alternates themselves (each once)."""
        found, in_set = self.unlisted_found()
        for (href, code, loc), listed in zip(found, in_set, strict=True):
            yield Unlisted(href, code, loc, listed)

    def unlisted_found(self) -> tuple[list[tuple[str, str, str]], list[bool]]:
        """``unlisted()`` as columns: each (variant, hreflang, named_by), and whether it is in
        the set; a set of 100,000 such variants makes no object a variant."""
        found = self._named_unlisted()
        return found, self._in_set([href for href, _, _ in found])

    def unlisted_capped(self, cap: int) -> tuple[list[Unlisted], dict[bool, int]]:
        """``unlisted()`` with at most ``cap`` variants in the set and ``cap`` outside it, in
        order, and how many of each there are (``True``: in the set): past the caps a
        variant is counted, never made a value."""
        in_set = self._in_set([href for href, _, _ in self._each_named_unlisted()])
        counts = {True: sum(in_set), False: len(in_set) - sum(in_set)}
        room = {True: min(cap, counts[True]), False: min(cap, counts[False])}
        out: list[Unlisted] = []
        if room[True] or room[False]:
            for (href, code, loc), listed in zip(self._each_named_unlisted(), in_set, strict=True):
                if room[listed]:
                    room[listed] -= 1
                    out.append(Unlisted(href, code, loc, listed))
                    if not (room[True] or room[False]):
                        break
        return out, counts

    def _in_set(self, hrefs: list[str]) -> list[bool]:
        """Whether each variant is in the set: ``settle``'s answer, or the hash of a page
        without alternates."""
        in_set = [self._settled.get(href, False) for href in hrefs]
        self._hash_loose()
        if not hrefs or not self._plain:  # no page without alternates hashed: settled only
            return in_set
        wanted = memoryview(_hashes(hrefs)).cast("Q")
        with memoryview(self._plain) as plain:  # one pass over the plain pages' hashes
            listed = set(wanted).intersection(plain.cast("Q"))
        if listed:
            in_set = [was or hashed in listed for was, hashed in zip(in_set, wanted, strict=True)]
        return in_set


_LOOSE = 4096  # locs hashed at once

Links = tuple[str, ...]  # a page's links: href, hreflang, href, hreflang, ...


def _flat(found: dict[str, str]) -> Links:
    """A page's links {href: hreflang} as held."""
    return tuple(chain.from_iterable(found.items()))


def _pairs(flat: Links) -> dict[str, str]:
    """A page's links as held, as {href: hreflang}."""
    return dict(zip(flat[0::2], flat[1::2], strict=True))


def _code_of(flat: Links, href: str) -> str:
    """The hreflang a page's links give ``href`` ("" when they do not list it)."""
    for at in range(0, len(flat), 2):
        if flat[at] == href:
            return flat[at + 1]
    return ""


def _hashes(locs: list[str]) -> bytes:
    """The core's 64-bit hash of each loc (a text that is not UTF-8, a lone surrogate, is
    hashed as its UTF-8 with U+FFFD: no URL holds one, and the core hashes UTF-8 only)."""
    try:
        return loc_hashes(locs)
    except UnicodeEncodeError:
        fixed = [loc.encode("utf-8", "surrogatepass").decode("utf-8", "replace") for loc in locs]
        return loc_hashes(fixed)


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

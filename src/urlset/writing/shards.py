"""Stable sharding: which shard each URL belongs to, and a stable set's manifest. Pure.

A URL's key (64 bits) says where it lies in the site, so that neighbours share shards:
its section (24 bits of a hash of the name; 0 without sections), its directory (8 bits of
a hash of the path up to the last '/'), its place in the directory (24 bits, in order: the
longest number in the last segment and query by value, ``/p/99`` before ``/p/100``, or else
the segment's first letters), and 8 bits of a hash of the loc to part URLs that tie. So the pages a site adds
(increasing IDs), edits (mostly the newest) and removes (the oldest) fall in few shards.
The key space is a binary trie: node ``(depth, value)`` holds the keys whose top ``depth``
bits are ``value``; its id is ``(1 << depth) | value`` (the root is 1, its halves 2 and 3,
...). The shards of a set are the highest nodes whose URLs fit in one document (and, in a
set with sections, lie below a section's node): a node is a shard when it fits and its
parent does not. That is a function of the set alone (not of its history), so a full build
and any sequence of incremental ones give the same shards; and a change inside one shard
can only split that shard (it no longer fits) or merge it with its siblings (their parent
fits now). Inside a shard, entries are in loc order.
"""

from __future__ import annotations

import hashlib
import json
import re
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from functools import cache
from itertools import accumulate
from typing import Any, NamedTuple

from ..dates import Lastmod, from_formatted, latest_moment
from ..errors import LimitExceeded

KEY_BITS = 64
SECTION_BITS = 24  # the top bits of a key: its section's
MANIFEST_VERSION = 2
_DIGITS = re.compile(r"[0-9]+")
_ESCAPE = re.compile(r"%[0-9A-Fa-f]{2}")


@cache
def section_key(section: str | None) -> int:
    """A section's top key bits, shifted in place (BLAKE2b: stable everywhere)."""
    if section is None:
        return 0
    digest = hashlib.blake2b(section.encode(), digest_size=3, person=b"section").digest()
    return int.from_bytes(digest, "big") << (KEY_BITS - SECTION_BITS)


def key_of(loc: str, section: str | None = None) -> int:
    """A loc's place in the key space (see the module's docstring)."""
    start = loc.find("/", loc.find("//") + 2)
    path = "/" if start < 0 else loc[start:].partition("#")[0]
    directory, _, last = path.partition("?")[0].rpartition("/")
    last = path[len(directory) + 1 :]  # with its query: /search?q=17 is at 17
    if "%" in last:  # an escape's hex digits are no number: caf%C3%A9-12 is at 12
        last = _ESCAPE.sub("-", last)
    numbers = _DIGITS.findall(last)
    if numbers:  # by value (the longest number: an ID): its digit count, then its first digits
        digits = max(numbers, key=len).lstrip("0") or "0"
        lead = int(digits[:6].ljust(6, "0")) * (1 << 19) // 1_000_000
        place = (1 << 23) | (min(len(digits), 15) << 19) | lead
    else:
        place = int.from_bytes(last.lower().encode()[:3].ljust(3, b"\0"), "big") >> 1
    tie = hashlib.blake2b(loc.encode(), digest_size=1).digest()[0]
    where = (zlib.crc32(directory.encode()) & 0xFF) << 32 | place << 8 | tie
    return section_key(section) | where


def shard_number(node: Node) -> int:
    """A shard's number in its file name: its node's id inside its section's subtree (1 for
    a node that holds the whole set or section)."""
    depth = node.depth - SECTION_BITS
    if depth <= 0:
        return 1
    return (1 << depth) | (node.value & ((1 << depth) - 1))


def entry_size(entry: str) -> int:
    return len(entry) if entry.isascii() else len(entry.encode())


class Node(NamedTuple):
    depth: int
    value: int

    @classmethod
    def from_id(cls, node_id: int) -> Node:
        depth = node_id.bit_length() - 1
        return cls(depth, node_id - (1 << depth))

    @property
    def id(self) -> int:
        return (1 << self.depth) | self.value

    @property
    def lo(self) -> int:
        return self.value << (KEY_BITS - self.depth)

    @property
    def hi(self) -> int:
        return (self.value + 1) << (KEY_BITS - self.depth)

    @property
    def parent(self) -> Node:
        return Node(self.depth - 1, self.value >> 1)

    def children(self) -> tuple[Node, Node]:
        return Node(self.depth + 1, self.value << 1), Node(self.depth + 1, (self.value << 1) | 1)

    def holds(self, other: Node) -> bool:
        return self.lo <= other.lo and other.hi <= self.hi


class Sizing(NamedTuple):
    """What fits in one document: the limits, and the fixed bytes around the entries (the
    header with and without the typed namespaces, the footer)."""

    max_urls: int
    max_bytes: int
    plain_header: int
    typed_header: int
    footer: int
    sections: bool = False  # then a shard lies inside one section's node

    def fits(self, urls: int, body: int, typed: bool, news: int = 0, depth: int = KEY_BITS) -> bool:
        """Whether ``urls`` entries of ``body`` bytes fit one document, holding ``news`` news
        entries (the news extension allows 1,000 a sitemap), in a node of ``depth``."""
        if urls and self.sections and depth < SECTION_BITS:
            return False
        around = (self.typed_header if typed else self.plain_header) + self.footer
        return urls <= self.max_urls and around + body <= self.max_bytes and news <= MAX_NEWS


MAX_NEWS = 1_000  # news entries a sitemap may hold (extensions.news.MAX_NEWS_PER_SITEMAP)
NEWS_TAG = "<news:news>"  # how a stable set's entry text opens each news entry


def split_sorted(
    node: Node,
    keys: Sequence[int],
    sizes: Sequence[int],
    typed: Sequence[bool],
    sizing: Sizing,
    news: Sequence[int] = (),
) -> list[tuple[Node, int, int]]:
    """The shards inside ``node`` for entries sorted by key: (node, start, stop) each, in key
    order, empty ones included (they cover their part of the key space); ``news``: each
    entry's news entries (none when empty)."""
    ends = array("Q", accumulate(sizes, initial=0))
    typed_ends = array("Q", accumulate(map(int, typed), initial=0))
    news_ends = array("Q", accumulate(news, initial=0)) if news else None
    return split_summed(node, keys, ends, typed_ends, news_ends, sizing)


def split_summed(
    node: Node,
    keys: Sequence[int],
    ends: Sequence[int],
    typed_ends: Sequence[int] | None,
    news_ends: Sequence[int] | None,
    sizing: Sizing,
) -> list[tuple[Node, int, int]]:
    """``split_sorted`` given the running sums of the entries' bytes, typed flags and news
    entries (each from 0; None: none typed, no news), as a full build gathers them."""
    found: list[tuple[Node, int, int]] = []
    todo = [(node, 0, len(keys))]
    while todo:
        at, start, stop = todo.pop()
        typed_any = typed_ends is not None and typed_ends[stop] > typed_ends[start]
        held = 0 if news_ends is None else news_ends[stop] - news_ends[start]
        if sizing.fits(stop - start, ends[stop] - ends[start], typed_any, held, at.depth):
            found.append((at, start, stop))
            continue
        above_sections = sizing.sections and at.depth < SECTION_BITS
        if (stop - start == 1 and not above_sections) or at.depth == KEY_BITS:
            raise LimitExceeded(
                f"{stop - start} URL(s) of {ends[stop] - ends[start]} bytes cannot fit in a "
                f"sitemap of at most {sizing.max_urls} URLs and {sizing.max_bytes} bytes; "
                "raise the limits"
            )
        low, high = at.children()
        cut = bisect_left(keys, high.lo, start, stop)
        todo.append((high, cut, stop))
        todo.append((low, start, cut))
    return found


_LASTMOD = re.compile(r"</loc><lastmod>([^<]*)</lastmod>")


def newest_lastmod(body: str) -> Lastmod | None:
    """The newest lastmod of a shard's entries (the first written of equal ones), ordered as
    check orders them: a date counts to the end of its day (``dates.latest_moment``), so the
    index never says a time on that day while the shard lists the date."""
    spellings = dict.fromkeys(_LASTMOD.findall(body))
    if not spellings:
        return None
    return max(map(from_formatted, spellings), key=latest_moment)


_UNESCAPE = (("&apos;", "'"), ("&quot;", '"'), ("&lt;", "<"), ("&gt;", ">"), ("&amp;", "&"))


def loc_of(entry: str, *, text: bool) -> str:
    if text:
        return entry[:-1]
    return _unescape(entry[entry.index("<loc>") + 5 : entry.index("</loc>")])


def _unescape(loc: str) -> str:
    if "&" in loc:
        for entity, raw in _UNESCAPE:
            loc = loc.replace(entity, raw)
    return loc


_ENTRY_LOC = re.compile(r"<url[^>]*><loc>([^<]*)</loc>")


def locs_of(entries: list[str], *, text: bool) -> list[str]:
    """The loc of each entry text (one regex over them all, checked to find one an entry)."""
    if text:
        return [entry[:-1] for entry in entries]
    found = _ENTRY_LOC.findall("".join(entries))
    if len(found) != len(entries):  # markup inside an entry looked like an entry's start
        return [loc_of(entry, text=False) for entry in entries]
    if not any("&" in loc for loc in found):
        return found
    return _unescape("\n".join(found)).split("\n")  # a loc holds no line break


def split_entries(document: str, *, text: bool) -> list[str]:
    """The entry texts of a shard file urlset wrote (an entry cannot hold "</url>\\n": the
    markup inside a <url> is well-formed, and text in it is escaped)."""
    if text:
        return document.splitlines(keepends=True)
    start = document.index(">\n", document.index("<urlset")) + 2
    body = document[start : len(document) - len("</urlset>\n")]
    return [part + "</url>\n" for part in body.split("</url>\n")[:-1]]


_FIELDS = re.compile(
    r"<url[^>]*><loc>[^<]*</loc>(<lastmod>[^<]*</lastmod>)?(<changefreq>[^<]*</changefreq>)?"
    r"(<priority>[^<]*</priority>)?(.*)</url>\n",
    re.DOTALL,
)
FIELD_NAMES = ("lastmod", "changefreq", "priority", "extensions")


def changed_fields(old: str, new: str) -> tuple[str, ...]:
    """The fields in which two entry texts of the same loc differ."""
    a, b = _FIELDS.fullmatch(old), _FIELDS.fullmatch(new)
    if a is None or b is None:  # text sitemaps: a loc and nothing else
        return ()
    return tuple(name for i, name in enumerate(FIELD_NAMES, 1) if a[i] != b[i])


class Change(NamedTuple):
    """One URL a build added, removed or changed against the previous set (``fields``: what
    changed: lastmod, changefreq, priority, extensions)."""

    loc: str
    change: str  # added, removed, changed
    fields: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        found: dict[str, Any] = {"loc": self.loc, "change": self.change}
        if self.change == "changed":
            found["fields"] = list(self.fields)
        return found


def diff(old: dict[str, str], new: dict[str, str], locs: Iterable[str]) -> Iterator[Change]:
    """The changes from ``old`` to ``new`` (loc -> entry text) among ``locs``, in loc order."""
    for loc in sorted(set(locs)):
        before, after = old.get(loc), new.get(loc)
        if before == after:
            continue
        if before is None:
            yield Change(loc, "added")
        elif after is None:
            yield Change(loc, "removed")
        else:
            yield Change(loc, "changed", changed_fields(before, after))


class Leaf(NamedTuple):
    """A shard as the manifest records it; ``name`` is None for an empty one (no file)."""

    id: int
    name: str | None
    urls: int
    body: int  # bytes of its entries
    typed: bool
    lastmod: str | None  # as written in the index
    bytes: int
    written: int
    digest: str  # of the uncompressed document
    section: str | None = None

    @property
    def node(self) -> Node:
        return Node.from_id(self.id)


class Manifest(NamedTuple):
    """A stable set's state, kept beside it: the options it was built with, the SHA-256 of
    each index (so that it is used only with the set it describes) and every shard."""

    settings: dict[str, Any]
    indexes: dict[str, str]
    leaves: list[Leaf]

    def file_name(self, prefix: str) -> str:
        digest = hashlib.sha256(json.dumps(self.indexes, sort_keys=True).encode()).hexdigest()
        return f".{prefix}-manifest-{digest[:16]}.json"

    def to_json(self) -> str:
        return json.dumps(
            {
                "version": MANIFEST_VERSION,
                "settings": self.settings,
                "indexes": self.indexes,
                "leaves": [list(leaf) for leaf in self.leaves],
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Manifest | None:
        """The manifest in ``text``, or None when it is not one this version writes."""
        try:
            data = json.loads(text)
            if data.get("version") != MANIFEST_VERSION:
                return None
            leaves = [Leaf(*leaf) for leaf in data["leaves"]]
            return cls(dict(data["settings"]), dict(data["indexes"]), leaves)
        except (ValueError, TypeError, KeyError, AttributeError):
            return None

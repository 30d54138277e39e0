"""The documents a sitemap server can answer with, found in a published directory.

``DirectorySet`` maps a request name to a file of the set: the sitemaps and indexes
(``.xml``, ``.txt``, either ``.gz``), and a stylesheet (``.xsl``). A ``Document`` knows its
identity (SHA-256 of its bytes on disk, the ETag's base) and its newest
``<lastmod>`` (Last-Modified), computed once per file version (device, inode, size and
modification time) and kept in a bounded cache, and opens its bytes as a stream of chunks.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import zlib
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from threading import Lock

from ..dates import instant, parse_lenient
from .http import CHUNK

# names a server may answer for: one path segment, no dot file, a known suffix
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*\.(?:xml|txt|xsl)(?:\.gz)?")
_CACHED = 4096  # file versions whose identity is remembered
_GZIP_MAGIC = b"\x1f\x8b"
# a lastmod as any document may write it (spaces around, any value): read leniently, and a
# value nothing can be read from is passed over (it only decides Last-Modified)
_LASTMOD = re.compile(r"<lastmod>\s*([^<]{1,64}?)\s*</lastmod>")
# an index entry that may name a file of a set: the URL path of its directory
_CHILD_DIRECTORY = re.compile(
    r"<loc>\s*[a-zA-Z][a-zA-Z0-9+.-]*://[^/?#<\s]*(/[^?#<\s]{0,8192}/|/)"
    r"[A-Za-z0-9][A-Za-z0-9._-]*\s*</loc>"
)
_DIRECTORIES = 64  # distinct ones kept; more: "*", which no mount matches


class DocumentError(Exception):
    """A file of the set that cannot be served (a damaged gzip stream): the message names it."""


def _newest_lastmod(text: str) -> datetime | None:
    newest: datetime | None = None
    for spelling in dict.fromkeys(_LASTMOD.findall(text)):
        value, _ = parse_lenient(spelling)
        if value is None:
            continue
        try:  # an HTTP date is in UTC: an instant before year 1 or after 9999 there has none
            moment = instant(value).astimezone(UTC)
        except OverflowError:
            continue
        newest = moment if newest is None or moment > newest else newest
    return newest


@dataclass(frozen=True)
class Document:
    """One file of a set, as served. ``gzipped``: its bytes on disk are gzip; ``digest``: hex
    SHA-256 of its bytes on disk (every representation is a function of them); ``size``:
    bytes on disk; ``length``: uncompressed."""

    name: str
    path: Path
    kind: str  # "xml", "text" or "xsl"
    gzipped: bool
    digest: str
    lastmod: datetime | None
    size: int
    length: int
    index: bool = False  # a sitemap index
    # the URL paths of the directories an index's children are named in (the mount moves them)
    child_directories: frozenset[str] = frozenset()

    def raw_chunks(self) -> Iterator[bytes]:
        """The bytes as stored (gzip for a gzipped file)."""
        with self.path.open("rb") as file:
            while chunk := file.read(CHUNK):
                yield chunk

    def chunks(self) -> Iterator[bytes]:
        """The uncompressed bytes, inflated a chunk at a time (bounded memory)."""
        if self.gzipped:
            yield from _inflated(self.raw_chunks())
        else:
            yield from self.raw_chunks()

    def content(self) -> bytes:
        return b"".join(self.chunks())


def _inflated(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """A gzip stream's content, at most CHUNK bytes out per step (bounded memory)."""
    inflater = zlib.decompressobj(wbits=31)
    for chunk in chunks:
        while chunk:
            out = inflater.decompress(chunk, CHUNK)
            if out:
                yield out
            chunk = inflater.unconsumed_tail
    rest = inflater.flush()
    if rest:
        yield rest


def _kind(name: str) -> str:
    base = name.removesuffix(".gz")
    if base.endswith(".xsl"):
        return "xsl"
    return "text" if base.endswith(".txt") else "xml"


class DirectorySet:
    """The published sitemap set in ``directory`` (what ``urlset build`` writes there)."""

    def __init__(self, directory: str | Path) -> None:
        self.directory = Path(directory)
        self._root = str(self.directory)
        if not self.directory.is_dir():
            raise NotADirectoryError(f"{self.directory}: not a directory")
        self._cache: OrderedDict[tuple[str, int, int, int, int], _Identity] = OrderedDict()
        self._lock = Lock()

    def problem(self) -> str | None:
        """Why nothing can be served now (a directory always can)."""
        return None

    def names(self) -> list[str]:
        """The names this set answers for, sorted (index files first)."""
        found = [p.name for p in self.directory.iterdir() if _NAME.fullmatch(p.name)]
        return sorted(found, key=lambda name: ("-index" not in name, len(name), name))

    def entry_points(self) -> list[str]:
        """The files a crawler starts from: the indexes, or the one sitemap of a small set."""
        names = [n for n in self.names() if _kind(n) != "xsl"]
        indexes = [n for n in names if "-index" in n or _is_index(self.directory / n)]
        return indexes or names

    def document(self, name: str) -> Document | None:
        """The document ``name`` stands for, or None. A name without ``.gz`` is also answered
        by its gzipped file (then inflated, or sent with Content-Encoding: gzip). Raises
        ``DocumentError`` for a file whose gzip stream is damaged."""
        if not _NAME.fullmatch(name):
            return None
        gz = name.endswith(".gz")
        candidates = [(name, True)] if gz else [(name, False), (name + ".gz", True)]
        for candidate, gzipped in candidates:
            path = os.path.join(self._root, candidate)
            try:
                info = os.lstat(path)  # one call: a symlink is not followed, and not served
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode):
                continue
            digest, lastmod, length, directories = self._identity(Path(path), info, gzipped)
            return Document(
                name,
                Path(path),
                _kind(name),
                gzipped,
                digest,
                lastmod,
                info.st_size,
                length,
                directories is not None,
                directories or frozenset(),
            )
        return None

    def _identity(self, path: Path, info: os.stat_result, gzipped: bool) -> _Identity:
        key = (path.name, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        with self._lock:
            known = self._cache.get(key)
            if known is not None:
                self._cache.move_to_end(key)
                return known
        try:
            identity = _scan(path, info, gzipped)
        except zlib.error as exc:
            raise DocumentError(f"{path.name}: not a readable gzip file ({exc})") from None
        with self._lock:
            self._cache[key] = identity
            while len(self._cache) > _CACHED:
                self._cache.popitem(last=False)
        return identity


# digest, newest lastmod (or the file's mtime), uncompressed length, and for an index the
# directories its children are named in (None: not an index)
_Identity = tuple[str, datetime | None, int, frozenset[str] | None]


def _scan(path: Path, info: os.stat_result, gzipped: bool) -> _Identity:
    """One pass over a file: its digest, newest lastmod, length, and for an index where its
    children are named."""
    probe = Document(path.name, path, _kind(path.name), gzipped, "", None, info.st_size, 0)
    digest = hashlib.sha256()

    def hashed() -> Iterator[bytes]:
        for chunk in probe.raw_chunks():
            digest.update(chunk)
            yield chunk

    length = 0
    newest: datetime | None = None
    tail = ""
    directories: set[str] | None = None
    for chunk in _inflated(hashed()) if gzipped else hashed():
        if length == 0 and b"<sitemapindex" in chunk[:4096]:
            directories = set()
        length += len(chunk)
        # the lastmod scan runs on text; a chunk boundary may cut an element, so the
        # end of each chunk is scanned again with the next
        text = tail + chunk.decode("utf-8", "replace")
        found = _newest_lastmod(text)
        if found is not None and (newest is None or found > newest):
            newest = found
        if directories is not None and "*" not in directories:
            directories.update(_CHILD_DIRECTORY.findall(text))
            if len(directories) > _DIRECTORIES:
                directories = {"*"}
        tail = text[-8300:]  # the longest element either scan reads
    if newest is None:
        newest = datetime.fromtimestamp(info.st_mtime, UTC)
    children = None if directories is None else frozenset(directories)
    return digest.hexdigest(), newest, length, children


def _is_index(path: Path) -> bool:
    """Whether a file's first bytes hold a <sitemapindex> start tag."""
    try:
        with path.open("rb") as file:
            head = file.read(4096)
        if head.startswith(_GZIP_MAGIC):
            head = zlib.decompressobj(wbits=31).decompress(head, 4096)
    except (OSError, zlib.error):
        return False
    return b"<sitemapindex" in head

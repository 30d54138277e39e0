"""Stable sets: URLs sharded by a local key of their loc (``shards``: section, directory,
place), a manifest beside the set, and incremental rebuilds that read and write only the
shards that changes fall in.

A full build (``write_sitemaps(..., stable=True)``) spills its checked entries in sorted
runs (``spill``), plans the trie over the sorted keys (a node that fits is a shard, one that
does not is split) and writes each shard with its entries in loc order. ``update_sitemaps``
reads the manifest, sends each added, changed or removed URL to the shard whose key range
holds it, reads those shards, and writes again only the ones whose content changed (split
when one no longer fits, merged with its siblings when their parent fits now); every other
shard keeps its file, untouched. Either way the set is the same function of the final URLs,
byte for byte.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from zlib_ng import zlib_ng

from ..dates import format_w3c, from_formatted
from ..errors import InvalidValue, LimitExceeded, PublishError
from ..urls import Scope
from .checked import checked_batches
from .document import (
    URLSET_FOOTER,
    Rendered,
    stable_header,
    standalone_entries,
    uses_typed_prefix,
)
from .files import FileSink, Publisher
from .includes import INCLUDE, to_settings
from .indexes import write_indexes
from .options import BuildOptions, Entry, FileNames
from .report import BuildReport, FileReport
from .shards import (
    KEY_BITS,
    NEWS_TAG,
    SECTION_BITS,
    Change,
    Leaf,
    Manifest,
    Node,
    Sizing,
    diff,
    entry_size,
    key_of,
    locs_of,
    newest_lastmod,
    section_key,
    shard_number,
    split_entries,
    split_sorted,
)
from .spill import SortedRuns

_FINISHING = 2  # shard files compressing on their own threads while the next is prepared
Items = tuple[list[str], list[str]]  # locs and their entry texts


def _settings(opts: BuildOptions, directory: str) -> dict[str, Any]:
    """What must not change between a set and an incremental rebuild of it."""
    limits = opts.limits
    return {
        "directory": directory,
        "max_urls": limits.max_urls,
        "max_bytes": limits.max_bytes,
        "per_index": limits.max_sitemaps_per_index,
        "gzip": opts.gzip,
        "gzip_level": opts.gzip_level,
        "text": opts.text,
        "xsl": opts.xsl,
        "schema_location": opts.schema_location,
        "section": None if opts.section is None else opts.section.describe,
        # what may change: an update keeps these unless given others
        INCLUDE: to_settings(opts.include),  # type: ignore[arg-type]  # SitemapRefs here
    }


def _sizing(opts: BuildOptions) -> Sizing:
    def header(typed: bool) -> int:
        if opts.text:
            return 0
        text = stable_header(typed=typed, xsl=opts.xsl, schema_location=opts.schema_location)
        return len(text.encode())

    footer = 0 if opts.text else len(URLSET_FOOTER)
    limits = opts.limits
    sections = opts.section is not None
    return Sizing(limits.max_urls, limits.max_bytes, header(False), header(True), footer, sections)


def _standalone(batch: list[Any] | Rendered, opts: BuildOptions) -> Items:
    if isinstance(batch, Rendered):  # rows of plain values: no extensions, texts as they are
        return batch.locs, batch.entries()
    return [url[0] for url in batch], standalone_entries(batch, text=opts.text)


def load_manifest(out_dir: Path, names: FileNames) -> Manifest | None:
    """The manifest of the set published in ``out_dir``: the one whose indexes are the
    published ones, byte for byte (a build killed after publishing an index but before
    removing the old manifest leaves two; only one matches)."""
    for path in sorted(out_dir.glob(f".{names.prefix}-manifest-*.json")):
        manifest = Manifest.from_json(path.read_text(encoding="utf-8"))
        if manifest is None or path.name != manifest.file_name(names.prefix):
            continue
        try:
            digests = {n: _sha256((out_dir / n).read_bytes()) for n in manifest.indexes}
        except OSError:
            continue
        if digests == manifest.indexes:
            return manifest
    return None


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_shard(out_dir: Path, leaf: Leaf, opts: BuildOptions) -> dict[str, str]:
    """A published shard's entries: loc -> entry text, in loc order."""
    if leaf.name is None:
        return {}
    path = out_dir / leaf.name
    data = path.read_bytes()
    try:
        if opts.gzip:
            data = zlib_ng.decompress(data, wbits=31)
    except Exception:  # zlib_ng.error (untyped): a damaged stream, caught by the digest
        data = b""
    if _sha256(data) != leaf.digest:  # damaged in place: its entries cannot be trusted
        raise PublishError(
            f"{path}: damaged (its bytes are not the ones the manifest records); build the "
            "set again without --update"
        )
    entries = split_entries(data.decode(), text=opts.text)
    return dict(zip(locs_of(entries, text=opts.text), entries, strict=True))


class _ShardWriter:
    """Writes shards into the staging directory, a few compressing at once; ``close``
    returns the leaves, each named by its content."""

    def __init__(self, opts: BuildOptions, staging: Path, names: FileNames) -> None:
        self._opts = opts
        self._staging = staging
        self._names = names
        self._pending: deque[tuple[FileSink, Leaf]] = deque()
        self.leaves: list[Leaf] = []

    def write(
        self, node: Node, items: dict[str, str], typed: bool, section: str | None = None
    ) -> Leaf:
        """Write the shard ``node`` holding ``items`` (loc -> entry text) of ``section``;
        ``typed``: whether an entry uses a typed prefix (known exactly by every caller, and
        costly to find)."""
        opts = self._opts
        body = "".join([items[loc] for loc in sorted(items)])
        if not items:
            self.leaves.append(Leaf(node.id, None, 0, 0, False, None, 0, 0, ""))
            return self.leaves[-1]
        typed = typed and not opts.text
        if opts.text:
            document = body
        else:
            header = stable_header(
                typed=typed, xsl=opts.xsl, schema_location=opts.schema_location, body=body
            )
            document = header + body + URLSET_FOOTER
        data = document.encode()
        newest = None if opts.text else newest_lastmod(body)
        lastmod = None if newest is None else format_w3c(newest)
        body_bytes = len(data) - len((document[: len(document) - len(body)]).encode())
        leaf = Leaf(
            node.id,
            None,
            len(items),
            body_bytes,
            typed,
            lastmod,
            len(data),
            0,
            _sha256(data),
            section,
        )
        sink = FileSink(
            self._staging / self._names.staged(node.id), gzip=opts.gzip, level=opts.gzip_level
        )
        sink(data)
        sink.finish()
        self._pending.append((sink, leaf))
        if len(self._pending) > _FINISHING:
            self._settle()
        return leaf  # named once written

    def _settle(self) -> None:
        sink, leaf = self._pending.popleft()
        sink.wait()
        name = self._names.child(shard_number(leaf.node), sink.hexdigest(), leaf.section)
        sink.path.rename(self._staging / name)
        self.leaves.append(leaf._replace(name=name, written=sink.written))

    def close(self) -> list[Leaf]:
        """The leaves written, in key order (an empty one is known before the ones still
        compressing)."""
        while self._pending:
            self._settle()
        return sorted(self.leaves, key=lambda leaf: leaf.node.lo)

    def discard(self) -> None:
        for sink, _ in self._pending:
            sink.discard()


def split_shard(
    node: Node,
    items: dict[str, str],
    sizing: Sizing,
    *,
    typed: bool,
    section_of: Callable[[str], str | None] | None = None,
) -> Iterator[tuple[Node, dict[str, str], bool]]:
    """The shards inside ``node`` for its entries (loc -> text), in key order, each with
    whether an entry uses a typed prefix; ``typed``: whether one of ``items`` does. Each
    holds at most 1,000 news entries (counted only when ``typed``)."""
    joined = "".join(items.values())
    news = joined.count(NEWS_TAG) if typed else 0
    if sizing.fits(len(items), entry_size(joined), typed, news, node.depth):  # the usual case
        yield node, items, typed
        return
    of = section_of or (lambda _: None)
    keyed = sorted((key_of(loc, of(loc)), loc) for loc in items)
    keys = [key for key, _ in keyed]
    entries = [items[loc] for _, loc in keyed]
    flags = list(map(uses_typed_prefix, entries)) if typed else [False] * len(entries)
    counts = [entry.count(NEWS_TAG) for entry in entries] if news else []
    sizes = list(map(entry_size, entries))
    for at, start, stop in split_sorted(node, keys, sizes, flags, sizing, counts):
        yield at, {loc: items[loc] for _, loc in keyed[start:stop]}, any(flags[start:stop])


SECTION_MASK = ((1 << SECTION_BITS) - 1) << (KEY_BITS - SECTION_BITS)


def keys_of(locs: list[str], opts: BuildOptions, sections: dict[int, str]) -> list[int]:
    """The key of each loc, in its section (``opts.section``) when the set has them;
    ``sections`` gathers each section's top key bits and name (two names that share
    them: ``InvalidValue``, as their shards would mix)."""
    if opts.section is None:
        return list(map(key_of, locs))
    names = opts.section.of(locs)
    for name in set(names):
        note_section(sections, name)
    return list(map(key_of, locs, names))


def note_section(sections: dict[int, str], name: str) -> None:
    """Record section ``name`` by its top key bits in ``sections`` (``InvalidValue`` when
    another name has them: their shards would mix)."""
    top = section_key(name)
    if sections.setdefault(top, name) != name:
        raise InvalidValue(
            "section", name, f"shares its shard key with section {sections[top]!r}; rename one"
        )


def build_stable(
    entries: Iterable[Entry],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    publisher: Publisher,
    names: FileNames,
    progress: Callable[[int], object] | None,
    on_change: Callable[[Change], None] | None,
) -> None:
    """A full build of a stable set into the publisher's directory."""
    out_dir, staging = publisher.out_dir, publisher.staging
    directory = opts.sitemap_directory()
    previous = None
    if on_change is not None:
        previous = load_manifest(out_dir, names)
        if previous is not None and (
            previous.settings.get("text"),
            previous.settings.get("gzip"),
        ) != (opts.text, opts.gzip):
            previous = None  # its shards are read in another format
        if previous is None and (out_dir / names.index(1, 1)).exists():
            report.notes["no-manifest"] = (
                "the set in place has no manifest: every URL counts as added"
            )
    runs = SortedRuns(staging)
    sections: dict[int, str] = {}  # a section's top key bits -> its name
    for batch in checked_batches(entries, opts, scope, report, staging):
        locs, texts = _standalone(batch, opts)
        runs.add(keys_of(locs, opts, sections), locs, texts)
        report.urls += len(locs)
        if progress is not None:
            progress(report.urls)
    if not report.urls:
        raise LimitExceeded(report.nothing_written())
    writer = _ShardWriter(opts, staging, names)
    try:
        for node, items, typed in runs.shards(_sizing(opts)):
            section = sections.get(node.lo & SECTION_MASK) if items and opts.section else None
            leaf = writer.write(node, items, typed, section)
            if on_change is not None:
                _report_changes(leaf, items, previous, out_dir, opts, report, on_change)
        leaves = writer.close()
    finally:
        writer.discard()
    _publish(leaves, set(), opts, directory, report, publisher, names)


def _report_changes(
    new: Leaf,
    items: dict[str, str],
    previous: Manifest | None,
    out_dir: Path,
    opts: BuildOptions,
    report: BuildReport,
    on_change: Callable[[Change], None],
) -> None:
    """Compare a full build's shard with the URLs the previous set held in its key range
    (nothing to read when the previous set had this very shard)."""
    node = new.node
    old: dict[str, str] = {}
    if previous is not None:
        if any(leaf.id == new.id and leaf.digest == new.digest for leaf in previous.leaves):
            return
        for leaf in previous.leaves:
            at = leaf.node
            if at.hi <= node.lo or at.lo >= node.hi:
                continue
            try:
                held = read_shard(out_dir, leaf, opts)
            except PublishError as exc:  # its URLs are not known: they count as added
                report.notes["damaged-file"] = f"{exc.args[0].split(':')[0]}: damaged in place"
                continue
            if not node.holds(at):
                held = {
                    loc: e
                    for loc, e in held.items()
                    if node.lo <= key_of(loc, leaf.section) < node.hi
                }
            old.update(held)
    for change in diff(old, items, old.keys() | items.keys()):
        report.changes[change.change] += 1
        on_change(change)


def _publish(
    leaves: list[Leaf],
    kept: set[str],
    opts: BuildOptions,
    directory: str,
    report: BuildReport,
    publisher: Publisher,
    names: FileNames,
) -> None:
    """Write the index(es) and the manifest of ``leaves`` and publish them with the shards
    written (every named leaf not in ``kept`` is in the staging directory)."""
    staging = publisher.staging
    for leaf in leaves:
        if leaf.name is not None:
            lastmod = None if leaf.lastmod is None else from_formatted(leaf.lastmod)
            report.files.append(
                FileReport(
                    leaf.name, directory + leaf.name, leaf.urls, leaf.bytes, leaf.written, lastmod
                )
            )
    sets = write_indexes(opts, directory, report, staging, names)
    indexes = {f.name: _sha256((staging / f.name).read_bytes()) for f in report.indexes}
    manifest = Manifest(_settings(opts, directory), indexes, leaves)
    manifest_name = manifest.file_name(opts.prefix)
    (staging / manifest_name).write_text(manifest.to_json(), encoding="utf-8")
    sets = [[name for name in names_ if name not in kept] for names_ in sets]
    sets[0].insert(len(sets[0]) - 1, manifest_name)  # in place before the first index
    report.removed = publisher.publish(sets, keep=kept)

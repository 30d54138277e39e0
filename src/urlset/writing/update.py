"""Incremental rebuilds of a stable set: ``update_sitemaps``.

The manifest says which shard holds each key range. Changed URLs go to their shards; only
those shards are read (``stable.read_shard``), and only those whose content changes are
written again. A changed shard that no longer fits is split (in memory: it holds at most a
few times the limit); one that still fits is merged with its siblings when their parent
fits now, which reads the siblings too. Nothing else is read or written but the index and
the manifest, and the result is the set a full build of the final URLs gives.
"""

from __future__ import annotations

import pickle
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..dates import from_formatted
from ..errors import InvalidValue, PublishError
from ..urls import Scope, resolved_loc, to_uri
from .checked import checked_batches
from .document import uses_typed_prefix
from .files import Publisher
from .includes import INCLUDE, from_settings
from .options import BuildOptions, Entry, FileNames, base_prefix, prepare_build
from .report import BuildProblem, BuildReport, FileReport
from .sections import sections_for
from .shards import NEWS_TAG, Change, Leaf, Manifest, Node, diff, entry_size, key_of, section_key
from .stable import (
    _publish,
    _settings,
    _ShardWriter,
    _sizing,
    _standalone,
    keys_of,
    load_manifest,
    read_shard,
    split_shard,
)

Stats = tuple[int, int, bool]  # a shard's URLs, entry bytes, and whether one uses a typed prefix


def update_sitemaps(
    entries: Iterable[Entry],
    out_dir: str | Path,
    base_url: str,
    *,
    remove: Iterable[str] = (),
    progress: Callable[[int], object] | None = None,
    on_problem: Callable[[BuildProblem], None] | None = None,
    on_change: Callable[[Change], None] | None = None,
    **options: Any,
) -> BuildReport:
    """Change the stable set in ``out_dir``: ``entries`` are URLs to add or to write with new
    values (as ``write_sitemaps`` takes them), ``remove`` locs to take out (a loc in both is
    kept, with its new values). ``on_change`` receives each URL added, removed or changed.

    The options must be those the set was built with: ``PublishError`` otherwise, and when
    ``out_dir`` holds no stable set (its manifest missing, or not matching its index).
    ``report.files`` lists every shard of the new set, ``report.rewritten`` the ones written;
    ``report.urls`` counts the set's URLs.
    """
    if options.get("section") is not None:
        base = base_prefix(base_url)
        entries, options["section"] = sections_for(entries, options["section"], base)
    opts, scope, report, names = prepare_build(base_url, on_problem, {**options, "stable": True})
    out = Path(out_dir)
    with Publisher(out, names.stale) as publisher:
        manifest = load_manifest(out, names)
        if manifest is None:
            raise PublishError(
                f"{out}: no stable set to update here (no manifest that matches its index); "
                "build it in full with --stable first"
            )
        kept = from_settings(manifest.settings.get(INCLUDE))
        if not opts.include:  # the included sitemaps stay unless others are given
            opts = replace(opts, include=kept)
        settings = _settings(opts, opts.sitemap_directory())
        differ = sorted(
            k for k in settings if k != INCLUDE and manifest.settings.get(k) != settings[k]
        )
        if differ:
            raise PublishError(
                f"{out}: the set was built with other options ({', '.join(differ)}); "
                "give the same ones, or build it in full"
            )
        _Update(opts, scope, report, publisher, names, manifest).run(
            entries, remove, progress, on_change, kept != opts.include
        )
    return report


class _Update:
    def __init__(
        self,
        opts: BuildOptions,
        scope: Scope,
        report: BuildReport,
        publisher: Publisher,
        names: FileNames,
        manifest: Manifest,
    ) -> None:
        self.opts = opts
        self.scope = scope
        self.report = report
        self.publisher = publisher
        self.names = names
        self.manifest = manifest
        self.leaves = manifest.leaves
        self.los = [leaf.node.lo for leaf in self.leaves]
        self.stats: list[Stats] = []
        self.sizing = _sizing(opts)
        self.early = _ShardWriter(opts, publisher.staging, names)
        # each section's top key bits -> its name; the section of each URL given
        self.sections = {
            section_key(leaf.section): leaf.section for leaf in self.leaves if leaf.section
        }
        self.given_sections: dict[str, str | None] = {}

    def _leaf_of(self, key: int) -> int:
        return bisect_right(self.los, key) - 1

    def _removals(self, remove: Iterable[str]) -> dict[int, set[str]]:
        """The locs to remove, by the shard that may hold them (in every section when the
        sections come from a key of the entries, which a removal does not give)."""
        opts, report = self.opts, self.report
        removals: dict[int, set[str]] = {}
        for raw in remove:
            try:
                loc = to_uri(resolved_loc(raw.strip(), self.scope.prefix))
            except InvalidValue as exc:
                if opts.strict:
                    raise
                report.reject("invalid-loc", f"{exc} (not removed)")
                continue
            if opts.section is None:
                keys = [key_of(loc)]
            elif opts.section.describe.startswith("column "):
                keys = [key_of(loc, name) for name in self.sections.values()]
            else:
                keys = [key_of(loc, opts.section.of([loc])[0])]
            for key in keys:
                removals.setdefault(self._leaf_of(key), set()).add(loc)
        return removals

    def _section(self, i: int, items: dict[str, str]) -> str | None:
        """The section of shard ``i`` (one that was empty: its new URLs')."""
        return self.leaves[i].section or next((self.given_sections.get(loc) for loc in items), None)

    def _changed_shards(
        self,
        entries: Iterable[Entry],
        remove: Iterable[str],
        progress: Callable[[int], object] | None,
        on_change: Callable[[Change], None] | None,
    ) -> dict[int, Stats]:
        """The new URL count, entry bytes and typed flag of each shard the changes alter, by
        its place in the manifest. A shard that still fits is written at once (by
        ``self.early``: it stands unless a merge takes it in), one that does not waits in the
        staging directory (``_new``), so that memory holds one shard at a time."""
        opts, report = self.opts, self.report
        upserts: dict[int, dict[str, str]] = {}
        given = 0
        for batch in checked_batches(entries, opts, self.scope, report, self.publisher.staging):
            locs, texts = _standalone(batch, opts)
            keys = keys_of(locs, opts, self.sections)
            if opts.section is not None:
                self.given_sections.update(zip(locs, opts.section.of(locs), strict=True))
            for key, loc, text in zip(keys, locs, texts, strict=True):
                upserts.setdefault(self._leaf_of(key), {})[loc] = text
            given += len(locs)
            if progress is not None:
                progress(given)
        removals = self._removals(remove)
        dirty: dict[int, Stats] = {}
        for i in sorted(upserts.keys() | removals.keys()):
            old = read_shard(self.publisher.out_dir, self.leaves[i], opts)
            new = dict(old)
            for loc in removals.get(i, ()):
                new.pop(loc, None)
            new.update(upserts.get(i, {}))
            if new == old:
                continue
            joined = "".join(new.values())
            upserted = "".join(upserts.get(i, {}).values())
            typed = (self.leaves[i].typed or uses_typed_prefix(upserted)) and uses_typed_prefix(
                joined
            )
            dirty[i] = (len(new), entry_size(joined), typed)
            news = joined.count(NEWS_TAG) if typed else 0
            node = self.leaves[i].node
            if self.sizing.fits(*dirty[i], news, node.depth):  # written now: the usual case
                self.early.write(node, new, typed, self._section(i, new))
            else:  # split later: it waits on disk
                with open(self.publisher.staging / f".changed-{i}", "wb") as file:
                    pickle.dump(new, file, pickle.HIGHEST_PROTOCOL)
            touched = [*removals.get(i, ()), *upserts.get(i, ())]
            for change in diff(old, new, touched):
                report.changes[change.change] += 1
                if on_change is not None:
                    on_change(change)
        return dirty

    def _new(self, i: int, early: dict[int, Leaf]) -> dict[str, str]:
        """The new entries of the changed shard ``i`` (loc -> text)."""
        leaf = early.get(self.leaves[i].id)
        if leaf is not None:  # read back from the file written early
            return read_shard(self.publisher.staging, leaf, self.opts)
        with open(self.publisher.staging / f".changed-{i}", "rb") as file:
            new: dict[str, str] = pickle.load(file)
        return new

    def _inside(self, node: Node) -> list[Stats]:
        """The stats of the shards inside ``node`` (once ``_regions`` has run)."""
        return self.stats[bisect_left(self.los, node.lo) : bisect_left(self.los, node.hi)]

    def _regions(self, dirty: dict[int, Stats]) -> list[Node]:
        """The nodes to write again: each changed shard, or its highest ancestor that fits
        now (a merge); none inside another."""
        sizing = _sizing(self.opts)
        stats = self.stats = [(leaf.urls, leaf.body, leaf.typed) for leaf in self.leaves]
        for i, changed in dirty.items():
            stats[i] = changed
        found: list[Node] = []
        for i in dirty:
            node = self.leaves[i].node
            if sizing.fits(*stats[i], depth=node.depth):
                while node.depth > 0:
                    parent = node.parent
                    inside = self._inside(parent)
                    urls, body = sum(s[0] for s in inside), sum(s[1] for s in inside)
                    if not sizing.fits(urls, body, any(s[2] for s in inside), depth=parent.depth):
                        break
                    node = parent
            found.append(node)
        outermost: list[Node] = []
        for node in sorted(set(found)):
            if not any(other.holds(node) for other in outermost):
                outermost.append(node)
        return outermost

    def run(
        self,
        entries: Iterable[Entry],
        remove: Iterable[str],
        progress: Callable[[int], object] | None,
        on_change: Callable[[Change], None] | None,
        include_changed: bool = False,
    ) -> None:
        opts, report, out = self.opts, self.report, self.publisher.out_dir
        try:
            dirty = self._changed_shards(entries, remove, progress, on_change)
        except BaseException:
            self.early.discard()
            raise
        directory = opts.sitemap_directory()
        if not dirty and not include_changed:
            report.notes["unchanged"] = "nothing changed: the set in place is left as it is"
            report.urls = sum(leaf.urls for leaf in self.leaves)
            report.files = [_file(leaf, directory) for leaf in self.leaves if leaf.name]
            for name in self.manifest.indexes:
                size = (out / name).stat().st_size
                report.indexes.append(FileReport(name, directory + name, 0, 0, size, None))
            # files an earlier run left when it was killed after its last index moved in
            keep = {f.name for f in report.files + report.indexes}
            keep.add(self.manifest.file_name(opts.prefix))
            report.removed = self.publisher.publish([], keep=keep)
            return
        early = {leaf.id: leaf for leaf in self.early.close()}
        writer = _ShardWriter(opts, self.publisher.staging, self.names)
        replaced: set[int] = set()
        written: list[Leaf] = []
        try:
            for region in self._regions(dirty):
                first = bisect_left(self.los, region.lo)
                if region.id in early and self.leaves[first].node == region:
                    replaced.add(first)  # a changed shard that stays one, written early
                    written.append(early[region.id])
                    continue
                items: dict[str, str] = {}
                owners: dict[str, str | None] = {}  # loc -> its section
                for j in range(first, bisect_left(self.los, region.hi)):
                    replaced.add(j)
                    held = (
                        self._new(j, early) if j in dirty else read_shard(out, self.leaves[j], opts)
                    )
                    items.update(held)
                    owners.update(dict.fromkeys(held, self.leaves[j].section))
                owners.update(
                    (loc, self.given_sections[loc])
                    for loc in owners.keys() & self.given_sections.keys()
                )
                typed = any(s[2] for s in self._inside(region))
                for node, shard, flag in split_shard(
                    region, items, self.sizing, typed=typed, section_of=owners.get
                ):
                    writer.write(node, shard, flag, owners[next(iter(shard))] if shard else None)
            written += writer.close()
        finally:
            writer.discard()
        unchanged = [leaf for j, leaf in enumerate(self.leaves) if j not in replaced]
        leaves = sorted(unchanged + written, key=lambda leaf: leaf.node.lo)
        kept = {leaf.name for leaf in unchanged if leaf.name is not None}
        report.rewritten = [leaf.name for leaf in written if leaf.name is not None]
        report.urls = sum(leaf.urls for leaf in leaves)
        _publish(leaves, kept, opts, directory, report, self.publisher, self.names)


def _file(leaf: Leaf, directory: str) -> FileReport:
    assert leaf.name is not None
    lastmod = None if leaf.lastmod is None else from_formatted(leaf.lastmod)
    return FileReport(
        leaf.name, directory + leaf.name, leaf.urls, leaf.bytes, leaf.written, lastmod
    )

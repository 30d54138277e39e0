"""hreflang reciprocity on 64-bit hashes in flat memory: the engine behind ``Reciprocity``.

Each page with alternates is recorded as rows of hashes, one a link: (page, target, record,
link number); its strings go to a marshalled batch on disk, read again only for the findings
listed. Rows wait in memory up to ``SPILL_BYTES`` a table, then go to a run file sorted by
the top byte of their key (256 buckets), so a set of ten million pages holds a few
megabytes. ``judge`` then works a bucket (of 256 or fewer: about ``SPILL_BYTES`` of links
each) at a time, in four joins on the hashes:

1. the links of each page (a page given twice: the union, first place kept), its group's
   fingerprint (a sum of mixed hashes: the same set of pages gives the same sum), and a
   claim on each variant it names (bucketed by the variant);
2. each claim against the variant's own page: a variant with no alternates is unlisted (in
   the set when a page without alternates has its hash); one whose group has the same
   fingerprint lacks nothing; the others are sent on by the naming page;
3. each such claim made one candidate a member of the naming page's group;
4. each candidate the variant does not link to is a missing link, once a (page, target).

Every finding keeps its place (the naming page's first record, then the link numbers), so
the first ``cap`` of each code are the ones the rule walked in order names first.
Hashes are the core's XXH3 (``loc_hashes``), as the build's de-duplication uses: two
distinct locs share one with probability about n**2 / 2**65 (3e-6 for ten million), and such
a pair is judged as one page (a missing link can go unreported, a variant counted in the
set); a group's fingerprint or a (page, target) pair key meets another by chance with the
same odds. The spill directory is removed by ``close`` and, on any other exit, when the
engine is collected or the process ends.
"""

from __future__ import annotations

import marshal
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .hash_spill import SPILL_BYTES, Known, PlainHashes, SpillDir, hashes_of

_STRING_BATCH = 4096  # pages whose strings are marshalled together
LAST = 2**64 - 1  # the place of a page's own loc appended to its group

U8 = np.dtype(np.uint64)
OWN = np.dtype([("page", U8), ("target", U8), ("rec", U8), ("g", U8)])
CLAIM = np.dtype([("q", U8), ("fp", U8), ("rec", U8), ("g", U8), ("page", U8)])
CAND = np.dtype([("q", U8), ("t", U8), ("rec", U8), ("gq", U8), ("gt", U8)])
PAGE = np.dtype([("page", U8), ("rec", U8), ("fp", U8), ("self", np.bool_)])
HASH = np.dtype([("h", U8)])


class _Table:
    """Rows of one dtype bucketed by the top byte of ``key``: in memory, then in run files."""

    def __init__(self, dtype: np.dtype[Any], key: str, spill: SpillDir) -> None:
        self.dtype, self.key, self._spill = dtype, key, spill
        self._chunks: list[np.ndarray[Any, Any]] = []
        self._bytes = 0
        self.rows = 0
        # sealed runs: (a file, or the rows themselves; 257 bucket bounds)
        self._runs: list[tuple[Path | np.ndarray[Any, Any], np.ndarray[Any, Any]]] = []
        self.on_disk = False

    def append(self, rows: np.ndarray[Any, Any]) -> None:
        if len(rows):
            self._chunks.append(rows)
            self._bytes += rows.nbytes
            self.rows += len(rows)
            if self._bytes >= SPILL_BYTES:
                self._seal(to_disk=True)

    def _seal(self, *, to_disk: bool) -> None:
        if not self._chunks:
            return
        rows = np.concatenate(self._chunks)
        self._chunks, self._bytes = [], 0
        top = rows[self.key] >> np.uint64(56)
        order = np.argsort(top, kind="stable")
        rows, top = rows[order], top[order]
        bounds = np.searchsorted(top, np.arange(257, dtype=np.uint64))
        if to_disk:
            path = self._spill.new_file()
            rows.tofile(path)
            self._runs.append((path, bounds))
            self.on_disk = True
        else:
            self._runs.append((rows, bounds))

    def freeze(self) -> None:
        """Seal the rows held, so that ``bucket`` sees every row so far: in memory while
        the table fits there, else to a run file like the others."""
        self._seal(to_disk=self.on_disk)

    def bucket(self, number: int, bits: int) -> np.ndarray[Any, Any]:
        """The rows whose key's top ``bits`` (0 to 8) are ``number``: a run's rows of
        ``2 ** (8 - bits)`` neighbouring buckets of its 256 at once."""
        parts = []
        width = 1 << (8 - bits)
        for run, bounds in self._runs:
            lo, hi = int(bounds[number * width]), int(bounds[(number + 1) * width])
            if hi == lo:
                continue
            if isinstance(run, Path):
                itemsize = self.dtype.itemsize
                parts.append(np.fromfile(run, self.dtype, hi - lo, offset=lo * itemsize))
            else:
                parts.append(run[lo:hi])
        if not parts:
            return np.empty(0, self.dtype)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)


class _Strings:
    """Each page's strings (its loc, then href, hreflang, ...), marshalled a batch at a time (the same process reads them):
    in memory up to ``SPILL_BYTES``, then in one file; found again by record or link number."""

    def __init__(self, spill: SpillDir) -> None:
        self._spill = spill
        self._pending: list[tuple[str, tuple[str, ...]]] = []
        self._batches: list[tuple[int, int, bytes | int]] = []  # first rec, first g, data
        self._held = 0
        self._file: Path | None = None
        self._written = 0

    def add(self, batch: list[tuple[str, tuple[str, ...]]], first_rec: int, first_g: int) -> None:
        data = marshal.dumps(batch)
        if self._file is not None:  # spilled: each batch to the file at once
            self._batches.append((first_rec, first_g, self._write(data)))
            return
        self._batches.append((first_rec, first_g, data))
        self._held += len(data)
        if self._held >= SPILL_BYTES:
            self._file = self._spill.new_file()
            for at, (rec, g, held) in enumerate(self._batches):
                assert isinstance(held, bytes)  # nothing written before the file
                self._batches[at] = (rec, g, self._write(held))
            self._held = 0

    def _write(self, data: bytes) -> int:
        """Append ``data`` to the file; where it starts."""
        assert self._file is not None
        with open(self._file, "ab") as out:
            out.write(data)
        at, self._written = self._written, self._written + len(data)
        return at

    def _batch(self, at: int) -> list[tuple[str, tuple[str, ...]]]:
        data = self._batches[at][2]
        if isinstance(data, int):
            assert self._file is not None
            end = next(
                (d for _, _, d in self._batches[at + 1 :] if isinstance(d, int)), self._written
            )
            with open(self._file, "rb") as f:
                f.seek(data)
                data = f.read(end - data)
        batch: list[tuple[str, tuple[str, ...]]] = marshal.loads(data)
        return batch

    def look_up(
        self, recs: set[int], links: set[int]
    ) -> tuple[dict[int, str], dict[int, tuple[str, str]]]:
        """The loc of each record in ``recs``, the (href, hreflang) of each link in ``links``."""
        locs: dict[int, str] = {}
        found: dict[int, tuple[str, str]] = {}
        firsts = [rec for rec, _, _ in self._batches]
        first_gs = [g for _, g, _ in self._batches]
        wanted = {bisect_right(firsts, rec) - 1 for rec in recs}
        wanted |= {bisect_right(first_gs, g) - 1 for g in links}
        for at in sorted(wanted):
            rec, g, _ = self._batches[at]
            for loc, flat in self._batch(at):
                if rec in recs:
                    locs[rec] = loc
                for k in range(0, len(flat), 2):
                    if g + k // 2 in links:
                        found[g + k // 2] = (flat[k], flat[k + 1])
                rec += 1
                g += len(flat) // 2
        return locs, found


def mixed(values: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """splitmix64's finaliser, so that a sum of hashes tells sets apart."""
    with np.errstate(over="ignore"):
        z = values * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


@dataclass
class Judged:
    """``LinkHashes.judge``: the findings listed (as rows of places and hashes) and counted."""

    missing: np.ndarray[Any, Any]  # CAND rows, in order
    missing_count: int
    unlisted: np.ndarray[Any, Any]  # (q, rec, g, in_set) rows, in order
    unlisted_counts: dict[bool, int] = field(default_factory=dict)
    pages: int = 0


UNLISTED = np.dtype([("q", U8), ("rec", U8), ("g", U8), ("in_set", np.bool_)])


class LinkHashes:
    """A set's hreflang links as hashes (see the module doc)."""

    def __init__(self, spill: SpillDir, plain: PlainHashes) -> None:
        self._dir = spill
        self._plain_waiting = plain  # hashes added before the first link, and since
        self.own = _Table(OWN, "page", self._dir)
        self.plain = _Table(HASH, "h", self._dir)
        self.strings = _Strings(self._dir)
        self._pending: list[tuple[str, tuple[str, ...]]] = []
        self.records = 0
        self._links = 0

    def add(self, loc: str, flat: tuple[str, ...]) -> None:
        """A page's links as (href, hreflang, href, hreflang, ...); none: a plain page."""
        self._pending.append((loc, flat))
        if len(self._pending) >= _STRING_BATCH:
            self.flush()

    def add_many(self, pages: list[tuple[str, tuple[str, ...]]]) -> None:
        """``add`` for pages with links, in order."""
        self._pending += pages
        while len(self._pending) >= _STRING_BATCH:
            self.flush()

    @property
    def empty(self) -> bool:
        """Whether no page with links was added."""
        return not (self.records or self._pending)

    def add_plain(self, hashes: np.ndarray[Any, Any]) -> None:
        self.plain.append(hashes.astype(U8, copy=True).view(HASH))

    def flush(self) -> None:
        """The first ``_STRING_BATCH`` pages waiting hashed into rows, their strings to a batch."""
        batch = self._pending[:_STRING_BATCH]
        del self._pending[:_STRING_BATCH]
        if not batch:
            return
        counts = np.fromiter((len(flat) // 2 for _, flat in batch), np.int64, len(batch))
        hrefs = [href for _, flat in batch for href in flat[0::2]]
        hashed = np.frombuffer(hashes_of([loc for loc, _ in batch] + hrefs), U8)
        rows = np.empty(len(hrefs), OWN)
        rows["page"] = np.repeat(hashed[: len(batch)], counts)
        rows["target"] = hashed[len(batch) :]
        recs = np.arange(self.records, self.records + len(batch), dtype=U8)
        rows["rec"] = np.repeat(recs, counts)
        rows["g"] = np.arange(self._links, self._links + len(hrefs), dtype=U8)
        self.own.append(rows)
        self.strings.add(batch, self.records, self._links)
        self.records += len(batch)
        self._links += len(hrefs)

    def judge(self, cap: int | None, *, include_self: bool, known: Known | None = None) -> Judged:
        """The findings (the first ``cap`` of each code, all without one) and their counts;
        ``known`` (a build's de-duplication set) says which unlisted variants are in the set,
        and those are kept as plain pages for later judgements."""
        while self._pending:
            self.flush()
        for piece in self._plain_waiting.take():
            self.add_plain(np.frombuffer(piece, U8))
        self.own.freeze()
        self.plain.freeze()
        # buckets of about SPILL_BYTES of links each (at most 256): a few reads a run
        bits = min(8, max(0, (self.own.rows * OWN.itemsize // SPILL_BYTES).bit_length()))
        return _Judgement(self, cap, include_self, known, bits).run()


def _firsts(*columns: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Where each run of equal values of ``columns`` (sorted) starts, as a mask."""
    n = len(columns[0])
    mask = np.ones(n, np.bool_)
    if n > 1:
        same = np.ones(n - 1, np.bool_)
        for column in columns:
            same &= column[1:] == column[:-1]
        mask[1:] = ~same
    return mask


class _Judgement:
    """One ``LinkHashes.judge``: the four joins, a bucket at a time."""

    def __init__(
        self,
        hashes: LinkHashes,
        cap: int | None,
        include_self: bool,
        known: Known | None,
        bits: int,
    ) -> None:
        self.h, self.cap, self.include_self, self.known, self.bits = (
            hashes,
            cap,
            include_self,
            known,
            bits,
        )
        spill = hashes._dir
        self.claims = _Table(CLAIM, "q", spill)
        self.mismatch = _Table(CLAIM, "page", spill)
        self.cands = _Table(CAND, "q", spill)
        self.pages = _Table(PAGE, "page", spill)
        self.merged = _Table(OWN, "page", spill)
        self.out = Judged(np.empty(0, CAND), 0, np.empty(0, UNLISTED), {True: 0, False: 0})

    def buckets(self) -> range:
        return range(1 << self.bits)

    def run(self) -> Judged:
        """One piece because the stages share the tables it makes and frees in turn."""
        for b in self.buckets():
            self._pages(self.h.own.bucket(b, self.bits))
        for table in (self.claims, self.pages, self.merged):
            table.freeze()
        for b in self.buckets():
            self._claims(b)
        self.mismatch.freeze()
        for b in self.buckets():
            self._members(b)
        self.cands.freeze()
        for b in self.buckets():
            self._missing(b)
        return self.out

    def _pages(self, own: np.ndarray[Any, Any]) -> None:
        """Join 1: each page's links merged, its fingerprint, a claim on each variant."""
        if not len(own):
            return
        own = own[np.lexsort((own["g"], own["target"], own["page"]))]
        merged = own[_firsts(own["page"], own["target"])]
        merged = merged[np.lexsort((merged["g"], merged["page"]))]
        starts = np.flatnonzero(_firsts(merged["page"]))
        sizes = np.diff(np.append(starts, len(merged)))
        page = merged["page"][starts]
        listed = np.add.reduceat((merged["target"] == merged["page"]).astype(np.int64), starts) > 0
        with np.errstate(over="ignore"):
            fp = np.add.reduceat(mixed(merged["target"]), starts)
            fp = fp + np.where(listed, np.uint64(0), mixed(page))
        pages = np.empty(len(page), PAGE)
        pages["page"], pages["rec"], pages["fp"], pages["self"] = (
            page,
            merged["rec"][starts],
            fp,
            listed,
        )
        self.pages.append(pages)
        self.merged.append(merged)
        self.out.pages += len(page)
        at = np.repeat(np.arange(len(page)), sizes)
        other = merged["target"] != merged["page"]
        claims = np.empty(int(other.sum()), CLAIM)
        claims["q"] = merged["target"][other]
        claims["fp"] = fp[at][other]
        claims["rec"] = pages["rec"][at][other]
        claims["g"] = merged["g"][other]
        claims["page"] = merged["page"][other]
        self.claims.append(claims)
        if self.include_self:  # a page lacking its own link, placed after its group
            alone = pages[~listed]
            cands = np.empty(len(alone), CAND)
            cands["q"] = cands["t"] = alone["page"]
            cands["rec"] = alone["rec"]
            cands["gq"] = cands["gt"] = np.uint64(LAST)
            self.cands.append(cands)

    def _claims(self, b: int) -> None:
        """Join 2: each claim against the variant's page (see the module doc)."""
        claims = self.claims.bucket(b, self.bits)
        if not len(claims):
            return
        pages = self.pages.bucket(b, self.bits)
        pages = pages[np.argsort(pages["page"], kind="stable")]
        at = np.searchsorted(pages["page"], claims["q"])
        inside = at < len(pages)
        found = np.zeros(len(claims), np.bool_)
        found[inside] = pages["page"][at[inside]] == claims["q"][inside]
        self._unlisted(b, claims[~found])
        theirs = pages[at[found]]
        ours = claims[found]
        differ = theirs["fp"] != ours["fp"]
        if self.include_self:
            differ |= ~theirs["self"]
        self.mismatch.append(ours[differ])

    def _unlisted(self, b: int, claims: np.ndarray[Any, Any]) -> None:
        """Variants without alternates, each once at its first place; in the set or not."""
        if not len(claims):
            return
        claims = claims[np.lexsort((claims["g"], claims["rec"], claims["q"]))]
        claims = claims[_firsts(claims["q"])]
        in_set = np.isin(claims["q"], self.h.plain.bucket(b, self.bits)["h"])
        if self.known is not None and not in_set.all():
            asked = ~in_set
            answer = _ask(self.known, self.h, claims[asked])
            in_set[asked] = answer
            self.h.add_plain(claims["q"][asked][answer])
        rows = np.empty(len(claims), UNLISTED)
        rows["q"], rows["rec"], rows["g"], rows["in_set"] = (
            claims["q"],
            claims["rec"],
            claims["g"],
            in_set,
        )
        counts = self.out.unlisted_counts
        counts[True] += int(in_set.sum())
        counts[False] += int(len(in_set) - in_set.sum())
        kept = np.concatenate((self.out.unlisted, rows))
        kept = kept[np.lexsort((kept["g"], kept["rec"]))]
        if self.cap is not None:  # the first ``cap`` in the set and outside it
            rank = np.zeros(len(kept), np.int64)
            for flag in (True, False):
                mask = kept["in_set"] == flag
                rank[mask] = np.arange(int(mask.sum()))
            kept = kept[rank < self.cap]
        self.out.unlisted = kept

    def _members(self, b: int) -> None:
        """Join 3: a claim whose groups differ made one candidate a member of the naming
        page's group (itself last when it does not list itself)."""
        claims = self.mismatch.bucket(b, self.bits)
        if not len(claims):
            return
        merged = self.merged.bucket(b, self.bits)
        merged = merged[np.lexsort((merged["g"], merged["page"]))]
        pages = self.pages.bucket(b, self.bits)
        pages = pages[np.argsort(pages["page"], kind="stable")]
        lo = np.searchsorted(merged["page"], claims["page"], "left")
        hi = np.searchsorted(merged["page"], claims["page"], "right")
        sizes = hi - lo
        row = np.repeat(np.arange(len(claims)), sizes)
        offsets = np.cumsum(sizes) - sizes
        member = np.repeat(lo - offsets, sizes) + np.arange(int(sizes.sum()))
        cands = np.empty(len(row), CAND)
        cands["q"], cands["rec"], cands["gq"] = (
            claims["q"][row],
            claims["rec"][row],
            claims["g"][row],
        )
        cands["t"], cands["gt"] = merged["target"][member], merged["g"][member]
        unlisted_self = ~pages["self"][np.searchsorted(pages["page"], claims["page"])]
        alone = claims[unlisted_self]
        own = np.empty(len(alone), CAND)
        own["q"], own["t"], own["rec"], own["gq"] = (
            alone["q"],
            alone["page"],
            alone["rec"],
            alone["g"],
        )
        own["gt"] = np.uint64(LAST)
        cands = np.concatenate((cands, own))
        if not self.include_self:
            cands = cands[cands["q"] != cands["t"]]
        self.cands.append(cands)

    def _missing(self, b: int) -> None:
        """Join 4: each candidate the variant does not link to, once a (page, target)."""
        cands = self.cands.bucket(b, self.bits)
        if not len(cands):
            return
        merged = self.merged.bucket(b, self.bits)
        linked = np.unique(_pair_keys(merged["page"], merged["target"]))
        keys = _pair_keys(cands["q"], cands["t"])
        at = np.searchsorted(linked, keys)
        inside = at < len(linked)
        has = np.zeros(len(cands), np.bool_)
        has[inside] = linked[at[inside]] == keys[inside]
        cands = cands[~has]
        cands = cands[np.lexsort((cands["gt"], cands["gq"], cands["rec"], cands["t"], cands["q"]))]
        cands = cands[_firsts(cands["q"], cands["t"])]
        self.out.missing_count += len(cands)
        kept = np.concatenate((self.out.missing, cands))
        kept = kept[np.lexsort((kept["gt"], kept["gq"], kept["rec"]))]
        self.out.missing = kept if self.cap is None else kept[: self.cap]


def _pair_keys(page: np.ndarray[Any, Any], target: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """One 64-bit key a (page, target) pair."""
    with np.errstate(over="ignore"):
        return mixed(page) ^ (target * np.uint64(0xD6E8FEB86659FD93))


def _ask(known: Known, hashes: LinkHashes, rows: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Whether each unlisted variant of ``rows`` is in the set, by ``known``: on the hashes
    when it is a de-duplication set's (``SeenLocs.known``), else on their strings."""
    owner = getattr(known, "__self__", None)
    packed = getattr(owner, "first_seen_packed", None)
    if packed is not None:
        fresh = np.frombuffer(packed(rows["q"].tobytes()), np.uint8)
        seen: np.ndarray[Any, Any] = fresh == 0
        return seen
    _, found = hashes.strings.look_up(set(), {int(g) for g in rows["g"]})
    answer: np.ndarray[Any, Any] = np.array(known([found[int(g)][0] for g in rows["g"]]), np.bool_)
    return answer

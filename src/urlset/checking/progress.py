"""Whether the occurrences of the locs found so far place every entry finding
(``positions.place_entries``' first pass ends once they do)."""

from __future__ import annotations

from bisect import bisect_left

Found = dict[bytes, list[int]]  # offsets of each needle, in document order


class Progress:
    """Whether ``place_entries`` would place every finding at an occurrence of its loc as
    written (not escaped: that is looked for only when this one is missing) among the
    occurrences found so far (``text``: in a text sitemap). Asked after each window: the
    occurrences only grow at their ends (in document order), so a finding placed stays
    placed where it was, and each call goes on from the first finding not placed yet (one
    call from the start each window made the findings of a document times its windows)."""

    __slots__ = ("done", "last_at", "pending", "pos", "raws", "text")

    def __init__(
        self, pending: list[tuple[str, str, str, bool, int]], raws: list[bytes], text: bool
    ) -> None:
        self.pending = pending
        self.raws = raws  # each finding's loc as written (UTF-8)
        self.text = text
        self.done = 0  # the findings placed
        self.pos = 0  # where the last of them in document order was placed
        self.last_at: dict[tuple[str, str], int] = {}

    def placed(self, occurrences: Found) -> bool:
        pending, raws, last_at = self.pending, self.raws, self.last_at
        pos, bump = self.pos, not self.text
        for k in range(self.done, len(pending)):
            code, _message, loc, ordered, _entry = pending[k]
            before = last_at.get((code, loc), -1)
            least = max(pos if ordered else 0, before + 1) + bump  # as _first_at's
            offsets = occurrences.get(raws[k], ())
            at = bisect_left(offsets, least)
            if at == len(offsets):
                self.done, self.pos = k, pos
                return False
            last_at[(code, loc)] = offsets[at]
            pos = offsets[at] if ordered else pos
        self.done, self.pos = len(pending), pos
        return True

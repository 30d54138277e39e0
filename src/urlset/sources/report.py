"""What a site source left out, and why: counts by reason, with the first examples.

Every source (directory walk, access logs, crawl) keeps one ``SourceReport``; the command
prints it after the build, so that no page is left out without a word.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

EXAMPLES = 5  # examples kept per reason


@dataclass(slots=True)
class SourceReport:
    """``entries``: URLs the source gave the build; ``left_out``: pages or lines it did not
    give, by reason; ``examples``: the first few of each reason."""

    source: str
    entries: int = 0
    left_out: Counter[str] = field(default_factory=Counter)
    examples: dict[str, list[str]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def leave_out(self, reason: str, example: str) -> None:
        self.left_out[reason] += 1
        kept = self.examples.setdefault(reason, [])
        if len(kept) < EXAMPLES:
            kept.append(example)

    def lines(self) -> list[str]:
        """The report as text lines: a summary, then each reason with its examples."""
        out = [f"{self.source}: {self.entries:,} URL{'' if self.entries == 1 else 's'}"]
        out.extend(f"  note: {note}" for note in self.notes)
        for reason, count in self.left_out.most_common():
            out.append(f"  left out {count:,}: {reason}")
            out.extend(f"    {example}" for example in self.examples.get(reason, ()))
            if count > len(self.examples.get(reason, ())):
                out.append("    ...")
        return out


class SourceError(Exception):
    """A site source cannot be read at all (a missing directory, a log that cannot be
    opened, a site that does not answer): the build stops with this message."""

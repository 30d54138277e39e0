"""What the reports plot about URLs, gathered in bounded memory: counts per section (a URL's
host and first path segment), per lastmod month, and a few examples.

``UrlStats`` is fed columns of URLs (``UrlColumns``: locs and lastmods as W3C text) a batch at
a time, so a 10-million-URL fetch costs a few dictionaries, never a list of URLs. Months are
taken as written (the first seven characters of the lastmod: a timestamp's own zone decides
its month); a lastmod given as a year only is counted apart.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..reading.output import UrlColumns

# at most this many sections are kept by name; past it the smallest are folded into OTHER
MAX_SECTIONS = 10_000
OTHER = "(other sections)"
ROOT = "/"  # pages at the top level of a host: https://example.com/about.html


def section_of(loc: str) -> tuple[str, str]:
    """The host and the first path segment of ``loc``: ``("example.com", "/blog/")``, or
    ``ROOT`` for a page at the top of its host."""
    parts = loc.split("/", 4)
    host = parts[2] if len(parts) > 2 else loc
    if len(parts) < 5:  # no slash after the first segment: a page at the top level
        return host, ROOT
    return host, f"/{parts[3]}/"


@dataclass
class Section:
    """One section's URL count and its first URL seen (an example to click)."""

    host: str
    path: str
    urls: int = 0
    example: str = ""


@dataclass
class UrlStats:
    """Counts of URLs by section and by lastmod month (``YYYY-MM``), in bounded memory."""

    urls: int = 0
    without_lastmod: int = 0
    year_only: Counter[str] = field(default_factory=Counter)
    months: Counter[str] = field(default_factory=Counter)
    sections: dict[tuple[str, str], Section] = field(default_factory=dict)
    other_sections: int = 0  # URLs of the sections folded away past MAX_SECTIONS
    sources: int = 0  # documents whose URLs were counted

    def add_columns(self, columns: UrlColumns) -> None:
        """Count one batch of URLs."""
        self.add(columns.locs, columns.lastmods)

    def add(self, locs: Sequence[str], lastmods: Iterable[str]) -> None:
        """Count URLs given as their locs and their lastmods as W3C text ("" for none)."""
        keys = list(map(section_of, locs))
        sections = self.sections
        first: dict[tuple[str, str], str] | None = None
        for key, n in Counter(keys).items():
            section = sections.get(key)
            if section is None:
                if first is None:  # each section's first loc here (later ones written over)
                    first = dict(zip(reversed(keys), reversed(locs), strict=True))
                section = sections[key] = Section(key[0], key[1], 0, first[key])
            section.urls += n
        self.urls += len(keys)
        months = Counter(text[:7] for text in lastmods)
        self.without_lastmod += months.pop("", 0)
        for year in [k for k in months if len(k) == 4]:
            self.year_only[year] += months.pop(year)
        self.months.update(months)
        if len(sections) > MAX_SECTIONS:
            keep = sorted(sections.values(), key=lambda s: -s.urls)[: MAX_SECTIONS // 2]
            self.sections = {(s.host, s.path): s for s in keep}
            self.other_sections = self.urls - sum(s.urls for s in keep)

    @property
    def hosts(self) -> int:
        return len({host for host, _ in self.sections})

    def top_sections(self, n: int) -> list[Section]:
        """The ``n`` largest sections, largest first (ties by name)."""
        ordered = sorted(self.sections.values(), key=lambda s: (-s.urls, s.host, s.path))
        return ordered[:n]

"""What the reports plot about URLs, gathered in bounded memory: counts per section (a URL's
host and first path segment), per lastmod month, and a few examples.

``UrlStats`` is fed columns of URLs (``UrlColumns``: locs and lastmods as W3C text) a batch at
a time, so a 10-million-URL fetch costs a few dictionaries, never a list of URLs. Months are
taken as written (the first seven characters of the lastmod: a timestamp's own zone decides
its month); a lastmod given as a year only is counted apart.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ..reading.output import UrlColumns

# at most this many sections are kept by name; past it the smallest are folded into OTHER
MAX_SECTIONS = 10_000
OTHER = "(other sections)"
ROOT = "/"  # pages at the top level of a host: https://example.com/about.html


# a loc's scheme, authority and first two path segments, each segment only when a slash
# follows it (one match per line, so per loc of a batch joined by line breaks)
_PREFIX = re.compile(r"^(?:[^\n/]*//)?[^/\n?#]*(?:/[^/\n?#]*/)?(?:[^/\n?#]*/)?", re.M)


def prefixes_of(prefix: str) -> tuple[tuple[str, str], tuple[str, str]]:
    """The section and the subsection a ``_PREFIX`` match names: its host with its first
    path segment, and with its first two (``/shop/``, ``/shop/shoes/``); ``ROOT`` for a page
    at the top of its host, the section itself for a page directly in it."""
    rest = prefix.split("//", 1)[-1]
    host, _, path = rest.partition("/")
    segments = path.split("/")  # "a/b/" -> a, b, ""
    if len(segments) < 2:
        return (host, ROOT), (host, ROOT)
    section = (host, f"/{segments[0]}/")
    return section, (host, f"/{segments[0]}/{segments[1]}/") if len(segments) > 2 else section


def section_of(loc: str) -> tuple[str, str]:
    """The host and the first path segment of ``loc``: ``("example.com", "/blog/")``."""
    found = _PREFIX.match(loc)
    return prefixes_of(found[0] if found is not None else "")[0]


@dataclass
class Section:
    """One section's URL count and its first URL seen (an example to click)."""

    host: str
    path: str
    urls: int = 0
    example: str = ""


@dataclass
class Tally:
    """URLs counted by (host, path prefix), with the first loc of each; past
    ``MAX_SECTIONS`` prefixes the smallest are folded into ``other``."""

    by_key: dict[tuple[str, str], Section] = field(default_factory=dict)
    other: int = 0  # URLs of the prefixes folded away
    urls: int = 0

    def fold(self) -> None:
        """Keep the largest half when there are too many prefixes."""
        found = self.by_key
        if len(found) > MAX_SECTIONS:
            keep = sorted(found.values(), key=lambda s: -s.urls)[: MAX_SECTIONS // 2]
            self.by_key = {(s.host, s.path): s for s in keep}
            self.other = self.urls - sum(s.urls for s in keep)

    @property
    def count(self) -> int:
        """How many prefixes (the folded ones as one)."""
        return len(self.by_key) + bool(self.other)

    def top(self, n: int, within: str | None = None) -> list[Section]:
        """The ``n`` largest, largest first (ties by name); ``within`` a path prefix."""
        found: Iterable[Section] = self.by_key.values()
        if within is not None:
            found = [s for s in found if s.path.startswith(within)]
        return sorted(found, key=lambda s: (-s.urls, s.host, s.path))[:n]


@dataclass
class UrlStats:
    """Counts of URLs by section, subsection and lastmod month (``YYYY-MM``), in bounded
    memory."""

    urls: int = 0
    without_lastmod: int = 0
    year_only: Counter[str] = field(default_factory=Counter)
    months: Counter[str] = field(default_factory=Counter)
    sections: Tally = field(default_factory=Tally)
    subsections: Tally = field(default_factory=Tally)
    sources: int = 0  # documents whose URLs were counted

    def add_columns(self, columns: UrlColumns) -> None:
        """Count one batch of URLs."""
        self.add(columns.locs, columns.lastmods)

    def add(self, locs: Sequence[str], lastmods: Iterable[str]) -> None:
        """Count URLs given as their locs and their lastmods as W3C text ("" for none).
        The per-URL work is one regex pass over the batch and a Counter; each distinct
        prefix is then split once."""
        if not locs:
            return
        keys = _PREFIX.findall("\n".join(locs))
        first: dict[str, str] | None = None
        for raw, n in Counter(keys).items():  # in the order of their first loc
            for tally, key in zip((self.sections, self.subsections), prefixes_of(raw), strict=True):
                section = tally.by_key.get(key)
                if section is None:
                    if first is None:  # each prefix's first loc here (later ones written over)
                        first = dict(zip(reversed(keys), reversed(locs), strict=True))
                    section = tally.by_key[key] = Section(key[0], key[1], 0, first[raw])
                section.urls += n
        for tally in (self.sections, self.subsections):
            tally.urls += len(keys)
            tally.fold()
        self.urls += len(keys)
        months = Counter(text[:7] for text in lastmods)
        self.without_lastmod += months.pop("", 0)
        for year in [k for k in months if len(k) == 4]:
            self.year_only[year] += months.pop(year)
        self.months.update(months)

    @property
    def hosts(self) -> int:
        return len({host for host, _ in self.sections.by_key})

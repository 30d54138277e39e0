"""What a build tells: each published file (``FileReport``), each input entry it could not
use as written (``BuildProblem``), and the whole account (``BuildReport``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ..dates import Lastmod

_EXAMPLES = 20  # rejected entries described one by one in the report; the rest are counted


class FileReport(NamedTuple):
    """One published file: its name, public URL, entries, uncompressed and on-disk bytes."""

    name: str
    url: str
    entries: int
    bytes: int
    written: int
    lastmod: Lastmod | None


class BuildProblem(NamedTuple):
    """One input entry a build could not use as written. ``severity`` "error": the entry was
    left out; "warning": it was written without the value named in ``message``."""

    source: str | None  # the input file, or None for entries passed from Python
    line: int | None
    code: str  # stable: invalid-loc, invalid-lastmod, unreadable-line, out-of-scope, ...
    severity: str
    message: str

    def as_dict(self) -> dict[str, Any]:
        return self._asdict()


@dataclass
class BuildReport:
    """What a build wrote and what it left out or changed, and why.

    ``rejected`` and ``kept_without`` count problems by code, ``examples`` and ``warnings``
    hold the first ones as text; ``listener``, when set, receives every ``BuildProblem``.
    ``left_core`` counts the input rows the compiled core did not write, which went the
    per-entry way in Python, by why: "loc" (not a URL the core makes a URI under the base:
    invalid, outside the scope, or rare), "value" (a lastmod, changefreq or priority invalid
    or unusual), "row" (not a row of the usual types), "extensions" (extension values),
    "future-lastmod", "default-tz" and "base-url" (a build option or base URL the core
    does not take: every row), "column-type" (a table column of a type the core does not
    read), "mixed-batch" (rows given among ``Url`` values or mappings), "json" (a JSON Lines
    line that is not an object of the core keys with scalar values). Zero on the shapes
    sites publish: the benchmarks print it."""

    files: list[FileReport] = field(default_factory=list)
    indexes: list[FileReport] = field(default_factory=list)
    urls: int = 0
    duplicates: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)
    kept_without: Counter[str] = field(default_factory=Counter)
    warnings: list[str] = field(default_factory=list)
    flagged: Counter[str] = field(default_factory=Counter)  # written as given, with a warning
    flag_examples: list[str] = field(default_factory=list)
    noted: Counter[str] = field(default_factory=Counter)  # written as given, check's info
    note_examples: list[str] = field(default_factory=list)
    notes: dict[str, str] = field(default_factory=dict)  # code -> message, about the whole set
    entry_point_names: re.Pattern[str] | None = field(default=None, repr=False)
    removed: list[str] = field(default_factory=list)
    changes: Counter[str] = field(default_factory=Counter)  # stable: URLs added, removed, changed
    rewritten: list[str] = field(default_factory=list)  # an update's shards written again
    included: list[str] = field(default_factory=list)  # other sitemaps the index lists
    news_outside_window: int = 0  # articles written without their news element (news_window)
    excluded: int = 0  # URLs left out by an ``exclude`` pattern
    robots_txt: str = ""  # the robots.txt of the URLs' host: where entry_points may be listed
    listener: Callable[[BuildProblem], None] | None = field(default=None, repr=False)
    # input rows that left the compiled path for the per-entry one, by why (``left_core``)
    left_core: Counter[str] = field(default_factory=Counter)

    def owns(self, url: str) -> bool:
        """True for a URL that could be an entry point of this set or of an earlier build of it
        (the same directory and prefix): a robots.txt line to replace, not to keep beside."""
        return self.entry_point_names is not None and bool(self.entry_point_names.fullmatch(url))

    @property
    def entry_points(self) -> list[str]:
        """The URLs to list in robots.txt (``Sitemap:`` lines) and to submit."""
        return [f.url for f in (self.indexes or self.files)]

    def nothing_written(self) -> str:
        """Why a build wrote no URL, with the first rejected entries."""
        if not self.rejected and not self.duplicates and not self.excluded:
            return "no URLs to write: the input is empty"
        counts = [f"{kind}: {count:,}" for kind, count in self.rejected.most_common()]
        if self.duplicates:
            counts.append(f"duplicate: {self.duplicates:,}")
        if self.excluded:
            counts.append(f"excluded: {self.excluded:,}")
        first = "".join(f"\n  {example}" for example in self.examples[:5])
        return f"no URLs to write: every entry was left out ({', '.join(counts)}){first}"

    def reject(
        self, code: str, message: str, source: str | None = None, line: int | None = None
    ) -> None:
        """An entry left out."""
        self.rejected[code] += 1
        if len(self.examples) < _EXAMPLES:
            self.examples.append(message)
        if self.listener is not None:
            self.listener(BuildProblem(source, line, code, "error", message))

    def flag(self, code: str, message: str, severity: str = "warning") -> None:
        """An entry written as given that ``urlset check`` reports, with check's code and
        severity ("warning", or "info": ``noted``)."""
        counts, examples = (
            (self.noted, self.note_examples)
            if severity == "info"
            else (self.flagged, self.flag_examples)
        )
        counts[code] += 1
        if len(examples) < _EXAMPLES:
            examples.append(message)
        if self.listener is not None:
            self.listener(BuildProblem(None, None, code, severity, message))

    def count_flag(self, code: str, severity: str = "warning") -> bool:
        """``flag`` one finding without its message when nothing would read it (no listener,
        the examples of its severity full): True; False when the caller must ``flag`` it
        whole. A set of 100,000 pages with one finding each builds 20 messages, not all."""
        if self.listener is not None:
            return False
        counts, examples = (
            (self.noted, self.note_examples)
            if severity == "info"
            else (self.flagged, self.flag_examples)
        )
        if len(examples) < _EXAMPLES:
            return False
        counts[code] += 1
        return True

    def count_flags(self, counts: Mapping[str, int], severities: Mapping[str, str]) -> bool:
        """``count_flag`` for many findings at once (how many each code has, each code's
        severity in ``severities``): True when all are counted, False (none counted) when
        a message would be read."""
        if self.listener is not None or not self._examples_full(severities.values()):
            return False
        for code, n in counts.items():
            (self.noted if severities[code] == "info" else self.flagged)[code] += n
        return True

    def flag_each(
        self, codes: list[str], severities: Mapping[str, str], message: Callable[[int], str]
    ) -> None:
        """``flag`` finding ``index`` of ``codes`` for each, its message (``message(index)``)
        made only while something reads it; the rest counted at once (``count_flags``)."""
        for index, code in enumerate(codes):
            if self.listener is None and self._examples_full(severities.values()):
                self.count_flags(Counter(codes[index:]), severities)
                return
            self.flag(code, message(index), severities[code])

    def _examples_full(self, severities: Iterable[str]) -> bool:
        """Whether the examples of each of ``severities`` are full."""
        return all(
            len(self.note_examples if severity == "info" else self.flag_examples) >= _EXAMPLES
            for severity in set(severities)
        )

    def warn(
        self,
        code: str,
        message: str,
        source: str | None = None,
        line: int | None = None,
        severity: str = "warning",
    ) -> None:
        """An entry written without a value it had; ``severity``: "error" when the value is
        one check calls an error (more than 1,000 images), with check's code."""
        self.kept_without[code] += 1
        if len(self.warnings) < _EXAMPLES:
            self.warnings.append(message)
        if self.listener is not None:
            self.listener(BuildProblem(source, line, code, severity, message))

"""The results of a check: ``FileResult`` per document, ``CheckReport`` for a run.

They take the issues the checker found and give them out as plain data (``to_dict``, the
shape of the JSON output) or as a SARIF 2.1.0 log (``to_sarif``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter
from typing import Any

from ..dates import Lastmod
from ..model import Issue, Severity, SitemapRef
from . import rules

# the format of the entry that holds findings across the files of a set, not one document
SET_FORMAT = "set"
# the format of a name in a directory that is no regular file (a FIFO, a device, a link to
# nothing): listed with its finding, never opened, not counted as a file checked
NOT_A_FILE = "not a file"
# the line that says how many more findings of a code were not listed
SUMMARY_CODE = "too-many-errors"


@dataclass
class FileResult:
    """The outcome for one document."""

    source: str
    issues: list[Issue] = field(default_factory=list)
    format: str | None = None
    entries: int = 0
    size: int = 0
    url: str | None = None
    refs: list[SitemapRef] = field(default_factory=list)
    ref_lines: list[int] = field(default_factory=list)
    newest_lastmod: Lastmod | None = None
    # findings counted but not listed, per code (each code lists at most a thousand)
    unlisted: dict[str, int] = field(default_factory=dict)
    # the typed extensions its URLs hold, by kind (images, videos, news, alternates): what
    # Search Console calls discovered; empty for what is no document read
    discovered: dict[str, int] = field(default_factory=dict)
    # entries the rules took one by one as the reader's values, not in the core's columns
    careful_entries: int = 0

    def count(self, severity: Severity) -> int:
        """Findings of this severity, listed or not (a "too-many-errors" line stands for
        the unlisted ones, counted here under their own codes)."""
        # by C-speed scans (a check's report counts thousands of issues five times)
        severities = list(map(_severity_of, self.issues))
        summaries = compress(severities, map(SUMMARY_CODE.__eq__, map(_code_of, self.issues)))
        listed = severities.count(severity) - list(summaries).count(severity)
        return listed + sum(
            n for code, n in self.unlisted.items() if rules.lookup(code).severity == severity
        )

    def code_counts(self) -> dict[str, int]:
        """Findings per code, listed or not, in the order codes are first listed."""
        counts: dict[str, int] = {}
        for i in self.issues:
            if i.code != SUMMARY_CODE:
                counts[i.code] = counts.get(i.code, 0) + 1
        for code, n in self.unlisted.items():
            counts[code] = counts.get(code, 0) + n
        return counts

    @property
    def errors(self) -> int:
        return self.count(Severity.ERROR)

    @property
    def warnings(self) -> int:
        return self.count(Severity.WARNING)

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "url": self.url,
            "format": self.format,
            "entries": self.entries,
            "bytes": self.size,
            "errors": self.errors,
            "warnings": self.warnings,
            "infos": self.count(Severity.INFO),
            "discovered": self.discovered or None,
            "issues": [_issue_dict(i) for i in self.issues],
        }


def _issue_dict(issue: Issue) -> dict[str, Any]:
    row = rules.row_of(issue)
    return {
        "code": issue.code,
        "severity": str(issue.severity),
        "message": issue.message,
        "line": issue.line,
        "column": issue.column,
        "hint": issue.hint,
        "gsc": row.gsc or None,
    }


# how severe, for comparing: a report fails at or above a floor
SEVERITY_RANK = {Severity.ERROR: 2, Severity.WARNING: 1, Severity.INFO: 0}


@dataclass
class CheckReport:
    """Per-file results and a summary."""

    files: list[FileResult] = field(default_factory=list)
    # files of a directory left out as no sitemap: (path, why)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    # what the run could not start from: a file named that could not be read, a start URL
    # whose document was not fetched (the CLI's exit status 2; a missing child is a finding)
    not_started: list[str] = field(default_factory=list)

    @property
    def issues(self) -> list[Issue]:
        return [i for f in self.files for i in f.issues]

    def summary(self) -> dict[str, int]:
        """Files, entries and findings by severity (every finding, listed or not)."""
        return {
            "files": sum(1 for f in self.files if f.format not in (SET_FORMAT, NOT_A_FILE)),
            "entries": sum(f.entries for f in self.files),
            "errors": sum(f.errors for f in self.files),
            "warnings": sum(f.warnings for f in self.files),
            "infos": sum(f.count(Severity.INFO) for f in self.files),
        }

    def discovered(self) -> dict[str, int]:
        """The typed extensions of every document checked, by kind (images, videos, news,
        alternates); empty when no document was read."""
        total: dict[str, int] = {}
        for f in self.files:
            for kind, n in f.discovered.items():
                total[kind] = total.get(kind, 0) + n
        return total

    def section_of(self) -> dict[str, str]:
        """The section of each file of a set written by section (by its name:
        ``sitemap-blog-3-<hash>.xml.gz``), by source; empty for a set without sections."""
        names = [_name(f.source) for f in self.files]
        if not any(map(_may_be_section_file, names)):
            # no name ends as a section's file does (`-<number>-<16 hex>.xml`): none to load
            # (`wp-sitemap-posts-post-1.xml` would load the writing stage for nothing)
            return {}
        # here: the build's options load the writing stage, which few checks need
        from ..writing.options import sections_of_names

        indexes = [_name(f.source) for f in self.files if f.format == "sitemapindex"]
        named = sections_of_names(names, indexes)
        return {f.source: named[_name(f.source)] for f in self.files if _name(f.source) in named}

    def sections(self) -> dict[str, dict[str, int]]:
        """Files, entries and findings by severity of each section (the report grouped as
        the set is; Search Console counts pages per sitemap file), in name order."""
        of = self.section_of()
        found: dict[str, dict[str, int]] = {}
        for f in self.files:
            if f.source in of:
                counts = found.setdefault(
                    of[f.source],
                    dict.fromkeys(("files", "entries", "errors", "warnings", "infos"), 0),
                )
                counts["files"] += 1
                counts["entries"] += f.entries
                counts["errors"] += f.errors
                counts["warnings"] += f.warnings
                counts["infos"] += f.count(Severity.INFO)
        return dict(sorted(found.items()))

    def failed(self, fail_on: Severity | str = Severity.ERROR) -> bool:
        """True when an issue at or above ``fail_on`` was found."""
        floor = SEVERITY_RANK[Severity(fail_on)]
        return any(SEVERITY_RANK[i.severity] >= floor for i in self.issues)

    def to_dict(self) -> dict[str, Any]:
        return {
            "files": [f.to_dict() for f in self.files],
            "skipped": [{"path": path, "reason": why} for path, why in self.skipped],
            "summary": self.summary(),
            "discovered": self.discovered() or None,
            "sections": self.sections() or None,
        }

    def to_sarif(self, *, version: str = "") -> dict[str, Any]:
        """The report as a SARIF 2.1.0 log (one run, one rule per code used)."""
        firsts: dict[str, Issue] = {}
        for i in self.issues:
            firsts.setdefault(i.code, i)
        used = sorted(firsts)
        index = {code: n for n, code in enumerate(used)}
        driver_rules = []
        for code in used:
            row = rules.row_of(firsts[code])
            rule: dict[str, Any] = {
                "id": code,
                "name": code,
                "shortDescription": {"text": row.title},
                "help": {"text": row.hint},
                "defaultConfiguration": {"level": _sarif_level(row.severity)},
            }
            if row.gsc:
                rule["properties"] = {"searchConsole": row.gsc}
            driver_rules.append(rule)
        results = []
        section_of = self.section_of()
        for f in self.files:
            for i in f.issues:
                region = {"startLine": max(i.line, 1), "startColumn": max(i.column, 1)}
                result: dict[str, Any] = {
                    "ruleId": i.code,
                    "ruleIndex": index[i.code],
                    "level": _sarif_level(i.severity),
                    "message": {"text": i.message},
                }
                if f.source in section_of:  # grouped as the set is
                    result["properties"] = {"section": section_of[f.source]}
                if f.format != SET_FORMAT:  # findings across files have no single place
                    result["locations"] = [
                        {
                            "physicalLocation": {
                                "artifactLocation": {"uri": _artifact_uri(f.source)},
                                "region": region,
                            }
                        }
                    ]
                results.append(result)
        driver: dict[str, Any] = {
            "name": "urlset",
            "informationUri": "https://www.sitemaps.org/protocol.html",
            "rules": driver_rules,
        }
        if version:
            driver["version"] = version
        return {
            "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
            "version": "2.1.0",
            "runs": [{"tool": {"driver": driver}, "results": results}],
        }


def _may_be_section_file(name: str) -> bool:
    """Whether ``name`` ends as every name ``writing.options.sections_of_names`` gives a
    section does (``FileNames.child``: ``-<section>-<number>-<16 hex>.xml``, ``.txt``, gzipped
    or not); string tests, not a pattern to compile."""
    stem = name.removesuffix(".gz")
    if not stem.endswith((".xml", ".txt")):
        return False
    parts = stem[:-4].rsplit("-", 3)
    return (
        len(parts) == 4
        and parts[2].isascii()
        and parts[2].isdigit()
        and len(parts[3]) == 16
        and not parts[3].strip("0123456789abcdef")
    )


def _name(source: str) -> str:
    """A file's name in its set (a path's or a URL's last segment)."""
    return source.rstrip("/").rsplit("/", 1)[-1]


def _sarif_level(severity: Severity) -> str:
    return {Severity.ERROR: "error", Severity.WARNING: "warning"}.get(severity, "note")


def _artifact_uri(source: str) -> str:
    if source.startswith("<"):
        return source.strip("<>")
    if source.startswith(("http://", "https://")):  # a sitemap checked over HTTP, a page
        return source
    from pathlib import Path  # here: only SARIF names a file by URI (a check starts without it)

    path = Path(source)
    return path.as_uri() if path.is_absolute() else path.as_posix()


# The order issues are listed in: by line, then column (an Issue's fields 3 and 4; a sort
# key in C, as a function it was one Python call an issue).
by_position: Callable[[Issue], tuple[int, int]] = itemgetter(3, 4)
_code_of: Callable[[Issue], str] = itemgetter(0)
_severity_of: Callable[[Issue], Severity] = itemgetter(1)

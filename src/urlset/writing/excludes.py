"""``exclude``: the URLs a build leaves out by pattern, as next-sitemap's ``exclude`` does.
Pure.

A pattern is a path glob, as ``--section`` takes them (``/admin/**``, ``/drafts/*``: ``*``
within a segment, ``**`` across them, matched against the URL's whole path, its query aside),
or, after ``re:``, a regular expression searched anywhere in the URL, as ``fetch --follow``
searches (``re:[?&]sessionid=``). Both see the URL as it is written: absolute, resolved,
percent-encoded.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..errors import InvalidValue
from .sections import path_glob

REGEX = "re:"  # what starts a regular expression pattern


class Excludes:
    """Patterns whose URLs a build leaves out. Globs are joined into one expression over the
    whole URL (scheme and authority, the path, any query), so a URL costs one match for all of
    them; each regular expression is searched on its own (joining them could change what
    their inline flags mean)."""

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        globs: list[str] = []
        self._regexes: list[re.Pattern[str]] = []
        for pattern in self.patterns:
            if not isinstance(pattern, str) or not pattern.strip() or pattern == REGEX:
                raise InvalidValue(
                    "exclude", pattern, "give a path glob (/admin/**) or re:REGEX (re:\\?page=)"
                )
            if pattern.startswith(REGEX):
                try:
                    self._regexes.append(re.compile(pattern[len(REGEX) :]))
                except re.error as exc:
                    raise InvalidValue(
                        "exclude", pattern, f"is not a regular expression: {exc}"
                    ) from None
            else:
                globs.append(path_glob(pattern.strip()).pattern)
        self._globs = (
            re.compile(rf"[^:/?#]+://[^/?#]*(?:{'|'.join(globs)})(?:[?#].*)?", re.DOTALL)
            if globs
            else None
        )

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def excludes(self, loc: str) -> bool:
        """Whether a pattern matches ``loc`` (an absolute URI)."""
        if self._globs is not None and self._globs.fullmatch(loc):
            return True
        return any(regex.search(loc) for regex in self._regexes)

    def kept(self, locs: list[str]) -> bytes | None:
        """A byte per loc, 1 for one no pattern matches; None when every loc is kept."""
        keep = bytes(not self.excludes(loc) for loc in locs)
        return None if all(keep) else keep


def excludes_of(given: object) -> Excludes | None:
    """The ``exclude=`` a build is given: a pattern, patterns, or ``Excludes``; None for none."""
    if given is None or isinstance(given, Excludes):
        return given or None
    patterns = [given] if isinstance(given, str) else list(given)  # type: ignore[call-overload]
    return Excludes(patterns) or None

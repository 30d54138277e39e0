"""Other generators' sitemaps listed in a set's index beside its own files
(``--include-sitemap``: a shop platform's product sitemaps beside a blog's). Pure.

An included sitemap is an index entry like the set's own: it must be on the index's own site
(check's ``index-other-site``; on the www. twin of its host, ``www-variant``), and it must not
be one of the set's own file names (the build would replace or remove that file). Its
lastmod is what it was given (``SitemapRef``), or what ``fetching.included`` read from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..codes import rule
from ..dates import format_w3c
from ..errors import InvalidValue
from ..model import SitemapRef
from ..urls import Scope, index_other_site, www_variant

FIELD = "include-sitemap"
INCLUDE = "include"  # the manifest's setting


def included_refs(
    given: Iterable[str | SitemapRef], directory: str, own: re.Pattern[str]
) -> tuple[SitemapRef, ...]:
    """Each sitemap to include as an index entry of the set served from ``directory``, in the
    order given, each once (the first of a loc given twice); ``InvalidValue`` names one that
    is not a URL, lies on another site or takes one of the set's own names (``own``:
    ``FileNames.stale``)."""
    scope = Scope.of(directory)
    found: dict[str, SitemapRef] = {}
    for item in given:
        ref = item if isinstance(item, SitemapRef) else SitemapRef(_text(item))
        for code, why in (
            ("www-variant", www_variant(ref.loc, scope)),
            ("index-other-site", index_other_site(ref.loc, scope)),
        ):
            if why is not None:
                raise InvalidValue(FIELD, ref.loc, f"{code}: {why} ({rule(code).hint})")
        if ref.loc.startswith(directory) and own.fullmatch(ref.loc[len(directory) :]):
            raise InvalidValue(
                FIELD, ref.loc, "is a name of this set's own files, which the build replaces"
            )
        found.setdefault(ref.loc, ref)
    return tuple(found.values())


def _text(item: object) -> str:
    if not isinstance(item, str) or not item.strip():
        raise InvalidValue(FIELD, item, "give the sitemap's absolute URL")
    try:
        return SitemapRef(item.strip()).loc
    except InvalidValue as exc:
        raise InvalidValue(FIELD, item, f"not a URL ({exc})") from None


def read_list(lines: Iterable[str]) -> list[str]:
    """The URLs of an ``--include-sitemaps`` file: one a line; blank lines and '#' comments
    skipped."""
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def to_settings(refs: Sequence[SitemapRef]) -> list[list[Any]]:
    """The included sitemaps as a manifest keeps them (kept across ``--update``)."""
    return [[ref.loc, None if ref.lastmod is None else format_w3c(ref.lastmod)] for ref in refs]


def from_settings(kept: object) -> tuple[SitemapRef, ...]:
    """The included sitemaps a manifest kept (none from an older one)."""
    if not isinstance(kept, list):
        return ()
    return tuple(SitemapRef(loc, lastmod) for loc, lastmod in kept)

"""What a build is given: its options, the entries it takes, the names of the files it
writes. Below every module that builds (build, stable, update, the Dask build), so that the
build's modules import one way only."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo
from typing import Any

from ..errors import InputError, InvalidValue
from ..limits import CURRENT, Limits
from ..model import SitemapRef, Url
from ..urls import Scope, non_production_host, placeholder_host, to_uri
from .excludes import Excludes, excludes_of
from .files import DEFAULT_GZIP_LEVEL
from .includes import included_refs
from .report import BuildProblem, BuildReport
from .sections import Sections
from .source_rows import SourceEntries, SourceRows


@dataclass(frozen=True)
class BuildOptions:
    """How a set is written. ``base_url`` is the scope every URL must lie under and, unless
    ``sitemap_url`` names another, the directory URL the files will be served from.
    ``sitemap_url``: the directory URL the files will be served from, on another host or
    path; the index's child locs and the entry points name it, and the protocol then needs
    the robots.txt of the base URL's host to list the entry points (a cross-submit)."""

    base_url: str
    limits: Limits = CURRENT
    gzip: bool = True
    text: bool = False
    prefix: str = "sitemap"
    xsl: str | None = None
    schema_location: bool = False
    skip_out_of_scope: bool = False
    strict: bool = False
    dedupe: bool = True
    default_tz: tzinfo | None = None
    gzip_level: int = DEFAULT_GZIP_LEVEL
    sitemap_url: str | None = None
    now: datetime | None = (
        None  # for the rules check shares (future lastmod, news age); None: the clock
    )
    # leave out the <news:news> of articles published longer ago than this (at most two days)
    news_window: timedelta | None = None
    # which section each URL is written in (``sections``): its files are named after it
    section: Sections | None = None
    stable: bool = False  # shards by a hash of the loc, for incremental rebuilds (stable.py)
    # other generators' sitemaps (URLs or SitemapRefs) listed in the index beside the set's
    # own files (``includes``); a set with any always has an index
    include: tuple[str | SitemapRef, ...] = ()
    # called with each batch as it is written (a list of Urls, or rows the core rendered:
    # ``locs``, no extensions): the set-wide rules on what was written (hreflang)
    on_written: Callable[[Any], object] | None = None
    # called once every batch is checked, with de-duplication on, with a function that tells
    # which of some locs the set holds (its de-duplication set answers: no second copy of
    # it is kept): the set-wide rules' questions about pages (hreflang's unlisted variants)
    on_seen: Callable[[Callable[[list[str]], list[bool]]], object] | None = None
    # URLs left out by pattern: a path glob or re:REGEX, several, or ``Excludes`` (excludes.py)
    exclude: Excludes | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "exclude", excludes_of(self.exclude))

    def base_directory(self) -> str:
        return _directory(self.base_url, "base URL")

    def sitemap_directory(self) -> str:
        """The directory URL the files will be served from."""
        if self.sitemap_url is None:
            return self.base_directory()
        return _directory(self.sitemap_url, "sitemap URL")


def base_prefix(base_url: str) -> str:
    """The directory URI of a build's ``base_url`` as its scope writes it: what every URL
    must start with, and what a relative loc is resolved against."""
    return Scope.of(_directory(base_url, "base URL")).prefix


def _directory(url: str, name: str) -> str:
    uri = to_uri(url, field=name)
    last = uri.rsplit("/", 1)[1]
    if "?" in uri:
        raise InvalidValue(name, url, "must not have a query")
    if re.search(r"\.(xml|txt|gz)$", last, re.IGNORECASE):
        hint = "names a file; give the directory the sitemaps are served from, e.g. https://example.com/"
        raise InvalidValue(name, url, hint)
    return uri if uri.endswith("/") else uri + "/"


Entry = Url | tuple[Any, ...] | Mapping[str, Any] | InputError | SourceRows | SourceEntries


def prepare_build(
    base_url: str, on_problem: Callable[[BuildProblem], None] | None, options: dict[str, Any]
) -> tuple[BuildOptions, Scope, BuildReport, FileNames]:
    """A build's options, scope, report (with the notes about the whole set) and names."""
    opts = BuildOptions(base_url, **options)
    scope = Scope.of(opts.base_directory())
    report = BuildReport(listener=on_problem)
    not_public = non_production_host(scope.host)
    if not_public is not None:
        report.notes["dev-host"] = f"{not_public}: search engines will not crawl these URLs"
    placeholder = placeholder_host(scope.host)
    if placeholder is not None:
        report.notes["placeholder-host"] = f"{placeholder}: set the site's public URL as --base-url"
    report.robots_txt = scope.prefix.removesuffix(scope.directory) + "/robots.txt"
    names = FileNames(opts.prefix, gzip=opts.gzip, text=opts.text)
    report.entry_point_names = re.compile(re.escape(opts.sitemap_directory()) + names.stale.pattern)
    if opts.include:
        refs = included_refs(opts.include, opts.sitemap_directory(), names.stale)
        opts = replace(opts, include=refs)
    return opts, scope, report, names


class FileNames:
    """The file names of a set. A child of an index is named by its number and the first
    ``DIGITS`` hex digits of the SHA-256 of its bytes (``sitemap-1-3fa9c2d1e5b60a47.xml.gz``):
    a rebuild gives an unchanged child its name and bytes again, and a changed one a new name,
    so publishing a child never alters a file a published index lists. 16 digits (64 bits):
    the publisher takes a file already in place under a child's name (and size) for that
    child, so a changed child must never take its old name: with 64 bits, the chance is
    2**-64 for each changed child (8 digits would make it 1 in 4 billion, which a site
    rebuilding hundreds of children a day for years could meet). The index and a set's only
    file keep fixed names (robots.txt names them); the unhashed child names of earlier
    versions still count as ours when stale."""

    DIGITS = 16

    def __init__(self, prefix: str, *, gzip: bool, text: bool) -> None:
        if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", prefix):
            raise InvalidValue("prefix", prefix, "use letters, digits, '.', '_' and '-' only")
        self.prefix = prefix
        self.gz = ".gz" if gzip else ""
        self.ext = ".txt" if text else ".xml"
        digest, section = f"[0-9a-f]{{{self.DIGITS}}}", "[a-z0-9][a-z0-9_-]*"
        self.stale = re.compile(
            rf"{re.escape(prefix)}(?:-index(?:-\d+)?|-\d+(?:-{digest})?|-{section}-\d+-{digest})?"
            rf"\.(?:xml|txt)(?:\.gz)?|\.{re.escape(prefix)}-manifest-[0-9a-f]{{16}}\.json"
        )

    def staged(self, number: int) -> str:
        """The name a part is written under in the staging directory, before its hash is known."""
        return f"{self.prefix}-{number}{self.ext}{self.gz}"

    def child(self, number: int, digest: str, section: str | None = None) -> str:
        """A child's name; in a section, after it (``sitemap-products-3-<hash>.xml.gz``)."""
        named = self.prefix if section is None else f"{self.prefix}-{section}"
        return f"{named}-{number}-{digest[: self.DIGITS]}{self.ext}{self.gz}"

    def single(self) -> str:
        return f"{self.prefix}{self.ext}{self.gz}"

    def index(self, number: int, count: int) -> str:
        if count == 1:
            return f"{self.prefix}.xml{self.gz}"
        return f"{self.prefix}-index-{number}.xml{self.gz}"


_INDEX_NAME = re.compile(r"(?P<prefix>[A-Za-z0-9][A-Za-z0-9._-]*?)(?:-index-\d+)?\.xml(?:\.gz)?")
_SECTION_CHILD = r"-(?P<section>[a-z0-9][a-z0-9_-]*)-\d+-[0-9a-f]{16}\.(?:xml|txt)(?:\.gz)?"


def sections_of_names(names: list[str], indexes: list[str]) -> dict[str, str]:
    """Which section each of a set's file ``names`` belongs to, by the name urlset gives a
    section's files (``FileNames.child``: ``sitemap-blog-3-<hash>.xml.gz``), with the prefix
    read from the set's index names (``sitemap.xml``, ``sitemap-index-2.xml``; without one,
    the text before the first '-'); names of no section are left out."""
    prefixes = {m["prefix"] for m in map(_INDEX_NAME.fullmatch, indexes) if m is not None}
    patterns = [re.compile(re.escape(prefix) + _SECTION_CHILD) for prefix in prefixes]
    if not patterns:  # a prefix with a '-' is told apart only by its index
        patterns.append(re.compile(r"[A-Za-z0-9][A-Za-z0-9._]*" + _SECTION_CHILD))
    found: dict[str, str] = {}
    for name in names:
        for pattern in patterns:
            match = pattern.fullmatch(name)
            if match is not None:
                found[name] = match["section"]
                break
    return found

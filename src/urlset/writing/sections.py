"""Sections: named parts of a site, each written to its own files and listed in one index.
Pure.

A section is a function of the URL (``Sections.of``): by its first directory segments
(``path:N``), by named path patterns (``products=/p/*``; the first that matches wins, the
rest go to ``DEFAULT``), or by a callable. Search Console counts submitted and indexed pages
per sitemap file, so a section's files show how that kind of page fares. A section's name is
part of its file names (``sitemap-products-3-<hash>.xml.gz``): ``checked_name`` holds it to a
safe, portable file-name part.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..errors import InvalidValue
from ..model import Url
from ..urls import is_plain_uri, resolved_loc, to_uri
from .document import Rendered
from .tables import as_arrow, is_table

DEFAULT = "other"  # the section of a URL no rule places
COLUMN = "section"  # the input column or key that names a URL's section
MAX_NAME = 40
_SAFE = re.compile(r"[a-z0-9][a-z0-9_-]*")
# a section of one of these names would read as another file of the set
_RESERVED = frozenset({"index", "manifest"})


def checked_name(name: object, *, where: str = "section") -> str:
    """``name`` when it may name a section's files: lower-case letters, digits, '_' and '-'
    (the same file on every file system, case-insensitive ones too), not all digits (it
    would read as a file's number), at most ``MAX_NAME`` characters."""
    if not isinstance(name, str) or not _SAFE.fullmatch(name) or len(name) > MAX_NAME:
        raise InvalidValue(
            where,
            name,
            f"a section name is 1 to {MAX_NAME} lower-case letters, digits, '_' and '-', "
            "starting with a letter or digit (it names the section's files)",
        )
    if name.isdigit() or name in _RESERVED:
        raise InvalidValue(
            where, name, "would read as a file number or another file of the set; rename it"
        )
    return name


@lru_cache(maxsize=4096)  # a site has few directories: each is cleaned once
def slug(text: str) -> str:
    """A safe section name made from path text (``path:N``): lower case, any run of other
    characters one '-'; ``DEFAULT`` when nothing is left."""
    name = re.sub(r"[^a-z0-9_]+", "-", text.lower()).strip("-_")[:MAX_NAME].strip("-_")
    if not name or name.isdigit() or name in _RESERVED:
        return DEFAULT if not name else f"s-{name}"[:MAX_NAME]
    return name


@lru_cache(maxsize=4096)
def _directory_name(directories: str) -> str:
    """The section of the directories ``a/b/`` a loc's path starts with."""
    return slug(directories[:-1].replace("/", "-")) if directories else DEFAULT


def _path(loc: str) -> str:
    """The path of a checked loc (an absolute URI: no parsing needed, and none is paid for)."""
    authority = loc.find("//") + 2
    ends = [found for found in (loc.find(mark, authority) for mark in "/?#") if found >= 0]
    start = min(ends, default=len(loc))
    end = min((found for found in ends if found > start), default=len(loc))
    if start == len(loc) or loc[start] != "/":
        return "/"
    return loc[start:end]


class Sections:
    """Which section each URL belongs to. ``describe`` says the rule in words (the report)."""

    def __init__(
        self,
        of_loc: Callable[[str], str],
        describe: str,
        of_locs: Callable[[Sequence[str]], list[str]] | None = None,
        given: dict[str, str] | None = None,
        column: str | None = None,
    ) -> None:
        self._of_loc = of_loc
        self._of_locs = of_locs
        self.describe = describe
        # by a column of the input: loc -> section, as the sources read them
        self.given = given
        self.column = column  # that column's name

    def of(self, locs: Sequence[str]) -> list[str]:
        if self._of_locs is not None and len(locs) > 1:
            return self._of_locs(locs)
        return list(map(self._of_loc, locs))

    @classmethod
    def by_path(cls, depth: int) -> Sections:
        """By the first ``depth`` directory segments of the path (``/blog/2024/post``:
        ``blog`` at 1, ``blog-2024`` at 2); a page at the root (``/``, ``/about``) goes to
        ``DEFAULT``."""
        if depth < 1:
            raise InvalidValue("section-by", f"path:{depth}", "the depth is 1 or more")

        def of_loc(loc: str) -> str:
            directories = _path(loc).split("/")[1:-1]
            return slug("-".join(directories[:depth])) if directories else DEFAULT

        # the same for a batch: one pass of one pattern over the locs joined (a checked loc
        # is an absolute URI: no line break, an authority after '//'), the first ``depth``
        # segments that end in '/' captured per line
        directories = re.compile(rf"(?m)^[^/\n]*//[^/?#\n]*/?((?:[^/?#\n]*/){{0,{depth}}})")

        def of_locs(locs: Sequence[str]) -> list[str]:
            found = directories.findall("\n".join(locs))
            if len(found) != len(locs):  # not all absolute: loc by loc
                return list(map(of_loc, locs))
            return list(map(_directory_name, found))

        return cls(of_loc, f"path:{depth}", of_locs)

    @classmethod
    def by_patterns(cls, patterns: Iterable[tuple[str, str]]) -> Sections:
        """By named path patterns, tried in the order given: ``*`` matches within one path
        segment, ``**`` across segments (``/blog/**`` is everything under /blog/); a
        pattern without a leading '/' is taken from the root."""
        patterns = list(patterns)  # read twice (an iterator too: the CLI's map)
        compiled: list[tuple[str, re.Pattern[str]]] = []
        for name, pattern in patterns:
            checked_name(name)
            if name == DEFAULT:
                raise InvalidValue("section", name, f"'{DEFAULT}' is the section of the rest")
            compiled.append((name, path_glob(pattern)))
        if not compiled:
            raise InvalidValue("section", None, "give at least one NAME=PATTERN")

        def of_loc(loc: str) -> str:
            path = _path(loc)
            for name, regex in compiled:
                if regex.fullmatch(path):
                    return name
            return DEFAULT

        # the same for a batch: one pass over the joined locs, the patterns as alternatives
        # tried in order, each to the end of the path (a loc without a path is at "/")
        alternatives = [
            f"(?P<g{i}>{_glob_text(pattern)}{'|' if regex.fullmatch('/') else ''})"
            for i, ((_, pattern), (_, regex)) in enumerate(zip(patterns, compiled, strict=True))
        ]
        batch = re.compile(
            r"(?m)^[^/\n]*//[^/?#\n]*(?:"
            + "|".join([*alternatives, "(?P<rest>[^?#\n]*)"])
            + r")(?=[?#\n]|$)"
        )
        by_group = {f"g{i}": name for i, (name, _) in enumerate(compiled)} | {"rest": DEFAULT}

        def of_locs(locs: Sequence[str]) -> list[str]:
            found = [by_group[str(m.lastgroup)] for m in batch.finditer("\n".join(locs))]
            return found if len(found) == len(locs) else list(map(of_loc, locs))

        return cls(of_loc, ", ".join(f"{n}={p}" for n, p in patterns), of_locs)

    @classmethod
    def by_callable(cls, function: Callable[[str], Any]) -> Sections:
        """By ``function(loc)``, which returns a section name (None: ``DEFAULT``)."""

        def of_loc(loc: str) -> str:
            name = function(loc)
            return DEFAULT if name is None else checked_name(name, where=f"section of {loc}")

        return cls(of_loc, getattr(function, "__name__", "a function"))

    @classmethod
    def by_column(cls, column: str, given: dict[str, str] | None = None) -> Sections:
        """By the ``column`` of the input, as ``given`` (loc -> section) records it; the
        sources of a build fill ``Sections.given`` as they read."""
        given = {} if given is None else given

        def of_loc(loc: str) -> str:
            return given.get(loc, DEFAULT)

        return cls(of_loc, f"column {column}", given=given, column=column)


def path_glob(pattern: str) -> re.Pattern[str]:
    """A path pattern as a regular expression to match a whole path: ``*`` within one
    segment, ``**`` across segments, the rest as written; taken from the root ('/') when it
    does not start there."""
    return re.compile(_glob_text(pattern, within="/"))


def _glob_text(pattern: str, within: str = "/?#\n") -> str:
    """A path pattern as a regular expression: ``*`` inside a segment, ``**`` across them;
    ``within``: what a path cannot hold besides (a batch's paths end at '?', '#' or a line
    end)."""
    if not pattern.startswith("/"):
        pattern = "/" + pattern
    one, any_ = f"[^{within}]*", f"[^{within[1:]}]*" if within != "/" else ".*"
    parts = re.split(r"(\*\*|\*)", pattern)
    return "".join({"**": any_, "*": one}.get(part, re.escape(part)) for part in parts)


def parse_rule(rule: str) -> Sections:
    """A ``--section-by`` rule: ``path:N``, or ``column:section`` (the input's column or key)."""
    kind, _, value = rule.partition(":")
    if kind == "path" and value.isdigit():
        return Sections.by_path(int(value))
    if kind == "column" and value == COLUMN:
        return Sections.by_column(COLUMN)
    raise InvalidValue(
        "section-by",
        rule,
        "use path:N (the first N directory segments), column:section (a 'section' column of "
        "CSV or TSV, a key of JSON Lines), or name patterns with --section NAME=GLOB",
    )


def note(given: dict[str, str], loc: str, name: object, where: str) -> None:
    """Record that ``loc`` is in section ``name`` (a blank or None: in none), unless an
    earlier copy of it placed it: the build keeps a repeated loc's first copy."""
    if name is None or (isinstance(name, str) and not name.strip()):
        checked = DEFAULT
    else:
        checked = checked_name(name.strip() if isinstance(name, str) else name, where=where)
    given.setdefault(loc, checked)


def parse_pattern(text: str) -> tuple[str, str]:
    """One ``--section NAME=GLOB``."""
    name, equals, pattern = text.partition("=")
    if not equals or not pattern:
        raise InvalidValue("section", text, "give NAME=GLOB, e.g. products='/p/*'")
    return checked_name(name.strip()), pattern.strip()


def by_section(
    batch: list[Url] | Rendered, sections: Sections | None
) -> Iterator[tuple[str | None, list[Url] | Rendered]]:
    """A checked batch's entries by section (None without sections), in input order."""
    if sections is None:
        yield None, batch
        return
    rendered = isinstance(batch, Rendered)
    names = sections.of(batch.locs if rendered else [url[0] for url in batch])  # type: ignore[union-attr]
    distinct = dict.fromkeys(names)
    if len(distinct) == 1:
        yield names[0], batch
        return
    for name in distinct:
        if isinstance(batch, Rendered):
            yield name, batch.select(bytes(found == name for found in names))
        else:
            yield name, [url for url, found in zip(batch, names, strict=True) if found == name]


def sections_for(
    entries: Iterable[Any], rule: object, base: str | None = None
) -> tuple[Iterable[Any], Sections]:
    """The ``section=`` a build is given, and its entries: a ``Sections``, a callable of the
    loc, a ``path:N`` rule, or the name of a key of mapping entries (taken out of each before
    the entry is read; an entry without it goes to ``DEFAULT``; a relative loc is found
    resolved against ``base``, the build's base directory) or of a table's column."""
    if isinstance(rule, Sections):
        return entries, rule
    if callable(rule):
        return entries, Sections.by_callable(rule)
    if not isinstance(rule, str) or not rule:
        raise InvalidValue("section", rule, "give a key name, path:N, a callable or Sections")
    if rule.startswith("path:"):
        return entries, parse_rule(rule)
    if is_table(entries):
        return _from_table(entries, rule, base)
    given: dict[str, str] = {}
    return _taking_key(entries, rule, given, base), Sections.by_column(rule, given)


def _from_table(entries: Any, column: str, base: str | None) -> tuple[Any, Sections]:
    """A table without its ``column``, and the sections that column names (each distinct
    name checked once; a null or blank one: ``DEFAULT``)."""
    table = as_arrow(entries)
    if column not in table.column_names or "loc" not in table.column_names:
        raise InvalidValue("section", column, f"the table has no {column!r} or 'loc' column")
    given: dict[str, str] = {}
    checked: dict[object, str] = {}
    for loc, name in zip(
        table.column("loc").to_pylist(), table.column(column).to_pylist(), strict=True
    ):
        if not isinstance(loc, str):
            continue
        if name not in checked:
            blank = name is None or (isinstance(name, str) and not name.strip())
            text = name.strip() if isinstance(name, str) else name
            checked[name] = DEFAULT if blank else checked_name(text, where=f"{column} of {loc}")
        section = checked[name]
        given.setdefault(loc, section)  # a repeated loc: its first copy's, as the build keeps
        if not is_plain_uri(loc):  # the loc as the build writes it too
            with contextlib.suppress(InvalidValue):
                given.setdefault(to_uri(resolved_loc(loc, base)), section)
    return table.drop_columns([column]), Sections.by_column(column, given)


def _taking_key(
    entries: Iterable[Any], key: str, given: dict[str, str], base: str | None
) -> Iterator[Any]:
    for entry in entries:
        if isinstance(entry, Mapping) and key in entry:
            entry = dict(entry)
            name, loc = entry.pop(key), entry.get("loc")
            if isinstance(name, str):
                name = name.strip() or None
            if isinstance(loc, str):
                # a repeated loc keeps its first copy's section, as the build keeps it;
                # a blank or null one: the default section
                section = DEFAULT if name is None else checked_name(name, where=f"section of {loc}")
                given.setdefault(loc, section)
                # the loc as the build writes it too (a bad one: the build reports it)
                with contextlib.suppress(InvalidValue):
                    given.setdefault(to_uri(resolved_loc(loc, base)), given[loc])
        yield entry

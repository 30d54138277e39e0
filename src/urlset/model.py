"""The data model every part of urlset shares: immutable values that check themselves.

``Url`` and ``SitemapRef`` validate and normalise on construction (``Url("https://bücher.de/ä")``
holds the URI ``https://xn--bcher-kva.de/%C3%A4``) and raise InvalidValue naming the field.
They are tuples underneath, so that building millions of them stays cheap; equality still
requires the same type. Parsers that already checked a value use ``_trusted`` to skip the
checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, tzinfo
from enum import StrEnum
from functools import partial
from itertools import repeat
from operator import itemgetter
from typing import Any, NamedTuple

from .dates import Lastmod, check_lastmod
from .errors import InvalidValue
from .limits import MAX_LOC_LENGTH
from .urls import is_plain_uri, plain_uri_flags, to_uri

SITEMAP_NS = "http://www.sitemaps.org/schemas/sitemap/0.9"  # of urlset and sitemapindex
# every element name of the protocol (sitemap.xsd, siteindex.xsd)
PROTOCOL_NAMES = frozenset(
    ("urlset", "url", "sitemapindex", "sitemap", "loc", "lastmod", "changefreq", "priority")
)


class ChangeFreq(StrEnum):
    """The seven <changefreq> values of the protocol."""

    ALWAYS = "always"
    HOURLY = "hourly"
    DAILY = "daily"
    WEEKLY = "weekly"
    MONTHLY = "monthly"
    YEARLY = "yearly"
    NEVER = "never"


_CHANGEFREQS = {c.value: c for c in ChangeFreq}


class RawElement(NamedTuple):
    """An extension child of <url> kept as it was read, so a round trip loses nothing.

    ``xml`` is the element serialised on its own, with the namespace declarations it needs.
    """

    namespace: str
    name: str
    xml: str


def check_changefreq(value: object) -> ChangeFreq | None:
    """A ChangeFreq, or one of the seven names in any case with spaces around; else InvalidValue."""
    if value is None or isinstance(value, ChangeFreq):
        return value
    if isinstance(value, str):
        found = _CHANGEFREQS.get(value.strip().lower())
        if found is not None:
            return found
    raise InvalidValue("changefreq", value, f"must be one of {', '.join(_CHANGEFREQS)}")


def check_priority(value: object) -> float | None:
    """A number, or its text, from 0.0 to 1.0 as a float (not a bool); else InvalidValue."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidValue("priority", value, "must be a number from 0.0 to 1.0")
    if isinstance(value, (int, float)):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            raise InvalidValue("priority", value, "must be a number from 0.0 to 1.0") from None
    else:
        raise InvalidValue("priority", value, "must be a number from 0.0 to 1.0")
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise InvalidValue("priority", value, "must be from 0.0 to 1.0")
    return number


# Input values already checked, mapped to what the model holds. A site's dates repeat and
# changefreq and priority take few values, so most entries are a dict lookup away from valid.
# Only values that passed the full check are ever stored.
_KNOWN_LASTMOD: dict[object, Lastmod | None] = {None: None}
_KNOWN_CHANGEFREQ: dict[object, ChangeFreq | None] = {None: None}
_KNOWN_CHANGEFREQ.update(_CHANGEFREQS)
_KNOWN_PRIORITY: dict[object, float | None] = {None: None}
_KNOWN_MAX = 65_536
_MISSING: Any = object()


def _remember(table: dict[object, Any], key: object, value: object) -> None:
    if len(table) >= _KNOWN_MAX:
        table.clear()
        table[None] = None
    table[key] = value


class _UrlFields(NamedTuple):
    loc: str
    lastmod: Lastmod | None
    changefreq: ChangeFreq | None
    priority: float | None
    extensions: tuple[Any, ...]


class Url(_UrlFields):
    """One <url> entry: loc (a URI), lastmod, changefreq, priority, and extension children."""

    __slots__ = ()

    def __new__(
        cls,
        loc: str,
        lastmod: Lastmod | str | None = None,
        changefreq: ChangeFreq | str | None = None,
        priority: float | str | None = None,
        extensions: tuple[Any, ...] = (),
        *,
        default_tz: tzinfo | None = None,
    ) -> Url:
        # Fast paths for the values builds pass millions of times; anything else goes
        # through the full check, which normalises or explains.
        if not (type(loc) is str and len(loc) <= MAX_LOC_LENGTH and is_plain_uri(loc)):
            loc = to_uri(loc)
        known = _KNOWN_LASTMOD.get(lastmod, _MISSING) if type(lastmod) is str else _MISSING
        if known is _MISSING:
            aware = type(lastmod) is datetime and lastmod.tzinfo is not None
            if lastmod is None or type(lastmod) is date or aware:
                known = lastmod
            elif _absent(lastmod):
                known = None
            else:
                known = check_lastmod(lastmod, default_tz)
                if default_tz is None and type(lastmod) is str:
                    _remember(_KNOWN_LASTMOD, lastmod, known)
        lastmod = known
        if changefreq is not None and type(changefreq) is not ChangeFreq:
            exact = _KNOWN_CHANGEFREQ.get(changefreq) if type(changefreq) is str else None
            changefreq = exact or (None if _absent(changefreq) else check_changefreq(changefreq))
        if priority is not None and not (type(priority) is float and 0.0 <= priority <= 1.0):
            known = _KNOWN_PRIORITY.get(priority, _MISSING) if type(priority) is str else _MISSING
            if known is _MISSING:
                known = None if _absent(priority) else check_priority(priority)
                if type(priority) is str:
                    _remember(_KNOWN_PRIORITY, priority, known)
            priority = known
        elif type(priority) is float and priority not in _KNOWN_PRIORITY:
            _remember(_KNOWN_PRIORITY, priority, priority)
        if type(extensions) is not tuple:
            extensions = tuple(extensions)
        return tuple.__new__(cls, (loc, lastmod, changefreq, priority, extensions))

    @classmethod
    def _trusted(
        cls,
        loc: str,
        lastmod: Lastmod | None = None,
        changefreq: ChangeFreq | None = None,
        priority: float | None = None,
        extensions: tuple[Any, ...] = (),
    ) -> Url:
        """Build without checks: for values a parser has already validated."""
        return tuple.__new__(cls, (loc, lastmod, changefreq, priority, extensions))

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, default_tz: tzinfo | None = None) -> Url:
        """A Url from a mapping with the keys ``loc`` (required), ``lastmod``, ``changefreq``,
        ``priority`` and ``extensions``; an empty value is an absent one."""
        return cls(*row_from_dict(data), default_tz=default_tz)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        parts = [repr(self.loc)]
        for name in ("lastmod", "changefreq", "priority"):
            value = getattr(self, name)
            if value is not None:
                parts.append(f"{name}={value!r}")
        if self.extensions:
            parts.append(f"extensions={self.extensions!r}")
        return f"Url({', '.join(parts)})"


def _absent(value: object) -> bool:
    """An optional value that stands for "none": an empty or blank string, or a NaN or NaT
    (what a DataFrame holds in an empty cell; the only values not equal to themselves)."""
    if type(value) is str:
        return not value.strip()
    return value != value


def row_from_dict(data: Mapping[str, Any]) -> tuple[Any, ...]:
    """The (loc, lastmod, changefreq, priority, extensions) row of an entry mapping."""
    if "loc" not in data:
        raise InvalidValue("loc", None, "is missing")
    unknown = set(data) - {"loc", "lastmod", "changefreq", "priority", "extensions"}
    if unknown:
        raise InvalidValue("entry", sorted(unknown), "unknown fields")
    priority = data.get("priority")
    return (
        data["loc"],
        data.get("lastmod") or None,
        data.get("changefreq") or None,
        None if priority == "" else priority,
        tuple(data.get("extensions") or ()),
    )


OPTIONAL_FIELDS = {"lastmod": 1, "changefreq": 2, "priority": 3}  # name -> place in a row
_OPTIONAL_CHECKS = ((1, check_lastmod), (2, check_changefreq), (3, check_priority))


def url_keeping_loc(
    row: Sequence[Any], *, default_tz: tzinfo | None = None
) -> tuple[Url, list[InvalidValue]]:
    """``Url(*row)`` without each optional field whose value fails its check, and those
    failures: a bad lastmod, changefreq or priority must not cost a page its place in the
    sitemap. A bad loc (or a malformed row) still raises."""
    fields = list(row)
    dropped: list[InvalidValue] = []
    while True:
        try:
            return Url(*fields, default_tz=default_tz), dropped
        except InvalidValue as exc:
            place = OPTIONAL_FIELDS.get(exc.field)
            if place is None or place >= len(fields) or fields[place] is None:
                raise
            dropped.append(exc)
            fields[place] = None


def optional_faults(row: Sequence[Any], default_tz: tzinfo | None = None) -> list[InvalidValue]:
    """The failures ``url_keeping_loc`` drops the optional fields of ``row`` for (a lastmod
    without a zone read in ``default_tz``), in its order, each value checked alone and no ``Url`` made: a source's row whose
    values the compiled core refused costs a few small checks, not three ``Url`` values (a
    text's verdict remembered: a sheet repeats its changefreqs and priorities). A value of
    an unusual type may raise TypeError, as it does in ``Url``."""
    faults: list[InvalidValue] = []
    for place, check in _OPTIONAL_CHECKS:
        value = row[place] if place < len(row) else None
        if value is None:
            continue
        if place == 1 and default_tz is not None:
            check = partial(check_lastmod, default_tz=default_tz)
        if type(value) is str:
            key = (place, value, default_tz if place == 1 else None)
            fault = _FAULTS.get(key, _MISSING)
            if fault is _MISSING:
                fault = _fault(check, value)
                if len(_FAULTS) > _FAULTS_KEPT:
                    _FAULTS.clear()
                _FAULTS[key] = fault
        else:
            fault = _fault(check, value)
        if fault is not None:
            faults.append(fault)  # type: ignore[arg-type]
    return faults


def _fault(check: Callable[[Any], object], value: object) -> InvalidValue | None:
    """Why ``check`` refuses ``value`` (None: it takes it, or the value is absent)."""
    if _absent(value):
        return None
    try:
        check(value)
    except InvalidValue as exc:
        exc.__traceback__ = None  # kept without its frames: thousands are remembered
        return exc
    return None


_FAULTS: dict[tuple[int, str, tzinfo | None], object] = {}  # (place, text, zone) -> fault
_FAULTS_KEPT = 10_000

_new_url = partial(tuple.__new__, Url)
_ROW_TYPES = {str, float, type(None)}
_ROW_LASTMOD_TYPES = {str, date, type(None)}  # not datetime: equal instants in other zones
_FIELD_GETTERS = tuple(map(itemgetter, range(4)))


class RowColumns(NamedTuple):
    """(loc, lastmod, changefreq, priority) rows as columns, values as the rows gave them."""

    locs: list[str]
    lastmods: list[Any]
    changefreqs: list[Any]
    priorities: list[Any]


def _looked_up(table: dict[object, Any], raws: list[Any], check: Any) -> tuple[list[Any], bool]:
    """The checked value of each raw value and whether all passed; each distinct raw value not
    in ``table`` is checked once and remembered, and one that fails is _MISSING.

    The usual batch finds every value in the table: ``__getitem__`` stops at the first miss,
    where a sentinel would need a scan of the batch (``x in list`` calls ``==`` per item,
    ~65 ns, as long as the lookups themselves)."""
    try:
        return list(map(table.__getitem__, raws)), True
    except KeyError:
        pass
    for raw in {raw for raw in raws if raw not in table}:
        try:
            _remember(table, raw, check(raw))
        except InvalidValue:
            continue
    found = list(map(table.get, raws, repeat(_MISSING)))
    return found, _MISSING not in found


def _row_columns(rows: Sequence[Sequence[Any]]) -> tuple[RowColumns, list[bool]]:
    """Columns of ``rows`` and, per row, whether its loc is a plain URI. TypeError: not the
    shape the column checks take (ragged rows, other types)."""
    if set(map(len, rows)) != {4}:
        raise TypeError("not the fast shape")
    columns = RowColumns(*(list(map(get, rows)) for get in _FIELD_GETTERS))
    if set(map(type, columns.locs)) != {str}:
        raise TypeError("not the fast shape")
    if not set(map(type, columns.lastmods)) <= _ROW_LASTMOD_TYPES:
        raise TypeError("not the fast shape")
    if not set(map(type, columns.priorities)) <= _ROW_TYPES:
        raise TypeError("not the fast shape")  # a bool or int must not match 1.0 or 0.0
    return columns, plain_uri_flags(columns.locs)


def _row_values(
    rows: Sequence[Sequence[Any]],
) -> tuple[list[str], list[Any], list[Any], list[Any], list[bool], bool]:
    """The locs, the lastmod, changefreq and priority values (_MISSING where a check fails),
    whether each loc is a plain URI, and whether every row passed, a column at a time, each
    distinct value checked once. TypeError: not the shape the column checks take."""
    (locs, lastmods, changefreqs, priorities), loc_ok = _row_columns(rows)
    lm, lm_ok = _looked_up(_KNOWN_LASTMOD, lastmods, check_lastmod)
    cf, cf_ok = _looked_up(_KNOWN_CHANGEFREQ, changefreqs, check_changefreq)
    pr, pr_ok = _looked_up(_KNOWN_PRIORITY, priorities, check_priority)
    return locs, lm, cf, pr, loc_ok, lm_ok and cf_ok and pr_ok and False not in loc_ok


def urls_from_rows(
    rows: Sequence[Sequence[Any]], *, default_tz: tzinfo | None = None
) -> list[Url | InvalidValue]:
    """``Url(*row)`` for each (loc, lastmod, changefreq, priority) row, or the InvalidValue it
    raised, in order.

    The checks are the constructor's. Rows whose loc is already a plain URI and whose other
    values pass are checked a column at a time in C-level loops (each distinct value checked
    once); only the others go through ``Url()`` one by one.
    """
    if not rows:
        return []
    try:
        if default_tz is not None:
            raise TypeError("a zone to apply: every row on its own")
        locs, lm, cf, pr, loc_ok, all_ok = _row_values(rows)
    except TypeError:  # ragged rows, unhashable or unusual values: check each row on its own
        return [_url_or_error(row, default_tz) for row in rows]
    out: list[Url | InvalidValue] = list(map(_new_url, zip(locs, lm, cf, pr, repeat(()))))
    if not all_ok:
        for i, (a, b, c, d) in enumerate(zip(loc_ok, lm, cf, pr, strict=True)):
            if not a or b is _MISSING or c is _MISSING or d is _MISSING:
                out[i] = _url_or_error(rows[i], default_tz)
    return out


def _url_or_error(row: Sequence[Any], default_tz: tzinfo | None) -> Url | InvalidValue:
    try:
        return Url(*row, default_tz=default_tz)
    except InvalidValue as exc:
        return exc
    except TypeError:
        return InvalidValue("entry", row, "a row is (loc, lastmod, changefreq, priority)")


class _RefFields(NamedTuple):
    loc: str
    lastmod: Lastmod | None


class SitemapRef(_RefFields):
    """One <sitemap> entry of a sitemap index: the child's loc and lastmod."""

    __slots__ = ()

    def __new__(
        cls, loc: str, lastmod: Lastmod | str | None = None, *, default_tz: tzinfo | None = None
    ) -> SitemapRef:
        return tuple.__new__(
            cls, (to_uri(loc), None if lastmod is None else check_lastmod(lastmod, default_tz))
        )

    @classmethod
    def _trusted(cls, loc: str, lastmod: Lastmod | None = None) -> SitemapRef:
        return tuple.__new__(cls, (loc, lastmod))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and tuple.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = tuple.__hash__

    def __repr__(self) -> str:
        extra = "" if self.lastmod is None else f", lastmod={self.lastmod!r}"
        return f"SitemapRef({self.loc!r}{extra})"


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


class Issue(NamedTuple):
    """Something wrong with a document or an entry: a stable code, where, and how to fix it.

    ``line`` and ``column`` are 1-based; 0 when the problem has no single place (a file-level
    limit, a summary).
    """

    code: str
    severity: Severity
    message: str
    line: int = 0
    column: int = 0
    source: str = ""
    hint: str = ""

    def __str__(self) -> str:
        where = self.source or "<input>"
        if self.line:
            where += f":{self.line}:{self.column}" if self.column else f":{self.line}"
        text = f"{where}: {self.severity} {self.code}: {self.message}"
        return f"{text} (hint: {self.hint})" if self.hint else text


# An Issue from its seven fields in one tuple (code, severity, message, line, column, source,
# hint): the NamedTuple's __new__ is a Python function around this, one call more for each
# of the thousands of findings a check lists.
issue_of: Callable[[tuple[str, Severity, str, int, int, str, str]], Issue] = partial(
    tuple.__new__, Issue
)

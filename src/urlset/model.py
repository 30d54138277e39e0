"""The data model every part of urlset shares: immutable values that check themselves.

``Url`` and ``SitemapRef`` validate and normalise on construction (``Url("https://bücher.de/ä")``
holds the URI ``https://xn--bcher-kva.de/%C3%A4``) and raise InvalidValue naming the field.
They are tuples underneath, so that building millions of them stays cheap; equality still
requires the same type. Parsers that already checked a value use ``_trusted`` to skip the
checks.
"""

from __future__ import annotations

import math
from datetime import date, datetime, tzinfo
from enum import StrEnum
from typing import Any, NamedTuple

from .dates import Lastmod, check_lastmod
from .errors import InvalidValue
from .limits import MAX_LOC_LENGTH
from .urls import PLAIN_URI, to_uri

_plain_uri = PLAIN_URI.fullmatch


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


def _changefreq(value: object) -> ChangeFreq | None:
    if value is None or isinstance(value, ChangeFreq):
        return value
    if isinstance(value, str):
        found = _CHANGEFREQS.get(value.strip().lower())
        if found is not None:
            return found
    raise InvalidValue("changefreq", value, f"must be one of {', '.join(_CHANGEFREQS)}")


def _priority(value: object) -> float | None:
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


# lastmod strings already parsed: a site's dates repeat (many pages share a day)
_LASTMOD_TEXT: dict[str, Lastmod] = {}
_LASTMOD_TEXT_MAX = 65_536
_PRIORITY_TEXT: dict[str, float | None] = {}


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
        if not (type(loc) is str and len(loc) <= MAX_LOC_LENGTH and _plain_uri(loc)):
            loc = to_uri(loc)
        if lastmod is not None and not (
            type(lastmod) is date or (type(lastmod) is datetime and lastmod.tzinfo is not None)
        ):
            if type(lastmod) is str and default_tz is None:
                parsed = _LASTMOD_TEXT.get(lastmod)
                if parsed is None:
                    parsed = check_lastmod(lastmod)
                    if len(_LASTMOD_TEXT) >= _LASTMOD_TEXT_MAX:
                        _LASTMOD_TEXT.clear()
                    _LASTMOD_TEXT[lastmod] = parsed
                lastmod = parsed
            else:
                lastmod = check_lastmod(lastmod, default_tz)
        if changefreq is not None and type(changefreq) is not ChangeFreq:
            exact = _CHANGEFREQS.get(changefreq) if type(changefreq) is str else None
            changefreq = exact or _changefreq(changefreq)
        if priority is not None and not (type(priority) is float and 0.0 <= priority <= 1.0):
            known = _PRIORITY_TEXT.get(priority) if type(priority) is str else None
            if known is None:
                known = _priority(priority)
                if type(priority) is str and len(_PRIORITY_TEXT) < _LASTMOD_TEXT_MAX:
                    _PRIORITY_TEXT[priority] = known
            priority = known
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
        """Build from a mapping with the keys loc, lastmod, changefreq, priority."""
        if "loc" not in data:
            raise InvalidValue("loc", None, "is missing")
        unknown = set(data) - {"loc", "lastmod", "changefreq", "priority", "extensions"}
        if unknown:
            raise InvalidValue("entry", sorted(unknown), "unknown fields")
        return cls(
            data["loc"],
            data.get("lastmod") or None,
            data.get("changefreq") or None,
            data.get("priority") if data.get("priority") not in ("", None) else None,
            tuple(data.get("extensions") or ()),
            default_tz=default_tz,
        )

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

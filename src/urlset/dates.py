"""W3C Datetime (https://www.w3.org/TR/NOTE-datetime), the format of <lastmod>.

Allowed: YYYY, YYYY-MM, YYYY-MM-DD, and with a time: YYYY-MM-DDThh:mmTZD,
YYYY-MM-DDThh:mm:ssTZD, YYYY-MM-DDThh:mm:ss.sTZD, where TZD is Z, +hh:mm or -hh:mm.
A time always carries its zone. YYYY and YYYY-MM keep their precision: they are ``Year`` and
``YearMonth`` values, dates of the period's first day (for ordering) written as they were read.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone, tzinfo

from .errors import InvalidValue
from .patterns import lazy

Lastmod = date | datetime  # datetime is a subclass of date; a datetime here is always aware


class Year(date):
    """A lastmod given to the year ("2014"): ordered as its first day, written as read.

    Equal only to the same Year, never to ``date(2014, 1, 1)``, so that a table keyed by
    lastmod values keeps the two spellings apart."""

    __slots__ = ()

    def __new__(cls, year: int, month: int = 1, day: int = 1) -> Year:
        if (month, day) != (1, 1):  # date arithmetic and replace() land on other days
            return date(year, month, day)  # type: ignore[return-value]
        return super().__new__(cls, year, 1, 1)

    def isoformat(self) -> str:
        return f"{self.year:04d}"

    __str__ = isoformat

    def __repr__(self) -> str:
        return f"Year({self.year})"

    def __reduce__(self) -> tuple[type[Year], tuple[int]]:
        return (Year, (self.year,))

    def __eq__(self, other: object) -> bool:
        return type(other) is Year and date.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((Year, self.year))


class YearMonth(date):
    """A lastmod given to the month ("2014-06"): ordered as its first day, written as read;
    equal only to the same YearMonth."""

    __slots__ = ()

    def __new__(cls, year: int, month: int, day: int = 1) -> YearMonth:
        if day != 1:
            return date(year, month, day)  # type: ignore[return-value]
        return super().__new__(cls, year, month, 1)

    def isoformat(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    __str__ = isoformat

    def __repr__(self) -> str:
        return f"YearMonth({self.year}, {self.month})"

    def __reduce__(self) -> tuple[type[YearMonth], tuple[int, int]]:
        return (YearMonth, (self.year, self.month))

    def __eq__(self, other: object) -> bool:
        return type(other) is YearMonth and date.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((YearMonth, self.year, self.month))


_W3C_SOURCE = (
    r"(?P<y>\d{4})(?:-(?P<m>\d{2})(?:-(?P<d>\d{2})"
    r"(?:T(?P<H>\d{2}):(?P<M>\d{2})(?::(?P<S>\d{2})(?:\.(?P<f>\d+))?)?"
    r"(?P<tz>Z|[+-]\d{2}:\d{2}))?)?)?"
)
_W3C = lazy(_W3C_SOURCE)
# The same, with the zone optional: used only when the caller names a default zone.
_W3C_NOZONE = lazy(_W3C_SOURCE.replace(r"(?P<tz>Z|[+-]\d{2}:\d{2})", r"(?P<tz>Z|[+-]\d{2}:\d{2})?"))
# What real sites write instead: a space for T, unpadded parts, no zone, +hhmm zones.
_LENIENT = lazy(
    r"\s*(?P<y>\d{4})(?:-(?P<m>\d{1,2})(?:-(?P<d>\d{1,2})"
    r"(?:[T ](?P<H>\d{1,2}):(?P<M>\d{1,2})(?::(?P<S>\d{1,2})(?:[.,](?P<f>\d+))?)?"
    r"\s*(?P<tz>Z|z|UTC|GMT|[+-]\d{1,2}(?::?\d{2})?)?)?)?)?\s*"
)


def _zone(text: str) -> tzinfo:
    if text in ("Z", "z", "UTC", "GMT"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    hours, minutes = (int(digits), 0) if len(digits) <= 2 else (int(digits[:-2]), int(digits[-2:]))
    if hours > 23 or minutes > 59:
        raise ValueError("zone offset out of range")
    offset = timedelta(hours=hours, minutes=minutes)
    return UTC if not offset else timezone(sign * offset)


def _build(m: re.Match[str], default_tz: tzinfo | None) -> Lastmod:
    y = int(m["y"])
    if m["m"] is None:
        return Year(y)
    if m["d"] is None:
        return YearMonth(y, int(m["m"]))
    if m["H"] is None:
        return date(y, int(m["m"]), int(m["d"]))
    frac = m["f"] or ""
    micro = int((frac + "000000")[:6]) if frac else 0
    tz = _zone(m["tz"]) if m["tz"] else default_tz
    return datetime(
        y, int(m["m"]), int(m["d"]), int(m["H"]), int(m["M"]), int(m["S"] or 0), micro, tzinfo=tz
    )


_NO_ZONE = (
    "has no time zone: name one with --timezone (from Python, default_tz=), or give the "
    "value its own (+02:00, Z)"
)


def parse_w3c(text: str, *, default_tz: tzinfo | None = None) -> Lastmod:
    """Parse a W3C Datetime strictly; ``default_tz`` is applied to a time without a zone
    (the only leniency, and only when the caller names a zone)."""
    m = _W3C.fullmatch(text)
    if m is None and default_tz is not None:
        m = _W3C_NOZONE.fullmatch(text)
    if m is None:
        if default_tz is None and _W3C_NOZONE.fullmatch(text) is not None:
            raise InvalidValue("lastmod", text, _NO_ZONE)
        raise InvalidValue(
            "lastmod", text, "not a W3C Datetime (YYYY-MM-DD, or YYYY-MM-DDThh:mm:ss+hh:mm)"
        )
    try:
        return _build(m, default_tz)
    except ValueError as exc:
        raise InvalidValue("lastmod", text, f"not a real date or time ({exc})") from None


def parse_lenient(text: str) -> tuple[Lastmod | None, str | None]:
    """Read a lastmod the way a tolerant crawler does.

    Returns (value, problem): problem is None for a valid W3C Datetime, a short reason when
    the value was read despite a deviation (a time without zone is taken as UTC), and
    value is None when nothing sensible could be read.
    """
    m = _W3C.fullmatch(text)
    if m is not None:
        try:
            return _build(m, None), None
        except ValueError as exc:
            return None, f"not a real date or time ({exc})"
    m = _LENIENT.fullmatch(text)
    if m is None:
        return None, "not a W3C Datetime"
    try:
        value = _build(m, UTC)
    except ValueError as exc:
        return None, f"not a real date or time ({exc})"
    if m["H"] is not None and not m["tz"]:
        return value, "time without a time zone (read as UTC)"
    return value, "not in W3C form (unpadded, space for T, or +hhmm zone)"


def check_lastmod(value: object, default_tz: tzinfo | None = None) -> Lastmod:
    """Turn a user value (date, aware datetime, W3C string) into a lastmod, or explain why not."""
    if isinstance(value, datetime):
        if value.tzinfo is None or value.utcoffset() is None:
            if default_tz is None:
                raise InvalidValue("lastmod", value, f"naive datetime {_NO_ZONE}")
            return value.replace(tzinfo=default_tz)
        return value
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return parse_w3c(value.strip(), default_tz=default_tz)
    raise InvalidValue("lastmod", value, "must be a date, a datetime or a W3C Datetime string")


_TWO_DIGITS = [f"{n:02d}" for n in range(100)]
_DAY_TEXT: dict[int, str] = {}  # ordinal -> "YYYY-MM-DD"; a site's lastmods span few days
_ZONE_TEXT: dict[tzinfo, str] = {timezone.utc: "Z"}


def format_w3c(value: Lastmod) -> str:
    """Write a lastmod in W3C form: a date as YYYY-MM-DD, a datetime with seconds and zone."""
    if type(value) is datetime and not value.microsecond and type(value.tzinfo) is timezone:
        # the hot path of every build, about 3x faster than isoformat() on this machine
        ordinal = value.toordinal()
        day = _DAY_TEXT.get(ordinal)
        if day is None:
            if len(_DAY_TEXT) > 100_000:
                _DAY_TEXT.clear()
            day = _DAY_TEXT[ordinal] = value.date().isoformat()
        zone = _ZONE_TEXT.get(value.tzinfo)
        if zone is None:
            zone = _ZONE_TEXT[value.tzinfo] = value.isoformat()[19:]
        two = _TWO_DIGITS
        return f"{day}T{two[value.hour]}:{two[value.minute]}:{two[value.second]}{zone}"
    if isinstance(value, datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return value.isoformat()


def from_formatted(text: str) -> Lastmod:
    """The lastmod ``format_w3c`` wrote as ``text``."""
    if len(text) == 10:
        return date.fromisoformat(text)
    if len(text) == 4:
        return Year(int(text))
    if len(text) == 7:
        return YearMonth(int(text[:4]), int(text[5:]))
    return datetime.fromisoformat(text)


def instant(value: Lastmod) -> datetime:
    """A lastmod as an aware datetime, for ordering: a date counts as its start in UTC, and
    so does a time without a zone."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return datetime(value.year, value.month, value.day, tzinfo=UTC)


# A date without a time is the whole day somewhere on Earth: at most UTC+14 runs ahead.
DATE_AHEAD = timedelta(hours=14)


def latest_day(now: datetime) -> date:
    """The latest date-only lastmod that is not in the future at ``now``."""
    return (now.astimezone(UTC) + DATE_AHEAD).date()


def future_lastmod(lastmod: Lastmod, now: datetime) -> str | None:
    """A lastmod later than ``now`` (an aware datetime the caller chose) cannot be true."""
    if not isinstance(lastmod, datetime):
        if lastmod > latest_day(now):
            return f"lastmod {lastmod.isoformat()} is after {now.date().isoformat()}"
        return None
    if lastmod > now:
        return f"lastmod {lastmod.isoformat()} is after {now.isoformat(timespec='seconds')}"
    return None


def lastmod_without_day(lastmod: Lastmod) -> str | None:
    """A year or a month alone is a W3C Datetime the protocol allows, but sitemap.xsd types
    lastmod as a date or a dateTime, and search engines read a day at least."""
    kind = type(lastmod)
    if kind is Year or kind is YearMonth:
        what = "a year" if kind is Year else "a month"
        return f"lastmod {lastmod.isoformat()} names {what} but no day (sitemap.xsd needs one)"
    return None


def latest_moment(value: Lastmod) -> datetime:
    """The latest instant a lastmod may stand for, to order lastmods of mixed precision the
    way ``check`` does: a datetime is itself; a date is the end of that day anywhere on Earth,
    so that a time on the same day is not newer than it."""
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    return datetime(value.year, value.month, value.day, 23, 59, 59, tzinfo=UTC) + DATE_AHEAD


def parse_http_date(text: str) -> datetime | None:
    """An HTTP-date (RFC 9110 section 5.6.7, the obsolete forms too) as an aware datetime, or
    None for one that cannot be read (a header then counts as absent)."""
    from email.utils import parsedate_to_datetime

    try:
        moment = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)

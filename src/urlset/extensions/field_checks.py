"""Field checks shared by the typed extension values.

Each check takes a field's name and the value a caller gave (a string from XML or JSON, or
a Python value) and gives the checked, normalised value, or raises ``InvalidValue`` naming
the field and the rule. Also here: the ISO 639-1 language and ISO 3166-1 region codes
(news and hreflang use them), XML escaping, and ``format_decimal``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import TypeVar

from .._core import SlotMaker
from .._core import escape as escape  # entity escaping, the writer's own
from ..dates import Lastmod, check_lastmod
from ..errors import InvalidValue
from ..limits import MAX_LOC_LENGTH
from ..patterns import lazy
from ..urls import is_plain_uri, to_uri

# ISO 639-1 language codes and ISO 3166-1 alpha-2 region codes (for hreflang and news)
_ISO_639_1 = (
    "aa ab ae af ak am an ar as av ay az ba be bg bh bi bm bn bo br bs ca ce ch co cr cs cu cv "
    "cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn gu gv ha he hi ho hr "
    "ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki kj kk kl km kn ko kr ks ku kv kw "
    "ky la lb lg li ln lo lt lu lv mg mh mi mk ml mn mr ms mt my na nb nd ne ng nl nn no nr nv "
    "ny oc oj om or os pa pi pl ps pt qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr "
    "ss st su sv sw ta te tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi "
    "yo za zh zu"
)
ISO_639_1 = frozenset(_ISO_639_1.split())
_ISO_3166_1 = (
    "AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ "
    "BR BS BT BV BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM "
    "DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS "
    "GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN "
    "KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ "
    "MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM "
    "PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV "
    "SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI "
    "VN VU WF WS YE YT ZA ZM ZW"
)
ISO_3166_1 = frozenset(_ISO_3166_1.split())

# characters XML 1.0 cannot carry at all (not even as references)
_NOT_XML = lazy("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NEWLINES = lazy(r"\r\n?")
_ATTR_SPACE = lazy(r"[\t\r\n]")

# sets a field of a frozen value while it is being built
set_field = object.__setattr__
Made = TypeVar("Made")


def trusted_maker(
    cls: type[Made], fields: tuple[str, ...], fixed: dict[str, object] | None = None
) -> Callable[..., Made]:
    """A function that makes a ``cls`` (a frozen dataclass with slots) of values already
    checked, given in the order of ``fields``, the others set to ``fixed``'s values: each
    slot set by its own descriptor, in the core (a reader makes one for every image, video,
    article and link; the compiled reader makes them with the same maker)."""
    return SlotMaker(cls, fields, fixed)


def required_text(field: str, value: object, *, limit: int = 0, attribute: bool = False) -> str:
    """A required text value: a string, stripped, not empty, XML-safe, at most ``limit`` long.

    Line ends become ``\\n`` (an XML reader reports them so); in attributes tabs and line
    breaks become spaces (attribute-value normalisation would do the same on reading).
    """
    if not isinstance(value, str):
        raise InvalidValue(field, value, "must be a string")
    text = value.strip()
    if not text:
        raise InvalidValue(field, value, "is empty")
    if text.isprintable() and (not limit or len(text) <= limit):
        return text  # no control characters, line breaks or tabs: nothing to check further
    if _NOT_XML.search(text):
        raise InvalidValue(field, value, "contains a control character XML cannot hold")
    if "\r" in text:
        text = _NEWLINES.sub("\n", text)
    if attribute and ("\t" in text or "\n" in text):
        text = _ATTR_SPACE.sub(" ", text)
    if limit and len(text) > limit:
        raise InvalidValue(field, value, f"is {len(text)} characters; the limit is {limit}")
    return text


def optional_text(
    field: str, value: object, *, limit: int = 0, attribute: bool = False
) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return required_text(field, value, limit=limit, attribute=attribute)


def required_uri(field: str, value: object) -> str:
    if type(value) is str and len(value) <= MAX_LOC_LENGTH and is_plain_uri(value):
        return value
    if not isinstance(value, str):
        raise InvalidValue(field, value, "must be a string")
    return to_uri(value, field=field)


def uri_as_written(text: str) -> bool:
    """Whether ``required_uri`` gives ``text`` back as it is (no URI made of it: a reader
    that makes one reports it), or refuses it."""
    if is_plain_uri(text):
        return True
    try:
        return to_uri(text) == text
    except InvalidValue:
        return True


def optional_uri(field: str, value: object) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return required_uri(field, value)


def yes_no(field: str, value: object) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "yes":
            return True
        if word == "no":
            return False
    raise InvalidValue(field, value, "must be yes or no")


def whole_number(field: str, value: object, low: int, high: int | None) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidValue(field, value, "must be a whole number")
    if isinstance(value, int):
        number = value
    elif isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        number = int(value.strip())
    else:
        raise InvalidValue(field, value, "must be a whole number")
    if number < low or (high is not None and number > high):
        span = f"from {low:,} to {high:,}" if high is not None else f"at least {low:,}"
        raise InvalidValue(field, value, f"must be {span}")
    return number


def optional_date(field: str, value: object) -> Lastmod | None:
    if value is None:
        return None
    try:
        return check_lastmod(value)
    except InvalidValue as exc:
        raise InvalidValue(field, value, exc.reason) from None


def text_list(field: str, value: object) -> tuple[str, ...]:
    """A list of strings (a tuple, a list, or one comma-separated string)."""
    if value is None:
        return ()
    if isinstance(value, str):
        items: Iterable[object] = [w for w in value.split(",") if w.strip()]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        raise InvalidValue(field, value, "must be a list of strings")
    return tuple(required_text(field, item) for item in items)


def format_decimal(number: float) -> str:
    """A float as an xsd:decimal, never in exponent form; reading it back gives the same float."""
    text = format(Decimal(repr(number)), "f")
    return text + ".0" if "." not in text else text

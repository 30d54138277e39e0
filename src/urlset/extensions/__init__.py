"""Typed sitemap extensions: images, videos, news and hreflang alternates.

Four namespaces that search engines read inside ``<url>`` get typed values here; every other
extension stays a ``model.RawElement``. Each value is immutable and checks itself on
construction (``InvalidValue`` names the field and the rule), like ``model.Url``:

=============  ==============================================  ===================
value          element                                         namespace prefix
=============  ==============================================  ===================
``Image``      ``<image:image>``                               ``image``
``Video``      ``<video:video>``                               ``video``
``News``       ``<news:news>``                                 ``news``
``Alternate``  ``<xhtml:link rel="alternate" hreflang href>``  ``xhtml``
=============  ==============================================  ===================

A typed value has ``namespace``, ``name`` and ``xml`` like a ``RawElement`` (``xml`` is the
element on its own with its namespace declaration), plus ``body()``: the same element
without the declaration, which the writer uses when the declaration sits on an ancestor.
Children are written in the order the official schemas require.

Reading: ``parse(raw)`` turns a ``RawElement`` into a typed value and says why when it
cannot; ``typed(raw)`` returns just the value. Both are tolerant: an element in an unknown
namespace, or one holding something the typed value does not model (an unknown child, an
attribute, a bad value), comes back as the same ``RawElement`` with the reason in
``Parsed.error`` (nothing is raised), so reading and writing again loses nothing. Children
out of the schema's order are read and noted in ``Parsed.warnings``. For readers:
``parse_element(el)`` types an lxml element in place (no serialising and re-parsing), and
``fast_extensions(fragment, prefixes)`` types a run of plain image and hreflang elements
with regular expressions, for a regex fast lane.

JSON: ``to_json(value)`` / ``from_json(kind, data)`` use the field names of the classes;
``json_fields(extensions)`` and ``from_json_fields(data)`` give a ``<url>``'s extensions as
the entry-level keys ``images``, ``videos``, ``news``, ``alternates`` (typed) and
``extensions`` (raw: namespace, name, xml), the shape ``urlset read`` writes and
``urlset build`` reads.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from decimal import Decimal
from typing import Any, ClassVar, Literal, NamedTuple

from ..dates import Lastmod, check_lastmod, format_w3c
from ..errors import InvalidValue
from ..limits import MAX_LOC_LENGTH
from ..model import RawElement
from ..urls import is_plain_uri, plain_uri_flags, to_uri

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
XHTML_NS = "http://www.w3.org/1999/xhtml"
# the prefixes the writer uses, in the order it declares them
PREFIXES: dict[str, str] = {
    IMAGE_NS: "image",
    VIDEO_NS: "video",
    NEWS_NS: "news",
    XHTML_NS: "xhtml",
}

# Google's limits (developers.google.com/search/docs/crawling-indexing/sitemaps/...)
MAX_IMAGES_PER_URL = 1_000  # image sitemaps: "up to 1,000 images" per <url>
MAX_NEWS_PER_SITEMAP = 1_000  # news sitemaps: at most 1,000 <news:news> per sitemap
MAX_VIDEO_TITLE = 100  # sitemap-video.xsd: title maxLength 100
MAX_VIDEO_DESCRIPTION = 2_048  # sitemap-video.xsd: description maxLength 2048
MAX_VIDEO_DURATION = 28_800  # seconds (8 hours); Google: 1 to 28,800
MAX_VIDEO_TAGS = 32  # sitemap-video.xsd: tag maxOccurs 32
MAX_VIDEO_CATEGORY = 256  # sitemap-video.xsd: category maxLength 256
MAX_VIDEO_UPLOADER = 255  # Google: uploader name at most 255 characters
MAX_STOCK_TICKERS = 5  # sitemap-news.xsd: up to 5 tickers

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
_REGION_HINTS = {"UK": "GB", "EL": "GR", "EN": "GB or US"}

_plain_uri = is_plain_uri
# characters XML 1.0 cannot carry at all (not even as references)
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NEWLINES = re.compile(r"\r\n?")
_ATTR_SPACE = re.compile(r"[\t\r\n]")
_COUNTRY = re.compile(r"[A-Z]{2}")
_CURRENCY = re.compile(r"[A-Z]{3}")
_AMOUNT = re.compile(r"\d+(?:\.\d+)?")
_TICKER = re.compile(r"\w+:\w+")
_NEWS_LANGUAGE = re.compile(r"zh-cn|zh-tw|[a-z]{2,3}")
_HREFLANG = re.compile(r"([A-Za-z]{2,3})(?:-([A-Za-z]{4}))?(?:-([A-Za-z]{2}|[0-9]{3}))?")
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&apos;"))


def _esc(text: str) -> str:
    # the same escaping as xmlwrite.escape (not imported: xmlwrite imports this module)
    if "&" in text or "<" in text or ">" in text or '"' in text or "'" in text:
        for raw, entity in _ENTITIES:
            text = text.replace(raw, entity)
    return text


# ---------------------------------------------------------------- value checks


def _text(field: str, value: object, *, limit: int = 0, attribute: bool = False) -> str:
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


def _opt_text(field: str, value: object, *, limit: int = 0, attribute: bool = False) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _text(field, value, limit=limit, attribute=attribute)


def _uri(field: str, value: object) -> str:
    if type(value) is str and len(value) <= MAX_LOC_LENGTH and _plain_uri(value):
        return value
    if not isinstance(value, str):
        raise InvalidValue(field, value, "must be a string")
    return to_uri(value, field=field)


def _opt_uri(field: str, value: object) -> str | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    return _uri(field, value)


def _yes_no(field: str, value: object) -> bool | None:
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, str):
        word = value.strip().lower()
        if word == "yes":
            return True
        if word == "no":
            return False
    raise InvalidValue(field, value, "must be yes or no")


def _int(field: str, value: object, low: int, high: int | None) -> int | None:
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


def _date(field: str, value: object) -> Lastmod | None:
    if value is None:
        return None
    try:
        return check_lastmod(value)
    except InvalidValue as exc:
        raise InvalidValue(field, value, exc.reason) from None


def _words(field: str, value: object) -> tuple[str, ...]:
    """A list of strings (a tuple, a list, or one comma-separated string)."""
    if value is None:
        return ()
    if isinstance(value, str):
        items: Iterable[object] = [w for w in value.split(",") if w.strip()]
    elif isinstance(value, (list, tuple)):
        items = value
    else:
        raise InvalidValue(field, value, "must be a list of strings")
    return tuple(_text(field, item) for item in items)


def format_decimal(number: float) -> str:
    """A float as an xsd:decimal, never in exponent form; reading it back gives the same float."""
    text = format(Decimal(repr(number)), "f")
    return text + ".0" if "." not in text else text


_set = object.__setattr__


# ---------------------------------------------------------------- image


@dataclass(frozen=True, slots=True, init=False)
class Image:
    """``<image:image>``: the image's URL, and four fields Google no longer uses (kept)."""

    loc: str
    caption: str | None
    geo_location: str | None
    title: str | None
    license: str | None

    namespace: ClassVar[str] = IMAGE_NS
    name: ClassVar[str] = "image"
    kind: ClassVar[str] = "images"

    # written out (not generated) so that each field is checked and set once: a sitemap
    # holds up to a thousand images per URL
    def __init__(
        self,
        loc: str,
        caption: str | None = None,
        geo_location: str | None = None,
        title: str | None = None,
        license: str | None = None,
    ) -> None:
        if not (type(loc) is str and len(loc) <= MAX_LOC_LENGTH and _plain_uri(loc)):
            loc = _uri("image loc", loc)
        _set(self, "loc", loc)
        _set(self, "caption", None if caption is None else _opt_text("image caption", caption))
        _set(
            self,
            "geo_location",
            None if geo_location is None else _opt_text("image geo_location", geo_location),
        )
        _set(self, "title", None if title is None else _opt_text("image title", title))
        _set(self, "license", None if license is None else _opt_uri("image license", license))

    @classmethod
    def _trusted(
        cls, loc: str, caption: str | None, geo_location: str | None, title: str | None
    ) -> Image:
        """An Image of values already checked (a plain URI, stripped printable texts)."""
        image = object.__new__(cls)
        _set(image, "loc", loc)
        _set(image, "caption", caption)
        _set(image, "geo_location", geo_location)
        _set(image, "title", title)
        _set(image, "license", None)
        return image

    def body(self) -> str:
        loc, caption, geo, title, license_ = (
            self.loc,
            self.caption,
            self.geo_location,
            self.title,
            self.license,
        )
        if "&" in loc or "'" in loc:  # a URI: of the XML specials only these two occur
            loc = _esc(loc)
        if caption is None and geo is None and license_ is None:  # the usual shapes
            if title is None:
                return f"<image:image><image:loc>{loc}</image:loc></image:image>"
            return (
                f"<image:image><image:loc>{loc}</image:loc>"
                f"<image:title>{_esc(title)}</image:title></image:image>"
            )
        return (
            f"<image:image><image:loc>{loc}</image:loc>"
            + ("" if caption is None else f"<image:caption>{_esc(caption)}</image:caption>")
            + ("" if geo is None else f"<image:geo_location>{_esc(geo)}</image:geo_location>")
            + ("" if title is None else f"<image:title>{_esc(title)}</image:title>")
            + ("" if license_ is None else f"<image:license>{_esc(license_)}</image:license>")
            + "</image:image>"
        )

    @property
    def xml(self) -> str:
        return _declared(self.body(), self.namespace, self.name)


# ---------------------------------------------------------------- video


Relation = Literal["allow", "deny"]


@dataclass(frozen=True, slots=True)
class Relationship:
    """``<video:restriction>`` (country codes) or ``<video:platform>`` (web, mobile, tv)."""

    relationship: Relation
    values: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        rel = self.relationship
        if not isinstance(rel, str) or rel.strip().lower() not in ("allow", "deny"):
            raise InvalidValue("relationship", rel, "must be allow or deny")
        _set(self, "relationship", rel.strip().lower())
        values = self.values
        if isinstance(values, str):
            values = tuple(values.split())
        elif not isinstance(values, tuple):
            values = tuple(values)
        _set(self, "values", values)

    def _as_countries(self) -> Relationship:
        for code in self.values:
            if not isinstance(code, str) or not _COUNTRY.fullmatch(code):
                raise InvalidValue(
                    "video restriction", code, "must be ISO 3166 country codes (US, GB, ...)"
                )
        return self

    def _as_platforms(self) -> Relationship:
        for word in self.values:
            if word not in ("web", "mobile", "tv"):
                raise InvalidValue("video platform", word, "must be web, mobile or tv")
        return self

    def to_json(self) -> dict[str, Any]:
        return {"relationship": self.relationship, "values": list(self.values)}


def _relationship(field: str, value: object) -> Relationship | None:
    if value is None or isinstance(value, Relationship):
        return value
    if isinstance(value, Mapping):
        unknown = set(value) - {"relationship", "values"}
        if unknown:
            raise InvalidValue(field, value, f"unknown keys {sorted(unknown)}")
        return Relationship(value.get("relationship"), value.get("values") or ())  # type: ignore[arg-type]
    raise InvalidValue(field, value, "must be {relationship: allow|deny, values: [...]}")


@dataclass(frozen=True, slots=True)
class Price:
    """``<video:price>``: an amount in a currency, optionally rent or purchase, sd or hd."""

    amount: str
    currency: str
    type: str | None = None
    resolution: str | None = None

    def __post_init__(self) -> None:
        amount = self.amount
        if isinstance(amount, (int, float, Decimal)) and not isinstance(amount, bool):
            if isinstance(amount, float) and not math.isfinite(amount):
                raise InvalidValue("video price", amount, "must be a number")
            amount = format_decimal(amount) if isinstance(amount, float) else str(amount)
        if not isinstance(amount, str) or not _AMOUNT.fullmatch(amount.strip()):
            raise InvalidValue("video price", amount, "must be a decimal number like 1.99")
        _set(self, "amount", amount.strip())
        currency = self.currency
        if not isinstance(currency, str) or not _CURRENCY.fullmatch(currency.strip().upper()):
            raise InvalidValue("video price currency", currency, "must be an ISO 4217 code (EUR)")
        _set(self, "currency", currency.strip().upper())
        for name, allowed in (("type", ("rent", "purchase")), ("resolution", ("sd", "hd"))):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, str) or value.strip().lower() not in allowed:
                raise InvalidValue(f"video price {name}", value, f"must be {' or '.join(allowed)}")
            _set(self, name, value.strip().lower())

    def to_json(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name)}


def _prices(value: object) -> tuple[Price, ...]:
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        raise InvalidValue("video prices", value, "must be a list")
    out = []
    for item in value:
        if isinstance(item, Mapping):
            unknown = set(item) - {"amount", "currency", "type", "resolution"}
            if unknown:
                raise InvalidValue("video price", item, f"unknown keys {sorted(unknown)}")
            item = Price(
                item.get("amount"),  # type: ignore[arg-type]
                item.get("currency"),  # type: ignore[arg-type]
                item.get("type"),
                item.get("resolution"),
            )
        if not isinstance(item, Price):
            raise InvalidValue("video price", item, "must be a Price or a mapping")
        out.append(item)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Video:
    """``<video:video>``: one video on the page. thumbnail_loc, title, description and one of
    content_loc / player_loc are required; the rest is optional."""

    thumbnail_loc: str
    title: str
    description: str
    content_loc: str | None = None
    player_loc: str | None = None
    player_allow_embed: bool | None = None
    player_autoplay: str | None = None
    duration: int | None = None
    expiration_date: Lastmod | None = None
    rating: float | None = None
    view_count: int | None = None
    publication_date: Lastmod | None = None
    tags: tuple[str, ...] = ()
    category: str | None = None
    family_friendly: bool | None = None
    restriction: Relationship | None = None
    gallery_loc: str | None = None
    gallery_title: str | None = None
    prices: tuple[Price, ...] = ()
    requires_subscription: bool | None = None
    uploader: str | None = None
    uploader_info: str | None = None
    platform: Relationship | None = None
    live: bool | None = None

    namespace: ClassVar[str] = VIDEO_NS
    name: ClassVar[str] = "video"
    kind: ClassVar[str] = "videos"

    def __post_init__(self) -> None:
        s = self
        _set(s, "thumbnail_loc", _uri("video thumbnail_loc", s.thumbnail_loc))
        _set(s, "title", _text("video title", s.title, limit=MAX_VIDEO_TITLE))
        _set(
            s, "description", _text("video description", s.description, limit=MAX_VIDEO_DESCRIPTION)
        )
        _set(s, "content_loc", _opt_uri("video content_loc", s.content_loc))
        _set(s, "player_loc", _opt_uri("video player_loc", s.player_loc))
        if s.content_loc is None and s.player_loc is None:
            raise InvalidValue("video", s.title, "needs a content_loc or a player_loc (or both)")
        _set(s, "player_allow_embed", _yes_no("video player_loc allow_embed", s.player_allow_embed))
        _set(
            s,
            "player_autoplay",
            _opt_text("video player_loc autoplay", s.player_autoplay, attribute=True),
        )
        if s.player_loc is None and (s.player_allow_embed is not None or s.player_autoplay):
            raise InvalidValue("video player_loc", None, "is missing but has attributes")
        _set(s, "duration", _int("video duration", s.duration, 1, MAX_VIDEO_DURATION))
        _set(s, "expiration_date", _date("video expiration_date", s.expiration_date))
        _set(s, "rating", _rating(s.rating))
        _set(s, "view_count", _int("video view_count", s.view_count, 0, None))
        _set(s, "publication_date", _date("video publication_date", s.publication_date))
        tags = (
            _words("video tag", s.tags)
            if not isinstance(s.tags, str)
            else (_text("video tag", s.tags),)
        )
        if len(tags) > MAX_VIDEO_TAGS:
            raise InvalidValue("video tags", len(tags), f"at most {MAX_VIDEO_TAGS} tags per video")
        _set(s, "tags", tags)
        _set(s, "category", _opt_text("video category", s.category, limit=MAX_VIDEO_CATEGORY))
        _set(s, "family_friendly", _yes_no("video family_friendly", s.family_friendly))
        restriction = _relationship("video restriction", s.restriction)
        _set(s, "restriction", restriction and restriction._as_countries())
        _set(s, "gallery_loc", _opt_uri("video gallery_loc", s.gallery_loc))
        _set(
            s,
            "gallery_title",
            _opt_text("video gallery_loc title", s.gallery_title, attribute=True),
        )
        if s.gallery_loc is None and s.gallery_title is not None:
            raise InvalidValue("video gallery_loc", None, "is missing but has a title")
        _set(s, "prices", _prices(s.prices))
        _set(
            s,
            "requires_subscription",
            _yes_no("video requires_subscription", s.requires_subscription),
        )
        _set(s, "uploader", _opt_text("video uploader", s.uploader, limit=MAX_VIDEO_UPLOADER))
        _set(s, "uploader_info", _opt_uri("video uploader info", s.uploader_info))
        if s.uploader is None and s.uploader_info is not None:
            raise InvalidValue("video uploader", None, "is missing but has an info URL")
        platform = _relationship("video platform", s.platform)
        _set(s, "platform", platform and platform._as_platforms())
        _set(s, "live", _yes_no("video live", s.live))

    def body(self) -> str:
        p = [
            "<video:video><video:thumbnail_loc>",
            _esc(self.thumbnail_loc),
            "</video:thumbnail_loc>",
        ]
        p += ["<video:title>", _esc(self.title), "</video:title>"]
        p += ["<video:description>", _esc(self.description), "</video:description>"]
        if self.content_loc is not None:
            p += ["<video:content_loc>", _esc(self.content_loc), "</video:content_loc>"]
        if self.player_loc is not None:
            attrs = ""
            if self.player_allow_embed is not None:
                attrs += f' allow_embed="{_yn(self.player_allow_embed)}"'
            if self.player_autoplay is not None:
                attrs += f' autoplay="{_esc(self.player_autoplay)}"'
            p += [f"<video:player_loc{attrs}>", _esc(self.player_loc), "</video:player_loc>"]
        if self.duration is not None:
            p.append(f"<video:duration>{self.duration}</video:duration>")
        if self.expiration_date is not None:
            p.append(
                f"<video:expiration_date>{format_w3c(self.expiration_date)}</video:expiration_date>"
            )
        if self.rating is not None:
            p.append(f"<video:rating>{format_decimal(self.rating)}</video:rating>")
        if self.view_count is not None:
            p.append(f"<video:view_count>{self.view_count}</video:view_count>")
        if self.publication_date is not None:
            p.append(
                f"<video:publication_date>{format_w3c(self.publication_date)}</video:publication_date>"
            )
        for tag in self.tags:
            p += ["<video:tag>", _esc(tag), "</video:tag>"]
        if self.category is not None:
            p += ["<video:category>", _esc(self.category), "</video:category>"]
        if self.family_friendly is not None:
            p.append(f"<video:family_friendly>{_yn(self.family_friendly)}</video:family_friendly>")
        if self.restriction is not None:
            r = self.restriction
            p.append(
                f'<video:restriction relationship="{r.relationship}">{" ".join(r.values)}</video:restriction>'
            )
        if self.gallery_loc is not None:
            title = "" if self.gallery_title is None else f' title="{_esc(self.gallery_title)}"'
            p += [f"<video:gallery_loc{title}>", _esc(self.gallery_loc), "</video:gallery_loc>"]
        for price in self.prices:
            attrs = f' currency="{price.currency}"'
            if price.type is not None:
                attrs += f' type="{price.type}"'
            if price.resolution is not None:
                attrs += f' resolution="{price.resolution}"'
            p.append(f"<video:price{attrs}>{price.amount}</video:price>")
        if self.requires_subscription is not None:
            p.append(
                f"<video:requires_subscription>{_yn(self.requires_subscription)}</video:requires_subscription>"
            )
        if self.uploader is not None:
            info = "" if self.uploader_info is None else f' info="{_esc(self.uploader_info)}"'
            p += [f"<video:uploader{info}>", _esc(self.uploader), "</video:uploader>"]
        if self.platform is not None:
            r = self.platform
            p.append(
                f'<video:platform relationship="{r.relationship}">{" ".join(r.values)}</video:platform>'
            )
        if self.live is not None:
            p.append(f"<video:live>{_yn(self.live)}</video:live>")
        p.append("</video:video>")
        return "".join(p)

    @property
    def xml(self) -> str:
        return _declared(self.body(), self.namespace, self.name)


def _yn(value: bool) -> str:
    return "yes" if value else "no"


def _rating(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool):
        raise InvalidValue("video rating", value, "must be a number from 0.0 to 5.0")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InvalidValue("video rating", value, "must be a number from 0.0 to 5.0") from None
    if not 0.0 <= number <= 5.0:  # NaN fails this too
        raise InvalidValue("video rating", value, "must be from 0.0 to 5.0")
    return number


# ---------------------------------------------------------------- news

GENRES = ("PressRelease", "Satire", "Blog", "OpEd", "Opinion", "UserGenerated")
ACCESS = ("Subscription", "Registration")
_GENRES = {g.lower(): g for g in GENRES}
_ACCESS = {a.lower(): a for a in ACCESS}


@dataclass(frozen=True, slots=True)
class News:
    """``<news:news>``: an article. publication name and language, publication_date and title
    are required; access, genres, keywords and stock_tickers are optional."""

    publication_name: str
    language: str
    publication_date: Lastmod
    title: str
    access: str | None = None
    genres: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    stock_tickers: tuple[str, ...] = ()

    namespace: ClassVar[str] = NEWS_NS
    name: ClassVar[str] = "news"
    kind: ClassVar[str] = "news"

    def __post_init__(self) -> None:
        _set(self, "publication_name", _text("news publication name", self.publication_name))
        _set(self, "language", news_language(self.language))
        published = _date("news publication_date", self.publication_date)
        if published is None:
            raise InvalidValue("news publication_date", None, "is missing")
        _set(self, "publication_date", published)
        _set(self, "title", _text("news title", self.title))
        if self.access is not None:
            found = _ACCESS.get(str(self.access).strip().lower())
            if found is None:
                raise InvalidValue(
                    "news access",
                    self.access,
                    "must be Subscription or Registration (omit it for free articles)",
                )
            _set(self, "access", found)
        genres = []
        for genre in _words("news genres", self.genres):
            known = _GENRES.get(genre.lower())
            if known is None:
                raise InvalidValue("news genres", genre, f"must be one of {', '.join(GENRES)}")
            genres.append(known)
        _set(self, "genres", tuple(genres))
        keywords = _words("news keywords", self.keywords)
        for word in keywords:
            if "," in word:
                raise InvalidValue("news keywords", word, "a keyword cannot hold a comma")
        _set(self, "keywords", keywords)
        tickers = _words("news stock_tickers", self.stock_tickers)
        for ticker in tickers:
            if not _TICKER.fullmatch(ticker):
                raise InvalidValue(
                    "news stock_tickers", ticker, "must be EXCHANGE:SYMBOL, e.g. NASDAQ:AMAT"
                )
        if len(tickers) > MAX_STOCK_TICKERS:
            raise InvalidValue(
                "news stock_tickers", len(tickers), f"at most {MAX_STOCK_TICKERS} tickers"
            )
        _set(self, "stock_tickers", tickers)

    def body(self) -> str:
        p = [
            "<news:news><news:publication><news:name>",
            _esc(self.publication_name),
            f"</news:name><news:language>{self.language}</news:language></news:publication>",
        ]
        if self.access is not None:
            p.append(f"<news:access>{self.access}</news:access>")
        if self.genres:
            p.append(f"<news:genres>{', '.join(self.genres)}</news:genres>")
        p.append(
            f"<news:publication_date>{format_w3c(self.publication_date)}</news:publication_date>"
        )
        p += ["<news:title>", _esc(self.title), "</news:title>"]
        if self.keywords:
            p += ["<news:keywords>", _esc(", ".join(self.keywords)), "</news:keywords>"]
        if self.stock_tickers:
            p.append(f"<news:stock_tickers>{', '.join(self.stock_tickers)}</news:stock_tickers>")
        p.append("</news:news>")
        return "".join(p)

    @property
    def xml(self) -> str:
        return _declared(self.body(), self.namespace, self.name)


def news_language(value: object) -> str:
    """A news language: an ISO 639 code (two letters from ISO 639-1, or three), zh-cn or zh-tw."""
    if not isinstance(value, str):
        raise InvalidValue("news language", value, "must be a string")
    code = value.strip().lower()
    if not _NEWS_LANGUAGE.fullmatch(code):
        hint = "; Chinese is zh-cn or zh-tw" if code.startswith("zh") else ""
        raise InvalidValue(
            "news language", value, f"must be an ISO 639 code such as en or fr{hint}"
        )
    if len(code) == 2 and code not in ISO_639_1:
        raise InvalidValue("news language", value, "is not an ISO 639-1 language code")
    return code


# ---------------------------------------------------------------- hreflang alternates


def hreflang_code(value: object) -> str:
    """A valid hreflang value in canonical case (``en``, ``en-GB``, ``zh-Hant-TW``, ``x-default``)."""
    if not isinstance(value, str):
        raise InvalidValue("hreflang", value, "must be a string")
    text = value.strip()
    if text.lower() == "x-default":
        return "x-default"
    m = _HREFLANG.fullmatch(text.replace("_", "-"))
    if m is None:
        raise InvalidValue(
            "hreflang",
            value,
            "must be a language code (ISO 639-1), optionally -Script and -REGION (ISO 3166-1), or x-default",
        )
    if "_" in text:
        raise InvalidValue(
            "hreflang", value, f"separate language and region with '-': {text.replace('_', '-')}"
        )
    language, script, region = m.group(1).lower(), m.group(2), m.group(3)
    if len(language) == 2 and language not in ISO_639_1:
        raise InvalidValue("hreflang", value, f"{language!r} is not an ISO 639-1 language code")
    code = language
    if script:
        code += "-" + script.title()
    if region:
        region = region.upper()
        if region.isalpha() and region not in ISO_3166_1:
            better = _REGION_HINTS.get(region)
            hint = f" (use {better})" if better else ""
            raise InvalidValue(
                "hreflang", value, f"{region!r} is not an ISO 3166-1 region code{hint}"
            )
        code += "-" + region
    return code


@dataclass(frozen=True, slots=True)
class Alternate:
    """``<xhtml:link rel="alternate" hreflang="..." href="..."/>``: a language or region
    variant of the page (the page itself included)."""

    hreflang: str
    href: str

    namespace: ClassVar[str] = XHTML_NS
    name: ClassVar[str] = "link"
    kind: ClassVar[str] = "alternates"

    def __post_init__(self) -> None:
        _set(self, "hreflang", hreflang_code(self.hreflang))
        _set(self, "href", _uri("alternate href", self.href))

    @classmethod
    def _trusted(cls, hreflang: str, href: str) -> Alternate:
        """An Alternate of values already checked (a canonical code, a plain URI)."""
        alternate = object.__new__(cls)
        _set(alternate, "hreflang", hreflang)
        _set(alternate, "href", href)
        return alternate

    def body(self) -> str:
        return f'<xhtml:link rel="alternate" hreflang="{self.hreflang}" href="{_esc(self.href)}"/>'

    @property
    def xml(self) -> str:
        return _declared(self.body(), self.namespace, self.name)


Extension = Image | Video | News | Alternate
TYPED: tuple[type[Image], type[Video], type[News], type[Alternate]] = (
    Image,
    Video,
    News,
    Alternate,
)


def _declared(body: str, namespace: str, name: str) -> str:
    """``body`` with its namespace declared on its own start tag: a self-contained element."""
    prefix = PREFIXES[namespace]
    end = len(prefix) + len(name) + 2  # after "<prefix:name"
    return f'{body[:end]} xmlns:{prefix}="{namespace}"{body[end:]}'


# (class, namespace) in the order the writer declares namespaces
DECLARED_BY: tuple[tuple[type, str], ...] = (
    (Image, IMAGE_NS),
    (Video, VIDEO_NS),
    (News, NEWS_NS),
    (Alternate, XHTML_NS),
)


def namespaces_of(extensions: Iterable[object]) -> list[str]:
    """The typed namespaces these extensions need declared, in PREFIXES order."""
    kinds = set(map(type, extensions))
    return [ns for cls, ns in DECLARED_BY if cls in kinds]


# ---------------------------------------------------------------- reading


class Parsed(NamedTuple):
    """What ``parse`` made of a raw element.

    ``value`` is the typed value, or the raw element itself when it could not be typed;
    ``error`` says why not (None when typed, or when the namespace is not one urlset types);
    ``warnings`` lists what was wrong but still read (children out of schema order).
    """

    value: Extension | RawElement
    error: str | None = None
    warnings: tuple[str, ...] = ()
    # True when the element is kept raw only because it holds something urlset does not
    # model (a video <tvshow>, an unknown attribute): not a fault of the sitemap
    unmodelled: bool = False


# lxml parser options for untrusted XML, for every parser urlset makes: no entities, no
# network, no DTD, bounded text; comments and processing instructions dropped
SAFE_PARSER_OPTIONS: dict[str, Any] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
    "collect_ids": False,
}


@functools.cache
def _parser() -> Any:
    # lxml is imported on first use: a build that writes no raw extension XML never loads it
    from lxml import etree

    return etree.XMLParser(**SAFE_PARSER_OPTIONS)


_Reader = Callable[[Any, list[str]], "Extension"]


class _Bad(Exception):
    """An element that cannot be typed without losing something; the message says why."""


class _Unmodelled(_Bad):
    """Valid, but holding something the typed value does not model: kept raw, not a fault."""


def typed(raw: RawElement) -> Extension | RawElement:
    """The typed value of ``raw``, or ``raw`` unchanged (unknown namespace, or not typable).

    Never raises for bad content; use ``parse`` to learn why an element stayed raw.
    """
    return parse(raw).value


def parse(raw: RawElement) -> Parsed:
    """Type one raw extension element; see ``Parsed``. Never raises for bad content."""
    reader = _READERS.get((raw.namespace, raw.name))
    if reader is None:
        return Parsed(raw)
    fast = _FAST.get(raw.name)
    if fast is not None:
        try:
            value = fast(raw.xml)
        except InvalidValue:
            value = None  # the full reading below explains it
        if value is not None:
            return Parsed(value)
    from lxml import etree

    try:
        el = etree.fromstring(raw.xml.encode("utf-8"), _parser())
    except etree.XMLSyntaxError as exc:
        return Parsed(raw, f"<{raw.name}> is not well-formed XML ({exc})")
    return _parse_element(el, raw, reader)


# Fast lane for the two elements that come by the thousand (images, hreflang links) in the
# plain form writers use: one regex instead of an XML parse. Anything else (attributes,
# comments, character references, other entities, unusual layout) returns None and takes
# the full lxml reading, which gives the same value or explains why there is none.
_STANDARD_ENTITY = re.compile(r"&(?!(?:amp|lt|gt|quot|apos);)")
_IMAGE_XML = re.compile(
    r'<(?P<p>[A-Za-z_][\w.-]*):image xmlns:(?P=p)="http://www\.google\.com/schemas/sitemap-image/1\.1">\s*'
    r"<(?P=p):loc>(?P<loc>[^<]*)</(?P=p):loc>\s*"
    r"(?:<(?P=p):caption>(?P<caption>[^<]*)</(?P=p):caption>\s*)?"
    r"(?:<(?P=p):geo_location>(?P<geo>[^<]*)</(?P=p):geo_location>\s*)?"
    r"(?:<(?P=p):title>(?P<title>[^<]*)</(?P=p):title>\s*)?"
    r"(?:<(?P=p):license>(?P<license>[^<]*)</(?P=p):license>\s*)?"
    r"</(?P=p):image>"
)
_LINK_XML = re.compile(
    r'<(?P<p>[A-Za-z_][\w.-]*):link xmlns:(?P=p)="http://www\.w3\.org/1999/xhtml"'
    r'(?P<attrs>(?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*/>'
)
_ATTR = re.compile(r'\s+([A-Za-z_][\w.:-]*)="([^"<]*)"')


def _plain_text(text: str | None) -> str | None:
    """Element text or attribute value with the five standard entities decoded; None when
    it holds anything the fast lane does not decode (character references, tabs, line ends
    in attributes...)."""
    if text is None or "&" not in text:
        return text
    if _STANDARD_ENTITY.search(text):
        return None
    return (
        text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", '"')
        .replace("&apos;", "'")
        .replace("&amp;", "&")
    )


def _fast_image(xml: str) -> Image | None:
    m = _IMAGE_XML.fullmatch(xml)
    if m is None:
        return None
    values: list[str | None] = []
    for text in m.group("loc", "caption", "geo", "title", "license"):
        if text is not None:
            text = _plain_text(text)
            if text is None:
                return None
            text = text.strip() or None
        values.append(text)
    if values[0] is None:
        return None
    return Image(*values)  # type: ignore[arg-type]


def _fast_link(xml: str) -> Alternate | None:
    m = _LINK_XML.fullmatch(xml)
    if m is None:
        return None
    attrs = dict(_ATTR.findall(m.group("attrs")))
    if len(attrs) != 3 or attrs.get("rel", "").strip().lower() != "alternate":
        return None
    hreflang, href = attrs.get("hreflang"), _plain_text(attrs.get("href"))
    if hreflang is None or href is None or "\t" in href or "\n" in href:
        return None
    return Alternate(hreflang, href)


_FAST: dict[str, Callable[[str], Extension | None]] = {"image": _fast_image, "link": _fast_link}


# Inside a document: runs of plain image and hreflang elements, as a reader's regex lane
# sees them between a <url>'s core children and its end tag (prefixes bound on the root).
_RUN_IMAGE = (
    r"<{p}:image>\s*<{p}:loc>([^<]*)</{p}:loc>\s*"
    r"(?:<{p}:caption>([^<]*)</{p}:caption>\s*)?"
    r"(?:<{p}:geo_location>([^<]*)</{p}:geo_location>\s*)?"
    r"(?:<{p}:title>([^<]*)</{p}:title>\s*)?"
    r"(?:<{p}:license>([^<]*)</{p}:license>\s*)?</{p}:image>"
)
_RUN_LINK = r'<{q}:link((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*/>'
_RUNS: dict[tuple[str | None, str | None], re.Pattern[str]] = {}


def _run_pattern(image: str | None, link: str | None) -> re.Pattern[str]:
    found = _RUNS.get((image, link))
    if found is None:
        parts = []
        if image is not None:
            parts.append(_RUN_IMAGE.format(p=re.escape(image)))
        if link is not None:
            parts.append(_RUN_LINK.format(q=re.escape(link)))
        found = _RUNS[(image, link)] = re.compile(
            r"\s*(?:" + "|".join(f"({p})" for p in parts) + r")"
        )
    return found


def _plain_written_uris(texts: list[str]) -> list[str] | None:
    """URIs as written in XML ('&' only as '&amp;'), unescaped, when every one of them is a
    plain URI (``urls.plain_uri_flags``); None otherwise."""
    joined = "\n".join(texts)
    if "&" in joined:
        if joined.count("&") != joined.count("&amp;"):
            return None
        texts = [text.replace("&amp;", "&") for text in texts]
    return None if False in plain_uri_flags(texts) else texts


_IMAGE_SPLITS: dict[str, re.Pattern[str]] = {}


def _image_split(prefix: str) -> re.Pattern[str]:
    found = _IMAGE_SPLITS.get(prefix)
    if found is None:
        found = _IMAGE_SPLITS[prefix] = re.compile(_RUN_IMAGE.format(p=re.escape(prefix)))
    return found


def _fast_images(fragment: str, prefix: str) -> tuple[Image, ...] | None:
    """A run of plain ``<image:image>`` elements (loc, and caption, geo_location or title as
    printable text) typed a column at a time: one split, the locs proven plain URIs in one
    pass, the texts in another, and the values built without checking them again. None when
    anything in the run needs the one-by-one path."""
    parts = _image_split(prefix).split(fragment)
    if len(parts) < 7 or "".join(parts[0::6]).strip():
        return None  # nothing but whitespace may lie between the images
    if any(parts[5::6]):
        return None  # a license is a URI of its own: the one-by-one path checks it
    locs = _plain_written_uris(parts[1::6])
    if locs is None:
        return None
    columns = []
    for column in (parts[2::6], parts[3::6], parts[4::6]):
        texts = [text for text in column if text is not None]
        if not texts:
            columns.append(column)
            continue
        joined = "".join(texts)
        if "&" in joined or not joined.isprintable():
            return None  # entities, tabs, line breaks: the one-by-one path
        columns.append([None if text is None else text.strip() or None for text in column])
    return tuple(map(Image._trusted, locs, *columns))


_LINK_SPLITS: dict[str, re.Pattern[str]] = {}
_HREFLANG_CODES: dict[str, str] = {}  # hreflang as written -> canonical, for valid ones
_HREFLANG_WRITTEN = re.compile(r"[A-Za-z0-9_\-]+")


def _fast_links(fragment: str, prefix: str) -> tuple[Alternate, ...] | None:
    """A run of ``<xhtml:link rel="alternate" hreflang=".." href=".."/>`` elements in that
    attribute order (as writers produce them) typed a column at a time: the hreflang codes
    through a table of codes already checked, the hrefs proven plain URIs in one pass. None
    when anything in the run needs the one-by-one path."""
    pattern = _LINK_SPLITS.get(prefix)
    if pattern is None:
        pattern = _LINK_SPLITS[prefix] = re.compile(
            rf'<{re.escape(prefix)}:link\s+rel="alternate"\s+hreflang="([^"<]*)"'
            r'\s+href="([^"<]*)"\s*/>'
        )
    parts = pattern.split(fragment)
    if len(parts) < 4 or "".join(parts[0::3]).strip():
        return None
    written: list[str] = parts[1::3]
    hrefs = _plain_written_uris(parts[2::3])
    if hrefs is None:
        return None
    codes = _HREFLANG_CODES
    for code in set(written) - codes.keys():
        if not _HREFLANG_WRITTEN.fullmatch(code):
            return None
        try:
            canonical = hreflang_code(code)
        except InvalidValue:
            return None  # the one-by-one path reports it
        if len(codes) > 4096:
            codes.clear()
        codes[code] = canonical
    return tuple(map(Alternate._trusted, map(codes.__getitem__, written), hrefs))


def fast_extensions(fragment: str, prefixes: Mapping[str, str]) -> tuple[Extension, ...] | None:
    """The typed values of ``fragment``, a run of ``<image:image>`` and ``<xhtml:link>``
    elements inside a ``<url>`` (whitespace between them allowed), when it is in the plain
    form writers produce; ``prefixes`` maps each prefix declared on the root to its
    namespace. None when anything else is there (another element, attributes on images,
    character references, a value a typed value rejects): read those with the full lane.

    For a reader's regex lane, so that the commonest extension sitemaps need no XML parser.
    """
    image = link = None
    for prefix, namespace in prefixes.items():
        if namespace == IMAGE_NS:
            image = prefix
        elif namespace == XHTML_NS:
            link = prefix
    if image is None and link is None:
        return None if fragment.strip() else ()
    if image is not None and (link is None or f"<{link}:" not in fragment):
        images = _fast_images(fragment, image)
        if images is not None:
            return images
    elif link is not None and (image is None or f"<{image}:" not in fragment):
        links = _fast_links(fragment, link)
        if links is not None:
            return links
    pattern = _run_pattern(image, link)
    out: list[Extension] = []
    pos = 0
    end = len(fragment.rstrip())
    match = pattern.match
    try:
        while pos < end:
            m = match(fragment, pos)
            if m is None:
                return None
            pos = m.end()
            groups = m.groups()
            if image is not None and groups[0] is not None:
                values: list[str | None] = []
                for text in groups[1:6]:
                    if text is not None:
                        text = _plain_text(text)
                        if text is None:
                            return None
                        text = text.strip() or None
                    values.append(text)
                if values[0] is None:
                    return None
                out.append(Image(*values))  # type: ignore[arg-type]
            else:
                attrs = dict(_ATTR.findall(groups[-1]))
                if len(attrs) != 3 or attrs.get("rel", "").strip().lower() != "alternate":
                    return None
                hreflang, href = attrs.get("hreflang"), _plain_text(attrs.get("href"))
                if hreflang is None or href is None or "\t" in href or "\n" in href:
                    return None
                out.append(Alternate(hreflang, href))
    except InvalidValue:
        return None
    return tuple(out)


def _tostring(el: Any) -> str:
    from lxml import etree

    text: str = etree.tostring(el, encoding="unicode", with_tail=False)
    return text


def parse_element(el: Any, serialise: Callable[[Any], str] = _tostring) -> Parsed:
    """Type an lxml element directly (a reader holding the parsed tree skips re-parsing).

    When it cannot be typed (or its namespace is not one urlset types), the raw element's
    ``xml`` is ``serialise(el)``: a reader passes its own serialiser so that raw elements
    look the same whichever way they were read.
    """
    tag = el.tag
    ns, _, local = tag[1:].partition("}") if tag[:1] == "{" else ("", "", tag)
    reader = _READERS.get((ns, local))
    if reader is None:
        return Parsed(RawElement(ns, local, serialise(el)))
    warnings: list[str] = []
    try:
        value = reader(el, warnings)
    except (_Bad, InvalidValue) as exc:
        return Parsed(
            RawElement(ns, local, serialise(el)), str(exc), unmodelled=isinstance(exc, _Unmodelled)
        )
    return Parsed(value, None, tuple(warnings))


def _parse_element(el: Any, raw: RawElement, reader: _Reader) -> Parsed:
    warnings: list[str] = []
    try:
        value = reader(el, warnings)
    except (_Bad, InvalidValue) as exc:
        return Parsed(raw, str(exc), unmodelled=isinstance(exc, _Unmodelled))
    return Parsed(value, None, tuple(warnings))


_Child = tuple[str, str, dict[str, str], Any]


def _tags(ns: str, order: Sequence[str]) -> dict[str, tuple[str, int]]:
    """Clark-notation tag -> (local name, position in the schema's order)."""
    return {f"{{{ns}}}{local}": (local, i) for i, local in enumerate(order)}


def _children(
    el: Any,
    ns: str,
    tags: Mapping[str, tuple[str, int]],
    attrs: Mapping[str, frozenset[str]],
    warnings: list[str],
    unmodelled: frozenset[str] = frozenset(),
) -> list[_Child]:
    """(local name, stripped text, attributes, element) of each child, checked:

    every child in ``ns`` and named in ``tags``, no markup inside values, only the
    attributes ``attrs`` allows; out-of-order children are read and noted in ``warnings``.
    Written for speed (one dict lookup per child, few lxml property reads): a sitemap can
    hold a thousand images per URL.
    """
    prefix = PREFIXES.get(ns, "")
    if el.keys():
        raise _Unmodelled(
            f"<{_shown(el, prefix)}> has attributes {sorted(el.keys())} that urlset does not model"
        )
    text = el.text
    if text and not text.isspace():
        raise _Bad(f"<{_shown(el, prefix)}> holds text outside its child elements")
    out = []
    last = -1
    warned = False
    for child in el:
        tag = child.tag
        found = tags.get(tag)
        if found is None or found[0] in unmodelled:
            if not isinstance(tag, str):
                continue  # a comment or processing instruction kept by a caller's parser
            cns, _, local = tag[1:].partition("}") if tag[:1] == "{" else ("", "", tag)
            shown = f"{prefix}:{local}" if cns == ns else f"{{{cns}}}{local}"
            raise _Unmodelled(
                f"<{_shown(el, prefix)}> holds <{shown}>, which urlset does not model"
            )
        local, position = found
        tail = child.tail
        if tail and not tail.isspace():
            raise _Bad(f"<{_shown(el, prefix)}> holds text outside its child elements")
        if position < last:
            if not warned:
                warned = True
                order = sorted(tags.values(), key=lambda item: item[1])
                warnings.append(
                    f"<{prefix}:{local}> comes after <{prefix}:{order[last][0]}>; "
                    f"the schema's order is {', '.join(name for name, _ in order)}"
                )
        else:
            last = position
        keys = child.keys()
        if keys:
            extra = set(keys) - attrs.get(local, frozenset())
            if extra:
                raise _Unmodelled(
                    f"<{prefix}:{local}> has attributes {sorted(extra)} that urlset does not model"
                )
            values = dict(child.items())
        else:
            values = {}
        if len(child) and local != "publication":
            raise _Bad(f"<{prefix}:{local}> holds markup; a value was expected")
        value = child.text
        out.append((local, value.strip() if value else "", values, child))
    return out


def _shown(el: Any, prefix: str) -> str:
    return f"{prefix}:{el.tag.partition('}')[2]}"


def _single(
    items: list[_Child],
    prefix: str,
    repeatable: frozenset[str] = frozenset(),
) -> None:
    names = [item[0] for item in items]
    if len(set(names)) == len(names):
        return
    seen: set[str] = set()
    for local in names:
        if local in seen and local not in repeatable:
            raise _Bad(f"<{prefix}:{local}> given twice")
        seen.add(local)


_IMAGE_TAGS = _tags(IMAGE_NS, ("loc", "caption", "geo_location", "title", "license"))


def _read_image(el: Any, warnings: list[str]) -> Image:
    # the usual shape first (children once each, in order, plain text): about half the cost
    # of the general reading below, which handles and explains everything else
    if not el.keys():
        text = el.text
        if not text or text.isspace():
            values: dict[str, str] = {}
            last = -1
            tags = _IMAGE_TAGS
            for child in el:
                found = tags.get(child.tag)
                if found is None or found[1] <= last or len(child) or child.keys():
                    break
                tail = child.tail
                if tail and not tail.isspace():
                    break
                last = found[1]
                value = child.text
                values[found[0]] = value.strip() if value else ""
            else:
                loc = values.get("loc")
                if loc:
                    return Image(
                        loc,
                        values.get("caption") or None,
                        values.get("geo_location") or None,
                        values.get("title") or None,
                        values.get("license") or None,
                    )
    items = _children(el, IMAGE_NS, _IMAGE_TAGS, {}, warnings)
    _single(items, "image")
    values = {local: text for local, text, _, _ in items}
    if "loc" not in values:
        raise _Bad("<image:image> without <image:loc>")
    return Image(
        values["loc"],
        values.get("caption") or None,
        values.get("geo_location") or None,
        values.get("title") or None,
        values.get("license") or None,
    )


_VIDEO_ORDER = (
    "thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
    "expiration_date", "rating", "content_segment_loc", "view_count", "publication_date", "tag",
    "category", "family_friendly", "restriction", "gallery_loc", "price", "requires_subscription",
    "uploader", "tvshow", "platform", "live", "id",
)  # fmt: skip
_VIDEO_TAGS = _tags(VIDEO_NS, _VIDEO_ORDER)
# in the schema, not (yet) typed: a video holding them stays raw
_VIDEO_UNMODELLED = frozenset({"content_segment_loc", "tvshow", "id"})
_VIDEO_ATTRS = {
    "player_loc": frozenset({"allow_embed", "autoplay"}),
    "restriction": frozenset({"relationship"}),
    "platform": frozenset({"relationship"}),
    "gallery_loc": frozenset({"title"}),
    "price": frozenset({"currency", "type", "resolution"}),
    "uploader": frozenset({"info"}),
}


def _read_video(el: Any, warnings: list[str]) -> Video:
    items = _children(el, VIDEO_NS, _VIDEO_TAGS, _VIDEO_ATTRS, warnings, _VIDEO_UNMODELLED)
    _single(items, "video", frozenset({"tag", "price"}))
    v: dict[str, Any] = {}
    tags: list[str] = []
    prices: list[Price] = []
    for local, text, attrs, _ in items:
        if local == "tag":
            tags.append(text)
        elif local == "price":
            prices.append(
                Price(text, attrs.get("currency", ""), attrs.get("type"), attrs.get("resolution"))
            )
        elif local == "player_loc":
            v["player_loc"] = text
            v["player_allow_embed"] = attrs.get("allow_embed")
            v["player_autoplay"] = attrs.get("autoplay")
        elif local in ("restriction", "platform"):
            v[local] = Relationship(attrs.get("relationship", ""), tuple(text.split()))  # type: ignore[arg-type]
        elif local == "gallery_loc":
            v["gallery_loc"] = text
            v["gallery_title"] = attrs.get("title")
        elif local == "uploader":
            v["uploader"] = text
            v["uploader_info"] = attrs.get("info")
        else:
            v[local] = text if text else None
    for required in ("thumbnail_loc", "title", "description"):
        if required not in v:
            raise _Bad(f"<video:video> without <video:{required}>")
    return Video(tags=tuple(tags), prices=tuple(prices), **v)


_NEWS_ORDER = (
    "publication",
    "access",
    "genres",
    "publication_date",
    "title",
    "keywords",
    "stock_tickers",
)
_NEWS_TAGS = _tags(NEWS_NS, _NEWS_ORDER)
_PUBLICATION_TAGS = _tags(NEWS_NS, ("name", "language"))


def _read_news(el: Any, warnings: list[str]) -> News:
    items = _children(el, NEWS_NS, _NEWS_TAGS, {}, warnings)
    _single(items, "news")
    values = {local: text for local, text, _, _ in items}
    publication = next((child for local, _, _, child in items if local == "publication"), None)
    if publication is None:
        raise _Bad("<news:news> without <news:publication>")
    pub = _children(publication, NEWS_NS, _PUBLICATION_TAGS, {}, warnings)
    _single(pub, "news")
    names = {local: text for local, text, _, _ in pub}
    for required in ("name", "language"):
        if required not in names:
            raise _Bad(f"<news:publication> without <news:{required}>")
    for required in ("publication_date", "title"):
        if required not in values:
            raise _Bad(f"<news:news> without <news:{required}>")
    return News(
        names["name"],
        names["language"],
        values["publication_date"],  # type: ignore[arg-type]  # checked by News
        values["title"],
        values.get("access") or None,
        values.get("genres") or (),  # type: ignore[arg-type]
        values.get("keywords") or (),  # type: ignore[arg-type]
        values.get("stock_tickers") or (),  # type: ignore[arg-type]
    )


def _read_link(el: Any, warnings: list[str]) -> Alternate:
    attrs = dict(el.attrib)
    if len(el) or (el.text or "").strip():
        raise _Bad("<xhtml:link> has content; it should be empty")
    if attrs.get("rel", "").strip().lower() != "alternate":
        raise _Bad(f'<xhtml:link rel={attrs.get("rel")!r}>: only rel="alternate" is typed')
    extra = set(attrs) - {"rel", "hreflang", "href"}
    if extra:
        raise _Unmodelled(f"<xhtml:link> has attributes {sorted(extra)} that urlset does not model")
    if "hreflang" not in attrs or "href" not in attrs:
        raise _Bad('<xhtml:link rel="alternate"> needs both hreflang and href')
    return Alternate(attrs["hreflang"], attrs["href"])


_READERS: dict[tuple[str, str], _Reader] = {
    (IMAGE_NS, "image"): _read_image,
    (VIDEO_NS, "video"): _read_video,
    (NEWS_NS, "news"): _read_news,
    (XHTML_NS, "link"): _read_link,
}


# ---------------------------------------------------------------- JSON


def _json_value(value: object) -> object:
    if isinstance(value, (Relationship, Price)):
        return value.to_json()
    if isinstance(value, tuple):
        return [_json_value(v) for v in value]
    if hasattr(value, "isoformat") and not isinstance(value, str):
        return format_w3c(value)  # type: ignore[arg-type]
    return value


def to_json(value: Extension) -> dict[str, Any]:
    """A typed value as a JSON object: its fields by name, absent ones left out."""
    out: dict[str, Any] = {}
    for f in fields(value):
        item = getattr(value, f.name)
        if item is None or item == ():
            continue
        out[f.name] = _json_value(item)
    return out


_KINDS: dict[str, type[Image] | type[Video] | type[News] | type[Alternate]] = {
    cls.kind: cls for cls in TYPED
}
# the constructor arguments without a default, per kind
_REQUIRED = {
    kind: tuple(
        name
        for name, parameter in inspect.signature(cls).parameters.items()
        if parameter.default is parameter.empty
    )
    for kind, cls in _KINDS.items()
}


def from_json(kind: str, data: object) -> Extension:
    """Build the value of ``kind`` (images, videos, news, alternates) from a JSON object."""
    cls = _KINDS.get(kind)
    if cls is None:
        raise InvalidValue("extension kind", kind, f"must be one of {', '.join(_KINDS)}")
    if not isinstance(data, Mapping):
        raise InvalidValue(kind, data, "each item must be a JSON object")
    names = {f.name for f in fields(cls)}
    unknown = set(data) - names
    if unknown:
        raise InvalidValue(
            kind, sorted(unknown), f"unknown fields; the fields are {', '.join(sorted(names))}"
        )
    missing = [name for name in _REQUIRED[kind] if name not in data]
    if missing:
        raise InvalidValue(kind, None, f"missing {', '.join(missing)}")
    args = dict(data)
    for key in ("tags", "genres", "keywords", "stock_tickers"):
        if isinstance(args.get(key), list):
            args[key] = tuple(args[key])
    return cls(**args)


JSON_KEYS = ("images", "videos", "news", "alternates", "extensions")


def json_fields(extensions: Iterable[object]) -> dict[str, Any]:
    """A ``<url>``'s extensions as entry-level JSON keys (only the keys that have values).

    ``news`` is an object when the URL has one article (the usual case), else a list.
    """
    out: dict[str, Any] = {}
    for ext in extensions:
        cls = type(ext)
        if cls in TYPED:
            out.setdefault(cls.kind, []).append(to_json(ext))  # type: ignore[arg-type]
        else:
            raw: Any = ext
            out.setdefault("extensions", []).append(
                {"namespace": raw.namespace, "name": raw.name, "xml": raw.xml}
            )
    news = out.get("news")
    if news is not None and len(news) == 1:
        out["news"] = news[0]
    return {key: out[key] for key in JSON_KEYS if key in out}


def from_json_fields(data: Mapping[str, Any]) -> tuple[Extension | RawElement, ...]:
    """The extensions named by the entry-level keys of ``json_fields`` (others are ignored).

    Raw ``extensions`` items stay raw: they are written back exactly as given.
    """
    out: list[Extension | RawElement] = []
    for kind in ("images", "videos", "news", "alternates"):
        items = data.get(kind)
        if items is None:
            continue
        if kind == "news" and isinstance(items, Mapping):
            items = [items]
        if not isinstance(items, list):
            raise InvalidValue(kind, items, "must be a list of objects")
        out.extend(from_json(kind, item) for item in items)
    raws = data.get("extensions")
    if raws is not None:
        if not isinstance(raws, list):
            raise InvalidValue("extensions", raws, "must be a list of {namespace, name, xml}")
        for item in raws:
            if not isinstance(item, Mapping) or not {"namespace", "name", "xml"} <= set(item):
                raise InvalidValue(
                    "extensions", item, "each must be an object with namespace, name, xml"
                )
            out.append(RawElement(str(item["namespace"]), str(item["name"]), str(item["xml"])))
    return tuple(out)

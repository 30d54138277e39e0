"""The video extension: ``<video:video>`` as the value ``Video``, with ``Price`` and
``Relationship`` (restriction, platform) for its structured children.

Here: the values (checked on construction; ``body()`` writes the children in the schema's
order), the reader from an lxml element, the video codes and the per-URL rule.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from datetime import datetime
from decimal import Decimal
from typing import Any, ClassVar, Literal, TypeVar

from ..codes import Code
from ..dates import Lastmod, format_w3c
from ..errors import InvalidValue
from ..model import Issue, Severity, Url
from ..patterns import lazy
from .common import (
    ExtensionSpec,
    Note,
    Untypable,
    checked_children,
    coded_issue,
    declared,
    no_repeats,
    schema_tags,
    shown,
    without_faults,
)
from .field_checks import (
    escape,
    format_decimal,
    optional_date,
    optional_text,
    optional_uri,
    required_text,
    required_uri,
    set_field,
    text_list,
    trusted_maker,
    whole_number,
    yes_no,
)

VIDEO_NS = "http://www.google.com/schemas/sitemap-video/1.1"
PREFIX = "video"
MAX_VIDEO_TITLE = 100  # sitemap-video.xsd: title maxLength 100
MAX_VIDEO_DESCRIPTION = 2_048  # sitemap-video.xsd: description maxLength 2048
MAX_VIDEO_DURATION = 28_800  # seconds (8 hours); Google: 1 to 28,800
MAX_VIDEO_TAGS = 32  # sitemap-video.xsd: tag maxOccurs 32
MAX_VIDEO_CATEGORY = 256  # sitemap-video.xsd: category maxLength 256
MAX_VIDEO_UPLOADER = 255  # Google: uploader name at most 255 characters

_COUNTRY = lazy(r"[A-Z]{2}")
_CURRENCY = lazy(r"[A-Z]{3}")
_AMOUNT = lazy(r"\d+(?:\.\d+)?")


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
        set_field(self, "relationship", rel.strip().lower())
        values = self.values
        if isinstance(values, str):
            values = tuple(values.split())
        elif not isinstance(values, tuple):
            values = tuple(values)
        set_field(self, "values", values)

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
        set_field(self, "amount", amount.strip())
        currency = self.currency
        if not isinstance(currency, str) or not _CURRENCY.fullmatch(currency.strip().upper()):
            raise InvalidValue("video price currency", currency, "must be an ISO 4217 code (EUR)")
        set_field(self, "currency", currency.strip().upper())
        for name, allowed in (("type", ("rent", "purchase")), ("resolution", ("sd", "hd"))):
            value = getattr(self, name)
            if value is None:
                continue
            if not isinstance(value, str) or value.strip().lower() not in allowed:
                raise InvalidValue(f"video price {name}", value, f"must be {' or '.join(allowed)}")
            set_field(self, name, value.strip().lower())

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
        set_field(s, "thumbnail_loc", required_uri("video thumbnail_loc", s.thumbnail_loc))
        set_field(s, "title", required_text("video title", s.title, limit=MAX_VIDEO_TITLE))
        set_field(
            s,
            "description",
            required_text("video description", s.description, limit=MAX_VIDEO_DESCRIPTION),
        )
        set_field(s, "content_loc", optional_uri("video content_loc", s.content_loc))
        set_field(s, "player_loc", optional_uri("video player_loc", s.player_loc))
        if s.content_loc is None and s.player_loc is None:
            raise InvalidValue("video", s.title, "needs a content_loc or a player_loc (or both)")
        set_field(
            s, "player_allow_embed", yes_no("video player_loc allow_embed", s.player_allow_embed)
        )
        set_field(
            s,
            "player_autoplay",
            optional_text("video player_loc autoplay", s.player_autoplay, attribute=True),
        )
        if s.player_loc is None and (s.player_allow_embed is not None or s.player_autoplay):
            raise InvalidValue("video player_loc", None, "is missing but has attributes")
        set_field(s, "duration", whole_number("video duration", s.duration, 1, MAX_VIDEO_DURATION))
        set_field(s, "expiration_date", optional_date("video expiration_date", s.expiration_date))
        set_field(s, "rating", _rating(s.rating))
        set_field(s, "view_count", whole_number("video view_count", s.view_count, 0, None))
        set_field(
            s, "publication_date", optional_date("video publication_date", s.publication_date)
        )
        tags = (
            text_list("video tag", s.tags)
            if not isinstance(s.tags, str)
            else (required_text("video tag", s.tags),)
        )
        if len(tags) > MAX_VIDEO_TAGS:
            raise InvalidValue("video tags", len(tags), f"at most {MAX_VIDEO_TAGS} tags per video")
        set_field(s, "tags", tags)
        set_field(
            s, "category", optional_text("video category", s.category, limit=MAX_VIDEO_CATEGORY)
        )
        set_field(s, "family_friendly", yes_no("video family_friendly", s.family_friendly))
        restriction = _relationship("video restriction", s.restriction)
        set_field(s, "restriction", restriction and restriction._as_countries())
        set_field(s, "gallery_loc", optional_uri("video gallery_loc", s.gallery_loc))
        set_field(
            s,
            "gallery_title",
            optional_text("video gallery_loc title", s.gallery_title, attribute=True),
        )
        if s.gallery_loc is None and s.gallery_title is not None:
            raise InvalidValue("video gallery_loc", None, "is missing but has a title")
        set_field(s, "prices", _prices(s.prices))
        set_field(
            s,
            "requires_subscription",
            yes_no("video requires_subscription", s.requires_subscription),
        )
        set_field(
            s, "uploader", optional_text("video uploader", s.uploader, limit=MAX_VIDEO_UPLOADER)
        )
        set_field(s, "uploader_info", optional_uri("video uploader info", s.uploader_info))
        if s.uploader is None and s.uploader_info is not None:
            raise InvalidValue("video uploader", None, "is missing but has an info URL")
        platform = _relationship("video platform", s.platform)
        set_field(s, "platform", platform and platform._as_platforms())
        set_field(s, "live", yes_no("video live", s.live))

    def body(self) -> str:
        p = [
            "<video:video><video:thumbnail_loc>",
            escape(self.thumbnail_loc),
            "</video:thumbnail_loc>",
        ]
        p += ["<video:title>", escape(self.title), "</video:title>"]
        p += ["<video:description>", escape(self.description), "</video:description>"]
        if self.content_loc is not None:
            p += ["<video:content_loc>", escape(self.content_loc), "</video:content_loc>"]
        if self.player_loc is not None:
            attrs = ""
            if self.player_allow_embed is not None:
                attrs += f' allow_embed="{_yn(self.player_allow_embed)}"'
            if self.player_autoplay is not None:
                attrs += f' autoplay="{escape(self.player_autoplay)}"'
            p += [f"<video:player_loc{attrs}>", escape(self.player_loc), "</video:player_loc>"]
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
            p += ["<video:tag>", escape(tag), "</video:tag>"]
        if self.category is not None:
            p += ["<video:category>", escape(self.category), "</video:category>"]
        if self.family_friendly is not None:
            p.append(f"<video:family_friendly>{_yn(self.family_friendly)}</video:family_friendly>")
        if self.restriction is not None:
            r = self.restriction
            p.append(
                f'<video:restriction relationship="{r.relationship}">{" ".join(r.values)}</video:restriction>'
            )
        if self.gallery_loc is not None:
            title = "" if self.gallery_title is None else f' title="{escape(self.gallery_title)}"'
            p += [f"<video:gallery_loc{title}>", escape(self.gallery_loc), "</video:gallery_loc>"]
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
            info = "" if self.uploader_info is None else f' info="{escape(self.uploader_info)}"'
            p += [f"<video:uploader{info}>", escape(self.uploader), "</video:uploader>"]
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
        return declared(self.body(), PREFIX, self.namespace, self.name)


# the fields the compiled tokenizer types, in its order, and the others with their values
_TYPED_BY_CORE = (
    "thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
    "expiration_date", "rating", "view_count", "publication_date", "tags", "category",
    "family_friendly", "requires_subscription", "uploader", "live",
)  # fmt: skip
_UNTYPED_BY_CORE = {f.name: f.default for f in fields(Video) if f.name not in _TYPED_BY_CORE}


# a Video of the fields the reader's compiled tokenizer types (``_TYPED_BY_CORE``), checked
# as ``__post_init__`` checks them (rust/core/src/read/media.rs), the others their defaults
trusted_video = trusted_maker(Video, _TYPED_BY_CORE, _UNTYPED_BY_CORE)


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


# ---------------------------------------------------------------- reading an lxml element

VIDEO_CHILDREN = (
    "thumbnail_loc", "title", "description", "content_loc", "player_loc", "duration",
    "expiration_date", "rating", "content_segment_loc", "view_count", "publication_date", "tag",
    "category", "family_friendly", "restriction", "gallery_loc", "price", "requires_subscription",
    "uploader", "tvshow", "platform", "live", "id",
)  # fmt: skip
_VIDEO_TAGS = schema_tags(VIDEO_NS, VIDEO_CHILDREN)
# in the schema but not typed: a video holding them stays as written (nothing is lost on a
# round trip), and the reader says so
_VIDEO_UNMODELLED = frozenset({"content_segment_loc", "tvshow", "id"})
_VIDEO_ATTRS = {
    "player_loc": frozenset({"allow_embed", "autoplay"}),
    "restriction": frozenset({"relationship"}),
    "platform": frozenset({"relationship"}),
    "gallery_loc": frozenset({"title"}),
    "price": frozenset({"currency", "type", "resolution"}),
    "uploader": frozenset({"info"}),
}
# InvalidValue's field -> (the child as written, the keys it gives): what a video is read
# without when its value is at fault (sitemap-video.xsd: minOccurs=0). content_loc and
# player_loc are optional each; a video left with neither is not typed.
_OPTIONAL: dict[str, tuple[str, tuple[str, ...]]] = {
    "video content_loc": ("video:content_loc", ("content_loc",)),
    "video player_loc": (
        "video:player_loc",
        ("player_loc", "player_allow_embed", "player_autoplay"),
    ),
    "video player_loc allow_embed": ("video:player_loc allow_embed", ("player_allow_embed",)),
    "video player_loc autoplay": ("video:player_loc autoplay", ("player_autoplay",)),
    **{
        f"video {name}": (f"video:{name}", (name,))
        for name in (
            "duration", "expiration_date", "rating", "view_count", "publication_date",
            "category", "family_friendly", "restriction", "requires_subscription", "platform",
            "live",
        )
    },
    "video gallery_loc": ("video:gallery_loc", ("gallery_loc", "gallery_title")),
    "video gallery_loc title": ("video:gallery_loc title", ("gallery_title",)),
    "video uploader": ("video:uploader", ("uploader", "uploader_info")),
    "video uploader info": ("video:uploader info", ("uploader_info",)),
}  # fmt: skip
_DROPPED = "video-field-dropped"


def _read_video(el: Any, warnings: list[str]) -> Video:
    items = checked_children(
        el,
        VIDEO_NS,
        PREFIX,
        _VIDEO_TAGS,
        _VIDEO_ATTRS,
        warnings,
        _VIDEO_UNMODELLED,
        unmodelled_code="video-kept-as-written",
    )
    no_repeats(items, PREFIX, frozenset({"tag", "price"}))
    v: dict[str, Any] = {}
    tags: list[str] = []
    prices: list[Price] = []
    for local, text, attrs, _ in items:
        if local == "tag":
            tag = _kept(warnings, "video:tag", text, required_text, "video tag", text)
            if tag is not None:
                tags.append(tag)
        elif local == "price":
            price = _kept(
                warnings,
                "video:price",
                text,
                Price,
                text,
                attrs.get("currency", ""),
                attrs.get("type"),
                attrs.get("resolution"),
            )
            if price is not None:
                prices.append(price)
        elif local == "player_loc":
            v["player_loc"] = text
            v["player_allow_embed"] = attrs.get("allow_embed")
            v["player_autoplay"] = attrs.get("autoplay")
        elif local in ("restriction", "platform"):
            relationship = attrs.get("relationship", "")
            v[local] = _kept(
                warnings,
                f"video:{local} relationship",
                relationship,
                Relationship,
                relationship,
                tuple(text.split()),
            )
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
            raise Untypable(f"<video:video> without <video:{required}>")
    if len(tags) > MAX_VIDEO_TAGS:
        warnings.append(
            Note(
                _DROPPED,
                f"<video:tag> {len(tags)} tags; the schema allows {MAX_VIDEO_TAGS}: "
                f"the video is read with the first {MAX_VIDEO_TAGS}",
            )
        )
        tags = tags[:MAX_VIDEO_TAGS]
    v["tags"], v["prices"] = tuple(tags), tuple(prices)
    return without_faults(_video, v, _OPTIONAL, warnings, _DROPPED, "video")


def _video(values: dict[str, Any]) -> Video:
    return Video(**values)


_T = TypeVar("_T")


def _kept(
    warnings: list[str], child: str, written: str, make: Callable[..., _T], *args: Any
) -> _T | None:
    """``make(*args)``: one of a video's repeated or structured children (a tag, a price, a
    restriction or platform); None, noted in ``warnings``, when its value is at fault."""
    try:
        return make(*args)
    except InvalidValue as exc:
        warnings.append(
            Note(
                _DROPPED, f"<{child}> {shown(written)}: {exc.reason}; the video is read without it"
            )
        )
        return None


# ---------------------------------------------------------------- codes and per-URL rules

CODES: dict[str, Code] = {
    "invalid-video": Code(
        Severity.ERROR,
        "video extension not valid",
        "a video needs thumbnail_loc, title (<= 100 chars), description (<= 2,048 chars) and "
        "content_loc or player_loc; duration 1-28,800 s, rating 0.0-5.0, yes/no flags",
    ),
    "video-field-dropped": Code(
        Severity.WARNING,
        "video field not valid; the video is read without it",
        "the message names the field and its value; fix it or leave it out (thumbnail_loc, "
        "title, description and content_loc or player_loc are required, the rest optional)",
    ),
    "video-kept-as-written": Code(
        Severity.INFO,
        "video kept as written",
        "the video holds a child of the official schema that urlset does not type "
        "(content_segment_loc, tvshow, id); it is kept and written back unchanged",
    ),
    "video-loc-is-page": Code(
        Severity.ERROR,
        "video URL is the page URL",
        "content_loc must be the media file and player_loc the player; neither may equal "
        "the <loc> of the page",
    ),
}


def video_loc_is_page(url: Url, now: datetime | None = None) -> list[Issue]:
    out = []
    for e in url.extensions:
        if type(e) is Video:
            for name in ("content_loc", "player_loc"):
                if getattr(e, name) == url.loc:
                    out.append(
                        coded_issue(
                            CODES,
                            "video-loc-is-page",
                            f"{url.loc}: video {e.title!r} has {name} equal to the page URL",
                        )
                    )
    return out


def videos_off_the_page(url: Url) -> tuple[object, ...]:
    """The URL's extensions without a video whose content or player URL is the page."""
    return tuple(
        e
        for e in url.extensions
        if type(e) is not Video or url.loc not in (e.content_loc, e.player_loc)
    )


SPEC = ExtensionSpec(
    Video,
    PREFIX,
    _read_video,
    None,
    "invalid-video",
    CODES,
    (video_loc_is_page,),
    nested=(Relationship, Price),
    optional=_OPTIONAL,
    dropped=_DROPPED,
    item="video",
    repairs={"video-loc-is-page": (videos_off_the_page, "the video is left out")},
)

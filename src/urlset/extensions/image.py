"""The image extension: ``<image:image>`` as the value ``Image``.

Here: the value (checked on construction; ``body()`` writes it), its readers (from an lxml
element, from its own XML by regex, and a whole run of plain images in a ``<url>`` a column
at a time, for the reader's compiled lane), its codes and its per-URL rules. A sitemap may hold
a thousand images per URL, so every path here is written for speed.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from ..codes import Code
from ..errors import InvalidValue
from ..limits import MAX_LOC_LENGTH
from ..model import Issue, Severity, Url
from ..patterns import lazy
from ..urls import is_plain_uri
from .common import (
    ExtensionSpec,
    Untypable,
    checked_children,
    coded_issue,
    declared,
    no_repeats,
    plain_text,
    plain_written_uris,
    schema_tags,
    without_faults,
)
from .field_checks import (
    escape,
    optional_text,
    optional_uri,
    required_uri,
    set_field,
    trusted_maker,
    uri_as_written,
)

IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
PREFIX = "image"
MAX_IMAGES_PER_URL = 1_000  # image sitemaps: "up to 1,000 images" per <url> (Google)


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
        if not (type(loc) is str and len(loc) <= MAX_LOC_LENGTH and is_plain_uri(loc)):
            loc = required_uri("image loc", loc)
        set_field(self, "loc", loc)
        set_field(
            self, "caption", None if caption is None else optional_text("image caption", caption)
        )
        set_field(
            self,
            "geo_location",
            None if geo_location is None else optional_text("image geo_location", geo_location),
        )
        set_field(self, "title", None if title is None else optional_text("image title", title))
        set_field(
            self, "license", None if license is None else optional_uri("image license", license)
        )

    def body(self) -> str:
        loc, caption, geo, title, license_ = (
            self.loc,
            self.caption,
            self.geo_location,
            self.title,
            self.license,
        )
        if "&" in loc or "'" in loc:  # a URI: of the XML specials only these two occur
            loc = escape(loc)
        if caption is None and geo is None and license_ is None:  # the usual shapes
            if title is None:
                return f"<image:image><image:loc>{loc}</image:loc></image:image>"
            return (
                f"<image:image><image:loc>{loc}</image:loc>"
                f"<image:title>{escape(title)}</image:title></image:image>"
            )
        return (
            f"<image:image><image:loc>{loc}</image:loc>"
            + ("" if caption is None else f"<image:caption>{escape(caption)}</image:caption>")
            + ("" if geo is None else f"<image:geo_location>{escape(geo)}</image:geo_location>")
            + ("" if title is None else f"<image:title>{escape(title)}</image:title>")
            + ("" if license_ is None else f"<image:license>{escape(license_)}</image:license>")
            + "</image:image>"
        )

    @property
    def xml(self) -> str:
        return declared(self.body(), PREFIX, self.namespace, self.name)


# ---------------------------------------------------------------- reading an lxml element

IMAGE_CHILDREN = ("loc", "caption", "geo_location", "title", "license")  # the schema's order
# an Image of values already checked (a plain URI, stripped printable texts), no license
trusted_image = trusted_maker(Image, ("loc", "caption", "geo_location", "title"), {"license": None})
_IMAGE_TAGS = schema_tags(IMAGE_NS, IMAGE_CHILDREN)


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
                    try:
                        return Image(
                            loc,
                            values.get("caption") or None,
                            values.get("geo_location") or None,
                            values.get("title") or None,
                            values.get("license") or None,
                        )
                    except InvalidValue:
                        pass  # the reading below leaves out an optional field at fault
    items = checked_children(el, IMAGE_NS, PREFIX, _IMAGE_TAGS, {}, warnings)
    no_repeats(items, PREFIX)
    read: dict[str, str | None] = {local: text or None for local, text, _, _ in items}
    if "loc" not in read:
        raise Untypable("<image:image> without <image:loc>")
    read["loc"] = read["loc"] or ""  # an empty loc is reported as such
    return without_faults(_image, read, _OPTIONAL, warnings, "image-field-dropped", "image")


def _image(values: dict[str, Any]) -> Image:
    return Image(**values)


# InvalidValue's field -> (the child as written, the keys it gives): what an image is read
# without when its value is at fault (sitemap-image.xsd: all but loc are minOccurs=0)
_OPTIONAL = {
    f"image {name}": (f"image:{name}", (name,))
    for name in ("caption", "geo_location", "title", "license")
}


# ---------------------------------------------------------------- reading by regex

# Fast lane for the plain form writers use: one regex instead of an XML parse. Anything else
# (attributes, comments, character references, other entities, unusual layout) returns None
# and takes the full lxml reading, which gives the same value or explains why there is none.
_IMAGE_XML = lazy(
    r'<(?P<p>[A-Za-z_][\w.-]*):image xmlns:(?P=p)="http://www\.google\.com/schemas/sitemap-image/1\.1">\s*'
    r"<(?P=p):loc>(?P<loc>[^<]*)</(?P=p):loc>\s*"
    r"(?:<(?P=p):caption>(?P<caption>[^<]*)</(?P=p):caption>\s*)?"
    r"(?:<(?P=p):geo_location>(?P<geo>[^<]*)</(?P=p):geo_location>\s*)?"
    r"(?:<(?P=p):title>(?P<title>[^<]*)</(?P=p):title>\s*)?"
    r"(?:<(?P=p):license>(?P<license>[^<]*)</(?P=p):license>\s*)?"
    r"</(?P=p):image>"
)
# an image inside a document, its prefix bound on the root; groups: loc, caption,
# geo_location, title, license
RUN_IMAGE = (
    r"<{p}:image>\s*<{p}:loc>([^<]*)</{p}:loc>\s*"
    r"(?:<{p}:caption>([^<]*)</{p}:caption>\s*)?"
    r"(?:<{p}:geo_location>([^<]*)</{p}:geo_location>\s*)?"
    r"(?:<{p}:title>([^<]*)</{p}:title>\s*)?"
    r"(?:<{p}:license>([^<]*)</{p}:license>\s*)?</{p}:image>"
)


def image_from_texts(texts: Sequence[str | None]) -> Image | None:
    """The Image of the loc, caption, geo_location, title and license texts a regex captured
    (None for absent ones); None when one needs the full reading. Raises InvalidValue for a
    value an Image rejects."""
    values: list[str | None] = []
    for text in texts:
        if text is not None:
            if "&" in text:  # else plain_text would give it back as it is
                text = plain_text(text)
                if text is None:
                    return None
            text = text.strip() or None
        values.append(text)
    if values[0] is None or not all(uri_as_written(u) for u in (values[0], values[4]) if u):
        return None  # a URL its value makes a URI of: the full reading reports it
    return Image(*values)  # type: ignore[arg-type]


def _fast_image(xml: str) -> Image | None:
    m = _IMAGE_XML.fullmatch(xml)
    if m is None:
        return None
    return image_from_texts(m.group("loc", "caption", "geo", "title", "license"))


_IMAGE_SPLITS: dict[str, re.Pattern[str]] = {}


def _image_split(prefix: str) -> re.Pattern[str]:
    found = _IMAGE_SPLITS.get(prefix)
    if found is None:
        found = _IMAGE_SPLITS[prefix] = re.compile(RUN_IMAGE.format(p=re.escape(prefix)))
    return found


def fast_images(fragment: str, prefix: str) -> tuple[Image, ...] | None:
    """A run of plain ``<image:image>`` elements (loc, and caption, geo_location or title as
    printable text) typed a column at a time: one split, the locs proven plain URIs in one
    pass, the texts in another, and the values built without checking them again. None when
    anything in the run needs the one-by-one path."""
    parts = _image_split(prefix).split(fragment)
    if len(parts) < 7 or "".join(parts[0::6]).strip():
        return None  # nothing but whitespace may lie between the images
    if any(parts[5::6]):
        return None  # a license is a URI of its own: the one-by-one path checks it
    locs = plain_written_uris(parts[1::6])
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
    return tuple(map(trusted_image, locs, *columns))


# ---------------------------------------------------------------- codes and per-URL rules

CODES: dict[str, Code] = {
    "invalid-image": Code(
        Severity.ERROR,
        "image extension not valid",
        "<image:image> needs an absolute <image:loc>; see the message for the field at fault",
    ),
    "too-many-images": Code(
        Severity.ERROR, "more than 1,000 images", "list at most 1,000 <image:image> per <url>"
    ),
    "image-field-dropped": Code(
        Severity.WARNING,
        "image field not valid; the image is read without it",
        "the message names the field and its value; fix it or leave it out (only "
        "<image:loc> is required, and Google no longer uses the other fields)",
    ),
    "image-deprecated-field": Code(
        Severity.INFO,
        "image field no longer used",
        "Google ignores image caption, title, geo_location and license since 2022; "
        "they are harmless but can be dropped",
    ),
}


def too_many_images(url: Url, now: datetime | None = None) -> list[Issue]:
    count = sum(1 for e in url.extensions if type(e) is Image)
    if count <= MAX_IMAGES_PER_URL:
        return []
    return [
        coded_issue(CODES, "too-many-images", f"{url.loc}: {count:,} images; the limit is 1,000")
    ]


def within_image_limit(url: Url) -> tuple[object, ...]:
    """The URL's extensions with its first 1,000 images only."""
    kept: list[object] = []
    images = 0
    for e in url.extensions:
        if type(e) is Image:
            images += 1
            if images > MAX_IMAGES_PER_URL:
                continue
        kept.append(e)
    return tuple(kept)


def image_deprecated_fields(url: Url, now: datetime | None = None) -> list[Issue]:
    used: Counter[str] = Counter()
    for e in url.extensions:
        if type(e) is Image:
            for name in ("caption", "title", "geo_location", "license"):
                if getattr(e, name) is not None:
                    used[name] += 1
    if not used:
        return []
    fields = ", ".join(f"{name} ({count})" for name, count in used.items())
    return [deprecated_fields_issue(url.loc, fields)]


def deprecated_fields_issue(loc: str, fields: str) -> Issue:
    """``image-deprecated-field`` for the page ``loc`` whose images use ``fields`` ("title
    (2), caption (1)"; the compiled core names them alike: rust/core/src/values/image.rs)."""
    return coded_issue(CODES, "image-deprecated-field", f"{loc}: images use {fields}")


SPEC = ExtensionSpec(
    Image,
    PREFIX,
    _read_image,
    _fast_image,
    "invalid-image",
    CODES,
    (too_many_images, image_deprecated_fields),
    optional=_OPTIONAL,
    dropped="image-field-dropped",
    item="image",
    repairs={"too-many-images": (within_image_limit, "the images past the 1,000th are left out")},
)

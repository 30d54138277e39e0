"""The hreflang extension: ``<xhtml:link rel="alternate" hreflang=".." href=".."/>`` as the
value ``Alternate``, and ``hreflang_code`` for the codes.

Here: the value (checked on construction), its readers (from an lxml element, from its own
XML by regex, and a whole run of plain links in a ``<url>`` a column at a time, for a
reader's regex lane), the hreflang codes and the per-URL rules. Whether the variants link
back to each other needs the whole set: ``reciprocity.Reciprocity`` checks that (it keeps
its own module: it holds the set, in the compiled core).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from ..codes import Code
from ..errors import InvalidValue
from ..model import Issue, Severity, Url
from ..patterns import lazy
from .common import (
    ExtensionSpec,
    Unmodelled,
    Untypable,
    coded_issue,
    declared,
    plain_text,
    plain_written_uris,
)
from .field_checks import (
    ISO_639_1,
    ISO_3166_1,
    escape,
    required_uri,
    set_field,
    trusted_maker,
    uri_as_written,
)

XHTML_NS = "http://www.w3.org/1999/xhtml"
PREFIX = "xhtml"

_HREFLANG = lazy(r"([A-Za-z]{2,3})(?:-([A-Za-z]{4}))?(?:-([A-Za-z]{2}|[0-9]{3}))?")
_REGION_HINTS = {"UK": "GB", "EL": "GR", "EN": "GB or US"}


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
        set_field(self, "hreflang", hreflang_code(self.hreflang))
        set_field(self, "href", required_uri("alternate href", self.href))

    def body(self) -> str:
        return (
            f'<xhtml:link rel="alternate" hreflang="{self.hreflang}" href="{escape(self.href)}"/>'
        )

    @property
    def xml(self) -> str:
        return declared(self.body(), PREFIX, self.namespace, self.name)


# ---------------------------------------------------------------- reading an lxml element


def _read_link(el: Any, warnings: list[str]) -> Alternate:
    attrs = dict(el.attrib)
    if len(el) or (el.text or "").strip():
        raise Untypable("<xhtml:link> has content; it should be empty")
    if attrs.get("rel", "").strip().lower() != "alternate":
        raise Untypable(f'<xhtml:link rel={attrs.get("rel")!r}>: only rel="alternate" is typed')
    extra = set(attrs) - {"rel", "hreflang", "href"}
    if extra:
        raise Unmodelled(f"<xhtml:link> has attributes {sorted(extra)} that urlset does not model")
    if "hreflang" not in attrs or "href" not in attrs:
        raise Untypable('<xhtml:link rel="alternate"> needs both hreflang and href')
    return Alternate(attrs["hreflang"], attrs["href"])


# ---------------------------------------------------------------- reading by regex

# Fast lane for the plain form writers use: one regex instead of an XML parse. Anything else
# returns None and takes the full lxml reading, which gives the same value or explains why
# there is none.
_LINK_XML = lazy(
    r'<(?P<p>[A-Za-z_][\w.-]*):link xmlns:(?P=p)="http://www\.w3\.org/1999/xhtml"'
    r'(?P<attrs>(?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*/>'
)
_ATTR = lazy(r'\s+([A-Za-z_][\w.:-]*)="([^"<]*)"')
# a link inside a document, its prefix bound on the root (as {q}); group: its attributes
RUN_LINK = r'<{q}:link((?:\s+[A-Za-z_][\w.:-]*="[^"<]*")*)\s*/>'


def alternate_from_attrs(written: str) -> Alternate | None:
    """The Alternate of a link's attributes as a regex captured them (rel, hreflang, href);
    None when they need the full reading. Raises InvalidValue for a value an Alternate
    rejects."""
    found = _ATTR.findall(written)
    attrs = dict(found)
    # an attribute given twice is not well-formed: libxml2 reports it (the full reading)
    if len(found) != 3 or len(attrs) != 3 or attrs.get("rel", "").strip().lower() != "alternate":
        return None
    hreflang, href = attrs.get("hreflang"), attrs.get("href")
    if href is not None and "&" in href:  # else plain_text would give it back as it is
        href = plain_text(href)
    if hreflang is None or href is None or not uri_as_written(href):
        return None  # a URL its value makes a URI of: the full reading reports it
    return Alternate(hreflang, href)


def _fast_link(xml: str) -> Alternate | None:
    m = _LINK_XML.fullmatch(xml)
    if m is None:
        return None
    return alternate_from_attrs(m.group("attrs"))


# an Alternate of values already checked (a canonical code, a plain URI)
trusted_link = trusted_maker(Alternate, ("hreflang", "href"))


_LINK_SPLITS: dict[str, re.Pattern[str]] = {}
_HREFLANG_CODES: dict[str, str] = {}  # hreflang as written -> canonical, for valid ones
_HREFLANG_WRITTEN = lazy(r"[A-Za-z0-9_\-]+")


def fast_links(fragment: str, prefix: str) -> tuple[Alternate, ...] | None:
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
    hrefs = plain_written_uris(parts[2::3])
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
    return tuple(map(trusted_link, map(codes.__getitem__, written), hrefs))


# ---------------------------------------------------------------- codes and per-URL rules

CODES: dict[str, Code] = {
    "invalid-alternate": Code(
        Severity.ERROR,
        "hreflang alternate not valid",
        'write <xhtml:link rel="alternate" hreflang="en-GB" href="https://..."/>: an ISO 639-1 '
        "language, optionally an ISO 3166-1 region, or x-default; an absolute href",
    ),
    "hreflang-missing-self": Code(
        Severity.WARNING,
        "page does not list itself",
        "each page's alternates include the page itself, with its own hreflang",
    ),
    "hreflang-duplicate": Code(
        Severity.ERROR,
        "hreflang given twice",
        "one hreflang value names one URL; remove the second link or correct its code",
    ),
    # the set-wide ones, reported by rules.SetChecks from reciprocity.Reciprocity
    "hreflang-not-reciprocal": Code(
        Severity.WARNING,
        "missing hreflang return link",
        "every variant must list all the others and itself, or the annotations are ignored",
    ),
    "hreflang-unlisted": Code(
        Severity.WARNING,
        "variant lists no alternates",
        "the variant is in this set but has no hreflang links; give it the same set of links",
    ),
    "hreflang-unverified": Code(
        Severity.INFO,
        "variant not in this set",
        "its return links could not be checked here; check the sitemap or page that lists it",
    ),
}


def hreflang_missing_self(url: Url, now: datetime | None = None) -> list[Issue]:
    links = [e for e in url.extensions if type(e) is Alternate]
    if not links or any(link.href == url.loc for link in links):
        return []
    return [missing_self_issue(url.loc, ", ".join(link.hreflang for link in links))]


def missing_self_issue(loc: str, codes: str) -> Issue:
    """``hreflang-missing-self`` for the page ``loc`` whose links name ``codes`` ("en, de";
    the compiled core names them alike: rust/core/src/values/alternate.rs)."""
    return coded_issue(
        CODES,
        "hreflang-missing-self",
        f"{loc}: lists alternates ({codes}) but none points to the page itself",
    )


def hreflang_duplicate(url: Url, now: datetime | None = None) -> list[Issue]:
    seen: dict[str, str] = {}
    out = []
    for e in url.extensions:
        if type(e) is not Alternate:
            continue
        first = seen.setdefault(e.hreflang.lower(), e.href)
        if first != e.href:
            out.append(
                coded_issue(
                    CODES,
                    "hreflang-duplicate",
                    f"{url.loc}: hreflang {e.hreflang!r} names both {first} and {e.href}",
                )
            )
    return out


def first_href_per_hreflang(url: Url) -> tuple[object, ...]:
    """The URL's extensions without a link whose hreflang an earlier link gave another href."""
    seen: dict[str, str] = {}
    return tuple(
        e
        for e in url.extensions
        if type(e) is not Alternate or seen.setdefault(e.hreflang.lower(), e.href) == e.href
    )


SPEC = ExtensionSpec(
    Alternate,
    PREFIX,
    _read_link,
    _fast_link,
    "invalid-alternate",
    CODES,
    (hreflang_missing_self, hreflang_duplicate),
    item="alternate",
    repairs={"hreflang-duplicate": (first_href_per_hreflang, "the later link is left out")},
)

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
attribute, a bad value of a required field), comes back as the same ``RawElement`` with the
reason in ``Parsed.error`` (nothing is raised), so reading and writing again loses nothing.
An optional field (minOccurs=0 in the official schema) whose value is at fault is left out
and the element typed without it; that, children out of the schema's order and a news
language read from a longer tag (en-US) are noted in ``Parsed.warnings``. For readers:
``parse_element(el)`` types an lxml element in place (no serialising and re-parsing), and
``fast_extensions(fragment, prefixes)`` types a run of plain image and hreflang elements
with regular expressions, for a regex fast lane.

JSON: ``to_json(value)`` / ``from_json(kind, data)`` use the field names of the classes;
``json_fields(extensions)`` and ``from_json_fields(data)`` give a ``<url>``'s extensions as
the entry-level keys ``images``, ``videos``, ``news``, ``alternates`` (typed) and
``extensions`` (raw: namespace, name, xml), the shape ``urlset read`` writes and
``urlset build`` reads.

Layout: one module per extension (``image``, ``video``, ``news``, ``hreflang``) holds its
value, readers, writing, codes and per-URL rules, and gives an ``ExtensionSpec``;
``registry`` lists those in ``REGISTRY`` and dispatches on it (reading, JSON, namespaces).
``common`` and ``field_checks`` hold what the extensions share; ``fastlane`` types runs of
plain images and links for the reader's compiled lane; ``rules`` runs the rules of every
extension, ``set_checks`` the set-wide ones; ``reciprocity`` checks hreflang return links
across a set.
Adding an extension is writing its module and adding its ``SPEC`` to ``REGISTRY`` (and its
class to the ``Extension`` type).

Loading: this package loads none of them. Each public name loads the module that defines
it on first use, and the three the reader and the writers of output call on every document
(``json_fields``, ``fast_extensions``, ``EXT_CODES``) are stand-ins here that load theirs
when a document first has an extension (or an extension issue): a sitemap without
extensions never compiles an extension's patterns or builds its field tables. So are
``from_json_fields``, and ``JSON_KEYS`` and ``PREFIXES`` written out, which a build uses
for every input and document: a build of URLs without extensions loads none either.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .._core import SlotMaker
    from ..codes import Code
    from ..model import RawElement
    from .common import ExtensionSpec, Note, warning_code
    from .field_checks import ISO_639_1, ISO_3166_1, format_decimal
    from .hreflang import XHTML_NS, Alternate, hreflang_code
    from .image import IMAGE_NS, MAX_IMAGES_PER_URL, Image
    from .news import (
        ACCESS,
        GENRES,
        MAX_NEWS_PER_SITEMAP,
        MAX_STOCK_TICKERS,
        NEWS_NS,
        News,
        news_language,
    )
    from .registry import (
        DECLARED_BY,
        REGISTRY,
        TYPED,
        Extension,
        Parsed,
        from_json,
        namespaces_of,
        parse,
        parse_element,
        to_json,
        typed,
        typed_item,
    )
    from .video import (
        MAX_VIDEO_CATEGORY,
        MAX_VIDEO_DESCRIPTION,
        MAX_VIDEO_DURATION,
        MAX_VIDEO_TAGS,
        MAX_VIDEO_TITLE,
        MAX_VIDEO_UPLOADER,
        VIDEO_NS,
        Price,
        Relation,
        Relationship,
        Video,
    )

__all__ = [
    "ACCESS",
    "DECLARED_BY",
    "EXT_CODES",
    "GENRES",
    "IMAGE_NS",
    "ISO_639_1",
    "ISO_3166_1",
    "JSON_KEYS",
    "KINDS",
    "MAX_IMAGES_PER_URL",
    "MAX_NEWS_PER_SITEMAP",
    "MAX_STOCK_TICKERS",
    "MAX_VIDEO_CATEGORY",
    "MAX_VIDEO_DESCRIPTION",
    "MAX_VIDEO_DURATION",
    "MAX_VIDEO_TAGS",
    "MAX_VIDEO_TITLE",
    "MAX_VIDEO_UPLOADER",
    "NEWS_NS",
    "PREFIXES",
    "REGISTRY",
    "SAFE_PARSER_OPTIONS",
    "TYPED",
    "VIDEO_NS",
    "XHTML_NS",
    "Alternate",
    "Extension",
    "ExtensionSpec",
    "Image",
    "News",
    "Note",
    "Parsed",
    "Price",
    "Relation",
    "Relationship",
    "Video",
    "fast_extensions",
    "format_decimal",
    "from_json",
    "from_json_fields",
    "hreflang_code",
    "json_fields",
    "namespaces_of",
    "news_language",
    "parse",
    "parse_element",
    "to_json",
    "typed",
    "typed_item",
    "warning_code",
]

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

# public name -> the module of this package that defines it, imported on first use
_LAZY = {
    **dict.fromkeys(("ExtensionSpec", "Note", "warning_code"), "common"),
    **dict.fromkeys(("ISO_639_1", "ISO_3166_1", "format_decimal"), "field_checks"),
    **dict.fromkeys(("XHTML_NS", "Alternate", "hreflang_code"), "hreflang"),
    **dict.fromkeys(("IMAGE_NS", "MAX_IMAGES_PER_URL", "Image"), "image"),
    **dict.fromkeys(
        ("ACCESS", "GENRES", "MAX_NEWS_PER_SITEMAP", "MAX_STOCK_TICKERS", "NEWS_NS", "News"),
        "news",
    ),
    "news_language": "news",
    **dict.fromkeys(
        (
            "DECLARED_BY",
            "REGISTRY",
            "TYPED",
            "Extension",
            "Parsed",
            "from_json",
            "namespaces_of",
            "parse",
            "parse_element",
            "to_json",
            "typed",
            "typed_item",
        ),
        "registry",
    ),
    **dict.fromkeys(
        (
            "MAX_VIDEO_CATEGORY",
            "MAX_VIDEO_DESCRIPTION",
            "MAX_VIDEO_DURATION",
            "MAX_VIDEO_TAGS",
            "MAX_VIDEO_TITLE",
            "MAX_VIDEO_UPLOADER",
            "VIDEO_NS",
            "Price",
            "Relation",
            "Relationship",
            "Video",
        ),
        "video",
    ),
}


# the package's modules, as attributes before they are imported (ext.image.Image still works)
_MODULES = frozenset(
    {
        "common",
        "fastlane",
        "field_checks",
        "hreflang",
        "image",
        "news",
        "reciprocity",
        "registry",
        "rules",
        "set_checks",
        "video",
    }
)


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        return importlib.import_module(f".{name}", __name__)
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def json_fields(extensions: Iterable[object]) -> dict[str, Any]:
    """``registry.json_fields``: a ``<url>``'s extensions as entry-level JSON keys (no
    extensions: no keys, without loading the registry)."""
    if not extensions:
        return {}
    from .registry import json_fields as fields_of

    return fields_of(extensions)


# ``registry.JSON_KEYS`` and ``registry.PREFIXES`` written out (tests/test_startup.py holds
# them equal): a build tells a mapping's extension keys from its core keys, and a writer
# knows the typed namespaces, without loading the extensions
JSON_KEYS = ("images", "videos", "news", "alternates", "extensions")
# the typed extensions' ``kind``s (JSON_KEYS less the raw "extensions"): what check counts
# per sitemap, as Search Console counts the images, videos and news it discovered
KINDS = ("images", "videos", "news", "alternates")
PREFIXES = {
    "http://www.google.com/schemas/sitemap-image/1.1": "image",
    "http://www.google.com/schemas/sitemap-video/1.1": "video",
    "http://www.google.com/schemas/sitemap-news/0.9": "news",
    "http://www.w3.org/1999/xhtml": "xhtml",
}


def from_json_fields(
    data: Mapping[str, Any], notes: list[str] | None = None
) -> tuple[Extension | RawElement, ...]:
    """``registry.from_json_fields``, loaded when an entry first has an extension key."""
    from .registry import from_json_fields as extensions_of

    return extensions_of(data, notes)


def fast_extensions(
    fragment: str, prefixes: Mapping[str, str]
) -> tuple[Image | Alternate, ...] | None:
    """``fastlane.fast_extensions``, loaded when the compiled lane first meets an extension."""
    from .fastlane import fast_extensions as typed_run

    return typed_run(fragment, prefixes)


# the module and name of the trusted maker of each typed namespace's values (PREFIXES' kinds)
_TRUSTED = {
    "image": ("image", "trusted_image"),
    "video": ("video", "trusted_video"),
    "news": ("news", "trusted_article"),
    "xhtml": ("hreflang", "trusted_link"),
}


def trusted_maker_of(kind: str) -> SlotMaker:
    """The maker of checked values of the typed namespace ``kind`` (a ``PREFIXES`` value),
    its module loaded now."""
    module, name = _TRUSTED[kind]
    maker: SlotMaker = getattr(importlib.import_module(f".{module}", __name__), name)
    return maker


@cache
def _ext_codes() -> Mapping[str, Code]:
    """``rules.EXT_CODES``, imported once (a finding per URL looks it up)."""
    from .rules import EXT_CODES as table

    return table


class _Codes(Mapping[str, "Code"]):
    """``rules.EXT_CODES`` (every extension's issue codes), built when first looked up."""

    def _table(self) -> Mapping[str, Code]:
        return _ext_codes()

    def __getitem__(self, code: str) -> Code:
        return self._table()[code]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table())

    def __len__(self) -> int:
        return len(self._table())


EXT_CODES: Mapping[str, Code] = _Codes()


def _register() -> None:
    """The extensions' rows join the one table of codes (``codes.rule`` finds them)."""
    from ..codes import add_rows

    add_rows(EXT_CODES)


_register()

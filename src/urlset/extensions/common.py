"""What every extension module uses and what it hands to the registry.

``ExtensionSpec`` is what one extension module (image, video, news, hreflang) registers in
``extensions.REGISTRY``: its value class, prefix, readers, codes and per-URL rules. The rest
is shared by their readers and writers: the safe lxml parser options, the checked walk over
an element's children (lxml element in; (name, text, attributes, child) rows out, or
``Untypable`` saying why not), decoding of the plain text the compiled lane hands over, the
self-declared form of an element, and Issues from a table of codes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, NamedTuple, TypeVar

from ..codes import Code
from ..errors import InvalidValue
from ..model import SITEMAP_NS, Issue, RawElement, Url, issue_of
from ..patterns import lazy
from ..urls import plain_uri_flags
from . import SAFE_PARSER_OPTIONS

Rule = Callable[[Url, "datetime | None"], list[Issue]]


class ExtensionSpec(NamedTuple):
    """One typed extension, as its module registers it (``SPEC``) in ``extensions.REGISTRY``.

    ``value`` is the value class: it has the class attributes ``namespace``, ``name`` (the
    element's local name) and ``kind`` (its key in JSON), a ``body()`` (the element without
    its namespace declaration) and ``xml`` (with it).
    """

    value: type[Any]
    prefix: str  # the namespace prefix the writer declares
    # (lxml element, warnings) -> value; raises Untypable or InvalidValue
    read: Callable[[Any, list[str]], Any]
    # the element's xml in the plain form writers produce -> value; None: use ``read``
    fast: Callable[[str], Any] | None
    invalid: str  # the code of an element in this namespace that could not be typed
    codes: Mapping[str, Code]  # every code of the extension, ``invalid`` first
    rules: tuple[Rule, ...]  # per-URL rules, in the order they report
    nested: tuple[type[Any], ...] = ()  # field value types that give their own ``to_json()``
    # InvalidValue's field -> (the child as written, the value's keys it gives): the optional
    # fields a value is read (and built) without when they are at fault (``without_faults``)
    optional: Mapping[str, tuple[str, tuple[str, ...]]] = {}
    dropped: str = ""  # the code of an optional field left out ("" when there is none)
    item: str = ""  # what one value is called in a message ("image", "news entry")
    # error code of a per-URL rule -> the URL's extensions without what breaks it, and what
    # that is: what a build writes instead of a URL check would call an error
    repairs: Mapping[str, tuple[Callable[[Any], tuple[Any, ...]], str]] = {}


def coded_issue(
    codes: Mapping[str, Code], code: str, message: str, *, line: int = 0, source: str = ""
) -> Issue:
    """An Issue with the severity and hint ``codes`` gives ``code``."""
    row = codes[code]
    return issue_of((code, row.severity, message, line, 0, source, row.hint))


def declared(body: str, prefix: str, namespace: str, name: str) -> str:
    """``body`` with its namespace declared on its own start tag: a self-contained element."""
    end = len(prefix) + len(name) + 2  # after "<prefix:name"
    return f'{body[:end]} xmlns:{prefix}="{namespace}"{body[end:]}'


# ---------------------------------------------------------------- reading with lxml


@functools.cache
def safe_parser() -> Any:
    # lxml is imported on first use: a build that writes no raw extension XML never loads it
    from lxml import etree

    return etree.XMLParser(**SAFE_PARSER_OPTIONS)


def tostring(el: Any) -> str:
    from lxml import etree

    text: str = etree.tostring(el, encoding="unicode", with_tail=False)
    return text


def checked_raw(namespace: str, name: str, xml: str) -> RawElement:
    """Raw extension XML a user gave (namespace, local name, text), parsed with the safe
    options and serialised again; InvalidValue unless it is one well-formed element named
    ``name`` in ``namespace``, with nothing of it in the sitemaps namespace or in none (inside
    ``<url>`` an element without a namespace would be read as the protocol's)."""
    from lxml import etree

    if not namespace or namespace == SITEMAP_NS:
        raise InvalidValue("extensions", namespace, "an extension needs its own namespace")
    try:
        root = etree.fromstring(xml.encode("utf-8"), safe_parser())
    except (etree.XMLSyntaxError, ValueError) as exc:
        raise InvalidValue("extensions", xml, f"not one well-formed XML element ({exc})") from None
    if root is None:
        raise InvalidValue("extensions", xml, "not an XML element")
    if root.getroottree().docinfo.doctype or any(
        isinstance(node, etree._Entity) for node in root.iter()
    ):
        raise InvalidValue("extensions", xml, "holds a DOCTYPE or an entity; write the text itself")
    qname = etree.QName(root)
    if (qname.namespace, qname.localname) != (namespace, name):
        raise InvalidValue(
            "extensions",
            xml,
            f"is <{qname.localname}> in {qname.namespace or 'no namespace'}, "
            f"not <{name}> in {namespace} as declared",
        )
    for el in root.iter(etree.Element):
        inner = etree.QName(el).namespace
        if inner in (None, SITEMAP_NS):
            raise InvalidValue(
                "extensions",
                xml,
                f"<{etree.QName(el).localname}> inside it has "
                f"{'no namespace' if inner is None else 'the sitemaps namespace'}",
            )
    return RawElement(namespace, name, tostring(root))


class Untypable(Exception):
    """An element that cannot be typed without losing something; the message says why."""


class Unmodelled(Untypable):
    """Valid, but holding something the typed value does not model: kept raw, not a fault.

    With a ``code``, the reason is also given in ``Parsed.warnings`` (as a ``Note`` of that
    code) so that a reader reports why the element stays as written.
    """

    def __init__(self, message: str, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code


class Note(str):
    """A warning of a reading with its own issue code (``Parsed.warnings``); a plain ``str``
    warning there is an order warning (``extension-order``)."""

    code: str

    def __new__(cls, code: str, message: str) -> Note:
        note = super().__new__(cls, message)
        note.code = code
        return note


def warning_code(warning: str) -> str:
    """The issue code of one of ``Parsed.warnings``."""
    return getattr(warning, "code", "extension-order")


_V = TypeVar("_V")


def shown(value: object) -> str:
    """A value as an issue message quotes it (repr, at most 120 characters)."""
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def without_faults(
    build: Callable[[dict[str, Any]], _V],
    values: dict[str, Any],
    optional: Mapping[str, tuple[str, tuple[str, ...]]],
    warnings: list[str],
    code: str,
    item: str,
    outcome: str = "read",
) -> _V:
    """``build(values)``, leaving out each optional field the value rejects (the item is
    ``outcome`` without it: read, or written by a build).

    ``optional`` maps the field an ``InvalidValue`` names (``"image license"``) to the child
    as written (``"image:license"``) and the keys of ``values`` it gives (an element and its
    attributes go together). Each field left out is reported in ``warnings`` as a ``Note``
    of ``code``, naming the child and the value; a fault of a required field (one not in
    ``optional``) is raised as it is, and the element stays raw.
    """
    while True:
        try:
            return build(values)
        except InvalidValue as exc:
            found = optional.get(exc.field)
            if found is None or all(values.get(key) is None for key in found[1]):
                raise
            child, keys = found
            warnings.append(
                Note(
                    code,
                    f"<{child}> {shown(exc.value)}: {exc.reason}; the {item} is {outcome} without it",
                )
            )
            values = {**values, **dict.fromkeys(keys)}


Child = tuple[str, str, dict[str, str], Any]


def schema_tags(ns: str, order: Sequence[str]) -> dict[str, tuple[str, int]]:
    """Clark-notation tag -> (local name, position in the schema's order)."""
    return {f"{{{ns}}}{local}": (local, i) for i, local in enumerate(order)}


def order_warning(prefix: str, order: Sequence[str], child: int, after: int) -> str:
    """The ``extension-order`` warning of a child (``order[child]``) that comes after one the
    schema puts after it (``order[after]``): one text for the extension readers and the
    compiled core's notes (``reading/xml_compiled.py``)."""
    return (
        f"<{prefix}:{order[child]}> comes after <{prefix}:{order[after]}>; "
        f"the schema's order is {', '.join(order)}"
    )


def checked_children(
    el: Any,
    ns: str,
    prefix: str,
    tags: Mapping[str, tuple[str, int]],
    attrs: Mapping[str, frozenset[str]],
    warnings: list[str],
    unmodelled: frozenset[str] = frozenset(),
    holders: frozenset[str] = frozenset(),
    unmodelled_code: str | None = None,
) -> list[Child]:
    """(local name, stripped text, attributes, element) of each child, checked:

    every child in ``ns`` and named in ``tags`` (and not in ``unmodelled``: those raise an
    ``Unmodelled`` of ``unmodelled_code`` saying the element is kept as written), no markup
    inside values (``holders`` name the children that hold elements), only the attributes
    ``attrs`` allows; out-of-order children are read and noted in ``warnings``.
    Written for speed (one dict lookup per child, few lxml property reads): a sitemap can
    hold a thousand images per URL.
    """
    if el.keys():
        raise Unmodelled(
            f"<{_shown(el, prefix)}> has attributes {sorted(el.keys())} that urlset does not model"
        )
    text = el.text
    if text and not text.isspace():
        raise Untypable(f"<{_shown(el, prefix)}> holds text outside its child elements")
    out = []
    last = -1
    warned = False
    for child in el:
        tag = child.tag
        found = tags.get(tag)
        if found is None or found[0] in unmodelled:
            if found is not None:
                raise Unmodelled(
                    f"<{prefix}:{found[0]}> is in the official schema but urlset does not "
                    f"model it: the <{_shown(el, prefix)}> is kept as written",
                    unmodelled_code,
                )
            if not isinstance(tag, str):
                continue  # a comment or processing instruction kept by a caller's parser
            cns, _, local = tag[1:].partition("}") if tag[:1] == "{" else ("", "", tag)
            shown = f"{prefix}:{local}" if cns == ns else f"{{{cns}}}{local}"
            raise Unmodelled(f"<{_shown(el, prefix)}> holds <{shown}>, which urlset does not model")
        local, position = found
        tail = child.tail
        if tail and not tail.isspace():
            raise Untypable(f"<{_shown(el, prefix)}> holds text outside its child elements")
        if position < last:
            if not warned:
                warned = True
                order = [name for name, _ in sorted(tags.values(), key=lambda item: item[1])]
                warnings.append(order_warning(prefix, order, position, last))
        else:
            last = position
        keys = child.keys()
        if keys:
            extra = set(keys) - attrs.get(local, frozenset())
            if extra:
                raise Unmodelled(
                    f"<{prefix}:{local}> has attributes {sorted(extra)} that urlset does not model"
                )
            values = dict(child.items())
        else:
            values = {}
        if len(child) and local not in holders:
            raise Untypable(f"<{prefix}:{local}> holds markup; a value was expected")
        value = child.text
        out.append((local, value.strip() if value else "", values, child))
    return out


def _shown(el: Any, prefix: str) -> str:
    return f"{prefix}:{el.tag.partition('}')[2]}"


def no_repeats(
    items: list[Child],
    prefix: str,
    repeatable: frozenset[str] = frozenset(),
) -> None:
    """Raise Untypable when a child not in ``repeatable`` is given twice."""
    names = [item[0] for item in items]
    if len(set(names)) == len(names):
        return
    seen: set[str] = set()
    for local in names:
        if local in seen and local not in repeatable:
            raise Untypable(f"<{prefix}:{local}> given twice")
        seen.add(local)


# ---------------------------------------------------------------- reading with regexes

_STANDARD_ENTITY = lazy(r"&(?!(?:amp|lt|gt|quot|apos);)")


def plain_text(text: str | None) -> str | None:
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


def plain_written_uris(texts: list[str]) -> list[str] | None:
    """URIs as written in XML ('&' only as '&amp;'), unescaped, when every one of them is a
    plain URI (``urls.plain_uri_flags``); None otherwise."""
    joined = "\n".join(texts)
    if "&" in joined:
        if joined.count("&") != joined.count("&amp;"):
            return None
        texts = [text.replace("&amp;", "&") for text in texts]
    return None if False in plain_uri_flags(texts) else texts

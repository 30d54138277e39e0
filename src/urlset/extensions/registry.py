"""The registry of typed extensions and what dispatches on it: reading, JSON, namespaces.

``REGISTRY`` lists each extension module's ``SPEC``; the tables built from it (``TYPED``,
``PREFIXES``, ``DECLARED_BY``, the readers, ``JSON_KEYS``), ``parse``, ``typed``,
``parse_element``, ``to_json``, ``from_json``, ``json_fields`` and ``from_json_fields`` live
here. Loading it loads all four extension modules (their values, patterns and field tables),
so ``urlset.extensions`` loads it only when one of these is first used (see its docstring).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import fields
from typing import Any, NamedTuple

from ..dates import format_w3c
from ..errors import InvalidValue
from ..model import RawElement
from . import hreflang, image, news, video
from .common import (
    ExtensionSpec,
    Note,
    Unmodelled,
    Untypable,
    checked_raw,
    safe_parser,
    tostring,
    without_faults,
)
from .hreflang import Alternate
from .image import Image
from .news import News
from .video import Video

# The typed extensions, in the order the writer declares their namespaces: the one table an
# extension is added to. ``Extension`` names the same classes for the type checker.
REGISTRY: tuple[ExtensionSpec, ...] = (image.SPEC, video.SPEC, news.SPEC, hreflang.SPEC)
Extension = Image | Video | News | Alternate

TYPED: tuple[type[Extension], ...] = tuple(spec.value for spec in REGISTRY)
# the prefixes the writer uses, in the order it declares them
PREFIXES: dict[str, str] = {spec.value.namespace: spec.prefix for spec in REGISTRY}
# (class, namespace) in the order the writer declares namespaces
DECLARED_BY: tuple[tuple[type, str], ...] = tuple((cls, cls.namespace) for cls in TYPED)


def namespaces_of(extensions: Iterable[object]) -> list[str]:
    """The typed namespaces these extensions need declared, in PREFIXES order."""
    kinds = set(map(type, extensions))
    return [ns for cls, ns in DECLARED_BY if cls in kinds]


# ---------------------------------------------------------------- reading


class Parsed(NamedTuple):
    """What ``parse`` made of a raw element.

    ``value`` is the typed value, or the raw element itself when it could not be typed;
    ``error`` says why not (None when typed, or when the namespace is not one urlset types);
    ``warnings`` lists what was wrong but still read: children out of schema order (plain
    ``str``, code ``extension-order``) and ``Note`` values with their own code (an optional field
    left out or kept as written; why an element stays as written); ``warning_code`` gives
    the code of each.
    """

    value: Extension | RawElement
    error: str | None = None
    warnings: tuple[str, ...] = ()
    # True when the element is kept raw only because it holds something urlset does not
    # model (a video <tvshow>, an unknown attribute): not a fault of the sitemap
    unmodelled: bool = False


_Reader = Callable[[Any, list[str]], Extension]
# (namespace, local name) -> the reader of an lxml element, and of the element's own XML in
# the plain form writers use (one regex instead of an XML parse; None: not that form)
_READERS: dict[tuple[str, str], _Reader] = {
    (spec.value.namespace, spec.value.name): spec.read for spec in REGISTRY
}
_FAST: dict[tuple[str, str], Callable[[str], Extension | None]] = {
    (spec.value.namespace, spec.value.name): spec.fast for spec in REGISTRY if spec.fast is not None
}


def typed(raw: RawElement) -> Extension | RawElement:
    """The typed value of ``raw``, or ``raw`` unchanged (unknown namespace, or not typable).

    Never raises for bad content; use ``parse`` to learn why an element stayed raw.
    """
    return parse(raw).value


def parse(raw: RawElement) -> Parsed:
    """Type one raw extension element; see ``Parsed``. Never raises for bad content."""
    key = (raw.namespace, raw.name)
    reader = _READERS.get(key)
    if reader is None:
        return Parsed(raw)
    fast = _FAST.get(key)
    if fast is not None:
        try:
            value = fast(raw.xml)
        except InvalidValue:
            value = None  # the full reading below explains it
        if value is not None:
            return Parsed(value)
    from lxml import etree

    try:
        el = etree.fromstring(raw.xml.encode("utf-8"), safe_parser())
    except etree.XMLSyntaxError as exc:
        return Parsed(raw, f"<{raw.name}> is not well-formed XML ({exc})")
    return _parse_element(el, raw, reader)


def parse_element(el: Any, serialise: Callable[[Any], str] = tostring) -> Parsed:
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
    return _parse_element(el, None, reader, serialise)


def _parse_element(
    el: Any, raw: RawElement | None, reader: _Reader, serialise: Callable[[Any], str] = tostring
) -> Parsed:
    """``reader(el)`` as a Parsed: the value and the warnings, or ``raw`` (else ``el``
    serialised) and why. An optional field the reader left out is one of the warnings."""
    warnings: list[str] = []
    try:
        value = reader(el, warnings)
    except (Untypable, InvalidValue) as exc:
        if raw is None:
            tag = el.tag
            ns, _, local = tag[1:].partition("}") if tag[:1] == "{" else ("", "", tag)
            raw = RawElement(ns, local, serialise(el))
        if isinstance(exc, Unmodelled):
            # said as a warning when the reader gives it a code (a child the schema has)
            said = (Note(exc.code, str(exc)),) if exc.code else ()
            return Parsed(raw, str(exc), said, unmodelled=True)
        return Parsed(raw, str(exc))
    return Parsed(value, None, tuple(warnings))


# ---------------------------------------------------------------- JSON

# field value types that give their own JSON (a video's prices, restriction, platform)
_NESTED = tuple(kind for spec in REGISTRY for kind in spec.nested)


def _json_value(value: object) -> object:
    if isinstance(value, _NESTED):
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


_KINDS: dict[str, type[Extension]] = {cls.kind: cls for cls in TYPED}
# the constructor arguments without a default, per kind
_REQUIRED = {
    kind: tuple(
        name
        for name, parameter in inspect.signature(cls).parameters.items()
        if parameter.default is parameter.empty
    )
    for kind, cls in _KINDS.items()
}
# the fields holding a tuple, per kind: a JSON list there becomes a tuple
_TUPLES = {
    kind: tuple(f.name for f in fields(cls) if str(f.type).startswith("tuple["))
    for kind, cls in _KINDS.items()
}


_SPECS: dict[str, ExtensionSpec] = {spec.value.kind: spec for spec in REGISTRY}


def from_json(kind: str, data: object, notes: list[str] | None = None) -> Extension | None:
    """Build the value of ``kind`` (images, videos, news, alternates) from a JSON object.

    Without ``notes`` any fault raises ``InvalidValue``. With it, a build's leniency, the
    reader's: an unknown field or an optional one at fault is left out and the value built
    without it, and a value whose required fields are at fault is left out (None); each is
    a ``Note`` in ``notes`` with the extension's code."""
    cls = _KINDS.get(kind)
    if cls is None:
        raise InvalidValue("extension kind", kind, f"must be one of {', '.join(_KINDS)}")
    if not isinstance(data, Mapping):
        if notes is None:
            raise InvalidValue(kind, data, "each item must be a JSON object")
        return _left_out(kind, InvalidValue(kind, data, "each item must be a JSON object"), notes)
    names = {f.name for f in fields(cls)}
    unknown = set(data) - names
    if unknown:
        error = InvalidValue(
            kind, sorted(unknown), f"unknown fields; the fields are {', '.join(sorted(names))}"
        )
        if notes is None:
            raise error
        spec = _SPECS[kind]
        notes.append(
            Note(spec.dropped or spec.invalid, f"{error}; the {spec.item} is written without them")
        )
        data = {key: value for key, value in data.items() if key in names}
    missing = [name for name in _REQUIRED[kind] if name not in data]
    if missing:
        error = InvalidValue(kind, None, f"missing {', '.join(missing)}")
        if notes is None:
            raise error
        return _left_out(kind, error, notes)
    args = dict(data)
    for key in _TUPLES[kind]:
        if isinstance(args.get(key), list):
            args[key] = tuple(args[key])
    return typed_item(kind, args, notes)


def typed_item(kind: str, values: dict[str, Any], notes: list[str] | None) -> Extension | None:
    """The value of ``kind`` from its constructor's arguments; with ``notes``, built as
    ``from_json`` builds it (an optional field at fault left out, a required one: None)."""
    cls = _KINDS[kind]
    if notes is None:
        return cls(**values)
    spec = _SPECS[kind]
    try:
        return without_faults(
            lambda v: cls(**v), values, spec.optional, notes, spec.dropped, spec.item, "written"
        )
    except (InvalidValue, TypeError) as exc:
        error = exc if isinstance(exc, InvalidValue) else InvalidValue(kind, None, str(exc))
        return _left_out(kind, error, notes)


def _left_out(kind: str, error: InvalidValue, notes: list[str]) -> Extension | None:
    """None, the value of ``kind`` that ``error`` leaves out, said in ``notes``."""
    spec = _SPECS[kind]
    notes.append(Note(spec.invalid, f"{error}; the {spec.item} is left out"))
    return None


JSON_KEYS = (*_KINDS, "extensions")  # images, videos, news, alternates; raw ones


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


def from_json_fields(
    data: Mapping[str, Any], notes: list[str] | None = None
) -> tuple[Extension | RawElement, ...]:
    """The extensions named by the entry-level keys of ``json_fields`` (others are ignored).

    Raw ``extensions`` items stay raw, checked to be one well-formed element in the namespace
    they declare and serialised again (``common.checked_raw``). Without ``notes`` any fault
    raises ``InvalidValue``; with it, only what is at fault is left out, and said there (see
    ``from_json``): a field, an item, or a key that is not a list of items.
    """
    out: list[Extension | RawElement] = []
    for kind in _KINDS:
        items = data.get(kind)
        if items is None:
            continue
        if kind == "news" and isinstance(items, Mapping):
            items = [items]
        if not isinstance(items, list):
            error = InvalidValue(kind, items, "must be a list of objects")
            if notes is None:
                raise error
            _left_out(kind, error, notes)
            continue
        for item in items:
            value = from_json(kind, item, notes)
            if value is not None:
                out.append(value)
    raws = data.get("extensions")
    if raws is not None:
        try:
            out.extend(_raw_items(raws, notes))
        except InvalidValue as exc:
            if notes is None:
                raise
            notes.append(Note(RAW_LEFT_OUT, f"{exc}; the extensions are left out"))
    return tuple(out)


RAW_LEFT_OUT = "invalid-extensions"  # a build's code for raw extension XML it cannot take


def _raw_items(raws: object, notes: list[str] | None) -> Iterable[RawElement]:
    if not isinstance(raws, list):
        raise InvalidValue("extensions", raws, "must be a list of {namespace, name, xml}")
    for item in raws:
        try:
            if not isinstance(item, Mapping) or not {"namespace", "name", "xml"} <= set(item):
                raise InvalidValue(
                    "extensions", item, "each must be an object with namespace, name, xml"
                )
            yield checked_raw(str(item["namespace"]), str(item["name"]), str(item["xml"]))
        except InvalidValue as exc:
            if notes is None:
                raise
            notes.append(Note(RAW_LEFT_OUT, f"{exc}; the element is left out"))

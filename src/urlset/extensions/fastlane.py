"""The typing, by patterns, of a ``<url>``'s extensions: runs of plain images and hreflang links.

``fast_extensions(fragment, prefixes)`` takes the text between a ``<url>``'s core children
and its end tag, with the prefixes the root declares, and gives the typed values, or None
when anything there needs the full lxml reading. Runs of one kind go a column at a time
(``image.fast_images``, ``hreflang.fast_links``); mixed runs an element at a time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from ..errors import InvalidValue
from .hreflang import RUN_LINK, XHTML_NS, Alternate, alternate_from_attrs, fast_links
from .image import IMAGE_NS, RUN_IMAGE, Image, fast_images, image_from_texts

_RUNS: dict[tuple[str | None, str | None], re.Pattern[str]] = {}


def _run_pattern(image: str | None, link: str | None) -> re.Pattern[str]:
    found = _RUNS.get((image, link))
    if found is None:
        parts = []
        if image is not None:
            parts.append(RUN_IMAGE.format(p=re.escape(image)))
        if link is not None:
            parts.append(RUN_LINK.format(q=re.escape(link)))
        found = _RUNS[(image, link)] = re.compile(
            r"\s*(?:" + "|".join(f"({p})" for p in parts) + r")"
        )
    return found


def fast_extensions(
    fragment: str, prefixes: Mapping[str, str]
) -> tuple[Image | Alternate, ...] | None:
    """The typed values of ``fragment``, a run of ``<image:image>`` and ``<xhtml:link>``
    elements inside a ``<url>`` (whitespace between them allowed), when it is in the plain
    form writers produce; ``prefixes`` maps each prefix declared on the root to its
    namespace. None when anything else is there (another element, attributes on images,
    character references, a value a typed value rejects): read those with the full lane.

    For the reader's compiled lane, so that the commonest extension sitemaps need no XML parser.
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
        images = fast_images(fragment, image)
        if images is not None:
            return images
    elif link is not None and (image is None or f"<{image}:" not in fragment):
        links = fast_links(fragment, link)
        if links is not None:
            return links
    pattern = _run_pattern(image, link)
    out: list[Image | Alternate] = []
    from_texts, from_attrs = image_from_texts, alternate_from_attrs
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
            value: Image | Alternate | None
            if image is not None and groups[0] is not None:
                value = from_texts(groups[1:6])
            else:
                value = from_attrs(groups[-1])
            if value is None:
                return None
            out.append(value)
    except InvalidValue:
        return None
    return tuple(out)

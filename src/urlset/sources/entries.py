"""A page's facts as a build entry: the same values whichever source found the page.

In: the page's URL, its lastmod (W3C text or None), its ``PageFacts``. Out: a row
(loc, lastmod, None, None) when the page has no alternates or images (the build's fastest
path), a ``Url`` with ``Alternate`` and ``Image`` extensions otherwise, or an ``InputError``
when the URL cannot be a loc, or when an alternate or image had to be dropped (the entry is
then ``kept`` without it and the build reports it as a warning).
"""

from __future__ import annotations

from typing import Any

from ..dates import format_w3c
from ..errors import InputError, InvalidValue
from ..extensions import Alternate, Image, json_fields
from ..model import Url
from ..urls import to_uri
from .page import PageFacts

Row = tuple[str, str | None, None, None]


def same_url(a: str, b: str) -> bool:
    """Whether two URLs name the same page once normalised (case of scheme and host,
    escapes, default port)."""
    if a == b:
        return True
    try:
        return to_uri(a) == to_uri(b)
    except InvalidValue:
        return False


def page_entry(
    source: str, url: str, lastmod: str | None, facts: PageFacts, *, images: bool
) -> Url | Row | InputError:
    """The entry for one page (see the module's docstring)."""
    if not facts.alternates and not (images and facts.images):
        return (url, lastmod, None, None)
    extensions: list[Alternate | Image] = []
    dropped: list[str] = []
    for hreflang, href in facts.alternates:
        try:
            extensions.append(Alternate(hreflang, href))
        except InvalidValue as exc:
            dropped.append(f"alternate {hreflang}={href} ({exc.reason})")
    for image in facts.images if images else ():
        try:
            extensions.append(Image(image))
        except InvalidValue as exc:
            dropped.append(f"image {image} ({exc.reason})")
    try:
        entry = Url(url, lastmod, extensions=tuple(extensions))
    except InvalidValue as exc:
        return InputError(source, 1, str(exc), field=exc.field)
    if dropped:
        return InputError(
            source, 1, "written without " + "; ".join(dropped), field="extension", kept=entry
        )
    return entry


def entry_json(entry: Url | Row | InputError) -> dict[str, Any] | None:
    """An entry as a JSON Lines object ``urlset build`` reads (loc, lastmod, alternates,
    images); an ``InputError``'s kept entry, or None when it kept none."""
    if isinstance(entry, InputError):
        if not isinstance(entry.kept, Url):
            return None
        entry = entry.kept
    line: dict[str, Any] = {"loc": entry[0]}
    lastmod = entry[1]
    if lastmod is not None:
        line["lastmod"] = lastmod if isinstance(lastmod, str) else format_w3c(lastmod)
    if isinstance(entry, Url):
        line.update(json_fields(entry.extensions))
    return line

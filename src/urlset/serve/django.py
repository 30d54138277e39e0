"""Django: a view and URL patterns serving a sitemap set, and Django ``Sitemap`` classes as a
live source, so that a site using ``django.contrib.sitemaps`` switches in a few lines::

    from urlset.serve import LiveSet
    from urlset.serve.django import from_django_sitemaps, sitemap_urls

    live = LiveSet(from_django_sitemaps(sitemaps, "https://example.com/"), "https://example.com/")
    urlpatterns += sitemap_urls("sitemaps/", live)

Django is imported only here, and only when these are called.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import urlsplit

from ..errors import InvalidValue
from ..extensions.hreflang import Alternate
from ..model import Url
from ..urls import is_plain_uri, to_uri
from ..writing.options import Entry
from ..writing.sections import Sections, slug
from . import sitemap_app
from .app import SitemapSet
from .http import REASONS, Request
from .live import EntriesFactory

_NAME = r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)?"


def sitemap_view(source: SitemapSet | str | Path, *, html: bool = True) -> Callable[..., Any]:
    """A Django view answering for the set's documents: ``view(request, name="")``."""
    from django.http import HttpResponse, StreamingHttpResponse

    core = sitemap_app(source, html=html)

    def view(request: Any, name: str | None = "") -> Any:
        meta = request.META
        headers = {
            key[5:].replace("_", "-").lower(): value
            for key, value in meta.items()
            if key.startswith("HTTP_")
        }
        query = meta.get("QUERY_STRING", "")
        name = name or ""
        root = request.path[: len(request.path) - len(name)]  # SCRIPT_NAME and the prefix
        response = core.respond(Request(request.method, "/" + name, headers, query, root))
        reason = REASONS.get(response.status)
        answer: Any
        if isinstance(response.body, list | tuple):  # small, in memory (and HEAD, 304)
            answer = HttpResponse(b"".join(response.body), status=response.status, reason=reason)
        else:
            answer = StreamingHttpResponse(response.body, status=response.status, reason=reason)
        for header, value in response.headers:
            answer[header] = value
        return answer

    return view


def sitemap_urls(prefix: str, source: SitemapSet | str | Path, *, html: bool = True) -> list[Any]:
    """URL patterns serving the set under ``prefix`` (e.g. ``"sitemaps/"``, or ``""`` for the
    site's root: ``/sitemap.xml``); add them to ``urlpatterns``."""
    from django.urls import re_path

    pattern = f"^{re.escape(prefix)}{_NAME}$"
    return [re_path(pattern, sitemap_view(source, html=html), name="urlset-sitemaps")]


def from_django_sitemaps(
    sitemaps: Mapping[str, Any], base_url: str, *, sections: bool = True
) -> EntriesFactory:
    """Entries from Django ``Sitemap`` classes or instances (the dict ``django.contrib.
    sitemaps.views.sitemap`` takes), read through Django's own ``get_urls``: locations,
    lastmod, changefreq, priority and i18n alternates (hreflang) as Django computes them,
    for the host and scheme of ``base_url``. With ``sections`` (the default), each key of
    the dict is a section, as Django's own index makes a sitemap per key: its files are named
    after it (the key cleaned to a safe file-name part, as ``path:N`` cleans a directory)."""
    return DjangoEntries(sitemaps, base_url, sections=sections)


class DjangoEntries:
    """The entries of Django sitemaps, read again at each call; ``section``: which key each
    URL came from (``LiveSet`` builds with it), or None."""

    def __init__(self, sitemaps: Mapping[str, Any], base_url: str, *, sections: bool) -> None:
        self._sitemaps = sitemaps
        self._parts = urlsplit(base_url)
        self.section = Sections.by_column("key of the sitemaps dict") if sections else None

    def __call__(self) -> Iterator[Entry]:
        parts = self._parts
        site = SimpleNamespace(domain=parts.netloc, name=parts.netloc)
        given = None if self.section is None else self.section.given
        if given is not None:
            given.clear()  # this snapshot's
        for key, sitemap in self._sitemaps.items():
            name = slug(str(key))
            instance = sitemap() if isinstance(sitemap, type) else sitemap
            for page in instance.paginator.page_range:
                for info in instance.get_urls(page=page, site=site, protocol=parts.scheme):
                    if given is not None:
                        _note(given, info["location"], name)
                    yield _entry(info)


def _note(given: dict[str, str], loc: str, name: str) -> None:
    """``loc`` is in section ``name``, as given and as the build writes it."""
    given[loc] = name
    if not is_plain_uri(loc):
        with contextlib.suppress(InvalidValue):  # a bad loc: the build reports it
            given.setdefault(to_uri(loc), name)


def _entry(info: Mapping[str, Any]) -> Entry:
    priority = info.get("priority") or None  # Django gives "" for none
    row = (info["location"], info.get("lastmod"), info.get("changefreq"), priority)
    alternates = info.get("alternates") or ()
    if not alternates:
        return row  # the build's fastest path, and its checks report a bad value
    links = tuple(Alternate(a["lang_code"], a["location"]) for a in alternates)
    return Url(*row, extensions=links)

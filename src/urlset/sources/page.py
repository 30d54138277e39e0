"""What a sitemap needs to know of one HTML page, read from its bytes (pure: no I/O).

In: a page's bytes and its URL. Out: ``PageFacts``: whether robots may index it and follow
its links (``<meta name="robots">``, and an ``X-Robots-Tag`` header the caller passes), its
canonical URL, its hreflang alternates, its images (``<img src>``, ``og:image``) and the
links it holds (``<a href>``, ``<area href>``, without ``rel="nofollow"``), every URL made
absolute against the page (and its ``<base href>``), without its fragment.

The parser is lxml's (libxml2, whose HTML tokenizer follows HTML5 since 2.14), which the
package already depends on: the tree is built in C and only the few elements read here are
visited from Python. selectolax (Lexbor) was measured beside it in
bench/bench_html_parsers.py and was no faster (ARCHITECTURE.md has the figures), so no
dependency is added for it. When neither links nor images are asked for, only the head is parsed:
everything after ``</head>`` (or after the first 256 KiB when no ``</head>`` comes) is
left unread.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

HEAD_END = re.compile(rb"</head\s*>", re.IGNORECASE)
HEAD_SCAN = 256 * 1024  # bytes searched for </head> before the whole page is parsed
_SPACES = re.compile(r"[\s,]+")
_SCHEMES = ("http", "https")


@dataclass(frozen=True, slots=True)
class PageFacts:
    """One page as a sitemap sees it. URLs are absolute, without fragments."""

    noindex: bool = False  # robots may not index it: it stays out of a sitemap
    nofollow: bool = False  # robots may not follow its links
    canonical: str | None = None
    alternates: tuple[tuple[str, str], ...] = ()  # (hreflang, href)
    images: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


def robots_directives(value: str) -> set[str]:
    """The directives of a ``<meta name="robots">`` content or an ``X-Robots-Tag`` value,
    lower-cased (``none`` means noindex and nofollow). A header's ``bot: directive`` names
    a user agent; such a part is taken as applying to every robot, to be safe."""
    found: set[str] = set()
    for part in _SPACES.split(value.lower()):
        word = part.rpartition(":")[2].strip()
        if word == "none":
            found.update(("noindex", "nofollow"))
        elif word:
            found.add(word)
    return found


def absolute(href: str, base: str) -> str | None:
    """``href`` made absolute against ``base``, without its fragment; None when it is not
    an http(s) URL (mailto:, javascript:, data:, an unusable one)."""
    return _Resolver(base)(href)


class _Resolver:
    """``absolute`` for the many links of one page: an absolute, root-relative or
    page-relative href without dot segments (most links) is joined by string operations;
    the rest by ``urljoin``."""

    __slots__ = ("base", "directory", "origin")

    def __init__(self, base: str) -> None:
        self.base = base
        parts = urlsplit(base)
        self.origin = f"{parts.scheme}://{parts.netloc}" if parts.scheme in _SCHEMES else ""
        self.directory = self.origin and self.origin + parts.path.rpartition("/")[0] + "/"

    def __call__(self, href: str) -> str | None:
        href = href.strip()
        if not href or href[0] == "#":
            return None
        target = href.partition("#")[0]
        # what urljoin would change (dot segments, empty segments, an empty query, "\\")
        if not ("/." in target or "\\" in target or target.endswith("?") or not self.origin):
            if target.startswith(("https://", "http://")):
                host_first = target.partition("//")[2][:1]
                if host_first and host_first not in "/?" and "//" not in target[8:]:
                    return target
            elif "//" not in target and ":" not in target:
                if target[0] == "/":
                    return self.origin + target
                if target[0] not in "?.":
                    return self.directory + target  # a path relative to the page
        try:
            joined = urljoin(self.base, href)
            parts = urlsplit(joined)
        except ValueError:
            return None
        if parts.scheme not in _SCHEMES or not parts.netloc:
            return None
        if parts.fragment or joined.endswith("#"):
            joined = urlunsplit(parts._replace(fragment=""))
        return joined


def head_of(data: bytes) -> bytes:
    """The page up to its ``</head>``: all a head reading needs."""
    found = HEAD_END.search(data, 0, HEAD_SCAN)
    return data if found is None else data[: found.end()]


def read_page(
    data: bytes,
    url: str,
    *,
    links: bool = False,
    images: bool = False,
    header_robots: str | None = None,
    max_images: int = 1000,
) -> PageFacts:
    """Read ``data`` (the page at ``url``). ``links`` and ``images`` say whether to collect
    those (they need the body); ``header_robots`` is an ``X-Robots-Tag`` header's value."""
    from lxml import etree, html

    if not links and not images:
        data = head_of(data)
    directives = robots_directives(header_robots) if header_robots else set()
    try:
        root = html.document_fromstring(data)
    except (etree.ParserError, ValueError):  # an empty or unreadable document
        return PageFacts(noindex="noindex" in directives, nofollow="nofollow" in directives)
    resolve = _Resolver(url)
    for element in root.iter("base"):
        resolve = _Resolver(resolve(element.get("href") or "") or url)
        break
    found_images: dict[str, None] = {}  # in order, once each
    for element in root.iter("meta"):
        get = element.get
        name = (get("name") or get("property") or "").strip().lower()
        if name == "robots":
            directives |= robots_directives(get("content") or "")
        elif images and name == "og:image":
            _add(found_images, resolve(get("content") or ""))
    canonical, alternates = _head_links(root, resolve)
    found_links: dict[str, None] = {}
    if links:
        for element in root.iter("a", "area"):
            get = element.get
            href = get("href")
            if href and "nofollow" not in (get("rel") or "").lower():
                _add(found_links, resolve(href))
    if images:
        for element in root.iter("img"):
            _add(found_images, resolve(element.get("src") or ""))
    return PageFacts(
        noindex="noindex" in directives,
        nofollow="nofollow" in directives,
        canonical=canonical,
        alternates=alternates,
        images=tuple(found_images)[:max_images],
        links=tuple(found_links),
    )


def _head_links(root: Any, resolve: _Resolver) -> tuple[str | None, tuple[tuple[str, str], ...]]:
    """The first ``<link rel="canonical">`` and the ``rel="alternate" hreflang`` links."""
    canonical: str | None = None
    alternates: list[tuple[str, str]] = []
    for element in root.iter("link"):
        get = element.get
        rel = (get("rel") or "").lower().split()
        if "canonical" in rel and canonical is None:
            canonical = resolve(get("href") or "")
        elif "alternate" in rel and get("hreflang"):
            target = resolve(get("href") or "")
            if target is not None:
                alternates.append(((get("hreflang") or "").strip(), target))
    return canonical, tuple(alternates)


def _add(found: dict[str, None], url: str | None) -> None:
    if url is not None:
        found[url] = None

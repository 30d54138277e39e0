"""A set served under a path (a mount) names its children there.

An index names its children by absolute URL, written when the set was built
(``https://example.com/sitemap-1-....xml``). Mounted at ``/sitemaps`` (a Django prefix, a
Starlette mount's ``root_path``, a WSGI ``SCRIPT_NAME``), each child is served at
``/sitemaps/sitemap-1-....xml``: an index entry that names a document of this set in a
directory that does not end with the mount's path is rewritten to that path, on the origin it was written with (the site's public
origin, which the build was given; the request's Host may be a proxy's). Entries naming
anything else (another host's files, a name this set does not have) are left as written.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from html import escape
from urllib.parse import quote

from .documents import Document

_LOC = re.compile(rb"<loc>(\s*)([^<\s]{1,8192})(\s*)</loc>")
_URL = re.compile(rb"([a-zA-Z][a-zA-Z0-9+.-]*://[^/?#]*)(/[^?#]*/|/)([^/?#]+)")
_CARRY = 16 * 1024  # bytes kept back for an element that ends in the next chunk
_PATH_SAFE = "/!$&'()*+,;=:@-._~"


def directory_of(root: str) -> str:
    """The URL path a set mounted at ``root`` (decoded, as servers give it) serves from, as
    an XML text holds it."""
    return escape(quote(root.rstrip("/"), safe=_PATH_SAFE) + "/", quote=False)


def moved(document: Document, root: str) -> bool:
    """Whether ``document`` is an index, served under a path, that names children in another
    directory, so that its locs must be rewritten. At the root nothing is: a proxy may put
    the app under a path the app does not see (the set was then built for that path), and a
    directory that already ends with the mount's path was built for it behind such a proxy."""
    if not document.index or not root.strip("/"):
        return False
    here = directory_of(root)
    return any(not found.endswith(here) for found in document.child_directories)


def mount_tag(root: str) -> str:
    """A short, stable mark of the mount, for the rewritten document's ETag."""
    return hashlib.sha256(root.encode()).hexdigest()[:8]


def content(document: Document, names: Iterable[str], root: str) -> Iterator[bytes]:
    """The document's uncompressed bytes as served at ``root``: an index's children in this
    set (``names``: the set's file names) named where they are served."""
    if not moved(document, root):
        return document.chunks()
    known = set(names)
    return relocated(document.chunks(), lambda n: n in known or n + ".gz" in known, root)


def relocated(chunks: Iterable[bytes], served: Callable[[str], bool], root: str) -> Iterator[bytes]:
    """``chunks`` of an index with each child that ``served`` names moved under ``root``
    (bounded memory: at most a chunk and the end of an element are held)."""
    target = directory_of(root).encode()

    def move(match: re.Match[bytes]) -> bytes:
        url = _URL.fullmatch(match[2])
        if url is None or url[2].endswith(target) or not served(url[3].decode("ascii", "replace")):
            return match[0]
        return b"<loc>" + match[1] + url[1] + target + url[3] + match[3] + b"</loc>"

    carry = b""
    for chunk in chunks:
        data = carry + chunk
        end = data.rfind(b"</loc>")
        if end == -1:
            head, carry = (data[:-_CARRY], data[-_CARRY:]) if len(data) > _CARRY else (b"", data)
        else:
            head, carry = data[: end + 6], data[end + 6 :]
        if head:
            yield _LOC.sub(move, head)
    if carry:
        yield _LOC.sub(move, carry)

"""The sitemap server's logic, sans-I/O: a ``Request`` in, a ``Response`` out.

``SitemapApp`` answers for the documents of a ``SitemapSet`` (a published directory, or a
live source's snapshot). Each document has one identity (the SHA-256 of its bytes on disk)
and at most two byte representations, identity and gzip, each with its own strong ETag; gzip written here is deterministic (zlib-ng level 6, no name, mtime 0), so the same
content always gives the same bytes under the same tag. A name ending in ``.gz`` is a gzip
file (``application/gzip``, no Content-Encoding) as the protocol allows sitemaps to be.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from typing import Protocol

from zlib_ng import zlib_ng

from .documents import Document, DocumentError
from .http import Request, Response, accepts_gzip, http_date, not_modified, plain, prefers_html
from .mount import content as mount_content
from .mount import mount_tag, moved

CONTENT_TYPES = {
    "xml": "application/xml; charset=utf-8",
    "text": "text/plain; charset=utf-8",
    "xsl": "text/xsl; charset=utf-8",
}
GZIP_TYPE = "application/gzip"
VARY = "Accept-Encoding, Accept, Sec-Fetch-Dest"
_GZIP_LEVEL = 6


class SitemapSet(Protocol):
    """What the app serves from: names, entry points, the document for a name, and why
    nothing can be served now (a live source that failed), if so."""

    def problem(self) -> str | None: ...

    def names(self) -> list[str]: ...

    def entry_points(self) -> list[str]: ...

    def document(self, name: str) -> Document | None: ...


HtmlView = Callable[[SitemapSet, Document | None, Request], Response]


def gzip_chunks(chunks: Iterable[bytes]) -> Iterator[bytes]:
    """A gzip stream of ``chunks``, compressed as they come (bounded memory)."""
    compressor = zlib_ng.compressobj(_GZIP_LEVEL, zlib_ng.DEFLATED, 31)
    for chunk in chunks:
        out = compressor.compress(chunk)
        if out:
            yield out
    yield compressor.flush()


_ZLIB_NG = str(zlib_ng.ZLIBNG_VERSION).replace(".", "")


def _etag(document: Document, gzip_bytes: bool, mount: str | None = None) -> str:
    """A strong ETag per representation: the stored bytes' digest for those bytes as they
    are; marked for the inflated content, for an index rewritten for its mount, and for gzip
    written here (with the compressor's version: another version may write other bytes)."""
    base = document.digest[:32]
    if mount is not None:
        base = f"{base}-m{mount}"
        return f'"{base}-gz{_ZLIB_NG}"' if gzip_bytes else f'"{base}"'
    if gzip_bytes == document.gzipped:
        return f'"{base}"'
    return f'"{base}-gz{_ZLIB_NG}"' if gzip_bytes else f'"{base}-id"'


class SitemapApp:
    """Answers GET and HEAD for a set's documents. ``html``: the view browsers get (None:
    they get the XML too); ``clock``: now, so that Last-Modified is never in the future."""

    def __init__(
        self,
        documents: SitemapSet,
        *,
        html: HtmlView | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.documents = documents
        self.html = html
        self.clock = clock

    def respond(self, request: Request) -> Response:
        """The answer to ``request``; a document that cannot be served gets 500 with a
        message naming it (never a traceback)."""
        try:
            return self._respond(request)
        except DocumentError as exc:
            return plain(500, f"{exc}\n")
        except Exception as exc:  # a bug or a file gone bad: say what, for which request
            what = f"{type(exc).__name__}: {exc}"
            return plain(500, f"cannot serve {request.path.lstrip('/')!r}: {what}\n")

    def _respond(self, request: Request) -> Response:
        if request.method not in ("GET", "HEAD"):
            return plain(405, "only GET and HEAD\n", [("Allow", "GET, HEAD")])
        problem = self.documents.problem()
        if problem is not None:
            return plain(503, problem + "\n", [("Retry-After", "5")])
        name = request.path.lstrip("/")
        if "/" in name:
            return self._missing()
        document = self.documents.document(name) if name else None
        if self.html is not None and prefers_html(request) and (document or not name):
            response = self.html(self.documents, document, request)
        elif document is None:
            return self._missing()
        else:
            response = self._document(document, request)
        if request.method == "HEAD":
            response.close()
            response.body = ()
        return response

    def _missing(self) -> Response:
        starts = ", ".join(self.documents.entry_points()) or "none"
        return plain(404, f"no such sitemap here; the entry points are: {starts}\n")

    def _document(self, document: Document, request: Request) -> Response:
        """One document as the request asks for it, or 304 when the client has it."""
        # a .gz name is a gzip file, but ?view=xml shows a browser the XML it holds
        as_file = document.name.endswith(".gz") and request.param("view") != "xml"
        coded = not as_file and accepts_gzip(request) and document.kind != "xsl"
        gzip_bytes = as_file or coded
        relocate = moved(document, request.root)
        etag = _etag(document, gzip_bytes, mount_tag(request.root) if relocate else None)
        lastmod = document.lastmod
        if lastmod is not None:
            lastmod = min(lastmod, self.clock())
        headers = [
            ("Content-Type", GZIP_TYPE if as_file else CONTENT_TYPES[document.kind]),
            ("ETag", etag),
            ("Cache-Control", "no-cache"),
            ("Vary", VARY),
            ("X-Robots-Tag", "noindex"),
            ("X-Content-Type-Options", "nosniff"),
        ]
        if lastmod is not None:
            headers.append(("Last-Modified", http_date(lastmod)))
        if not_modified(request, etag, lastmod):
            return Response(304, [h for h in headers if h[0] != "Content-Type"])
        if coded:
            headers.append(("Content-Encoding", "gzip"))
        body: Iterable[bytes]
        if relocate:  # its length is known once it is sent
            content = mount_content(document, self.documents.names(), request.root)
            body = gzip_chunks(content) if gzip_bytes else content
        elif gzip_bytes and document.gzipped:
            body = document.raw_chunks()
            headers.append(("Content-Length", str(document.size)))
        elif gzip_bytes:
            body = gzip_chunks(document.raw_chunks())
        else:
            body = document.chunks()
            headers.append(("Content-Length", str(document.length)))
        if request.method == "HEAD":
            body = ()
        return Response(200, headers, body)

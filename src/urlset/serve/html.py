"""The HTML view a browser gets instead of the XML: a table of a sitemap's URLs (or an
index's sitemaps, each linking to its own view), paged, with no script and no stylesheet
from elsewhere. Works in every browser, with or without XSLT.

The document is read with the project's reader as it streams (bounded memory): only the
rows of the page asked for are kept, the others are counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from html import escape

from ..dates import format_w3c
from ..extensions.hreflang import Alternate
from ..extensions.image import Image
from ..extensions.news import News
from ..extensions.video import Video
from ..model import Issue, SitemapRef, Url
from ..reading.reader import SitemapReader
from .app import VARY, SitemapSet
from .documents import Document
from .http import Request, Response, not_modified

PAGE_ROWS = 1000  # rows on one page: a 50,000-URL sitemap is 50 pages
VIEW_VERSION = "v1"  # part of the view's ETag: a new layout is a new representation
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:"

_STYLE = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#1b1b1b;background:#fff}
h1{font-size:1.3em;margin:0 0 .3em}p{margin:.3em 0}a{color:#0645ad}
table{border-collapse:collapse;width:100%;margin:.8em 0}
th,td{border-bottom:1px solid #ddd;padding:.25em .5em;text-align:left;vertical-align:top}
th{background:#f3f3f3;position:sticky;top:0}td.n{text-align:right;color:#666}
td.loc{word-break:break-all}nav a,nav span{margin-right:.8em}.note{color:#8a4b00}
"""


def _page(request: Request) -> int:
    text = request.param("page") or "1"
    return int(text) if text.isdigit() and int(text) > 0 else 1


def _shell(title: str, body: str) -> bytes:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="robots" content="noindex">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>\n"
        f"<body>{body}</body></html>\n"
    ).encode()


def _headers(etag: str | None = None) -> list[tuple[str, str]]:
    headers = [
        ("Content-Type", "text/html; charset=utf-8"),
        ("Cache-Control", "no-cache"),
        ("Vary", VARY),
        ("X-Robots-Tag", "noindex"),
        ("X-Content-Type-Options", "nosniff"),
        ("Content-Security-Policy", _CSP),
    ]
    if etag is not None:
        headers.append(("ETag", etag))
    return headers


def _answer(status: int, page: bytes, etag: str | None = None) -> Response:
    return Response(status, [*_headers(etag), ("Content-Length", str(len(page)))], [page])


def html_view(documents: SitemapSet, document: Document | None, request: Request) -> Response:
    """The view of ``document`` (None: the list of the set's files) for a browser."""
    if document is None:
        return _answer(200, _listing(documents))
    page = _page(request)
    etag = f'"{document.digest[:32]}-html-{page}-{VIEW_VERSION}"'
    if not_modified(request, etag, None):
        return Response(304, _headers(etag))
    if document.kind == "xsl":
        text = escape(document.content().decode("utf-8", "replace"))
        return _answer(200, _shell(document.name, f"<pre>{text}</pre>"), etag)
    return _answer(200, _document_view(documents, document, page), etag)


def _listing(documents: SitemapSet) -> bytes:
    starts = set(documents.entry_points())
    items = "".join(
        f'<li><a href="{escape(name)}">{escape(name)}</a>{" (entry point)" if name in starts else ""}</li>'
        for name in documents.names()
    )
    return _shell("Sitemaps", f"<h1>Sitemaps</h1><ul>{items}</ul>")


def _events(document: Document) -> Iterator[Url | SitemapRef | Issue]:
    reader = SitemapReader(document.name)
    for chunk in document.chunks():
        yield from reader.feed(chunk)
    yield from reader.close()


def _document_view(documents: SitemapSet, document: Document, page: int) -> bytes:
    """One page of rows, the total, and what the reader found wrong (counted)."""
    first = (page - 1) * PAGE_ROWS
    rows: list[str] = []
    count = issues = 0
    kind = "sitemap"
    names = set(documents.names())
    for event in _events(document):
        if isinstance(event, Issue):
            issues += 1
            continue
        if isinstance(event, SitemapRef):
            kind = "index"
        if first <= count < first + PAGE_ROWS:
            number = count + 1
            if isinstance(event, SitemapRef):
                rows.append(_index_row(number, event, names))
            else:
                rows.append(_url_row(number, event))
        count += 1
    pages = max(1, -(-count // PAGE_ROWS))
    title = f"{document.name}: {'sitemap index' if kind == 'index' else 'sitemap'}"
    noun = "sitemaps" if kind == "index" else "URLs"
    shown = f"{first + 1}-{first + len(rows)}" if rows else "none"
    parts = [
        f"<h1>{escape(title)}</h1>",
        f'<p id="summary">{count} {noun}; rows {shown}; page {page} of {pages}. '
        f'<a href="{escape(document.name)}?view=xml">XML</a></p>',
    ]
    if issues:
        parts.append(
            f'<p class="note">{issues} problem(s) found while reading; '
            "<code>urlset check</code> names them.</p>"
        )
    nav = _nav(page, pages)
    head = _INDEX_HEAD if kind == "index" else _URL_HEAD
    parts += [
        nav,
        f'<table id="entries"><thead>{head}</thead><tbody>',
        *rows,
        "</tbody></table>",
        nav,
    ]
    return _shell(title, "".join(parts))


_INDEX_HEAD = "<tr><th>#</th><th>sitemap</th><th>lastmod</th></tr>"
_URL_HEAD = (
    "<tr><th>#</th><th>loc</th><th>lastmod</th><th>changefreq</th><th>priority</th>"
    "<th>images</th><th>videos</th><th>news</th><th>hreflang</th></tr>"
)


def _nav(page: int, pages: int) -> str:
    if pages == 1:
        return ""
    links = []
    for label, target in (
        ("first", 1),
        ("previous", page - 1),
        ("next", page + 1),
        ("last", pages),
    ):
        if 1 <= target <= pages and target != page:
            links.append(f'<a rel="{label}" href="?page={target}">{label}</a>')
        else:
            links.append(f"<span>{label}</span>")
    return f"<nav>{''.join(links)}</nav>"


def _index_row(number: int, ref: SitemapRef, names: set[str]) -> str:
    name = ref.loc.rsplit("/", 1)[-1].split("?")[0]
    # a child this server has is linked to its own view; another is shown as a plain link
    target = name if name in names else ref.loc
    lastmod = format_w3c(ref.lastmod) if ref.lastmod is not None else ""
    return (
        f'<tr><td class="n">{number}</td><td class="loc"><a href="{escape(target)}">'
        f"{escape(ref.loc)}</a></td><td>{lastmod}</td></tr>"
    )


def _url_row(number: int, url: Url) -> str:
    images = videos = news = 0
    languages = []
    for extension in url.extensions:
        if isinstance(extension, Image):
            images += 1
        elif isinstance(extension, Video):
            videos += 1
        elif isinstance(extension, News):
            news += 1
        elif isinstance(extension, Alternate):
            languages.append(
                f'<a href="{escape(extension.href)}" rel="nofollow">{escape(extension.hreflang)}</a>'
            )
    lastmod = format_w3c(url.lastmod) if url.lastmod is not None else ""
    changefreq = url.changefreq.value if url.changefreq is not None else ""
    priority = "" if url.priority is None else f"{url.priority:g}"
    return (
        f'<tr><td class="n">{number}</td><td class="loc"><a href="{escape(url.loc)}" '
        f'rel="nofollow">{escape(url.loc)}</a></td><td>{lastmod}</td><td>{changefreq}</td>'
        f"<td>{priority}</td><td>{images or ''}</td><td>{videos or ''}</td><td>{news or ''}</td>"
        f"<td>{' '.join(languages)}</td></tr>"
    )

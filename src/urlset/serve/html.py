"""The HTML view a browser gets instead of the XML: a table of a sitemap's URLs (or an
index's sitemaps, each linking to its own view), paged, with no script and no stylesheet
from elsewhere, in the look of urlset's reports (``writing.page_style``). Works in every
browser, with or without XSLT. Values are written as the build writes them (priority
``0.0``, lastmod in W3C form) and counts as the reports write them (``1,000 URLs``).

The document is read with the project's reader as it streams (bounded memory): only the
rows of the page asked for are kept, the others are counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from html import escape

from ..dates import format_w3c
from ..extensions.hreflang import Alternate
from ..extensions.image import Image
from ..extensions.news import News
from ..extensions.video import Video
from ..model import Issue, SitemapRef, Url
from ..reading.reader import SitemapReader
from ..writing.document import format_priority
from ..writing.page_style import PAGE_CSS, count, number
from .app import VARY, SitemapSet
from .documents import Document
from .http import Request, Response, not_modified
from .mount import content, directory_of, mount_tag

PAGE_ROWS = 1000  # rows on one page: a 50,000-URL sitemap is 50 pages
VIEW_VERSION = "v2"  # part of the view's ETag: a new layout is a new representation
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:"


def _page(request: Request) -> int:
    text = request.param("page") or "1"
    return int(text) if text.isdigit() and int(text) > 0 else 1


def _shell(title: str, subtitle: str, body: str) -> bytes:
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="robots" content="noindex">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{PAGE_CSS}</style></head>\n"
        f"<body><header><h1>{escape(title)}</h1><p>{subtitle}</p></header>"
        f"<main><section>{body}</section></main></body></html>\n"
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
    here = directory_of(request.root)  # where the set is served: links are absolute paths
    if document is None:
        return _answer(200, _listing(documents, here))
    page = _page(request)
    etag = f'"{document.digest[:32]}-html-{page}-{VIEW_VERSION}-{mount_tag(request.root)}"'
    if not_modified(request, etag, None):
        return Response(304, _headers(etag))
    if document.kind == "xsl":
        text = escape(document.content().decode("utf-8", "replace"))
        return _answer(200, _shell(document.name, "stylesheet", f"<pre>{text}</pre>"), etag)
    names = documents.names()
    chunks = content(document, names, request.root)
    return _answer(200, _document_view(chunks, document.name, set(names), here, page), etag)


def _listing(documents: SitemapSet, here: str) -> bytes:
    starts = set(documents.entry_points())
    names = documents.names()
    items = "".join(
        f'<li><a href="{here}{escape(name)}">{escape(name)}</a>'
        f"{' (entry point)' if name in starts else ''}</li>"
        for name in names
    )
    return _shell("Sitemaps", escape(count(len(names), "file")), f"<ul>{items}</ul>")


def _events(chunks: Iterable[bytes], name: str) -> Iterator[Url | SitemapRef | Issue]:
    reader = SitemapReader(name)
    for chunk in chunks:
        yield from reader.feed(chunk)
    yield from reader.close()


def _document_view(
    chunks: Iterable[bytes], name: str, names: set[str], here: str, page: int
) -> bytes:
    """One page of rows, the total, and what the reader found wrong (counted)."""
    first = (page - 1) * PAGE_ROWS
    rows: list[str] = []
    total = issues = 0
    kind = "sitemap"
    for event in _events(chunks, name):
        if isinstance(event, Issue):
            issues += 1
            continue
        if isinstance(event, SitemapRef):
            kind = "index"
        if first <= total < first + PAGE_ROWS:
            if isinstance(event, SitemapRef):
                rows.append(_index_row(total + 1, event, names, here))
            else:
                rows.append(_url_row(total + 1, event))
        total += 1
    pages = max(1, -(-total // PAGE_ROWS))
    title = f"{name}: {'sitemap index' if kind == 'index' else 'sitemap'}"
    entries = count(total, "sitemap" if kind == "index" else "URL")
    shown = f"{number(first + 1)}-{number(first + len(rows))}" if rows else "none"
    xml = f"{here}{escape(name)}?view=xml"  # a .gz name too: ?view=xml is the XML decoded
    parts = [
        f'<p id="summary">{escape(entries)}; rows {shown}; page {number(page)} of '
        f'{number(pages)}. <a href="{xml}">XML</a></p>',
    ]
    if issues:
        parts.append(
            f'<p class="note">{escape(count(issues, "problem"))} found while reading; '
            "<code>urlset check</code> names them.</p>"
        )
    nav = _nav(page, pages)
    head = _INDEX_HEAD if kind == "index" else _URL_HEAD
    parts += [
        nav,
        f'<div class="scroll" role="region" tabindex="0" aria-label="entries">'
        f'<table id="entries"><thead>{head}</thead><tbody>',
        *rows,
        "</tbody></table></div>",
        nav,
    ]
    return _shell(title, escape(entries), "".join(parts))


_INDEX_HEAD = (
    '<tr><th scope="col" class="num">#</th><th scope="col">sitemap</th>'
    '<th scope="col">lastmod</th></tr>'
)
_URL_HEAD = (
    '<tr><th scope="col" class="num">#</th><th scope="col">loc</th><th scope="col">lastmod</th>'
    '<th scope="col">changefreq</th><th scope="col" class="num">priority</th>'
    '<th scope="col" class="num">images</th><th scope="col" class="num">videos</th>'
    '<th scope="col" class="num">news</th><th scope="col">hreflang</th></tr>'
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
    return f'<nav aria-label="Pages">{"".join(links)}</nav>'


def _index_row(position: int, ref: SitemapRef, names: set[str], here: str) -> str:
    name = ref.loc.rsplit("/", 1)[-1].split("?")[0]
    # a child this server has is linked to its own view; another is shown as a plain link
    served = name in names or name + ".gz" in names
    target = f"{here}{escape(name)}" if served else escape(ref.loc)
    lastmod = format_w3c(ref.lastmod) if ref.lastmod is not None else ""
    return (
        f'<tr><td class="num">{number(position)}</td><td class="url"><a href="{target}">'
        f"{escape(ref.loc)}</a></td><td>{lastmod}</td></tr>"
    )


def _url_row(position: int, url: Url) -> str:
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
    priority = "" if url.priority is None else format_priority(url.priority)
    return (
        f'<tr><td class="num">{number(position)}</td><td class="url"><a href="{escape(url.loc)}"'
        f' rel="nofollow">{escape(url.loc)}</a></td><td>{lastmod}</td><td>{changefreq}</td>'
        f'<td class="num">{priority}</td><td class="num">{images or ""}</td>'
        f'<td class="num">{videos or ""}</td><td class="num">{news or ""}</td>'
        f"<td>{' '.join(languages)}</td></tr>"
    )

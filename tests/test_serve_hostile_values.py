"""Hostile values in served documents: every value the serve path reads from a document
(a lastmod of any form, priority, changefreq, extension values) is read leniently or passed
over, so a file with bad values is served (crawler and HTML view, plain, gzip and index);
a file that cannot be read at all is refused with 500 naming it, never a traceback.

The family, enumerated from what reaches the serve path: ``documents`` scans each document's
``<lastmod>`` values for Last-Modified (any text between the tags, any spacing); the HTML view
reads every value with the reader (priority, changefreq, lastmod, extension values); a
gzipped file is inflated for both.
"""

from __future__ import annotations

import gzip
from datetime import UTC, datetime
from pathlib import Path

import pytest

from serve_support import fetch, wsgiref_server
from urlset import read_bytes
from urlset.serve import LiveSet, Request, Response, sitemap_app, wsgi_app

NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"'
    ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">\n'
)
LASTMODS = [
    "yesterday",  # no date at all
    "abcdefghij",  # the length of a date
    "2026-02-30",  # a day the month does not have
    "2026-13",  # a month that does not exist (the reduced YYYY-MM form)
    "0000",  # year 0 (the reduced YYYY form)
    "2026-01-01T25:00:00+00:00",  # an hour past the day
    "2026-1-2 10:00",  # lenient: unpadded, a space for T, no zone
    "2026-11-02T10:00:00+0100",  # lenient: +hhmm zone
    "9999-12-31T23:59:59-14:00",  # the last instant, past year 9999 in UTC
    "0001-01-01T00:00:00+14:00",  # the first instant, before year 1 in UTC
    "0001-01-01",  # the first day
    " 2026-11-02 ",  # spaces around
    "",  # empty
    "2026-11-02T10:00:00.1234567Z",  # seven fraction digits
]
OTHER_VALUES = [
    "<priority>high</priority>",
    "<priority>NaN</priority>",
    "<priority>-1</priority>",
    "<changefreq>sometimes</changefreq>",
    "<image:image><image:loc>not a url</image:loc></image:image>",
    "<video:video><video:duration>forever</video:duration>"
    "<video:publication_date>soon</video:publication_date></video:video>",
    "<news:news><news:publication_date>tomorrow</news:publication_date></news:news>",
]


def _sitemap(values: str) -> str:
    return f"{HEAD}<url><loc>https://example.com/a</loc>{values}</url>\n</urlset>\n"


def _index(lastmod: str) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        "<sitemap><loc>https://example.com/sitemap-1.xml</loc>"
        f"<lastmod>{lastmod}</lastmod></sitemap></sitemapindex>\n"
    )


def _get(directory: Path | LiveSet, path: str, query: str = "", **headers: str) -> Response:
    app = sitemap_app(directory)
    app.clock = lambda: NOW
    return app.respond(Request("GET", path, headers, query))


def _served(directory: Path | LiveSet, name: str) -> None:
    """The crawler's XML (plain and gzip-coded) and the browser's view both answer 200."""
    for query, headers in (("", {}), ("", {"accept-encoding": "gzip"}), ("view=html", {})):
        response = _get(directory, f"/{name}", query, **headers)
        body = b"".join(response.body)
        assert response.status == 200, body
        assert body


@pytest.mark.parametrize("lastmod", LASTMODS)
@pytest.mark.parametrize("stored", ["plain", "gzip", "index"])
def test_any_lastmod_is_served(tmp_path: Path, lastmod: str, stored: str) -> None:
    if stored == "index":
        text = _index(lastmod)
        (tmp_path / "sitemap-1.xml").write_text(_sitemap(""))
    else:
        text = _sitemap(f"<lastmod>{lastmod}</lastmod>")
    if stored == "gzip":
        (tmp_path / "sitemap.xml.gz").write_bytes(gzip.compress(text.encode()))
    else:
        (tmp_path / "sitemap.xml").write_text(text)
    _served(tmp_path, "sitemap.xml")
    response = _get(tmp_path, "/sitemap.xml")
    modified = response.header("Last-Modified")
    assert modified is not None and modified.endswith(" GMT")


def test_last_modified_comes_from_the_readable_lastmods(tmp_path: Path) -> None:
    text = _sitemap("<lastmod>2026-1-2 10:00</lastmod>").replace(
        "</urlset>",
        "<url><loc>https://example.com/b</loc><lastmod>nonsense</lastmod></url></urlset>",
    )
    (tmp_path / "sitemap.xml").write_text(text)
    assert _get(tmp_path, "/sitemap.xml").header("Last-Modified") == "Fri, 02 Jan 2026 10:00:00 GMT"


@pytest.mark.parametrize("values", OTHER_VALUES)
def test_bad_values_are_served(tmp_path: Path, values: str) -> None:
    (tmp_path / "sitemap.xml").write_text(_sitemap(values))
    _served(tmp_path, "sitemap.xml")
    view = b"".join(_get(tmp_path, "/sitemap.xml", "view=html").body).decode()
    assert "https://example.com/a" in view and "problem" in view


def test_a_damaged_gzip_file_is_refused_naming_it(tmp_path: Path) -> None:
    data = gzip.compress(_sitemap("").encode())
    (tmp_path / "sitemap.xml.gz").write_bytes(data[:12] + b"\xff" * 40 + data[52:])
    for path, query in (
        ("/sitemap.xml", ""),
        ("/sitemap.xml.gz", ""),
        ("/sitemap.xml", "view=html"),
    ):
        response = _get(tmp_path, path, query)
        body = b"".join(response.body).decode()
        assert response.status == 500
        assert body.startswith("sitemap.xml.gz: not a readable gzip file"), body
        assert "Traceback" not in body


def test_a_live_set_with_bad_values_is_served(tmp_path: Path) -> None:
    rows = [("https://example.com/a", "yesterday", "sometimes", "high")]
    live = LiveSet.from_iterable(rows, "https://example.com/", directory=tmp_path / "live")
    _served(live, "sitemap.xml")
    with wsgiref_server(wsgi_app(live)) as base:
        (child,) = read_bytes(fetch(base, "/sitemap.xml")[2])
        status, _, body = fetch(base, "/" + child.loc.rsplit("/", 1)[1])
    assert status == 200 and b"<loc>https://example.com/a</loc>" in body
    assert b"lastmod" not in body  # written without the bad values, as the build does

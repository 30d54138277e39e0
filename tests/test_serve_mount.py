"""A set served under a path names its children there: the index's locs of the set's own
files follow the mount (``Request.root``), in every representation (plain, gzip-coded, the
``.gz`` file, the HTML view), each with its own ETag; nothing else in the index changes."""

from __future__ import annotations

import gzip
import re
from pathlib import Path

import pytest

from urlset import CURRENT, read_bytes, write_sitemaps
from urlset.serve import DirectorySet, Request, Response, SitemapApp, sitemap_app
from urlset.serve.mount import relocated

BASE = "https://example.com/"


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("mounted")
    rows = [(f"{BASE}p/{i}", "2026-11-02") for i in range(30)]
    write_sitemaps(rows, out, BASE, limits=CURRENT.lowered(max_urls=10))
    return out


def _get(app: SitemapApp, path: str, root: str = "", **headers: str) -> Response:
    path, _, query = path.partition("?")
    named = {k.replace("_", "-"): v for k, v in headers.items()}
    return app.respond(Request("GET", path, named, query, root))


def _text(response: Response) -> bytes:
    body = b"".join(response.body)
    return gzip.decompress(body) if body[:2] == b"\x1f\x8b" else body


def _children(published: Path) -> list[str]:
    return sorted(p.name for p in published.glob("sitemap-*.xml.gz"))


@pytest.mark.parametrize("root", ["/sitemaps", "/sitemaps/", "/a/b", "/site maps"])
@pytest.mark.parametrize("how", ["plain", "gzip-coded", "gz-name"])
def test_an_index_names_its_children_under_the_mount(published: Path, root: str, how: str) -> None:
    app = sitemap_app(published)
    path = "/sitemap.xml.gz" if how == "gz-name" else "/sitemap.xml"
    coding = {"accept_encoding": "gzip"} if how == "gzip-coded" else {}
    response = _get(app, path, root, **coding)
    assert response.status == 200
    directory = root.rstrip("/").replace(" ", "%20")
    locs = [ref.loc for ref in read_bytes(_text(response))]
    assert locs and sorted(locs) == [
        f"https://example.com{directory}/{c}" for c in _children(published)
    ]
    at_root = _get(app, path, "", **coding)
    assert response.header("ETag") != at_root.header("ETag")
    assert response.header("Content-Length") is None  # its length is known once it is sent
    at_root.close()


def test_at_the_root_the_index_is_the_file_as_published(published: Path) -> None:
    app = sitemap_app(published)
    for root in ("", "/"):
        response = _get(app, "/sitemap.xml.gz", root)
        assert b"".join(response.body) == (published / "sitemap.xml.gz").read_bytes()
        assert response.header("ETag") == _get(app, "/sitemap.xml.gz").header("ETag")


def test_a_mounted_index_answers_304_to_its_own_tag(published: Path) -> None:
    app = sitemap_app(published)
    etag = _get(app, "/sitemap.xml", "/sitemaps").header("ETag")
    assert etag is not None
    again = _get(app, "/sitemap.xml", "/sitemaps", if_none_match=etag)
    assert again.status == 304
    assert _get(app, "/sitemap.xml", "/other", if_none_match=etag).status == 200


def test_a_sitemap_of_urls_is_never_rewritten(published: Path) -> None:
    app = sitemap_app(published)
    child = _children(published)[0]
    response = _get(app, f"/{child}", "/sitemaps")
    assert b"".join(response.body) == (published / child).read_bytes()


def test_only_the_sets_own_children_move(tmp_path: Path) -> None:
    (tmp_path / "sitemap-1.xml").write_text("<urlset/>")
    index = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<sitemap><loc>https://example.com/sitemap-1.xml</loc></sitemap>\n"
        "<sitemap><loc> https://example.com/maps/sitemap-1.xml </loc></sitemap>\n"
        "<sitemap><loc>https://example.com/sitemap-9.xml</loc></sitemap>\n"
        "<sitemap><loc>https://cdn.example.net/x/sitemap-1.xml?v=2</loc></sitemap>\n"
        "<sitemap><loc>https://example.com/sitemaps/sitemap-1.xml</loc></sitemap>\n"
        "</sitemapindex>\n"
    )
    (tmp_path / "sitemap.xml").write_text(index)
    text = _text(_get(sitemap_app(tmp_path), "/sitemap.xml", "/sitemaps")).decode()
    assert re.findall(r"<loc>([^<]*)</loc>", text) == [
        "https://example.com/sitemaps/sitemap-1.xml",
        " https://example.com/sitemaps/sitemap-1.xml ",
        "https://example.com/sitemap-9.xml",  # not a file of this set
        "https://cdn.example.net/x/sitemap-1.xml?v=2",  # a query: not a file name
        "https://example.com/sitemaps/sitemap-1.xml",
    ]


def test_a_set_built_for_its_path_behind_a_proxy_is_left_as_written(tmp_path: Path) -> None:
    """A proxy may serve the app under a path the app does not see: a set built for that
    path (``--sitemap-url``) names its children right, at the root and under a mount."""
    rows = [(f"{BASE}p/{i}",) for i in range(30)]
    limits = CURRENT.lowered(max_urls=10)
    for built_for, root in (("maps/", ""), ("site/sitemaps/", "/sitemaps")):
        out = tmp_path / built_for.replace("/", "-")
        write_sitemaps(rows, out, BASE, limits=limits, gzip=False, sitemap_url=BASE + built_for)
        response = _get(sitemap_app(out), "/sitemap.xml", root)
        assert b"".join(response.body) == (out / "sitemap.xml").read_bytes()


def test_the_rewrite_does_not_depend_on_the_chunks(published: Path) -> None:
    data = gzip.decompress((published / "sitemap.xml.gz").read_bytes())
    names = set(DirectorySet(published).names())

    def served(name: str) -> bool:
        return name + ".gz" in names or name in names

    whole = b"".join(relocated([data], served, "/sitemaps"))
    assert whole != data
    for size in (1, 7, 64):
        pieces = [data[i : i + size] for i in range(0, len(data), size)]
        assert b"".join(relocated(pieces, served, "/sitemaps")) == whole


def test_the_html_view_links_under_the_mount(published: Path) -> None:
    app = sitemap_app(published)
    html = _text(_get(app, "/sitemap.xml?view=html", "/sitemaps")).decode()
    links = re.findall(r'<td class="url"><a href="([^"]+)">([^<]+)</a>', html)
    assert sorted(links) == [
        (f"/sitemaps/{c}", f"https://example.com/sitemaps/{c}") for c in _children(published)
    ]
    assert '<a href="/sitemaps/sitemap.xml?view=xml">XML</a>' in html
    listing = _text(_get(app, "/?view=html", "/sitemaps")).decode()
    assert '<a href="/sitemaps/sitemap.xml.gz">' in listing

"""The framework integrations under real servers on loopback: Django (waitress), Starlette
(uvicorn), Flask (waitress); and Django ``Sitemap`` classes as a live source."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from serve_support import configure_django, django_urls, fetch, uvicorn_server, waitress_server
from urlset import read_bytes, write_sitemaps
from urlset.serve import LiveSet

BASE = "https://example.com/"
CRAWLER = {"Accept-Encoding": "gzip"}
BROWSER = {"Accept": "text/html,application/xml;q=0.9", "Sec-Fetch-Dest": "document"}


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    write_sitemaps([(f"{BASE}page/{i}?q=a&r=b", "2026-11-02") for i in range(120)], out, BASE)
    return out


def _check_mounted(base: str, prefix: str, published: Path) -> None:
    status, headers, body = fetch(base, f"{prefix}/sitemap.xml", headers=CRAWLER)
    assert status == 200 and headers["content-encoding"] == "gzip"
    assert body == (published / "sitemap.xml.gz").read_bytes()
    status, _, again = fetch(
        base, f"{prefix}/sitemap.xml", headers={**CRAWLER, "If-None-Match": headers["etag"]}
    )
    assert status == 304 and again == b""
    status, headers, html = fetch(base, f"{prefix}/sitemap.xml", headers=BROWSER)
    assert status == 200 and headers["content-type"] == "text/html; charset=utf-8"
    assert b"120 URLs" in html
    assert fetch(base, f"{prefix}/sitemap-9.xml")[0] == 404


class _Article:
    def __init__(self, slug: str, changed: datetime) -> None:
        self.slug, self.changed = slug, changed


def _django_sitemaps() -> dict[str, Any]:
    from django.contrib.sitemaps import Sitemap
    from django.utils import translation

    class Articles(Sitemap):  # type: ignore[misc]
        changefreq = "weekly"
        priority = 0.6
        i18n = True
        alternates = True
        x_default = True

        def items(self) -> list[_Article]:
            when = datetime(2026, 11, 3, 9, 30, tzinfo=UTC)
            return [_Article(f"art-{i}&more", when) for i in range(40)]

        def location(self, item: _Article) -> str:
            return f"/{translation.get_language()}/a/{item.slug}"

        def lastmod(self, item: _Article) -> datetime:
            return item.changed

    class Static(Sitemap):  # type: ignore[misc]
        def items(self) -> list[str]:
            return ["/about", "/contact"]

        def location(self, item: str) -> str:
            return item

    return {"articles": Articles, "static": Static()}


@pytest.fixture(scope="module")
def django_site(published: Path) -> Iterator[str]:
    configure_django()
    from django.http import HttpResponse
    from django.urls import path

    from urlset.serve.django import from_django_sitemaps, sitemap_urls

    live = LiveSet(from_django_sitemaps(_django_sitemaps(), BASE), BASE)
    patterns = [
        path("", lambda request: HttpResponse(b"home")),
        *sitemap_urls("sitemaps/", published),
        *sitemap_urls("live/", live),
    ]
    with django_urls(patterns) as application, waitress_server(application) as base:
        yield base


def test_django_serves_a_published_set(django_site: str, published: Path) -> None:
    assert fetch(django_site, "/")[2] == b"home"
    _check_mounted(django_site, "/sitemaps", published)


def test_django_sitemap_classes_become_a_live_set(django_site: str) -> None:
    status, _, index = fetch(django_site, "/live/sitemap.xml")
    assert status == 200
    urls = {}
    by_key: dict[str, int] = {}
    for ref in read_bytes(index):  # a file per key of the sitemaps dict, named after it
        name = ref.loc.rsplit("/", 1)[1]
        status, _, shard = fetch(django_site, "/live/" + name)
        found = {url.loc: url for url in read_bytes(shard)}
        by_key[name.split("-")[1]] = len(found)
        urls.update(found)
    assert by_key == {"articles": 80, "static": 2}  # 40 articles in two languages
    assert len(urls) == 82
    article = urls[f"{BASE}de/a/art-7&more"]
    assert article.lastmod == datetime(2026, 11, 3, 9, 30, tzinfo=UTC)
    assert article.priority == 0.6 and article.changefreq is not None
    links = {(a.hreflang, a.href) for a in article.extensions}
    assert links == {
        ("en", f"{BASE}en/a/art-7&more"),
        ("de", f"{BASE}de/a/art-7&more"),
        ("x-default", f"{BASE}a/art-7&more"),
    }
    assert f"{BASE}about" in urls


def test_django_keys_become_safe_section_names_or_none(tmp_path: Path) -> None:
    configure_django()
    from urlset.serve.django import from_django_sitemaps

    given = _django_sitemaps()
    sitemaps = {"Blog Posts": given["articles"], "index": given["static"]}
    live = LiveSet(from_django_sitemaps(sitemaps, BASE), BASE, directory=tmp_path / "named")
    # cleaned as a path's directory is: "index" would read as the set's own index
    assert {f.name.rsplit("-", 2)[0] for f in live.refresh().files} == {
        "sitemap-blog-posts",
        "sitemap-s-index",
    }
    plain = LiveSet(from_django_sitemaps(sitemaps, BASE, sections=False), BASE, directory=tmp_path)
    assert [f.name.split("-")[1] for f in plain.refresh().files] == ["1"]


def test_starlette_mount_under_uvicorn(published: Path) -> None:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    from urlset.serve.starlette import sitemap_mount

    async def home(request: Any) -> PlainTextResponse:
        return PlainTextResponse("home")

    app = Starlette(routes=[Route("/", home), sitemap_mount("/sitemaps", published)])
    with uvicorn_server(app) as base:
        assert fetch(base, "/")[2] == b"home"
        _check_mounted(base, "/sitemaps", published)


def test_flask_mount_under_waitress(published: Path) -> None:
    from flask import Flask

    from urlset.serve.flask import mount_on_flask

    app = Flask("urlset_test_site")
    app.add_url_rule("/", "home", lambda: "home")
    mount_on_flask(app, "/sitemaps", published)
    with waitress_server(app) as base:
        assert fetch(base, "/")[2] == b"home"
        _check_mounted(base, "/sitemaps", published)
        status, headers, body = fetch(base, "/sitemaps/sitemap.xml.gz")
        assert status == 200 and headers["content-type"] == "application/gzip"
        assert b"<urlset" in gzip.decompress(body)

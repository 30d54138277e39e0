"""The sans-I/O server core on a published directory: which bytes, with which headers."""

from __future__ import annotations

import gzip
import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from urlset import CURRENT, Limits, write_sitemaps
from urlset.serve import DirectorySet, Request, Response, SitemapApp

BASE = "https://example.com/"
NOW = datetime(2026, 11, 25, 12, tzinfo=UTC)


def _urls(count: int) -> list[tuple[str, str, str, str]]:
    return [
        (f"{BASE}p/{i}?a=1&b=é", f"2026-0{1 + i % 9}-1{i % 10}", "daily", "0.5")
        for i in range(count)
    ]


@pytest.fixture
def published(tmp_path: Path) -> Path:
    """A set of three gzipped sitemaps and an index, as ``urlset build`` writes it."""
    out = tmp_path / "out"
    write_sitemaps(_urls(2500), out, BASE, limits=_limits(1000), now=NOW)
    return out


def _limits(max_urls: int) -> Limits:
    return CURRENT.lowered(max_urls=max_urls)


def _app(directory: Path) -> SitemapApp:
    return SitemapApp(DirectorySet(directory), clock=lambda: NOW)


def _get(app: SitemapApp, path: str, method: str = "GET", **headers: str) -> Response:
    named = {k.replace("_", "-").lower(): v for k, v in headers.items()}
    path, _, query = path.partition("?")
    return app.respond(Request(method, path, named, query))


def _body(response: Response) -> bytes:
    return b"".join(response.body)


def test_a_gz_name_is_served_as_the_gzip_file_it_is(published: Path) -> None:
    app = _app(published)
    index = DirectorySet(published).entry_points()[0]
    assert index == "sitemap.xml.gz"
    response = _get(app, f"/{index}", accept_encoding="gzip")
    assert response.status == 200
    assert response.header("Content-Type") == "application/gzip"
    assert response.header("Content-Encoding") is None
    body = _body(response)
    assert body == (published / index).read_bytes()
    assert response.header("Content-Length") == str(len(body))
    assert response.header("X-Robots-Tag") == "noindex"
    assert b"<sitemapindex" in gzip.decompress(body)


def test_the_name_without_gz_is_inflated_or_sent_gzip_coded(published: Path) -> None:
    app = _app(published)
    stored = (published / "sitemap.xml.gz").read_bytes()
    plain = _get(app, "/sitemap.xml")
    assert plain.header("Content-Type") == "application/xml; charset=utf-8"
    assert _body(plain) == gzip.decompress(stored)
    assert plain.header("Content-Length") == str(len(gzip.decompress(stored)))
    coded = _get(app, "/sitemap.xml", accept_encoding="br;q=1, gzip;q=0.5")
    assert coded.header("Content-Encoding") == "gzip"
    assert _body(coded) == stored
    assert coded.header("ETag") != plain.header("ETag")
    refused = _get(app, "/sitemap.xml", accept_encoding="gzip;q=0, identity")
    assert refused.header("Content-Encoding") is None


def test_uncompressed_files_are_gzipped_on_the_fly_deterministically(tmp_path: Path) -> None:
    out = tmp_path / "out"
    write_sitemaps(_urls(30), out, BASE, gzip=False, now=NOW)
    app = _app(out)
    first = _get(app, "/sitemap.xml", accept_encoding="gzip")
    second = _get(app, "/sitemap.xml", accept_encoding="gzip")
    data = _body(first)
    assert data == _body(second)
    assert gzip.decompress(data) == (out / "sitemap.xml").read_bytes()
    assert first.header("Content-Length") is None  # streamed as compressed
    digest = hashlib.sha256((out / "sitemap.xml").read_bytes()).hexdigest()
    assert first.header("ETag") == f'"{digest[:32]}-gz{_zlib_ng_version()}"'
    plain = _get(app, "/sitemap.xml")
    assert plain.header("ETag") == f'"{digest[:32]}"'


def _zlib_ng_version() -> str:
    from zlib_ng import zlib_ng

    return str(zlib_ng.ZLIBNG_VERSION).replace(".", "")


def test_each_representation_of_a_stored_gz_file_has_its_own_tag(published: Path) -> None:
    app = _app(published)
    stored = hashlib.sha256((published / "sitemap.xml.gz").read_bytes()).hexdigest()[:32]
    assert _get(app, "/sitemap.xml.gz").header("ETag") == f'"{stored}"'
    assert _get(app, "/sitemap.xml", accept_encoding="gzip").header("ETag") == f'"{stored}"'
    assert _get(app, "/sitemap.xml").header("ETag") == f'"{stored}-id"'


def test_etag_and_last_modified_answer_304(published: Path) -> None:
    app = _app(published)
    first = _get(app, "/sitemap.xml")
    etag = first.header("ETag")
    assert etag is not None and etag.startswith('"') and not etag.startswith("W/")
    # the index's lastmod is the newest child's: 2026-09-19 here, not the file's mtime
    assert first.header("Last-Modified") == "Sat, 19 Sep 2026 00:00:00 GMT"
    again = _get(app, "/sitemap.xml", if_none_match=f'"other", {etag}')
    assert again.status == 304 and _body(again) == b""
    assert again.header("ETag") == etag
    assert _get(app, "/sitemap.xml", if_none_match='"other"').status == 200
    since = _get(app, "/sitemap.xml", if_modified_since="Sun, 20 Sep 2026 00:00:00 GMT")
    assert since.status == 304
    older = _get(app, "/sitemap.xml", if_modified_since="Fri, 18 Sep 2026 00:00:00 GMT")
    assert older.status == 200
    # If-None-Match decides when both are sent
    both = _get(
        app,
        "/sitemap.xml",
        if_none_match='"other"',
        if_modified_since="Sun, 20 Sep 2026 00:00:00 GMT",
    )
    assert both.status == 200
    assert _get(app, "/sitemap.xml", if_modified_since="not a date").status == 200


def test_head_sends_the_headers_without_a_body(published: Path) -> None:
    app = _app(published)
    head = _get(app, "/sitemap.xml", "HEAD")
    get = _get(app, "/sitemap.xml")
    assert head.status == 200 and _body(head) == b""
    assert head.headers == get.headers


def test_missing_shards_bad_names_and_methods(published: Path) -> None:
    app = _app(published)
    for path in ("/sitemap-9-0000000000000000.xml.gz", "/../etc/passwd", "/a/b.xml", "/.x.xml"):
        response = _get(app, path)
        assert response.status == 404, path
        assert b"sitemap.xml.gz" in _body(response)  # says where to start
    post = _get(app, "/sitemap.xml", "POST")
    assert post.status == 405 and post.header("Allow") == "GET, HEAD"


def test_every_child_the_index_lists_is_served(published: Path) -> None:
    from urlset import read_bytes

    app = _app(published)
    refs = list(read_bytes(_body(_get(app, "/sitemap.xml"))))
    assert len(refs) == 3
    total = 0
    for ref in refs:
        name = ref.loc.rsplit("/", 1)[1]
        response = _get(app, f"/{name}")
        assert response.status == 200
        total += len(list(read_bytes(_body(response))))
    assert total == 2500


def test_last_modified_is_never_in_the_future(published: Path) -> None:
    earlier = datetime(2026, 9, 1, 8, tzinfo=UTC)  # a server clock behind the lastmods
    app = SitemapApp(DirectorySet(published), clock=lambda: earlier)
    assert _get(app, "/sitemap.xml").header("Last-Modified") == "Tue, 01 Sep 2026 08:00:00 GMT"


def test_the_package_imports_no_framework() -> None:
    import subprocess
    import sys

    code = (
        "import sys, urlset.serve, urlset.serve.asgi, urlset.serve.wsgi, urlset.serve.html;"
        "print(sorted(m for m in ('django', 'flask', 'starlette', 'uvicorn', 'waitress',"
        " 'werkzeug') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"

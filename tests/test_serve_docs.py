"""The serve guide's code (docs/guides/serve.md), run as written: each python block of the
page (the ASGI and WSGI apps, Django, Starlette, FastAPI, Flask) is executed with the names its
comment says you bring (``sitemaps``, ``urlpatterns``, ``app``), under a real server on loopback, with
``https://example.com/`` standing for that server. Each set it serves is then requested
as a crawler does: the entry point, and every child the index names, at the URL it names,
plain and gzip-coded, all 200; ``urlset check URL`` finds no error (under a path, only the
protocol's location rule, which the site's robots.txt lifts: ``urlset robots --check`` of
that robots.txt is clean). tests/test_docs.py skips the framework blocks, whose names you
bring (and whose Django settings are per process), saying that they run here.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from serve_support import (
    LaterAsgi,
    LaterWsgi,
    check_errors,
    configure_django,
    crawl,
    django_urls,
    uvicorn_server,
    waitress_server,
)
from urlset import CURRENT, write_sitemaps
from urlset.cli import main

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "guides" / "serve.md"
PLACEHOLDER = "https://example.com/"
CRAWLER = {"Accept-Encoding": "gzip"}


def _python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.S)


def _block(first_line: str) -> str:
    """The guide's python block that starts with ``first_line`` (or holds it)."""
    blocks = _python_blocks(GUIDE.read_text(encoding="utf-8"))
    found = [b for b in blocks if b.startswith(first_line) or first_line in b]
    assert len(found) == 1, f"one block of the guide with {first_line!r}, found {len(found)}"
    return found[0]


def _run(block: str, base: str, names: dict[str, Any]) -> dict[str, Any]:
    code = block.replace(PLACEHOLDER, base + "/")
    exec(compile(code, str(GUIDE), "exec"), names)  # the guide's code, as written
    return names


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project folder as the guide assumes: public/sitemaps (published later, once the
    server's address is known) and site.db."""
    monkeypatch.chdir(tmp_path)
    connection = sqlite3.connect(tmp_path / "site.db")
    connection.execute("create table page (slug text, updated text, public int)")
    rows = [(f"page/{i}", "2026-11-02", i % 5 != 0) for i in range(40)]
    connection.executemany("insert into page values (?, ?, ?)", rows)
    connection.commit()
    connection.close()
    return tmp_path


def _publish(site: Path, base: str, **options: Any) -> None:
    rows = [(f"{base}/page/{i}", "2026-11-02") for i in range(120)]
    limits = CURRENT.lowered(max_urls=50)
    write_sitemaps(rows, site / "public" / "sitemaps", base + "/", limits=limits, **options)


def _robots_check(base: str) -> None:
    result = CliRunner().invoke(main, ["robots", f"{base}/robots.txt", "--check"])
    assert result.exit_code == 0, result.output
    assert "0 errors, 0 warnings" in result.output


def _robots_txt(base: str, *indexes: str) -> str:
    return "".join(f"Sitemap: {base}{index}\n" for index in indexes)


def test_the_asgi_and_wsgi_apps(site: Path) -> None:
    block = _block("import sqlite3")
    later_asgi, later_wsgi = LaterAsgi(), LaterWsgi()
    with uvicorn_server(later_asgi) as asgi_base, waitress_server(later_wsgi) as wsgi_base:
        _publish(site, wsgi_base)
        names = _run(block, asgi_base, {})
        later_asgi.app = names["app"]  # the live set, at the site's root
        later_wsgi.app = names["application"]  # the published set, at the site's root
        urls = crawl(asgi_base, "/sitemap.xml")
        assert len(urls) == 32  # the public pages of site.db
        assert check_errors(f"{asgi_base}/sitemap.xml") == set()
        assert len(crawl(wsgi_base, "/sitemap.xml")) == 120
        assert check_errors(f"{wsgi_base}/sitemap.xml") == set()


def _django_sitemaps() -> dict[str, Any]:
    from django.contrib.sitemaps import Sitemap

    class Pages(Sitemap):  # type: ignore[misc]
        changefreq = "weekly"

        def items(self) -> list[int]:
            return list(range(25))

        def location(self, item: int) -> str:
            return f"/article/{item}"

    return {"pages": Pages}


def test_django(site: Path) -> None:
    configure_django()
    from django.http import HttpResponse
    from django.urls import path

    later = LaterWsgi()
    with waitress_server(later) as base:
        _publish(site, base)
        robots = _robots_txt(base, "/sitemaps/sitemap.xml", "/published/sitemap.xml")
        urlpatterns = [path("robots.txt", lambda request: HttpResponse(robots))]
        names = _run(
            _block("# Django"), base, {"sitemaps": _django_sitemaps(), "urlpatterns": urlpatterns}
        )
        with django_urls(names["urlpatterns"]) as application:
            later.app = application
            assert len(crawl(base, "/sitemaps/sitemap.xml")) == 25
            assert len(crawl(base, "/published/sitemap.xml")) == 120
            for index in ("/sitemaps/sitemap.xml", "/published/sitemap.xml"):
                assert check_errors(f"{base}{index}") <= {"url-not-allowed"}
            _robots_check(base)


def _starlette_site(base_holder: list[str], robots: Callable[[str], str]) -> Any:
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route

    async def robots_txt(request: Any) -> PlainTextResponse:
        return PlainTextResponse(robots(base_holder[0]))

    return Starlette(routes=[Route("/robots.txt", robots_txt)])


@pytest.mark.parametrize("framework", ["Starlette", "FastAPI"])
def test_starlette_and_fastapi(site: Path, framework: str) -> None:
    """FastAPI's ``app.mount`` is Starlette's: without FastAPI installed, its block runs on a
    Starlette app."""
    later = LaterAsgi()
    holder: list[str] = []
    index = "/sitemaps/sitemap.xml" if framework == "Starlette" else "/live/sitemap.xml"
    app = _starlette_site(holder, lambda base: _robots_txt(base, index))
    if framework == "FastAPI":
        try:
            from fastapi import FastAPI
        except ImportError:
            pass
        else:
            app = FastAPI()
            app.add_api_route("/robots.txt", lambda: _robots_txt(holder[0], index))
    with uvicorn_server(later) as base:
        holder.append(base)
        _publish(site, base)
        later.app = _run(_block(f"# {framework}"), base, {"app": app})["app"]
        assert len(crawl(base, index)) == (120 if framework == "Starlette" else 1)
        assert check_errors(f"{base}{index}") <= {"url-not-allowed"}
        _robots_check(base)


def test_flask(site: Path) -> None:
    from flask import Flask

    app = Flask("urlset_docs_site")
    holder: list[str] = []
    app.add_url_rule(
        "/robots.txt", "robots", lambda: _robots_txt(holder[0], "/sitemaps/sitemap.xml")
    )
    later = LaterWsgi()
    with waitress_server(later) as base:
        holder.append(base)
        _publish(site, base)
        later.app = _run(_block("# Flask"), base, {"app": app})["app"]
        assert len(crawl(base, "/sitemaps/sitemap.xml")) == 120
        assert check_errors(f"{base}/sitemaps/sitemap.xml") <= {"url-not-allowed"}
        _robots_check(base)


def test_every_block_of_the_guide_is_run_here() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    firsts = sorted(b.splitlines()[0].split(",")[0].split(" (")[0] for b in _python_blocks(text))
    assert firsts == ["# Django", "# FastAPI", "# Flask", "# Starlette", "import sqlite3"]


def test_the_docs_test_skips_exactly_the_framework_blocks_and_says_they_run_here() -> None:
    """tests/test_docs.py runs the page too: the blocks whose names you bring are skipped there,
    with this file named as where they run; the ASGI and WSGI block runs in both. Django takes
    one configuration per process: a docs page configuring it for its examples would shadow
    configure_django's (its default LANGUAGES gave test_serve_frameworks 3,962 URLs, not 82)."""
    text = GUIDE.read_text(encoding="utf-8")
    docs = sorted((GUIDE.parents[1]).rglob("*.md"))
    assert not [page for page in docs if "settings.configure" in page.read_text(encoding="utf-8")]
    skips = re.findall(r"<!-- skip: start \"([^\"]*)\" -->(.*?)<!-- skip: end -->", text, re.S)
    assert len(skips) == 1, "one skipped region, the framework blocks"
    reason, region = skips[0]
    assert Path(__file__).name in reason
    skipped = sorted(b.splitlines()[0].split(",")[0].split(" (")[0] for b in _python_blocks(region))
    assert skipped == ["# Django", "# FastAPI", "# Flask", "# Starlette"]

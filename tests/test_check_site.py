"""``urlset check URL`` of a site: its sitemaps found as ``fetch`` finds them (robots.txt,
an index's children), downloaded with the fetcher's retries, and checked with the rules
across files (real HTTP on a loopback server the test starts)."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from aiohttp import web
from click.testing import CliRunner

from test_fetch_faults import resetting
from test_fetch_support import LoopbackServer, fast_http, sitemapindex
from urlset.checking.checker import CheckOptions
from urlset.cli import main
from urlset.sitecheck.driver import check_site

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def urlset_doc(server: LoopbackServer, name: str, *lastmods: str) -> bytes:
    entries = "".join(
        f"<url><loc>{server.url(f'/{name}/{i}')}</loc><lastmod>{lastmod}</lastmod></url>\n"
        for i, lastmod in enumerate(lastmods)
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{entries}</urlset>\n'
    ).encode()


@pytest.fixture
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.add(
            "/robots.txt",
            f"User-agent: *\nAllow: /\nSitemap: {server.url('/index.xml')}\n".encode(),
            "text/plain",
        )
        server.add(
            "/index.xml",
            sitemapindex(
                [
                    (server.url("/a.xml"), "2024-01-01"),
                    (server.url("/b.xml"), "2024-05-01"),
                    (server.url("/gone.xml"), "2024-01-01"),
                ]
            ),
        )
        server.add("/a.xml", urlset_doc(server, "a", "2024-03-01", "2031-01-01"))
        # reset half-way the first time: the fetcher's retry reads it whole
        server.handle("/b.xml", resetting(urlset_doc(server, "b", *["2024-04-01"] * 400), times=1))
        yield server


def test_a_site_is_discovered_retried_and_checked_across_files(site: LoopbackServer) -> None:
    report = check_site(site.url("/"), CheckOptions(now=NOW), http=fast_http())
    by_url = {f.source: f for f in report.files}
    index, a, b, gone = (
        by_url[site.url(p)] for p in ("/index.xml", "/a.xml", "/b.xml", "/gone.xml")
    )
    # the cross-file rule: the index says a.xml changed 2024-01-01, a page in it 2024-03-01
    assert [i.code for i in index.issues].count("stale-index-lastmod") == 1
    assert "future-lastmod" in {i.code for i in a.issues}
    assert site.hits["/b.xml"] == 2 and b.entries == 400
    assert not [i for i in b.issues if i.severity == "error"], b.issues
    # the 404 said once, as the directory check says a listed file is not there
    assert [i.code for i in gone.issues] == ["missing-child"]
    assert not report.not_started


def test_check_cli_takes_a_site_url(site: LoopbackServer) -> None:
    result = CliRunner().invoke(
        main, ["check", site.url("/"), "--now", "2026-01-01", "--format", "json"]
    )
    # gone.xml, listed and 404, is a finding: 1; 2 is for a run that could not start
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    sources = {f["source"] for f in report["files"]}
    assert {site.url(p) for p in ("/index.xml", "/a.xml", "/b.xml", "/gone.xml")} <= sources
    b = next(f for f in report["files"] if f["source"] == site.url("/b.xml"))
    assert b["entries"] == 400 and b["errors"] == 0


def test_check_url_exits_2_only_when_the_start_is_not_fetched(site: LoopbackServer) -> None:
    gone = CliRunner().invoke(main, ["check", site.url("/gone.xml"), "--format", "json"])
    assert gone.exit_code == 2, gone.output  # the start itself: the run could not start
    assert [i["code"] for i in json.loads(gone.output)["files"][0]["issues"]] == ["cannot-read"]
    # the same 404 as a child of the index the run started from: a finding
    index = CliRunner().invoke(main, ["check", site.url("/index.xml"), "--now", "2026-01-01"])
    assert index.exit_code == 1, index.output


def test_the_count_of_index_entries_without_lastmod_is_the_whole_count() -> None:
    with LoopbackServer() as server:
        children = [server.url(f"/s{n}.xml") for n in range(10)]
        server.add("/index.xml", sitemapindex(children))
        for n in range(10):
            # half the children have lastmods of their own, half have none
            lastmods = ["2024-01-01"] if n % 2 else []
            body = urlset_doc(server, f"s{n}", *lastmods) if lastmods else _no_lastmod(server, n)
            server.add(f"/s{n}.xml", body)
        report = check_site(server.url("/index.xml"), CheckOptions(now=NOW), http=fast_http())
    index = next(f for f in report.files if f.source == server.url("/index.xml"))
    (missing,) = [i for i in index.issues if i.code == "missing-index-lastmod"]
    assert missing.message.startswith("10 of 10 index entries have no <lastmod>"), missing


def _no_lastmod(server: LoopbackServer, n: int) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        f"<url><loc>{server.url(f'/s{n}/0')}</loc></url>\n</urlset>\n"
    ).encode()


def test_check_url_ends_at_its_deadline_with_what_was_read() -> None:
    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(5)
        return web.Response(body=b"", content_type="application/xml")

    with LoopbackServer() as server:
        server.add("/index.xml", sitemapindex([server.url("/fast.xml"), server.url("/slow.xml")]))
        server.add("/fast.xml", urlset_doc(server, "fast", "2024-01-01"))
        server.handle("/slow.xml", slow)
        started = time.monotonic()
        result = CliRunner().invoke(
            main,
            ["check", server.url("/index.xml"), "--deadline", "1", "--format", "json"],
        )
        took = time.monotonic() - started
    assert took < 4, took
    report = json.loads(result.output)
    by_source = {f["source"]: f for f in report["files"]}
    assert by_source[server.url("/fast.xml")]["entries"] == 1
    slow_codes = {i["code"] for i in by_source[server.url("/slow.xml")]["issues"]}
    assert slow_codes & {"cannot-read", "deadline"}, slow_codes
    assert result.exit_code == 1  # the run started: what it could not read is a finding


def test_check_deadline_bounds_the_whole_run_over_several_urls() -> None:
    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(5)
        return web.Response(body=b"", content_type="application/xml")

    with LoopbackServer() as server:
        for name in ("a", "b", "c"):
            server.handle(f"/{name}.xml", slow)
        started = time.monotonic()
        result = CliRunner().invoke(
            main,
            ["check", *(server.url(f"/{n}.xml") for n in "abc"), "--deadline", "1.5"],
        )
        took = time.monotonic() - started
    # one deadline for the run: three 5 s downloads end together within it, not 3 x 1.5 s
    assert took < 3.5, took
    assert result.exit_code == 2 and "Traceback" not in result.output

"""audit --crawl: the site crawled beside the audit finds indexable linked pages that no
sitemap lists, and listed URLs that no page links to (orphans)."""

from __future__ import annotations

from click.testing import CliRunner

from sources_support import html_page
from test_fetch_support import NS, LoopbackServer, fast_http
from urlset.auditing.driver import Audit, AuditOptions
from urlset.cli import main

HTML = "text/html"


def _site(server: LoopbackServer) -> str:
    links = "".join(f'<a href="{p}">x</a>' for p in ("/a", "/b", "/unlisted", "/hidden"))
    server.add("/", html_page(body=links).encode(), HTML)
    for path in ("/a", "/b", "/unlisted", "/orphan"):
        server.add(path, html_page().encode(), HTML)
    server.add("/hidden", html_page(head='<meta name="robots" content="noindex">').encode(), HTML)
    listed = ("/", "/a", "/b", "/orphan")
    body = "".join(f"<url><loc>{server.url(p)}</loc></url>" for p in listed)
    server.add("/sitemap.xml", f"<urlset {NS}>{body}</urlset>".encode())
    return server.url("/sitemap.xml")


def test_crawl_finds_unlisted_pages_and_orphans() -> None:
    with LoopbackServer() as server:
        target = _site(server)
        report = Audit(target, AuditOptions(http=fast_http(), crawl=True)).run_sync()
        unlisted = [i.source for i in report.examples["unlisted-page"]]
        orphans = [i.source for i in report.examples["orphan-page"]]
        # the noindex page is linked and unlisted, but rightly so: not reported
        assert unlisted == [server.url("/unlisted")]
        assert orphans == [server.url("/orphan")]
        assert any("--crawl from" in note for note in report.notes)


def test_a_crawl_cut_short_judges_no_orphans() -> None:
    with LoopbackServer() as server:
        target = _site(server)
        args = ["audit", target, "--crawl", "--max-pages", "1", "--fail-on", "warning"]
        result = CliRunner().invoke(main, args)
    assert "orphans are not judged" in result.output
    assert "orphan-page" not in result.output
    assert result.exit_code == 0, result.output  # the home page alone: nothing unlisted

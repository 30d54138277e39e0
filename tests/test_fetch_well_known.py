"""Discovery's well-known locations: the list the best consumers try, each one request, only
when robots.txt names none (or always, when asked), what is found read once and reported
with how it was found."""

from __future__ import annotations

from aiohttp import web
from click.testing import CliRunner

from test_fetch_discovery import Doc, S, Site, all_locs, codes, index, robots, run, urls
from test_fetch_support import LoopbackServer, sitemapindex
from test_fetch_support import urlset as urlset_doc
from urlset.cli import main
from urlset.fetching.discovery import WELL_KNOWN, DiscoveryOptions
from urlset.fetching.report import render_tree, summary

FAST = ["--timeout", "3", "--read-timeout", "1", "--retries", "3"]


def test_the_list_holds_each_common_location() -> None:
    # the generic names, gzipped, WordPress core and Yoast/Rank Math, Drupal without clean
    # URLs, PHP generators, a folder, the text form, Google News names
    for path in (
        "/sitemap.xml", "/sitemap_index.xml", "/sitemap-index.xml", "/sitemap.xml.gz",
        "/wp-sitemap.xml", "/sitemap.php", "/sitemap.txt", "/sitemap/sitemap.xml",
        "/sitemaps.xml", "/sitemap/index.xml", "/index.php?q=sitemap.xml",
        "/sitemap_news.xml", "/news-sitemap.xml", "/sitemap-news.xml", "/post-sitemap.xml",
        "/page-sitemap.xml",
    ):  # fmt: skip
        assert path in WELL_KNOWN, path
    assert len(set(WELL_KNOWN)) == len(WELL_KNOWN) <= 20  # bounded: one request each


def test_a_yoast_site_without_robots_lines_is_read_once_and_says_how() -> None:
    site = Site(
        {
            f"{S}/robots.txt": robots("User-agent: *\nDisallow:\n"),
            f"{S}/sitemap_index.xml": index(f"{S}/post-sitemap.xml", f"{S}/page-sitemap.xml"),
            f"{S}/post-sitemap.xml": Doc(items=urls("post", 3)),
            f"{S}/page-sitemap.xml": Doc(items=urls("page", 2)),
        }
    )
    result, reads = run(S, site)
    assert sorted(all_locs(reads)) == sorted(u.loc for u in urls("post", 3) + urls("page", 2))
    assert site.urls_of().count(f"{S}/post-sitemap.xml") == 1  # probed or listed: read once
    assert "no-sitemaps" not in codes(result) and not result.partial
    said = summary(result)
    assert "found at well-known locations: /sitemap_index.xml" in said
    assert "found at a well-known location" in render_tree(result)


def test_drupal_s_query_location_is_tried() -> None:
    site = Site({f"{S}/index.php?q=sitemap.xml": Doc(items=urls("d", 1))})
    result, reads = run(S, site)
    assert all_locs(reads) == [f"{S}/d/0"]
    assert "/index.php?q=sitemap.xml" in summary(result)


def test_only_when_robots_names_none_unless_always() -> None:
    docs = {
        f"{S}/robots.txt": robots(f"Sitemap: {S}/main.xml\n"),
        f"{S}/main.xml": Doc(items=urls("m", 1)),
        f"{S}/sitemap_news.xml": Doc(items=urls("news", 1)),
    }
    site = Site(docs)
    _, reads = run(S, site)
    assert all_locs(reads) == [f"{S}/m/0"]
    assert site.urls_of() == [f"{S}/main.xml"]  # nothing guessed
    site = Site(docs)
    result, reads = run(S, site, DiscoveryOptions(probe_always=True))
    assert all_locs(reads) == [f"{S}/m/0", f"{S}/news/0"]
    assert site.urls_of().count(f"{S}/main.xml") == 1
    assert len(site.urls_of()) == 1 + len(WELL_KNOWN)
    # probes that find nothing beside named sitemaps are no "no sitemap found" error
    site = Site({k: v for k, v in docs.items() if "news" not in k})
    result, _ = run(S, site, DiscoveryOptions(probe_always=True))
    assert "no-sitemaps" not in codes(result) and not result.errors


def test_each_probe_is_one_request_even_when_the_server_fails() -> None:
    async def busy(_request: web.Request) -> web.StreamResponse:
        return web.Response(status=503, text="busy")

    with LoopbackServer() as server:
        for path in WELL_KNOWN:
            server.handle(path.split("?")[0], busy)
        server.handlers.pop("/sitemap_news.xml")  # the one that is there
        server.add("/sitemap_news.xml", urlset_doc([server.url("/n")]))
        result = CliRunner().invoke(main, ["fetch", server.base, *FAST], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        assert result.stdout.count('"loc"') == 1
        # not retried (--retries 3 would make it four): a guess is not worth a second try
        assert max(server.hits[p.split("?")[0]] for p in WELL_KNOWN) == 1
        assert "found at well-known locations: /sitemap_news.xml" in result.stderr


def test_cli_always_probe() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", f"Sitemap: {server.url('/a.xml')}\n".encode(), "text/plain")
        server.add("/a.xml", urlset_doc([server.url("/a")]))
        server.add("/sitemap_index.xml", sitemapindex([server.url("/b.xml")]))
        server.add("/b.xml", urlset_doc([server.url("/b")]))
        plain = CliRunner().invoke(main, ["fetch", server.base, "--format", "locs", *FAST])
        assert plain.stdout.splitlines() == [server.url("/a")]
        both = CliRunner().invoke(
            main, ["fetch", server.base, "--format", "locs", "--always-probe", *FAST]
        )
        assert both.exit_code == 0, both.output
        assert both.stdout.splitlines() == [server.url("/a"), server.url("/b")]

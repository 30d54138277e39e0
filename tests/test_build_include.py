"""Other generators' sitemaps in the index (``--include-sitemap``, ``--include-sitemaps``,
``--include-fetch``, ``write_sitemaps(include=)``): listed after the set's own files, held to
the index rules check applies (same site; not the www. twin; not one of the set's own
names), fetched from a loopback server for their newest lastmod, and kept across
``--update``. A set built with them checks clean."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import locs
from test_fetch_support import NS, LoopbackServer, fast_http, sitemapindex
from urlset import SitemapRef, write_sitemaps
from urlset.cli import main
from urlset.fetching.included import with_newest_lastmods

BASE = "https://www.example.com/"
SHOP = f"{BASE}shop/sitemap.xml"  # ends in the index's own name: not the index itself
FEED = f"{BASE}feeds/products-1.xml"


def _index(out: Path) -> str:
    return (out / "sitemap.xml").read_text()


def _build(tmp_path: Path, out: Path, *args: str) -> str:
    source = tmp_path / "urls.txt"
    source.write_text(f"{BASE}a\n{BASE}b\n")
    common = [str(source), "--base-url", BASE, "--out", str(out), "--no-gzip"]
    result = CliRunner().invoke(main, ["build", *common, *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_included_sitemaps_follow_the_sets_own_files_in_its_index(tmp_path: Path) -> None:
    listed = tmp_path / "more.txt"
    listed.write_text(f"# the shop platform's\n{FEED}\n\n{SHOP}\n")
    out = tmp_path / "out"
    said = _build(tmp_path, out, "--include-sitemap", SHOP, "--include-sitemaps", str(listed))
    assert "listed 2 other sitemaps in the index" in said
    children = locs(out / "sitemap.xml")  # one file of our own: an index all the same
    assert len(children) == 3 and children[1:] == [SHOP, FEED]
    assert re.fullmatch(re.escape(BASE) + r"sitemap-1-[0-9a-f]{16}\.xml", children[0])
    checked = CliRunner().invoke(main, ["check", str(out)])
    # neither nested (shop/sitemap.xml is not this index) nor missing (published elsewhere)
    assert checked.exit_code == 0, checked.output
    assert "nested-index" not in checked.output and "missing-child" not in checked.output


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("https://shop.example.net/sitemap.xml", "index-other-site"),
        ("https://example.com/sitemap.xml", "www-variant"),
        ("http://www.example.com/sitemap.xml", "index-other-site"),
        ("https://www.example.com:8443/sitemap.xml", "index-other-site"),
        (f"{BASE}sitemap-3-0123456789abcdef.xml", "own files"),
        (f"{BASE}sitemap.xml", "own files"),
        ("shop/sitemap.xml", "not a URL"),
    ],
)
def test_an_included_sitemap_off_the_index_site_is_a_usage_error(
    given: str, said: str, tmp_path: Path
) -> None:
    source = tmp_path / "urls.txt"
    source.write_text(f"{BASE}a\n")
    out = tmp_path / "out"
    args = [str(source), "--base-url", BASE, "--out", str(out), "--include-sitemap", given]
    result = CliRunner().invoke(main, ["build", *args])
    assert result.exit_code == 2 and said in result.output, result.output
    assert not out.exists()


def test_a_missing_list_or_a_fetch_of_nothing_is_a_usage_error(tmp_path: Path) -> None:
    base = [
        "build",
        "-",
        "--input-format",
        "text",
        "--base-url",
        BASE,
        "--out",
        str(tmp_path / "o"),
    ]
    result = CliRunner().invoke(main, [*base, "--include-sitemaps", str(tmp_path / "none.txt")])
    assert result.exit_code == 2 and "none.txt" in result.output
    result = CliRunner().invoke(main, [*base, "--include-fetch"], input=f"{BASE}a\n")
    assert result.exit_code == 2 and "--include-sitemap" in result.output


def _lastmods(out: Path) -> dict[str, str | None]:
    text = _index(out)
    found = re.findall(r"<loc>([^<]*)</loc>(?:<lastmod>([^<]*)</lastmod>)?", text)
    return {loc: lastmod or None for loc, lastmod in found}


def test_fetched_sitemaps_give_their_newest_lastmod(tmp_path: Path) -> None:
    with LoopbackServer() as server:
        site = server.base + "/"
        blog = (
            f"<urlset {NS}><url><loc>{site}b/1</loc><lastmod>2025-05-02</lastmod></url>"
            f"<url><loc>{site}b/2</loc><lastmod>2025-05-02T10:00:00+00:00</lastmod></url>"
            f"<url><loc>{site}b/3</loc><lastmod>2024-01-01</lastmod></url></urlset>"
        ).encode()
        server.add("/blog/sitemap.xml", blog)
        server.add("/shop/index.xml", sitemapindex([site + "shop/a.xml"]))
        shop = f"<urlset {NS}><url><loc>{site}p/1</loc><lastmod>2025-06-01</lastmod></url></urlset>"
        server.add("/shop/a.xml", shop.encode())
        source = tmp_path / "urls.txt"
        source.write_text(f"{site}a\n")
        out = tmp_path / "out"
        args = [str(source), "--base-url", site, "--out", str(out), "--no-gzip", "--include-fetch"]
        for path in ("/blog/sitemap.xml", "/shop/index.xml", "/gone.xml"):
            args += ["--include-sitemap", site + path[1:]]
        result = CliRunner().invoke(main, ["build", *args])
        assert result.exit_code == 0, result.output
        assert "gone.xml: HTTP 404; listed with the lastmod it was given" in result.output
        lastmods = _lastmods(out)
        # the date is newer than the time on its day, as check orders them
        assert lastmods[site + "blog/sitemap.xml"] == "2025-05-02"
        assert lastmods[site + "shop/index.xml"] == "2025-06-01"  # its child's, one level down
        assert lastmods[site + "gone.xml"] is None
        assert server.hits["/blog/sitemap.xml"] == 1


def test_a_sitemap_without_lastmods_keeps_the_one_it_was_given() -> None:
    with LoopbackServer() as server:
        server.add(
            "/plain.xml", f"<urlset {NS}><url><loc>{server.base}/x</loc></url></urlset>".encode()
        )
        given = SitemapRef(server.url("/plain.xml"), "2020-01-01")
        (ref,), (problem,) = with_newest_lastmods([given], fast_http())
    assert ref == given and "lists no lastmod" in problem


def test_included_sitemaps_are_kept_across_updates_and_replaced_when_given(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    _build(tmp_path, out, "--stable", "--include-sitemap", SHOP)
    assert locs(out / "sitemap.xml")[-1] == SHOP
    changes = tmp_path / "changes.txt"
    changes.write_text(f"{BASE}c\n")
    update = [str(changes), "--base-url", BASE, "--out", str(out), "--no-gzip", "--update"]
    assert CliRunner().invoke(main, ["build", *update]).exit_code == 0
    assert locs(out / "sitemap.xml")[-1] == SHOP  # kept
    # only the included sitemaps change: the index is written again, the shards kept
    before = {p.name for p in out.glob("sitemap-*")}
    result = CliRunner().invoke(main, ["build", *update, "--include-sitemap", FEED])
    assert result.exit_code == 0, result.output
    assert locs(out / "sitemap.xml")[-1] == FEED and SHOP not in locs(out / "sitemap.xml")
    assert {p.name for p in out.glob("sitemap-*")} == before


def test_the_python_api_takes_urls_and_refs(tmp_path: Path) -> None:
    report = write_sitemaps(
        [(f"{BASE}a",)],
        tmp_path,
        BASE,
        gzip=False,
        include=[SHOP, SitemapRef(FEED, "2025-01-02")],
    )
    assert report.included == [SHOP, FEED]
    assert _lastmods(tmp_path)[FEED] == "2025-01-02"

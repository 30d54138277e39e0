"""Selective fetch: --follow REGEX (which index children are downloaded) and --since DATE
(which entries are kept, and which children are not downloaded at all), as Scrapy's
sitemap_follow and sitemap_filter; in the discovery core and through every output lane."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from test_fetch_discovery import Doc, S, Site, all_locs, index, run
from test_fetch_support import LoopbackServer, gz, sitemapindex
from urlset.cli import main
from urlset.fetching.discovery import DiscoveryOptions
from urlset.model import SitemapRef, Url

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
FAST = ["--timeout", "3", "--read-timeout", "1", "--retries", "1"]
NOV_1 = datetime(2026, 11, 1, tzinfo=UTC)


def dated(prefix: str, *lastmods: str | None) -> Doc:
    return Doc(items=[Url(f"{S}/{prefix}/{i}", m) for i, m in enumerate(lastmods)])


def test_follow_downloads_only_matching_children() -> None:
    site = Site(
        {
            f"{S}/index.xml": index(f"{S}/posts-1.xml", f"{S}/tags.xml", f"{S}/posts-2.xml"),
            f"{S}/posts-1.xml": dated("p1", None),
            f"{S}/posts-2.xml": dated("p2", None),
            f"{S}/tags.xml": dated("t", None),
        }
    )
    result, reads = run(f"{S}/index.xml", site, DiscoveryOptions(follow=r"/posts-\d+\.xml$"))
    assert site.urls_of() == [f"{S}/index.xml", f"{S}/posts-1.xml", f"{S}/posts-2.xml"]
    assert all_locs(reads) == [f"{S}/p1/0", f"{S}/p2/0"]
    assert result.not_followed == 1 and not result.partial


def test_follow_leaves_the_start_and_robots_sitemaps_alone() -> None:
    site = Site(
        {
            f"{S}/robots.txt": Doc(body=f"Sitemap: {S}/news.xml\n".encode(), format=None),
            f"{S}/news.xml": dated("n", None),
        }
    )
    _, reads = run(S, site, DiscoveryOptions(follow="nothing-matches-this"))
    assert all_locs(reads) == [f"{S}/n/0"]


def test_since_skips_older_children_and_keeps_newer_entries() -> None:
    site = Site(
        {
            f"{S}/index.xml": Doc(
                items=[
                    SitemapRef(f"{S}/old.xml", "2026-10-31T23:59:59Z"),
                    SitemapRef(f"{S}/same-day.xml", "2026-11-01"),
                    SitemapRef(f"{S}/undated.xml"),
                ],
                format="sitemapindex",
            ),
            f"{S}/old.xml": dated("old", "2026-11-05"),  # the index says otherwise: not read
            f"{S}/same-day.xml": dated(
                "s", "2026-11-01", "2026-10-31", None, "2026-11-01T01:00+02:00"
            ),
            f"{S}/undated.xml": dated("u", "2026-11-02T00:00:00Z"),
        }
    )
    result, reads = run(f"{S}/index.xml", site, DiscoveryOptions(since=NOV_1))
    assert f"{S}/old.xml" not in site.urls_of()
    # 2026-11-01T01:00+02:00 is 2026-10-31T23:00Z: before; an entry without lastmod is left out
    assert all_locs(reads) == [f"{S}/s/0", f"{S}/u/0"]
    assert (result.older_sitemaps, result.older_urls, result.url_count) == (1, 3, 2)


def test_a_since_without_zone_is_utc() -> None:
    site = Site({f"{S}/s.xml": dated("s", "2026-11-01T00:30:00Z", "2026-10-31T23:30:00Z")})
    _, reads = run(f"{S}/s.xml", site, DiscoveryOptions(since=datetime(2026, 11, 1)))
    assert all_locs(reads) == [f"{S}/s/0"]


def page(server: LoopbackServer, prefix: str, days: range) -> bytes:
    rows = "".join(
        f"<url><loc>{server.url(f'/{prefix}/{d}')}</loc><lastmod>2026-11-{d:02d}</lastmod></url>\n"
        for d in days
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{rows}</urlset>\n'.encode()


@pytest.fixture
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.add("/robots.txt", b"User-agent: *\nSitemap: /index.xml\n", "text/plain")
        server.add(
            "/index.xml",
            sitemapindex(
                [
                    (server.url("/posts-old.xml.gz"), "2026-11-02"),
                    (server.url("/posts-new.xml"), "2026-11-20"),
                    (server.url("/pages.xml"), "2026-11-20"),
                ]
            ),
        )
        server.add("/posts-old.xml.gz", gz(page(server, "old", range(1, 3))), "application/gzip")
        server.add("/posts-new.xml", page(server, "new", range(1, 21)))
        server.add("/pages.xml", page(server, "pages", range(1, 21)))
        yield server


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["fetch", *args], catch_exceptions=False)


def locs_of(output: str, fmt: str) -> list[str]:
    if fmt == "jsonl":
        return [json.loads(line)["loc"] for line in output.splitlines()]
    if fmt in ("csv", "tsv"):
        reader = csv.DictReader(io.StringIO(output), delimiter="," if fmt == "csv" else "\t")
        return [row["loc"] for row in reader]
    return output.splitlines()


# every output format, on the event loop and on parse threads: the render lane would write
# the URLs' text straight from the parser, so each must show the choice
@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("fmt", ["jsonl", "csv", "tsv", "locs", "parquet"])
def test_cli_follow_and_since_in_every_format(
    site: LoopbackServer, tmp_path: Path, fmt: str, workers: str
) -> None:
    out = tmp_path / f"out.{fmt}"
    args = ["--follow", "posts-", "--since", "2026-11-18", "--format", fmt, "-o", str(out)]
    result = invoke(site.base, *FAST, "--workers", workers, *args)
    assert result.exit_code == 0, result.output
    if fmt == "parquet":
        pq = pytest.importorskip("pyarrow.parquet")
        locs = pq.read_table(out).column("loc").to_pylist()
    else:
        locs = locs_of(out.read_text(), fmt)
    assert locs == [site.url(f"/new/{d}") for d in (18, 19, 20)]
    assert site.hits["/posts-old.xml.gz"] == 0 and site.hits["/pages.xml"] == 0
    assert site.hits["/posts-new.xml"] == 1
    assert (
        "(left out: 1 index child not matching --follow; 1 index child older than --since; "
        "17 URLs older than --since (or undated))"
    ) in result.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["--since", "yesterday"], "not a W3C date"),
        (["--since", "2026-13-01"], "not a W3C date"),
        (["--follow", "posts-("], "not a regular expression"),
    ],
)
def test_cli_bad_choice_is_a_usage_error(args: list[str], said: str) -> None:
    result = invoke("https://example.com/", *args)
    assert result.exit_code == 2 and said in result.output


def test_tree_json_counts_what_was_left_out(site: LoopbackServer) -> None:
    result = invoke(site.base, *FAST, "--tree", "--format", "json", "--follow", "posts-",
                    "--since", "2026-11-18")  # fmt: skip
    assert result.exit_code == 0, result.output
    tree = json.loads(result.stdout)
    assert (tree["not_followed"], tree["older_sitemaps"], tree["older_urls"]) == (1, 1, 17)
    assert tree["urls"] == 3 and tree["result"] == "complete"

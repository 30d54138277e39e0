"""A site built from the real files of ../shared/corpus/realworld, fetched over loopback.

robots.txt is the corpus's WordPress robots.txt (root-relative Sitemap: lines, one of them
an HTML page). /sitemap.xml is an index of every corpus sitemap, served under /files/,
some as .gz files and some with Content-Encoding: gzip. The corpus's own indexes are in it
too; their children point at other hosts (not followed, reported) or at relative paths
this site does not have (404, reported). Every count must match MANIFEST.tsv.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from test_fetch_support import LoopbackServer, Run, fast_http, gz, run_fetch, sitemapindex
from urlset.fetching.discovery import NodeState, robots_sitemaps


@dataclass(frozen=True)
class Entry:
    file: str
    format: str
    url_count: int


def manifest(shared: Path) -> list[Entry]:
    path = shared / "corpus" / "realworld" / "MANIFEST.tsv"
    with path.open(encoding="utf-8") as fh:
        return [
            Entry(row["file"], row["format"], int(row["url_count"]))
            for row in csv.DictReader(fh, delimiter="\t")
        ]


def served_path(index: int, entry: Entry) -> str:
    """Where a corpus file is served: every third plain XML file as a .gz copy."""
    if entry.format == "urlset" and index % 3 == 0 and not entry.file.endswith(".gz"):
        return f"/files/{entry.file}.gz"
    return f"/files/{entry.file}"


@pytest.fixture(scope="module")
def corpus_site(
    shared: Path,
) -> Iterator[tuple[LoopbackServer, list[Entry], dict[str, Entry], Run]]:
    folder = shared / "corpus" / "realworld"
    entries = manifest(shared)
    sitemaps = [e for e in entries if e.format != "robots"]
    with LoopbackServer() as server:
        server.add("/robots.txt", (folder / "robots_007.txt").read_bytes(), "text/plain")
        server.add(
            "/sitemap.html", (folder / "089_html-redirect-as-sitemap.xml").read_bytes(), "text/html"
        )
        by_url: dict[str, Entry] = {}
        for i, entry in enumerate(sitemaps):
            data = (folder / entry.file).read_bytes()
            path = served_path(i, entry)
            if path.endswith(".gz") and not entry.file.endswith(".gz"):
                server.add(path, gz(data), "application/gzip")
            elif i % 5 == 1:
                server.add(path, gz(data), "application/xml", headers={"Content-Encoding": "gzip"})
            elif entry.file.endswith(".txt"):
                server.add(path, data, "text/plain; charset=utf-8")
            elif entry.file.endswith(".gz"):
                server.add(path, data, "application/x-gzip")
            else:
                server.add(path, data, "application/xml; charset=utf-8")
            by_url[server.url(path)] = entry
        server.add("/sitemap.xml", sitemapindex(list(by_url)))
        # a well-behaved server: timeouts only as a safety net (parsing 100,000 relative
        # URLs takes seconds on a loaded machine, and counts against a download's time)
        run = run_fetch(server.base + "/", http=fast_http(total_timeout=120.0, read_timeout=60.0))
        yield server, sitemaps, by_url, run


def test_every_sitemap_is_fetched_and_counts_match_manifest(
    corpus_site: tuple[LoopbackServer, list[Entry], dict[str, Entry], Run],
) -> None:
    server, sitemaps, by_url, run = corpus_site
    index = run.node(server.url("/sitemap.xml"))
    assert index.ref_count == len(sitemaps)
    for url, entry in by_url.items():
        node = run.node(url)
        if entry.format == "index":
            assert node.format == "sitemapindex" and node.ref_count == entry.url_count, entry
        elif entry.format == "other":
            assert node.failed, entry  # an HTML page and an empty file: reported, not read
        else:
            assert node.url_count == entry.url_count, entry
            assert len(run.locs_from(url)) == entry.url_count, entry
            assert node.ok, (entry, node.issues)


def test_every_reachable_url_is_found(
    corpus_site: tuple[LoopbackServer, list[Entry], dict[str, Entry], Run],
) -> None:
    _, sitemaps, _, run = corpus_site
    expected = sum(e.url_count for e in sitemaps if e.format not in ("index", "robots"))
    assert expected > 100_000
    assert len(run.rows) == run.result.url_count == expected


def test_robots_relative_sitemaps_and_the_html_one(
    corpus_site: tuple[LoopbackServer, list[Entry], dict[str, Entry], Run],
) -> None:
    server, _, _, run = corpus_site
    robots = run.result.roots[0]
    assert [c.url for c in robots.children] == [
        server.url("/sitemap.xml"),
        server.url("/sitemap.html"),
    ]
    assert [i.code for i in robots.issues].count("robots-relative-sitemap") == 2
    html = run.node(server.url("/sitemap.html"))
    assert html.failed and "not-a-sitemap" in [i.code for i in html.issues]


def test_corpus_indexes_children_are_contained(
    corpus_site: tuple[LoopbackServer, list[Entry], dict[str, Entry], Run],
) -> None:
    """The corpus indexes name other hosts (not followed) or paths this site lacks (404)."""
    server, _, by_url, run = corpus_site
    for url, entry in by_url.items():
        if entry.format != "index":
            continue
        for child in run.node(url).children:
            if child.url.startswith(server.base):
                assert child.state is NodeState.FAILED and child.status == 404, child
            else:
                assert child.state is NodeState.SKIPPED, child
                assert [i.code for i in child.issues] == ["cross-host-sitemap"]


def test_robots_files_sitemap_counts_match_manifest(shared: Path) -> None:
    folder = shared / "corpus" / "realworld"
    for entry in manifest(shared):
        if entry.format == "robots":
            found = robots_sitemaps((folder / entry.file).read_bytes())
            assert len(found) == entry.url_count, entry

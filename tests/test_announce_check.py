"""``urlset robots --check``: a robots.txt checked against the sitemaps it names, over loopback."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_fetch_support import LoopbackServer, fast_http, sitemapindex, urlset
from urlset.announce import check_robots_sync
from urlset.announce.robots_check import RobotsCheck
from urlset.cli import main
from urlset.model import Url


@pytest.fixture
def two_sites() -> Iterator[tuple[LoopbackServer, LoopbackServer]]:
    with LoopbackServer() as site, LoopbackServer() as other:
        yield site, other


def _robots(a: str, b: str) -> bytes:
    return (
        "User-agent: *\n"
        "Disallow: /private/\n"
        "Disallow: /sitemaps/hidden.xml\n"
        "\n"
        f"Sitemap: {a}/sitemap.xml\n"
        "Sitemap: /relative.xml\n"
        f"Sitemap: {b}/cross.xml\n"
        f"Sitemap: {a}/missing.xml\n"
        f"Sitemap: {a}/sitemap.xml\n"
    ).encode()


def _serve(site: LoopbackServer, other: LoopbackServer) -> None:
    a, b = site.base, other.base
    site.add("/robots.txt", _robots(a, b), "text/plain")
    # an index may not list a sitemap of another site (localhost is another host name)
    elsewhere = f"http://localhost:{site.port}/child.xml"
    site.add("/sitemap.xml", sitemapindex([f"{a}/s1.xml", f"{a}/sitemaps/hidden.xml", elsewhere]))
    site.add("/s1.xml", urlset([f"{a}/ok/1", f"{a}/private/1", f"{a}/private/2", f"{a}/ok/2"]))
    site.add("/sitemaps/hidden.xml", urlset([f"{a}/ok/3"]))
    # on the other site (another port: another origin), URLs of the first: cross-submission
    other.add("/cross.xml", urlset([f"{a}/ok/4", f"{a}/private/3", "http://elsewhere.test/x"]))


def _codes(report: object) -> list[tuple[str, int]]:
    return sorted((i.code, i.line) for i in report.issues)  # type: ignore[attr-defined]


def test_every_rule_over_http(two_sites: tuple[LoopbackServer, LoopbackServer]) -> None:
    site, other = two_sites
    _serve(site, other)
    report = check_robots_sync(site.url("/"), http=fast_http())
    assert report.robots_url == site.url("/robots.txt")
    assert _codes(report) == [
        ("cannot-read", 8),
        ("cross-submission", 7),
        ("index-other-site", 5),
        ("robots-duplicate-sitemap", 9),
        ("robots-relative-sitemap", 6),
        ("sitemap-disallowed", 5),
        ("url-blocked", 5),
        ("url-blocked", 7),
        ("url-not-allowed", 7),
    ]
    by_code = {(i.code, i.line): i for i in report.issues}
    blocked = by_code[("url-blocked", 5)]
    assert "2 of 5 URLs" in blocked.message and site.url("/private/1") in blocked.message
    assert "Submitted URL blocked by robots.txt" in blocked.hint
    assert site.url("/sitemaps/hidden.xml") in by_code[("sitemap-disallowed", 5)].message
    out = by_code[("url-not-allowed", 7)]
    assert "1 of 3 URLs" in out.message and "elsewhere.test" in out.message
    tallies = {t.url: t for t in report.tallies}
    cross = tallies[other.url("/cross.xml")]
    assert cross.cross_submitted == 2 and cross.blocked == 1 and cross.out_of_scope == 1
    assert tallies[site.url("/sitemap.xml")].sitemaps_read == 3
    assert tallies[site.url("/missing.xml")].failed == 1
    assert report.problems


def test_a_clean_robots_txt_has_no_problems(
    two_sites: tuple[LoopbackServer, LoopbackServer],
) -> None:
    site, _ = two_sites
    a = site.base
    site.add(
        "/robots.txt",
        f"User-agent: *\nDisallow: /admin/\nSitemap: {a}/s.xml\n".encode(),
        "text/plain",
    )
    site.add("/s.xml", urlset([f"{a}/", f"{a}/about"]))
    report = check_robots_sync(site.url("/robots.txt"), http=fast_http())
    assert not report.problems and [t.urls for t in report.tallies] == [2]


def test_a_file_is_checked_as_served_at_site(
    two_sites: tuple[LoopbackServer, LoopbackServer], tmp_path: Path
) -> None:
    site, other = two_sites
    _serve(site, other)
    path = tmp_path / "robots.txt"
    path.write_bytes(_robots(site.base, other.base))
    report = check_robots_sync(str(path), site=site.url("/"), http=fast_http())
    assert ("url-blocked", 5) in _codes(report) and ("cross-submission", 7) in _codes(report)
    assert site.hits["/robots.txt"] == 0  # the file was read, not the served one
    guessed = check_robots_sync(str(path), http=fast_http())
    assert guessed.robots_url == site.url("/robots.txt")
    assert "robots-location-assumed" in [i.code for i in guessed.issues]


def test_rules_follow_the_user_agent() -> None:
    body = b"User-agent: Googlebot\nDisallow: /g/\n\nUser-agent: *\nDisallow: /all/\n"
    urls = [Url("https://a.example/g/1"), Url("https://a.example/all/1")]
    for agent, blocked in (
        ("*", ["https://a.example/all/1"]),
        ("Googlebot", ["https://a.example/g/1"]),
    ):
        check = RobotsCheck(
            body + b"Sitemap: https://a.example/s.xml\n", "https://a.example/robots.txt", "t", agent
        )
        (listed,) = check.listed()
        check.urls(listed, listed, urls)
        assert check.tallies[listed].blocked_examples == blocked


def test_cli_check_exit_status_and_json(two_sites: tuple[LoopbackServer, LoopbackServer]) -> None:
    site, other = two_sites
    _serve(site, other)
    runner = CliRunner()
    result = runner.invoke(main, ["robots", site.url("/robots.txt"), "--check", "--format", "json"])
    assert result.exit_code == 1, result.output
    data = json.loads(result.output)
    assert {i["code"] for i in data["issues"]} >= {"url-blocked", "cannot-read"}
    text = runner.invoke(main, ["robots", site.url("/robots.txt"), "--check"])
    assert text.exit_code == 1 and "url-blocked" in text.output and "errors" in text.output
    missing = runner.invoke(main, ["robots", other.url("/robots.txt"), "--check"])
    assert missing.exit_code == 1 and "robots-missing" in missing.output
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}/robots.txt"
    refused = runner.invoke(main, ["robots", closed, "--check"])
    assert refused.exit_code == 2 and "robots-unavailable" in refused.output
    nofile = runner.invoke(main, ["robots", "/nonexistent/robots.txt", "--check"])
    assert (
        nofile.exit_code == 2
        and "cannot read" in nofile.output
        and "Traceback" not in nofile.output
    )

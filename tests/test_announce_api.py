"""urlset.announce from a deploy script: its names, and a build's indexes into robots.txt."""

from __future__ import annotations

import re
from pathlib import Path

import urlset.announce
from urlset import Url, write_sitemaps
from urlset.announce import sitemap_lines, update_robots_file
from urlset.limits import Limits


def test_public_names_are_pinned_and_load() -> None:
    assert sorted(urlset.announce.__all__) == [
        "BatchReport",
        "BingReport",
        "ConsoleResult",
        "DEFAULT_ENDPOINT",
        "ENDPOINTS",
        "IndexNowReport",
        "IndexNowSite",
        "Outcome",
        "PingResult",
        "Policy",
        "PolicyChange",
        "RobotsCheckReport",
        "RobotsEdit",
        "RobotsMatrix",
        "RobotsVerdict",
        "SubmissionState",
        "access_token",
        "call_search_console",
        "call_search_console_sync",
        "check_key",
        "check_robots",
        "check_robots_sync",
        "edit_policies",
        "edit_sitemaps",
        "generate_key",
        "parse_policy",
        "parse_policy_file",
        "ping_request",
        "ping_sitemap",
        "ping_sitemap_sync",
        "robots_matrix",
        "robots_matrix_sync",
        "robots_test",
        "sitemap_lines",
        "submit_bing",
        "submit_bing_sync",
        "submit_indexnow",
        "submit_indexnow_sync",
        "update_robots_file",
        "write_key_file",
    ]
    for name in urlset.announce.__all__:
        value = getattr(urlset.announce, name)
        assert not isinstance(value, type(urlset)), name  # a value, not a submodule


def test_a_build_s_indexes_go_into_robots_txt_and_replace_the_last_build_s(tmp_path: Path) -> None:
    out = tmp_path / "public"
    base = "https://www.example.com/"
    robots = out / "robots.txt"
    out.mkdir()
    robots.write_bytes(
        b"User-agent: *\nDisallow: /cart\n\nSitemap: https://www.example.com/news.xml\n"
    )
    tiny = Limits("tiny", max_urls=1, max_sitemaps_per_index=3)
    urls = [Url(f"{base}p/{i}") for i in range(7)]
    report = write_sitemaps(urls, out, base, limits=tiny)
    assert len(report.entry_points) == 3  # past the files one index may list: several indexes
    own = re.compile(
        re.escape(base) + r"sitemap(?:-index)?(?:-\d+)?\.(?:xml|txt)(?:\.gz)?"
    ).fullmatch
    update_robots_file(robots, report.entry_points, replace=lambda url: bool(own(url)))
    assert [line.sitemap for line in sitemap_lines(robots.read_bytes())] == [
        "https://www.example.com/news.xml",
        *report.entry_points,
    ]
    smaller = write_sitemaps(urls[:1], out, base, limits=tiny)
    edit = update_robots_file(robots, smaller.entry_points, replace=lambda url: bool(own(url)))
    assert len(edit.removed) == 3
    assert robots.read_bytes() == (
        b"User-agent: *\nDisallow: /cart\n\nSitemap: https://www.example.com/news.xml\n"
        b"Sitemap: https://www.example.com/sitemap.xml.gz\n"
    )

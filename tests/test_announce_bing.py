"""Bing Webmaster API: SubmitFeed, and SubmitUrlBatch within GetUrlSubmissionQuota, against a
loopback fake that answers as the API documents."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from announce_support import Endpoints, Reply
from urlset.announce.bing import submit_bing_sync
from urlset.announce.http import announce_options
from urlset.cli import main
from urlset.fetching.http_options import HttpOptions, RetryPolicy

KEY = "0123456789abcdef"
SITE = "https://www.example.com/"


def fast() -> HttpOptions:
    retry = RetryPolicy(attempts=3, backoff=0.05, max_backoff=0.2, max_retry_after=5.0)
    return announce_options(connect_timeout=2.0, read_timeout=2.0, retry=retry)


def json_reply(status: int, data: object) -> Reply:
    return Reply(status, json.dumps(data).encode(), content_type="application/json")


OK = json_reply(200, {"d": None})


def quota(daily: int) -> Reply:
    return json_reply(200, {"d": {"DailyQuota": daily, "MonthlyQuota": daily * 30}})


@pytest.fixture
def server() -> Iterator[Endpoints]:
    with Endpoints() as endpoints:
        yield endpoints


def pages(n: int) -> list[str]:
    return [f"{SITE}page/{i}" for i in range(n)]


def test_sitemap_then_urls_within_the_quota(server: Endpoints) -> None:
    server.script("/api/SubmitFeed", OK)
    server.script("/api/GetUrlSubmissionQuota", quota(7))
    server.script("/api/SubmitUrlBatch", OK)
    report = submit_bing_sync(
        SITE,
        KEY,
        sitemaps=[SITE + "sitemap.xml"],
        urls=[*pages(10), SITE + "page/0", "https://other.example/x"],
        batch_size=3,
        api=server.url("/api"),
        http=fast(),
    )
    (feed,) = server.requests("/api/SubmitFeed")
    assert feed.method == "POST" and feed.query == {"apikey": KEY}
    assert json.loads(feed.body) == {"siteUrl": SITE, "feedUrl": SITE + "sitemap.xml"}
    (asked,) = server.requests("/api/GetUrlSubmissionQuota")
    assert asked.query == {"siteUrl": SITE, "apikey": KEY}
    batches = [json.loads(s.body)["urlList"] for s in server.requests("/api/SubmitUrlBatch")]
    assert batches == [pages(7)[0:3], pages(7)[3:6], pages(7)[6:7]]  # 7 of 10 fit today
    assert report.sent == 7 and report.left == pages(10)[7:]
    assert report.daily_quota == 7 and report.monthly_quota == 210
    assert report.duplicates == 1 and report.refused[0][0] == "https://other.example/x"
    assert not report.ok  # a URL not of the site


def test_a_refused_key_says_where_to_get_one_and_sends_nothing_more(server: Endpoints) -> None:
    server.script(
        "/api/GetUrlSubmissionQuota",
        json_reply(400, {"ErrorCode": 3, "Message": "ERROR!!! InvalidApiKey"}),
    )
    report = submit_bing_sync(SITE, KEY, urls=pages(2), api=server.url("/api"), http=fast())
    (call,) = report.calls
    assert not call.ok and "API key is not valid" in call.message
    assert "Settings > API access" in call.message and KEY not in call.message
    assert report.left == pages(2) and not server.requests("/api/SubmitUrlBatch")


def test_over_quota_and_unowned_site_and_5xx(server: Endpoints) -> None:
    server.script("/api/GetUrlSubmissionQuota", quota(10))
    server.script(
        "/api/SubmitUrlBatch",
        json_reply(400, {"ErrorCode": 2, "Message": "ERROR!!! Quota remaining for today: 0"}),
    )
    report = submit_bing_sync(SITE, KEY, urls=pages(3), api=server.url("/api"), http=fast())
    assert "over today's quota" in report.calls[-1].message and report.left == pages(3)
    server.script("/api/SubmitFeed", json_reply(400, {"ErrorCode": 14, "Message": "NotAuthorized"}))
    report = submit_bing_sync(SITE, KEY, sitemaps=[SITE + "s.xml"], api=server.url("/api"))
    assert "does not own this site" in report.calls[0].message
    server.script("/api/SubmitFeed", Reply(503, b"busy"))
    report = submit_bing_sync(
        SITE, KEY, sitemaps=[SITE + "s.xml"], api=server.url("/api"), http=fast()
    )
    assert report.calls[0].attempts == 3 and "try again later" in report.calls[0].message


def test_cli_writes_what_is_left_for_tomorrow(server: Endpoints, tmp_path: Path) -> None:
    server.script("/api/GetUrlSubmissionQuota", quota(2))
    server.script("/api/SubmitUrlBatch", OK)
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(pages(5)) + "\n")
    left = tmp_path / "left.txt"
    result = CliRunner().invoke(
        main,
        [
            "announce", "bing", str(source), "--site", SITE, "--api-key", KEY,
            "--api", server.url("/api"), "--left", str(left),
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "daily quota 2; 2 URLs sent" in result.output
    assert f"3 URLs left for tomorrow (written to {left})" in result.output
    assert left.read_text().splitlines() == pages(5)[2:]


def test_cli_usage_errors_exit_2() -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["announce", "bing", "--site", SITE, "--sitemap", SITE + "s"])
    assert result.exit_code == 2 and "--api-key" in result.output
    result = runner.invoke(main, ["announce", "bing", "--site", SITE, "--api-key", KEY])
    assert result.exit_code == 2 and "--sitemap" in result.output
    result = runner.invoke(
        main, ["announce", "bing", "/missing.txt", "--site", SITE, "--api-key", KEY]
    )
    assert result.exit_code == 2 and "cannot read /missing.txt" in result.output

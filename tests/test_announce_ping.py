"""The protocol's ping: the request as the protocol spells it, and each answer reported."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from click.testing import CliRunner

from announce_support import Endpoints, Reply
from urlset.announce import ping_request, ping_sitemap_sync
from urlset.announce.http import announce_options
from urlset.cli import main
from urlset.errors import InvalidValue
from urlset.fetching.http_options import HttpOptions, RetryPolicy

SITEMAP = "http://www.example.com/sitemap.gz"


def fast(**changes: object) -> HttpOptions:
    values: dict[str, object] = {
        "connect_timeout": 2.0,
        "read_timeout": 0.5,
        "retry": RetryPolicy(attempts=3, backoff=0.05, max_backoff=0.2, max_retry_after=5.0),
    }
    values.update(changes)
    return announce_options(**values)


@pytest.fixture
def server() -> Iterator[Endpoints]:
    with Endpoints() as endpoints:
        yield endpoints


def test_the_request_is_the_protocol_s() -> None:
    # "URL encode everything after the /ping?sitemap=" (sitemaps.org 0.9)
    assert ping_request("http://engine.example/ping", "http://www.yoursite.com/sitemap.gz") == (
        "http://engine.example/ping?sitemap=http%3A%2F%2Fwww.yoursite.com%2Fsitemap.gz"
    )
    assert ping_request("https://engine.example/ping?v=2", "https://a.example/s.xml?x=1&y=%20") == (
        "https://engine.example/ping?v=2&sitemap=https%3A%2F%2Fa.example%2Fs.xml%3Fx%3D1%26y%3D%2520"
    )
    with pytest.raises(InvalidValue):
        ping_request("https://engine.example/ping", "/sitemap.xml")
    with pytest.raises(InvalidValue):
        ping_request("engine.example/ping", SITEMAP)


def test_a_2xx_is_received_and_the_endpoint_sees_the_sitemap_url(server: Endpoints) -> None:
    server.script("/ping", Reply(200, b"Sitemap notification received"))
    server.script("/other", Reply(204))
    results = ping_sitemap_sync(SITEMAP, [server.url("/ping"), server.url("/other")], http=fast())
    assert [r.received for r in results] == [True, True]
    assert results[0].status == 200 and "received" in results[0].message
    (seen,) = server.requests("/ping")
    assert seen.method == "GET" and seen.query == {"sitemap": SITEMAP}
    # on the wire as the protocol asks: everything after ?sitemap= percent-encoded
    assert seen.raw_path == "/ping?sitemap=http%3A%2F%2Fwww.example.com%2Fsitemap.gz"


def test_the_sitemap_url_goes_out_encoded_whatever_it_holds(server: Endpoints) -> None:
    server.script("/ping", Reply(200))
    sitemap = "https://a.example:8443/s p/map.xml?x=1&y=%20#frag"
    (result,) = ping_sitemap_sync(sitemap, [server.url("/ping?v=2")], http=fast())
    assert result.received
    (seen,) = server.requests("/ping")
    query = seen.raw_path.partition("?")[2]
    assert query == (
        "v=2&sitemap=https%3A%2F%2Fa.example%3A8443%2Fs%2520p%2Fmap.xml%3Fx%3D1%26y%3D%2520"
    )
    assert seen.query["sitemap"] == "https://a.example:8443/s%20p/map.xml?x=1&y=%20"


def test_the_cli_counts_attempts_in_the_right_number(server: Endpoints) -> None:
    server.script("/ping", Reply(200))
    result = CliRunner().invoke(
        main, ["announce", "ping", SITEMAP, "--endpoint", server.url("/ping")]
    )
    assert result.exit_code == 0, result.output
    assert result.output.endswith("(1 attempt)\n") and "attempts" not in result.output


def test_a_5xx_is_retried_and_a_404_is_not(server: Endpoints) -> None:
    server.script("/flaky", Reply(503), Reply(200))
    server.script("/gone", Reply(404, b"Not Found"))
    flaky, gone = ping_sitemap_sync(
        SITEMAP, [server.url("/flaky"), server.url("/gone")], http=fast()
    )
    assert flaky.received and flaky.attempts == 2
    assert not gone.received and gone.status == 404 and gone.attempts == 1
    assert "no longer" in gone.message
    assert len(server.requests("/gone")) == 1


def test_429_waits_as_retry_after_asks(server: Endpoints) -> None:
    server.script("/busy", Reply(429, headers={"Retry-After": "1"}), Reply(200))
    started = time.monotonic()
    (result,) = ping_sitemap_sync(SITEMAP, [server.url("/busy")], http=fast())
    assert result.received and result.attempts == 2
    assert time.monotonic() - started >= 0.9


def test_a_retry_after_past_the_deadline_stops_at_once(server: Endpoints) -> None:
    server.script("/busy", Reply(429, headers={"Retry-After": "3"}))
    started = time.monotonic()
    (result,) = ping_sitemap_sync(SITEMAP, [server.url("/busy")], http=fast(), deadline=2.0)
    assert not result.received and result.status == 429 and result.attempts == 1
    assert "deadline" in result.message
    assert time.monotonic() - started < 1.5


def test_a_slow_endpoint_is_cut_off_within_the_deadline(server: Endpoints) -> None:
    server.script("/slow", Reply(200, delay=5.0))
    started = time.monotonic()
    (result,) = ping_sitemap_sync(SITEMAP, [server.url("/slow")], http=fast(), deadline=2.0)
    assert not result.received and result.status is None
    assert time.monotonic() - started < 3.5


def test_cli_has_no_default_endpoint_and_says_why() -> None:
    result = CliRunner().invoke(main, ["announce", "ping", SITEMAP])
    assert result.exit_code == 2
    text = " ".join(result.output.split())
    assert "Google" in text and "June 2023" in text and "Bing" in text and "2022" in text


def test_cli_exit_status_follows_the_answers(server: Endpoints) -> None:
    server.script("/ok", Reply(200))
    server.script("/gone", Reply(410))
    runner = CliRunner()
    ok = runner.invoke(main, ["announce", "ping", SITEMAP, "--endpoint", server.url("/ok")])
    assert ok.exit_code == 0 and "received" in ok.output
    gone = runner.invoke(
        main,
        [
            "announce",
            "ping",
            SITEMAP,
            "--endpoint",
            server.url("/ok"),
            "--endpoint",
            server.url("/gone"),
        ],
    )
    assert gone.exit_code == 1 and "NOT received" in gone.output
    bad = runner.invoke(main, ["announce", "ping", "sitemap.xml", "--endpoint", server.url("/ok")])
    assert bad.exit_code == 2 and "Traceback" not in bad.output

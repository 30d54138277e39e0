"""IndexNow: keys, which URLs may go, batches, each documented answer, and the state file."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from announce_support import Endpoints, Reply
from urlset.announce import (
    IndexNowSite,
    Outcome,
    SubmissionState,
    check_key,
    generate_key,
    submit_indexnow_sync,
    write_key_file,
)
from urlset.announce.http import announce_options
from urlset.announce.indexnow import Batch, endpoint_url, plan, request_for
from urlset.cli import main
from urlset.errors import InvalidValue
from urlset.fetching.http_options import HttpOptions, RetryPolicy

KEY = "0123456789abcdef0123456789abcdef"
SITE = IndexNowSite.of("https://www.example.com/", KEY)


def fast() -> HttpOptions:
    return announce_options(
        connect_timeout=2.0,
        read_timeout=0.5,
        retry=RetryPolicy(attempts=3, backoff=0.05, max_backoff=0.2, max_retry_after=5.0),
    )


@pytest.fixture
def server() -> Iterator[Endpoints]:
    with Endpoints() as endpoints:
        yield endpoints


def pages(n: int, start: int = 0) -> list[str]:
    return [f"https://www.example.com/p/{i}" for i in range(start, start + n)]


# -- keys and the site
def test_keys_are_8_to_128_of_the_allowed_characters() -> None:
    key = generate_key()
    assert re.fullmatch(r"[A-Za-z0-9]{32}", key) and key != generate_key()
    assert len(generate_key(8)) == 8 and len(generate_key(128)) == 128
    for bad_length in (7, 129):
        with pytest.raises(InvalidValue):
            generate_key(bad_length)
    assert check_key("abcd-1234") == "abcd-1234"
    for bad in ("short", "under_score1", "a" * 129, "spaces in it"):
        with pytest.raises(InvalidValue, match="8 to 128"):
            check_key(bad)


def test_the_key_location_must_be_on_the_host_and_bounds_the_urls() -> None:
    assert (
        SITE.key_location == f"https://www.example.com/{KEY}.txt" and SITE.host == "www.example.com"
    )
    with pytest.raises(InvalidValue, match="the host submitted for"):
        IndexNowSite.of("https://www.example.com/", KEY, "https://cdn.example.net/key.txt")
    catalog = IndexNowSite.of(
        "https://www.example.com/", KEY, "https://www.example.com/catalog/k.txt"
    )
    assert catalog.refusal("https://www.example.com/catalog/item?id=1") is None
    assert "directory of the key file" in (catalog.refusal("https://www.example.com/help/") or "")
    # http and https may be mixed; another host may not
    assert SITE.refusal("http://www.example.com/a") is None
    assert "not www.example.com" in (SITE.refusal("https://example.com/a") or "")


def test_plan_checks_every_url_first_and_batches_by_10000() -> None:
    entries = [(u, None) for u in pages(25_001)]
    entries += [("https://other.example/x", None), ("not a url", None), (pages(1)[0], None)]
    planned = plan(SITE, entries)
    assert [len(b.urls) for b in planned.batches] == [10_000, 10_000, 5_001]
    assert [u for u, _ in planned.refused] == ["https://other.example/x", "not a url"]
    assert planned.duplicates == 1
    small = plan(SITE, [(u, None) for u in pages(7)], batch_size=3)
    assert [len(b.urls) for b in small.batches] == [3, 3, 1]
    with pytest.raises(InvalidValue):
        plan(SITE, [], batch_size=10_001)


def test_one_url_is_a_get_and_several_a_post_of_json() -> None:
    endpoint = endpoint_url("indexnow")
    assert endpoint == "https://api.indexnow.org/indexnow"
    one = request_for(SITE, endpoint, Batch(("https://www.example.com/a b",), (None,)))
    assert one.method == "GET" and one.json is None
    assert one.url == f"{endpoint}?url=https%3A%2F%2Fwww.example.com%2Fa%20b&key={KEY}"
    elsewhere = IndexNowSite.of(
        "https://www.example.com/", KEY, "https://www.example.com/k/key.txt"
    )
    assert (
        "&keyLocation=https%3A%2F%2Fwww.example.com%2Fk%2Fkey.txt"
        in request_for(elsewhere, endpoint, Batch(("https://www.example.com/k/a",), (None,))).url
    )
    many = request_for(SITE, endpoint, Batch(tuple(pages(2)), (None, None)))
    assert many.method == "POST" and many.url == endpoint
    assert many.json == {
        "host": "www.example.com",
        "key": KEY,
        "keyLocation": SITE.key_location,
        "urlList": pages(2),
    }
    with pytest.raises(InvalidValue):
        endpoint_url("altavista")


# -- over HTTP
def test_accepted_batches_are_remembered_and_never_sent_twice(
    server: Endpoints, tmp_path: Path
) -> None:
    server.script("/indexnow", Reply(200))
    state = tmp_path / "state.jsonl"
    report = submit_indexnow_sync(
        SITE, pages(5), endpoints=[server.url("/indexnow")], state=state, http=fast(), batch_size=2
    )
    assert report.ok and report.accepted == 5
    assert [(b.method, b.size, b.outcome) for b in report.batches] == [
        ("POST", 2, Outcome.ACCEPTED),
        ("POST", 2, Outcome.ACCEPTED),
        ("GET", 1, Outcome.ACCEPTED),
    ]
    posts = [s for s in server.requests("/indexnow") if s.method == "POST"]
    assert json.loads(posts[0].body) == {
        "host": "www.example.com",
        "key": KEY,
        "keyLocation": SITE.key_location,
        "urlList": pages(2),
    }
    assert posts[0].headers["Content-Type"] == "application/json; charset=utf-8"
    get = next(s for s in server.requests("/indexnow") if s.method == "GET")
    assert get.query == {"url": pages(5)[4], "key": KEY}
    again = submit_indexnow_sync(
        SITE, pages(6), endpoints=[server.url("/indexnow")], state=state, http=fast()
    )
    assert again.already_sent[server.url("/indexnow")] == 5
    assert [b.first for b in again.batches] == [pages(6)[5]]  # only the new one
    assert len(server.requests("/indexnow")) == 4


def test_a_changed_lastmod_is_sent_again(server: Endpoints, tmp_path: Path) -> None:
    server.script("/indexnow", Reply(200))
    state = SubmissionState(tmp_path / "state.jsonl")
    endpoint = server.url("/indexnow")
    first = submit_indexnow_sync(
        SITE, [(pages(1)[0], "2026-01-01")], endpoints=[endpoint], state=state, http=fast()
    )
    assert first.accepted == 1
    reread = SubmissionState(tmp_path / "state.jsonl")
    same = submit_indexnow_sync(
        SITE, [(pages(1)[0], "2026-01-01")], endpoints=[endpoint], state=reread, http=fast()
    )
    assert same.batches == [] and same.already_sent[endpoint] == 1
    newer = submit_indexnow_sync(
        SITE,
        [(pages(1)[0], "2026-02-01T10:00:00Z")],
        endpoints=[endpoint],
        state=reread,
        http=fast(),
    )
    assert newer.accepted == 1
    assert len(server.requests("/indexnow")) == 2


def test_a_state_file_cut_short_is_still_read_and_appended_to(tmp_path: Path) -> None:
    path = tmp_path / "state.jsonl"
    state = SubmissionState(path)
    state.record(
        "e", 200, ("https://www.example.com/a",), (None,), datetime(2026, 1, 1, tzinfo=UTC)
    )
    with path.open("a", encoding="utf-8") as handle:
        handle.write('{"endpoint": "e", "at": "2026-01-0')  # a run killed while writing
    state = SubmissionState(path)
    assert state.already_sent("e", "https://www.example.com/a", None)
    state.record("e", 200, ("https://www.example.com/b",), (None,))
    again = SubmissionState(path)
    assert again.already_sent("e", "https://www.example.com/b", None)
    assert not again.already_sent("other", "https://www.example.com/b", None)


def test_202_is_received_with_the_key_still_to_validate(server: Endpoints) -> None:
    server.script("/indexnow", Reply(202))
    report = submit_indexnow_sync(SITE, pages(2), endpoints=[server.url("/indexnow")], http=fast())
    (batch,) = report.batches
    assert batch.outcome is Outcome.RECEIVED and batch.accepted and report.ok
    assert SITE.key_location in batch.message


def test_403_stops_the_endpoint_s_other_batches(server: Endpoints) -> None:
    server.script("/indexnow", Reply(403, b"Forbidden"))
    report = submit_indexnow_sync(
        SITE, pages(6), endpoints=[server.url("/indexnow")], http=fast(), batch_size=2
    )
    assert [b.outcome for b in report.batches] == [
        Outcome.KEY_INVALID,
        Outcome.FAILED,
        Outcome.FAILED,
    ]
    assert "key not valid" in report.batches[0].message
    assert "not sent" in report.batches[1].message
    assert len(server.requests("/indexnow")) == 1 and not report.ok


@pytest.mark.parametrize(("count", "method"), [(1, "GET"), (3, "POST")])
@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_is_not_acceptance_and_is_not_followed(
    server: Endpoints, tmp_path: Path, count: int, method: str, status: int
) -> None:
    server.script("/indexnow", Reply(status, headers={"Location": server.url("/moved")}))
    server.script("/moved", Reply(200))
    state = tmp_path / "state.jsonl"
    endpoint = server.url("/indexnow")
    report = submit_indexnow_sync(
        SITE, pages(count), endpoints=[endpoint], http=fast(), state=state
    )
    (batch,) = report.batches
    assert batch.method == method and batch.status == status
    assert batch.outcome is Outcome.REDIRECTED and not batch.accepted and not report.ok
    assert "a redirect is not acceptance" in batch.message
    assert f"HTTP {status} to {server.url('/moved')}" in batch.message
    assert server.requests("/moved") == []  # decided at the redirect, never followed
    assert len(server.requests("/indexnow")) == 1  # not retried either
    # nothing recorded: the next run sends the URLs again
    again = submit_indexnow_sync(SITE, pages(count), endpoints=[endpoint], http=fast(), state=state)
    assert again.already_sent == {endpoint: 0} and len(server.requests("/indexnow")) == 2


def test_cli_counts_the_requests_sent_not_the_batches(server: Endpoints, tmp_path: Path) -> None:
    server.script("/indexnow", Reply(403, b"Forbidden"))
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(pages(5)) + "\n")
    args = ["announce", "indexnow", str(source), "--site", "https://www.example.com/", "--key", KEY]
    args += ["--endpoint", server.url("/indexnow"), "--no-state", "--batch-size", "2"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    assert len(server.requests("/indexnow")) == 1
    assert "0 URLs accepted in 1 request, 2 batches not sent;" in result.output
    assert "0 duplicates" in result.output


def test_400_and_422_are_reported_and_the_next_batch_still_goes(server: Endpoints) -> None:
    server.script("/indexnow", Reply(422, b"Unprocessable"), Reply(400), Reply(200))
    report = submit_indexnow_sync(
        SITE, pages(6), endpoints=[server.url("/indexnow")], http=fast(), batch_size=2
    )
    assert [b.outcome for b in report.batches] == [
        Outcome.WRONG_HOST,
        Outcome.BAD_REQUEST,
        Outcome.ACCEPTED,
    ]
    assert "not of host www.example.com" in report.batches[0].message
    assert report.accepted == 2 and not report.ok


def test_429_backs_off_as_asked_within_the_deadline(server: Endpoints) -> None:
    server.script("/indexnow", Reply(429, headers={"Retry-After": "1"}), Reply(200))
    started = time.monotonic()
    report = submit_indexnow_sync(SITE, pages(2), endpoints=[server.url("/indexnow")], http=fast())
    assert report.ok and report.batches[0].attempts == 2
    assert time.monotonic() - started >= 0.9


def test_429_past_the_deadline_gives_up_and_sends_no_more(server: Endpoints) -> None:
    server.script("/indexnow", Reply(429, headers={"Retry-After": "4"}))
    started = time.monotonic()
    report = submit_indexnow_sync(
        SITE, pages(4), endpoints=[server.url("/indexnow")], http=fast(), deadline=2.0, batch_size=2
    )
    assert [b.outcome for b in report.batches] == [Outcome.TOO_MANY, Outcome.FAILED]
    assert "deadline" in report.batches[0].message
    assert len(server.requests("/indexnow")) == 1
    assert time.monotonic() - started < 1.5


def test_a_slow_endpoint_is_cut_off_and_nothing_is_recorded(
    server: Endpoints, tmp_path: Path
) -> None:
    server.script("/indexnow", Reply(200, delay=5.0))
    started = time.monotonic()
    report = submit_indexnow_sync(
        SITE,
        pages(2),
        endpoints=[server.url("/indexnow")],
        http=fast(),
        deadline=2.0,
        state=tmp_path / "s.jsonl",
    )
    assert report.batches[0].outcome is Outcome.FAILED and report.batches[0].status is None
    assert time.monotonic() - started < 3.5
    assert not (tmp_path / "s.jsonl").exists()


def test_each_endpoint_gets_its_own_batches(server: Endpoints) -> None:
    server.script("/a", Reply(200))
    server.script("/b", Reply(200))
    report = submit_indexnow_sync(
        SITE, pages(3), endpoints=[server.url("/a"), server.url("/b")], http=fast()
    )
    assert sorted(b.endpoint for b in report.batches) == [server.url("/a"), server.url("/b")]


# -- the key file
def test_the_key_file_is_written_where_the_key_location_says(tmp_path: Path) -> None:
    path = write_key_file(SITE, tmp_path)
    assert path == tmp_path / f"{KEY}.txt" and path.read_text() == KEY
    nested = IndexNowSite.of("https://www.example.com/", KEY, "https://www.example.com/blog/k.txt")
    assert write_key_file(nested, tmp_path / "out", "https://www.example.com/blog/") == (
        tmp_path / "out" / "k.txt"
    )
    with pytest.raises(InvalidValue, match="not a file under"):
        write_key_file(SITE, tmp_path, "https://www.example.com/blog/")


# -- the command
def test_cli_submits_a_file_and_reports_each_batch(server: Endpoints, tmp_path: Path) -> None:
    server.script("/indexnow", Reply(200))
    source = tmp_path / "urls.txt"
    source.write_text("# changed today\n" + "\n".join(pages(3)) + "\n\n")
    state = tmp_path / "state.jsonl"
    args = ["announce", "indexnow", str(source), "--site", "https://www.example.com/", "--key", KEY]
    args += ["--endpoint", server.url("/indexnow"), "--state", str(state)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "POST" in result.output and "accepted (HTTP 200)" in result.output
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and "3 already sent before" in again.output
    assert len(server.requests("/indexnow")) == 1


def test_cli_reads_json_lines_and_exits_1_for_urls_of_another_host(
    server: Endpoints, tmp_path: Path
) -> None:
    server.script("/indexnow", Reply(200))
    lines = [
        json.dumps({"loc": pages(1)[0], "lastmod": "2026-11-20"}),
        json.dumps({"loc": "https://elsewhere.example/x"}),
        json.dumps({"type": "sitemap", "loc": "https://www.example.com/sitemap-1.xml"}),
    ]
    result = CliRunner().invoke(
        main,
        [
            "announce",
            "indexnow",
            "-",
            "--site",
            "https://www.example.com/",
            "--key",
            KEY,
            "--no-state",
            "--endpoint",
            server.url("/indexnow"),
        ],
        input="\n".join(lines) + "\n",
    )
    assert result.exit_code == 1
    assert "not sent: https://elsewhere.example/x" in result.output
    (seen,) = server.requests("/indexnow")
    assert seen.method == "GET" and seen.query["url"] == pages(1)[0]


def test_cli_new_key_writes_the_key_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        [
            "announce",
            "indexnow",
            "--site",
            "https://www.example.com/",
            "--new-key",
            "--write-key-file",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.output
    key = result.output.splitlines()[0]
    assert re.fullmatch(r"[A-Za-z0-9]{32}", key)
    assert (tmp_path / f"{key}.txt").read_text() == key


def test_cli_usage_errors_exit_2() -> None:
    runner = CliRunner()
    assert runner.invoke(main, ["announce", "indexnow", "-", "--key", KEY]).exit_code == 2
    no_key = runner.invoke(
        main,
        ["announce", "indexnow", "-", "--site", "https://www.example.com/"],
        env={"URLSET_INDEXNOW_KEY": ""},
    )
    assert no_key.exit_code == 2
    bad_key = runner.invoke(
        main, ["announce", "indexnow", "-", "--site", "https://a.example/", "--key", "x"]
    )
    assert bad_key.exit_code == 2 and "8 to 128" in bad_key.output


def test_cli_input_that_cannot_be_read_exits_2(tmp_path: Path) -> None:
    binary = tmp_path / "urls.bin"
    binary.write_bytes(b"\xff\xfe\x00https://www.example.com/\n")
    args = ["announce", "indexnow", "--site", "https://www.example.com/", "--key", KEY]
    for source, words in (
        (str(binary), "not UTF-8"),
        (str(tmp_path / "missing.txt"), "cannot read"),
    ):
        result = CliRunner().invoke(main, [*args, source, "--no-state"])
        assert result.exit_code == 2 and words in result.output
        assert "Traceback" not in result.output

"""``urlset robots FILE --policy 'AGENT: disallow /x/, allow /x/y'`` (and ``--policy-file``,
``update_robots_file(policies=...)``): User-agent groups written beside the Sitemap lines,
every other byte kept, idempotent. The file shapes are those the Sitemap-line editor keeps
(BOM, CRLF, LF, CR, no last line break, empty, missing, every real robots.txt of the
corpus); the group cases: none yet, one of exactly the agents (its other lines kept), one
shared with other agents or split in two (refused), and a policy given twice (refused)."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from protego import Protego

from test_announce_robots import _robots_corpus
from urlset.announce import RobotsEdit, robots_test, update_robots_file
from urlset.announce.robots_policy import Policy, edit_policies, parse_policy, parse_policy_file
from urlset.cli import main
from urlset.errors import InvalidValue

GOOGLE = "Googlebot: disallow /private/, allow /private/public"


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["robots", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def test_a_policy_is_a_group_crawlers_obey_and_twice_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    original = (
        b"# ours\nUser-agent: *\nDisallow: /tmp/\n\nSitemap: https://www.acme-shop.com/s.xml\n"
    )
    path.write_bytes(original)
    code, out, _ = run(str(path), "--policy", GOOGLE, "--policy", "GPTBot, CCBot: disallow /")
    assert code == 0 and "added    User-agent: Googlebot at line 7" in out
    written = path.read_bytes()
    assert written == original + (
        b"\nUser-agent: Googlebot\nDisallow: /private/\nAllow: /private/public\n"
        b"\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n"
    )
    verdicts = robots_test(
        written, ["/private/x", "/private/public/y", "/tmp/z"], ["Googlebot", "CCBot", "other"]
    )
    assert [(v.allowed, v.line) for v in verdicts] == [
        (False, 8), (False, 13), (True, None),
        (True, 9), (False, 13), (True, None),
        (True, None), (False, 13), (False, 3),
    ]  # fmt: skip
    before = path.stat()
    code, out, _ = run(str(path), "--policy", GOOGLE, "--policy", "CCBot GPTBot: disallow /")
    assert code == 0 and out.endswith("unchanged\n") and out.count("(already so)") == 2
    assert path.read_bytes() == written and path.stat().st_mtime_ns == before.st_mtime_ns


def test_a_group_of_exactly_the_agents_has_its_rules_replaced_and_its_other_lines_kept(
    tmp_path: Path,
) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(
        b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /a\r\n\r\n"
        b"user-agent: googlebot  # Google\r\nCrawl-delay: 2\r\nDisallow: /old/\r\n# why\r\n"
        b"Allow: /old/keep\r\n\r\nUser-agent: Bingbot\r\nDisallow: /b"
    )
    code, _, err = run(str(path), "--policy", GOOGLE)
    assert code == 0, err
    assert path.read_bytes() == (
        b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /a\r\n\r\n"
        b"user-agent: googlebot  # Google\r\nCrawl-delay: 2\r\nDisallow: /private/\r\n"
        b"Allow: /private/public\r\n# why\r\n\r\nUser-agent: Bingbot\r\nDisallow: /b"
    )


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (b"", b"User-agent: Googlebot\nDisallow: /private/\nAllow: /private/public\n"),
        (
            b"Sitemap: https://a.example/s.xml",
            b"Sitemap: https://a.example/s.xml\n\nUser-agent: Googlebot\nDisallow: /private/\nAllow: /private/public",
        ),
        (
            b"Sitemap: https://a.example/s.xml\r",
            b"Sitemap: https://a.example/s.xml\r\rUser-agent: Googlebot\rDisallow: /private/\rAllow: /private/public\r",
        ),
        (
            b"User-agent: Googlebot",
            b"User-agent: Googlebot\nDisallow: /private/\nAllow: /private/public",
        ),
        (
            b"User-agent: Googlebot\n\n",
            b"User-agent: Googlebot\nDisallow: /private/\nAllow: /private/public\n\n",
        ),
    ],
    ids=[
        "empty",
        "no-last-break",
        "cr",
        "group-without-rules-ends-the-file",
        "group-without-rules",
    ],
)
def test_every_file_shape_keeps_its_endings(before: bytes, after: bytes) -> None:
    edit = edit_policies(before, [parse_policy(GOOGLE)])
    assert edit.data == after and edit.changed
    assert edit_policies(edit.data, [parse_policy(GOOGLE)]).changed is False


def test_a_missing_file_is_created_and_the_python_api_says_what_changed(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    edit = update_robots_file(
        path, ["https://www.acme-shop.com/sitemap.xml"], policies=[parse_policy(GOOGLE)]
    )
    assert isinstance(edit, RobotsEdit) and edit.added == ("https://www.acme-shop.com/sitemap.xml",)
    assert [(g.agents, g.change, g.line) for g in edit.groups] == [(("Googlebot",), "added", 3)]
    assert path.read_bytes() == (
        b"Sitemap: https://www.acme-shop.com/sitemap.xml\n\n"
        b"User-agent: Googlebot\nDisallow: /private/\nAllow: /private/public\n"
    )


@pytest.mark.parametrize(
    ("robots", "policies", "message"),
    [
        (
            b"User-agent: Googlebot\nUser-agent: Bingbot\nDisallow: /\n",
            [GOOGLE],
            "differs from the group at line 1 (User-agent: Googlebot, Bingbot)",
        ),
        (
            b"User-agent: Googlebot\nDisallow: /\n\nUser-agent: googlebot\nDisallow: /x\n",
            [GOOGLE],
            "has groups at lines 1 and 4",
        ),
        (b"", [GOOGLE, "googlebot: allow /"], "is given in two policies"),
    ],
    ids=["shared-group", "two-groups", "twice"],
)
def test_an_unclear_group_is_refused_and_the_file_left_as_it_was(
    tmp_path: Path, robots: bytes, policies: list[str], message: str
) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(robots)
    args = [a for p in policies for a in ("--policy", p)]
    code, _, err = run(str(path), *args)
    assert code == 2 and message in err and "left as it was" in err
    assert path.read_bytes() == robots


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("Googlebot disallow /x", "a colon after the agents"),
        ("Googlebot: block /x", "'allow PATH' or 'disallow PATH'"),
        ("Googlebot:", "has no rule; to allow everything write 'allow /'"),
        (": disallow /x", "names no user agent"),
        ("Google bot!: allow /", "must be a crawler's name"),
        ("Googlebot: disallow private", "must start with / or *"),
        ("Googlebot: disallow /a b", "hold no space or #"),
    ],
)
def test_a_policy_that_cannot_be_read_is_a_usage_error(
    tmp_path: Path, spec: str, message: str
) -> None:
    path = tmp_path / "robots.txt"
    code, _, err = run(str(path), "--policy", spec)
    assert code == 2 and message in err and not path.exists()


def test_a_policy_file_holds_groups_as_robots_txt_writes_them(tmp_path: Path) -> None:
    groups = b"# for the crawlers of AI\nUser-agent: GPTBot\nUser-agent: CCBot\nDisallow: /\n\nUser-agent: Googlebot\nDisallow: /private/ # kept out\nAllow: /private/public\n"
    assert parse_policy_file(groups) == [
        Policy(("GPTBot", "CCBot"), (("disallow", "/"),)),
        Policy(("Googlebot",), (("disallow", "/private/"), ("allow", "/private/public"))),
    ]
    path = tmp_path / "robots.txt"
    code, _, err = run(str(path), "--policy-file", "-", stdin=groups)
    assert code == 0, err
    assert robots_test(path.read_bytes(), ["/private/x"], ["CCBot", "Googlebot"])[1].line == 6
    code, _, err = run(
        str(path), "--policy-file", "-", stdin=b"User-agent: a\nDisallow: /\nCrawl-delay: 4\n"
    )
    assert code == 2 and "policy file line 3" in err
    code, _, err = run(str(path), "--policy-file", "-", stdin=b"# nothing\n")
    assert code == 2 and "holds no User-agent group" in err


def test_every_real_robots_txt_keeps_its_bytes_and_its_other_agents_verdicts(shared: Path) -> None:
    policy = parse_policy("urlset-test-bot: disallow /private/, allow /private/public")
    for path in _robots_corpus(shared):
        data = path.read_bytes()
        edit = edit_policies(data, [policy])
        assert edit.data.startswith(data.rstrip(b"\r\n")), path  # added after every byte
        assert edit_policies(edit.data, [policy]).changed is False, path
        before = Protego.parse(data.decode("utf-8-sig", errors="replace"))
        after = Protego.parse(edit.data.decode("utf-8-sig", errors="replace"))
        for url in ("/", "/private/x", "/admin/", "/search?q=1"):
            for agent in ("*", "Googlebot", "Bingbot"):
                assert before.can_fetch(url, agent) == after.can_fetch(url, agent), (
                    path,
                    url,
                    agent,
                )
        assert not after.can_fetch("/private/x", "urlset-test-bot")
        assert after.can_fetch("/private/public/y", "urlset-test-bot")


_LINES = st.sampled_from(
    [
        "User-agent: *", "User-agent: Googlebot", "user-agent: GPTBot", "User-agent: Bingbot",
        "Disallow: /a", "Allow: /a/b", "Disallow: /", "Crawl-delay: 3", "# note", "",
        "Sitemap: https://a.example/s.xml", "Disallow: /*.pdf$", "Dissallow: /typo",
        "User-agent Googlebot", "Disallow /a/b", "User agent: gptbot", "Unknown: x",
    ]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_LINES, max_size=14),
    st.sampled_from(["\n", "\r\n"]),
    st.sampled_from(["Googlebot", "GPTBot", "*"]),
)
def test_where_a_policy_applies_its_agent_obeys_exactly_its_rules(
    lines: list[str], eol: str, agent: str
) -> None:
    data = eol.join(lines).encode()
    policy = parse_policy(f"{agent}: disallow /a/, allow /a/b/c")
    try:
        edit = edit_policies(data, [policy])
    except InvalidValue as exc:  # refused only for a shared or split group
        assert "differs from the group" in str(exc) or "has groups at lines" in str(exc)
        return
    assert edit_policies(edit.data, [policy]).changed is False
    alone = Protego.parse(policy.text().decode())
    after = Protego.parse(edit.data.decode())
    for url in ("/a/x", "/a/b/c/d", "/z", "/a"):
        assert after.can_fetch(url, agent) == alone.can_fetch(url, agent), (data, url)

"""``urlset robots FILE|URL --test URL --user-agent A --user-agent B``: a URL x agent matrix
of allowed / disallowed with the rule and line that decide, from protego (the one matcher
every command uses). The rule shapes are enumerated from RFC 9309 and Google's documented
matching: the longest path wins, Allow wins a tie, ``*`` and ``$``, ``/robots.txt`` always
allowed, the most specific agent's group, groups of one agent merged, several agents sharing
a group, a Sitemap line inside a group, misspelt directives and lines without a colon that protego
accepts, a BOM, CRLF and
comments; and every real robots.txt of the corpus, where each verdict must be protego's and
each rule shown must be one that says so."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from aiohttp import web
from click.testing import CliRunner
from protego import Protego

from test_announce_robots import _robots_corpus
from test_fetch_support import LoopbackServer, fast_http
from urlset.announce.robots_rules import RobotsRules, robots_test
from urlset.announce.robots_verify import robots_matrix_sync
from urlset.cli import main

ROBOTS = (
    b"\xef\xbb\xbfUser-agent: *\r\n"  # 1: a BOM and CRLF
    b"Disallow: /private/   # kept out\r\n"  # 2
    b"Allow: /private/public\r\n"  # 3
    b"Disallow: /*.pdf$\r\n"  # 4
    b"Allow: /shop\r\n"  # 5
    b"Disallow: /shop\r\n"  # 6: a tie, Allow wins
    b"Sitemap: https://www.acme-shop.com/sitemap.xml\r\n"  # 7: no part of the group
    b"Disallow: /tmp\r\n"  # 8: still the * group
    b"\r\n"  # 9
    b"User-agent: Googlebot\r\n"  # 10
    b"User-agent: Bingbot\r\n"  # 11
    b"Disallow: /nobots\r\n"  # 12
    b"Allow: /index.html\r\n"  # 13: / allowed too
    b"Dissallow: /typo\r\n"  # 14: protego reads the misspelling
    b"\r\n"
    b"User-agent: Googlebot-Image\r\n"  # 16
    b"Disallow: /\r\n"  # 17
    b"\r\n"
    b"User-agent: googlebot\r\n"  # 19: merged with line 10's group
    b"Disallow: /merged\r\n"  # 20
    b"\r\n"
    b"User-agent Slurp\r\n"  # 22: without the colon, as protego reads it too
    b"Disallow /noslurp\r\n"  # 23
)
SITE = "https://www.acme-shop.com"

# (URL, agent) -> (allowed, line of the rule that decides, or None)
CASES = {
    (f"{SITE}/private/x", "*"): (False, 2),
    (f"{SITE}/private/public/x", "*"): (True, 3),
    (f"{SITE}/a/b.pdf", "*"): (False, 4),
    (f"{SITE}/a/b.pdf?page=2", "*"): (True, None),
    (f"{SITE}/shop/x", "*"): (True, 5),
    (f"{SITE}/tmp/x", "*"): (False, 8),
    (f"{SITE}/robots.txt", "Googlebot-Image"): (True, None),
    (f"{SITE}/nobots/1", "Googlebot"): (False, 12),
    (f"{SITE}/nobots/1", "Mozilla/5.0 (compatible; bingbot/2.0)"): (False, 12),
    (f"{SITE}/private/x", "Googlebot"): (True, None),
    (f"{SITE}/", "Googlebot"): (True, 13),
    (f"{SITE}/typo/x", "Googlebot"): (False, 14),
    (f"{SITE}/merged/x", "Googlebot"): (False, 20),
    (f"{SITE}/anything", "Googlebot-Image"): (False, 17),
    ("/private/x", "OtherBot"): (False, 2),
    ("/noslurp/x", "Slurp"): (False, 23),
    ("/private/x", "Slurp"): (True, None),
}


@pytest.mark.parametrize(("url", "agent"), list(CASES))
def test_each_rule_shape_gives_protego_s_verdict_and_the_line_that_decides(
    url: str, agent: str
) -> None:
    (verdict,) = robots_test(ROBOTS, [url], [agent])
    allowed, line = CASES[url, agent]
    assert verdict.allowed is allowed
    assert verdict.allowed == Protego.parse(ROBOTS.decode("utf-8-sig")).can_fetch(url, agent)
    assert verdict.line == line
    if line is not None:
        written = ROBOTS.decode("utf-8-sig").splitlines()[line - 1].split("#")[0].strip()
        assert verdict.rule == written


def test_the_group_named_is_the_one_protego_applies() -> None:
    groups = {
        v.user_agent: v.group
        for v in robots_test(ROBOTS, ["/x"], ["*", "Googlebot", "Googlebot-Image/1.0"])
    }
    assert groups == {"*": "*", "Googlebot": "googlebot", "Googlebot-Image/1.0": "googlebot-image"}
    (alone,) = robots_test(b"User-agent: Googlebot\nDisallow: /\n", ["/x"], ["OtherBot"])
    assert (alone.allowed, alone.group, alone.rule) == (True, None, None)


def test_every_real_robots_txt_gives_protego_s_verdicts_with_a_rule_that_says_so(
    shared: Path,
) -> None:
    agents = ["*", "Googlebot", "Bingbot", "GPTBot"]
    for path in _robots_corpus(shared):
        body = path.read_bytes()
        parsed = Protego.parse(body.decode("utf-8-sig", errors="replace"))
        rules = RobotsRules(body)
        lines = body.decode("utf-8-sig", errors="replace").splitlines()
        # each path a rule line names, and a little beside it
        paths = ["/", "/x", "/index.html"]
        for line in lines:
            value = line.split("#")[0].partition(":")[2].strip()
            if value.startswith("/"):
                plain = value.replace("*", "a").rstrip("$")
                paths += [plain, plain + "x", plain + "/y?z=1"]
        for url in paths:
            for agent in agents:
                verdict = rules.verdict(url, agent)
                assert verdict.allowed == parsed.can_fetch(url, agent), (path, url, agent)
                if verdict.rule is not None:
                    assert verdict.rule.lower().startswith("allow" if verdict.allowed else "dis")
                if verdict.line is not None:
                    assert lines[verdict.line - 1].split("#")[0].strip() == verdict.rule


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["robots", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def robots_file(tmp_path: Path) -> Path:
    path = tmp_path / "robots.txt"
    path.write_bytes(ROBOTS)
    return path


def test_the_text_matrix_has_a_row_a_url_and_a_column_an_agent(robots_file: Path) -> None:
    code, out, _ = run(
        str(robots_file), "--test", f"{SITE}/private/x", "--test", "/nobots/1",
        "--user-agent", "*", "--user-agent", "Googlebot",
    )  # fmt: skip
    assert code == 1
    lines = out.splitlines()
    assert lines[1].split() == ["URL", "*", "Googlebot"]
    assert lines[2].split() == [f"{SITE}/private/x", "disallowed", "(line", "2)", "allowed"]
    assert lines[3].split() == ["/nobots/1", "allowed", "disallowed", "(line", "12)"]
    assert "line 2: Disallow: /private/" in lines and "line 12: Disallow: /nobots" in lines
    assert lines[-1] == "2 of 4 disallowed"


def test_all_allowed_exits_0_and_json_and_csv_say_the_same(robots_file: Path) -> None:
    args = [
        str(robots_file),
        "--test",
        "/private/public/a",
        "--test",
        "/shop/b",
        "--user-agent",
        "Googlebot",
        "--user-agent",
        "*",
    ]
    code, out, _ = run(*args, "--format", "json")
    assert code == 0
    found = json.loads(out)
    assert found["disallowed"] == 0
    assert [(v["url"], v["user_agent"], v["allowed"], v["line"]) for v in found["verdicts"]] == [
        ("/private/public/a", "Googlebot", True, None),
        ("/private/public/a", "*", True, 3),
        ("/shop/b", "Googlebot", True, None),
        ("/shop/b", "*", True, 5),
    ]
    code, out, _ = run(*args, "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["line"] for r in rows] == ["", "3", "", "5"]
    assert rows[1] == {
        "url": "/private/public/a",
        "user_agent": "*",
        "allowed": "true",
        "rule": "Allow: /private/public",
        "line": "3",
        "group": "*",
    }


def test_a_test_file_from_stdin_with_comments_and_repeats(robots_file: Path) -> None:
    listed = "# the URLs to test\n/private/a\n\n/private/a\n/tmp/b\n"
    code, out, _ = run(str(robots_file), "--test-file", "-", "--format", "csv", stdin=listed)
    assert code == 1
    assert [r["url"] for r in csv.DictReader(io.StringIO(out))] == ["/private/a", "/tmp/b"]
    code, _, err = run(str(robots_file), "--test-file", "-", stdin="# none\n")
    assert code == 2 and "holds no URL" in err
    binary = robots_file.parent / "urls.gz"
    binary.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe")
    code, _, err = run(str(robots_file), "--test-file", str(binary))
    assert code == 2 and "is not UTF-8 text" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--test", "/a", "--check"], "give it alone"),
        (["--test", "/a", "--sitemap", f"{SITE}/s.xml"], "give it alone"),
        (["--check", "--user-agent", "a", "--user-agent", "b"], "one --user-agent"),
        (["--sitemap", f"{SITE}/s.xml", "--format", "csv"], "--format csv is for --test"),
        (["--sitemap", f"{SITE}/s.xml", "--user-agent", "a"], "--user-agent is for"),
    ],
)
def test_options_that_do_not_go_together_are_usage_errors(
    robots_file: Path, args: list[str], message: str
) -> None:
    code, _, err = run(str(robots_file), *args)
    assert code == 2 and message in err
    assert robots_file.read_bytes() == ROBOTS


def test_a_missing_file_is_an_i_o_error(tmp_path: Path) -> None:
    code, _, err = run(str(tmp_path / "none.txt"), "--test", "/a")
    assert code == 2 and "cannot read" in err


def test_a_robots_txt_over_http_paths_on_its_site_and_other_sites_refused() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", ROBOTS, "text/plain")
        code, out, _ = run(
            server.url("/some/page"),
            "--test",
            "/private/x",
            "--test",
            server.url("/ok"),
            "--format",
            "json",
        )
        assert code == 1
        found = json.loads(out)
        assert found["served_at"] == server.url("/robots.txt")
        assert [(v["url"], v["allowed"]) for v in found["verdicts"]] == [
            (server.url("/private/x"), False),
            (server.url("/ok"), True),
        ]
        code, _, err = run(server.url("/robots.txt"), "--test", "https://elsewhere.example/x")
        assert code == 2 and "is not on" in err
        # the same site however it is spelt (compared as URIs)
        shouted = server.url("/tmp/x").replace("http://", "HTTP://")
        code, out, _ = run(server.url("/"), "--test", shouted, "--format", "csv")
        assert code == 1 and out.splitlines()[1].startswith(server.url("/tmp/x") + ",*,false")


def test_no_robots_txt_allows_everything_and_a_server_error_is_an_i_o_error() -> None:
    async def failing(request: web.Request) -> web.StreamResponse:
        return web.Response(status=503, text="down")

    with LoopbackServer() as server:
        code, out, _ = run(server.url("/"), "--test", "/private/x")
        assert code == 0 and "every URL is allowed" in out and "allowed" in out.splitlines()[-2]
        server.handle("/robots.txt", failing)
        with pytest.raises(OSError, match="HTTP 503"):
            robots_matrix_sync(server.url("/"), ["/x"], http=fast_http())


def test_advertools_robots_txt_gives_the_matrix_its_robotstxt_test_is_about(shared: Path) -> None:
    """advertools' test robots.txt (two groups, Allow and Disallow with ``*`` and ``$``, a
    rule written without a space after the colon), as its ``robotstxt_test`` asks it."""
    body = (shared / "corpus/peers/advertools/tests/data/sitemap_testing/robots.txt").read_bytes()
    urls = ["/help/faq", "/index.php", "/dont_crawl/x", "/app.js", "/other"]
    found = {
        (v.url, v.user_agent): (v.allowed, v.rule, v.line)
        for v in robots_test(body, urls, ["*", "Googlebot"])
    }
    assert found == {
        ("/help/faq", "*"): (True, "Allow: /help*", 4),
        ("/index.php", "*"): (True, "Allow: /*php$", 5),
        ("/dont_crawl/x", "*"): (True, None, None),
        ("/app.js", "*"): (True, None, None),
        ("/other", "*"): (True, None, None),
        ("/help/faq", "Googlebot"): (True, None, None),
        ("/index.php", "Googlebot"): (False, "Disallow: /*php$", 9),
        ("/dont_crawl/x", "Googlebot"): (False, "Disallow:/dont_crawl", 8),
        ("/app.js", "Googlebot"): (True, "Allow: /*js$", 10),
        ("/other", "Googlebot"): (True, None, None),
    }

"""The console script's lean parse of ``urlset build`` (cli/lean.py): it takes a command line
only when click would parse it to the same parameters, and the build then runs as it does
under click, byte for byte (exit status, standard output and error, every file written),
without loading click; a value the build itself refuses is said by click, as before."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_cli_lean import click_params, run_console
from urlset.cli import lean
from urlset.cli.build import build

FILES = {
    # a duplicate, a line that is no URL: reported, and under --strict refused
    "urls.txt": "https://shop.test/a\nhttps://shop.test/b?x=1&y=2\nhttps://shop.test/a\nnot a url\n",
    "pages.csv": "loc,lastmod,image_loc\n"
    "https://shop.test/p1,2024-05-06,https://shop.test/p1.png\n"
    "https://shop.test/p2,2024-13-01,\n",
    "site/index.html": '<html><head><title>Home</title></head><body><img src="/a.png"></body></html>',
    "site/blog/post.html": "<html><head><title>Post</title></head><body>post</body></html>",
    "robots.txt": "User-agent: *\nDisallow: /private/\n",
}
BASE = ("--base-url", "https://shop.test/")
OUT = ("--out", "out")

# (a command line, how it runs: "lean" without click, "click" by the click group, or "refused":
# the lean parse takes it, the build refuses a value and hands the line to click)
LINES = [
    (["build", "urls.txt", *BASE, *OUT], "lean"),
    (["build", "urls.txt", "pages.csv", *BASE, *OUT, "--no-gzip"], "lean"),
    (["build", "pages.csv", *BASE, *OUT, "--gzip", "-q"], "lean"),
    (["build", "urls.txt", *BASE, *OUT, "--format", "text", "-v"], "lean"),
    (["build", "site", *BASE, *OUT, "--images", "--strip-html", "--lastmod", "none"], "lean"),
    (
        ["build", "-", *BASE, *OUT, "--input-format", "text", "--profile", "sitemaps-0.9-2008"],
        "lean",
    ),
    (["build", "urls.txt", *BASE, *OUT, "--report", "report.jsonl", "--stylesheet"], "lean"),
    (["build", "urls.txt", *BASE, *OUT, "--robots", "robots.txt", "--schema-location"], "lean"),
    (["build", "urls.txt", *BASE, *OUT, "--exclude", "/b", "--exclude", "re:y=2"], "lean"),
    (["build", "urls.txt", *BASE, *OUT, "--max-urls", "1", "--prefix", "s", "--no-dedupe"], "lean"),
    (["build", "urls.txt", *BASE, *OUT, "--stable", "--changes", "changes.jsonl"], "lean"),
    (["build", "pages.csv", *BASE, *OUT, "--section-by", "path:1", "--timezone", "+02:00"], "lean"),
    (["build", "urls.txt", *BASE, *OUT, "--sitemap-url", "https://cdn.test/maps/"], "lean"),
    (["build", "missing.txt", *BASE, *OUT], "lean"),
    (["build", "urls.txt", *BASE, *OUT, "--strict"], "lean"),
    (["build", "urls.txt", "--base-url", "ftp://nope", *OUT], "refused"),
    (["build", "urls.txt", *BASE, *OUT, "--timezone", "Nowhere/Bogus"], "refused"),
    (["build", "urls.txt", *BASE, *OUT, "--exclude", "re:("], "refused"),
    (["build", "urls.txt", *BASE, *OUT, "--stylesheet", "--xsl", "x.xsl"], "refused"),
    (["build", "-", "-", *BASE, *OUT, "--input-format", "text"], "refused"),
    (["build", *BASE, *OUT], "refused"),
    (["build", "urls.txt", *BASE, *OUT, "--news-window", "2d"], "click"),
    (["build", "urls.txt", *BASE, "--out", "urls.txt"], "click"),
    (["build", "urls.txt", *BASE, *OUT, "--gzip", "--no-gzip"], "click"),
    (["build", "urls.txt", *BASE], "click"),
    (["build", "--help"], "click"),
]


def fixture(root: Path) -> Path:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def files(root: Path) -> dict[str, bytes]:
    """Every file under ``root`` (the inputs and what the build wrote), by relative path."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize(("args", "how"), LINES, ids=[" ".join(a) for a, _ in LINES])
def test_the_console_builds_as_the_click_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], how: str
) -> None:
    lean_dir = fixture(tmp_path / "lean")
    click_dir = tmp_path / "click"
    shutil.copytree(lean_dir, click_dir)  # the same files, modification times too
    stdin = FILES["urls.txt"].encode()
    code, out, err = run_console(args, lean_dir, stdin=stdin)
    click_code, click_out, click_err = run_console(args, click_dir, lean_path=False, stdin=stdin)
    assert (code, out) == (click_code, click_out)
    assert err.replace(b"click loaded: False", b"click loaded: True") == click_err
    assert files(lean_dir) == files(click_dir)
    if how == "lean" and code == 0:
        assert (lean_dir / "out").is_dir()  # the build ran
    monkeypatch.chdir(lean_dir)  # where the lean parse below looks at the paths
    assert (lean.lean_params(args) is not None) == (how != "click")
    # the lean path ran without click; click ran the others, and said what build refused
    assert err.endswith(b"click loaded: %s" % str(how != "lean").encode())


def test_the_plain_spellings_are_taken(tmp_path: Path) -> None:
    report = str(tmp_path / "report.jsonl")
    taken = [
        ["build", "urls.txt", *BASE, *OUT],
        ["build", *BASE, *OUT],
        ["build", "a.txt", "b.csv.gz", "-", str(tmp_path), *BASE, "--out", str(tmp_path)],
        ["build", "a.txt", *BASE, *OUT, "--no-gzip", "-q", "--stable", "--report", report],
        ["build", "a.txt", *BASE, *OUT, "--exclude", "/x/**", "--exclude", "re:y", "-v"],
        ["build", "a.txt", *BASE, *OUT, "--format", "text", "--max-urls", "10", "--rate", "2.5"],
        ["build", "--crawl", "https://a.test/", *BASE, *OUT, "--concurrency", "256"],
        ["build", "a.txt", *BASE, *OUT, "--lastmod", "git", "--gzip", "--user-agent", "u"],
    ]
    for args in taken:
        assert lean.lean_params(args) == click_params(args[1:], build) is not None, args


def test_every_other_spelling_goes_to_click(tmp_path: Path) -> None:
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    for args in (
        ["build"],
        ["build", "--help"],
        ["build", "a.txt", *BASE, *OUT, "-h"],
        ["build", "a.txt", *BASE],
        ["build", "a.txt", *OUT],
        ["build", "a.txt", *BASE, *OUT, *OUT],
        ["build", "a.txt", *BASE, *OUT, "--gzip", "--no-gzip"],
        ["build", "a.txt", *BASE, *OUT, "-qv"],
        ["build", "a.txt", *BASE, "--out=out"],
        ["build", "a.txt", *BASE, "--out", str(a_file)],
        ["build", "a.txt", *BASE, *OUT, "--report", str(tmp_path)],
        ["build", "a.txt", *BASE, *OUT, "--format", "XML"],
        ["build", "a.txt", *BASE, *OUT, "--max-urls", "1_000"],
        ["build", "a.txt", *BASE, *OUT, "--concurrency", "0"],
        ["build", "a.txt", *BASE, *OUT, "--rate", "0"],
        ["build", "a.txt", *BASE, *OUT, "--news-window", "2d"],
        ["build", "a.txt", *BASE, *OUT, "--dask", "local"],
        ["build", "a.txt", *BASE, *OUT, "--exclude"],
        ["build", "a.txt", *BASE, *OUT, "--exclude", "-x"],
        ["build", "--", "-a.txt", *BASE, *OUT],
    ):
        assert lean.lean_params(args) is None, args


def test_a_path_of_the_wrong_kind_is_left_to_click(tmp_path: Path) -> None:
    """click.Path refuses a directory where a file goes: the lean parse leaves it to click
    (as root too, which the next test's unwritable file cannot be)."""
    for option in ("--robots", "--report", "--changes"):
        args = ["build", "a.txt", *BASE, *OUT, option, str(tmp_path)]
        assert lean.lean_params(args) is None, option
        assert click_params(args[1:], build) is None, option


def test_a_path_click_refuses_is_left_to_it(tmp_path: Path) -> None:
    """click.Path refuses a path it may not read (or write, for --report and --changes):
    the lean parse leaves each to click."""
    if os.geteuid() == 0:
        pytest.skip("root reads and writes every file")
    locked = tmp_path / "locked.jsonl"
    locked.write_text("", encoding="utf-8")
    locked.chmod(0o444)  # readable, not writable
    for option, taken in (("--robots", True), ("--report", False), ("--changes", False)):
        args = ["build", "a.txt", *BASE, *OUT, option, str(locked)]
        assert (lean.lean_params(args) is not None) == taken, option
        assert (click_params(args[1:], build) is not None) == taken, option


WORDS = st.sampled_from(
    [
        *lean.BUILD.flags,
        *lean.BUILD.off,
        *lean.BUILD.valued,
        *lean.INPUT_FORMATS,
        *lean.BUILD_FORMATS,
        *lean.PROFILES,
        *("auto", "git", "none", "Text", "path:1", "re:x", "/b", "2d", "--news-window", "--dask"),
        *("0", "1", "8", "256", "257", "1.5", ".5", "0.0", "-1", "+5", "1e3", "٣"),
        *("urls.txt", "README.md", "src", "out", ".", "", "https://a.test/", "-", "--"),
        *("-x", "-h", "--help", "-qv", "--out=out", "--gzip=yes"),
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.booleans(), st.lists(WORDS, max_size=8))
def test_a_lean_parse_is_clicks(required: bool, words: list[str]) -> None:
    """Any command line the lean parse takes, click parses to the same parameters (run from
    the repository: README.md a file, src a directory)."""
    args = [*BASE, *OUT, *words] if required else words
    taken = lean.lean_params(["build", *args])
    if taken is not None:
        assert taken == click_params(args, build), args

"""The console script's lean parse of ``urlset check`` (cli/lean.py): it takes a command line
only when click would parse it to the same parameters, and the check then runs as it does
under click, byte for byte (exit status, standard output and error, the file ``-o`` writes),
without loading click; a value the check itself refuses is said by click, as before."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from test_cli_lean import click_params, run_console
from urlset.cli import lean
from urlset.cli.check import check

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def doc(*entries: str, root: str = "urlset", item: str = "url") -> str:
    body = "".join(
        f"<{item}><loc>{loc}</loc>{more}</{item}>" for loc, _, more in map(_split, entries)
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} xmlns="{NS}">{body}</{root}>\n'


def _split(entry: str) -> tuple[str, str, str]:
    """``loc`` or ``loc|<lastmod>...</lastmod>``: the loc and what follows it in the entry."""
    return entry.partition("|")


FILES = {
    "clean.xml": doc("https://shop.test/a?x=1&amp;y=2|<lastmod>2024-01-01</lastmod>"),
    "warning.xml": doc("https://www.example.com/a"),
    "error.xml": doc("https://shop.test/a b", "https://shop.test/c|<lastmod>2024-13-01</lastmod>"),
    "site/sitemap.xml": doc(
        "https://shop.test/s1.xml",
        "https://shop.test/gone.xml",
        root="sitemapindex",
        item="sitemap",
    ),
    "site/s1.xml": doc("https://shop.test/p1", "https://shop.test/p2"),
}
NOW = ("--now", "2026-11-29T00:00:00Z")

# (a command line, how it runs: "lean" without click, "click" by the click group, or "refused":
# the lean parse takes it, the check refuses a value and hands the line to click)
LINES = [
    (["check", "clean.xml", *NOW], "lean"),
    (["check", "warning.xml", *NOW], "lean"),
    (["check", "warning.xml", "-q", *NOW], "lean"),
    (["check", "warning.xml", "--fail-on", "warning", *NOW], "lean"),
    (["check", "error.xml", "clean.xml", "warning.xml", *NOW], "lean"),
    (["check", "clean.xml.gz", "--schema", *NOW], "lean"),
    (["check", "site", "--base-url", "https://shop.test/", *NOW], "lean"),
    (["check", "site/s1.xml", "--profile", "sitemaps-0.9-2008", "--now", "2026-01-01"], "lean"),
    (["check", "missing.xml", "clean.xml", *NOW], "lean"),
    (["check", "-", *NOW], "lean"),
    (["check", "error.xml", "--format", "json", *NOW], "lean"),
    (["check", "error.xml", "--format", "sarif", "--deadline", "5", *NOW], "lean"),
    (["check", "warning.xml", "-o", "out.txt", *NOW], "lean"),
    (["check", "warning.xml", "--output", "out/none/x.txt", *NOW], "lean"),
    (["check", "clean.xml", "--now", "yesterday"], "refused"),
    (["check", "clean.xml", "--now", "2026-01-01T00:00:00"], "refused"),
    (["check", "clean.xml", "--base-url", "ftp://nope", *NOW], "refused"),
    (["check", "clean.xml", "--sitemap-url", "https://cdn.test/", *NOW], "refused"),
    (["check", "clean.xml", "--format", "json", "-o", "dir", *NOW], "click"),
    (["check", "clean.xml", "--format=json", *NOW], "click"),
    (["check", "clean.xml", "--deadline", "0", *NOW], "click"),
    (["check", "clean.xml", "--profile", "bogus"], "click"),
    (["check", "--help"], "click"),
    (["check"], "click"),
]


@pytest.mark.parametrize(("args", "how"), LINES, ids=[" ".join(a) for a, _ in LINES])
def test_the_console_checks_as_the_click_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], how: str
) -> None:
    monkeypatch.chdir(tmp_path)  # where the lean parse below looks at the paths
    for name, text in FILES.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    (tmp_path / "clean.xml.gz").write_bytes(gzip.compress(FILES["clean.xml"].encode()))
    (tmp_path / "dir").mkdir()
    stdin = FILES["warning.xml"].encode()
    code, out, err = run_console(args, tmp_path, stdin=stdin)
    written = (tmp_path / "out.txt").read_bytes() if "out.txt" in args else b""
    click_code, click_out, click_err = run_console(args, tmp_path, lean_path=False, stdin=stdin)
    assert (code, out) == (click_code, click_out)
    assert err.replace(b"click loaded: False", b"click loaded: True") == click_err
    if "out.txt" in args:
        assert written == (tmp_path / "out.txt").read_bytes() != b""
    assert (lean.lean_params(args) is not None) == (how != "click")
    # the lean path ran without click; click ran the others, and said what check refused
    assert err.endswith(b"click loaded: %s" % str(how != "lean").encode())


def test_an_html_report_is_the_same_through_both_ways(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    (tmp_path / "error.xml").write_text(FILES["error.xml"], encoding="utf-8")
    args = ["check", "error.xml", "--format", "html", "-o", "report.html", *NOW]
    assert run_console(args, tmp_path)[0] == 1
    lean_page = (tmp_path / "report.html").read_bytes()
    assert run_console(args, tmp_path, lean_path=False)[0] == 1
    assert (tmp_path / "report.html").read_bytes() == lean_page


def test_the_plain_spellings_are_taken(tmp_path: Path) -> None:
    out = str(tmp_path / "out.json")
    taken = [
        ["check", "s.xml"],
        ["check", "s.xml", "t.xml.gz", "-", "dir", "https://shop.test/"],
        ["check", "-q", "s.xml", "--schema", "--allow-private", "--fail-on", "warning"],
        ["check", "s.xml", "--format", "sarif", "-o", out, "--deadline", "2.5"],
        ["check", "s.xml", "--base-url", "https://a.test/", "--sitemap-url", "https://b.test/"],
        ["check", "s.xml", "--now", "2026-01-01", "--profile", "sitemaps-0.9-2008"],
    ]
    for args in taken:
        assert lean.lean_params(args) == click_params(args[1:], check) is not None, args


def test_every_other_spelling_goes_to_click(tmp_path: Path) -> None:
    for args in (
        ["check"],
        ["check", "-h"],
        ["check", "s.xml", "--help"],
        ["check", "s.xml", "-q", "--quiet"],
        ["check", "s.xml", "--format", "JSON"],
        ["check", "s.xml", "--format=json"],
        ["check", "s.xml", "-ojson"],
        ["check", "s.xml", "-o", str(tmp_path)],
        ["check", "s.xml", "--deadline", "0"],
        ["check", "s.xml", "--deadline", "1e3"],
        ["check", "s.xml", "--deadline", "nan"],
        ["check", "s.xml", "--no-schema"],
        ["check", "--", "-s.xml"],
        ["check", "s.xml", "--now"],
        ["check", "s.xml", "--now", "-05:00"],
    ):
        assert lean.lean_params(args) is None, args


WORDS = st.sampled_from(
    [
        *lean.CHECK.flags,
        *lean.CHECK.valued,
        *lean.CHECK_FORMATS,
        *lean.CHECK_FAIL_ON,
        *("current", "sitemaps-0.9-2008", "Error", "xml", "-h", "--help", "--", "-", "-x"),
        *("0", "7", "1.5", ".5", "1.", "0.0", "-1", "+5", "1e3", "inf", "nan", " 2", "٣"),
        *("s.xml", "t.xml.gz", "https://a.test/", "2026-01-01", "", ".", "-qv", "--format=json"),
    ]
)


@settings(max_examples=500, deadline=None)
@given(st.lists(WORDS, max_size=8))
def test_a_lean_parse_is_clicks(words: list[str]) -> None:
    """Any command line the lean parse takes, click parses to the same parameters."""
    taken = lean.lean_params(["check", *words])
    if taken is not None:
        assert taken == click_params(words, check), words

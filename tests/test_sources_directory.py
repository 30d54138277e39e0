"""A static site's output folder as a build source: pretty URLs, ignore patterns, lastmod from
git (one log pass) or mtime, and each page's head (noindex, canonical, hreflang, images)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from sources_support import assert_valid_set, html_page
from urlset.cli import main
from urlset.errors import InputError
from urlset.extensions import Alternate, Image
from urlset.model import Url
from urlset.sources.directory import DirectoryOptions, DirectoryWalk, git_dates, url_path
from urlset.sources.page import read_page
from urlset.sources.report import SourceError

BASE = "https://www.example.com/docs/"


@pytest.mark.parametrize(
    ("relative", "strip", "expected"),
    [
        ("index.html", False, ""),
        ("blog/index.html", False, "blog/"),
        ("blog/INDEX.HTM", False, "blog/"),
        ("about.html", False, "about.html"),
        ("about.html", True, "about"),
        ("a/b/page.htm", True, "a/b/page.htm"),
        ("café & co.html", False, "caf%C3%A9%20&%20co.html"),
        ("q?x#y.html", True, "q%3Fx%23y"),
        ("100%.html", True, "100%25"),
    ],
)
def test_pretty_urls(relative: str, strip: bool, expected: str) -> None:
    assert url_path(relative, strip_html=strip) == expected


def _site(root: Path) -> None:
    pages = {
        "index.html": html_page(
            head='<link rel="alternate" hreflang="en" href="/docs/">'
            '<link rel="alternate" hreflang="de" href="https://www.example.com/docs/de/">'
            '<meta property="og:image" content="/img/og.png">',
            body='<img src="pic one.png"><img src="data:image/png;base64,AAAA">',
        ),
        "de/index.html": html_page(
            head='<link rel="alternate" hreflang="en" href="/docs/">'
            '<link rel="alternate" hreflang="de" href="/docs/de/">'
        ),
        "about.html": html_page(head=f'<link rel="canonical" href="{BASE}about">'),
        "secret.html": html_page(head='<meta name="ROBOTS" content="NoIndex, follow">'),
        "old.html": html_page(head='<link rel="canonical" href="/docs/about">'),
        "drafts/wip.html": html_page(),
        "404.html": html_page(),
        ".hidden/x.html": html_page(),
        "style.css": "body{}",
        "ünïcode/straße.html": html_page(),
    }
    for name, text in pages.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _walk(root: Path, **options: object) -> tuple[list[object], DirectoryWalk]:
    walk = DirectoryWalk(root, BASE, DirectoryOptions(**options))  # type: ignore[arg-type]
    return [entry for batch in walk.batches() for entry in batch], walk


def test_walk_lists_pages_and_reports_what_it_leaves_out(tmp_path: Path) -> None:
    _site(tmp_path)
    entries, walk = _walk(tmp_path, strip_html=True, ignore=("drafts/",), lastmod="none")
    locs = [e[0] for e in entries]  # type: ignore[index]  # a Url is a tuple too
    assert locs == [  # a folder's files by name, then its folders
        BASE + "about",
        BASE,
        BASE + "de/",
        BASE + "%C3%BCn%C3%AFcode/stra%C3%9Fe",
    ]
    assert walk.report.entries == 4
    assert walk.report.left_out == {
        'noindex (<meta name="robots">)': 1,
        "canonical is another URL": 1,
    }
    assert walk.report.examples["canonical is another URL"] == [
        f"old.html: {BASE}old -> {BASE}about"
    ]
    first = entries[1]
    assert isinstance(first, Url)
    assert first.extensions == (
        Alternate("en", BASE),
        Alternate("de", BASE + "de/"),
    )  # images only with --images


def test_images_with_the_option(tmp_path: Path) -> None:
    _site(tmp_path)
    entries, _ = _walk(tmp_path, images=True, lastmod="none")
    first = entries[0]  # about.html is left out: its canonical is .../about
    assert isinstance(first, Url)
    images = [e for e in first.extensions if isinstance(e, Image)]
    assert [i.loc for i in images] == ["https://www.example.com/img/og.png", BASE + "pic%20one.png"]


def test_canonical_without_strip_html_leaves_the_page_out(tmp_path: Path) -> None:
    _site(tmp_path)
    _, walk = _walk(tmp_path, lastmod="none")
    assert walk.report.left_out["canonical is another URL"] == 2  # about.html -> about too


def test_bad_alternate_is_dropped_and_reported(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(
        html_page(head='<link rel="alternate" hreflang="not a code!" href="/x">'), "utf-8"
    )
    entries, _ = _walk(tmp_path, lastmod="none")
    (entry,) = entries
    assert isinstance(entry, InputError)
    assert "not a code!" in entry.reason
    assert entry.kept == Url(BASE)


def test_mtime_lastmod(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text(html_page(), "utf-8")
    os.utime(tmp_path / "a.html", (1_700_000_000, 1_700_000_000))
    entries, _ = _walk(tmp_path, lastmod="mtime")
    assert entries == [(BASE + "a.html", "2023-11-14T22:13:20+00:00", None, None)]


def _git(cwd: Path, *args: str, date: str | None = None) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com"}
    env |= {"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    if date is not None:
        env |= {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_lastmod_is_the_last_commit_touching_each_file(tmp_path: Path) -> None:
    site = tmp_path / "public"
    site.mkdir()
    _git(tmp_path, "init", "-q")
    (site / "a.html").write_text(html_page(), "utf-8")
    (site / "b b.html").write_text(html_page(), "utf-8")
    (tmp_path / "outside.html").write_text(html_page(), "utf-8")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "one", date="2024-01-02T03:04:05+02:00")
    (site / "a.html").write_text(html_page(title="changed"), "utf-8")
    _git(tmp_path, "commit", "-qam", "two", date="2024-03-04T05:06:07+00:00")
    (site / "new.html").write_text(html_page(), "utf-8")  # not committed: its mtime
    os.utime(site / "new.html", (1_700_000_000, 1_700_000_000))
    assert git_dates(site) == {
        "a.html": "2024-03-04T05:06:07Z",
        "b b.html": "2024-01-02T03:04:05+02:00",
    }
    entries, _ = _walk(site, lastmod="git")
    assert entries == [
        (BASE + "a.html", "2024-03-04T05:06:07Z", None, None),
        (BASE + "b%20b.html", "2024-01-02T03:04:05+02:00", None, None),
        (BASE + "new.html", "2023-11-14T22:13:20+00:00", None, None),
    ]


def test_git_lastmod_outside_a_work_tree_is_a_clear_error(tmp_path: Path) -> None:
    if git_dates(tmp_path) is not None:
        pytest.skip("the temporary folder lies inside a git work tree")
    with pytest.raises(SourceError, match="not in a git work tree"):
        DirectoryWalk(tmp_path, BASE, DirectoryOptions(lastmod="git"))
    result = CliRunner().invoke(
        main,
        [
            "build",
            str(tmp_path),
            "--base-url",
            BASE,
            "--out",
            str(tmp_path / "o"),
            "--lastmod",
            "git",
        ],
    )
    assert result.exit_code == 2
    assert "not in a git work tree" in result.output


def test_build_from_a_folder_is_valid(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _site(site)
    out = tmp_path / "out"
    args = ["build", str(site), "--base-url", BASE, "--out", str(out), "--strip-html"]
    result = CliRunner().invoke(main, [*args, "--images", "--ignore", "drafts/"])
    assert result.exit_code == 0, result.output
    assert f"{site}: 4 URLs" in result.output
    assert "left out 1: canonical is another URL" in result.output
    assert f"old.html: {BASE}old -> {BASE}about" in result.output
    locs = assert_valid_set(out)
    assert locs == [BASE + "about", BASE, BASE + "de/", BASE + "%C3%BCn%C3%AFcode/stra%C3%9Fe"]


def test_head_only_reading_stops_at_the_head() -> None:
    late = html_page(body='<meta name="robots" content="noindex"><link rel="canonical" href="/x">')
    facts = read_page(late.encode(), BASE)
    assert not facts.noindex and facts.canonical is None
    assert read_page(late.encode(), BASE, links=True).noindex  # the whole page: read


def test_a_folder_build_does_not_import_the_crawler(tmp_path: Path) -> None:
    """aiohttp (the crawler's HTTP) is imported only when a crawl is asked for."""
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "index.html").write_text(html_page(), "utf-8")
    code = (
        "import sys\nfrom click.testing import CliRunner\nfrom urlset.cli import main\n"
        f"r = CliRunner().invoke(main, ['build', {str(tmp_path / 'site')!r}, '--base-url', "
        f"{BASE!r}, '--out', {str(tmp_path / 'out')!r}])\n"
        "assert r.exit_code == 0, r.output\nprint('aiohttp' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"

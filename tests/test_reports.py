"""Static HTML reports (urlset.reports): the counts they plot, the pages the commands write,
the missing extra. The pages in a real browser: test_reports_browser.py."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from report_support import SITE, diffed_sides, fetched_site, site_rows, urlset_doc
from test_fetch_support import LoopbackServer
from urlset.cli import main
from urlset.reading.output import UrlColumns
from urlset.reports import parts, stats
from urlset.reports.parts import trim_tails
from urlset.reports.stats import UrlStats, section_of

# ----------------------------------------------------------------------------- counts


def test_section_is_host_and_first_segment() -> None:
    assert section_of("https://a.example/blog/post-1") == ("a.example", "/blog/")
    assert section_of("https://a.example/blog/") == ("a.example", "/blog/")
    assert section_of("https://a.example/about.html") == ("a.example", "/")
    assert section_of("https://a.example/?q=1") == ("a.example", "/")
    assert section_of("https://a.example:8443/de/x?y=1/2") == ("a.example:8443", "/de/")
    assert section_of("https://a.example/x?next=/a/b") == ("a.example", "/")


def test_subsections_open_up_a_section() -> None:
    found = UrlStats()
    found.add(
        [f"{SITE}/shop/shoes/1", f"{SITE}/shop/shoes/2", f"{SITE}/shop/hats/3", f"{SITE}/shop/x"],
        [""] * 4,
    )
    inside = [(s.path, s.urls) for s in found.subsections.top(5, within="/shop/")]
    assert inside == [("/shop/shoes/", 2), ("/shop/", 1), ("/shop/hats/", 1)]


def test_stats_count_sections_months_and_missing_lastmods() -> None:
    found = UrlStats()
    found.add(
        [f"{SITE}/blog/a", f"{SITE}/blog/b", f"{SITE}/shop/c", f"{SITE}/", f"{SITE}/blog/d"],
        ["2024-05-01", "2024-05-31T23:00:00+02:00", "", "2023", "2023-12-01"],
    )
    assert found.urls == 5
    assert found.without_lastmod == 1
    assert found.year_only == {"2023": 1}
    assert found.months == {"2024-05": 2, "2023-12": 1}
    top = found.sections.top(10)
    assert [(s.path, s.urls, s.example) for s in top] == [
        ("/blog/", 3, f"{SITE}/blog/a"),
        ("/", 1, f"{SITE}/"),
        ("/shop/", 1, f"{SITE}/shop/c"),
    ]


def test_stats_stay_bounded_past_the_section_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stats, "MAX_SECTIONS", 100)
    found = UrlStats()
    for batch in range(5):
        locs = [f"{SITE}/big/{i}" for i in range(50)] + [
            f"{SITE}/s{batch}-{i}/x" for i in range(60)
        ]
        found.add(locs, [""] * len(locs))
    sections = found.sections
    assert len(sections.by_key) <= 100
    assert found.urls == 5 * 110
    assert sections.by_key[("www.acme-outdoor.com", "/big/")].urls == 250
    # every URL is still counted: by its section or among the folded ones
    assert sum(s.urls for s in sections.by_key.values()) + sections.other == found.urls


def test_stats_from_columns() -> None:
    from urlset import Url

    found = UrlStats()
    found.add_columns(UrlColumns.from_urls([Url(f"{SITE}/a/b", lastmod=date(2022, 3, 4))]))
    assert found.months == {"2022-03": 1}


def test_outlying_months_are_not_drawn_but_counted() -> None:
    months = {date(2024, m, 1): 100 for m in range(1, 13)}
    assert trim_tails(months) == (months, 0, 0)
    months[date(1970, 1, 1)] = 2
    months[date(2099, 1, 1)] = 3
    shown, before, after = trim_tails(months)
    assert (min(shown), max(shown), before, after) == (date(2024, 1, 1), date(2024, 12, 1), 2, 3)
    # a long thin tail is data, not an outlier: it stays
    tail = {date(2016 + m // 12, 1 + m % 12, 1): 1 + m * m for m in range(120)}
    assert trim_tails(tail)[1:] == (0, 0)


# ----------------------------------------------------------------------------- check --format html


class _Page(HTMLParser):
    """What a test needs to know of a page: tags counted, ids, the text of table rows."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: dict[str, int] = {}
        self.ids: list[str] = []
        self.remote: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags[tag] = self.tags.get(tag, 0) + 1
        for name, value in attrs:
            if name == "id" and value:
                self.ids.append(value)
            if tag in ("script", "link", "img", "image", "iframe") and name in ("src", "href"):
                self.remote.append(f"{tag} {value}")


def parse_page(text: str) -> _Page:
    page = _Page()
    page.feed(text)
    return page


def assert_self_contained(text: str) -> _Page:
    page = parse_page(text)
    assert page.remote == []  # nothing to fetch when viewed
    assert "<script" not in text
    assert re.search(r"""url\((?!#)""", text) is None  # no CSS or SVG url() but local refs
    assert len(page.ids) == len(set(page.ids))  # several SVGs share the page: ids unique
    assert text.startswith("<!doctype html>") and '<html lang="en">' in text
    return page


def test_labels_from_urls_are_text_not_markup(tmp_path: Path) -> None:
    """A section named like TeX or HTML is drawn and shown as written."""
    odd = tmp_path / "odd.xml"
    odd.write_bytes(
        urlset_doc(
            [
                (f"{SITE}/$x_$/a", "2024-01-01"),
                (f"{SITE}/%3Cscript%3E/b", "2024-01-01"),
                (f"{SITE}/a&amp;b/c", "2024-01-01"),
            ]
        )
    )
    code, page = run_check(str(odd), "--format", "html", "--now", "2026-01-01")
    assert code == 0, page
    assert_self_contained(page)
    assert "/$x_$/" in page and "/a&amp;b/" in page and "<script" not in page


def test_check_html_reads_standard_input_for_its_counts() -> None:
    data = urlset_doc(site_rows(500, 4))
    result = CliRunner().invoke(main, ["check", "-", "--format", "html"], input=data)
    assert result.exit_code == 0, result.output
    assert "<caption>The 4 largest sections</caption>" in result.stdout


def test_check_html_to_a_file_that_cannot_be_written(checked_site: Path, tmp_path: Path) -> None:
    target = tmp_path / "missing" / "check.html"
    code, said = run_check(str(checked_site), "--format", "html", "-o", str(target))
    assert code == 2
    assert f"cannot write {target}" in said


def run_check(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


@pytest.fixture
def checked_site(tmp_path: Path) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitemap-1.xml").write_bytes(urlset_doc(site_rows(3000, 12)))
    (site / "sitemap-2.xml").write_bytes(
        urlset_doc([(f"{SITE}/blog/a b", "2024-02-30"), (f"{SITE}/blog/c", "2099-01-01")])
    )
    return site


def test_check_html_is_one_self_contained_page(checked_site: Path, tmp_path: Path) -> None:
    out = tmp_path / "check.html"
    code, said = run_check(
        str(checked_site), "--format", "html", "-o", str(out), "--now", "2026-01-01"
    )
    assert code == 1 and said == ""  # errors found: the same status as the text output
    text = out.read_text(encoding="utf-8")
    page = assert_self_contained(text)
    assert page.tags["svg"] == 4  # issues by code, limits, lastmod, sections
    assert page.tags["title"] == 1 + 4  # the page's and each chart's (for screen readers)
    for code in ("url-not-escaped", "invalid-lastmod", "future-lastmod"):
        assert f"<code>{code}</code>" in text
    assert f"{checked_site / 'sitemap-2.xml'}:3:" in text  # where the first ones are
    assert "3,002" in text  # entries in the summary
    assert "/s0/" in text and "2 sections" not in text


def test_issue_counts_include_those_past_the_per_code_cap(tmp_path: Path) -> None:
    from urlset.checking.findings import MAX_PER_CODE

    many = MAX_PER_CODE + 234
    future = tmp_path / "future.xml"
    future.write_bytes(urlset_doc([(f"{SITE}/a/{i}", "2030-01-01") for i in range(many)]))
    code, page = run_check(str(future), "--format", "html", "--now", "2026-01-01")
    assert code == 0
    row = page[page.index("<code>future-lastmod</code>") :]
    assert row.split('<td class="num">', 1)[1].startswith(f"{many:,}<")
    assert "<code>too-many-errors</code>" not in page


def test_a_section_with_much_of_the_site_is_opened_up(tmp_path: Path) -> None:
    shop = [
        (f"{SITE}/shop/{('shoes', 'hats', 'bags')[i % 3]}/{i}", "2025-01-01") for i in range(600)
    ]
    rows = shop + site_rows(300, 5)
    path = tmp_path / "shop.xml"
    path.write_bytes(urlset_doc(rows))
    code, page = run_check(str(path), "--format", "html", "--now", "2026-01-01")
    assert code == 0
    assert "<caption>The 3 largest subsections of /shop/</caption>" in page
    assert '<title id="sections-in-title">URLs per subsection</title>' in page
    assert "/shop/ holds 67% of the URLs" in page


def test_check_html_goes_to_stdout_too(checked_site: Path) -> None:
    code, said = run_check(str(checked_site / "sitemap-1.xml"), "--format", "html")
    assert code == 0
    assert said.startswith("<!doctype html>") and said.rstrip().endswith("</html>")


def test_check_html_tables_stay_small_for_100k_urls(tmp_path: Path) -> None:
    big = tmp_path / "big"
    big.mkdir()
    rows = site_rows(100_000, 400)
    (big / "sitemap-1.xml").write_bytes(urlset_doc(rows[:50_000]))
    (big / "sitemap-2.xml").write_bytes(urlset_doc(rows[50_000:]))
    out = tmp_path / "big.html"
    code, _ = run_check(str(big), "--format", "html", "-o", str(out), "--now", "2026-01-01")
    assert code == 0
    text = out.read_text(encoding="utf-8")
    page = assert_self_contained(text)
    # a row per section shown (and one for the rest), per year, per file: never per URL
    assert page.tags["tr"] < parts.SECTIONS_SHOWN + 30
    assert len(text) < 400_000
    assert "100,000" in text


def test_check_html_of_a_url_says_what_its_charts_leave_out() -> None:
    with LoopbackServer() as server:
        server.add("/s.xml", urlset_doc(site_rows(200, 3, server.base)))
        code, page = run_check(server.url("/s.xml"), "--format", "html", "--now", "2026-01-01")
    assert code == 0, page
    assert_self_contained(page)
    assert "1 document checked over HTTP not downloaded again" in page
    assert "<dd>200</dd>" in page  # the summary still counts its URLs
    assert 'id="lastmod"' not in page  # no chart claims to show URLs it did not count


BLOCK_MATPLOTLIB = "raise ImportError('matplotlib is blocked for this test')\n"


def test_missing_extra_names_the_pip_command_and_plain_check_does_without(
    checked_site: Path, tmp_path: Path
) -> None:
    blocker = tmp_path / "blocker" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text(BLOCK_MATPLOTLIB)
    env = {**os.environ, "PYTHONPATH": str(blocker.parent)}
    run_cli = "import sys; from urlset.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", run_cli, "check", str(checked_site / "sitemap-1.xml")]
    html = subprocess.run([*command, "--format", "html"], capture_output=True, text=True, env=env)
    assert html.returncode == 2
    assert "pip install 'urlset[report]'" in html.stderr and html.stdout == ""
    text = subprocess.run(command, capture_output=True, text=True, env=env)
    assert text.returncode == 0, text.stderr  # the text output never imports matplotlib


# ----------------------------------------------------------------------------- fetch --report

FAST = ["--timeout", "5", "--read-timeout", "2", "--retries", "0", "--workers", "0"]


def test_fetch_report_shows_the_tree_failures_and_charts(tmp_path: Path) -> None:
    report, urls = tmp_path / "fetch.html", tmp_path / "urls.jsonl"
    with LoopbackServer() as server:
        fetched_site(server)
        args = ["fetch", server.base, "-o", str(urls), "--report", str(report), "-q", *FAST]
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output  # a sitemap failed: partial, as without --report
    written = len(urls.read_text().splitlines())
    assert written > 9000  # the URLs are still written, the cut file's first ones too
    text = report.read_text(encoding="utf-8")
    page = assert_self_contained(text)
    assert page.tags["svg"] == 5  # states, issues, sizes, lastmod, sections
    assert f"{server.base}/missing.xml" in text and "http-status" in text
    assert "read in part" in text and "/cut.xml.gz" in text
    assert f"<dt>URLs</dt><dd>{written:,}</dd>" in text
    # the tree: robots.txt, the index, five children
    tree = text[text.index('id="tree"') :]
    assert tree.count("<tr>") == 1 + 7 + 1 + 2  # header, documents; header, two problems


def test_fetch_report_needs_the_extra_before_fetching(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text(BLOCK_MATPLOTLIB)
    env = {**os.environ, "PYTHONPATH": str(blocker.parent)}
    run_cli = "import sys; from urlset.cli import main; sys.exit(main())"
    # nothing listens on port 9 of loopback: the error must come before any request
    args = ["fetch", "http://127.0.0.1:9/", "--report", str(tmp_path / "r.html")]
    done = subprocess.run(
        [sys.executable, "-c", run_cli, *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 2
    assert "pip install 'urlset[report]'" in done.stderr
    assert not (tmp_path / "r.html").exists()


# ----------------------------------------------------------------------------- diff --format html


def test_diff_html_counts_what_the_diff_counts(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    from urlset.store.diff import compare

    old, new = diffed_sides(tmp_path)
    counts = compare(str(old), str(new), moves=True).counts
    out = tmp_path / "diff.html"
    result = CliRunner().invoke(
        main, ["diff", str(old), str(new), "--format", "html", "-o", str(out), "--moves"]
    )
    assert result.exit_code == 1, result.output  # changes found
    assert "added" in result.stderr  # the summary on stderr, as for the other files
    text = out.read_text(encoding="utf-8")
    page = assert_self_contained(text)
    assert page.tags["svg"] == 4  # kinds, changed fields, sections, lastmod
    for kind in ("added", "removed", "changed", "moved"):
        assert f"<dt>{kind}</dt><dd>{counts[kind]:,}</dd>" in text
    assert f"the first 15 of {counts['added']:,} by loc" in text
    moves = text[text.index('id="moves"') : text.index('id="examples"')]
    assert f'<td class="num">{counts["moved"]:,}</td>' in moves  # one pair: a.xml -> b.xml
    assert "/new/" in text
    # the verdict counts each loc once: the kinds add up to the rows of the JSON Lines
    rows = CliRunner().invoke(main, ["diff", str(old), str(new), "-f", "jsonl", "--moves"])
    n = len(rows.stdout.splitlines())
    assert sum(counts[k] for k in ("added", "removed", "changed", "moved")) == n
    assert f"{n:,} locs differ" in text


def test_diff_html_without_changes_says_so(tmp_path: Path) -> None:
    pytest.importorskip("duckdb")
    old, _ = diffed_sides(tmp_path)
    result = CliRunner().invoke(main, ["diff", str(old), str(old), "--format", "html"])
    assert result.exit_code == 0
    page = assert_self_contained(result.stdout)
    assert "No change" in result.stdout and "svg" not in page.tags


def test_diff_html_needs_the_extra_before_loading_anything(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker" / "matplotlib"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text(BLOCK_MATPLOTLIB)
    env = {**os.environ, "PYTHONPATH": str(blocker.parent)}
    run_cli = "import sys; from urlset.cli import main; sys.exit(main())"
    args = [
        "diff",
        str(tmp_path / "no-such-old"),
        str(tmp_path / "no-such-new"),
        "--format",
        "html",
    ]
    done = subprocess.run(
        [sys.executable, "-c", run_cli, *args], capture_output=True, text=True, env=env
    )
    assert done.returncode == 2
    assert "pip install 'urlset[report]'" in done.stderr and "no-such" not in done.stderr

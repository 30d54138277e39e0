"""`urlset check` beyond single local files: URLs (real HTTP on a loopback server the test
starts) and the rules across a set of files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_fetch_support import LoopbackServer, gz, sitemapindex
from urlset.checking.checker import CheckOptions, check_paths
from urlset.cli import main
from urlset.model import Severity
from urlset.sitecheck.driver import check_site

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset_doc(server: LoopbackServer, name: str, lastmod: str) -> bytes:
    entries = "".join(
        f"<url><loc>{server.url(f'/{name}/{i}')}</loc><lastmod>{lastmod}</lastmod></url>\n"
        for i in range(3)
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{entries}</urlset>\n'.encode()


@pytest.fixture
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.add(
            "/index.xml",
            sitemapindex(
                [
                    (server.url("/fresh.xml.gz"), "2024-05-01"),
                    (server.url("/stale.xml"), "2024-01-01"),
                    (server.url("/gone.xml"), "2024-01-01"),
                ]
            ),
        )
        server.add(
            "/fresh.xml.gz", gz(urlset_doc(server, "fresh", "2024-04-01")), "application/gzip"
        )
        server.add("/stale.xml", urlset_doc(server, "stale", "2024-03-01"))
        server.add("/html", b"<!doctype html><html><body>Not here</body></html>", "text/html")
        yield server


def test_an_index_and_its_children_are_fetched_and_compared(site: LoopbackServer) -> None:
    report = check_site(site.url("/index.xml"), CheckOptions())
    by_source = {f.source: f for f in report.files}
    assert set(by_source) == {
        site.url(p) for p in ("/index.xml", "/fresh.xml.gz", "/stale.xml", "/gone.xml")
    }
    index_codes = [i.code for i in by_source[site.url("/index.xml")].issues]
    assert index_codes.count("stale-index-lastmod") == 1  # stale.xml: index says 01-01, child 03-01
    gone = by_source[site.url("/gone.xml")].issues
    assert [i.code for i in gone] == ["missing-child"] and "HTTP 404" in gone[0].message
    assert by_source[site.url("/fresh.xml.gz")].entries == 3  # gzip read by content


def test_cli_urls_and_exit_status(site: LoopbackServer) -> None:
    result = CliRunner().invoke(main, ["check", site.url("/stale.xml"), "--format", "json"])
    assert result.exit_code in (0, 1), result.output  # loopback host warnings only, no errors
    assert '"entries": 3' in result.output or '"entries":3' in result.output
    html = CliRunner().invoke(main, ["check", site.url("/html")])
    assert html.exit_code == 1 and "html-page" in html.output
    refused = CliRunner().invoke(main, ["check", "http://127.0.0.1:9/nothing.xml"])
    # like an unreadable file: exit 2, the reason named, no traceback
    assert refused.exit_code == 2 and "cannot-read" in refused.output
    assert "Traceback" not in refused.output


HREFLANG = """<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>https://shop.test.org/{lang}/</loc>{links}</url>
</urlset>
"""


def _link(lang: str) -> str:
    return f'<xhtml:link rel="alternate" hreflang="{lang}" href="https://shop.test.org/{lang}/"/>'


def test_hreflang_is_checked_across_the_files_of_a_directory(tmp_path: Path) -> None:
    """Variants split over several sitemaps are one set: reciprocal across files is clean."""
    (tmp_path / "en.xml").write_text(HREFLANG.format(lang="en", links=_link("en") + _link("de")))
    (tmp_path / "de.xml").write_text(HREFLANG.format(lang="de", links=_link("de") + _link("en")))
    report = check_paths([tmp_path])
    assert not [i for f in report.files for i in f.issues if i.code.startswith("hreflang")]
    alone = check_paths([tmp_path / "en.xml"])  # one file: the German page cannot be verified
    assert [i.code for f in alone.files for i in f.issues] == ["hreflang-unverified"]

    (tmp_path / "de.xml").write_text(HREFLANG.format(lang="de", links=_link("de")))
    report = check_paths([tmp_path])
    found = [
        (f.source, i) for f in report.files for i in f.issues if i.code == "hreflang-not-reciprocal"
    ]
    assert len(found) == 1
    source, issue = found[0]
    assert "the 2 files checked" in source
    assert "https://shop.test.org/de/ lacks" in issue.message and "hreflang='en'" in issue.message


def _past_the_cap(pages: int) -> bytes:
    """``pages`` of each set finding: a variant outside the set (unverified), one in it that
    lists no alternates (unlisted), and one that lists alternates but no return link."""
    site = "https://shop.test.org"
    entries = []
    for i in range(pages):
        away = f'<xhtml:link rel="alternate" hreflang="de" href="https://elsewhere.test.org/{i}"/>'
        plain = f'<xhtml:link rel="alternate" hreflang="fr" href="{site}/plain/{i}"/>'
        other = f'<xhtml:link rel="alternate" hreflang="it" href="{site}/it/{i}"/>'
        own = f'<xhtml:link rel="alternate" hreflang="en" href="{site}/en/{i}"/>'
        entries.append(f"<url><loc>{site}/en/{i}</loc>{own}{away}{plain}{other}</url>")
        entries.append(f"<url><loc>{site}/plain/{i}</loc></url>")
        it_self = f'<xhtml:link rel="alternate" hreflang="it" href="{site}/it/{i}"/>'
        entries.append(f"<url><loc>{site}/it/{i}</loc>{it_self}</url>")
    return HREFLANG.split("<url>")[0].encode() + "\n".join(entries).encode() + b"\n</urlset>\n"


@pytest.mark.parametrize("files", [1, 2])
def test_set_findings_are_capped_like_every_code(tmp_path: Path, files: int) -> None:
    """The set-wide hreflang findings list at most 1,000 a code, as every code does: the
    rest counted exactly (in totals and ``unlisted``) with one too-many-errors line, on one
    file, on a set of files (the set's own entry) and through ``check`` of one document."""
    from urlset import check

    doc = _past_the_cap(1_200)
    for n in range(files):
        (tmp_path / f"s{n}.xml").write_bytes(doc)
    report = check_paths([tmp_path])
    holder = report.files[-1]
    assert holder.format == ("urlset" if files == 1 else "set")
    # the Italian page lacks its links to the other three variants of its group
    found = {
        "hreflang-unverified": 1_200,
        "hreflang-unlisted": 1_200,
        "hreflang-not-reciprocal": 3_600,
    }
    for code, n in found.items():
        listed = [i for i in holder.issues if i.code == code]
        assert len(listed) == 1_000 and holder.code_counts()[code] == n
        assert holder.unlisted[code] == n - 1_000
        summary = [
            i.message for i in holder.issues if i.code == "too-many-errors" and code in i.message
        ]
        assert summary == [f"{n - 1_000} more {code} issues not listed ({n} in all)"]
    assert holder.count(Severity.INFO) == 1_200
    alone = check(doc)  # one document, its own set: the same caps
    for code, n in found.items():
        assert sum(i.code == code for i in alone) == 1_000
        assert f"{n - 1_000} more {code} issues not listed ({n} in all)" in {
            i.message for i in alone
        }

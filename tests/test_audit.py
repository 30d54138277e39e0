"""urlset audit against a generated site on a loopback server the test starts: every case
the issue names (redirects, chains, loops, 404/410/403/4xx, 500, slow pages, noindex by meta
and by header, canonicals, robots.txt disallows, non-HTML, lastmod against Last-Modified,
future and uniform lastmods, URLs in several sitemaps and under several forms)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp import web
from click.testing import CliRunner

from sources_support import html_page
from test_fetch_support import NS, LoopbackServer, fast_http, sitemapindex
from urlset.auditing.driver import Audit, AuditError, AuditOptions, UrlResult
from urlset.auditing.output import sarif, summary, text_lines, wilson
from urlset.auditing.rules import Answer, Listed, SetRules, lastmod_mismatch, page_findings
from urlset.checking.rules import lookup
from urlset.cli import main
from urlset.dates import parse_w3c

HTML = "text/html; charset=utf-8"

# path -> (lastmod written in the sitemap or None, the codes the audit must find)
CASES: dict[str, tuple[str | None, set[str]]] = {
    "/ok.html": ("2024-01-01", set()),
    "/moved": (None, {"page-redirect"}),  # -> /ok.html, listed
    "/moved-away": (None, {"page-redirect"}),  # -> /unlisted.html
    "/chain1": (None, {"page-redirect-chain"}),  # -> /chain2 -> /ok2.html
    "/loop-a": (None, {"page-redirect-loop"}),  # -> /loop-b -> /loop-a
    "/missing.html": (None, {"page-not-found"}),
    "/gone": (None, {"page-not-found"}),
    "/forbidden": (None, {"page-unauthorized"}),
    "/teapot": (None, {"page-client-error"}),
    "/error": (None, {"page-server-error"}),
    "/slow": (None, {"page-unreachable"}),
    "/meta-noindex.html": (None, {"page-noindex"}),
    "/header-noindex.html": (None, {"page-noindex"}),
    "/dup.html": (None, {"page-canonical-elsewhere"}),
    "/self-canonical.html": (None, set()),
    "/private/secret.html": (None, {"page-disallowed"}),
    "/manual.pdf": (None, {"page-not-html"}),
    "/stale.html": ("2020-01-01", {"lastmod-mismatch"}),
    "/future.html": ("2999-01-01", {"future-lastmod"}),
    "/var": (None, {"page-redirect", "listed-variants"}),  # -> /var/, listed too
    "/var/": (None, set()),
}
IN_BOTH = "/ok2.html"  # listed in both sitemaps
# every audit code of the table, with the test that finds it (test_check_rules holds the
# table to this): CASES here, the rules over the list below, --crawl's in test_audit_crawl
COVERED = {code for _, codes in CASES.values() for code in codes} | {
    "listed-in-several-sitemaps",  # test_every_case_has_its_finding
    "uniform-lastmod",  # test_uniform_lastmod_is_one_finding_over_the_list
    "unlisted-page",  # test_audit_crawl
    "orphan-page",  # test_audit_crawl
}


def _sitemap(base: str, entries: list[tuple[str, str | None]]) -> bytes:
    body = "".join(
        f"<url><loc>{base}{path}</loc>"
        + (f"<lastmod>{lastmod}</lastmod>" if lastmod else "")
        + "</url>\n"
        for path, lastmod in entries
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{body}</urlset>\n'.encode()


def _redirect(to: str, status: int = 301) -> object:
    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(status=status, headers={"Location": to})

    return handler


def _status(code: int) -> object:
    async def handler(request: web.Request) -> web.StreamResponse:
        return web.Response(status=code, text="no", content_type="text/plain")

    return handler


def _serve_site(server: LoopbackServer) -> None:
    base = server.base
    page = html_page().encode()
    for path in ("/ok.html", "/ok2.html", "/unlisted.html", "/var/", "/private/secret.html"):
        server.add(path, page, HTML)
    server.add("/stale.html", page, HTML)
    server.add("/future.html", page, HTML, conditional=False)
    meta = html_page(head='<meta name="robots" content="noindex, follow">').encode()
    server.add("/meta-noindex.html", meta, HTML)
    server.add("/header-noindex.html", page, HTML, headers={"X-Robots-Tag": "googlebot: noindex"})
    server.add("/dup.html", html_page(head='<link rel="canonical" href="/ok.html">').encode(), HTML)
    server.add(
        "/self-canonical.html",
        html_page(head=f'<link rel="canonical" href="{base}/self-canonical.html">').encode(),
        HTML,
    )
    server.add("/manual.pdf", b"%PDF-1.4", "application/pdf")
    server.add("/robots.txt", b"User-agent: *\nDisallow: /private/\n", "text/plain")
    handlers = {
        "/moved": _redirect("/ok.html"),
        "/moved-away": _redirect("/unlisted.html", 302),
        "/chain1": _redirect("/chain2"),
        "/chain2": _redirect("/ok2.html", 308),
        "/loop-a": _redirect("/loop-b"),
        "/loop-b": _redirect("/loop-a"),
        "/var": _redirect("/var/"),
        "/gone": _status(410),
        "/forbidden": _status(403),
        "/teapot": _status(418),
        "/error": _status(500),
    }
    for path, handler in handlers.items():
        server.handle(path, handler)  # type: ignore[arg-type]

    async def slow(request: web.Request) -> web.StreamResponse:
        await asyncio.sleep(2)
        return web.Response(body=page, content_type="text/html")

    server.handle("/slow", slow)
    first = [(path, lastmod) for path, (lastmod, _) in CASES.items()]
    server.add("/a.xml", _sitemap(base, [*first, (IN_BOTH, None)]))
    server.add("/b.xml", _sitemap(base, [(IN_BOTH, None)]))
    server.add("/sitemap.xml", sitemapindex([f"{base}/a.xml", f"{base}/b.xml"]))


@pytest.fixture(scope="module")
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        _serve_site(server)
        yield server


def _options(**overrides: object) -> AuditOptions:
    http = fast_http(read_timeout=0.3, total_timeout=1.0)
    values: dict[str, object] = {"http": http, "concurrency": 8, "per_host": 8}
    values.update(overrides)
    return AuditOptions(**values)  # type: ignore[arg-type]


def _run(target: str, **overrides: object) -> tuple[dict[str, UrlResult], object]:
    results: dict[str, UrlResult] = {}

    def keep(result: UrlResult) -> None:
        results[result.listed.loc] = result

    report = Audit(target, _options(**overrides), keep).run_sync()
    return results, report


def test_every_case_has_its_finding(site: LoopbackServer) -> None:
    site.hits.clear()
    results, report = _run(site.url("/sitemap.xml"))
    for path, (_, expected) in CASES.items():
        found = {issue.code for issue in results[site.url(path)].findings}
        assert found == expected, path
    assert not results[site.url(IN_BOTH)].findings
    # a disallowed URL is never requested; a redirect's target is said listed or not
    assert site.hits["/private/secret.html"] == 0
    moved = results[site.url("/moved")].findings[0].message
    assert "target is listed too" in moved
    assert "target is not listed" in results[site.url("/moved-away")].findings[0].message
    chain = results[site.url("/chain1")]
    assert chain.answer.redirects == ((301, site.url("/chain2")), (308, site.url("/ok2.html")))
    header = results[site.url("/header-noindex.html")].findings[0].message
    assert header == "noindex by X-Robots-Tag"
    stale = results[site.url("/stale.html")].findings[0].message
    assert "2020-01-01 is older than Last-Modified" in stale
    # the whole list: once each, the URL in two sitemaps found, the status mix
    assert report.listed == len(CASES) + 1  # type: ignore[attr-defined]
    assert report.counts["listed-in-several-sitemaps"] == 1  # type: ignore[attr-defined]
    mix = report.status_mix  # type: ignore[attr-defined]
    assert mix["disallowed"] == 1 and mix["redirect-loop"] == 1 and mix["5xx"] == 1
    assert mix["timeout"] == 1 and mix["4xx"] == 4


def test_each_code_is_in_the_table_with_its_search_console_name() -> None:
    codes = {code for _, found in CASES.values() for code in found}
    codes |= {"listed-in-several-sitemaps", "uniform-lastmod", "listed-variants"}
    for code in codes:
        assert lookup(code).title, code
    assert lookup("page-noindex").gsc == "Submitted URL marked 'noindex'"
    assert lookup("page-disallowed").gsc == "Submitted URL blocked by robots.txt"
    assert lookup("page-not-found").gsc == "Submitted URL not found (404)"
    expected = "Duplicate, submitted URL not selected as canonical"
    assert lookup("page-canonical-elsewhere").gsc == expected


def test_uniform_lastmod_is_one_finding_over_the_list() -> None:
    rules = SetRules()
    day = parse_w3c("2025-05-05")
    for i in range(12):
        assert rules.add(Listed(f"https://example.com/{i}", day, "s.xml")) == 0
    assert [i.code for i in rules.findings()] == ["uniform-lastmod"]
    rules.add(Listed("https://example.com/other", parse_w3c("2025-05-06"), "s.xml"))
    assert rules.findings() == []


def test_lastmod_against_last_modified() -> None:
    served = "Mon, 01 Jan 2024 00:00:00 GMT"
    assert lastmod_mismatch(parse_w3c("2023-12-31"), served) is None  # the same day somewhere
    assert lastmod_mismatch(parse_w3c("2024-01-01T00:30:00Z"), served) is None
    assert "older" in (lastmod_mismatch(parse_w3c("2023-06-01"), served) or "")
    assert "newer" in (lastmod_mismatch(parse_w3c("2024-03-01"), served) or "")
    assert lastmod_mismatch(parse_w3c("2023-06-01"), "not a date") is None


def test_a_redirect_to_an_error_reports_both() -> None:
    answer = Answer(404, "https://e.com/b", redirects=((301, "https://e.com/b"),))
    listed = Listed("https://e.com/a", None, "s.xml")
    codes = [i.code for i in page_findings(listed, answer, lambda url: False)]
    assert codes == ["page-redirect", "page-not-found"]
    busy = page_findings(listed, Answer(429, listed.loc), lambda url: False)
    assert [i.code for i in busy] == ["page-unreachable"] and "--rate" in busy[0].message


def test_command_text_jsonl_sarif(site: LoopbackServer, tmp_path: Path) -> None:
    args = ["audit", site.url("/sitemap.xml"), "--concurrency", "8"]
    text = CliRunner().invoke(main, args)
    assert text.exit_code == 1, text.output
    assert "error page-not-found x2: listed URL not found (404, 410)" in text.output
    assert "[Search Console: Submitted URL marked 'noindex']" in text.output
    assert "status: 2xx" in text.output
    heads = [line.split()[0] for line in text.output.splitlines() if not line.startswith(" ")]
    severities = [word for word in heads if word in ("error", "warning")]
    assert severities == sorted(severities)  # errors first
    lines = tmp_path / "audit.jsonl"
    result = CliRunner().invoke(main, [*args, "--format", "jsonl", "-o", str(lines)])
    assert result.exit_code == 1
    rows = [json.loads(line) for line in lines.read_text().splitlines()]
    assert len(rows) == len(CASES) + 1
    gone = next(row for row in rows if row["loc"] == site.url("/gone"))
    assert gone["status"] == 410 and gone["findings"][0]["code"] == "page-not-found"
    result = CliRunner().invoke(main, [*args, "--format", "sarif"])
    log = json.loads(result.output)
    rule_ids = {rule["id"] for rule in log["runs"][0]["tool"]["driver"]["rules"]}
    assert {"page-noindex", "page-disallowed", "listed-in-several-sitemaps"} <= rule_ids
    placed = [r for r in log["runs"][0]["results"] if r["ruleId"] == "page-server-error"]
    uri = placed[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == site.url("/error")


def test_timeouts_and_retries_from_the_command(site: LoopbackServer) -> None:
    site.hits.clear()
    loc = site.url("/slow")
    page = _sitemap(site.base, [("/slow", None), ("/error", None)])
    site.add("/slow-only.xml", page)
    args = ["audit", site.url("/slow-only.xml"), "--read-timeout", "0.2", "--retries", "1"]
    result = CliRunner().invoke(main, [*args, "--format", "jsonl"])
    rows = {row["loc"]: row for row in map(json.loads, result.output.splitlines())}
    assert rows[loc]["findings"][0]["code"] == "page-unreachable"
    assert site.hits["/slow"] == 2 and site.hits["/error"] == 2  # one retry each


def test_nothing_to_audit_is_exit_2(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(main, ["audit", str(empty)])
    assert result.exit_code == 2
    assert "no sitemap files in it" in result.output
    with pytest.raises(AuditError, match="no sitemap files"):
        Audit(str(empty)).run_sync()


def test_a_sitemap_file_is_audited(site: LoopbackServer, tmp_path: Path) -> None:
    local = tmp_path / "sitemap.xml"
    local.write_bytes(_sitemap(site.base, [("/ok.html", None), ("/gone", None)]))
    results, report = _run(str(local))
    assert {loc: [i.code for i in r.findings] for loc, r in results.items()} == {
        site.url("/ok.html"): [],
        site.url("/gone"): ["page-not-found"],
    }
    assert report.sitemaps == [str(local)]  # type: ignore[attr-defined]


def test_sample_is_reproducible_and_extrapolated(site: LoopbackServer) -> None:
    first, report = _run(site.url("/sitemap.xml"), sample=6, seed=7)
    again, _ = _run(site.url("/sitemap.xml"), sample=6, seed=7)
    assert len(first) == 6 and sorted(first) == sorted(again)
    data = summary(report)  # type: ignore[arg-type]
    assert data["sampled"] and data["audited"] == 6
    for entry in data["findings"].values():
        whole = entry["whole_list"]
        assert whole["low"] <= whole["estimate"] <= whole["high"] <= data["listed"]
    assert any("estimates" in line for line in text_lines(report))  # type: ignore[arg-type]
    low, high = wilson(0, 100)
    assert low == 0 and 0.03 < high < 0.04


def test_sarif_counts_findings_past_the_examples(site: LoopbackServer) -> None:
    _, report = _run(site.url("/sitemap.xml"))
    log = sarif(report)  # type: ignore[arg-type]
    assert log["version"] == "2.1.0"
    assert len(log["runs"][0]["results"]) == sum(report.counts.values())  # type: ignore[attr-defined]


def test_sarif_keeps_a_url_source_whole() -> None:
    """A check over HTTP names its sitemap by URL: SARIF gave it as 'https:/host/...'."""
    from urlset.checking.report import CheckReport, FileResult
    from urlset.checking.rules import make_issue

    url = "https://example.com/sitemap.xml"
    report = CheckReport([FileResult(url, [make_issue("empty-sitemap", "no URLs")], "urlset")])
    location = report.to_sarif()["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == url


def test_html_report(site: LoopbackServer, tmp_path: Path) -> None:
    page = tmp_path / "audit.html"
    args = ["audit", site.url("/sitemap.xml"), "--format", "html", "-o", str(page)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1, result.output
    html = page.read_text()
    for anchor in ("summary", "status", "findings", "sections", "times"):
        assert f'id="{anchor}"' in html
    assert "Search Console: Submitted URL marked &#x27;noindex&#x27;" in html
    assert html.count("<svg") == 3  # status mix, findings, response times
    assert "127.0.0.1:" in html and "<script" not in html


def test_a_url_listed_again_is_audited_once() -> None:
    rules = SetRules()
    locs = ["https://e.com/a", "https://e.com/b", "https://e.com/a", "https://e.com/b"]
    sitemaps = [rules.add(Listed(loc, None, name)) for loc, name in zip(locs, "xxyx", strict=True)]
    found: list[str] = []
    again = rules.freeze(locs, sitemaps, lambda issue: found.append(issue.message))
    assert again == {2, 3}  # the later listings
    assert found == ["also listed in x"]  # /a: in x, then y; /b twice in x is the reader's
    assert rules.is_listed("https://e.com/b") and not rules.is_listed("https://e.com/c")


def test_help_reads_as_written() -> None:
    result = CliRunner().invoke(main, ["audit", "--help"])
    assert result.exit_code == 0
    assert "95% interval" in " ".join(result.output.split())

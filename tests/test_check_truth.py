"""``urlset check`` tells the whole truth, briefly: totals over every finding, repeats grouped
in the text output, the same idea of a file as ``read``, columns of values (issue 13)."""

from __future__ import annotations

import gzip
import io
import json
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from urlset import Issue, Severity, check, is_valid
from urlset.checking.checker import CheckOptions, check_bytes, check_paths
from urlset.checking.rules import lookup
from urlset.cli import main
from urlset.limits import ReadLimits
from urlset.reading.reader import read_chunks

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(body: str) -> bytes:
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{body}</urlset>\n'.encode()
    )


def run(*args: str, stdin: bytes | None = None) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["check", *args], input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.output


def check_json(path: Path, *extra: str) -> dict[str, object]:
    code, out = run(str(path), "--format", "json", "--now", "2026-01-01", *extra)
    assert code in (0, 1), out
    report: dict[str, object] = json.loads(out)
    return report


# -- totals over every finding -------------------------------------------------------------


def test_totals_count_findings_past_the_listing_cap(tmp_path: Path) -> None:
    n = 2755
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i}</loc><lastmod>2031-01-01</lastmod></url>\n"
        for i in range(n)
    )
    path = tmp_path / "future.xml"
    path.write_bytes(urlset(body))
    report = check_json(path)
    severity = str(lookup("future-lastmod").severity) + "s"
    (file,) = report["files"]  # type: ignore[attr-defined]
    assert file[severity] == n
    assert report["summary"][severity] == n  # type: ignore[index]
    listed = [i for i in file["issues"] if i["code"] == "future-lastmod"]
    assert 0 < len(listed) < n  # the list is capped; the totals are not


def test_an_unknown_element_is_one_finding_with_its_count(tmp_path: Path) -> None:
    # a search engine skips the tag and reads every URL: one warning per tag, not 1,500
    # errors (as the reader reports it: once, at its first place)
    n = 1500
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i}</loc><bogus>x</bogus></url>\n" for i in range(n)
    )
    path = tmp_path / "bogus.xml"
    path.write_bytes(urlset(body))
    report = check_json(path)
    (file,) = report["files"]  # type: ignore[attr-defined]
    (finding,) = file["issues"]
    assert (finding["code"], finding["severity"], finding["line"]) == (
        "unknown-element",
        "warning",
        3,
    )
    assert "(1,500 times; the first here)" in finding["message"]


def test_a_reader_issue_a_rule_said_better_past_its_cap_is_not_counted_again(
    tmp_path: Path,
) -> None:
    # 600 lines with two nested entries each (the reader's nested-entry, each listed: the
    # check says the same), then 500 lastmods outside any <url>: one misplaced-element with
    # its count; the reader calls them misplaced-element too, once, at the same place.
    nested = "".join(
        f"<url><loc>https://www.shop.org/{i}</loc><url><loc>https://www.shop.org/n{i}</loc>"
        "</url></url>\n"
        for i in range(600)
    )
    stray = "<lastmod>2020-01-01</lastmod>\n" * 500
    path = tmp_path / "misplaced.xml"
    path.write_bytes(urlset(nested + stray + "<url><loc>https://www.shop.org/</loc></url>\n"))
    report = check_json(path)
    (file,) = report["files"]  # type: ignore[attr-defined]
    codes = {i["code"] for i in file["issues"]}
    assert codes == {"misplaced-element", "nested-entry"}, codes  # the lastmods: one
    assert file["errors"] + file["warnings"] == 601


# -- text output groups repeats ------------------------------------------------------------


def test_text_output_gives_one_group_per_code_not_a_wall(tmp_path: Path) -> None:
    n = 3887
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i}</loc><lastmod>2031-01-01</lastmod></url>\n"
        for i in range(n)
    )
    path = tmp_path / "future.xml"
    path.write_bytes(urlset(body + "<url><loc>https://www.shop.org/a b</loc></url>\n"))
    code, out = run(str(path), "--now", "2026-01-01")
    assert code == 1
    lines = out.splitlines()
    assert len(lines) < 12, out
    (group,) = [line for line in lines if "future-lastmod" in line and " x" in line]
    # the first entry is on line 3; the count is over every finding, the places the first few
    assert group.split()[:3] == ["warning", "future-lastmod", f"x{n:,}:"]
    places = group.split(":", 1)[1].split(", ")
    assert places[0].strip().startswith("3:") and places[-1] == "..."
    assert lines[0].endswith(f"1 error, {n:,} warnings")
    assert lines[-1] == f"checked 1 file, {n + 1:,} entries: 1 error, {n:,} warnings"
    single = [line for line in lines if "url-not-escaped" in line]
    assert len(single) == 1 and f"{n + 3}:" in single[0]
    # the full list stays in the JSON form
    report = check_json(path)
    listed = [i for i in report["files"][0]["issues"] if i["code"] == "future-lastmod"]  # type: ignore[index]
    assert len(listed) == 1000


# -- check agrees with read on what a file is ----------------------------------------------


def _read_issues(data: bytes) -> tuple[list[str], int]:
    result = read_chunks([data], with_issues=True)
    events = list(result)
    codes = [e.code for e in events if isinstance(e, Issue)]
    return codes, len(events) - len(codes)


def test_a_sitemap_gzipped_twice_is_refused_as_read_refuses_it() -> None:
    data = gzip.compress(gzip.compress(urlset("<url><loc>https://www.shop.org/</loc></url>\n")))
    read_codes, entries = _read_issues(data)
    assert entries == 0 and read_codes
    assert not is_valid(data)
    found = {i.code for i in check(data) if i.severity == Severity.ERROR}
    assert found & set(read_codes), (found, read_codes)


def test_utf16_with_a_byte_order_mark_has_its_declaration_and_its_locs_seen() -> None:
    text = urlset("<url><loc>https://www.shop.org/a b</loc></url>\n").decode()
    data = text.replace("UTF-8", "UTF-16").encode("utf-16")
    assert data[:2] in (b"\xff\xfe", b"\xfe\xff")
    codes = {i.code for i in check(data)}
    assert "no-xml-declaration" not in codes
    assert "url-not-escaped" in codes  # the rules on the bytes read its text


def test_a_damaged_gzip_has_its_findings_placed_in_what_was_read() -> None:
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i}</loc><lastmod>2031-01-01</lastmod></url>\n"
        for i in range(20000)
    )
    packed = gzip.compress(urlset(body))
    half = len(packed) // 2
    damaged = packed[:half] + b"\x00\x00\x00\x00" + packed[half + 4 :]
    _, entries = _read_issues(damaged)
    assert entries > 1000
    result = check_bytes(damaged, now=datetime(2026, 1, 1, tzinfo=UTC))
    assert result.entries == entries
    future = [i for i in result.issues if i.code == "future-lastmod"]
    assert len(future) == 1000 and all(i.line > 2 for i in future)
    assert any(i.code == "gzip-corrupt" for i in result.issues)


# -- columns -------------------------------------------------------------------------------


def test_value_findings_carry_the_column_of_the_value() -> None:
    body = (
        "<url><loc>https://www.shop.org/a</loc><lastmod>yesterday</lastmod>"
        "<changefreq>sometimes</changefreq><priority>2</priority></url>\n"
        "<url><loc>https://www.shop.org/b</loc><lastmod>2031-01-01</lastmod></url>\n"
        "<url>\n  <loc>https://www.shop.org/c</loc>\n  <lastmod>2031-02-01</lastmod>\n"
        "  <priority>abc</priority>\n</url>\n"
    )
    data = urlset(body)
    lines = data.decode().split("\n")
    issues = check(data, now=datetime(2026, 1, 1, tzinfo=UTC))
    values = {
        "invalid-lastmod": "yesterday",
        "invalid-changefreq": "sometimes",
        "invalid-priority": ("2<", "abc"),
        "future-lastmod": "2031-",
    }
    seen = []
    for issue in issues:
        want = values.get(issue.code)
        if want is None:
            continue
        at = lines[issue.line - 1][issue.column - 1 :] if issue.column else ""
        assert at.startswith(want), (issue, at)
        seen.append(issue.code)
    assert sorted(seen) == sorted([*values, "invalid-priority", "future-lastmod"])
    future = [i.line for i in issues if i.code == "future-lastmod"]
    assert future == [4, 7]  # on the lastmod's line, not the loc's


# -- a directory: sitemaps by content, what was left out and why ---------------------------


def _sitemapindex(*locs: str) -> bytes:
    refs = "".join(f"<sitemap><loc>{u}</loc></sitemap>\n" for u in locs)
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n{refs}'
        "</sitemapindex>\n"
    ).encode()


def test_a_directory_is_searched_by_content_and_says_what_it_left_out(tmp_path: Path) -> None:
    site = tmp_path / "public"
    (site / "maps").mkdir(parents=True)
    (site / "list.txt").write_text("https://www.shop.org/\nhttps://www.shop.org/a b\n")
    (site / "notes.txt").write_text("Remember to renew the certificate.\n")
    (site / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    (site / "browserconfig.xml").write_text("<?xml version='1.0'?><browserconfig/>\n")
    (site / "index.xml").write_bytes(
        _sitemapindex("https://www.shop.org/maps/a.xml", "https://www.shop.org/maps/b.xml")
    )
    (site / "maps" / "a.xml").write_bytes(urlset("<url><loc>https://www.shop.org/</loc></url>\n"))
    code, out = run(str(site), "--format", "json", "--now", "2026-01-01")
    assert code == 1
    report = json.loads(out)
    checked = {Path(f["source"]).name: f for f in report["files"]}
    assert set(checked) == {"list.txt", "index.xml", "a.xml"}
    assert "url-not-escaped" in {i["code"] for i in checked["list.txt"]["issues"]}
    # the index's child b.xml is missing beside maps/a.xml: an error without --base-url
    missing = [i for i in checked["index.xml"]["issues"] if i["code"] == "missing-child"]
    assert len(missing) == 1 and "b.xml" in missing[0]["message"]
    assert missing[0]["severity"] == "error"
    skipped = {Path(s["path"]).name: s["reason"] for s in report["skipped"]}
    assert set(skipped) == {"notes.txt", "logo.png", "browserconfig.xml"}
    assert "binary" in skipped["logo.png"] and "browserconfig" in skipped["browserconfig.xml"]
    _, text = run(str(site), "--now", "2026-01-01")
    assert "left out 3 files that are not sitemaps:" in text
    assert "notes.txt" in text and "logo.png" in text


# -- bounded memory ------------------------------------------------------------------------


class _Endless(io.RawIOBase):
    """A pipe of ``total`` bytes: a sitemap's head, then the same block of URLs again and
    again, produced as it is read (never held whole)."""

    def __init__(self, total: int) -> None:
        self.head = urlset("")[: -len(b"</urlset>\n")]
        self.block = b"<url><loc>https://www.shop.org/p?a=1&amp;b=2</loc></url>\n" * 2000
        self.left = total

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.left <= 0:
            return 0
        data = self.head or self.block
        self.head = b""
        n = min(len(buffer), len(data), self.left)
        buffer[:n] = data[:n]
        self.left -= n
        return n


def test_standard_input_is_read_as_a_stream_not_held_whole() -> None:
    total = 64 << 20
    limits = ReadLimits(max_decompressed_bytes=1 << 20)
    stream = io.BufferedReader(_Endless(total), buffer_size=1 << 16)
    tracemalloc.start()
    try:
        report = check_paths(["-"], CheckOptions(read_limits=limits), stdin=stream)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20, f"{peak:,} bytes held for a {total:,}-byte pipe"
    (result,) = report.files
    # the size counted is the whole pipe's, though only the reader's share was kept
    assert any(i.code == "file-too-large" and f"{total:,}" in i.message for i in result.issues)


# -- deep nesting --------------------------------------------------------------------------


def test_deep_nesting_is_reported_in_our_words_not_libxml2s() -> None:
    deep = "<a>" * 3000 + "x" + "</a>" * 3000
    data = urlset(f"<url><loc>https://www.shop.org/</loc></url>{deep}\n")
    for limits in (ReadLimits(), ReadLimits(max_depth=5000)):
        issues = check_bytes(data, now=datetime(2026, 1, 1, tzinfo=UTC)).issues
        read_codes = [
            e for e in read_chunks([data], limits=limits, with_issues=True) if isinstance(e, Issue)
        ]
        for issue in [*issues, *read_codes]:
            assert "XML_PARSE_HUGE" not in issue.message, issue
        depth = [i for i in read_codes if i.code == "depth-limit"]
        assert len(depth) == 1 and "levels" in depth[0].message
    assert [i.code for i in issues].count("depth-limit") == 1


def test_a_gzip_document_gets_the_findings_of_its_plain_text() -> None:
    # the decompressed text goes through every scan (loc text, the lxml walks, positions)
    body = "".join(
        f"<url><loc>https://www.shop.org/p/{i} x</loc><lastmod>2031-01-01</lastmod>"
        f"<bogus/><priority>2</priority></url>\n"
        for i in range(50)
    )
    plain = urlset(body)
    now = datetime(2026, 1, 1, tzinfo=UTC)
    expected = [(i.code, i.line, i.column) for i in check(plain, now=now, schema=True)]
    assert {c for c, _, _ in expected} >= {"url-not-escaped", "future-lastmod", "invalid-priority"}
    packed = gzip.compress(plain)
    assert [(i.code, i.line, i.column) for i in check(packed, now=now, schema=True)] == expected

"""Each rule of the checker: one document that triggers it, one near miss that must not."""

from __future__ import annotations

import gzip
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from test_codes import PACKAGE, emitted_codes
from urlset.checking.checker import CheckOptions, check_document, check_paths
from urlset.checking.rules import all_codes, lookup
from urlset.limits import CURRENT, SITEMAPS_2008
from urlset.model import Severity

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def urlset(*entries: str, decl: str = DECL, extra_ns: str = "") -> bytes:
    body = "".join(f"<url>{e}</url>\n" for e in entries)
    return f'{decl}<urlset xmlns="{NS}"{extra_ns}>\n{body}</urlset>\n'.encode()


def index(*entries: str) -> bytes:
    body = "".join(f"<sitemap>{e}</sitemap>\n" for e in entries)
    return f'{DECL}<sitemapindex xmlns="{NS}">\n{body}</sitemapindex>\n'.encode()


def loc(url: str, rest: str = "") -> str:
    return f"<loc>{url}</loc>{rest}"


NEWS_NS = ' xmlns:news="http://www.google.com/schemas/sitemap-news/0.9"'


def _news(published: str) -> str:
    return (
        "<news:news><news:publication><news:name>Shop</news:name>"
        "<news:language>en</news:language></news:publication>"
        f"<news:publication_date>{published}</news:publication_date>"
        "<news:title>Sale</news:title></news:news>"
    )


@dataclass
class Case:
    code: str
    hit: bytes
    miss: bytes
    options: dict[str, Any] = field(default_factory=dict)
    miss_options: dict[str, Any] | None = None


A = "https://www.shop.org/"
CASES = [
    Case("byte-order-mark", b"\xef\xbb\xbf" + urlset(loc(A)), urlset(loc(A))),
    Case("no-xml-declaration", urlset(loc(A), decl=""), urlset(loc(A))),
    Case("empty-sitemap", urlset(), urlset(loc(A))),
    Case(
        "element-order",
        urlset(loc(A, "<priority>0.5</priority><lastmod>2024-01-01</lastmod>")),
        urlset(loc(A, "<lastmod>2024-01-01</lastmod><priority>0.5</priority>")),
    ),
    Case(
        "misplaced-element",
        urlset(loc(A, "<sitemap>x</sitemap>")),
        urlset(loc(A, '<x:sitemap xmlns:x="urn:x">x</x:sitemap>')),
    ),
    Case(
        "unknown-element",
        urlset(loc(A, "<title>Home</title>")),
        urlset(loc(A, '<t:title xmlns:t="urn:t">Home</t:title>')),
    ),
    Case(
        "schema-error",
        urlset(loc(A, "<priority>high</priority>")),
        urlset(loc(A, "<priority>0.8</priority>")),
        {"schema": True},
    ),
    Case("url-not-escaped", urlset(loc(A + "a b")), urlset(loc(A + "a%20b"))),
    Case("url-not-escaped", urlset(loc(A + "a`b")), urlset(loc(A + "a%60b"))),
    Case("unescaped-ampersand", urlset(loc(A + "?a=1&b=2")), urlset(loc(A + "?a=1&amp;b=2"))),
    Case("normalized-url", urlset(loc(A + "bücher")), urlset(loc(A + "b%C3%BCcher"))),
    Case("url-too-long", urlset(loc(A + "x" * 2100)), urlset(loc(A + "x" * (2048 - len(A))))),
    Case(
        "future-lastmod",
        urlset(loc(A, "<lastmod>2026-06-03</lastmod>")),
        urlset(loc(A, "<lastmod>2026-06-02</lastmod>")),  # still 1 June somewhere (UTC+14)
        {"now": NOW},
    ),
    Case(
        "future-lastmod",
        urlset(loc(A, "<lastmod>2026-06-01T12:30:00+00:00</lastmod>")),
        urlset(loc(A, "<lastmod>2026-06-01T13:30:00+02:00</lastmod>")),
        {"now": NOW},
    ),
    Case(
        "lastmod-without-day",
        urlset(loc(A, "<lastmod>2014-06</lastmod>")),
        urlset(loc(A, "<lastmod>2014-06-01</lastmod>")),
    ),
    Case(
        "lastmod-without-day",
        urlset(loc(A, "<lastmod>2014</lastmod>")),
        urlset(loc(A, "<lastmod>2014-01-01T00:00:00Z</lastmod>")),
        {"now": NOW},
    ),
    Case(
        "too-many-urls",
        urlset(loc(A), loc(A + "a"), loc(A + "b")),
        urlset(loc(A), loc(A + "a")),
        {"limits": CURRENT.lowered(max_urls=2)},
    ),
    Case(
        "file-too-large",
        urlset(*(loc(A + str(n)) for n in range(40))),
        urlset(loc(A)),
        {"limits": CURRENT.lowered(max_bytes=1024)},
    ),
    Case(
        "too-many-sitemaps",
        index(*(loc(f"{A}s{n}.xml") for n in range(1001))),
        index(*(loc(f"{A}s{n}.xml") for n in range(1001))),
        {"limits": SITEMAPS_2008},
        {"limits": CURRENT},
    ),
    Case(
        "url-not-allowed",
        urlset(loc(A + "images/a.png")),
        urlset(loc(A + "catalog/a.html")),
        {"base_url": A + "catalog/sitemap.xml"},
    ),
    Case(
        "url-not-allowed",
        urlset(loc("http://www.shop.org/catalog/a")),
        urlset(loc("https://www.shop.org/catalog/a")),
        {"base_url": A + "catalog/sitemap.xml"},
    ),
    Case(
        "www-variant",
        urlset(loc("https://shop.org/a")),
        urlset(loc("https://www.shop.org/a")),
        {"base_url": A + "sitemap.xml"},
    ),
    Case("dev-host", urlset(loc("http://localhost:4000/a")), urlset(loc("http://localhost.org/a"))),
    Case("dev-host", urlset(loc("https://blog.local/a")), urlset(loc("https://blog.locals.org/"))),
    Case("dev-host", urlset(loc("https://intranet/a")), urlset(loc("https://intranet.org/a"))),
    Case("dev-host", urlset(loc("http://192.168.1.4/a")), urlset(loc("http://8.8.8.8/a"))),
    Case(
        "dev-host",
        urlset(loc("https://deploy-preview-42--shop.netlify.app/a")),
        urlset(loc("https://shop.netlify.app/a")),
    ),
    Case(
        "dev-host",
        urlset(loc("https://shop-git-feature-x-acme.vercel.app/a")),
        urlset(loc("https://shop.vercel.app/a")),
    ),
    Case(
        "dev-host",
        urlset(loc("https://3f2a91c.shop.pages.dev/a")),
        urlset(loc("https://shop.pages.dev/a")),
    ),
    Case(
        "dev-host",
        urlset(loc("https://api-pr-17.onrender.com/a")),
        urlset(loc("https://api.onrender.com/")),
    ),
    Case(
        "dev-host",
        urlset(loc("https://shop--pr5-abc.web.app/a")),
        urlset(loc("https://shop.web.app/a")),
    ),
    Case(
        "placeholder-host",
        urlset(loc("https://www.example.com/a")),
        urlset(loc("https://www.example-shop.com/a")),
    ),
    Case(
        "mixed-hosts",
        urlset(loc(A), loc("https://blog.shop.org/")),
        urlset(loc(A), loc(A + "blog/")),
    ),
    Case(
        "index-other-site",
        index(loc("https://cdn.shop.org/s1.xml")),
        index(loc(A + "deep/s1.xml")),
        {"base_url": A + "sitemaps/index.xml"},
    ),
    Case(
        "missing-index-lastmod",
        index(loc(A + "s1.xml")),
        index(loc(A + "s1.xml", "<lastmod>2024-01-01</lastmod>")),
    ),
    Case(
        "text-not-url",
        b"https://a.org/\nsee our shop\nhttps://a.org/d\n",
        b"https://a.org/\nshop/page.html\nhttps://a.org/d\n",
    ),
    Case(
        "url-not-escaped",
        b"https://a.org/\nhttps://a.org/b c\nhttps://a.org/d\n",
        b"https://a.org/\nhttps://a.org/b%20c\nhttps://a.org/d\n",
    ),
    Case(
        "text-header-line",
        b"My sitemap\nhttps://a.org/\nhttps://a.org/b\n",
        b"https://a.org/\nhttps://a.org/b\nhttps://a.org/c\n",
    ),
    Case(
        "text-header-line",
        b"https://a.org/\nhttps://a.org/b\n-- end of list --\n",
        b"https://a.org/\nhttps://a.org/b\nhttps://a.org/c\n",
    ),
    Case(
        "too-many-urls",
        b"https://a.org/\nhttps://a.org/b\nhttps://a.org/c\n",
        b"https://a.org/\nhttps://a.org/b\n",
        {"limits": CURRENT.lowered(max_urls=2)},
    ),
    Case(  # a CR alone ends a text line, as the reader takes it; CR LF is one line end
        "too-many-urls",
        b"https://a.org/\rhttps://a.org/b\rhttps://a.org/c",
        b"https://a.org/\r\nhttps://a.org/b\r\n",
        {"limits": CURRENT.lowered(max_urls=2)},
    ),
    # reader codes that a check reports with its own severity
    Case(
        "wrong-namespace",
        urlset(loc(A)).replace(b"http://www.sitemaps", b"https://www.sitemaps"),
        urlset(loc(A)),
    ),
    Case(
        "invalid-changefreq",
        urlset(loc(A, "<changefreq>sometimes</changefreq>")),
        urlset(loc(A, "<changefreq>daily</changefreq>")),
    ),
    Case(
        "invalid-priority",
        urlset(loc(A, "<priority>1.5</priority>")),
        urlset(loc(A, "<priority>1.0</priority>")),
    ),
    Case(
        "lenient-lastmod",
        urlset(loc(A, "<lastmod>2025-8-10</lastmod>")),
        urlset(loc(A, "<lastmod>2025-08-10</lastmod>")),
    ),
    Case(
        "non-utf8-encoding",
        urlset(loc(A)).replace(b"UTF-8", b"ISO-8859-1"),
        urlset(loc(A)),
    ),
    Case(
        "invalid-encoding",
        urlset(loc(A + "caf\xe9")).replace("caf\xe9".encode(), b"caf\xe9"),
        urlset(loc(A + "caf%C3%A9")),
    ),
    Case("leading-whitespace", b"\n  " + urlset(loc(A)), urlset(loc(A))),
    Case(
        "junk-before-root", b"This XML file does not appear ...\n" + urlset(loc(A)), urlset(loc(A))
    ),
    Case(
        "news-too-old",
        urlset(loc(A, _news("2026-04-01")), extra_ns=NEWS_NS),
        urlset(loc(A, _news("2026-05-31")), extra_ns=NEWS_NS),
        {"now": NOW},
    ),
    Case("unknown-root", b'<?xml version="1.0"?><catalog><item/></catalog>', urlset(loc(A))),
    Case("empty-document", b"", urlset(loc(A))),
    Case("not-well-formed", urlset(loc(A)).replace(b"</url>", b"</ur>"), urlset(loc(A))),
    Case("duplicate-loc", urlset(loc(A), loc(A)), urlset(loc(A), loc(A + "?a"))),
    Case("relative-url", urlset(loc("/a/")), urlset(loc(A + "a/"))),
    Case("missing-loc", urlset("<lastmod>2024-01-01</lastmod>"), urlset(loc(A))),
    Case("html-page", b"<!DOCTYPE html><html><body>hi</body></html>", urlset(loc(A))),
    Case(
        "gzip-corrupt",
        gzip.compress(urlset(loc(A)))[:-8] + b"\0" * 8,
        gzip.compress(urlset(loc(A))),
    ),
]


def _ids(case: Case) -> str:
    return case.code


def _run(data: bytes, **options: Any):  # type: ignore[no-untyped-def]
    return check_document(data, CheckOptions(**options), "doc.xml")


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_rule_triggers(case: Case) -> None:
    result = _run(case.hit, **case.options)
    hits = [i for i in result.issues if i.code == case.code]
    assert hits, [str(i) for i in result.issues]
    assert all(i.severity == lookup(case.code).severity for i in hits)
    assert all(i.hint and i.message for i in hits)


@pytest.mark.parametrize("case", CASES, ids=_ids)
def test_rule_near_miss(case: Case) -> None:
    options = case.options if case.miss_options is None else case.miss_options
    result = _run(case.miss, **options)
    assert case.code not in {i.code for i in result.issues}, [str(i) for i in result.issues]


def test_every_check_code_has_a_case_or_a_file_test() -> None:
    covered = {c.code for c in CASES} | {
        "cannot-read",
        "no-sitemaps",
        "nested-index",
        "missing-child",
        "stale-index-lastmod",
        "dangling-link",  # test_check_cli: a directory's FIFOs, devices and links
        "not-a-file",
    }
    # the codes the checking stage itself emits
    assert set(emitted_codes(PACKAGE / "checking")) <= covered | set(
        emitted_codes(PACKAGE / "reading")
    )


def test_code_table() -> None:
    table = all_codes()
    for code, row in table.items():
        assert code == code.lower() and " " not in code
        assert row.severity in (Severity.ERROR, Severity.WARNING, Severity.INFO)
        assert row.title and row.hint
    assert lookup("wrong-namespace").gsc == "Incorrect namespace"
    assert lookup("wrong-namespace").severity == Severity.ERROR  # for the reader too
    assert lookup("url-not-allowed").gsc == "URL not allowed"


def test_issue_positions() -> None:
    doc = urlset(loc(A), loc("http://localhost/x"), loc(A + "a b"))
    result = _run(doc)
    by_code = {i.code: i for i in result.issues}
    assert (by_code["dev-host"].line, by_code["dev-host"].column) == (4, 11)
    assert by_code["url-not-escaped"].line == 5
    assert by_code["url-not-escaped"].column == 11
    # the reader's own note on the same URL is not repeated
    assert "normalized-url" not in by_code


def test_element_order_found_without_the_plain_shape() -> None:
    """A prefixed sitemap namespace takes the lxml path: same finding, with its line."""
    doc = (
        f'{DECL}<s:urlset xmlns:s="{NS}">\n<s:url><s:loc>{A}</s:loc>\n'
        "<s:priority>0.3</s:priority>\n<s:lastmod>2024-01-01</s:lastmod></s:url>\n</s:urlset>\n"
    ).encode()
    hits = [i for i in _run(doc).issues if i.code == "element-order"]
    assert [i.line for i in hits] == [5]


def test_extension_after_protocol_children_is_in_order() -> None:
    ext = ' xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    good = urlset(
        loc(
            A,
            "<lastmod>2024-01-01</lastmod><image:image><image:loc>"
            f"{A}i.png</image:loc></image:image>",
        ),
        extra_ns=ext,
    )
    bad = urlset(
        loc(
            A,
            "<image:image><image:loc>"
            f"{A}i.png</image:loc></image:image><lastmod>2024-01-01</lastmod>",
        ),
        extra_ns=ext,
    )
    assert "element-order" not in {i.code for i in _run(good).issues}
    assert "element-order" in {i.code for i in _run(bad).issues}


def test_many_findings_are_capped() -> None:
    doc = urlset(*(loc(f"https://a.org/{n} x") for n in range(1200)))
    issues = _run(doc).issues
    assert sum(1 for i in issues if i.code == "url-not-escaped") == 1000
    assert any(i.code == "too-many-errors" and "url-not-escaped" in i.message for i in issues)


def test_host_findings_are_reported_once_per_host() -> None:
    doc = urlset(*(loc(f"http://localhost:3000/{n}") for n in range(50)))
    hits = [i for i in _run(doc).issues if i.code == "dev-host"]
    assert len(hits) == 1 and "50 URLs" in hits[0].message and hits[0].line == 3


def test_dev_host_counts_every_url_on_the_host_whatever_its_scheme_and_port() -> None:
    # the reader names a development host once per document; the checker used to count
    # only the URLs of the first scheme://authority it saw the finding before
    locs = [f"http://localhost:3000/{n}" for n in range(3)]
    locs += [f"https://localhost/{n}" for n in range(5)]
    locs += [f"{A}{n}" for n in range(4)] + [f"http://localhost:3000/x{n}" for n in range(2)]
    hits = [i for i in _run(urlset(*(loc(u) for u in locs))).issues if i.code == "dev-host"]
    assert len(hits) == 1 and "(10 URLs)" in hits[0].message and hits[0].line == 3


# --- indexes and directories ------------------------------------------------------------------


def _site(tmp: Path, files: dict[str, bytes]) -> Path:
    for name, data in files.items():
        (tmp / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp / name).write_bytes(data)
    return tmp


def _codes(report: Any, name: str) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for f in report.files:
        if f.source.endswith(name):
            for i in f.issues:
                out.setdefault(i.code, []).append(i.line)
    return out


def test_index_children_resolved_in_directory(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "sitemap.xml": index(
                loc(A + "a.xml", "<lastmod>2024-01-01</lastmod>"),
                loc(A + "b.xml", "<lastmod>2024-05-01</lastmod>"),
                loc(A + "inner.xml", "<lastmod>2024-05-01</lastmod>"),
                loc(A + "gone.xml", "<lastmod>2024-05-01</lastmod>"),
            ),
            "a.xml": urlset(loc(A + "1", "<lastmod>2024-03-01</lastmod>")),
            "b.xml": urlset(loc(A + "2", "<lastmod>2024-04-01</lastmod>")),
            "inner.xml": index(loc(A + "a.xml", "<lastmod>2024-01-01</lastmod>")),
        },
    )
    report = check_paths([site], CheckOptions(base_url=A, now=NOW))
    codes = _codes(report, "/sitemap.xml")
    assert codes.pop("stale-index-lastmod") == [3]  # a.xml lists a newer page
    assert codes.pop("nested-index") == [5]
    assert codes.pop("missing-child") == [6]
    assert not codes
    assert not _codes(report, "/b.xml")


def test_index_children_without_base_url_are_found_by_name(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "sitemap.xml": index(
                loc(A + "a.xml", "<lastmod>2024-01-01</lastmod>"),
                loc(A + "gone.xml", "<lastmod>2024-01-01</lastmod>"),
            ),
            "a.xml": urlset(loc(A + "1", "<lastmod>2023-12-01</lastmod>")),
        },
    )
    report = check_paths([site / "sitemap.xml"], CheckOptions(now=NOW))
    assert [Path(f.source).name for f in report.files] == ["sitemap.xml", "a.xml"]
    # gone.xml is not beside its sibling: missing, even without the site's URL
    (issue,) = report.issues
    assert issue.code == "missing-child" and issue.line > 0
    assert str(site / "gone.xml") in issue.message


def test_empty_directory_is_no_sitemaps(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text("hi")
    report = check_paths([tmp_path])
    assert [i.code for i in report.issues] == ["no-sitemaps"]
    _site(tmp_path, {"s.xml": urlset(loc(A))})
    assert check_paths([tmp_path]).issues == []


def test_missing_file_is_cannot_read(tmp_path: Path) -> None:
    report = check_paths([tmp_path / "nope.xml"])
    assert [i.code for i in report.issues] == ["cannot-read"]
    assert report.issues[0].severity == Severity.ERROR


def test_gzip_child_and_scope_of_child(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "sitemap.xml": index(loc(A + "blog/s.xml.gz", "<lastmod>2024-05-01</lastmod>")),
            "blog/s.xml.gz": gzip.compress(urlset(loc(A + "blog/1"), loc(A + "shop/2"))),
        },
    )
    report = check_paths([site], CheckOptions(base_url=A))
    codes = _codes(report, "s.xml.gz")
    assert codes == {"url-not-allowed": [4]}  # /shop/ is above the child's directory


def test_directory_leaves_out_xml_that_is_no_sitemap(tmp_path: Path) -> None:
    site = _site(
        tmp_path,
        {
            "browserconfig.xml": b"<browserconfig><msapplication/></browserconfig>",
            "sitemap-bad.xml": b"<browserconfig/>",
            "s.xml": urlset(loc(A)),
        },
    )
    report = check_paths([site])
    assert sorted(Path(f.source).name for f in report.files) == ["s.xml", "sitemap-bad.xml"]


# --- the Python API ---------------------------------------------------------------------------


def test_api_on_bytes_and_paths(tmp_path: Path) -> None:
    from urlset.checking.checker import check, check_bytes, is_valid

    good, bad = urlset(loc(A)), urlset(loc(A + "a b"))
    assert check(good) == [] and is_valid(good)
    assert [i.code for i in check(bad)] == ["url-not-escaped"] and not is_valid(bad)
    path = tmp_path / "s.xml"
    path.write_bytes(bad)
    assert [i.code for i in check(path)] == ["url-not-escaped"]
    assert [i.code for i in check(str(tmp_path))] == ["url-not-escaped"]
    assert not is_valid(str(path))
    # limits by profile name, and warnings do not make a document invalid
    many = index(*(loc(f"{A}s{n}.xml", "<lastmod>2024-01-01</lastmod>") for n in range(1001)))
    assert is_valid(many) and not is_valid(many, limits="sitemaps-0.9-2008")
    assert is_valid(urlset(loc("https://www.example.com/")))
    result = check_bytes(good, source="x.xml", base_url=A + "sitemap.xml")
    assert result.format == "urlset" and result.entries == 1 and result.url == A + "sitemap.xml"


# --- fixture files that state their expected result -------------------------------------------

DATA = Path(__file__).parent / "data" / "check"


def _expected() -> list[dict[str, str]]:
    import csv

    with (DATA / "EXPECTED.tsv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


@pytest.mark.parametrize("row", _expected(), ids=lambda r: r["file"])
def test_fixture_files(row: dict[str, str]) -> None:
    options = CheckOptions(base_url=row["base_url"] or None, now=NOW)
    report = check_paths([DATA / row["file"]], options)
    assert {i.code for i in report.issues} == set(row["codes"].split()), row["why"]


def test_same_finding_on_a_repeated_loc_points_at_each_occurrence() -> None:
    entry = loc(A + "x", "<lastmod>2099-01-01</lastmod>")
    doc = urlset(entry, loc(A + "y"), entry)
    result = _run(doc, now=NOW)
    assert [i.line for i in result.issues if i.code == "future-lastmod"] == [3, 5]


def test_text_lines_end_as_the_reader_ends_them_however_the_pieces_fall() -> None:
    """A CR alone is a line end of a text file (made a LF for check's line scans, the bytes
    keeping their offsets), a CR LF one line end, whether or not a piece ends between the
    two; the scan counts the lines alike."""
    from urlset.checking.raw_text import lone_cr_as_lf
    from urlset.checking.scan import Scan

    data = b"a\rb\r\nc\r\rd\r"
    for cut in range(len(data) + 1):
        pieces = [data[:cut], data[cut:]]
        assert b"".join(lone_cr_as_lf(pieces)) == b"a\nb\r\nc\n\nd\n", cut
        scan = Scan(CURRENT)
        scan.feed(b"h" * 4096 + pieces[0])  # past the first 4 KB: each piece counted apart
        scan.feed(pieces[1])
        scan.finish()
        assert scan.newlines + scan.lone_crs == 5, cut

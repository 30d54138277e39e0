"""What build publishes, check accepts: a set written by ``urlset build`` (every output option,
every extension) is clean under ``urlset check`` as a directory and file by file, valid under
the official schemas, and read back equal by ``read``; and build's own verdicts on its input
are check's (same code, same severity)."""

from __future__ import annotations

import csv as csv_module
import gzip
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lxml import etree

from conftest import SHARED
from helpers import load
from schema_support import official_schemas
from urlset import Url, read_file
from urlset.cli import main
from urlset.errors import InvalidValue

BASE = "https://www.acme-shop.com/"
NOW = "2026-11-27T00:00:00Z"


def urlset(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run the CLI: (exit status, stdout, stderr); never a traceback."""
    result = CliRunner().invoke(main, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def check_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = urlset("check", "--now", NOW, "--format", "json", *args)
    return code, json.loads(out)


def codes(report: dict[str, Any]) -> dict[str, str]:
    """Each code check reported, with its severity."""
    return {i["code"]: i["severity"] for f in report["files"] for i in f["issues"]}


def published(out: Path) -> list[Path]:
    """The sitemap files a build wrote (not its stylesheet, manifest or robots.txt)."""
    return sorted(
        p for p in out.iterdir() if p.name.startswith("sitemap") and not p.name.endswith(".xsl")
    )


def test_a_set_with_its_stylesheet_checks_clean_as_a_directory(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{BASE}p{i}\n" for i in range(30)))
    out = tmp_path / "out"
    for extra in ([], ["--stable", "--max-urls", "10"]):
        code, _, err = urlset(
            "build", str(source), "--base-url", BASE, "--out", str(out), "--stylesheet", *extra
        )
        assert code == 0, err
        assert (out / "sitemap.xsl").is_file()
        code, report = check_json(str(out), "--base-url", BASE)
        assert code == 0 and codes(report) == {}, report
        assert {"path": str(out / "sitemap.xsl"), "reason": "an XSL stylesheet"} in report[
            "skipped"
        ]


def test_a_stylesheet_named_anything_is_left_out_of_a_directory_check(tmp_path: Path) -> None:
    stylesheet = (
        '<?xml version="1.0"?>\n<xsl:stylesheet version="1.0" '
        'xmlns:xsl="http://www.w3.org/1999/XSL/Transform"/>\n'
    )
    (tmp_path / "sitemap-style.xml").write_text(stylesheet)
    (tmp_path / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{BASE}</loc></url></urlset>"
    )
    code, report = check_json(str(tmp_path))
    assert code == 0 and codes(report) == {}
    # a file that is not a stylesheet and not a sitemap, named like one, is still an error
    (tmp_path / "sitemap-other.xml").write_text("<stylesheet/>")
    code, report = check_json(str(tmp_path))
    assert code == 1 and codes(report) == {"unknown-root": "error"}


def test_a_set_served_elsewhere_checks_clean_with_its_sitemap_url(tmp_path: Path) -> None:
    """build --sitemap-url (cross-submission): check takes the same two URLs, the URLs' scope
    and where the files are served, and finds the children and every URL in scope."""
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{BASE}p{i}\n" for i in range(30)))
    out = tmp_path / "out"
    elsewhere = "https://cdn.acme-shop.com/big/"
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--sitemap-url", elsewhere,
        "--out", str(out), "--max-urls", "10",
    )  # fmt: skip
    assert code == 0, err
    code, report = check_json(str(out), "--base-url", BASE, "--sitemap-url", elsewhere)
    assert code == 0 and codes(report) == {}, report
    assert report["summary"]["files"] == 4
    # the URLs' scope is still enforced: a narrower one than the build's is not met
    code, report = check_json(str(out), "--base-url", BASE + "shop/", "--sitemap-url", elsewhere)
    assert code == 1 and codes(report) == {"url-not-allowed": "error"}
    # served at --sitemap-url alone, its URLs lie outside the sitemaps' directory
    code, report = check_json(str(out), "--base-url", elsewhere)
    assert code == 1 and codes(report) == {"url-not-allowed": "error"}
    code, _, err = urlset("check", str(out), "--sitemap-url", elsewhere)
    assert code == 2 and "--sitemap-url needs --base-url" in err


def test_every_writer_declares_only_the_namespaces_used(tmp_path: Path) -> None:
    source = tmp_path / "ext.jsonl"
    lines = [
        {"loc": f"{BASE}a", "images": [{"loc": f"{BASE}a.jpg"}]},
        {"loc": f"{BASE}b"},
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for extra in ([], ["--stable"]):
        out = tmp_path / f"out{len(extra)}"
        code, _, err = urlset(
            "build", str(source), "--base-url", BASE, "--out", str(out), "--no-gzip", *extra
        )
        assert code == 0, err
        roots = [etree.fromstring(load(p)) for p in published(out) if b"<urlset" in load(p)[:200]]
        assert roots and all(
            set(root.nsmap.values())
            == {
                "http://www.sitemaps.org/schemas/sitemap/0.9",
                "http://www.google.com/schemas/sitemap-image/1.1",
            }
            for root in roots
        ), extra


def read_back(out: Path) -> list[tuple[Any, ...]]:
    """Every URL of a published set as ``read`` gives it, in loc order."""
    urls = []
    for path in published(out):
        urls.extend(u for u in read_file(path) if isinstance(u, Url))
    return sorted(urls)


@pytest.fixture(scope="module")
def official() -> dict[str, etree.XMLSchema] | None:
    """The official schemas, or None on a clone without ../shared (the rest still runs)."""
    xsd = SHARED / "xsd"
    return official_schemas(xsd) if (xsd / "sitemap.xsd").is_file() else None


def test_a_lastmod_without_a_day_is_written_and_reported_as_check_reports_it(
    tmp_path: Path,
) -> None:
    """2014 and 2014-06 are kept (W3C Datetimes) but sitemap.xsd needs a day: build and check
    both say lastmod-without-day, a warning; on every input way (the core's rows, Python)."""
    source = tmp_path / "lm.csv"
    source.write_text(f"loc,lastmod\n{BASE}a,2014-06\n{BASE}b,2014\n{BASE}c,2024-05-06\n")
    out = tmp_path / "out"
    log = tmp_path / "report.jsonl"
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(out), "--no-gzip",
        "--report", str(log),
    )  # fmt: skip
    assert code == 0 and "lastmod-without-day: 2" in err
    problems = [json.loads(line) for line in log.read_text().splitlines()]
    assert {(p["code"], p["severity"]) for p in problems} == {("lastmod-without-day", "warning")}
    assert "<lastmod>2014-06</lastmod>" in (out / "sitemap.xml").read_text()
    code, report = check_json(str(out))
    assert code == 0 and codes(report) == {"lastmod-without-day": "warning"}
    from urlset import write_sitemaps

    built = write_sitemaps([(BASE + "a", "2014-06")], tmp_path / "api", BASE, gzip=False)
    assert built.flagged == {"lastmod-without-day": 1}


def test_a_time_without_a_zone_says_to_name_one(tmp_path: Path) -> None:
    source = tmp_path / "tz.csv"
    source.write_text(f"loc,lastmod\n{BASE}a,2024-01-01T10:00:00\n")
    code, _, err = urlset("build", str(source), "--base-url", BASE, "--out", str(tmp_path / "o"))
    assert code == 0 and "has no time zone: name one with --timezone" in err
    assert "not a W3C Datetime" not in err
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(tmp_path / "o"), "--timezone", "UTC"
    )
    assert code == 0 and "time zone" not in err


def bad_extension_inputs(tmp_path: Path) -> dict[str, Path]:
    """The same pages with an optional field at fault, an unknown field and a bad item, in
    every build input that carries extensions."""
    jsonl = tmp_path / "in.jsonl"
    lines = [
        {
            "loc": f"{BASE}a",
            "images": [
                {"loc": f"{BASE}1.jpg", "license": "not a url"},
                {"loc": f"{BASE}2.jpg", "colour": "red"},
                {"loc": "not a url"},
            ],
            "alternates": [{"hreflang": "en", "href": f"{BASE}a"}],
        }
    ]
    jsonl.write_text("".join(json.dumps(line) + "\n" for line in lines))
    csv = tmp_path / "in.csv"
    csv.write_text(
        "loc,image_loc,image_license,alternate_en\n"
        f"{BASE}a,{BASE}1.jpg|{BASE}2.jpg|not a url,not a url||,{BASE}a\n"
    )
    cell = tmp_path / "cell.csv"
    with cell.open("w", newline="") as f:  # the `extensions` cell: read's JSON, quoted
        cells = {k: v for k, v in lines[0].items() if k != "loc"}
        csv_module.writer(f).writerows([["loc", "extensions"], [f"{BASE}a", json.dumps(cells)]])
    return {"jsonl": jsonl, "csv": csv, "cell": cell}


@pytest.mark.parametrize("kind", ["jsonl", "csv", "cell", "python"])
def test_a_bad_extension_field_costs_that_field_only(tmp_path: Path, kind: str) -> None:
    """As the reader does: the field at fault is left out (image-field-dropped), an image
    without a usable loc is left out alone (invalid-image), the page keeps the rest."""
    from urlset import write_sitemaps

    out = tmp_path / "out"
    if kind == "python":
        entry = json.loads(bad_extension_inputs(tmp_path)["jsonl"].read_text())
        report = write_sitemaps([entry], out, BASE, gzip=False)
        counts = dict(report.kept_without)
    else:
        source = bad_extension_inputs(tmp_path)[kind]
        log = tmp_path / "report.jsonl"
        code, _, err = urlset(
            "build", str(source), "--base-url", BASE, "--out", str(out), "--no-gzip",
            "--report", str(log),
        )  # fmt: skip
        assert code == 0, err
        problems = [json.loads(line) for line in log.read_text().splitlines()]
        line = 1 if kind == "jsonl" else 2  # after the CSV header
        assert all(p["source"] == str(source) and p["line"] == line for p in problems), problems
        counts = {}
        for p in problems:
            counts[p["code"]] = counts.get(p["code"], 0) + 1
    expected = {"image-field-dropped": 1, "invalid-image": 1}
    if kind != "csv":  # a column cannot be unknown: only the JSON objects have fields
        expected["image-field-dropped"] = 2
    assert counts == expected
    (url,) = list(read_file(out / "sitemap.xml"))
    assert isinstance(url, Url)
    images = [e for e in url.extensions if type(e).__name__ == "Image"]
    assert [(i.loc, i.license) for i in images] == [(f"{BASE}1.jpg", None), (f"{BASE}2.jpg", None)]
    assert [type(e).__name__ for e in url.extensions].count("Alternate") == 1


@pytest.mark.parametrize("dedupe", [[], ["--no-dedupe"]])
def test_build_reports_the_set_wide_and_info_findings_as_check_does(
    tmp_path: Path, dedupe: list[str]
) -> None:
    """hreflang across the set and the extensions' infos: build's --report gives each the
    code and severity check gives it on the published set, and says nothing is reciprocal
    only when check finds nothing. Whether a variant is in the set: the de-duplication set
    says, or without it (--no-dedupe) the hashes the build keeps of its plain pages."""
    source = tmp_path / "in.jsonl"
    lines = [
        {
            "loc": f"{BASE}en/",
            "alternates": [
                {"hreflang": "en", "href": f"{BASE}en/"},
                {"hreflang": "de", "href": f"{BASE}de/"},  # in the set, lists none
                {"hreflang": "fr", "href": "https://fr.acme-shop.com/"},  # not in the set
            ],
            "images": [{"loc": f"{BASE}1.jpg", "caption": "old field"}],
        },
        {"loc": f"{BASE}de/"},
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out, log = tmp_path / "out", tmp_path / "report.jsonl"
    code, stdout, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(out), "--report", str(log), *dedupe
    )
    assert code == 0, err
    built = {(p["code"], p["severity"]) for p in map(json.loads, log.read_text().splitlines())}
    code, report = check_json(str(out), "--base-url", BASE)
    assert (
        built
        == set(codes(report).items())
        == {
            ("hreflang-unlisted", "warning"),
            ("hreflang-unverified", "info"),
            ("image-deprecated-field", "info"),
        }
    )
    assert "all reciprocal" not in stdout
    assert "wrote 1 entry that check warns about (hreflang-unlisted: 1)" in err
    assert "check notes (info) (image-deprecated-field: 1, hreflang-unverified: 1)" in err


def test_access_logs_given_as_the_shell_expands_them_or_as_a_quoted_pattern(
    tmp_path: Path,
) -> None:
    """`--access-log /var/log/nginx/access.log*` unquoted: the shell gives the option the
    first file and the rotated ones as SOURCE arguments; quoted, urlset expands it."""
    import gzip

    def line(path: str) -> str:
        return f'203.0.113.7 - - [25/Nov/2026:10:00:00 +0000] "GET {path} HTTP/1.1" 200 5 "-" "Mozilla/5.0"\n'

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "access.log").write_text(line("/a"))
    (logs / "access.log.1").write_text(line("/b"))
    (logs / "access.log.2.gz").write_bytes(gzip.compress(line("/c").encode()))
    (logs / "access.log-20261127").write_text(line("/d"))
    expanded = sorted(str(p) for p in logs.iterdir())
    for args in (
        ["--access-log", *expanded],  # what the shell passes for the unquoted pattern
        ["--access-log", str(logs / "access.log*")],  # quoted: urlset expands it
        [f"--access-log={p}" for p in expanded],  # repeated
    ):
        out = tmp_path / "out"
        code, _, err = urlset("build", *args, "--base-url", BASE, "--out", str(out), "--no-gzip")
        assert code == 0, (args, err)
        urls = {u.loc for u in read_file(out / "sitemap.xml") if isinstance(u, Url)}
        assert urls == {BASE + page for page in "abcd"}, args
    code, _, err = urlset(
        "build", "--access-log", str(logs / "nothing*"), "--base-url", BASE, "--out", str(out)
    )
    assert code == 2 and "no file matches" in err


def test_every_extension_limit_is_enforced_at_build(tmp_path: Path) -> None:
    """Each limit check enforces, enumerated from the extensions' rules (per URL: images,
    video URL, hreflang per code; per file: news): build writes what check accepts and
    reports each with check's code and severity."""
    source = tmp_path / "in.jsonl"
    lines: list[dict[str, Any]] = [
        {"loc": f"{BASE}a", "images": [{"loc": f"{BASE}i{i}.jpg"} for i in range(1005)]},
        {
            "loc": f"{BASE}b",
            "alternates": [
                {"hreflang": "en", "href": f"{BASE}b"},
                {"hreflang": "de", "href": f"{BASE}c"},
                {"hreflang": "DE", "href": f"{BASE}d"},
            ],
        },
        {
            "loc": f"{BASE}v",
            "videos": [
                {
                    "thumbnail_loc": f"{BASE}t.jpg",
                    "title": "T",
                    "description": "D",
                    "content_loc": f"{BASE}v",
                },
                {
                    "thumbnail_loc": f"{BASE}t.jpg",
                    "title": "U",
                    "description": "D",
                    "content_loc": f"{BASE}u.mp4",
                },
            ],
        },
        {
            "loc": f"{BASE}c",
            "alternates": [
                {"hreflang": "de", "href": f"{BASE}c"},
                {"hreflang": "en", "href": f"{BASE}b"},
            ],
        },
    ]
    day = datetime.now(UTC).date().isoformat()  # build's rules read the clock: never too old
    lines += [
        {"loc": f"{BASE}n{i}", "news": {"publication_name": "P", "language": "en", "publication_date": day, "title": f"T{i}"}}
        for i in range(1500)
    ]  # fmt: skip
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    out, log = tmp_path / "out", tmp_path / "report.jsonl"
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(out), "--report", str(log)
    )
    assert code == 0, err
    built = [json.loads(line) for line in log.read_text().splitlines()]
    assert {(p["code"], p["severity"]) for p in built} == {
        ("too-many-images", "error"),
        ("hreflang-duplicate", "error"),
        ("video-loc-is-page", "error"),
    }
    code, out_text, _ = urlset("check", str(out), "--base-url", BASE, "--format", "json")
    assert code == 0 and codes(json.loads(out_text)) == {}, out_text
    urls = {u.loc: u for u in read_back(out)}
    assert len(urls) == len(lines)
    kinds = [type(e).__name__ for e in urls[f"{BASE}a"].extensions]
    assert kinds == ["Image"] * 1000
    assert [e.href for e in urls[f"{BASE}b"].extensions] == [f"{BASE}b", f"{BASE}c"]
    assert [e.title for e in urls[f"{BASE}v"].extensions] == ["U"]
    news_per_file = [
        sum(
            1
            for u in read_file(p)
            if isinstance(u, Url) and u.extensions and u.loc.startswith(f"{BASE}n")
        )
        for p in published(out)
    ]
    assert max(news_per_file) == 1000 and sum(news_per_file) == 1500
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(tmp_path / "s"), "--strict"
    )
    assert code == 1 and "too-many-images (--strict)" in err


@pytest.mark.parametrize("update", [False, True])
def test_a_stable_build_splits_at_1000_news_entries(tmp_path: Path, update: bool) -> None:
    """The stable build's shards (--update's, the Dask build's and live sets' through the same
    writer) hold at most 1,000 news entries each, as the plain build's files do."""
    day = datetime.now(UTC).date().isoformat()
    news = [
        {"loc": f"{BASE}n{i}", "news": {"publication_name": "P", "language": "en", "publication_date": day, "title": f"T{i}"}}
        for i in range(1500)
    ]  # fmt: skip
    out = tmp_path / "out"
    parts = [news[:900], news[900:]] if update else [news]
    for n, part in enumerate(parts):
        source = tmp_path / f"news-{n}.jsonl"
        source.write_text("".join(json.dumps(line) + "\n" for line in part))
        how = "--update" if n else "--stable"
        code, _, err = urlset("build", str(source), "--base-url", BASE, "--out", str(out), how)
        assert code == 0, err
    code, report = check_json(str(out), "--base-url", BASE)
    assert code == 0 and codes(report) == {}, report
    urls = read_back(out)
    assert len(urls) == 1500 and all(u.extensions for u in urls)


def _articles(first: int, count: int, published: datetime) -> list[dict[str, Any]]:
    stamp = published.isoformat(timespec="seconds")
    return [
        {"loc": f"{BASE}n{i}", "news": {"publication_name": "P", "language": "en", "publication_date": stamp, "title": f"T{i}"}}
        for i in range(first, first + count)
    ]  # fmt: skip


@pytest.mark.parametrize(
    "mode",
    [[], ["--no-gzip"], ["--max-urls", "700"], ["--stable"], ["--update"], ["csv"]],
    ids=["plain", "no-gzip", "split", "stable", "update", "csv-input"],
)
def test_a_news_window_leaves_old_articles_out_of_the_news_and_check_agrees(
    tmp_path: Path, mode: list[str]
) -> None:
    """--news-window 2d: articles older than the window keep their page without <news:news>,
    the rest split at 1,000 a file, and check (at the same clock) finds nothing, in every
    layout a build writes and from either input that holds news (JSON Lines, CSV columns)."""
    now = datetime.now(UTC)
    lines = _articles(0, 1200, now - timedelta(hours=30)) + _articles(
        1200, 300, now - timedelta(days=3)
    )
    lines += _articles(1500, 2, datetime(2020, 1, 1, tzinfo=UTC))
    out = tmp_path / "out"
    parts = [lines[:800], lines[800:]] if mode == ["--update"] else [lines]
    told = 0
    for n, part in enumerate(parts):
        source = tmp_path / f"in-{n}.jsonl"
        source.write_text("".join(json.dumps(line) + "\n" for line in part))
        how = (["--stable"] if n == 0 else ["--update"]) if mode == ["--update"] else mode
        if mode == ["csv"]:
            source, how = source.with_suffix(".csv"), []
            with source.open("w", newline="") as handle:
                table = csv_module.writer(handle)
                table.writerow(
                    ("loc", "news_name", "news_language", "news_publication_date", "news_title")
                )
                table.writerows((a["loc"], *a["news"].values()) for a in part)
        code, text, err = urlset(
            "build", str(source), "--base-url", BASE, "--out", str(out), "--news-window", "2d", *how
        )
        assert code == 0, err
        if "outside the news window" in text:
            told += int(text.split(" news article")[0].rsplit("\n", 1)[-1].replace(",", ""))
    assert told == 302
    code, out_text, _ = urlset("check", str(out), "--base-url", BASE, "--format", "json")
    assert code == 0 and codes(json.loads(out_text)) == {}, out_text
    urls = {u.loc: u for u in read_back(out)}
    assert len(urls) == 1502
    assert all(urls[f"{BASE}n{i}"].extensions for i in range(1200))
    assert not any(urls[f"{BASE}n{i}"].extensions for i in range(1200, 1502))
    news_per_file = [
        sum(1 for u in read_file(p) if isinstance(u, Url) and u.extensions) for p in published(out)
    ]
    assert max(news_per_file) <= 1000 and sum(news_per_file) == 1200
    # without the window, the same input is written whole and check warns as build did
    whole = tmp_path / "all.jsonl"
    whole.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = urlset("build", str(whole), "--base-url", BASE, "--out", str(tmp_path / "all"))
    assert code == 0 and "news-too-old" in err


def test_the_news_window_is_measured_from_the_build_s_own_now(tmp_path: Path) -> None:
    """The Python API: ``now`` and ``news_window``; an article exactly at the window's edge is
    kept (check calls news older than two days too old, not two days), one a second older
    is not; check at the same ``now`` finds nothing."""
    from urlset import check, write_sitemaps
    from urlset.extensions import News

    now = datetime(2026, 11, 27, 12, tzinfo=UTC)
    edge = now - timedelta(days=2)

    def article(name: str, published: datetime) -> Url:
        return Url(f"{BASE}{name}", extensions=(News("P", "en", published, name),))

    entries = [
        article("edge", edge),
        article("older", edge - timedelta(seconds=1)),
        article("new", now),
    ]
    report = write_sitemaps(
        entries, tmp_path, BASE, now=now, news_window=timedelta(days=2), gzip=False
    )
    assert report.news_outside_window == 1 and report.urls == 3
    kept = {u.loc: u.extensions for u in read_back(tmp_path)}
    assert kept[f"{BASE}older"] == () and kept[f"{BASE}edge"] and kept[f"{BASE}new"]
    assert [i.code for i in check(tmp_path, base_url=BASE, now=now)] == []
    plain = write_sitemaps(entries, tmp_path / "plain", BASE, now=now, gzip=False)
    assert plain.news_outside_window == 0 and plain.flagged["news-too-old"] == 1
    with pytest.raises(InvalidValue, match="at most two days"):
        write_sitemaps(entries, tmp_path / "wide", BASE, now=now, news_window=timedelta(days=3))


@pytest.mark.parametrize("span", ["3d", "49h", "0d", "2 days", "-1d", "2w"])
def test_a_news_window_wider_than_two_days_or_unreadable_is_a_usage_error(
    tmp_path: Path, span: str
) -> None:
    source = tmp_path / "in.txt"
    source.write_text(f"{BASE}a\n")
    code, _, err = urlset(
        "build",
        str(source),
        "--base-url",
        BASE,
        "--out",
        str(tmp_path / "o"),
        "--news-window",
        span,
    )
    assert code == 2 and "at most two days" in err and not (tmp_path / "o").exists()


@pytest.mark.parametrize("mode", [[], ["--stable"]])
def test_a_rebuild_writes_again_a_child_damaged_in_place(tmp_path: Path, mode: list[str]) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{BASE}p{i}\n" for i in range(3000)))
    out = tmp_path / "out"
    args = ["build", str(source), "--base-url", BASE, "--out", str(out), "--max-urls", "1000"]
    assert urlset(*args, *mode)[0] == 0
    children = sorted(p for p in published(out) if p.name != "sitemap.xml.gz")
    # the child holding p1 (a stable set keeps neighbours together: the update below adds some)
    child = next(p for p in children if f"{BASE}p1<".encode() in gzip.decompress(p.read_bytes()))
    good = child.read_bytes()
    damaged = bytearray(good)
    damaged[len(damaged) // 2] ^= 0xFF  # same size, other bytes
    child.write_bytes(bytes(damaged))
    code, _, err = urlset(*args, *mode)
    assert code == 0 and f"{child.name}: damaged in place" in err
    assert child.read_bytes() == good
    code, report = check_json(str(out), "--base-url", BASE)
    assert code == 0 and codes(report) == {}
    if mode:  # --update cannot trust a damaged shard it must read: it says so, publishes nothing
        child.write_bytes(bytes(damaged))
        more = tmp_path / "more.txt"
        more.write_text("".join(f"{BASE}p{i}x\n" for i in range(1, 20)))  # beside p1
        more_args = [*args[:1], str(more), *args[2:]]
        code, _, err = urlset(*more_args, "--update")
        assert code == 2 and "damaged" in err and "without --update" in err, err


FULL_DISK = """
import resource, signal, sys
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails as on a full disk
resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
sys.argv = ["urlset", *sys.argv[1:]]
from urlset.cli import main
main()
"""


@pytest.mark.parametrize("mode", [[], ["--stable"]])
def test_a_write_that_fails_names_the_file(tmp_path: Path, mode: list[str]) -> None:
    """No room for a file of the build (its shards, the stable build's spill files): the
    message names the path, exit status 2, nothing published, never a traceback."""
    import subprocess
    import sys

    import urlset

    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{BASE}some/long/path/p{i}\n" for i in range(100_000)))
    out = tmp_path / "out"
    env = {"PYTHONPATH": str(Path(urlset.__file__).parents[1]), "PATH": "/usr/bin:/bin"}
    args = [sys.executable, "-c", FULL_DISK, "build", str(source), "--base-url", BASE]
    done = subprocess.run(
        [*args, "--out", str(out), *mode], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert f"{out}/.urlset-staging-" in done.stderr and "nothing was published" in done.stderr
    assert not any(p.name.startswith("sitemap") for p in out.iterdir())


def test_out_of_scope_lines_are_reported_with_their_source_and_line(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text(f"{BASE}a\nhttps://other.org/b\n{BASE}c\n")
    log = tmp_path / "report.jsonl"
    args = ["build", str(source), "--base-url", BASE, "--out", str(tmp_path / "o")]
    code, _, err = urlset(*args, "--skip-out-of-scope", "--report", str(log))
    assert code == 0, err
    (problem,) = [json.loads(line) for line in log.read_text().splitlines()]
    assert (problem["source"], problem["line"], problem["code"]) == (str(source), 2, "out-of-scope")
    assert f"{source}:2: https://other.org/b" in err
    code, _, err = urlset(*args)
    assert code == 1 and f"({source}:2)" in err


# ------------------------------------------------------------------ the round trip

SITEMAP_DIR = "https://static.acme-shop.com/maps/"


def every_extension(today: str) -> list[Url]:
    """Pages with every extension (hreflang reciprocal, news of today: nothing check warns
    about), plain pages between them, lastmods of each precision check takes without a word."""
    from urlset.extensions import Alternate, Image, News, Video

    urls = []
    for i in range(60):
        loc = f"{BASE}p/{i}"
        other = f"{BASE}p/{i ^ 1}"
        extensions: list[Any] = []
        if i % 3 == 0:
            extensions += [Image(f"{BASE}img/{i}-{n}.jpg") for n in range(3)]
        if i % 4 == 0:
            extensions.append(
                Video(f"{BASE}t/{i}.jpg", f"Video {i} & more", "A <b>d</b>", f"{BASE}v/{i}.mp4")
            )
        if i % 5 == 0:
            extensions.append(News("Acme Daily", "en", today, f"Story {i}"))
        if i < 20:  # pairs of variants, each listing both
            first, second = (loc, other) if i % 2 == 0 else (other, loc)
            extensions += [Alternate("en", first), Alternate("de", second)]
        lastmod = ["2024-05-06", "2024-05-06T07:08:09+02:00", None][i % 3]
        urls.append(Url(loc, lastmod, extensions=tuple(extensions)))
    return urls


def as_jsonl(urls: list[Url]) -> str:
    from urlset.dates import format_w3c
    from urlset.extensions import json_fields

    lines = []
    for url in urls:
        line: dict[str, Any] = {"loc": url.loc, **json_fields(url.extensions)}
        if url.lastmod is not None:
            line["lastmod"] = format_w3c(url.lastmod)
        lines.append(json.dumps(line))
    return "\n".join(lines) + "\n"


OPTIONS = {
    "gzip": [],
    "no-gzip": ["--no-gzip"],
    "text": ["--format", "text"],
    "stylesheet": ["--stylesheet"],
    "sitemap-url": ["--sitemap-url", SITEMAP_DIR],
    "stable": ["--stable"],
    "stable-no-gzip-stylesheet": ["--stable", "--no-gzip", "--stylesheet"],
    "dask": ["--dask", "local"],
    "sections": ["--section-by", "path:1"],
    "stable-sections": ["--stable", "--section-by", "path:1"],
    "named-sections": ["--section", "shop=/p/**", "--news-window", "2d"],
}


@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_what_build_publishes_check_accepts_the_schemas_validate_and_read_gives_back(
    tmp_path: Path, name: str, official: dict[str, etree.XMLSchema] | None
) -> None:
    options = OPTIONS[name]
    urls = every_extension(datetime.now(UTC).date().isoformat())
    source = tmp_path / ("in.csv" if name == "dask" else "in.jsonl")
    if name == "dask":  # the Dask build reads the core columns only
        pytest.importorskip("distributed")
        urls = [Url(u.loc, u.lastmod) for u in urls]
        from urlset.dates import format_w3c

        rows = [f"{u.loc},{'' if u.lastmod is None else format_w3c(u.lastmod)}\n" for u in urls]
        source.write_text("loc,lastmod\n" + "".join(rows))
    else:
        source.write_text(as_jsonl(urls))
    out = tmp_path / "out"
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(out), "--max-urls", "25", *options
    )
    assert code == 0, err
    assert "warning" not in err and "error" not in err, err
    served = ["--sitemap-url", SITEMAP_DIR] if "--sitemap-url" in options else []
    # check: the directory, and each file alone, clean
    code, report = check_json(str(out), "--base-url", BASE, *served)
    assert code == 0 and codes(report) == {}, report
    files = published(out)
    assert len(files) > 2
    for path in files:
        code, report = check_json(str(path), "--base-url", BASE, *served)
        # alone, a file cannot show the return links other files hold: an info, no more
        assert code == 0, (path.name, report)
        assert set(codes(report).items()) <= {("hreflang-unverified", "info")}, path.name
    # the official schemas
    if "text" not in name and official is not None:
        for path in files:
            document = etree.fromstring(load(path))
            schema = official[etree.QName(document).localname]
            assert schema.validate(document), (path.name, schema.error_log)
    # read gives back what went in
    if "text" in name:
        assert [u.loc for u in read_back(out)] == sorted(u.loc for u in urls)
    else:
        assert read_back(out) == sorted(urls)
    # diff finds no change: the set against itself, and against the same input built again
    again = tmp_path / "again"
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(again), "--max-urls", "25", *options
    )
    assert code == 0, err
    for other in (out, again):
        code, stdout, err = urlset("diff", str(out), str(other))
        assert code == 0, (other.name, stdout, err)


def test_a_set_served_elsewhere_checks_clean_over_http_through_the_robots_txt_listing_it(
    tmp_path: Path,
) -> None:
    """`check SITE` of a set built with --sitemap-url: the site's robots.txt lists the set's
    index on the other host, which vouches for the site's URLs (cross-submission, the rule
    `robots --check` applies); the index fetched alone has no such voucher."""
    from test_fetch_support import LoopbackServer

    with LoopbackServer() as server:
        site = server.base + "/"
        elsewhere = f"http://localhost:{server.port}/big/"
        source = tmp_path / "urls.txt"
        source.write_text("".join(f"{site}p{i}\n" for i in range(30)))
        out = tmp_path / "out"
        code, stdout, err = urlset(
            "build", str(source), "--base-url", site, "--sitemap-url", elsewhere,
            "--out", str(out), "--max-urls", "10", "--no-gzip",
        )  # fmt: skip
        assert code == 0, err
        for path in published(out):
            server.add(f"/big/{path.name}", path.read_bytes())
        listing = [line for line in stdout.splitlines() if line.startswith("Sitemap: ")]
        server.add(
            "/robots.txt", ("User-agent: *\n" + "\n".join(listing) + "\n").encode(), "text/plain"
        )
        code, report = check_json(site)
        assert "url-not-allowed" not in codes(report), report
        assert report["summary"]["files"] == 4 and code == 0, report
        code, report = check_json(elsewhere + "sitemap.xml")
        assert codes(report).get("url-not-allowed") == "error"


@pytest.mark.parametrize(
    ("every", "max_urls"), [(1, 50_000), (3, 50_000), (1, 700), (7, 2_500), (2, 1_000)]
)
def test_news_files_fill_greedily_in_order(tmp_path: Path, every: int, max_urls: int) -> None:
    """Rows with a news article (every ``every``-th) split as the rule says, run by run in
    the core (``news_fit``): a file is closed only when the next row would pass its 1,000
    news entries or its URL limit, and every row comes back, in order."""
    day = datetime.now(UTC).date().isoformat()
    news = {"publication_name": "P", "language": "en", "publication_date": day, "title": "T"}
    rows = [
        {"loc": f"{BASE}r{i}", **({"news": news} if i % every == 0 else {})} for i in range(4_200)
    ]
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    out = tmp_path / "out"
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--out", str(out), "--max-urls", str(max_urls)
    )
    assert code == 0, err
    files = [[u for u in read_file(p) if isinstance(u, Url)] for p in published(out)]
    files = [f for f in files if f]  # (the index lists no Url)
    assert [u.loc for f in files for u in f] == [row["loc"] for row in rows]
    counts = [(len(f), sum(1 for u in f if u.extensions)) for f in files]
    for (urls, articles), following in zip(counts, files[1:], strict=False):
        next_has_news = bool(following[0].extensions)
        assert articles <= 1000
        assert urls == max_urls or (articles == 1000 and next_has_news), counts

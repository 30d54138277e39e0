"""Building sitemap sets: limits, escaping, indexes, gzip, publishing, and the command."""

from __future__ import annotations

import gzip
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

import urlset.writing.checked
import urlset.writing.dedupe
from helpers import NS, entries, load, locs, parse, unhashed
from urlset import SITEMAPS_2008, InvalidValue, LimitExceeded, Url
from urlset.cli import main
from urlset.errors import PublishError
from urlset.model import url_keeping_loc
from urlset.writing.build import write_sitemaps
from urlset.writing.dedupe import SeenLocs
from urlset.writing.document import SitemapDocument, url_element, urlset_header
from urlset.writing.files import FileSink

BASE = "https://www.example.com/"


@pytest.fixture(scope="module")
def schemas(shared: Path) -> dict[str, etree.XMLSchema]:
    return {
        "urlset": etree.XMLSchema(etree.parse(str(shared / "xsd" / "sitemap.xsd"))),
        "sitemapindex": etree.XMLSchema(etree.parse(str(shared / "xsd" / "siteindex.xsd"))),
    }


def assert_valid(out: Path, schemas: dict[str, etree.XMLSchema]) -> None:
    """Every XML file in ``out`` validates against the official schema for its root."""
    checked = 0
    for path in out.iterdir():
        if ".xml" not in path.name:
            continue
        doc = parse(path)
        schema = schemas[etree.QName(doc).localname]
        assert schema.validate(etree.ElementTree(doc)), f"{path.name}: {schema.error_log}"
        checked += 1
    assert checked


def numbered(n: int, **fields: object) -> list[Url]:
    return [Url(f"{BASE}item/{i}", **fields) for i in range(n)]  # type: ignore[arg-type]


def test_50000_urls_make_one_file_and_50001_make_an_index(tmp_path: Path) -> None:
    report = write_sitemaps(numbered(50_000), tmp_path / "a", BASE, gzip=False)
    assert [f.name for f in report.files] == ["sitemap.xml"] and not report.indexes
    assert len(locs(tmp_path / "a" / "sitemap.xml")) == 50_000

    report = write_sitemaps(numbered(50_001), tmp_path / "b", BASE, gzip=False)
    assert [(unhashed(tmp_path / "b", f.name), f.entries) for f in report.files] == [
        ("sitemap-1.xml", 50_000),
        ("sitemap-2.xml", 1),
    ]
    assert [f.name for f in report.indexes] == ["sitemap.xml"]
    assert locs(tmp_path / "b" / "sitemap.xml") == [BASE + f.name for f in report.files]
    assert report.entry_points == [BASE + "sitemap.xml"]


def test_byte_limit_is_exact(tmp_path: Path) -> None:
    urls = numbered(10)
    size = (
        len(urlset_header().encode()) + sum(len(url_element(u)) for u in urls) + len("</urlset>\n")
    )
    report = write_sitemaps(
        urls, tmp_path / "exact", BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_bytes=size)
    )
    assert len(report.files) == 1
    assert (tmp_path / "exact" / "sitemap.xml").stat().st_size == size == report.files[0].bytes

    report = write_sitemaps(
        urls, tmp_path / "over", BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_bytes=size - 1)
    )
    assert [f.entries for f in report.files] == [9, 1]
    for f in report.files:
        assert (tmp_path / "over" / f.name).stat().st_size == f.bytes <= size - 1


def test_byte_limit_counts_multibyte_characters(tmp_path: Path) -> None:
    """Bytes, not characters: a raw extension with non-ASCII text counts its UTF-8 length."""
    from urlset import RawElement

    ext = RawElement("urn:x", "note", '<x:note xmlns:x="urn:x">' + "é" * 100 + "</x:note>")
    urls = [Url(f"{BASE}{i}", extensions=(ext,)) for i in range(20)]
    limit = 1500
    report = write_sitemaps(
        urls, tmp_path, BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_bytes=limit)
    )
    assert len(report.files) > 1
    for f in report.files:
        assert (tmp_path / f.name).stat().st_size == f.bytes <= limit


def test_an_entry_that_can_never_fit_is_a_limit_error(tmp_path: Path) -> None:
    with pytest.raises(LimitExceeded, match="cannot fit"):
        write_sitemaps(
            [Url(BASE + "x" * 600)], tmp_path, BASE, limits=SITEMAPS_2008.lowered(max_bytes=600)
        )
    assert not any(p.name.startswith("sitemap") for p in tmp_path.iterdir())


def test_2008_profile_lists_1000_sitemaps_per_index(tmp_path: Path) -> None:
    report = write_sitemaps(
        numbered(1001), tmp_path, BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_urls=1)
    )
    assert len(report.files) == 1001
    assert [(i.name, i.entries) for i in report.indexes] == [
        ("sitemap-index-1.xml", 1000),
        ("sitemap-index-2.xml", 1),
    ]
    assert report.entry_points == [BASE + "sitemap-index-1.xml", BASE + "sitemap-index-2.xml"]
    assert len(locs(tmp_path / "sitemap-index-1.xml")) == 1000


def test_lower_limits_are_allowed_but_not_higher() -> None:
    assert SITEMAPS_2008.lowered(max_urls=10).max_urls == 10
    with pytest.raises(InvalidValue):
        SITEMAPS_2008.lowered(max_urls=50_001)
    with pytest.raises(InvalidValue):
        SITEMAPS_2008.lowered(max_bytes=SITEMAPS_2008.max_bytes + 1)


HOSTILE = [
    "https://www.example.com/search?q=a&b=<c>&d=\"e\"&f='g'",
    "https://www.example.com/tom&jerry's",
    "https://www.example.com/ünïcödé/päth?q=ß",
    "https://www.example.com/already%20escaped%2Fpath",
    "https://www.example.com/100%-off",
]


def test_hostile_values_are_escaped_and_valid(
    tmp_path: Path, schemas: dict[str, etree.XMLSchema]
) -> None:
    urls = [Url(u) for u in HOSTILE]
    write_sitemaps(urls, tmp_path, BASE, gzip=False)
    text = (tmp_path / "sitemap.xml").read_text("utf-8")
    assert "&amp;b=%3Cc%3E&amp;d=%22e%22&amp;f=&apos;g&apos;" in text
    assert "tom&amp;jerry&apos;s" in text
    assert "/%C3%BCn%C3%AFc%C3%B6d%C3%A9/p%C3%A4th?q=%C3%9F" in text
    assert "already%20escaped%2Fpath" in text and "100%25-off" in text
    assert locs(tmp_path / "sitemap.xml") == [u.loc for u in urls]
    assert_valid(tmp_path, schemas)


def test_idn_host_is_written_as_punycode(
    tmp_path: Path, schemas: dict[str, etree.XMLSchema]
) -> None:
    base = "https://bücher.example/"
    write_sitemaps([Url("https://bücher.example/straße")], tmp_path, base)
    assert locs(tmp_path / "sitemap.xml.gz") == ["https://xn--bcher-kva.example/stra%C3%9Fe"]
    assert_valid(tmp_path, schemas)


def test_written_sets_validate_against_the_official_schemas(
    tmp_path: Path, schemas: dict[str, etree.XMLSchema]
) -> None:
    urls = [
        Url(
            f"{BASE}p/{i}",
            date(2024, 1, 1 + i % 28),
            ["daily", "weekly", None][i % 3],
            [0.0, 0.85, 1, None][i % 4],
        )
        for i in range(250)
    ]
    write_sitemaps(
        urls,
        tmp_path,
        BASE,
        limits=SITEMAPS_2008.lowered(max_urls=100),
        xsl="/style.xsl?a=1&b=2",
        schema_location=True,
    )
    assert_valid(tmp_path, schemas)
    text = load(tmp_path / "sitemap.xml.gz").decode()
    assert '<?xml-stylesheet type="text/xsl" href="/style.xsl?a=1&amp;b=2"?>' in text
    assert "xsi:schemaLocation" in text


def test_index_lastmod_is_the_newest_of_each_file_never_the_build_time(tmp_path: Path) -> None:
    utc = UTC
    urls = [
        Url(BASE + "a", datetime(2023, 1, 1, 12, tzinfo=utc)),
        Url(BASE + "b", datetime(2023, 6, 1, 8, tzinfo=timezone(timedelta(hours=2)))),
        Url(BASE + "c", date(2022, 1, 1)),
        Url(BASE + "d"),
        Url(BASE + "e"),
        Url(BASE + "f", date(2021, 3, 4)),
    ]
    report = write_sitemaps(
        urls, tmp_path, BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_urls=2)
    )
    index = parse(tmp_path / "sitemap.xml")
    found = [
        (s.findtext(f"{NS}loc"), s.findtext(f"{NS}lastmod")) for s in index.iter(f"{NS}sitemap")
    ]
    assert [loc for loc, _ in found] == [BASE + f.name for f in report.files]
    assert [(unhashed(tmp_path, loc.removeprefix(BASE)), lastmod) for loc, lastmod in found] == [
        ("sitemap-1.xml", "2023-06-01T08:00:00+02:00"),
        ("sitemap-2.xml", "2022-01-01"),
        ("sitemap-3.xml", "2021-03-04"),
    ]
    report = write_sitemaps(
        urls[3:5], tmp_path / "none", BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_urls=1)
    )
    assert "lastmod" not in (tmp_path / "none" / "sitemap.xml").read_text()
    assert all(f.lastmod is None for f in report.files)


def test_gzip_is_standard_and_deterministic(tmp_path: Path) -> None:
    urls = numbered(3000, lastmod="2024-02-03", changefreq="daily", priority=0.5)
    write_sitemaps(urls, tmp_path / "one", BASE, limits=SITEMAPS_2008.lowered(max_urls=1000))
    time.sleep(1.1)  # a gzip mtime or index build time would now differ
    write_sitemaps(urls, tmp_path / "two", BASE, limits=SITEMAPS_2008.lowered(max_urls=1000))
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert [unhashed(tmp_path / "one", name) for name in names] == [
        "sitemap-1.xml.gz",
        "sitemap-2.xml.gz",
        "sitemap-3.xml.gz",
        "sitemap.xml.gz",
    ]
    assert sorted(p.name for p in (tmp_path / "two").iterdir()) == names  # the same names
    for name in names:
        first = (tmp_path / "one" / name).read_bytes()
        assert first == (tmp_path / "two" / name).read_bytes()
        assert gzip.decompress(first).startswith(
            b"<?xml"
        )  # the stdlib reads it, CRC and size checked
    result = subprocess.run(["gzip", "-t", str(tmp_path / "one" / names[0])], capture_output=True)
    assert result.returncode == 0, result.stderr


def test_duplicates_are_dropped_and_counted(tmp_path: Path) -> None:
    urls = [
        Url(BASE + "a"),
        Url(BASE + "b"),
        Url("https://WWW.example.com/a"),
        Url(BASE + "a#frag"),
        Url(BASE + "c"),
    ]
    report = write_sitemaps(urls * 2, tmp_path, BASE, gzip=False)
    assert report.duplicates == 7 and report.urls == 3
    assert locs(tmp_path / "sitemap.xml") == [BASE + "a", BASE + "b", BASE + "c"]


def test_seen_locs_is_exact_across_many_batches() -> None:
    seen = SeenLocs()
    for start in range(0, 100_000, 5_000):
        batch = [f"u{i}" for i in range(start, start + 5_000)] + [f"u{start}", f"u{start // 2}"]
        flags = seen.first_seen(batch)
        assert flags[:5_000] == [True] * 5_000
        assert flags[5_000:] == [False, False]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 60), max_size=40), max_size=12))
def test_seen_locs_agrees_with_a_set(batches: list[list[int]]) -> None:
    """Batches with and without repeats inside them, locs new and seen before."""
    seen = SeenLocs()
    for batch, expected in first_seen_by_a_set(batches):
        assert seen.first_seen(batch) == expected


def first_seen_by_a_set(batches: list[list[int]]) -> Iterator[tuple[list[str], list[bool]]]:
    """Each batch's locs and, for each, whether a set has not seen it before."""
    reference: set[str] = set()
    for batch in batches:
        names = [f"https://a.example/{i}" for i in batch]
        expected = []
        for name in names:
            expected.append(name not in reference)
            reference.add(name)
        yield names, expected


def test_out_of_scope_urls_fail_by_default_or_are_skipped(tmp_path: Path) -> None:
    base = "https://www.example.com/blog/"
    urls = [
        Url(base + "ok"),
        Url("https://example.com/blog/x"),
        Url("https://www.example.com/shop/y"),
    ]
    with pytest.raises(InvalidValue, match=r"www\. variant"):
        write_sitemaps(urls, tmp_path, base)
    assert not (tmp_path / "sitemap.xml.gz").exists()
    report = write_sitemaps(urls, tmp_path, base, skip_out_of_scope=True)
    assert report.urls == 1 and report.rejected == {"out-of-scope": 2}
    assert any("directory /blog/" in e for e in report.examples)


def test_base_url_must_be_a_directory(tmp_path: Path) -> None:
    with pytest.raises(InvalidValue, match="names a file"):
        write_sitemaps([Url(BASE)], tmp_path, BASE + "sitemap.xml")


def test_bad_mappings_are_skipped_and_reported_or_fail_under_strict(tmp_path: Path) -> None:
    rows = [
        {"loc": BASE + "a"},
        {"loc": "not a url"},
        {"loc": BASE + "b", "priority": 7},
        {"loc": BASE + "c", "lastmod": "2024-01-01"},
    ]
    report = write_sitemaps(rows, tmp_path, BASE)
    assert report.urls == 3 and report.rejected == {"invalid-loc": 1}
    assert report.kept_without == {"invalid-priority": 1}
    with pytest.raises(InvalidValue):
        write_sitemaps(rows, tmp_path / "strict", BASE, strict=True)
    assert not (tmp_path / "strict" / "sitemap.xml.gz").exists()


def test_text_sitemaps(tmp_path: Path) -> None:
    report = write_sitemaps(
        [*numbered(5), Url(BASE + "q?a=1&b=2")], tmp_path, BASE, text=True, gzip=False
    )
    assert report.files[0].name == "sitemap.txt"
    lines = (tmp_path / "sitemap.txt").read_text().splitlines()
    assert lines == [f"{BASE}item/{i}" for i in range(5)] + [
        BASE + "q?a=1&b=2"
    ]  # text is not XML-escaped
    report = write_sitemaps(
        numbered(5), tmp_path / "split", BASE, text=True, limits=SITEMAPS_2008.lowered(max_urls=2)
    )
    assert [unhashed(tmp_path / "split", f.name) for f in report.files] == [
        "sitemap-1.txt.gz",
        "sitemap-2.txt.gz",
        "sitemap-3.txt.gz",
    ]
    assert locs(tmp_path / "split" / "sitemap.xml.gz")[0] == BASE + report.files[0].name


def test_rebuild_removes_only_stale_files_of_our_own(tmp_path: Path) -> None:
    first = write_sitemaps(numbered(5), tmp_path, BASE, limits=SITEMAPS_2008.lowered(max_urls=1))
    old = [f.name for f in first.files]
    assert [unhashed(tmp_path, name) for name in old] == [
        f"sitemap-{i}.xml.gz" for i in range(1, 6)
    ]
    (tmp_path / "robots.txt").write_text("User-agent: *\n")
    (tmp_path / "sitemap-news.xml").write_text("<not ours/>")
    report = write_sitemaps(numbered(2), tmp_path, BASE, limits=SITEMAPS_2008.lowered(max_urls=1))
    assert report.removed == old[2:]  # sitemap-3, -4 and -5
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "robots.txt",
        *old[:2],  # sitemap-1 and -2: the same content, so the same names
        "sitemap-news.xml",
        "sitemap.xml.gz",
    ]


def test_a_failing_source_publishes_nothing_and_keeps_the_old_set(tmp_path: Path) -> None:
    write_sitemaps(numbered(3), tmp_path, BASE)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}

    def broken():  # type: ignore[no-untyped-def]
        yield Url(BASE + "new")
        raise OSError("disk went away")

    with pytest.raises(OSError, match="disk went away"):
        write_sitemaps(broken(), tmp_path, BASE)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


KILL_SCRIPT = """
import sys
import tempfile
from urlset import Url
from urlset.writing.build import write_sitemaps
from urlset.limits import CURRENT
n, out, tag = int(sys.argv[1]), sys.argv[2], sys.argv[3]
urls = (Url(f"https://www.example.com/{tag}/{i}", "2024-01-01") for i in range(n))
write_sitemaps(urls, out, "https://www.example.com/", limits=CURRENT.lowered(max_urls=2000))
print("done", flush=True)
"""


def _assert_complete_set(out: Path) -> set[str]:
    """The published set is whole: the entry point parses, every listed child exists and parses."""
    entry = out / "sitemap.xml.gz"
    root = parse(entry)
    children = (
        [loc.rsplit("/", 1)[1] for loc in locs(entry)] if root.tag == f"{NS}sitemapindex" else []
    )
    tags = set()
    for name in children:
        child_locs = locs(out / name)
        assert child_locs, name
        tags.update(loc.split("/")[3] for loc in child_locs)
    return tags


@pytest.mark.parametrize("delay", [0.3, 0.8, 1.5])
def test_a_killed_build_leaves_the_previous_set_complete(tmp_path: Path, delay: float) -> None:
    script = tmp_path / "kill_me.py"
    script.write_text(KILL_SCRIPT)
    out = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, str(script), "20000", str(out), "old"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.stdout.strip() == "done", done.stderr
    assert _assert_complete_set(out) == {"old"}
    proc = subprocess.Popen(
        [sys.executable, str(script), "400000", str(out), "new"], stdout=subprocess.DEVNULL
    )
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    # whatever moment it died at, the set served is complete (old, or old children being replaced)
    assert _assert_complete_set(out) <= {"old", "new"}
    # and the next build cleans up the killed build's staging directory
    again = subprocess.run(
        [sys.executable, str(script), "3000", str(out), "next"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert again.returncode == 0, again.stderr
    assert _assert_complete_set(out) == {"next"}
    assert not [p for p in out.iterdir() if p.name.startswith(".")]
    assert len(list(out.iterdir())) == 3


# --- the property: whatever valid entries go in, the files give them back ---------------------

_segment = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=0, max_size=12
)
_lastmods = st.one_of(
    st.none(),
    st.dates(min_value=date(1995, 1, 1), max_value=date(2099, 12, 31)),
    st.datetimes(
        min_value=datetime(1995, 1, 1),
        max_value=datetime(2099, 12, 31),
        timezones=st.sampled_from(
            [UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=8))]
        ),
    ),
)
_AFTER_ALL = datetime(2100, 1, 2, tzinfo=UTC)
_urls = st.builds(
    lambda path, query, lastmod, cf, pr: Url(
        f"{BASE}{path}" + (f"?q={query}" if query else ""), lastmod, cf, pr
    ),
    _segment,
    _segment,
    _lastmods,
    st.one_of(
        st.none(),
        st.sampled_from(["always", "hourly", "daily", "weekly", "monthly", "yearly", "never"]),
    ),
    st.one_of(st.none(), st.integers(0, 10).map(lambda i: i / 10), st.sampled_from([0.25, 0.85])),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_urls, max_size=40), st.integers(1, 7))
def test_written_files_give_back_what_went_in(
    tmp_path_factory: pytest.TempPathFactory, urls: list[Url], per_file: int
) -> None:
    out = tmp_path_factory.mktemp("prop")
    seen: dict[str, Url] = {}  # the first entry of each loc is written, later ones are duplicates
    for u in urls:
        seen.setdefault(u.loc, u)
    expected = list(seen.values())
    if not expected:
        with pytest.raises(LimitExceeded):
            write_sitemaps(urls, out, BASE, gzip=False)
        return
    report = write_sitemaps(
        urls,
        out,
        BASE,
        gzip=False,
        limits=SITEMAPS_2008.lowered(max_urls=per_file),
        now=_AFTER_ALL,  # no generated lastmod is in the future (those are left out)
    )
    got: list[Url] = []
    for f in report.files:
        for e in entries(out / f.name):
            got.append(Url(e["loc"], e.get("lastmod"), e.get("changefreq"), e.get("priority")))
    assert got == expected


# rows as users pass them: strings from files, date objects, the same instant spelt in two
# zones, values that need normalising or are invalid, duplicates (clean values are drawn
# more often, so that many batches take the column path)
def _mostly(clean: list[object], odd: list[object]) -> st.SearchStrategy[object]:
    return st.one_of(st.sampled_from(clean), st.sampled_from(clean), st.sampled_from(odd))


_row_locs = _mostly(
    [BASE + path for path in ["a", "b", "a&b", "it's", "caf%C3%A9", "caf%c3%a9", "c?x=1&y=2"]],
    [BASE + "%2e/x", BASE + "sp ace", BASE + "ü", "https://other.example/x", "not a url"],
)
_row_lastmods = _mostly(
    [
        None,
        "2024-01-02",
        "2024-01-02T03:04:05Z",
        "2024-01-02T03:04:05+00:00",
        "2024-01-02T05:04:05+02:00",
        "2023-12-31T23:59:59-08:00",
        date(2024, 1, 3),
    ],
    [datetime(2024, 1, 2, 3, 4, 5, tzinfo=UTC), "2024-13-01", "soon", "2024-01-02T03:04"],
)
_row_changefreqs = _mostly([None, "daily", "never"], ["Daily", " weekly ", "sometimes"])
_row_priorities = _mostly([None, "0.5", 0.5, 1.0, "1"], [" 0.25 ", "high", 1.5, True, 1])
_rows = st.tuples(_row_locs, _row_lastmods, _row_changefreqs, _row_priorities)


def _url_or_none(row: tuple[object, ...]) -> Url | None:
    """The Url a build writes for a row: without a bad optional value, none for a bad loc."""
    try:
        return url_keeping_loc(row)[0]
    except InvalidValue:
        return None


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_rows, max_size=30), st.integers(1, 8), st.booleans())
def test_rows_are_written_exactly_as_their_urls(
    tmp_path_factory: pytest.TempPathFactory,
    rows: list[tuple[object, ...]],
    batch: int,
    text: bool,
) -> None:
    """Rows take the column-at-a-time path (checked and rendered without Url values) when a
    batch is clean, the per-entry path otherwise; both must write the same bytes as the
    Url values of those rows, with the same report."""
    urls = [u for u in map(_url_or_none, rows) if u is not None]
    in_scope = [u for u in urls if u.loc.startswith(BASE)]
    if not in_scope:
        return
    out_rows, out_urls = tmp_path_factory.mktemp("rows"), tmp_path_factory.mktemp("urls")
    options = {"gzip": False, "text": text, "skip_out_of_scope": True}
    options["limits"] = SITEMAPS_2008.lowered(max_urls=3)
    saved = urlset.writing.checked.BATCH
    urlset.writing.checked.BATCH = batch  # several batches, some clean and some not
    try:
        from_rows = write_sitemaps(rows, out_rows, BASE, **options)  # type: ignore[arg-type]
        from_urls = write_sitemaps(urls, out_urls, BASE, **options)  # type: ignore[arg-type]
    finally:
        urlset.writing.checked.BATCH = saved
    assert from_rows.urls == from_urls.urls and from_rows.duplicates == from_urls.duplicates
    assert sum(from_rows.rejected.values()) == len(rows) - len(in_scope)
    assert [f[1:] for f in from_rows.files] == [f[1:] for f in from_urls.files]
    for f in [*from_rows.files, *from_rows.indexes]:
        assert (out_rows / f.name).read_bytes() == (out_urls / f.name).read_bytes()


def test_document_writer_to_a_custom_sink() -> None:
    chunks: list[bytes] = []
    doc = SitemapDocument(chunks.append, max_urls=2, max_bytes=10_000)
    assert doc.add(numbered(3)) == 2
    stats = doc.close()
    assert stats.urls == 2 and stats.bytes == len(b"".join(chunks))


# --- the command ---------------------------------------------------------------------------------


def test_cli_build_reports_and_skips_bad_lines(tmp_path: Path) -> None:
    src = tmp_path / "urls.csv"
    src.write_text(
        "loc,lastmod,changefreq,priority\n"
        f"{BASE},2024-05-01,daily,1.0\n"
        "not a url,,,\n"
        f"{BASE}about,2024-13-01,,\n"
        f"{BASE}team,,often,\n"
        f"{BASE},,,\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(
        main, ["build", str(src), "--base-url", BASE, "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output
    assert "3 URLs" in result.output and "dropped 1 duplicate" in result.output
    assert f"{src}:3: loc 'not a url'" in result.output
    assert f"{src}:4: lastmod '2024-13-01'" in result.output
    assert f"{src}:5: changefreq 'often'" in result.output
    assert f"Sitemap: {BASE}sitemap.xml.gz" in result.output

    strict = CliRunner().invoke(
        main, ["build", str(src), "--base-url", BASE, "--out", str(tmp_path / "strict"), "--strict"]
    )
    assert strict.exit_code == 1 and "nothing was published" in strict.output
    assert not (tmp_path / "strict" / "sitemap.xml.gz").exists()


def test_cli_build_inputs_text_tsv_jsonl_stdin(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text(f"# comment\n{BASE}t1\n\n{BASE}t2\n")
    (tmp_path / "b.tsv").write_text(f"loc\tpriority\n{BASE}s1\t0.3\n")
    (tmp_path / "c.jsonl").write_text(
        json.dumps({"loc": BASE + "j1", "lastmod": "2024-01-01T00:00:00Z"}) + "\n{broken\n"
    )
    with gzip.open(tmp_path / "d.txt.gz", "wt") as fh:
        fh.write(f"{BASE}g1\n")
    args = [
        "build",
        *(str(tmp_path / n) for n in ("a.txt", "b.tsv", "c.jsonl", "d.txt.gz")),
        "-",
        "--base-url",
        BASE,
        "--out",
        str(tmp_path / "o"),
        "--no-gzip",
    ]
    result = CliRunner().invoke(main, args, input="")
    assert result.exit_code == 2 and "input format" in result.output  # '-' needs --input-format
    args[args.index("-")] = str(tmp_path / "a.txt")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "c.jsonl:2: not JSON" in result.output
    assert locs(tmp_path / "o" / "sitemap.xml") == [
        BASE + p for p in ("t1", "t2", "s1", "j1", "g1")
    ]
    piped = CliRunner().invoke(
        main,
        ["build", "-", "--input-format", "text", "--base-url", BASE, "--out", str(tmp_path / "p")],
        input=f"{BASE}x\n",
    )
    assert piped.exit_code == 0 and locs(tmp_path / "p" / "sitemap.xml.gz") == [BASE + "x"]


def test_cli_build_rejects_unknown_json_keys_and_says_why_nothing_was_written(
    tmp_path: Path,
) -> None:
    """A misspelt key would lose its value without a word: the line is rejected, and when
    every line is, the error gives the reasons and the lines."""
    src = tmp_path / "in.jsonl"
    lines = [{"loc": BASE + "a", "lastmdo": "2024-01-01"}, {"loc": BASE + "b", "lastmod": "2024"}]
    src.write_text("".join(json.dumps(line) + "\n" for line in lines))
    args = ["build", str(src), "--base-url", BASE, "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert f"{src}:1: unknown keys ['lastmdo']" in result.output
    assert "invalid-keys: 1" in result.output
    assert locs(tmp_path / "o" / "sitemap.xml.gz") == [BASE + "b"]

    src.write_text(json.dumps(lines[0]) + "\nnot json\n")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    first, *rest = result.output.splitlines()
    assert "every entry was left out (" in first and first.endswith("nothing was published")
    assert "invalid-keys: 1" in first and "unreadable-line: 1" in first
    assert [line.split(": ", 1)[0].strip() for line in rest] == [f"{src}:1", f"{src}:2"]
    assert locs(tmp_path / "o" / "sitemap.xml.gz") == [BASE + "b"]  # the earlier set stays


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["missing.txt"], 2, "cannot read"),
        (["urls.txt", "--base-url", "https://www.example.com/sitemap.xml"], 2, "names a file"),
        (["urls.txt", "--base-url", "https://other.example/"], 1, "--skip-out-of-scope"),
        (["urls.txt", "--max-urls", "60000"], 2, "max_urls"),
        (["urls.dat"], 2, "--input-format"),
        (["urls.txt", "--timezone", "Mars/Olympus"], 2, "not a time zone"),
        (["urls.txt", "--max-bytes", "600", "--profile", "sitemaps-0.9-2008"], 1, "cannot fit"),
    ],
)
def test_cli_build_errors_have_messages_and_statuses(
    tmp_path: Path, args: list[str], status: int, message: str
) -> None:
    (tmp_path / "urls.txt").write_text(BASE + "x" * 700 + "\n")
    (tmp_path / "urls.dat").write_text(BASE + "\n")
    full = [
        "build",
        *[str(tmp_path / a) if a.startswith("urls") or a == "missing.txt" else a for a in args],
    ]
    if "--base-url" not in full:
        full += ["--base-url", BASE]
    full += ["--out", str(tmp_path / "out")]
    result = CliRunner().invoke(main, full)
    assert result.exit_code == status, result.output
    assert message in result.output
    assert "Traceback" not in result.output


def test_cli_build_timezone_for_naive_times(tmp_path: Path) -> None:
    (tmp_path / "u.csv").write_text(f"loc,lastmod\n{BASE},2024-01-02T03:04:05\n")
    bad = CliRunner().invoke(
        main,
        [
            "build",
            str(tmp_path / "u.csv"),
            "--base-url",
            BASE,
            "--out",
            str(tmp_path / "a"),
            "--strict",
        ],
    )
    assert bad.exit_code == 1
    good = CliRunner().invoke(
        main,
        [
            "build",
            str(tmp_path / "u.csv"),
            "--base-url",
            BASE,
            "--out",
            str(tmp_path / "b"),
            "--timezone",
            "+02:00",
            "--no-gzip",
        ],
    )
    assert good.exit_code == 0, good.output
    assert entries(tmp_path / "b" / "sitemap.xml")[0]["lastmod"] == "2024-01-02T03:04:05+02:00"


def test_no_staging_leftovers_after_success(tmp_path: Path) -> None:
    write_sitemaps(numbered(3), tmp_path, BASE)
    assert sorted(os.listdir(tmp_path)) == ["sitemap.xml.gz"]


def test_a_killed_builds_staging_with_files_in_it_is_removed(tmp_path: Path) -> None:
    """The staging directory is made and removed without tempfile and shutil; one a killed
    build left, files and folders in it, still goes whole (shutil, loaded for it)."""
    from urlset.writing.files import STAGING_PREFIX, Publisher

    left = tmp_path / f"{STAGING_PREFIX}killed"
    (left / "deeper").mkdir(parents=True)
    (left / "sitemap-1.xml.gz").write_bytes(b"half")
    (left / "deeper" / ".seen-1").write_bytes(b"\0" * 8)
    with Publisher(tmp_path, re.compile("sitemap.*")) as publisher:
        assert not left.exists()
        assert publisher.staging.name.startswith(STAGING_PREFIX)
        assert publisher.staging.stat().st_mode & 0o777 == 0o700  # as mkdtemp made it
    write_sitemaps(numbered(3), tmp_path, BASE)
    assert sorted(os.listdir(tmp_path)) == ["sitemap.xml.gz"]


def test_equal_instants_in_other_zones_keep_their_own_zone(tmp_path: Path) -> None:
    utc, plus2 = timezone.utc, timezone(timedelta(hours=2))
    urls = [
        Url(BASE + "a", datetime(2024, 1, 2, 1, 4, 5, tzinfo=utc)),
        Url(BASE + "b", datetime(2024, 1, 2, 3, 4, 5, tzinfo=plus2)),
    ]
    write_sitemaps(urls, tmp_path, BASE, gzip=False)
    assert [e["lastmod"] for e in entries(tmp_path / "sitemap.xml")] == [
        "2024-01-02T01:04:05Z",
        "2024-01-02T03:04:05+02:00",
    ]


def test_dedupe_can_be_turned_off_for_inputs_known_unique(tmp_path: Path) -> None:
    report = write_sitemaps(
        [Url(BASE + "a"), Url(BASE + "a")], tmp_path, BASE, gzip=False, dedupe=False
    )
    assert report.urls == 2 and report.duplicates == 0
    result = CliRunner().invoke(
        main,
        [
            "build",
            "-",
            "--input-format",
            "text",
            "--no-dedupe",
            "--base-url",
            BASE,
            "--out",
            str(tmp_path / "cli"),
        ],
        input=f"{BASE}x\n{BASE}x\n",
    )
    assert result.exit_code == 0 and "2 URLs" in result.output


def test_cli_build_extensions_from_jsonl_and_hreflang_report(tmp_path: Path) -> None:
    rows = [
        {
            "loc": BASE + "en/",
            "alternates": [
                {"hreflang": "en", "href": BASE + "en/"},
                {"hreflang": "de", "href": BASE + "de/"},
            ],
            "images": [{"loc": BASE + "a.jpg", "title": "A & B"}],
        },
        {"loc": BASE + "de/", "alternates": [{"hreflang": "de", "href": BASE + "de/"}]},
    ]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(
        main,
        [
            "build",
            str(tmp_path / "in.jsonl"),
            "--base-url",
            BASE,
            "--out",
            str(tmp_path / "o"),
            "--no-gzip",
        ],
    )
    assert result.exit_code == 0, result.output
    assert f"{BASE}de/ lacks <xhtml:link hreflang='en' href='{BASE}en/'>" in result.output
    text = (tmp_path / "o" / "sitemap.xml").read_text()
    assert "<image:title>A &amp; B</image:title>" in text and 'hreflang="de"' in text
    rows[1]["alternates"].append({"hreflang": "en", "href": BASE + "en/"})  # type: ignore[attr-defined]
    (tmp_path / "in.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    result = CliRunner().invoke(
        main,
        [
            "build",
            str(tmp_path / "in.jsonl"),
            "--base-url",
            BASE,
            "--out",
            str(tmp_path / "o"),
            "--no-gzip",
        ],
    )
    assert "2 pages with alternates, all reciprocal" in result.output


def test_mappings_with_extension_fields(tmp_path: Path) -> None:
    rows = [
        {"loc": BASE + "p", "images": [{"loc": BASE + "i.png"}]},
        {"loc": BASE + "q", "images": [{"title": "no loc"}]},
    ]
    report = write_sitemaps(rows, tmp_path, BASE, gzip=False)
    # the image at fault is left out, not the page (as the reader leaves out only it)
    assert report.urls == 2 and not report.rejected
    assert report.kept_without == {"invalid-image": 1}
    assert "missing loc; the image is left out" in report.warnings[0]
    assert (
        "<image:loc>https://www.example.com/i.png</image:loc>"
        in (tmp_path / "sitemap.xml").read_text()
    )


@pytest.mark.parametrize("per_check", [2, 4096])
def test_table_sources_keep_every_line_number(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, per_check: int
) -> None:
    """A table of the core columns is read a batch of rows at a time; whatever the batch
    size, good rows come out in order and each bad one as an InputError with its line."""
    import urlset.writing.sources
    from urlset.errors import InputError
    from urlset.writing.sources import iter_entries, open_source

    monkeypatch.setattr(urlset.writing.sources, "_ROWS_PER_CHECK", per_check)
    src = tmp_path / "t.csv"
    src.write_bytes(
        b"priority,LOC,lastmod\n"  # columns in any order, changefreq absent
        + f"0.5,{BASE}a,2024-01-02\n".encode()
        + b"\n"  # blank: skipped
        + f"1.0,{BASE}b\n".encode()  # too few fields
        + f' ,"{BASE}c" , \n'.encode()  # blank cells are no value
        + f"0.3,{BASE}d".encode()
        + b"\xff,\n"  # invalid UTF-8
        + f'0.1,"{BASE}e",2024-01-03\n'.encode()
        + f"high,{BASE}f,\n".encode()  # invalid priority
        + f'0.2,"{BASE}g\nh",\n'.encode()  # a quoted line break: two lines, then rejected
        + f"0.9,{BASE}i,\n".encode()
    )
    with open_source(str(src)) as stream:
        got = [
            (e.line, e.field) if isinstance(e, InputError) else e.loc
            for e in iter_entries(stream, "csv", "t.csv")
        ]
    assert got == [
        BASE + "a",
        (4, "line"),
        BASE + "c",
        (6, "line"),
        BASE + "e",
        (8, "priority"),
        (10, "loc"),
        BASE + "i",
    ]


@pytest.mark.parametrize("per_check", [2, 3, 4096])
@pytest.mark.parametrize("fmt", ["csv", "text"])
def test_source_rows_checked_in_the_core_keep_every_problem_and_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, per_check: int, fmt: str
) -> None:
    """The build command passes a source's rows on unchecked (``SourceRows``) and the core
    checks them while rendering; a batch it refuses is checked row by row. Whatever the batch
    size, the files and every problem (code, line, message) are those of a build from the
    entries checked in Python first (``iter_entries``)."""
    from itertools import chain

    import urlset.writing.sources
    from urlset.writing.build import BuildProblem
    from urlset.writing.sources import iter_batches, iter_entries, open_source

    monkeypatch.setattr(urlset.writing.sources, "_ROWS_PER_CHECK", per_check)
    src = tmp_path / f"t.{fmt}"
    if fmt == "csv":
        lines = [b"loc,lastmod,priority"] + [
            f"{BASE}p{i}?a=1&b='{i}',2024-01-{i % 28 + 1:02},0.{i % 10}".encode() for i in range(12)
        ]
        lines[3] = f"{BASE}x,2024-13-01,0.5".encode()  # a bad lastmod: written without it
        lines[5] = f"{BASE}y,2024-01-01".encode()  # too few fields
        lines[8] = f"{BASE}z".encode() + b"\xff,,"  # not UTF-8
        lines[10] = b"mailto:someone@example.com,,"  # a bad loc: left out
    else:
        lines = [f"{BASE}t{i}/caf%C3%A9".encode() for i in range(12)]
        lines[2] = b"# a comment"
        lines[4] = f"{BASE}u".encode() + b"\xff"  # not UTF-8
        lines[7] = b"ftp://example.com/no"  # a bad loc
    src.write_bytes(b"\n".join(lines) + b"\n")
    built: list[tuple[list[BuildProblem], dict[str, bytes]]] = []
    for as_rows in (False, True):
        problems: list[BuildProblem] = []
        out = tmp_path / f"out-{as_rows}"
        with open_source(str(src)) as stream:
            entries = (
                chain.from_iterable(iter_batches(stream, fmt, src.name, rows=True))
                if as_rows
                else iter_entries(stream, fmt, src.name)
            )
            write_sitemaps(entries, out, BASE, on_problem=problems.append, gzip=False)
        built.append((problems, {p.name: p.read_bytes() for p in sorted(out.iterdir())}))
    assert built[1] == built[0]
    assert [p.line for p in built[0][0]] == ([4, 6, 9, 11] if fmt == "csv" else [5, 8])


def test_cli_build_from_csv_writes_what_the_url_path_writes(tmp_path: Path) -> None:
    """Clean CSV rows reach the build as rows (rendered without Url values); the files must
    be byte for byte those the same entries give as Url values, bad lines still reported."""
    good = [
        (f"{BASE}p/{i}?a=1&b={i}", f"2024-01-{1 + i % 28:02d}", "weekly", f"0.{i % 10}")
        for i in range(300)
    ]
    lines = ["loc,lastmod,changefreq,priority", *(",".join(row) for row in good)]
    lines.insert(100, f"{BASE}bad,2024-13-01,,")
    (tmp_path / "u.csv").write_text("\n".join(lines) + "\n")
    args = ["build", str(tmp_path / "u.csv"), "--base-url", BASE, "--out", str(tmp_path / "cli")]
    result = CliRunner().invoke(main, [*args, "--no-gzip"])
    assert result.exit_code == 0, result.output
    assert f"{tmp_path / 'u.csv'}:101: lastmod" in result.output
    kept = [*good[:99], (f"{BASE}bad", None, None, None), *good[99:]]  # written without lastmod
    write_sitemaps([Url(*row) for row in kept], tmp_path / "api", BASE, gzip=False)
    cli, api = sorted((tmp_path / "cli").iterdir()), sorted((tmp_path / "api").iterdir())
    assert [p.name for p in cli] == [p.name for p in api]
    assert [p.read_bytes() for p in cli] == [p.read_bytes() for p in api]


_json_values = st.sampled_from(
    [None, "", "2024-01-02", "2024-13-01", "daily", "Daily", "sometimes", "0.5", 0.5, 1, 0, True]
)
_json_lines = st.one_of(
    st.builds(
        lambda loc, lastmod, freq, prio: json.dumps(
            {"loc": loc, "lastmod": lastmod, "changefreq": freq, "priority": prio}
        ),
        st.sampled_from([BASE + "a", BASE + "b&c", BASE + "ü", "relative", ""]),
        _json_values,
        _json_values,
        _json_values,
    ),
    st.sampled_from(
        [
            json.dumps({"loc": BASE + "x"}),
            json.dumps({"lastmod": "2024-01-02"}),
            json.dumps({"loc": BASE + "y", "type": "url"}),
            json.dumps({"loc": BASE + "z", "other": 1}),
            "[1, 2]",
            "{broken",
            "",
        ]
    ),
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(_json_lines, max_size=12), st.integers(1, 5))
def test_json_lines_in_batches_read_as_line_by_line(
    monkeypatch: pytest.MonkeyPatch, lines: list[str], per_check: int
) -> None:
    """JSON Lines are parsed a batch at a time (objects of the core keys checked column by
    column, passed on as rows for the build); the result must be what reading each line on
    its own gives: the same Urls (or rows making them), the same errors on the same lines."""
    import io

    import urlset.writing.sources
    from urlset.errors import InputError
    from urlset.writing.source_rows import SourceRows
    from urlset.writing.sources import _json_lines, iter_batches, iter_entries

    monkeypatch.setattr(urlset.writing.sources, "_ROWS_PER_CHECK", per_check)
    text = "".join(line + "\n" for line in lines)

    def shown(entries: list[object]) -> list[object]:
        return [(e.line, e.field, e.reason) if isinstance(e, InputError) else e for e in entries]

    expected = shown(list(_json_lines(enumerate(io.StringIO(text), 1), "s", None)))
    assert shown(list(iter_entries(io.StringIO(text), "jsonl", "s"))) == expected
    as_rows = [
        entry
        for batch in iter_batches(io.StringIO(text), "jsonl", "s", rows=True)
        for e in batch
        for entry in (e.entries() if isinstance(e, SourceRows) else [e])
    ]
    assert shown(as_rows) == expected


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 400), max_size=90), max_size=30))
def test_seen_locs_sealed_to_disk_agrees_with_a_set(batches: list[list[int]]) -> None:
    """With runs sealed to files after a few dozen hashes, the answers stay those of a set."""
    with tempfile.TemporaryDirectory() as spill:
        seen = SeenLocs(Path(spill), seal_at=32)
        for batch, expected in first_seen_by_a_set(batches):
            assert seen.first_seen(batch) == expected
        seen.close()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
def test_seen_locs_that_cannot_spill_say_where_and_what_to_do(tmp_path: Path) -> None:
    """A full disk (/dev/full in place of the first spill file) is a PublishError that names
    the file and the way out."""
    (tmp_path / ".seen-1").symlink_to("/dev/full")
    seen = SeenLocs(tmp_path, seal_at=1_000)
    hashes = np.arange(1, 5_001, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    with pytest.raises(PublishError, match=r"\.seen-1: .*No space left on device.*--no-dedupe"):
        seen.first_seen_packed(hashes.tobytes())
    seen.close()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize("gzip", [False, True])
def test_a_full_disk_is_a_publish_error_naming_the_file(gzip: bool) -> None:
    """Every write error, from the writing thread or the compressor's, and whether it shows
    while writing, finishing or discarding, is one PublishError with the path and reason;
    discarding never raises (it had replaced the error with a bare "[Errno 28]")."""
    data = os.urandom(1 << 20)  # incompressible: the compressor writes as it goes
    for finish in (True, False):
        sink = FileSink(Path("/dev/full"), gzip=gzip)
        with pytest.raises(PublishError, match=r"^/dev/full: could not write \(No space left"):
            for _ in range(8 if finish else 500):  # the compressor's error shows on a later write
                sink(data)
                time.sleep(0 if finish else 0.01)
            sink.close()
        sink.discard()


@pytest.mark.parametrize("gzip", [False, True])
def test_a_file_that_cannot_be_made_is_a_publish_error_naming_it(
    tmp_path: Path, gzip: bool
) -> None:
    """The file is made on its own thread: a path that cannot be made (its directory gone)
    is the same PublishError, at the next write or at the close, never an error of the
    thread nor a file presented as written."""
    path = tmp_path / "gone" / "sitemap-1.xml"
    sink = FileSink(path, gzip=gzip)
    with pytest.raises(PublishError, match=r"sitemap-1\.xml: could not write \(No such file"):
        for _ in range(100):  # the error shows once the thread has tried
            sink(b"<url/>")
            time.sleep(0.01)
        sink.close()
    sink.discard()
    assert not path.exists()


def test_seen_locs_sealed_runs_tell_hashes_with_the_same_tag_apart(tmp_path: Path) -> None:
    """Hashes equal in their top 40 bits (bucket and tag) but not below are different locs:
    the sealed run reads the file to tell; equal hashes are duplicates, however many ask."""
    rng = np.random.default_rng(7)
    old = np.unique(rng.integers(0, 2**64 - 1, size=5_000, dtype=np.uint64))
    seen = SeenLocs(tmp_path, seal_at=1_000)

    def fresh(hashes: np.ndarray[Any, Any]) -> bytes:
        return seen.first_seen_packed(hashes.tobytes())

    assert 0 not in fresh(old)
    assert list(tmp_path.glob(".seen-*")), "runs were sealed to disk"
    twins = old ^ np.uint64(1)  # same bucket and tag, another hash
    assert 0 not in fresh(twins[:300])
    assert 1 not in fresh(old[:300])
    assert 1 not in fresh(old)
    assert 0 not in fresh(twins[300:])
    seen.close()
    assert not list(tmp_path.glob(".seen-*")), "closing removes the sealed runs"


@pytest.mark.parametrize("head", [0, 1, 5000])
def test_entry_batches_hold_few_source_rows_at_once(head: int) -> None:
    """A source's stream (its errors, then ``SourceRows`` of thousands of rows each) is read
    a few entries ahead only, so a long file is never held whole; every entry comes out once,
    in order, a ``SourceRows`` on its own."""
    from urlset.errors import InputError
    from urlset.writing.source_rows import PythonRows, SourceRows, entry_batches

    pulled = 0

    def stream() -> Iterator[object]:
        nonlocal pulled
        for i in range(head):
            pulled += 1
            yield InputError("s", i + 1, "bad")
        for i in range(200):
            pulled += 1
            rows = PythonRows([(f"{BASE}{i}", None, None, None)], [head + i + 1])
            yield SourceRows(rows, "s", None)

    seen: list[object] = []
    for batch, kinds in entry_batches(stream(), 8192):
        items = [batch] if type(batch) is SourceRows else batch
        assert kinds == set(map(type, items))
        seen += items
        assert pulled - len(seen) <= 16  # entries read ahead of the build
    assert [getattr(e, "line", None) or e.numbers[0] for e in seen] == list(range(1, head + 201))  # type: ignore[attr-defined]

"""The build's compiled core owns every row of every shape (bench/build_shapes.py: loc
spellings, every lastmod form, changefreq and priority in half the rows, extensions, the CMS
export's mix) through every build input format (csv, tsv, jsonl, text, gzipped or not;
Python rows, Url values, Arrow tables): ``BuildReport.left_core`` stays empty, and the set is
byte for byte what the per-entry way writes (the lane-equality property at the end).

The cells that still leave the core are strict xfails saying why; the enumeration is the
product SHAPES x FORMATS, less the cells a format cannot hold (a text source has locs only, a
table the four core columns)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime, timedelta
from itertools import chain
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import bench_module
from urlset import write_sitemaps
from urlset.writing.build import BuildReport
from urlset.writing.sources import iter_batches, open_source

NOW = datetime(2026, 1, 1, tzinfo=UTC)


SHAPES = bench_module("build_shapes")
# cells whose rows still go the per-entry way, and why
LEAVING: dict[str, str] = {}


def _given(fmt: str, rows: list[Any], tmp: Path, careful: bool = False) -> tuple[Any, Any]:
    """What a build of ``fmt`` is given, and what closes it; ``careful``: a source's lines
    read the per-entry way (``iter_entries``: each checked in Python, as a row the core
    refuses is)."""
    if fmt == "rows":
        return SHAPES.python_rows(rows), None
    if fmt == "urls":
        return SHAPES.url_values(rows), None
    if fmt == "arrow":
        return SHAPES.arrow_table(rows), None
    kind = fmt.removesuffix(".gz")
    path = tmp / f"in.{'txt' if kind == 'text' else kind}{'.gz' if fmt.endswith('.gz') else ''}"
    path.write_bytes(SHAPES.source_bytes(fmt, rows))
    stream = open_source(str(path)).__enter__()
    return chain.from_iterable(iter_batches(stream, kind, path.name, rows=not careful)), stream


def _build(
    shape: str, fmt: str, rows: list[Any], tmp: Path, careful: bool = False, **options: Any
) -> tuple[BuildReport, dict[str, bytes], list[str]]:
    """A build of ``rows`` given as ``fmt``; ``careful``: the per-entry way (a source's lines
    read one by one, Python's rows and tables sent there by a zone to apply)."""
    entries, stream = _given(fmt, rows, tmp, careful)
    if careful and fmt in ("rows", "urls", "arrow"):
        options["default_tz"] = UTC
    out = tmp / f"out-{len(list(tmp.iterdir()))}"
    problems: list[Any] = []
    try:
        report = write_sitemaps(
            entries,
            out,
            SHAPES.base(shape),
            gzip=False,
            now=NOW,
            on_problem=problems.append,
            **options,
        )
    finally:
        if stream is not None:
            stream.close()
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    return report, files, sorted(str(list(p)) for p in problems)


def _cells() -> list[Any]:
    cells = []
    for shape in SHAPES.SHAPES:
        for fmt in SHAPES.FORMATS:
            if SHAPES.applies(shape, fmt) is not None:
                continue
            marks = []
            if shape in LEAVING:
                marks.append(pytest.mark.xfail(strict=True, reason=LEAVING[shape]))
            cells.append(pytest.param(shape, fmt, id=f"{shape}-{fmt}", marks=marks))
    return cells


@pytest.mark.parametrize(("shape", "fmt"), _cells())
def test_every_row_of_every_shape_stays_in_the_core(tmp_path: Path, shape: str, fmt: str) -> None:
    rows = SHAPES.entries(shape, 300)
    report, files, _ = _build(shape, fmt, rows, tmp_path)
    assert report.urls == 300
    assert report.left_core == Counter()
    assert files


def test_the_matrix_is_every_shape_by_every_format() -> None:
    """What the matrix leaves out is only what a format cannot hold."""
    cells = {(p.values[0], p.values[1]) for p in _cells()}
    left_out = {
        (shape, fmt): SHAPES.applies(shape, fmt)
        for shape in SHAPES.SHAPES
        for fmt in SHAPES.FORMATS
        if (shape, fmt) not in cells
    }
    assert all(left_out.values())
    assert {fmt for _, fmt in left_out} <= {"text", "text.gz", "arrow"}
    assert len(cells) + len(left_out) == len(SHAPES.SHAPES) * len(SHAPES.FORMATS)


# the property's shapes: those the core writes (the base URL of idn and port is another)
_LANE_SHAPES = [s for s in SHAPES.SHAPES if s not in ("idn", "port", *LEAVING)]
# hreflang links beyond the matrix's shape, as sites spell them: codes in any case, with
# spaces around, scripts and numeric regions, x-default; hrefs the page itself or not, IRIs,
# & and '; the same code twice (naming the same href: as given; another: an error the build
# repairs by leaving the later link out, which only the per-entry way does)
_CODES = ("en", "EN-gb", " de ", "de-AT", "zh-hant-TW", "es-419", "x-default", "X-Default", "fil")
_HREFS = ("{loc}", "{host}de/{i}", "{host}dé/{i}", "{host}?a={i}&b='c'")
_links = st.lists(st.tuples(st.sampled_from(_CODES), st.sampled_from(_HREFS)), max_size=4)
# news beyond the matrix's shape: every optional field in the spellings Python takes (lists
# or comma texts, any case), titles with & and ', dates of every form, old ones (reported
# at the build's now), and more than one article on a page (reported)
_article = st.fixed_dictionaries(
    {
        "publication_name": st.sampled_from(["The Example Times", " A & B's News "]),
        "language": st.sampled_from(["en", "DE", "zh-cn", "fil"]),
        "publication_date": st.sampled_from(
            ["2025-12-31T10:00:00Z", "2025-12-31", "2025-12-30T23:00:00-05:00", "2024-05-06"]
        ),
        "title": st.sampled_from(["Article", "It's <big> & new"]),
    },
    optional={
        "access": st.sampled_from([None, "Subscription", " registration "]),
        "genres": st.sampled_from([None, "Blog, opinion", ["PressRelease"], []]),
        "keywords": st.sampled_from([None, "a, b & c", ["x", " y "]]),
        "stock_tickers": st.sampled_from([None, "NASDAQ:A, NYSE:B", ["LON:X"]]),
    },
)
_news = st.one_of(_article, st.lists(_article, min_size=1, max_size=2))


def _orphan_attributes(video: dict[str, Any]) -> bool:
    """Whether a video has an attribute without its element (Python refuses it)."""
    return bool(
        (
            ("player_allow_embed" in video or "player_autoplay" in video)
            and "player_loc" not in video
        )
        or (video.get("gallery_title", " ").strip() and not video.get("gallery_loc"))
        or ("uploader_info" in video and not video.get("uploader"))
    )


# videos of every field the class has, in the spellings Python takes (numbers and flags as
# JSON values or text, tags as a list or one text, relationships' values as a list or a
# text, prices' amounts as text or numbers), with a content or a player loc and each
# attribute with its element (what Python refuses: tests/test_build_videos_core.py)
_video = st.fixed_dictionaries(
    {
        "thumbnail_loc": st.sampled_from(
            ["https://www.example.com/t.jpg", "https://www.example.com/tö.jpg"]
        ),
        "title": st.sampled_from(["Video", " It's <big> & new "]),
        "description": st.sampled_from(["A short film.", "Über & más"]),
    },
    optional={
        "content_loc": st.sampled_from(["https://www.example.com/v.mp4?a=1&b=2", ""]),
        "player_loc": st.sampled_from(["https://www.example.com/player?id=1"]),
        "duration": st.sampled_from([600, "42", None]),
        "view_count": st.sampled_from([0, "1200"]),
        "expiration_date": st.sampled_from(["2026-12-31", "2026-12-31T10:00:00+05:30"]),
        "publication_date": st.sampled_from(["2024-05-06T10:00:00Z", None]),
        "tags": st.sampled_from([["a", " b "], "one, tag", []]),
        "category": st.sampled_from(["Films", " "]),
        "family_friendly": st.sampled_from([True, "YES", " no"]),
        "requires_subscription": st.sampled_from([False, "yes"]),
        "uploader": st.sampled_from(["Ann & Co", None]),
        "live": st.sampled_from([False, "no"]),
        "rating": st.sampled_from([None, 4.5, 5, "0.25"]),
        "player_allow_embed": st.sampled_from([True, " No "]),
        "player_autoplay": st.sampled_from(["ap=1&x", " on "]),
        "restriction": st.sampled_from(
            [{"relationship": "Allow", "values": ["US", "GB"]}, {"relationship": "deny"}]
        ),
        "platform": st.sampled_from([{"relationship": " deny ", "values": "tv mobile"}]),
        "gallery_loc": st.sampled_from(["https://www.example.com/g?a=1&b=2", ""]),
        "gallery_title": st.sampled_from(["Café & co", " "]),
        "prices": st.sampled_from(
            [[], [{"amount": "1.99", "currency": "eur"}], [{"amount": 2.5, "currency": "USD"}]]
        ),
        "uploader_info": st.sampled_from(["https://www.example.com/u/é"]),
    },
).filter(
    lambda video: (
        (video.get("content_loc") or video.get("player_loc")) and not _orphan_attributes(video)
    )
)


def _with_videos(i: int, videos: list[dict[str, Any]]) -> Any:
    """Row ``i`` of the plain shape with these videos."""
    loc, lastmod, freq, priority, _ = SHAPES.entry("plain", i)
    return loc, lastmod, freq, priority, {"videos": videos}


def _with_news(i: int, news: Any) -> Any:
    """Row ``i`` of the plain shape with this news value (an article or a list of them)."""
    loc, lastmod, freq, priority, _ = SHAPES.entry("plain", i)
    return loc, lastmod, freq, priority, {"news": news}


def _with_links(i: int, links: list[tuple[str, str]]) -> Any:
    """Row ``i`` of the plain shape with these (code, href pattern) links."""
    loc, lastmod, freq, priority, _ = SHAPES.entry("plain", i)
    alternates = [
        {"hreflang": code, "href": href.format(loc=loc, host=SHAPES.HOST, i=i)}
        for code, href in links
    ]
    return loc, lastmod, freq, priority, {"alternates": alternates} if links else None


def _repaired(row: Any) -> bool:
    """Whether a row leaves the core: its links name two hrefs for one code (the per-entry
    way repairs it)."""
    seen: dict[str, str] = {}
    for link in (row[4] or {}).get("alternates", ()):
        code = link["hreflang"].strip().lower()
        if seen.setdefault(code, link["href"]) != link["href"]:
            return True
    return False


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(
        st.one_of(
            st.tuples(st.sampled_from(_LANE_SHAPES), st.integers(0, 200_000)).map(
                lambda pick: SHAPES.entry(*pick)
            ),
            st.tuples(st.integers(0, 200_000), _links).map(lambda pick: _with_links(*pick)),
            st.tuples(st.integers(0, 200_000), _news).map(lambda pick: _with_news(*pick)),
            st.tuples(st.integers(0, 200_000), st.lists(_video, min_size=1, max_size=2)).map(
                lambda pick: _with_videos(*pick)
            ),
        ),
        min_size=1,
        max_size=40,
    ),
    fmt=st.sampled_from(["csv", "tsv", "jsonl", "jsonl.gz", "rows", "urls"]),
)
def test_the_compiled_and_the_per_entry_way_write_the_same_set(
    tmp_path_factory: pytest.TempPathFactory, picks: list[Any], fmt: str
) -> None:
    """Rows of any shapes mixed (on one host), built by the compiled core and by the
    per-entry way (``_build(careful=True)``): the same files and problems. Only a row the
    build repairs leaves the core."""
    tmp = tmp_path_factory.mktemp("lanes")
    report, files, problems = _build("plain", fmt, picks, tmp)
    _, careful_files, careful_problems = _build("plain", fmt, picks, tmp, careful=True)
    assert sum(report.left_core.values()) == sum(map(_repaired, picks))
    assert files == careful_files
    assert problems == careful_problems


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "jsonl.gz", "rows", "urls"])
def test_hreflang_findings_are_the_per_entry_ways(tmp_path: Path, fmt: str) -> None:
    """A page that does not list itself is written as given and reported, by the core as by
    the per-entry way; one naming two hrefs for a code leaves the core alone (counted) and
    is written without the later link: the same set and findings either way."""
    rows = [
        _with_links(1, [("en", "{host}en/{i}"), ("DE", "{host}dé/{i}")]),
        _with_links(2, [("en", "{loc}"), ("en", "{host}other/{i}")]),
        _with_links(3, [(" x-default ", "{loc}")]),
    ]
    report, files, problems = _build("plain", fmt, rows, tmp_path)
    _, careful_files, careful_problems = _build("plain", fmt, rows, tmp_path, careful=True)
    assert sum(report.left_core.values()) == 1
    assert (files, problems) == (careful_files, careful_problems)
    assert sorted(p.split("'")[1] for p in problems) == [
        "hreflang-duplicate",
        "hreflang-missing-self",
    ]
    text = files["sitemap.xml"].decode()
    assert 'hreflang="de" href="https://www.example.com/d%C3%A9/1"' in text
    assert 'hreflang="x-default"' in text and "other/2" not in text


def test_a_row_left_to_python_after_images_declares_as_the_per_entry_way(tmp_path: Path) -> None:
    """A row the core leaves (an hreflang naming two hrefs, which only the per-entry way
    repairs) splits a batch into runs; the root still takes the namespaces of a later run
    while it is open, as it takes those of one batch: the same bytes either way."""
    rows = [SHAPES.entry("image", 0), _with_links(1, [("en", "{loc}"), ("en", "{host}x")])]
    _, files, _ = _build("plain", "csv", rows, tmp_path)
    _, careful_files, _ = _build("plain", "csv", rows, tmp_path, careful=True)
    assert files == careful_files


@pytest.mark.parametrize("fmt", ["jsonl", "rows"])
def test_news_past_a_sitemaps_thousand_split_as_the_per_entry_way(tmp_path: Path, fmt: str) -> None:
    """A sitemap holds at most 1,000 news entries: the core's entries are cut there as the
    per-entry way cuts them; with a news window, the articles outside it leave their rows
    alone (counted) and are written without their news, as the per-entry way writes them."""
    rows = SHAPES.entries("news", 1_100)
    report, files, problems = _build("news", fmt, rows, tmp_path)
    _, careful_files, careful_problems = _build("news", fmt, rows, tmp_path, careful=True)
    assert report.left_core == Counter()
    assert (files, problems) == (careful_files, careful_problems)
    counts = sorted(
        data.count(b"<news:news>") for name, data in files.items() if name != "sitemap.xml"
    )
    assert counts == [100, 1_000]
    window = {"news_window": timedelta(hours=12)}  # before NOW: 2025-12-31T12:00Z on
    report, files, problems = _build("news", fmt, rows[:50], tmp_path, **window)
    _, careful_files, careful_problems = _build(
        "news", fmt, rows[:50], tmp_path, careful=True, **window
    )
    assert report.left_core == Counter({"news-window": 50})
    assert (files, problems) == (careful_files, careful_problems)
    assert b"<news:news>" not in files["sitemap.xml"]


def test_the_core_judges_news_age_with_the_rules_limit() -> None:
    """The build's microsecond limit for ``news-too-old`` is the news rule's two days."""
    from urlset.extensions.news import NEWS_MAX_AGE
    from urlset.writing import entry_rules

    assert NEWS_MAX_AGE // timedelta(microseconds=1) == entry_rules._NEWS_MAX_AGE_MICROS


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "rows", "urls"])
def test_a_video_on_its_page_leaves_its_row_alone(tmp_path: Path, fmt: str) -> None:
    """A video whose content loc is the page (``video-loc-is-page``, an error the build
    repairs by leaving the video out) sends its row alone the per-entry way; the rest of the
    batch, videos among it, stays in the core: the same set and findings either way."""
    rows = SHAPES.entries("video", 3)
    loc, lastmod, freq, priority, extensions = rows[1]
    rows[1] = (
        loc,
        lastmod,
        freq,
        priority,
        {"videos": [{**extensions["videos"][0], "content_loc": loc}]},
    )
    report, files, problems = _build("video", fmt, rows, tmp_path)
    _, careful_files, careful_problems = _build("video", fmt, rows, tmp_path, careful=True)
    assert sum(report.left_core.values()) == 1
    assert (files, problems) == (careful_files, careful_problems)
    assert files["sitemap.xml"].count(b"<video:video>") == 2
    assert "video-loc-is-page" in problems[0]


# changefreq and priority texts the core reads through its memo of short texts (by their
# bytes): repeats, look-alikes (case, white space, other spellings of one number), blanks
# and bad ones, longer ones that skip it
_FREQ_TEXTS = ("daily", "weekly", "monthly", "Daily", " WEEKLY", "hourly ", "never", "often", "")
_PRIORITY_TEXTS = ("0.1", "0.3", "0.5", "0.7", "0.9", "1", "1.0", " 0.8", ".5", "0.25", "1.5")
_PRIORITY_TEXTS += ("0.0001", "0.12345", "5.", "0.5\t", "high", "")


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(
        st.tuples(
            st.sampled_from(["plain", "amp", "iri", "apostrophe", "pct"]),
            st.integers(0, 200_000),
            st.sampled_from(_FREQ_TEXTS),
            st.sampled_from(_PRIORITY_TEXTS),
        ),
        min_size=1,
        max_size=60,
    ),
    fmt=st.sampled_from(["csv", "tsv", "jsonl"]),
)
def test_changefreq_and_priority_texts_read_as_the_per_entry_way(
    tmp_path_factory: pytest.TempPathFactory, picks: list[Any], fmt: str
) -> None:
    """A source's rows with any of these texts (on plain, IRI and escaped locs), built by
    the compiled core and by the per-entry way: the same files and problems."""
    rows = [
        (*SHAPES.entry(shape, i)[:2], freq or None, priority or None, None)
        for shape, i, freq, priority in picks
    ]
    tmp = tmp_path_factory.mktemp("texts")
    _, files, problems = _build("plain", fmt, rows, tmp)
    _, careful_files, careful_problems = _build("plain", fmt, rows, tmp, careful=True)
    assert files == careful_files
    assert problems == careful_problems

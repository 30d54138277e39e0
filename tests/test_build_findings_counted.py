"""A build reports the findings of entries it writes as given (deprecated image fields, news
older than two days, a lastmod without a day, hreflang self-links, the set's unverified
hreflang variants) with the same codes, counts and examples whether or not anything reads
every message: once the report's examples are full and no listener takes each problem, the
rest are counted without their messages being made (``BuildReport.count_flag``,
``EntryRules.counts_only``). The reference is the same build with a listener (``on_problem``
or ``--report``), which makes every message.

Enumerated: each finding the compiled core reports (its rules' codes, the lastmod without a
day) alone and mixed in one entry, in runs that a refused row splits (so a later run of a
batch is counted in bulk), and the set-wide hreflang findings through the CLI."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import bench_module
from urlset import write_sitemaps
from urlset.cli import main
from urlset.errors import InvalidValue
from urlset.writing.build import BuildReport
from urlset.writing.sources import iter_batches, open_source

NOW = datetime(2026, 3, 1, tzinfo=UTC)  # the shapes' news, of 2025-12-31, are too old


SHAPES = bench_module("build_shapes")


def _year_on_odd(rows: list[Any]) -> list[Any]:
    return [(row[0], "2024" if n % 2 else row[1], *row[2:]) for n, row in enumerate(rows)]


def _self_missing(rows: list[Any]) -> list[Any]:
    """hreflang rows whose alternates leave out the page itself on every third row."""
    out = []
    for n, (loc, lastmod, freq, priority, extensions) in enumerate(rows):
        if n % 3 == 0:
            extensions = {"alternates": extensions["alternates"][1:]}
        out.append((loc, lastmod, freq, priority, extensions))
    return out


CASES: dict[str, Callable[[int], list[Any]]] = {
    "image": lambda n: SHAPES.entries("image", n),
    "news": lambda n: SHAPES.entries("news", n),
    "year": lambda n: SHAPES.entries("year", n),
    "month": lambda n: SHAPES.entries("month", n),
    "image-and-year": lambda n: _year_on_odd(SHAPES.entries("image", n)),
    "news-and-year": lambda n: _year_on_odd(SHAPES.entries("news", n)),
    "hreflang-self": lambda n: _self_missing(SHAPES.entries("hreflang", n)),
    "mix": lambda n: SHAPES.entries("mix", n),
}


def _with_refused(rows: list[Any], every: int = 37) -> list[Any]:
    """Rows with a future lastmod among them: each leaves its batch's run of the core."""
    return [
        (row[0], "2030-01-01", *row[2:]) if n % every == every - 1 else row
        for n, row in enumerate(rows)
    ]


def _build(rows: list[Any], tmp: Path, listen: bool, **options: Any) -> BuildReport:
    source = tmp / f"in-{len(list(tmp.iterdir()))}.csv"
    source.write_bytes(SHAPES.source_bytes("csv", rows))
    problems: list[Any] = []
    with open_source(str(source)) as stream:
        entries = (
            e for batch in iter_batches(stream, "csv", source.name, rows=True) for e in batch
        )
        return write_sitemaps(
            entries,
            tmp / f"out-{source.stem}",
            SHAPES.HOST,
            gzip=False,
            now=NOW,
            on_problem=problems.append if listen else None,
            **options,
        )


def _told(report: BuildReport) -> tuple[Any, ...]:
    """Everything the report says of the findings, counters in their order."""
    return (
        list(report.flagged.items()),
        report.flag_examples,
        list(report.noted.items()),
        report.note_examples,
        list(report.kept_without.items()),
        report.warnings,
        dict(report.left_core),
    )


@pytest.mark.parametrize("case", sorted(CASES))
def test_counted_findings_are_the_listened_ones(case: str, tmp_path: Path) -> None:
    rows = _with_refused(CASES[case](800))
    counted = _build(rows, tmp_path, listen=False)
    listened = _build(rows, tmp_path, listen=True)
    assert _told(counted) == _told(listened)
    assert sum(counted.flagged.values()) + sum(counted.noted.values()) > 40  # past the examples
    assert counted.left_core == {"future-lastmod": 800 // 37}  # runs split, every run taken


@pytest.mark.parametrize(
    ("case", "module", "name"),
    [
        ("image", "urlset.extensions.image", "deprecated_fields_issue"),
        ("news", "urlset.extensions.news", "too_old_issue"),
        ("hreflang-self", "urlset.extensions.hreflang", "missing_self_issue"),
    ],
)
def test_messages_nothing_reads_are_not_made(
    case: str, module: str, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """800 findings without a listener make the 20 messages the examples show, not 800."""
    made = []
    real = getattr(importlib.import_module(module), name)

    def making(*args: Any) -> Any:
        made.append(args)
        return real(*args)

    monkeypatch.setattr(f"{module}.{name}", making)
    report = _build(CASES[case](800), tmp_path, listen=False)
    assert sum(report.flagged.values()) + sum(report.noted.values()) >= 800 // 3
    assert len(made) == 20


def test_strict_still_stops_at_the_first_finding(tmp_path: Path) -> None:
    rows = SHAPES.entries("year", 100)
    with pytest.raises(InvalidValue, match="lastmod-without-day"):
        _build(rows, tmp_path, listen=False, strict=True)


def test_the_sets_hreflang_findings_are_the_same_with_or_without_a_report(
    tmp_path: Path,
) -> None:
    """The CLI's set-wide findings (every variant outside the set: ``hreflang-unverified``)
    say the same counts and examples whether or not ``--report`` takes each of them."""
    source = tmp_path / "in.csv"
    source.write_bytes(SHAPES.source_bytes("csv", SHAPES.entries("hreflang", 300)))
    said = []
    for report in (None, tmp_path / "report.jsonl"):
        args = ["build", str(source), "--base-url", SHAPES.HOST]
        args += ["--out", str(tmp_path / f"out-{report is None}")]
        if report is not None:
            args += ["--report", str(report)]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        lines = result.output.replace(str(tmp_path), "TMP").splitlines()
        said.append([line for line in lines if "hreflang" in line])
    assert said[0] == said[1]
    assert any("300" in line for line in said[0])
    logged = [json.loads(line) for line in (tmp_path / "report.jsonl").read_text().splitlines()]
    assert sum(problem["code"] == "hreflang-unverified" for problem in logged) == 300


def test_the_links_a_build_records_are_those_of_what_it_wrote(tmp_path: Path) -> None:
    """``Reciprocity.add_written`` takes a batch's links at once (``RenderedRows.link_maps``)
    and a page given twice (no de-duplication: its links joined, a plain copy among them)
    entry by entry: what it records judges as the set read back from the files does."""
    from urlset import Url, read_file
    from urlset.extensions.reciprocity import Reciprocity

    rows = SHAPES.entries("hreflang", 300) + SHAPES.entries("plain", 40)
    rows += [(SHAPES.HOST + "de/5", "2024-05-06", None, None, None)]  # a variant with none
    twice = rows[7]
    rows.append(
        (
            twice[0],
            twice[1],
            None,
            None,
            {"alternates": [{"hreflang": "fr", "href": SHAPES.HOST + "fr/7"}]},
        )
    )
    rows.append((rows[3][0], "2024-05-06", None, None, None))
    written = Reciprocity()
    source = tmp_path / "in.csv"
    source.write_bytes(SHAPES.source_bytes("csv", rows))
    with open_source(str(source)) as stream:
        entries = (e for batch in iter_batches(stream, "csv", "in.csv", rows=True) for e in batch)
        write_sitemaps(
            entries,
            tmp_path / "out",
            SHAPES.HOST,
            gzip=False,
            now=NOW,
            dedupe=False,
            on_written=written.add_written,
        )
    read = Reciprocity()
    for entry in read_file(tmp_path / "out" / "sitemap.xml"):
        assert isinstance(entry, Url)
        read.add(entry)
    assert written.pages == read.pages == 300
    assert list(written.missing()) == list(read.missing())
    unlisted = list(written.unlisted())
    assert unlisted == list(read.unlisted())
    assert [u.in_set for u in unlisted].count(True) == 1  # de/5, in the set without links


def _missing_as_specified(links: dict[str, dict[str, str]], include_self: bool) -> list[Any]:
    """The rule as stated: each page of a group (a page and its alternates) must link to
    every member; each (page, target) once, in the order pages were added."""
    out, reported = [], set()
    for loc, own in links.items():
        group = [*own, loc] if loc not in own else list(own)
        for page in group:
            theirs = links.get(page)
            for target in group if theirs is not None else ():
                if target in theirs or (page, target) in reported:
                    continue
                if page == target and not include_self:
                    continue
                reported.add((page, target))
                out.append((page, target, own.get(target, ""), loc))
    return out


_PAGES = [f"{SHAPES.HOST}{name}" for name in "abcdef"]


@settings(max_examples=200, deadline=None)
@given(
    pages=st.lists(
        st.tuples(
            st.sampled_from(_PAGES),
            st.dictionaries(st.sampled_from(_PAGES), st.sampled_from(["en", "de", "x-default"])),
        ),
        max_size=8,
    ),
    include_self=st.booleans(),
)
def test_reciprocity_finds_what_the_rule_says(
    pages: list[tuple[str, dict[str, str]]], include_self: bool
) -> None:
    """``Reciprocity.missing`` (a page's own group walked without copying it) and
    ``unlisted_found`` (no plain page: none in the set) give what the rule as stated gives."""
    from urlset.extensions.reciprocity import Reciprocity

    reciprocity = Reciprocity()
    links: dict[str, dict[str, str]] = {}  # a page given twice: the union, first code kept
    for loc, found in pages:
        reciprocity.add_hrefs(loc, dict(found))
        if found:
            own = links.setdefault(loc, {})
            for href, code in found.items():
                own.setdefault(href, code)
    assert [tuple(m) for m in reciprocity.missing(include_self=include_self)] == (
        _missing_as_specified(links, include_self)
    )
    plain = {loc for loc, found in pages if not found}
    named = {}
    for loc, own in links.items():
        for href, code in own.items():
            if href not in links:
                named.setdefault(href, (href, code, loc))
    found, in_set = reciprocity.unlisted_found()
    assert found == list(named.values())
    assert in_set == [href in plain for href in named]


def _unlisted_as_specified(
    links: dict[str, dict[str, str]], plain: set[str]
) -> list[tuple[str, str, str, bool]]:
    """Each variant named that lists no alternates, once, at its first naming."""
    named: dict[str, tuple[str, str, str, bool]] = {}
    for loc, own in links.items():
        for href, code in own.items():
            if href not in links:
                named.setdefault(href, (href, code, loc, href in plain))
    return list(named.values())


@pytest.mark.parametrize("spilled", [False, True])
def test_reciprocity_on_disk_finds_what_the_rule_says(
    monkeypatch: pytest.MonkeyPatch, spilled: bool
) -> None:
    """A set past the memory budget (spilled: every table in run files of 4 KiB, the joins in a
    few dozen buckets, the strings kept 16 pages a block) gives what the rule as
    stated gives: every missing link and unlisted variant in order, the first ``cap`` of
    each code and their counts; and its spill directory is gone once closed."""
    import random

    from urlset.extensions import reciprocity as module
    from urlset.extensions.reciprocity import Reciprocity

    if spilled:
        monkeypatch.setattr(module, "SPILL_BYTES", 4096)
        monkeypatch.setattr(module, "STRING_BATCH", 16)
    draw = random.Random(26)
    names = [f"{SHAPES.HOST}p/{i}" for i in range(900)]
    reciprocity = Reciprocity()
    links: dict[str, dict[str, str]] = {}
    plain: set[str] = set()
    for _ in range(1500):
        loc = draw.choice(names)
        found = {
            draw.choice(names): draw.choice(["en", "de", "fr"]) for _ in range(draw.randint(0, 4))
        }
        if draw.random() < 0.7 and found:  # most pages list themselves
            found.setdefault(loc, "en")
        reciprocity.add_hrefs(loc, found)
        if found:
            own = links.setdefault(loc, {})
            for href, code in found.items():
                own.setdefault(href, code)
        else:
            plain.add(loc)
    for include_self in (False, True):
        said = reciprocity.judged(include_self=include_self)
        expected = _missing_as_specified(links, include_self)
        assert [tuple(m) for m in said.missing] == expected and len(expected) > 1000
        assert said.missing_count == len(expected)
    unlisted = _unlisted_as_specified(links, plain)
    said = reciprocity.judged()
    assert [tuple(u) for u in said.unlisted] == unlisted
    assert said.pages == len(links)
    in_set = sum(u[3] for u in unlisted)
    assert said.unlisted_counts == {True: in_set, False: len(unlisted) - in_set} and in_set
    capped = reciprocity.judged(7)
    assert capped.missing == said.missing[:7] and capped.missing_count == said.missing_count
    room = {True: 7, False: 7}  # the first 7 in the set and outside it, in order
    first = []
    for u in said.unlisted:
        if room[u.in_set]:
            room[u.in_set] -= 1
            first.append(u)
    assert capped.unlisted == first
    assert capped.unlisted_counts == said.unlisted_counts
    spill = reciprocity.spill_path
    assert (spill is not None) == spilled
    reciprocity.close()
    assert spill is None or not spill.exists()
    if spilled:  # never closed: removed when collected (or at exit)
        dropped = Reciprocity()
        for _, found in zip(range(600), links.items(), strict=False):
            dropped.add_hrefs(*found)
        assert dropped.judged().pages == 600
        spill = dropped.spill_path
        assert spill is not None and spill.exists()
        del dropped
        assert not spill.exists()


def test_builds_missing_links_past_the_cap_are_counted_as_check_counts(tmp_path: Path) -> None:
    """Past 1,000 missing return links the build counted one line for the rest ("N more
    missing return links", so 1,001 in its summary); it lists the first 1,000 of each code
    and counts the rest, as check does on the set it wrote: the same counts."""
    host = SHAPES.HOST
    lines = []
    for i in range(1_200):  # a_i names b_i as a variant; b_i does not link back to a_i
        pair = [
            {"hreflang": "en", "href": f"{host}a/{i}"},
            {"hreflang": "de", "href": f"{host}b/{i}"},
        ]
        lines.append({"loc": f"{host}a/{i}", "alternates": pair})
        lines.append({"loc": f"{host}b/{i}", "alternates": pair[1:]})
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    out = tmp_path / "out"
    built = CliRunner().invoke(main, ["build", str(source), "--base-url", host, "--out", str(out)])
    assert built.exit_code == 0, built.output
    assert "hreflang-not-reciprocal: 1,200" in built.output
    checked = CliRunner().invoke(main, ["check", str(out / "sitemap.xml.gz")])
    assert "hreflang-not-reciprocal x1,200" in checked.output

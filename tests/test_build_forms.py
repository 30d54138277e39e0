"""The build's compiled core owns every row of every input form real exporters write
(bench/build_forms.py: Excel's byte order mark and CRLF, every cell quoted, header names in
other case, a CMS's column order, blank lines and padded cells, spreadsheet lastmods and
priorities, JSON Lines as PHP and Python escape it, text lists with comments; each gzipped
too): ``BuildReport.left_core`` stays empty. A form whose values are not valid as they are
(a spreadsheet's ``2024-01-02 10:00:00``, ``+0100``, a time without a zone, a decimal comma)
is written without them and warned of, each row as the per-entry way words it, the rows
still rendered by the core; the property at the end holds the two ways to the same set
and the same warnings. The forms the build refuses by design are refused, with why."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta, timezone, tzinfo
from itertools import chain
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import bench_module
from urlset import write_sitemaps
from urlset.errors import InputError, InvalidValue
from urlset.writing.build import BuildReport
from urlset.writing.sources import iter_batches, open_source

NOW = datetime(2026, 1, 1, tzinfo=UTC)
FORMS = bench_module("build_forms")
SHAPES = bench_module("build_shapes")
_SUFFIX = {"csv": "csv", "tsv": "tsv", "jsonl": "jsonl", "text": "txt"}
_ACCEPTED = [name for name, form in FORMS.FORMS.items() if form.refused is None]
_REFUSED = [name for name, form in FORMS.FORMS.items() if form.refused is not None]


def _build(
    data: bytes, fmt: str, tmp: Path, *, gz: bool = False, careful: bool = False, **options: Any
) -> tuple[BuildReport, dict[str, bytes], list[str]]:
    """A build of one source file of ``fmt`` holding ``data``: its report, files, problems
    (``careful``: its lines read the per-entry way, ``iter_entries``)."""
    here = tmp / f"build-{len(list(tmp.iterdir()))}"  # the source's name is the same in each
    here.mkdir()
    path = here / f"in.{_SUFFIX[fmt]}{'.gz' if gz else ''}"
    path.write_bytes(data)
    out = here / "out"
    problems: list[Any] = []
    zone = options.get("default_tz")
    with open_source(str(path)) as stream:
        batches = iter_batches(stream, fmt, path.name, default_tz=zone, rows=not careful)
        entries = chain.from_iterable(batches)
        report = write_sitemaps(
            entries, out, SHAPES.HOST, gzip=False, now=NOW, on_problem=problems.append, **options
        )
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    return report, files, sorted(str(list(p)) for p in problems)


@pytest.mark.parametrize("gz", [False, True], ids=["file", "gz"])
@pytest.mark.parametrize("form", _ACCEPTED)
def test_every_row_of_every_form_stays_in_the_core(tmp_path: Path, form: str, gz: bool) -> None:
    rows = SHAPES.entries("utc", 300)
    data = FORMS.source_bytes(form, rows, gz)
    report, files, _ = _build(data, FORMS.FORMS[form].fmt, tmp_path, gz=gz)
    assert report.urls == 300
    assert report.left_core == Counter()
    assert files


@pytest.mark.parametrize("form", _REFUSED)
def test_a_form_refused_by_design_says_why(tmp_path: Path, form: str) -> None:
    """A header the build cannot read (a ``sep=`` line, ``;`` cells, other column names, a
    CMS's own columns) fails the build at line 1, naming the columns it knows."""
    data = FORMS.source_bytes(form, SHAPES.entries("utc", 3))
    with pytest.raises(InvalidValue, match=r":1.*the columns are loc"):
        _build(data, FORMS.FORMS[form].fmt, tmp_path)


# forms whose values are not valid as they are: written without them, the same way either
# way (the careful way: each line read the per-entry way)
_ODD = ["csv-lastmod-space", "csv-lastmod-no-colon", "csv-lastmod-no-zone", "csv-priority-comma"]


@pytest.mark.parametrize("form", _ODD)
def test_values_at_fault_are_left_out_as_the_per_entry_way_does(tmp_path: Path, form: str) -> None:
    rows = SHAPES.entries("utc", 200)
    data = FORMS.source_bytes(form, rows)
    fmt = FORMS.FORMS[form].fmt
    report, files, problems = _build(data, fmt, tmp_path)
    _, careful_files, careful_problems = _build(data, fmt, tmp_path, careful=True)
    assert report.left_core == Counter()
    assert (files, problems) == (careful_files, careful_problems)
    assert problems and all("written without its" in problem for problem in problems)


def test_a_time_without_a_zone_is_written_without_it_and_named(tmp_path: Path) -> None:
    """A lastmod with a time and no zone is at fault unless the build names one: each row is
    written without it, with the per-entry way's words, its rows in the core."""
    rows = SHAPES.entries("utc", 5)
    data = FORMS.source_bytes("csv-lastmod-no-zone", rows)
    report, files, problems = _build(data, "csv", tmp_path)
    assert report.left_core == Counter()
    assert b"<lastmod>" not in files["sitemap.xml"]
    assert len(problems) == 5
    assert "in.csv:2: lastmod '2024-01-01T00:00:00': has no time zone" in problems[0]
    assert "(written without its lastmod)" in problems[0]


def test_strict_stops_at_the_first_value_at_fault(tmp_path: Path) -> None:
    data = FORMS.source_bytes("csv-priority-comma", SHAPES.entries("utc", 10))
    with pytest.raises(InputError, match=r"in\.csv:3: priority '0,1'"):
        _build(data, "csv", tmp_path, strict=True)


_LASTMODS = (
    "2024-05-06T10:00:00Z",
    "2024-05-06T10:00:00",  # no zone: at fault unless one is given
    "2024-05-06T10:00:00.5",
    "2024-10-27T02:30",  # a time Paris has twice
    "2024-05-06",
    "2024-05-06 10:00:00+01:00",
    "2024-05-06T10:00:00+0100",
    "2024-05-06T10:00:00.000Z",
    "06/05/2024",
    "2024-13-01",
    "2030-01-01",  # later than the build's now: left out and reported by the rules
    "",
)
_ZONELESS = {"2024-05-06T10:00:00", "2024-05-06T10:00:00.5", "2024-10-27T02:30"}
_FREQS = ("daily", "Weekly", " MONTHLY ", "sometimes", "")
_PRIORITIES = ("0.5", ".5", "1", "0,5", "1.5", "high", "", 1, 0, 2)  # JSON's and Python's ints
_LOCS = ("products/{i}", "café/{i}", "search?q={i}&x='y'", "http://elsewhere.example/{i}")


def _row(pick: tuple[int, int, int, int, int]) -> Any:
    loc, lastmod, freq, priority, i = pick
    given = (_LASTMODS[lastmod], _FREQS[freq], _PRIORITIES[priority])
    loc_text = SHAPES.HOST + _LOCS[loc].format(i=i)
    return (loc_text, *(None if value == "" else value for value in given), None)


def _later(rows: list[Any]) -> int:
    """The rows whose lastmod is later than now with another value at fault (in scope): the
    per-entry way says both."""
    return sum(
        row[1] == "2030-01-01" and (row[2] == "sometimes" or row[3] in ("0,5", "1.5", "high", 2))
        for row in rows
        if not row[0].startswith("http://")
    )


def _source(fmt: str, rows: list[Any]) -> bytes:
    """The rows as a ``fmt`` source, an unreadable line among them (a CSV row of the wrong
    width, a JSON line that is not an object)."""
    data = SHAPES.source_bytes(fmt, rows)
    bad = b"not,a,row,of,this,width\n" if fmt != "jsonl" else b"[1]\n"
    lines = data.splitlines(keepends=True)
    lines.insert(len(lines) // 2 + 1, bad)
    return b"".join(lines)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(
        st.tuples(
            st.integers(0, len(_LOCS) - 1),
            st.integers(0, len(_LASTMODS) - 1),
            st.integers(0, len(_FREQS) - 1),
            st.integers(0, len(_PRIORITIES) - 1),
            st.integers(0, 50),
        ),
        min_size=1,
        max_size=40,
    ),
    fmt=st.sampled_from(["csv", "tsv", "jsonl"]),
    zone=st.sampled_from([None, UTC, timezone(timedelta(hours=-5)), ZoneInfo("Europe/Paris")]),
)
def test_odd_values_among_rows_build_as_the_per_entry_way(
    tmp_path_factory: pytest.TempPathFactory, picks: list[Any], fmt: str, zone: tzinfo | None
) -> None:
    """Rows with values at fault anywhere among good ones (and duplicates, a loc elsewhere,
    an unreadable line), with a zone to apply (``--timezone``) or none: the compiled core and
    the per-entry way write the same set and the same problems; only the rows whose loc is at fault, or whose lastmod is later than the
    build's now, leave the core."""
    tmp = tmp_path_factory.mktemp("forms")
    rows = [_row(pick) for pick in picks]
    data = _source(fmt, rows)
    options = {"skip_out_of_scope": True, "default_tz": zone}
    report, files, problems = _build(data, fmt, tmp, **options)
    _, careful_files, careful_problems = _build(data, fmt, tmp, careful=True, **options)
    elsewhere = sum(row[0].startswith("http://") for row in rows)
    not_an_object = fmt == "jsonl"  # a JSON line is read by Python to say why it is none
    left = Counter({"loc": elsewhere, "json-line": not_an_object, "value": _later(rows)})
    left["future-lastmod"] = report.left_core["future-lastmod"]
    assert +report.left_core == +left
    assert (files, problems) == (careful_files, careful_problems)


def _python(kind: str, rows: list[Any]) -> list[Any]:
    """Rows as a program gives them: (loc, lastmod, changefreq, priority) tuples, or dicts
    of the keys a row has (a CMS's records; ``None`` values kept in every other one)."""
    core = [row[:4] for row in rows]
    if kind == "tuples":
        return core
    keys = ("loc", "lastmod", "changefreq", "priority")
    return [
        {k: v for k, v in zip(keys, row, strict=True) if v is not None or i % 2}
        for i, row in enumerate(core)
    ]


def _build_rows(
    given: list[Any], tmp: Path, **options: Any
) -> tuple[BuildReport, dict[str, bytes], list[str]]:
    out = tmp / f"out-{len(list(tmp.iterdir()))}"
    problems: list[Any] = []
    report = write_sitemaps(
        given, out, SHAPES.HOST, gzip=False, now=NOW, on_problem=problems.append, **options
    )
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    return report, files, sorted(str(list(p)) for p in problems)


# (the shapes built under another base URL are test_build_shapes.py's)
@pytest.mark.parametrize("kind", ["tuples", "dicts"])
@pytest.mark.parametrize(
    "shape", [s for s in (*SHAPES.LOCS, *SHAPES.LASTMODS) if s not in SHAPES.BASES]
)
def test_python_rows_and_mappings_stay_in_the_core(tmp_path: Path, shape: str, kind: str) -> None:
    """Rows and mappings of the core keys (every loc spelling and lastmod form) are rendered
    by the core, not read one by one."""
    report, files, _ = _build_rows(_python(kind, SHAPES.entries(shape, 300)), tmp_path)
    assert (report.urls, report.left_core) == (300, Counter())
    assert files


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    picks=st.lists(
        st.tuples(
            st.integers(0, len(_LOCS) - 1),
            # the careful way of Python's rows is a zone to apply: no time without one
            st.sampled_from([n for n, text in enumerate(_LASTMODS) if text not in _ZONELESS]),
            st.integers(0, len(_FREQS) - 1),
            st.integers(0, len(_PRIORITIES) - 1),
            st.integers(0, 50),
        ),
        min_size=1,
        max_size=40,
    ),
    kind=st.sampled_from(["tuples", "dicts"]),
)
def test_odd_values_in_python_rows_build_as_the_per_entry_way(
    tmp_path_factory: pytest.TempPathFactory, picks: list[Any], kind: str
) -> None:
    """Python rows and mappings with values at fault among good ones: the same set and
    problems either way; only a loc at fault (or a lastmod later than now with another
    value at fault) leaves the core."""
    tmp = tmp_path_factory.mktemp("rows")
    rows = [_row(pick) for pick in picks]
    given = _python(kind, rows)
    options = {"skip_out_of_scope": True}
    report, files, problems = _build_rows(given, tmp, **options)
    _, careful_files, careful_problems = _build_rows(given, tmp, default_tz=UTC, **options)
    elsewhere = sum(row[0].startswith("http://") for row in rows)
    # a number out of range: the core does not take the row (as for a float: 'row')
    numbers = [row for row in rows if row[3] == 2 and not row[0].startswith("http://")]
    later = _later(rows) - sum(row[1] == "2030-01-01" for row in numbers)
    left = Counter({"loc": elsewhere, "value": later, "row": len(numbers)})
    left["future-lastmod"] = report.left_core["future-lastmod"]
    assert +report.left_core == +left
    assert (files, problems) == (careful_files, careful_problems)


def test_a_json_line_of_another_type_costs_itself(tmp_path: Path) -> None:
    """``"type": "url"`` lines (a URL entry saying what it is) stay in the core; a line of
    another type is read by Python, which says why it is no URL, and costs that line."""
    lines = [{"type": "url", "loc": f"{SHAPES.HOST}p/{i}", "priority": i % 2} for i in range(9)]
    lines[4] = {"type": "sitemap", "loc": f"{SHAPES.HOST}sitemap.xml"}
    data = "".join(json.dumps(line) + "\n" for line in lines).encode()
    report, files, problems = _build(data, "jsonl", tmp_path)
    assert report.left_core == Counter({"json-line": 1})
    assert report.urls == 8
    assert problems == [
        "['in.jsonl', 5, 'unreadable-line', 'error', \"in.jsonl:5: a 'sitemap' entry, not a URL\"]"
    ]
    assert files["sitemap.xml"].count(b"<priority>1.0</priority>") == 4


@pytest.mark.parametrize("form", ["csv-plain", "csv-lastmod-no-zone", "jsonl-plain"])
@pytest.mark.parametrize("zone", [UTC, ZoneInfo("Europe/Paris")], ids=["utc", "paris"])
def test_a_zone_to_apply_keeps_a_source_in_the_core(
    tmp_path: Path, form: str, zone: tzinfo
) -> None:
    """``--timezone``: a source's lastmods with a zone are the core's as ever, those without
    one are read in the zone given (as the per-entry way reads them) and written by the core;
    no row leaves it (every row did: 'default-tz')."""
    data = FORMS.source_bytes(form, SHAPES.entries("utc", 300))
    fmt = FORMS.FORMS[form].fmt
    report, files, problems = _build(data, fmt, tmp_path, default_tz=zone)
    _, careful_files, careful_problems = _build(data, fmt, tmp_path, careful=True, default_tz=zone)
    assert report.left_core == Counter()
    assert (files, problems) == (careful_files, careful_problems)
    assert not problems

"""Relative locs in build input (``/blog/post-1``, ``blog/post-1``) are resolved against the
base URL, as a browser resolves a link and sitemap.js resolves a path against its
``hostname``: one rule in the compiled core (``write::locs::resolved``), which the per-entry
way calls too, so every lane writes the same bytes, and rows the core renders stay in it."""

from __future__ import annotations

import gzip
import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timezone
from itertools import chain
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from urlset import write_sitemaps
from urlset._core import resolve_loc
from urlset.cli import main
from urlset.errors import InputError, LimitExceeded
from urlset.urls import resolved_loc, to_uri
from urlset.writing.build import BuildReport
from urlset.writing.sources import iter_batches, iter_entries, open_source

BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
# root-relative, path-relative, an IRI, a query only, a query with '&' and "'"
RELATIVE = ["/a/1", "a/2", "/caf\u00e9", "?q=1", "a/b?x='1'&y=2"]
LASTMOD = "2024-05-01"


def _absolute(loc: str) -> str:
    return to_uri(BASE + loc.removeprefix("/"))


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


def _source(tmp: Path, fmt: str, locs: list[str]) -> Path:
    name = {"text": "in.txt", "text.gz": "in.txt.gz"}.get(fmt, f"in.{fmt}")
    path = tmp / name
    if fmt.startswith("text"):
        data = "".join(f"{loc}\n" for loc in locs).encode()
        path.write_bytes(gzip.compress(data) if fmt.endswith(".gz") else data)
    elif fmt == "jsonl":
        path.write_text(
            "".join(json.dumps({"loc": loc, "lastmod": LASTMOD}) + "\n" for loc in locs)
        )
    else:
        sep = "," if fmt == "csv" else "\t"
        path.write_text(f"loc{sep}lastmod\n" + "".join(f"{loc}{sep}{LASTMOD}\n" for loc in locs))
    return path


def _from_file(fmt: str) -> Callable[[Path, list[str]], Any]:
    def entries(tmp: Path, locs: list[str]) -> Any:
        path = _source(tmp, fmt, locs)
        kind = "text" if fmt.startswith("text") else fmt
        with open_source(str(path)) as stream:  # the batches hold their rows
            return list(chain.from_iterable(iter_batches(stream, kind, path.name, rows=True)))

    return entries


def _table(tmp: Path, locs: list[str]) -> Any:
    import pyarrow as pa

    return pa.table({"loc": locs, "lastmod": [LASTMOD] * len(locs)})


def _frame(tmp: Path, locs: list[str]) -> Any:
    import pandas as pd

    return pd.DataFrame({"loc": locs, "lastmod": [LASTMOD] * len(locs)})


# each lane: its entries, and whether every row stays in the compiled core
LANES: dict[str, tuple[Callable[[Path, list[str]], Any], bool]] = {
    "rows": (lambda tmp, locs: [(loc, LASTMOD, None, None) for loc in locs], True),
    "mappings": (lambda tmp, locs: [{"loc": loc, "lastmod": LASTMOD} for loc in locs], False),
    "arrow": (_table, True),
    "pandas": (_frame, True),
    **{fmt: (_from_file(fmt), True) for fmt in ("csv", "tsv", "jsonl", "text", "text.gz")},
}


@pytest.mark.parametrize("lane", list(LANES))
def test_every_lane_writes_a_relative_loc_as_the_absolute_one(tmp_path: Path, lane: str) -> None:
    make, in_core = LANES[lane]
    relative = write_sitemaps(make(tmp_path, RELATIVE), tmp_path / "rel", BASE, gzip=False, now=NOW)
    absolute = [_absolute(loc) for loc in RELATIVE]
    write_sitemaps(make(tmp_path, absolute), tmp_path / "abs", BASE, gzip=False, now=NOW)
    assert _files(tmp_path / "rel") == _files(tmp_path / "abs")
    assert relative.urls == len(RELATIVE) and not relative.rejected
    if in_core:
        assert relative.left_core == {}  # resolved in the core: no row left it
    # the lanes agree with one another: text has no lastmod, the rest do
    reference = tmp_path / "reference"
    if not reference.exists():
        rows = [(loc, None if lane.startswith("text") else LASTMOD, None, None) for loc in absolute]
        write_sitemaps(rows, reference, BASE, gzip=False, now=NOW)
    assert _files(tmp_path / "rel") == _files(reference)


def test_the_per_entry_way_resolves_as_the_core(tmp_path: Path) -> None:
    """A zone to apply sends every row the per-entry way (``left_core`` "default-tz"); a
    JSON line with an extension is read alone in Python: both give the core's bytes."""
    tz = timezone.utc
    rows = [(loc, LASTMOD, None, None) for loc in RELATIVE]
    core = write_sitemaps(rows, tmp_path / "core", BASE, gzip=False, now=NOW)
    python = write_sitemaps(rows, tmp_path / "python", BASE, gzip=False, now=NOW, default_tz=tz)
    assert python.left_core == {"default-tz": len(RELATIVE)} and core.left_core == {}
    assert _files(tmp_path / "core") == _files(tmp_path / "python")
    # hreflang links naming two hrefs for one code: a row the core leaves to Python (the
    # per-entry way repairs it; links and images it writes itself)
    links = {
        "alternates": [
            {"hreflang": "en", "href": _absolute(RELATIVE[1])},
            {"hreflang": "en", "href": _absolute(RELATIVE[0])},
        ]
    }
    for name, locs in (("rel", RELATIVE), ("abs", [_absolute(loc) for loc in RELATIVE])):
        path = tmp_path / f"{name}.jsonl"
        lines = [
            {"loc": loc, "lastmod": LASTMOD, **(links if n == 1 else {})}
            for n, loc in enumerate(locs)
        ]
        path.write_text("".join(json.dumps(line) + "\n" for line in lines))
        report = _build_file(path, tmp_path / f"{name}-out")
        assert report.left_core == {"extensions": 1}  # a repair: the per-entry way's
        table = tmp_path / f"{name}.csv"  # a row with an image cell is read alone too
        cells = [
            f"{loc},{'https://www.example.com/i.jpg' if n == 1 else ''}"
            for n, loc in enumerate(locs)
        ]
        table.write_text("loc,image_loc\n" + "".join(f"{line}\n" for line in cells))
        assert _build_file(table, tmp_path / f"{name}-csv").left_core == {"extensions": 1}
    assert _files(tmp_path / "rel-out") == _files(tmp_path / "abs-out")
    assert _files(tmp_path / "rel-csv") == _files(tmp_path / "abs-csv")


@pytest.mark.parametrize(
    ("loc", "want", "left"),
    [
        ("./a/3", "https://www.example.com/a/3", {"loc": 1}),  # dot segments: WHATWG's way
        ("x/../a/4", "https://www.example.com/a/4", {"loc": 1}),
        ("  /a/5 ", "https://www.example.com/a/5", {"loc": 1}),  # stripped first
        ("//www.example.com/a/6", "https://www.example.com/a/6", {}),  # the base's scheme
        ("/a/7#part", "https://www.example.com/a/7", {}),  # the fragment dropped
    ],
)
def test_rare_relative_forms_resolve_alike_on_either_way(
    tmp_path: Path, loc: str, want: str, left: dict[str, int]
) -> None:
    report = write_sitemaps([(loc, None, None, None)], tmp_path, BASE, gzip=False, now=NOW)
    assert report.left_core == left
    assert f"<loc>{want}</loc>" in (tmp_path / "sitemap.xml").read_text()


def test_python_resolves_with_the_core_s_rule() -> None:
    base = "https://x.org/shop/"
    assert resolved_loc("/a", base) == resolve_loc("/a", base) == "https://x.org/a"
    assert resolved_loc("a", base) == "https://x.org/shop/a"
    assert resolved_loc(" a ", base) == "https://x.org/shop/a"
    assert resolved_loc("https://y.org/a", base) == "https://y.org/a"
    assert resolved_loc("x.org/a", base) == "x.org/a"  # a host without its scheme: judged later
    assert resolved_loc("/a", None) == "/a"


def test_a_root_relative_path_outside_a_directory_base_names_its_line(tmp_path: Path) -> None:
    source = _source(tmp_path, "csv", ["blog/1", "/blog/2"])
    problems: list[Any] = []
    report = _build_file(
        source, tmp_path / "out", base="https://www.example.com/shop/", skip_out_of_scope=True,
        on_problem=problems.append,
    )  # fmt: skip
    assert report.urls == 1
    assert [(p.code, p.line) for p in problems] == [("out-of-scope", 3)]
    assert "https://www.example.com/blog/2" in problems[0].message
    assert (
        "<loc>https://www.example.com/shop/blog/1</loc>"
        in (tmp_path / "out/sitemap.xml").read_text()
    )


def test_a_host_written_without_its_scheme_is_refused_with_its_line(tmp_path: Path) -> None:
    """``www.example.com/a`` would resolve to ``https://www.example.com/www.example.com/a``
    (as sitemap.js resolves it); its first segment is the base's host, so it is refused."""
    source = _source(tmp_path, "text", ["www.example.com/a", "example.com/b", "ok"])
    problems: list[Any] = []
    report = _build_file(source, tmp_path / "out", on_problem=problems.append)
    assert [(p.code, p.line) for p in problems] == [("invalid-loc", 1), ("invalid-loc", 2)]
    assert "not an absolute URL" in problems[0].message
    assert report.urls == 1


def test_a_relative_loc_without_a_base_url_is_an_error_naming_its_line() -> None:
    stream = io.StringIO("https://www.example.com/a\n/b\n")
    entries = list(iter_entries(stream, "text", "in.txt"))
    assert isinstance(entries[1], InputError)
    assert (entries[1].line, entries[1].field) == (2, "loc")
    assert "not an absolute URL" in str(entries[1])
    stream = io.StringIO("https://www.example.com/a\n/b\n")
    resolved = list(iter_entries(stream, "text", "in.txt", base_url=BASE))
    assert [url.loc for url in resolved] == [f"{BASE}a", f"{BASE}b"]  # type: ignore[union-attr]


def test_the_command_resolves_and_requires_a_base_url(tmp_path: Path) -> None:
    source = _source(tmp_path, "csv", RELATIVE)
    runner = CliRunner()
    done = runner.invoke(
        main,
        ["build", str(source), "--base-url", BASE, "--out", str(tmp_path / "out"), "--no-gzip"],
    )
    assert done.exit_code == 0, done.output
    assert "skipped" not in done.output
    missing = runner.invoke(main, ["build", str(source), "--out", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "--base-url" in missing.output


def test_stable_sections_and_update_resolve_too(tmp_path: Path) -> None:
    absolute = [_absolute(loc) for loc in RELATIVE]
    for name, locs in (("rel", RELATIVE), ("abs", absolute)):
        rows = [(loc, LASTMOD, None, None) for loc in locs]
        write_sitemaps(
            rows, tmp_path / name, BASE, gzip=False, now=NOW, stable=True, section="path:1"
        )
    assert _files(tmp_path / "rel") == _files(tmp_path / "abs")
    from urlset.writing.update import update_sitemaps

    for name, added, gone in (("rel", ["/new"], ["a/2"]), ("abs", [f"{BASE}new"], [f"{BASE}a/2"])):
        rows = [(loc, LASTMOD, None, None) for loc in added]
        report = update_sitemaps(
            rows, tmp_path / name, BASE, remove=gone, gzip=False, now=NOW, section="path:1"
        )
        assert report.changes == {"added": 1, "removed": 1}
    assert _files(tmp_path / "rel") == _files(tmp_path / "abs")


def test_sections_by_key_find_a_relative_loc(tmp_path: Path) -> None:
    entries = [{"loc": "/p/1", "kind": "products"}, {"loc": "blog/1", "kind": "blog"}]
    write_sitemaps(entries, tmp_path, BASE, gzip=False, now=NOW, section="kind")
    names = sorted(p.name.rsplit("-", 2)[0] for p in tmp_path.iterdir() if "-" in p.name)
    assert names == ["sitemap-blog", "sitemap-products"]


def _build_file(source: Path, out: Path, base: str = BASE, **options: Any) -> BuildReport:
    fmt = "text" if source.name.startswith("in.txt") else source.suffix[1:]
    with open_source(str(source)) as stream:
        batches = iter_batches(stream, fmt, source.name, rows=True)
        return write_sitemaps(
            chain.from_iterable(batches), out, base, gzip=False, now=NOW, **options
        )


def test_a_live_served_set_resolves_and_excludes_as_the_build(tmp_path: Path) -> None:
    """``serve``'s live sets build with ``write_sitemaps``: an application's paths are URLs."""
    from urlset.serve import LiveSet

    rows = [(loc, LASTMOD, None, None) for loc in [*RELATIVE, "/admin/x"]]
    live = LiveSet.from_iterable(rows, BASE, directory=tmp_path / "live", exclude="/admin/*")
    report = live.refresh()
    assert (report.urls, report.excluded, report.left_core) == (len(RELATIVE), 1, {})
    absolute = [(_absolute(loc), LASTMOD, None, None) for loc in RELATIVE]
    write_sitemaps(absolute, tmp_path / "abs", BASE, gzip=False, now=NOW, stable=True)
    assert {p.name for p in (tmp_path / "live").iterdir()} == set(_files(tmp_path / "abs"))


_PIECES = ["a", "/", "//", ".", "..", "?", "#", "&", "'", "%41", "%", "é", " ", ":", "~", "x.y"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=6), min_size=1, max_size=5))
def test_the_core_and_the_per_entry_way_agree_on_any_reference(
    tmp_path_factory: pytest.TempPathFactory, pieces: list[list[str]]
) -> None:
    """Whatever the core resolves and writes, the per-entry way (a zone to apply sends every
    row there) writes the same bytes; what one refuses, the other reports alike."""
    rows = [("".join(parts), None, None, None) for parts in pieces]
    base = "https://x.org/shop/"
    out = [tmp_path_factory.mktemp("core"), tmp_path_factory.mktemp("python")]
    reports = []
    for directory, tz in zip(out, (None, timezone.utc), strict=True):
        try:
            reports.append(
                write_sitemaps(
                    rows,
                    directory,
                    base,
                    gzip=False,
                    now=NOW,
                    default_tz=tz,
                    skip_out_of_scope=True,
                )
            )
        except LimitExceeded as exc:  # nothing left to write
            reports.append(str(exc).split("\n")[0])
    if isinstance(reports[0], str) or isinstance(reports[1], str):
        assert reports[0] == reports[1]
        return
    assert reports[0].rejected == reports[1].rejected
    assert _files(out[0]) == _files(out[1])

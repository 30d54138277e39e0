"""``--exclude PATTERN`` / ``exclude=``: URLs left out by a path glob (as ``--section``
takes them) or ``re:REGEX`` (searched in the URL, as ``fetch --follow``), on every lane, the
rows the core rendered staying in the core, and counted in the report."""

from __future__ import annotations

from datetime import UTC, datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from test_build_relative import LANES, LASTMOD
from urlset import write_sitemaps
from urlset.cli import main
from urlset.errors import InvalidValue, LimitExceeded
from urlset.writing.excludes import Excludes

BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
LOCS = ["/a", "/admin/x", "/admin/y/z", "/b?sessionid=1", "/blog/drafts/1", "/blog/drafts/1/2"]
PATTERNS = ["/admin/**", "re:[?&]sessionid=", "blog/drafts/*"]
KEPT = ["/a", "/blog/drafts/1/2"]


def _files(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


@pytest.mark.parametrize(
    ("pattern", "loc", "excluded"),
    [
        ("/admin/*", f"{BASE}admin/x", True),
        ("/admin/*", f"{BASE}admin/x/y", False),  # * stays within a segment
        ("/admin/**", f"{BASE}admin/x/y", True),
        ("admin/*", f"{BASE}admin/x?page=2", True),  # from the root; the query aside
        ("/admin/*", f"{BASE}shop/admin/x", False),  # the whole path
        ("/*.pdf", f"{BASE}file.pdf", True),
        ("re:/admin/", f"{BASE}shop/admin/x", True),  # searched anywhere
        ("re:^https://www\\.example\\.com/a$", f"{BASE}a", True),
        ("re:sessionid", f"{BASE}a?sessionid=1", True),
        ("re:(?i)SESSIONID", f"{BASE}a?sessionid=1", True),
        ("/caf%C3%A9", f"{BASE}caf%C3%A9", True),  # the URL as written: percent-encoded
    ],
)
def test_a_pattern_matches_as_documented(pattern: str, loc: str, excluded: bool) -> None:
    assert Excludes([pattern]).excludes(loc) is excluded


@pytest.mark.parametrize("bad", ["", "  ", "re:", "re:[", "re:(?"])
def test_a_bad_pattern_is_refused(bad: str) -> None:
    with pytest.raises(InvalidValue, match="exclude"):
        write_sitemaps([(f"{BASE}a", None, None, None)], "unused", BASE, exclude=[bad])


@pytest.mark.parametrize("lane", list(LANES))
def test_every_lane_leaves_out_what_the_patterns_match(tmp_path: Path, lane: str) -> None:
    make, in_core = LANES[lane]
    options: dict[str, Any] = {"gzip": False, "now": NOW}
    report = write_sitemaps(
        make(tmp_path, LOCS), tmp_path / "ex", BASE, exclude=PATTERNS, **options
    )
    write_sitemaps(make(tmp_path, KEPT), tmp_path / "kept", BASE, **options)
    assert _files(tmp_path / "ex") == _files(tmp_path / "kept")
    assert report.excluded == len(LOCS) - len(KEPT) and report.urls == len(KEPT)
    if in_core:
        assert report.left_core == {}  # excluded in the core's rendered runs


def test_the_per_entry_way_and_a_stable_set_exclude_alike(tmp_path: Path) -> None:
    rows = [(loc, LASTMOD, None, None) for loc in LOCS]
    kept = [(loc, LASTMOD, None, None) for loc in KEPT]
    for name, options in (
        ("tz", {"default_tz": timezone.utc}),
        ("stable", {"stable": True, "section": "path:1"}),
        ("mapping", {}),
    ):
        given = [{"loc": r[0], "lastmod": LASTMOD} for r in rows] if name == "mapping" else rows
        report = write_sitemaps(
            given, tmp_path / name, BASE, gzip=False, now=NOW, exclude=PATTERNS, **options
        )
        assert report.excluded == 4
        write_sitemaps(kept, tmp_path / f"{name}-kept", BASE, gzip=False, now=NOW, **options)
        assert _files(tmp_path / name) == _files(tmp_path / f"{name}-kept")


def test_an_excluded_url_outside_the_scope_is_not_an_error(tmp_path: Path) -> None:
    rows = [(f"{BASE}a", None, None, None), ("https://other.example/admin/x", None, None, None)]
    report = write_sitemaps(rows, tmp_path, BASE, gzip=False, exclude="/admin/**")
    assert report.excluded == 1 and not report.rejected


def test_when_every_url_is_excluded_the_build_says_so(tmp_path: Path) -> None:
    with pytest.raises(LimitExceeded, match="excluded: 2"):
        write_sitemaps([(f"{BASE}x/1",), (f"{BASE}x/2",)], tmp_path, BASE, exclude="/x/*")


def test_the_command_reports_and_refuses_a_bad_pattern(tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text("".join(f"{loc}\n" for loc in LOCS))
    args = ["build", str(source), "--base-url", BASE, "--out", str(tmp_path / "out")]
    flags = [flag for pattern in PATTERNS for flag in ("--exclude", pattern)]
    done = CliRunner().invoke(main, [*args, *flags])
    assert done.exit_code == 0, done.output
    assert "4 URLs excluded (--exclude)" in done.output and "2 URLs" in done.output
    bad = CliRunner().invoke(main, [*args, "--exclude", "re:["])
    assert (
        bad.exit_code == 2
        and "--exclude" in bad.output
        and "not a regular expression" in bad.output
    )

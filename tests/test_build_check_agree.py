"""build and check agree: a set that build wrote without a word passes check without a warning,
and every warning check gives on a built set is one build reported (same rule, same code, same
threshold), on generated inputs with every field and extension."""

from __future__ import annotations

import gzip
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_ext_props import alternates, images, news, videos
from urlset import CURRENT, Url, check_paths, write_sitemaps
from urlset.checking.checker import CheckOptions
from urlset.writing.build import BuildReport

NOW = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)
BASES = ["https://www.shop.org/", "https://www.example.com/", "http://localhost:8080/"]

_lastmods = st.sampled_from(
    [
        None,
        "2024-05-06",
        "2014",
        "2026-11-23",  # today: not in the future anywhere on Earth
        "2026-11-24",  # tomorrow: in the future until UTC+14 reaches it
        "2030-01-01",
        (NOW + timedelta(minutes=5)).isoformat(),
        (NOW - timedelta(minutes=5)).isoformat(),
    ]
)


@st.composite
def entries(draw: st.DrawFn, base: str) -> list[Url]:
    out = []
    for i in range(draw(st.integers(1, 8))):
        extensions = tuple(
            draw(st.lists(st.one_of(images(), videos(), news(), alternates()), max_size=3))
        )
        out.append(Url(f"{base}p/{i}", draw(_lastmods), extensions=extensions))
    return out


def _reported(report: BuildReport) -> set[str]:
    return {*report.rejected, *report.kept_without, *report.flagged, *report.notes}


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.sampled_from(BASES).flatmap(lambda base: st.tuples(st.just(base), entries(base))),
    st.integers(1, 4),
)
def test_check_warns_only_about_what_build_reported(
    case: tuple[str, list[Url]], max_urls: int
) -> None:
    base, urls = case
    out = Path(tempfile.mkdtemp())
    try:
        report = write_sitemaps(urls, out, base, now=NOW, limits=CURRENT.lowered(max_urls=max_urls))
        checked = check_paths([out], CheckOptions(base_url=base, now=NOW))
        found = {i.code for i in checked.issues if i.severity.value in ("error", "warning")}
        # hreflang reciprocity is a set rule the build command reports on its own (cli)
        found -= {"hreflang-not-reciprocal"}
        assert found <= _reported(report), (found - _reported(report), checked.issues)
        if not _reported(report):
            assert not found
    finally:
        shutil.rmtree(out)


def test_a_future_lastmod_is_written_without_it_and_reported(tmp_path: Path) -> None:
    urls = [
        Url("https://www.shop.org/a", "2030-01-01"),
        Url("https://www.shop.org/b", "2026-11-23"),
    ]
    seen: list[object] = []
    report = write_sitemaps(
        urls, tmp_path, "https://www.shop.org/", now=NOW, on_problem=seen.append
    )
    assert report.kept_without == {"future-lastmod": 1}
    assert "lastmod 2030-01-01 is after 2026-11-23" in report.warnings[0]
    rows = [("https://www.shop.org/c", "2030-01-01", None, None)]  # the rows fast path too
    report = write_sitemaps(rows, tmp_path / "rows", "https://www.shop.org/", now=NOW)
    assert report.kept_without == {"future-lastmod": 1}
    assert b"<lastmod>" not in gzip.decompress((tmp_path / "rows" / "sitemap.xml.gz").read_bytes())
    checked = check_paths([tmp_path], CheckOptions(base_url="https://www.shop.org/", now=NOW))
    assert not [i for i in checked.issues if i.code == "future-lastmod"]

"""Videos rendered in the compiled core, every field the class writes: a source's rows (a
CSV/TSV ``extensions`` column, a JSON Lines ``videos`` key) and Python rows of typed values
are written byte for byte as the per-entry way writes the same entries, with the same
problems, and only the rows whose videos Python must judge leave the core (counted in
``BuildReport.left_core``).

Enumerated: each field of ``extensions.video.Video`` (the fields the reader's core types,
then the player's attributes, rating, restriction, gallery and its title, prices, the
uploader's info URL, platform), each in the spellings JSON gives it (text, number, bool,
object, list) and in a spelling Python must judge."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Any

import pytest

from urlset import write_sitemaps
from urlset.extensions.registry import from_json_fields
from urlset.writing.build import BuildReport
from urlset.writing.sources import detect_format, iter_batches, open_source

BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
_VIDEO = {
    "thumbnail_loc": f"{BASE}t/1.jpg",
    "title": "A & B",
    "description": "It's <new>",
    "content_loc": f"{BASE}v/1.mp4",
}


def _video(**fields: Any) -> list[dict[str, Any]]:
    return [{**_VIDEO, **fields}]


# videos the core takes: each field the reader's core does not type, in each spelling
TAKEN: list[list[dict[str, Any]]] = [
    _video(player_loc=f"{BASE}p?a=1&b=2", player_allow_embed="YES", player_autoplay="ap=1&x"),
    _video(player_loc=f"{BASE}p", player_allow_embed=False),
    _video(player_loc=f"{BASE}p", player_autoplay=" on "),
    _video(rating=4.25),
    _video(rating=5),
    _video(rating=0.1),
    _video(rating=" 3.5 "),
    _video(restriction={"relationship": "Allow", "values": ["US", "GB"]}),
    _video(restriction={"relationship": " deny ", "values": "DE FR"}),
    _video(restriction={"relationship": "allow"}),
    _video(platform={"relationship": "deny", "values": ["tv", "mobile"]}),
    _video(gallery_loc=f"{BASE}g/é?x=1&y=2", gallery_title="Café & co"),
    _video(gallery_loc=f"{BASE}g", gallery_title="  "),
    _video(prices=[{"amount": "1.99", "currency": "eur"}]),
    _video(
        prices=[
            {"amount": 2, "currency": "USD", "type": "RENT", "resolution": "hd"},
            {"amount": 3.5, "currency": " gbp ", "type": "purchase", "resolution": None},
        ]
    ),
    _video(prices=[]),
    _video(uploader="Ann <a>", uploader_info=f"{BASE}u/ann?x=1&y=2"),
    _video(
        player_loc=f"{BASE}p",
        player_allow_embed=True,
        rating=2,
        restriction={"relationship": "allow", "values": ["US"]},
        gallery_loc=f"{BASE}g",
        prices=[{"amount": "0", "currency": "EUR"}],
        uploader="Ann",
        uploader_info=f"{BASE}u",
        platform={"relationship": "allow", "values": ["web"]},
        duration=60,
        tags=["a", "b"],
        live="no",
    ),
]
# videos Python judges: each gives a problem, or a spelling the core leaves to Python
LEFT: list[list[dict[str, Any]]] = [
    _video(player_allow_embed="yes"),  # no player_loc
    _video(player_loc=f"{BASE}p", player_allow_embed="maybe"),
    _video(rating=5.5),
    _video(rating="4.5e0"),
    _video(rating=True),
    _video(restriction={"relationship": "allow", "values": ["us"]}),
    _video(restriction={"relationship": "maybe", "values": ["US"]}),
    _video(restriction={"relationship": "allow", "values": ["US"], "x": 1}),
    _video(restriction="US"),
    _video(platform={"relationship": "allow", "values": ["desktop"]}),
    _video(gallery_title="no gallery"),
    _video(gallery_loc="not a uri"),
    _video(prices=[{"amount": "1,99", "currency": "EUR"}]),
    _video(prices=[{"amount": "1", "currency": "EURO"}]),
    _video(prices=[{"amount": "1", "currency": "EUR", "type": "lend"}]),
    _video(prices=[{"amount": "1"}]),
    _video(prices={"amount": "1", "currency": "EUR"}),
    _video(uploader_info=f"{BASE}u"),  # no uploader
    _video(player_loc=f"{BASE}p", player_autoplay="a\tb"),
]


def _rows(count: int, every: int) -> list[tuple[str, str, list[Any] | None]]:
    shapes = TAKEN + LEFT
    rows: list[tuple[str, str, list[Any] | None]] = []
    for n in range(count):
        videos = shapes[(n // every) % len(shapes)] if n % every == 0 else None
        rows.append((f"{BASE}p/{n}?q={n}&r='s'", f"2024-05-{1 + n % 28:02d}", videos))
    return rows


def _source(fmt: str, rows: list[tuple[str, str, list[Any] | None]]) -> bytes:
    if fmt == "jsonl":
        lines = []
        for loc, lastmod, videos in rows:
            entry: dict[str, Any] = {"loc": loc, "lastmod": lastmod}
            if videos is not None:
                entry["videos"] = videos
            lines.append(json.dumps(entry, ensure_ascii=len(lines) % 2 == 0) + "\n")
        return "".join(lines).encode()
    out = io.StringIO()
    writer = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
    writer.writerow(["loc", "lastmod", "extensions"])
    for loc, lastmod, videos in rows:
        writer.writerow([loc, lastmod, "" if videos is None else json.dumps({"videos": videos})])
    return out.getvalue().encode()


def _build(entries: Any, out: Path, **options: Any) -> tuple[BuildReport, Counter[str], bytes]:
    problems: list[Any] = []
    report = write_sitemaps(
        entries, out, BASE, gzip=False, now=NOW, on_problem=problems.append, **options
    )
    files = b"".join(p.read_bytes() for p in sorted(out.iterdir()) if p.is_file())
    return report, Counter(str(list(p)) for p in problems), files


def _from_source(path: Path, out: Path, *, rows: bool) -> tuple[BuildReport, Counter[str], bytes]:
    with open_source(str(path)) as stream:
        batches = iter_batches(stream, detect_format(path.name), path.name, rows=rows)
        return _build(chain.from_iterable(batches), out)


def _counts(report: BuildReport) -> tuple[Any, ...]:
    return (report.urls, report.rejected, report.kept_without, report.flagged, report.noted)


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_videos_are_written_in_the_core_as_the_per_entry_way_writes_them(
    tmp_path: Path, fmt: str
) -> None:
    rows = _rows(len(TAKEN + LEFT) * 5, 5)
    path = tmp_path / f"in.{fmt}"
    path.write_bytes(_source(fmt, rows))
    report, problems, files = _from_source(path, tmp_path / "core", rows=True)
    careful, careful_problems, careful_files = _from_source(path, tmp_path / "careful", rows=False)
    assert files == careful_files
    assert problems == careful_problems
    assert _counts(report) == _counts(careful)
    reason = "json-line" if fmt == "jsonl" else "extensions"
    assert report.left_core == Counter({reason: len(LEFT)})
    for written in (
        b'<video:player_loc allow_embed="yes" autoplay="ap=1&amp;x">',
        b"<video:rating>4.25</video:rating>",
        b"<video:rating>5.0</video:rating>",
        b'<video:restriction relationship="deny">DE FR</video:restriction>',
        b'<video:platform relationship="deny">tv mobile</video:platform>',
        b'<video:gallery_loc title="Caf\xc3\xa9 &amp; co">https://www.example.com/g/%C3%A9',
        b'<video:price currency="USD" type="rent" resolution="hd">2</video:price>',
        b'<video:price currency="GBP" type="purchase">3.5</video:price>',
        b'<video:uploader info="https://www.example.com/u/ann?x=1&amp;y=2">Ann &lt;a&gt;',
    ):
        assert written in files


def test_typed_video_values_are_written_in_the_core(tmp_path: Path) -> None:
    """Python rows whose fifth value holds typed ``Video`` values (every field): the core
    writes them as the per-entry way does (a build option that bypasses the core)."""
    rows = [
        (loc, lastmod, None, None, from_json_fields({"videos": videos}))
        for loc, lastmod, videos in _rows(len(TAKEN), 1)
    ]
    report, problems, files = _build(rows, tmp_path / "core")
    careful, careful_problems, careful_files = _build(rows, tmp_path / "careful", default_tz=UTC)
    assert careful.left_core == {"default-tz": len(rows)}
    assert report.left_core == {}
    assert (files, problems, _counts(report)) == (careful_files, careful_problems, _counts(careful))

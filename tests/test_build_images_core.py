"""Images rendered in the compiled core: a source's rows with images (a CSV/TSV ``extensions``
column, a JSON Lines ``images`` key, gzipped or not) are written byte for byte as the
per-entry way writes the same entries, with the same problems, and only the rows whose
images the core leaves to Python leave it (counted in ``BuildReport.left_core``)."""

from __future__ import annotations

import csv
import gzip
import io
import json
from collections import Counter
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from urlset import write_sitemaps
from urlset.cli import main
from urlset.limits import CURRENT
from urlset.writing.build import BuildReport
from urlset.writing.sources import detect_format, iter_batches, open_source

BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)

# images the core takes: every field, escapes, IRIs, non-ASCII texts, blank fields, nulls
TAKEN: list[list[dict[str, Any]]] = [
    [{"loc": f"{BASE}i/a.jpg"}],
    [{"loc": f"{BASE}i/a.jpg?x=1&y='2'", "title": "A & B <c> \"d\" 'e'"}],
    [{"loc": "https://cdn.example.org/é/ü.png", "caption": " Café au lait ", "title": "日本"}],
    [
        {"loc": "https://CDN.Example.org:8443/b.png", "geo_location": "Zürich, CH"},
        {"loc": f"{BASE}i/c.jpg", "license": "https://example.org/licence?a=1&b=2"},
    ],
    [{"loc": f"{BASE}i/d.jpg", "caption": "   ", "title": None, "license": ""}],
    [{"loc": f"{BASE}i/%E2%82%AC.jpg", "title": "— “quoted” …"}],
    [],
]
# images Python judges: each gives a problem, and the row leaves the core alone
LEFT: list[list[dict[str, Any]]] = [
    [{"loc": "/relative.jpg"}],
    [{"loc": f"{BASE}i/e.jpg", "title": "tab\there"}],
    [{"loc": f"{BASE}i/f.jpg", "colour": "red"}],
    [{"title": "no loc"}],
    [{"loc": f"{BASE}i/g.jpg", "license": "not a uri"}],
    [{"loc": f"{BASE}i/h.jpg", "title": 3}],
    [{"loc": f"{BASE}i/{n}.jpg"} for n in range(1001)],
]


def _rows(count: int, every: int, first: int = 0) -> list[tuple[str, str, list[Any] | None]]:
    rows: list[tuple[str, str, list[Any] | None]] = []
    shapes = TAKEN + LEFT
    for n in range(count):
        images = None
        if n >= first and n % every == 0:
            images = shapes[(n // every) % len(shapes)]
        rows.append(
            (f"{BASE}p/{n}?q={n}&r='s'", f"2024-05-{1 + n % 28:02d}T10:00:00+02:00", images)
        )
    return rows


def _source(fmt: str, rows: list[tuple[str, str, list[Any] | None]], gz: bool) -> bytes:
    if fmt == "jsonl":
        lines = []
        for loc, lastmod, images in rows:
            entry: dict[str, Any] = {"loc": loc, "lastmod": lastmod}
            if images is not None:
                entry["images"] = images
            lines.append(json.dumps(entry, ensure_ascii=len(lines) % 2 == 0) + "\n")
        data = "".join(lines).encode()
    else:
        out = io.StringIO()
        writer = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
        writer.writerow(["loc", "lastmod", "extensions"])
        for loc, lastmod, images in rows:
            cell = "" if images is None else json.dumps({"images": images})
            writer.writerow([loc, lastmod, cell])
        data = out.getvalue().encode()
    return gzip.compress(data, mtime=0) if gz else data


def _build(
    path: Path, out: Path, *, rows: bool, max_urls: int = 700
) -> tuple[BuildReport, list[str], dict[str, bytes]]:
    problems: list[Any] = []
    name = path.name.removesuffix(".gz")
    with open_source(str(path)) as stream:
        batches = iter_batches(stream, detect_format(name), path.name, rows=rows)
        report = write_sitemaps(
            chain.from_iterable(batches),
            out,
            BASE,
            gzip=False,
            now=NOW,
            on_problem=problems.append,
            limits=CURRENT.lowered(max_urls=max_urls),
        )
    files = {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}
    return report, [str(list(p)) for p in problems], files


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_images_are_written_in_the_core_as_the_per_entry_way_writes_them(
    tmp_path: Path, fmt: str, gz: bool
) -> None:
    rows = _rows(3000, 7)
    path = tmp_path / f"in.{fmt}{'.gz' if gz else ''}"
    path.write_bytes(_source(fmt, rows, gz))
    report, problems, files = _build(path, tmp_path / "core", rows=True)
    careful, careful_problems, careful_files = _build(path, tmp_path / "careful", rows=False)
    assert files == careful_files
    assert Counter(problems) == Counter(careful_problems)

    def counts(r: BuildReport) -> tuple[Any, ...]:
        return (r.urls, r.rejected, r.kept_without, r.flagged, r.noted)

    assert counts(report) == counts(careful)
    with_images = [images for _, _, images in rows if images is not None]
    left = sum(images in LEFT for images in with_images)
    reason = "json-line" if fmt == "jsonl" else "extensions"
    assert report.left_core == Counter({reason: left})
    assert (
        b"<image:title>A &amp; B &lt;c&gt; &quot;d&quot; &apos;e&apos;</image:title>"
        in b"".join(files.values())
    )
    assert report.noted["image-deprecated-field"] > 0


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_images_first_met_past_the_root_are_declared_on_their_url(tmp_path: Path, fmt: str) -> None:
    """The document's first image comes after its first MiB was handed on: the root is
    written, so each entry with images declares the namespace, as the per-entry way does."""
    rows = _rows(20_000, 3, first=17_000)  # past two batches of 8,192 (~1.9 MB)
    path = tmp_path / f"in.{fmt}"
    path.write_bytes(_source(fmt, rows, False))
    report, problems, files = _build(path, tmp_path / "core", rows=True, max_urls=50_000)
    _, careful_problems, careful_files = _build(
        path, tmp_path / "careful", rows=False, max_urls=50_000
    )
    assert files == careful_files
    assert Counter(problems) == Counter(careful_problems)
    assert any(b'<url xmlns:image="' in text for text in files.values())
    assert set(report.left_core) <= {"json-line", "extensions"}


def test_build_verbose_prints_the_rows_that_left_the_core(tmp_path: Path) -> None:
    rows = _rows(200, 7)  # each shape, those Python judges among them
    src = tmp_path / "in.csv"
    src.write_bytes(_source("csv", rows, False))
    args = ["build", str(src), "--base-url", BASE, "--out", str(tmp_path / "o"), "-v"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    left = sum(images in LEFT for _, _, images in rows)
    assert f"urlset build: {left} rows the per-entry way: extensions {left}" in result.output
    src.write_bytes(_source("csv", _rows(40, 100), False))
    result = CliRunner().invoke(main, [*args[:-2], str(tmp_path / "p"), "--verbose"])
    assert "urlset build: every row through the compiled core" in result.output
    quiet = CliRunner().invoke(main, [*args[:-1], str(tmp_path / "q")])
    assert "urlset build:" not in quiet.output

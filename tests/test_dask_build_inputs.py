"""What a local build takes, the Dask build takes too, with the same result: extension columns
and keys (so ``--news-window`` keeps only recent articles' news there as well), relative locs
resolved against the base URL, ``--exclude``, each text part by its own header and compression,
from a path or an fsspec URL (sections: test_dask_build_sections.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from urlset import write_sitemaps

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

from urlset.dask import build

BASE = "https://news.example.org/"
NOW = datetime(2026, 3, 10, 12, tzinfo=UTC)
WINDOW = timedelta(days=2)


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir()) if p.is_file()}


def _articles(count: int) -> list[dict[str, str]]:
    """Articles a few hours apart (the newer ones inside the window), relative and absolute
    locs, some in a section the build excludes."""
    out = []
    for i in range(count):
        published = (NOW - timedelta(hours=7 * i)).isoformat().replace("+00:00", "Z")
        loc = f"/world/{i}" if i % 3 else f"{BASE}sport/{i}"
        if i % 10 == 4:
            loc = f"drafts/{i}"
        out.append(
            {
                "loc": loc,
                "lastmod": published,
                "news_name": "The Example",
                "news_language": "en",
                "news_publication_date": published,
                "news_title": f"Story {i}",
            }
        )
    return out


def _write_csv(articles: list[dict[str, str]], path: Path) -> None:
    header = list(articles[0])
    lines = [",".join(header)] + [",".join(a[k] for k in header) for a in articles]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_jsonl(articles: list[dict[str, str]], path: Path) -> None:
    lines = []
    for a in articles:
        news = {
            "publication_name": a["news_name"],
            "language": a["news_language"],
            "publication_date": a["news_publication_date"],
            "title": a["news_title"],
        }
        lines.append(json.dumps({"loc": a["loc"], "lastmod": a["lastmod"], "news": news}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_news_window_relative_locs_and_exclude_build_as_the_local_build(
    dask_client: Any, tmp_path: Path, fmt: str
) -> None:
    articles = _articles(60)
    write = _write_csv if fmt == "csv" else _write_jsonl
    (tmp_path / "in").mkdir()
    parts = [tmp_path / "in" / f"part-{n}.{fmt}" for n in range(3)]
    for n, part in enumerate(parts):
        write(articles[n * 20 : (n + 1) * 20], part)
    whole = tmp_path / f"whole.{fmt}"
    write(articles, whole)
    options: dict[str, Any] = {"now": NOW, "news_window": WINDOW, "exclude": ["/drafts/*"]}
    options["gzip"] = False
    local = _local(whole, tmp_path / "local", options)
    spread = build([str(p) for p in parts], tmp_path / "dask", BASE, client=dask_client, **options)
    assert _files(tmp_path / "dask") == _files(tmp_path / "local")
    assert spread.news_outside_window == local.news_outside_window > 0
    assert spread.excluded == local.excluded == 6
    assert spread.urls == local.urls == 54 and not spread.rejected
    text = b"".join(_files(tmp_path / "dask").values())
    assert b"<news:news>" in text and b"drafts" not in text  # gzip off: readable


def _local(source: Path, out: Path, options: dict[str, Any]) -> Any:
    from itertools import chain

    from urlset.writing.sources import iter_batches, open_source

    fmt = source.suffix[1:]
    with open_source(str(source)) as stream:
        batches = list(chain.from_iterable(iter_batches(stream, fmt, source.name, rows=True)))
    return write_sitemaps(batches, out, BASE, stable=True, **options)


def test_each_text_part_is_read_by_its_own_header_from_a_path_or_an_fsspec_url(
    dask_client: Any, tmp_path: Path
) -> None:
    """Each CSV part is read as a local build reads it, by its own header (its columns in
    its own order), gzipped or not, from a path or a ``file://`` URL (read through fsspec)."""
    import gzip

    articles = _articles(40)
    (tmp_path / "in").mkdir()
    first, second = tmp_path / "in" / "part-0.csv", tmp_path / "in" / "part-1.csv.gz"
    _write_csv(articles[:20], first)
    header = list(reversed(list(articles[0])))
    rows = [",".join(header)] + [",".join(a[k] for k in header) for a in articles[20:]]
    second.write_bytes(gzip.compress(("\n".join(rows) + "\n").encode()))
    whole = tmp_path / "whole.csv"
    _write_csv(articles, whole)
    options: dict[str, Any] = {"now": NOW, "gzip": False}
    local = _local(whole, tmp_path / "local", options)
    sources = [str(first), second.as_uri()]
    spread = build(sources, tmp_path / "dask", BASE, client=dask_client, **options)
    assert _files(tmp_path / "dask") == _files(tmp_path / "local")
    assert spread.urls == local.urls == 40 and not spread.rejected

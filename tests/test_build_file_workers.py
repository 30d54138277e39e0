"""The threads that compress and write a build's files are kept for later files: a build of
many small files (a news site's, 1,000 articles a file) starts a few, not one a file; files
open together (one a section) never wait for one another; a forked child builds too."""

from __future__ import annotations

import gzip
import multiprocessing
import threading
from pathlib import Path

import pytest

from urlset.limits import Limits
from urlset.writing.build import write_sitemaps

BASE = "https://www.example.com/"


def _entries(count: int, sections: int = 1) -> list[tuple[str, str]]:
    return [(f"{BASE}s{i % sections}/p{i}", "2024-05-06") for i in range(count)]


def _listed(out: Path) -> set[str]:
    found = set()
    for path in out.glob("sitemap-*.xml.gz"):
        text = gzip.decompress(path.read_bytes()).decode()
        found.update(part.split("</loc>")[0] for part in text.split("<loc>")[1:])
    return found


def test_a_build_of_many_files_reuses_a_few_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[threading.Thread] = []
    start = threading.Thread.start

    def counted(thread: threading.Thread) -> None:
        started.append(thread)
        start(thread)

    monkeypatch.setattr(threading.Thread, "start", counted)
    limits = Limits("small", max_urls=10, max_sitemaps_per_index=1000)
    write_sitemaps(_entries(600), tmp_path / "a", BASE, limits=limits)
    write_sitemaps(_entries(600), tmp_path / "b", BASE, limits=limits)
    assert len(list((tmp_path / "a").glob("sitemap-*.xml.gz"))) == 60
    # 120 files: the one written and those finishing beside it, in threads kept between
    # files and builds (a new one only while a finished file's thread is not back yet)
    assert len(started) <= 8, len(started)
    assert _listed(tmp_path / "b") == {loc for loc, _ in _entries(600)}


def test_files_open_together_each_get_a_thread(tmp_path: Path) -> None:
    # twelve sections interleaved: twelve files open at once, each waiting for rows
    limits = Limits("small", max_urls=50, max_sitemaps_per_index=1000)
    entries = _entries(12 * 200, sections=12)
    write_sitemaps(entries, tmp_path, BASE, limits=limits, section="path:1")
    assert _listed(tmp_path) == {loc for loc, _ in entries}


def _build_in_child(out: str) -> None:
    write_sitemaps(_entries(300), out, BASE, limits=Limits("s", max_urls=10))


def test_a_forked_child_builds_after_its_parent_did(tmp_path: Path) -> None:
    write_sitemaps(_entries(300), tmp_path / "parent", BASE, limits=Limits("s", max_urls=10))
    child = multiprocessing.get_context("fork").Process(
        target=_build_in_child, args=(str(tmp_path / "child"),)
    )
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert _listed(tmp_path / "child") == {loc for loc, _ in _entries(300)}

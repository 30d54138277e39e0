"""Files given to check by name: reported as pathlib writes them, each checked once, without
loading pathlib for a name it would write as given (checking/files.py ``written``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from urlset.checking.checker import CheckOptions, check_paths
from urlset.checking.files import written

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


@given(st.text(alphabet="/.ab", max_size=12))
def test_a_name_is_written_as_pathlib_writes_it(name: str) -> None:
    assert written(name) == str(Path(name))
    assert written(Path(name)) == str(Path(name))


def test_names_pathlib_writes_otherwise_are_taken_through_it() -> None:
    for name in ("", ".", "./a.xml", "a//b.xml", "a/./b.xml", "a/", "a/.", "//a", "///a"):
        assert written(name) == str(Path(name)), name
    for name in ("a.xml", "/tmp/a.xml", "../a.xml", "a/../b.xml", ".a", "a."):
        assert written(name) == name


def _urlset(loc: str) -> bytes:
    return f'<urlset xmlns="{NS}"><url><loc>{loc}</loc></url></urlset>'.encode()


def test_a_file_given_by_several_names_and_in_its_folder_is_checked_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "a.xml").write_bytes(_urlset("https://www.shop.org/a"))
    (folder / "b.xml").write_bytes(_urlset("https://www.shop.org/b"))
    os.symlink(folder / "a.xml", tmp_path / "link.xml")
    monkeypatch.chdir(tmp_path)
    names = ["site/a.xml", "./site/a.xml", "site//a.xml", "link.xml", "site", "site/b.xml"]
    report = check_paths(names)
    assert [f.source for f in report.files] == ["site/a.xml", "site/b.xml"]
    report = check_paths(["./site/", "site/a.xml", "missing.xml", "./missing.xml"])
    assert [f.source for f in report.files] == ["site/a.xml", "site/b.xml", "missing.xml"]
    assert report.not_started == ["missing.xml"]


@pytest.mark.parametrize("name", ["index.xml", "./index.xml"])
def test_an_index_given_by_name_finds_its_children_beside_it(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "index.xml").write_bytes(
        f'<sitemapindex xmlns="{NS}">'
        "<sitemap><loc>https://www.shop.org/a.xml</loc></sitemap>"
        "<sitemap><loc>https://www.shop.org/b.xml</loc></sitemap></sitemapindex>".encode()
    )
    (tmp_path / "a.xml").write_bytes(_urlset("https://www.shop.org/a"))
    monkeypatch.chdir(tmp_path)
    options = CheckOptions(base_url="https://www.shop.org/index.xml")
    report = check_paths([name, "a.xml"], options)
    assert [f.source for f in report.files] == ["index.xml", "a.xml"]
    missing = [i for i in report.files[0].issues if i.code == "missing-child"]
    assert [i.message.count("b.xml") > 0 for i in missing] == [True]

"""Sections: each named part of a site in its own files, named after it and listed together
in one index, whichever way the section is given (path:N, named patterns, a key of the
entries, a callable; the CLI's --section-by and --section) and whichever way the entries
come (rows the core renders, Url values, mappings)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from helpers import locs
from urlset import SITEMAPS_2008, InvalidValue, Url
from urlset.cli import main
from urlset.writing.build import write_sitemaps
from urlset.writing.sections import DEFAULT, Sections, checked_name, slug

BASE = "https://www.example.com/"
FOUR = SITEMAPS_2008.lowered(max_urls=4)
SITE = [
    *(f"{BASE}p/{i}" for i in range(7)),
    *(f"{BASE}blog/2024/post-{i}" for i in range(3)),
    f"{BASE}blog/intro",
    f"{BASE}about",
    BASE,
]
_CHILD = re.compile(r"sitemap-(?P<section>[a-z0-9_-]+)-(?P<n>\d+)-[0-9a-f]{16}\.xml")


def _sections(out: Path) -> dict[str, list[str]]:
    """section -> its URLs, from the files the index lists, in the index's order."""
    index = out / "sitemap.xml"
    found: dict[str, list[str]] = {}
    for child in locs(index):
        name = child.rsplit("/", 1)[1]
        match = _CHILD.fullmatch(name)
        assert match is not None, name
        found.setdefault(match["section"], []).extend(locs(out / name))
    assert {p.name for p in out.iterdir()} == {"sitemap.xml"} | {
        c.rsplit("/", 1)[1] for c in locs(index)
    }
    return found


def _build(entries: Any, out: Path, **options: Any) -> dict[str, list[str]]:
    write_sitemaps(entries, out, BASE, gzip=False, limits=FOUR, **options)
    return _sections(out)


def test_path_sections_split_at_the_limits_on_their_own_and_share_the_index(
    tmp_path: Path,
) -> None:
    found = _build([(loc,) for loc in SITE], tmp_path, section="path:1")
    assert found == {
        "blog": [*(f"{BASE}blog/2024/post-{i}" for i in range(3)), f"{BASE}blog/intro"],
        DEFAULT: [f"{BASE}about", BASE],
        "p": [f"{BASE}p/{i}" for i in range(7)],
    }
    names = sorted(p.name for p in tmp_path.glob("sitemap-p-*"))
    assert [_CHILD.fullmatch(n)["n"] for n in names] == ["1", "2"]  # type: ignore[index]
    deeper = _build([(loc,) for loc in SITE], tmp_path / "two", section="path:2")
    assert deeper["blog-2024"] == [f"{BASE}blog/2024/post-{i}" for i in range(3)]
    assert deeper["blog"] == [f"{BASE}blog/intro"]


def test_rows_the_core_renders_and_url_values_give_the_same_files(tmp_path: Path) -> None:
    """The rendered batch is cut by section (RenderedRows.select), the Url batch by lists."""
    _build([(loc, "2024-05-01") for loc in SITE], tmp_path / "rows", section="path:1")
    _build([Url(loc, "2024-05-01") for loc in SITE], tmp_path / "urls", section="path:1")
    rows = {p.name: p.read_bytes() for p in (tmp_path / "rows").iterdir()}
    assert rows == {p.name: p.read_bytes() for p in (tmp_path / "urls").iterdir()}


def test_named_patterns_first_match_wins_and_the_rest_is_other(tmp_path: Path) -> None:
    patterns = Sections.by_patterns([("posts", "/blog/2024/*"), ("blog", "/blog/**")])
    found = _build([Url(loc) for loc in SITE], tmp_path, section=patterns)  # Url values
    assert found["posts"] == [f"{BASE}blog/2024/post-{i}" for i in range(3)]
    assert found["blog"] == [f"{BASE}blog/intro"]
    assert found[DEFAULT] == [*(f"{BASE}p/{i}" for i in range(7)), f"{BASE}about", BASE]
    one_segment = Sections.by_patterns([("top", "/*")])  # * stays inside one segment
    assert one_segment.of([f"{BASE}about", f"{BASE}p/1", BASE]) == ["top", DEFAULT, "top"]


def test_a_key_of_the_entries_or_a_callable_names_the_section(tmp_path: Path) -> None:
    rows = [{"loc": loc, "kind": "product" if "/p/" in loc else None} for loc in SITE]
    rows[0]["loc"] = f"{BASE}p/caf\u00e9"  # kept under the loc as the build writes it
    found = _build(rows, tmp_path / "key", section="kind")
    assert found["product"][0] == f"{BASE}p/caf%C3%A9"
    assert len(found["product"]) == 7 and len(found[DEFAULT]) == len(SITE) - 7

    def kind(loc: str) -> str | None:
        return "posts" if "/blog/" in loc else None

    found = _build([Url(loc) for loc in SITE], tmp_path / "callable", section=kind)
    assert sorted(found) == [DEFAULT, "posts"] and len(found["posts"]) == 4


@pytest.mark.parametrize(
    "bad", ["Blog", "", "../up", "a b", "2024", "index", "x" * 41, "-lead", None, 3]
)
def test_a_section_name_must_be_a_safe_file_name_part(bad: object, tmp_path: Path) -> None:
    with pytest.raises(InvalidValue):
        checked_name(bad)
    with pytest.raises(InvalidValue, match=re.escape(f"section of {BASE}p/0")):
        write_sitemaps([(loc,) for loc in SITE], tmp_path, BASE, section=lambda loc: bad or "Bad")
    assert list(tmp_path.iterdir()) == []  # nothing published


def test_path_segments_become_safe_names() -> None:
    assert slug("Caf%C3%A9-Menu") == "caf-c3-a9-menu"
    assert slug("2024") == "s-2024" and slug("index") == "s-index" and slug("%%") == DEFAULT
    by_path = Sections.by_path(1)
    assert by_path.of([f"{BASE}Shop/x", f"{BASE}2024/x", f"{BASE}x?a=/b/"]) == [
        "shop",
        "s-2024",
        DEFAULT,
    ]


def test_one_section_still_has_an_index_and_a_later_build_without_sections_cleans_up(
    tmp_path: Path,
) -> None:
    assert list(_build([(f"{BASE}p/1",)], tmp_path, section="path:1")) == ["p"]
    write_sitemaps([(f"{BASE}p/1",)], tmp_path, BASE, gzip=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sitemap.xml"]
    assert locs(tmp_path / "sitemap.xml") == [f"{BASE}p/1"]


def test_the_command_takes_sections_and_refuses_bad_ones(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("\n".join(SITE) + "\n")
    runner = CliRunner()
    common = [str(source), "--base-url", BASE, "--no-gzip", "--max-urls", "4"]
    out = tmp_path / "patterns"
    args = ["--section", "products=/p/*", "--section", "blog=/blog/**"]
    result = runner.invoke(main, ["build", *common, "--out", str(out), *args])
    assert result.exit_code == 0, result.output
    assert sorted(_sections(out)) == ["blog", DEFAULT, "products"]
    # the rule as given, also from an iterator (the command's): a stable set keeps it
    given = iter([("products", "/p/*"), ("blog", "/blog/**")])
    assert Sections.by_patterns(given).describe == "products=/p/*, blog=/blog/**"
    out = tmp_path / "path"
    result = runner.invoke(main, ["build", *common, "--out", str(out), "--section-by", "path:1"])
    assert result.exit_code == 0, result.output
    assert sorted(_sections(out)) == ["blog", DEFAULT, "p"]
    assert runner.invoke(main, ["check", str(out)]).exit_code == 0
    for wrong in (
        ["--section-by", "path:0"],
        ["--section-by", "host"],
        ["--section", "Products=/p/*"],
        ["--section", "products"],
        ["--section", f"{DEFAULT}=/x/*"],
        ["--section-by", "path:1", "--section", "p=/p/*"],
    ):
        result = runner.invoke(main, ["build", *common, "--out", str(tmp_path / "no"), *wrong])
        assert result.exit_code == 2, (wrong, result.output)
        assert "Error:" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize(
    ("loc", "section"),
    [
        ("https://www.example.com", DEFAULT),
        ("https://www.example.com?q=/shop/x/", DEFAULT),  # a query is not the path
        ("https://www.example.com/about#/shop/x/", DEFAULT),  # nor is a fragment
        ("https://www.example.com/shop/x?y=/z/", "shop"),
        ("https://www.example.com/Shop/", "shop"),
    ],
)
def test_the_section_of_a_path_is_read_from_the_path_alone(loc: str, section: str) -> None:
    assert Sections.by_path(1).of([loc]) == [section]


_SEGMENT = st.text(alphabet="aZ0_-.%/?#:", max_size=6)


@given(
    paths=st.lists(st.lists(_SEGMENT, max_size=4).map("/".join), min_size=2, max_size=8),
    depth=st.integers(1, 3),
)
def test_path_sections_of_a_batch_are_those_of_each_loc(paths: list[str], depth: int) -> None:
    # the batch pass (one pattern over the joined locs) names each loc as the loc alone does
    rule = Sections.by_path(depth)
    batch = [f"https://www.example.com{'/' if i % 3 else ''}{p}" for i, p in enumerate(paths)]
    assert rule.of(batch) == [rule.of([loc])[0] for loc in batch]


_GLOB = st.lists(st.sampled_from(["/", "a", "Z", "*", "**", ".", "-"]), max_size=6).map("".join)


@given(
    paths=st.lists(st.lists(_SEGMENT, max_size=4).map("/".join), min_size=2, max_size=8),
    globs=st.lists(_GLOB, min_size=1, max_size=3),
)
def test_pattern_sections_of_a_batch_are_those_of_each_loc(
    paths: list[str], globs: list[str]
) -> None:
    # the batch pass (the patterns as alternatives over the joined locs) as loc by loc
    rule = Sections.by_patterns([(f"s{i}", glob) for i, glob in enumerate(globs)])
    batch = [f"https://www.example.com{'/' if i % 3 else ''}{p}" for i, p in enumerate(paths)]
    assert rule.of(batch) == [rule.of([loc])[0] for loc in batch]

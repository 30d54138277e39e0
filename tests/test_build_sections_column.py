"""Sections named by the input: a ``section`` column of CSV and TSV, a ``section`` key of JSON
Lines (``--section-by column:section``), a column of an Arrow table or DataFrame. Each
format's rows the core reads stay in the core; a row read the long way (extensions, a value
the core refuses, an IRI) keeps its section too."""

from __future__ import annotations

import io
import json
import re
from itertools import chain
from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pytest
from click.testing import CliRunner

from helpers import locs
from urlset.cli import main
from urlset.writing.build import write_sitemaps
from urlset.writing.sections import DEFAULT, Sections
from urlset.writing.sources import iter_batches

BASE = "https://www.example.com/"
_CHILD = re.compile(r"sitemap-(?P<section>[a-z0-9_-]+)-\d+-[0-9a-f]{16}\.xml")
# loc, lastmod, section, image: every way a row goes (plain, a bad lastmod, an IRI, an image)
ROWS = [
    (f"{BASE}a", "2024-01-01", "blog", ""),
    (f"{BASE}b", "", "shop", ""),
    (f"{BASE}c", "not-a-date", " blog ", ""),  # refused by the core: the per-row way
    (f"{BASE}d", "", "", ""),  # blank: the default section
    (f"{BASE}caf\u00e9", "", "shop", ""),  # written as its URI
    (f"{BASE}e", "", "blog", f"{BASE}e.png"),  # an extension: read the long way
]
EXPECTED = {
    "blog": [f"{BASE}a", f"{BASE}c", f"{BASE}e"],
    "shop": [f"{BASE}b", f"{BASE}caf%C3%A9"],
    DEFAULT: [f"{BASE}d"],
}


def _sections(out: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for child in locs(out / "sitemap.xml"):
        name = child.rsplit("/", 1)[1]
        match = _CHILD.fullmatch(name)
        assert match is not None, name
        found.setdefault(match["section"], []).extend(locs(out / name))
    return found


def _table_text(delimiter: str) -> str:
    lines = [delimiter.join(("loc", "lastmod", "section", "image_loc"))]
    lines += [delimiter.join(row) for row in ROWS]
    return "\n".join(lines) + "\n"


def _json_lines() -> str:
    lines = []
    for loc, lastmod, section, image in ROWS:
        data: dict[str, Any] = {"loc": loc, "section": section or None}
        if lastmod:
            data["lastmod"] = lastmod
        if image:
            data["images"] = [{"loc": image}]
        lines.append(json.dumps(data))
    return "\n".join(lines) + "\n"


SOURCES = {"csv": _table_text(","), "tsv": _table_text("\t"), "jsonl": _json_lines()}


@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_the_command_takes_each_rows_section_from_its_input(fmt: str, tmp_path: Path) -> None:
    source = tmp_path / f"urls.{fmt}"
    source.write_text(SOURCES[fmt], encoding="utf-8")
    out = tmp_path / "out"
    args = ["build", str(source), "--base-url", BASE, "--out", str(out), "--no-gzip"]
    result = CliRunner().invoke(main, [*args, "--section-by", "column:section"])
    assert result.exit_code == 0, result.output
    assert _sections(out) == EXPECTED
    assert CliRunner().invoke(main, ["check", str(out)]).exit_code == 0


@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_plain_rows_with_a_section_stay_in_the_core(fmt: str, tmp_path: Path) -> None:
    at = [i for i, row in enumerate(ROWS) if not row[3] and row[1] != "not-a-date"]
    lines = SOURCES[fmt].splitlines(keepends=True)
    head = 0 if fmt == "jsonl" else 1
    text = "".join(lines[:head] + [lines[head + i] for i in at])
    sections = Sections.by_column("section")
    batches = iter_batches(io.StringIO(text), fmt, "x", rows=True, sections=sections.given)
    report = write_sitemaps(chain.from_iterable(batches), tmp_path, BASE, section=sections)
    assert report.urls == len(at) and not report.left_core, report.left_core
    assert sorted(_sections_gz(tmp_path)) == ["blog", DEFAULT, "shop"]


def _sections_gz(out: Path) -> dict[str, list[str]]:
    import gzip

    found: dict[str, list[str]] = {}
    for path in out.glob("sitemap-*.xml.gz"):
        section = path.name.split("-")[1]
        found.setdefault(section, []).extend(
            re.findall(r"<loc>([^<]*)", gzip.decompress(path.read_bytes()).decode())
        )
    return found


def test_without_the_rule_a_section_column_or_key_is_refused_with_the_way_to_use_it(
    tmp_path: Path,
) -> None:
    source = tmp_path / "urls.csv"
    source.write_text(SOURCES["csv"])
    args = ["build", str(source), "--base-url", BASE, "--out", str(tmp_path / "o")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "--section-by column:section" in result.output
    source = tmp_path / "urls.jsonl"
    source.write_text(SOURCES["jsonl"])
    result = CliRunner().invoke(main, ["build", str(source), *args[2:]])
    assert "unknown keys ['section']" in result.output


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_a_bad_section_name_fails_the_build_naming_it_and_its_line(
    fmt: str, tmp_path: Path
) -> None:
    source = tmp_path / f"urls.{fmt}"
    text = SOURCES[fmt].replace("shop", "Shop Front")
    source.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    args = ["build", str(source), "--base-url", BASE, "--out", str(out)]
    result = CliRunner().invoke(main, [*args, "--section-by", "column:section"])
    assert result.exit_code == 1, result.output  # as a bad key of mapping entries
    line = 3 if fmt == "csv" else 2
    assert f"urls.{fmt}:{line} 'Shop Front'" in result.output and "Traceback" not in result.output
    assert not list(out.glob("sitemap*"))  # nothing published


@pytest.mark.parametrize("kind", ["arrow", "pandas"])
def test_a_tables_section_column_names_the_sections(kind: str, tmp_path: Path) -> None:
    columns = {
        "loc": [row[0] for row in ROWS[:5]],
        "lastmod": [row[1] or None for row in ROWS[:5]],
        "section": [row[2] or None for row in ROWS[:5]],
    }
    table = pa.table(columns) if kind == "arrow" else pd.DataFrame(columns)
    write_sitemaps(table, tmp_path, BASE, gzip=False, section="section")
    expected = {
        name: [loc for loc in found if not loc.endswith("/e")] for name, found in EXPECTED.items()
    }
    assert _sections(tmp_path) == expected


def test_a_stable_set_by_column_updates_as_a_full_build_of_its_final_urls(tmp_path: Path) -> None:
    rows = [(f"{BASE}{kind}/{i}", kind) for kind in ("news", "shop") for i in range(30)]
    changed = [(f"{BASE}shop/3", "shop"), (f"{BASE}news/99", "news")]

    def csv(path: Path, given: list[tuple[str, str]]) -> str:
        path.write_text("loc,section\n" + "".join(f"{loc},{kind}\n" for loc, kind in given))
        return str(path)

    common = ["--base-url", BASE, "--max-urls", "8", "--stable", "--section-by", "column:section"]
    runner = CliRunner()
    out, full = tmp_path / "out", tmp_path / "full"
    first = runner.invoke(
        main, ["build", csv(tmp_path / "a.csv", rows), "--out", str(out), *common]
    )
    assert first.exit_code == 0, first.output
    update = [csv(tmp_path / "b.csv", changed), "--out", str(out), "--update", *common]
    assert runner.invoke(main, ["build", *update]).exit_code == 0
    final = csv(tmp_path / "c.csv", rows + changed[1:])
    assert runner.invoke(main, ["build", final, "--out", str(full), *common]).exit_code == 0
    assert {p.name: p.read_bytes() for p in out.iterdir()} == {
        p.name: p.read_bytes() for p in full.iterdir()
    }
    assert {p.name.split("-")[1] for p in out.glob("sitemap-*")} == {"news", "shop"}


@pytest.mark.parametrize("fmt", ["csv", "jsonl"])
def test_rows_with_images_the_core_renders_keep_their_section(fmt: str, tmp_path: Path) -> None:
    """Images the compiled core writes itself (an ``extensions`` cell, an ``images`` key): the
    row stays in the core and in its section."""
    image = json.dumps({"images": [{"loc": f"{BASE}e.png"}]})
    if fmt == "csv":
        cell = '"' + image.replace('"', '""') + '"'
        text = f"loc,section,extensions\n{BASE}a,blog,\n{BASE}e,shop,{cell}\n{BASE}f,,{cell}\n"
    else:
        lines = [{"loc": f"{BASE}a", "section": "blog"}]
        lines += [{"loc": f"{BASE}e", "section": "shop", "images": [{"loc": f"{BASE}e.png"}]}]
        lines += [{"loc": f"{BASE}f", "images": [{"loc": f"{BASE}e.png"}]}]
        text = "".join(json.dumps(line) + "\n" for line in lines)
    sections = Sections.by_column("section")
    batches = iter_batches(io.StringIO(text), fmt, "x", rows=True, sections=sections.given)
    report = write_sitemaps(chain.from_iterable(batches), tmp_path, BASE, section=sections)
    assert report.urls == 3 and not report.left_core, report.left_core
    found = _sections_gz(tmp_path)
    assert found == {"blog": [f"{BASE}a"], "shop": [f"{BASE}e"], DEFAULT: [f"{BASE}f"]}


BLANKS = ("", " ", "\t ")


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl", "mappings", "table"])
def test_every_blank_section_is_the_default_one_in_every_reader(fmt: str, tmp_path: Path) -> None:
    """A blank section (empty, spaces, a tab) is the default section whichever way the rows
    come; the JSON Lines reader of the core refused an empty or spaced key as a bad name,
    and mapping entries a spaced one."""
    rows = [(f"{BASE}x/{i}", blank) for i, blank in enumerate(BLANKS)]
    rows.append((f"{BASE}y/1", "blog"))
    out = tmp_path / "out"
    if fmt in ("csv", "tsv", "jsonl"):
        if fmt == "jsonl":
            text = "".join(json.dumps({"loc": loc, "section": name}) + "\n" for loc, name in rows)
        else:
            sep = "," if fmt == "csv" else "\t"
            text = f"loc{sep}section\n" + "".join(f'{loc}{sep}"{name}"\n' for loc, name in rows)
        source = tmp_path / f"urls.{fmt}"
        source.write_text(text, encoding="utf-8")
        args = ["build", str(source), "--base-url", BASE, "--out", str(out), "--no-gzip"]
        result = CliRunner().invoke(main, [*args, "--section-by", "column:section"])
        assert result.exit_code == 0, result.output
    elif fmt == "mappings":
        entries = [{"loc": loc, "section": name} for loc, name in rows]
        write_sitemaps(entries, out, BASE, gzip=False, section="section")
    else:
        table = pa.table({"loc": [r[0] for r in rows], "section": [r[1] for r in rows]})
        write_sitemaps(table, out, BASE, gzip=False, section="section")
    assert _sections(out) == {"blog": [f"{BASE}y/1"], DEFAULT: [r[0] for r in rows[:-1]]}

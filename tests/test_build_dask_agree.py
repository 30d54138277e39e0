"""``build`` and ``build --dask`` on the same inputs: one rule for a loc the input repeats
in two sections, and the same exit status and message for every input either refuses."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import locs
from urlset.cli import main
from urlset.writing.sections import DEFAULT

pytest.importorskip("distributed")
pytest.importorskip("pyarrow")

BASE = "https://www.example.com/"
_CHILD = re.compile(r"sitemap-(?P<section>[a-z0-9_-]+)-\d+-[0-9a-f]{16}\.xml\.gz")
_ROWS = 5000  # more than a reading batch (4,096 rows): repeats within one and across two


def _sections(out: Path) -> dict[str, str]:
    """Each loc of the set by the section whose files hold it."""
    found: dict[str, str] = {}
    for child in locs(out / "sitemap.xml.gz"):
        match = _CHILD.fullmatch(child.rsplit("/", 1)[1])
        assert match is not None, child
        for loc in locs(out / match.group(0)):
            assert loc not in found, loc
            found[loc] = match["section"]
    return found


def _repeating_rows(extension: bool) -> list[dict[str, str]]:
    """Rows in section a, with ``near`` repeated 10 rows later (one reading batch) and ``far``
    5,000 rows later (the next batch), both copies in section b, and one first in none (the
    default section) then in b; with ``extension`` an image
    on every row (the rows read one by one)."""
    rows = [{"loc": f"{BASE}p/{i}", "section": "a"} for i in range(_ROWS)]
    rows[11] = {"loc": f"{BASE}p/1", "section": "b"}
    rows[3] = {"loc": f"{BASE}p/3", "section": ""}  # the default section, then b
    rows[12] = {"loc": f"{BASE}p/3", "section": "b"}
    rows.append({"loc": f"{BASE}p/2", "section": "b"})
    if extension:
        for row in rows:
            row["image_loc"] = row["loc"] + ".png"
    return rows


def _write(rows: list[dict[str, str]], path: Path) -> None:
    if path.suffix == ".jsonl":
        lines = [
            json.dumps(
                {"loc": r["loc"], "section": r["section"]}
                | ({"images": [{"loc": r["image_loc"]}]} if "image_loc" in r else {})
            )
            for r in rows
        ]
    else:
        lines = [",".join(rows[0])] + [",".join(r.values()) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "extension"), [("in.csv", False), ("in.csv", True), ("in.jsonl", False)]
)
def test_a_loc_repeated_in_another_section_keeps_the_first_copys_in_both_builds(
    dask_client: Any, tmp_path: Path, name: str, extension: bool
) -> None:
    source = tmp_path / name
    _write(_repeating_rows(extension), source)
    common = [str(source), "--base-url", BASE, "--section-by", "column:section", "-q"]
    found = {}
    for build, extra in (("local", []), ("dask", ["--dask", dask_client.scheduler.address])):
        out = tmp_path / build
        result = CliRunner().invoke(main, ["build", *common, "--out", str(out), *extra])
        assert result.exit_code == 0, result.output
        found[build] = _sections(out)
    assert found["local"][f"{BASE}p/1"] == "a"  # repeated within one reading batch
    assert found["local"][f"{BASE}p/2"] == "a"  # repeated in the next batch
    assert found["local"][f"{BASE}p/3"] == DEFAULT
    assert found["dask"] == found["local"]


_GOOD = f"{BASE}a"
# name: (file, content, options, exit status, what both messages say); the file is named in
# both (the local build also says the line; the Dask one the data row, or why not)
REFUSED: dict[str, tuple[str, str | bytes | None, tuple[str, ...], int, str]] = {
    "unknown column": ("in.csv", f"loc,colour\n{_GOOD},red\n", (), 1, "unknown columns ['colour']"),
    "no loc column": ("in.csv", f"url\n{_GOOD}\n", (), 1, "unknown columns ['url']"),
    "bad section name": (
        "in.csv",
        f"loc,section\n{_GOOD},blog\n{BASE}b,../x\n",
        ("--section-by", "column:section"),
        1,
        "'../x': a section name is 1 to 40",
    ),
    "bad section key": (
        "in.jsonl",
        json.dumps({"loc": _GOOD, "section": "Shop Front"}) + "\n",
        ("--section-by", "column:section"),
        1,
        "'Shop Front': a section name",
    ),
    "bad loc, --strict": (
        "in.csv", f"loc\n{_GOOD}\nnot a url\n", ("--strict",), 1, "loc 'not a url': not an absolute"
    ),
    "bad lastmod, --strict": (
        "in.csv", f"loc,lastmod\n{_GOOD},yesterday\n", ("--strict",), 1, "lastmod 'yesterday'"
    ),
    "out of scope": (
        "in.csv", f"loc\nhttps://other.example/a\n{_GOOD}\n", (), 1, "host other.example differs"
    ),
    "bad loc skipped": ("in.csv", f"loc\n{_GOOD}\nnot a url\n", (), 0, "skipped 1 entry (invalid-loc: 1)"),
    "out of scope skipped": (
        "in.csv",
        f"loc\nhttps://other.example/a\n{_GOOD}\n",
        ("--skip-out-of-scope",),
        0,
        "skipped 1 entry (out-of-scope: 1)",
    ),
    "out of scope, --strict": (
        "in.csv",
        f"loc\nhttps://other.example/a\n{_GOOD}\n",
        ("--skip-out-of-scope", "--strict"),
        1,
        "host other.example differs",
    ),
    "empty input": ("in.csv", "loc\n", (), 1, "no URLs to write: the input is empty"),
    "missing file": ("in.csv", None, (), 2, "in.csv: cannot read (No such file or directory)"),
    "damaged gzip": (
        "in.csv.gz", b"\x1f\x8b\x08\x00damaged", (), 2, "in.csv.gz: the gzip stream ends early"
    ),
    "limit below 1": ("in.csv", f"loc\n{_GOOD}\n", ("--max-urls", "0"), 2, "max_urls 0"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_both_builds_refuse_or_report_an_input_alike(
    dask_client: Any, tmp_path: Path, case: str
) -> None:
    name, content, options, status, said = REFUSED[case]
    source = tmp_path / name
    if content is not None:
        source.write_bytes(content if isinstance(content, bytes) else content.encode())
    common = [str(source), "--base-url", BASE, "--no-gzip", *options]
    outputs = {}
    for build, extra in (("local", []), ("dask", ["--dask", dask_client.scheduler.address])):
        out = tmp_path / build
        result = CliRunner().invoke(main, ["build", *common, "--out", str(out), *extra])
        assert result.exit_code == status, (build, result.output)
        assert said in result.output, (build, result.output)
        assert "Traceback" not in result.output and "Aborted" not in result.output
        if status:
            assert not out.exists() or not list(out.glob("sitemap*")), build  # none published
        outputs[build] = result.output
    if case != "empty input" and (status == 1 or "skipped" in said):
        # an entry or the header at fault: the file is named in both
        assert all(str(source) in output for output in outputs.values()), outputs
    if "--strict" in options:  # not the hint to skip such URLs: --strict overrides it
        for output in outputs.values():
            assert "(--strict: nothing was published)" in output, output
            assert "use --skip-out-of-scope" not in output, output
    if status == 2 and not options:  # the file cannot be read: one message
        assert outputs["dask"] == outputs["local"]


_LINE = f'{{"loc": "{_GOOD}"}}\n'
# a line either build skips, at line 2 of each: name -> (file, content, what is counted). The
# family: each way the local reader refuses a line (not JSON, not an object, an unknown key,
# not UTF-8, a row of the wrong width, a bad value), in each text format the Dask build
# reads (JSON Lines, CSV, TSV, gzipped)
SKIPPED_LINES: dict[str, tuple[str, bytes, str]] = {
    "jsonl, not JSON": ("in.jsonl", f"{_LINE}{{not json\n".encode(), "unreadable-line: 1"),
    "jsonl, not an object": ("in.jsonl", f"{_LINE}[1]\n".encode(), "unreadable-line: 1"),
    "jsonl, unknown key": (
        "in.jsonl",
        f'{_LINE}{{"loc": "{BASE}b", "colour": "red"}}\n'.encode(),
        "invalid-keys: 1",
    ),
    "jsonl, not UTF-8": ("in.jsonl", _LINE.encode() + b'{"loc": "\xff"}\n', "unreadable-line: 1"),
    "jsonl, bad loc": ("in.jsonl", f'{_LINE}{{"loc": "not a url"}}\n'.encode(), "invalid-loc: 1"),
    "jsonl.gz, not JSON": (
        "in.jsonl.gz", gzip.compress(f"{_LINE}{{not json\n".encode()), "unreadable-line: 1"
    ),
    "csv, too many cells": ("in.csv", f"loc\n{BASE}b,x\n{_GOOD}\n".encode(), "unreadable-line: 1"),
    "csv, not UTF-8": ("in.csv", f"loc\n{BASE}\xff\n{_GOOD}\n".encode("latin-1"), "unreadable-line: 1"),
    "tsv, bad lastmod": (
        "in.tsv", f"loc\tlastmod\n{BASE}b\tyesterday\n{_GOOD}\t\n".encode(), "invalid-lastmod: 1"
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(SKIPPED_LINES))
def test_a_line_a_local_build_skips_is_skipped_alike_at_its_file_and_line(
    dask_client: Any, tmp_path: Path, case: str
) -> None:
    """The Dask build reads a text input by the local build's reader: one bad line is
    skipped and said at its file:line (it refused the whole JSON Lines file, and said a
    CSV's row by its place in the partition), and under --strict fails the build alike."""
    name, content, counted = SKIPPED_LINES[case]
    source = tmp_path / name
    source.write_bytes(content)
    common = [str(source), "--base-url", BASE, "--no-gzip"]
    said: dict[tuple[str, bool], list[str]] = {}
    for build, extra in (("local", []), ("dask", ["--dask", dask_client.scheduler.address])):
        for strict in (False, True):
            out = str(tmp_path / f"{build}-{strict}")
            args = ["build", *common, "--out", out, *extra, *(["--strict"] * strict)]
            result = CliRunner().invoke(main, args)
            assert result.exit_code == (1 if strict else 0), (build, result.output)
            lines = result.output.splitlines()
            said[build, strict] = [line for line in lines if "skipped" in line or name in line]
            assert any(f"{source}:2: " in line for line in said[build, strict]), result.output
            if not strict:
                assert counted in result.output, (build, result.output)
            else:
                assert "(--strict: nothing was published)" in result.output, result.output
    assert said["dask", False] == said["local", False]
    assert said["dask", True] == said["local", True]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        (("--access-log", "{log}"), "--access-log and --crawl build without it"),
        (("{text}",), "is a text list: the Dask build reads Parquet, CSV, TSV or JSON Lines"),
        (("--update",), "--update, --remove and --changes run without it"),
        (("--stable", "--changes", "{out}.jsonl"), "--update, --remove and --changes"),
        (("--no-dedupe",), "always removes duplicates"),
    ],
)
def test_what_only_a_local_build_takes_is_a_usage_error_on_dask(
    dask_client: Any, tmp_path: Path, extra: tuple[str, ...], said: str
) -> None:
    """Inputs and modes the Dask build does not take are refused (2), never dropped: an
    --access-log beside a list was left out of the set without a word."""
    source, log, text = tmp_path / "in.csv", tmp_path / "access.log", tmp_path / "urls.txt"
    source.write_text(f"loc\n{_GOOD}\n", encoding="utf-8")
    log.write_text('1.2.3.4 - - [10/Oct/2026:13:55:36 +0000] "GET /x HTTP/1.1" 200 9 "-" "M"\n')
    text.write_text(f"{_GOOD}\n", encoding="utf-8")
    out = tmp_path / "out"
    names = {"log": log, "text": text, "out": out}
    args = [str(source), *(part.format(**names) for part in extra), "--base-url", BASE]
    address = dask_client.scheduler.address
    result = CliRunner().invoke(main, ["build", *args, "--out", str(out), "--dask", address])
    assert result.exit_code == 2 and said in result.output, result.output
    assert not out.exists() or not list(out.glob("sitemap*"))
    if "--update" not in extra:  # (an update needs a set to update)
        local = CliRunner().invoke(main, ["build", *args, "--out", str(tmp_path / "local")])
        assert local.exit_code == 0, local.output  # as the message says: it builds without

"""``build`` and ``build --dask`` on the same inputs: one rule for a loc the input repeats
in two sections, and the same exit status and message for every input either refuses."""

from __future__ import annotations

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

"""``build --strict`` refuses a line that a build without it would write repaired: its message
names the fault and where, and claims no repair (nothing is written)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from urlset.cli import main

BASE = "https://www.shop.org/"
GOOD = {"loc": BASE + "b"}

# every value a build writes a line without (the line kept, the value left out), by field
REPAIRED = {
    "lastmod": ({"lastmod": "2024-13-45"}, "not a real date or time"),
    "changefreq": ({"changefreq": "sometimes"}, "must be one of always"),
    "priority": ({"priority": "1.5"}, "must be from 0.0 to 1.0"),
    "image loc": ({"images": [{"loc": "ftp://x y"}]}, "only http and https URLs"),
    "image field": ({"images": [{"loc": BASE + "i.jpg", "license": "not a url"}]}, "license"),
    "hreflang": ({"alternates": [{"hreflang": "english", "href": BASE + "en"}]}, "english"),
    "news": ({"news": {"title": "t"}}, "news"),
    "video": ({"videos": [{"title": "t"}]}, "video"),
}


@pytest.mark.parametrize("field", sorted(REPAIRED))
def test_a_strict_build_names_the_fault_and_claims_no_repair(tmp_path: Path, field: str) -> None:
    values, said = REPAIRED[field]
    source = tmp_path / "in.jsonl"
    source.write_text(json.dumps({"loc": BASE + "a", **values}) + "\n" + json.dumps(GOOD) + "\n")
    common = [str(source), "--base-url", BASE, "--no-gzip"]
    kept = CliRunner().invoke(main, ["build", *common, "--out", str(tmp_path / "kept")])
    assert kept.exit_code == 0, kept.output  # without --strict: written, repaired, and said
    assert "without" in kept.output or "left out" in kept.output, kept.output
    out = tmp_path / "strict"
    refused = CliRunner().invoke(main, ["build", *common, "--out", str(out), "--strict"])
    assert refused.exit_code == 1, refused.output
    assert f"{source}:1: " in refused.output and said in refused.output, refused.output
    assert refused.output.rstrip().endswith("(--strict: nothing was published)"), refused.output
    assert "written without" not in refused.output and "left out" not in refused.output
    assert not out.exists() or not list(out.glob("sitemap*"))

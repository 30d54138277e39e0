"""Build inputs read and built as they were by the Python parsers (tests/sources_reference.py):
every entry and problem with its line, and every file written, for inputs of every shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sources_reference import CASES, REFERENCE, read_and_build

EXPECTED = json.loads(REFERENCE.read_text())


def test_every_case_has_a_reference() -> None:
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_source_reads_and_builds_as_the_reference(name: str, tmp_path: Path) -> None:
    assert read_and_build(name, tmp_path) == EXPECTED[name]

"""The writer's output is byte-identical to the reference builds (tests/write_reference.py):
every file of every case, and the report's counts and lastmods."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from write_reference import CASES, REFERENCE, build

EXPECTED = json.loads(REFERENCE.read_text())


def test_every_case_has_a_reference() -> None:
    assert sorted(EXPECTED) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_build_matches_reference(name: str, tmp_path: Path) -> None:
    assert build(name, tmp_path / name) == EXPECTED[name]

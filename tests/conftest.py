"""Shared test fixtures. Tests that need ../shared skip cleanly where it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


@pytest.fixture(scope="session")
def shared() -> Path:
    """The project's shared material (spec, schemas, corpus); skips when it is not beside the repo."""
    if not (SHARED / "corpus").is_dir():
        pytest.skip(reason="../shared is absent (a fresh clone): no corpus or official schemas")
    return SHARED

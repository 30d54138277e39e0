"""The compiled core is built and loaded the way users get it: in release mode, by the install."""

from __future__ import annotations

from urlset import _core


def test_the_compiled_core_is_the_packages_own_and_optimized() -> None:
    assert _core.VERSION == "0.1.0"
    assert _core.OPTIMIZED, "built in debug mode: pyproject's [tool.maturin] profile is release"

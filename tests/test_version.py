"""One version, single-sourced: rust/Cargo.toml -> the package metadata -> __version__ and
``urlset --version``; and the published metadata holds no development tool."""

from __future__ import annotations

import importlib.metadata
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import urlset
from urlset import _core
from urlset.cli.check_run import package_version

ROOT = Path(__file__).resolve().parents[1]


def cargo_version() -> str:
    cargo = tomllib.loads((ROOT / "rust" / "Cargo.toml").read_text(encoding="utf-8"))
    version = cargo["workspace"]["package"]["version"]
    assert isinstance(version, str)
    return version


def test_version_is_the_cargo_workspace_version() -> None:
    assert urlset.__version__ == cargo_version()
    assert urlset.__version__ == importlib.metadata.version("urlset")
    # what SARIF logs and HTML reports name, without loading importlib.metadata
    assert urlset.__version__ == _core.VERSION == package_version()
    assert re.fullmatch(r"\d+\.\d+\.\d+([-.+][0-9A-Za-z.]+)?", urlset.__version__)


def test_pyproject_takes_the_version_from_cargo() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" not in project
    assert "version" in project["dynamic"]


def test_cli_version_prints_the_same_version() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from urlset.cli import main; main()", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["urlset,", "version", urlset.__version__]


def test_changelog_names_the_version() -> None:
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert f"## [{urlset.__version__}]" in changelog


def test_development_tools_are_dependency_groups_not_extras() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    tools = {"pytest", "hypothesis", "ruff", "mypy", "selenium", "trustme", "maturin", "mkdocs"}
    published = {
        re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower()
        for requirements in extras.values()
        for requirement in requirements
    }
    assert "test" not in extras
    assert not tools & published
    groups = pyproject["dependency-groups"]
    assert {"test", "lint", "docs", "wheel", "dev"} <= set(groups)
    grouped = {
        re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower()
        for requirements in groups.values()
        for requirement in requirements
        if isinstance(requirement, str)
    }
    assert tools <= grouped

"""The release artefacts (scripts/build-dist): the manylinux abi3 wheel installs into a clean
virtual environment, on a PATH without cargo, and builds, reads and checks a sitemap set; the
sdist holds what a source build needs and nothing built.

The wheel and the wheelhouse of its dependencies come from scripts/check (which may use the
network to fill the wheelhouse); this test installs from them with ``--no-index``. Without
them it skips, unless URLSET_REQUIRE_WHEEL is set, as scripts/check's full run sets it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

import urlset

ROOT = Path(__file__).resolve().parents[1]
DIST = Path(os.environ.get("URLSET_DIST") or ROOT / "dist")
WHEELHOUSE = Path(os.environ.get("URLSET_WHEELHOUSE") or ROOT / ".wheelhouse")
# manylinux2014 is glibc 2.17; the newer spelling is the same tag
WHEEL_NAME = re.compile(
    r"urlset-(?P<version>[^-]+)-cp311-abi3-manylinux2014_x86_64\.manylinux_2_17_x86_64\.whl"
)


def artefact(pattern: str) -> Path:
    found = sorted(DIST.glob(pattern))
    if len(found) != 1:
        message = f"{DIST} holds {len(found)} files matching {pattern}: run scripts/build-dist"
        if os.environ.get("URLSET_REQUIRE_WHEEL"):
            pytest.fail(message)
        pytest.skip(reason=message)
    return found[0]


def run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        args, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    return done


@pytest.mark.slow
def test_the_wheel_runs_in_a_clean_venv_without_rust(tmp_path: Path) -> None:
    wheel = artefact("urlset-*.whl")
    name = WHEEL_NAME.fullmatch(wheel.name)
    assert name, f"{wheel.name} is not a manylinux2014 abi3 wheel"
    assert name["version"] == urlset.__version__
    if not WHEELHOUSE.is_dir():
        pytest.skip(reason=f"no wheelhouse at {WHEELHOUSE}: scripts/check fills it")

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    # the system's directories only: no cargo, no rustc, no project venv, no src/ on the path
    path = os.pathsep.join([str(venv / "bin"), "/usr/local/bin", "/usr/bin", "/bin"])
    env = {"PATH": path, "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    for tool in ("cargo", "rustc", "maturin"):
        assert run(["sh", "-c", f"command -v {tool}"], tmp_path, env).returncode != 0, tool
    pip = run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "-q",
            "--no-index",
            "--find-links",
            str(WHEELHOUSE),
            str(wheel),
        ],
        tmp_path,
        env,
    )
    assert pip.returncode == 0, pip.stderr

    core = run(
        [str(venv / "bin" / "python"), "-c", "import urlset._core as c; print(c.__file__)"],
        tmp_path,
        env,
    )
    assert core.returncode == 0, core.stderr
    assert Path(core.stdout.strip()).is_relative_to(venv), core.stdout

    version = run(["urlset", "--version"], tmp_path, env)
    assert version.stdout.split() == ["urlset,", "version", urlset.__version__], version

    (tmp_path / "urls.csv").write_bytes((ROOT / "examples" / "urls.csv").read_bytes())
    build = run(
        [
            "urlset",
            "build",
            "urls.csv",
            "--base-url",
            "https://www.example.com/",
            "--out",
            "public",
        ],
        tmp_path,
        env,
    )
    assert build.returncode == 0, build.stderr
    assert (tmp_path / "public" / "sitemap.xml.gz").is_file()

    read = run(["urlset", "read", "public/sitemap.xml.gz", "--format", "locs"], tmp_path, env)
    assert read.returncode == 0, read.stderr
    locs = read.stdout.splitlines()
    assert len(locs) == 9  # ten rows, one duplicate
    assert "https://www.example.com/blog/stra%C3%9Fe-und-b%C3%BCcher" in locs

    check = run(["urlset", "check", "public", "--format", "json"], tmp_path, env)
    assert check.returncode == 0, check.stdout + check.stderr
    (checked,) = json.loads(check.stdout)["files"]
    assert (checked["entries"], checked["errors"]) == (9, 0)
    # www.example.com is a documentation placeholder: the one warning, on every URL
    assert [issue["code"] for issue in checked["issues"]] == ["placeholder-host"]


def test_the_sdist_holds_the_sources_and_nothing_built() -> None:
    sdist = artefact("urlset-*.tar.gz")
    with tarfile.open(sdist) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for needed in (
        "pyproject.toml",
        "LICENSE",
        "README.md",
        "rust/Cargo.toml",
        "rust/Cargo.lock",
        "rust/py/Cargo.toml",
        "rust/core/Cargo.toml",
        "src/urlset/__init__.py",
        "src/urlset/_core.pyi",
        "src/urlset/py.typed",
    ):
        assert needed in names, needed
    assert not [name for name in names if name.endswith(".so") or "/target/" in name]
    assert any(name.startswith("src/urlset/checking/schemas/") for name in names)


def test_the_wheel_holds_the_license_and_data_files() -> None:
    wheel = artefact("urlset-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
    info = f"urlset-{urlset.__version__}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    assert "urlset/_core.abi3.so" in names
    assert "urlset/py.typed" in names
    assert "urlset/writing/sitemap.xsl" in names
    assert any(name.startswith("urlset/checking/schemas/") for name in names)
    metadata = zipfile.ZipFile(wheel).read(f"{info}/METADATA").decode()
    assert "Provides-Extra: test" not in metadata
    assert "Classifier: Programming Language :: Rust" in metadata
    assert "Project-URL: Documentation" in metadata

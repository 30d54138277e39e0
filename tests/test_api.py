"""The public surface is small and explicit: changing it is a decision, so it is guarded here."""

import importlib
import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

import urlset

EXPECTED = {
    "CURRENT", "SITEMAPS_2008", "BuildReport", "ChangeFreq", "CheckReport", "DiscoveryOptions",
    "DiscoveryResult", "HttpOptions", "InputError", "InvalidValue", "Issue", "LimitExceeded",
    "Limits", "PublishError", "RawElement", "ReadError", "ReadLimits", "ReadResult", "Severity",
    "SitemapReader", "SitemapRef", "Url", "UrlsetError", "check", "check_paths", "fetch_sitemaps",
    "fetch_sitemaps_sync", "is_valid", "read", "read_bytes", "read_chunks", "read_file",
    "read_frame", "write_sitemaps", "AuditOptions", "AuditReport", "audit",
}  # fmt: skip


def test_public_names() -> None:
    assert set(urlset.__all__) == EXPECTED
    assert len(urlset.__all__) == len(EXPECTED)
    for name in urlset.__all__:
        assert getattr(urlset, name) is not None, name


def test_import_stays_light() -> None:
    """`import urlset` (and so every command's start) does not load numpy, lxml or aiohttp."""
    code = "import sys, urlset; print(sorted(m for m in ('numpy', 'lxml', 'aiohttp') if m in sys.modules))"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_unknown_name_is_an_attribute_error() -> None:
    try:
        urlset.no_such_thing  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_thing" in str(exc)
    else:
        raise AssertionError("expected AttributeError")


def test_documented_functions_work_in_any_import_order(tmp_path: object) -> None:
    """No stage module shadows a public name, whatever was imported first (a submodule named
    like a function once replaced it after a lazy import)."""
    orders = [
        "urlset.is_valid(p); urlset.check(p); urlset.check_paths([p]); urlset.read_file(p)",
        "import urlset.checking.checker; urlset.check(p); urlset.is_valid(p)",
        "import urlset.reading.reader; list(urlset.read(p)); urlset.read_file(p)",
        "urlset.read_file(p); import urlset.cli.check, urlset.cli.read; urlset.check(p); urlset.read(p)",
    ]
    sitemap = f"{tmp_path}/s.txt"
    with open(sitemap, "w") as f:
        f.write("https://www.example.org/a\n")
    for calls in orders:
        code = f"import urlset; p = {sitemap!r}; {calls}; print(callable(urlset.check), callable(urlset.read))"
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert out.stdout.split() == ["True", "True"], calls


# the pages users read: the README and every page of the documentation site
ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def _imported_names(text: str, module: str) -> set[str]:
    """The names of ``from <module> import ...``, on one line or in parentheses."""
    prefix = r"from " + re.escape(module) + r" import "
    groups = re.findall(prefix + r"\(([^)]*)\)", text) + re.findall(prefix + r"([\w, ]+)", text)
    return {
        name.split(" as ")[0].strip()
        for group in groups
        for name in group.split(",")
        if name.split(" as ")[0].strip()
    }


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_the_docs_name_only_public_functions(page: Path) -> None:
    """Every ``urlset.<name>`` a page calls, imports or documents (``::: urlset.<name>``) is in
    __all__ (or a module), and every name it imports from a submodule is that module's and
    public."""
    text = page.read_text(encoding="utf-8")
    named = set(re.findall(r"\burlset\.([A-Za-z_]\w*)\(", text))
    named |= _imported_names(text, "urlset")
    named |= set(re.findall(r"^::: urlset\.(\w+)$", text, re.M))
    for name in sorted(named):
        assert name in urlset.__all__ or importlib.util.find_spec(f"urlset.{name}"), name
    for module_name in sorted(set(re.findall(r"from (urlset\.[\w.]+) import", text))):
        module = importlib.import_module(module_name)
        for name in sorted(_imported_names(text, module_name)):
            assert not name.startswith("_") and hasattr(module, name), f"{module_name}.{name}"


def test_the_docs_name_functions() -> None:
    """The check above reads what the pages hold: the README and the API reference name some."""
    text = "".join(page.read_text(encoding="utf-8") for page in PAGES)
    assert {"write_sitemaps", "read_file", "Url"} <= _imported_names(text, "urlset")
    assert "LiveSet" in _imported_names(text, "urlset.serve")

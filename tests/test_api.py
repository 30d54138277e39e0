"""The public surface is small and explicit: changing it is a decision, so it is guarded here."""

import subprocess
import sys

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


def test_readme_names_only_public_functions() -> None:
    """Every ``urlset.<name>`` the README shows as a call or import is in __all__ (or a module)."""
    import importlib
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`urlset\.([a-z_]+)\(", readme))
    named |= {
        n.strip()
        for group in re.findall(r"from urlset import ([\w, ]+)", readme)
        for n in group.split(",")
    }
    assert named, "the README names functions"
    for name in sorted(named):
        assert name in urlset.__all__ or importlib.util.find_spec(f"urlset.{name}"), name

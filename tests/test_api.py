"""The public surface is small and explicit: changing it is a decision, so it is guarded here."""

import subprocess
import sys

import urlset

EXPECTED = {
    "CURRENT", "SITEMAPS_2008", "BuildReport", "ChangeFreq", "CheckReport", "DiscoveryOptions",
    "DiscoveryResult", "HttpOptions", "InputError", "InvalidValue", "Issue", "LimitExceeded",
    "Limits", "PublishError", "RawElement", "ReadError", "ReadLimits", "ReadResult", "Severity",
    "SitemapReader", "SitemapRef", "Url", "UrlsetError", "check", "fetch_sitemaps",
    "fetch_sitemaps_sync", "is_valid", "read", "read_bytes", "read_chunks", "read_file",
    "write_sitemaps",
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

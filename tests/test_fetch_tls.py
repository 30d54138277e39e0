"""fetching/tls.py: aiohttp's TLS contexts load their CA certificates only when a TLS
connection needs one, and then verify as they always did.

Each fetch runs ``urlset fetch`` in a fresh interpreter (where urlset imports aiohttp first),
against a real https server on loopback with a certificate from a test CA (trustme); the CA
is trusted through ``SSL_CERT_FILE``, which OpenSSL reads when the certificates load.
"""

from __future__ import annotations

import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from test_fetch_support import LoopbackServer, urlset

LAUNCH = "import sys; from urlset.cli import main; sys.argv[0] = 'urlset'; main()"
# `urlset` run with ``argv``; as it exits, the CA certificates aiohttp's default verifying
# context holds (0 while deferred) on standard error
PROBE = (
    "import atexit, sys; from urlset.cli import main; sys.argv = {argv!r}; "
    "atexit.register(lambda: print('CA certificates:', __import__('aiohttp.connector')"
    ".connector._SSL_CONTEXT_VERIFIED.cert_store_stats()['x509_ca'], file=sys.stderr)); main()"
)


@pytest.fixture(scope="module")
def ca() -> Iterator[tuple[Path, ssl.SSLContext]]:
    trustme = pytest.importorskip("trustme")
    authority = trustme.CA()
    server_context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    authority.issue_cert("127.0.0.1").configure_cert(server_context)
    with authority.cert_pem.tempfile() as pem:
        yield Path(pem), server_context


def _fetch(url: str, out: Path, cert_file: Path | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("SSL_CERT_DIR", None)
    if cert_file is not None:
        env["SSL_CERT_FILE"] = str(cert_file)
    argv = [sys.executable, "-c", LAUNCH, "fetch", url, "-o", str(out)]
    return subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, check=False)


def test_https_site_fetched_with_the_certificates_loaded_on_first_use(
    ca: tuple[Path, ssl.SSLContext], tmp_path: Path
) -> None:
    pem, server_context = ca
    out = tmp_path / "out.jsonl"
    with LoopbackServer(ssl_context=server_context) as server:
        server.add("/sitemap.xml", urlset(server.url(f"/p/{i}") for i in range(5)))
        done = _fetch(server.url("/sitemap.xml"), out, pem)
        assert server.hits["/sitemap.xml"] == 1
    assert done.returncode == 0, done.stderr
    assert out.read_text().count("\n") == 5 and "https://127.0.0.1:" in out.read_text()


def test_https_certificate_of_an_unknown_ca_is_still_rejected(
    ca: tuple[Path, ssl.SSLContext], tmp_path: Path
) -> None:
    """The deferred contexts verify: trusting another CA than the server's fails the fetch."""
    trustme = pytest.importorskip("trustme")
    _, server_context = ca
    with (
        trustme.CA().cert_pem.tempfile() as other,
        LoopbackServer(ssl_context=server_context) as server,
    ):
        server.add("/sitemap.xml", urlset([server.url("/p/1")]))
        done = _fetch(server.url("/sitemap.xml"), tmp_path / "out.jsonl", Path(other))
        assert server.hits["/sitemap.xml"] == 0
    assert done.returncode == 2
    assert "certificate" in done.stderr and "Traceback" not in done.stderr


# a fetch over aiohttp alone (no lean client) through the API; as it exits, as PROBE
AIOHTTP_PROBE = (
    "import sys; from urlset.fetching.http import HttpOptions, fetch_sitemaps_sync; "
    "r = fetch_sitemaps_sync(sys.argv[1], http=HttpOptions(lean=False)); "
    "print('URLs:', r.url_count, 'CA certificates:', __import__('aiohttp.connector')"
    ".connector._SSL_CONTEXT_VERIFIED.cert_store_stats()['x509_ca'])"
)


def test_plain_http_fetch_over_aiohttp_loads_no_certificates() -> None:
    """A fetch of an http:// site over aiohttp leaves its default contexts without their
    CA certificates (asked for after the fetch)."""
    with LoopbackServer() as server:
        server.add("/sitemap.xml", urlset(server.url(f"/p/{i}") for i in range(3)))
        done = subprocess.run(
            [sys.executable, "-c", AIOHTTP_PROBE, server.url("/sitemap.xml")],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "URLs: 3 CA certificates: 0"


def test_plain_http_fetch_loads_no_aiohttp(tmp_path: Path) -> None:
    """The lean client answers a plain http:// fetch alone: aiohttp (and its contexts)
    never loads (asked for as the interpreter exits, after the fetch)."""
    probe = PROBE.replace(
        "print('CA certificates:', __import__('aiohttp.connector')"
        ".connector._SSL_CONTEXT_VERIFIED.cert_store_stats()['x509_ca'], file=sys.stderr)",
        "print('aiohttp loaded:', 'aiohttp' in sys.modules, file=sys.stderr)",
    )
    with LoopbackServer() as server:
        server.add("/sitemap.xml", urlset(server.url(f"/p/{i}") for i in range(3)))
        argv = ["urlset", "fetch", server.url("/sitemap.xml"), "-o", str(tmp_path / "o"), "-q"]
        done = subprocess.run(
            [sys.executable, "-c", probe.format(argv=argv)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "aiohttp loaded: False"
    assert (tmp_path / "o").read_text().count("\n") == 3

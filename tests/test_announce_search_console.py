"""Google Search Console: submit, list and get through the API, against a loopback fake that
answers as the API documents, with a real service-account key and a real token exchange."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from announce_support import Endpoints, Reply
from urlset.announce.http import announce_options
from urlset.announce.search_console import (
    CredentialsError,
    Token,
    access_token,
    call_search_console_sync,
    in_property,
    property_id,
)
from urlset.cli import main
from urlset.errors import InvalidValue
from urlset.fetching.http_options import HttpOptions, RetryPolicy

pytest.importorskip("google.auth")

EMAIL = "sitemaps@project.iam.gserviceaccount.com"
SITEMAP_XML = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n'
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    b"<url><loc>{root}a</loc></url><url><loc>{root}b</loc></url></urlset>\n"
)
TOKEN = "ya29.loopback-token"


def fast() -> HttpOptions:
    retry = RetryPolicy(attempts=3, backoff=0.05, max_backoff=0.2, max_retry_after=5.0)
    return announce_options(connect_timeout=2.0, read_timeout=2.0, retry=retry)


def json_reply(status: int, data: object, **headers: str) -> Reply:
    return Reply(status, json.dumps(data).encode(), headers, content_type="application/json")


def google_error(status: int, message: str) -> Reply:
    return json_reply(status, {"error": {"code": status, "message": message, "errors": []}})


@pytest.fixture
def server() -> Iterator[Endpoints]:
    with Endpoints() as endpoints:
        endpoints.script("/token", json_reply(200, {"access_token": TOKEN, "expires_in": 3600}))
        yield endpoints


@pytest.fixture
def key_file(tmp_path: Path, server: Endpoints) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    path = tmp_path / "key.json"
    path.write_text(
        json.dumps(
            {
                "type": "service_account",
                "project_id": "project",
                "private_key_id": "1",
                "private_key": pem,
                "client_email": EMAIL,
                "client_id": "1",
                "token_uri": server.url("/token"),
            }
        )
    )
    return path


def site_of(server: Endpoints) -> str:
    return server.url("/")


def api_path(server: Endpoints, sitemap: str | None = None) -> str:
    """The path as the fake sees it, percent-decoded (on the wire each part is one segment)."""
    path = f"/api/sites/{site_of(server)}/sitemaps"
    return path if sitemap is None else f"{path}/{sitemap}"


def wmx(path: str, **changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "path": path,
        "lastSubmitted": "2026-11-27T10:00:00.000Z",
        "lastDownloaded": "2026-11-27T11:00:00.000Z",
        "isPending": False,
        "isSitemapsIndex": False,
        "type": "sitemap",
        "warnings": "1",
        "errors": "0",
        "contents": [{"type": "web", "submitted": "2", "indexed": "0"}],
    }
    row.update(changes)
    return row


def test_property_forms() -> None:
    assert property_id("sc-domain:Example.com") == "sc-domain:example.com"
    assert property_id("https://www.example.com") == "https://www.example.com/"
    assert property_id("https://www.example.com/blog/") == "https://www.example.com/blog/"
    for bad in ("example.com", "sc-domain:", "sc-domain:a.example/x", "https://a.example/?q=1"):
        with pytest.raises(InvalidValue, match=r"sc-domain:example\.com"):
            property_id(bad)
    assert in_property("sc-domain:example.com", "https://news.example.com/s.xml")
    assert not in_property("sc-domain:example.com", "https://example.org/s.xml")
    assert not in_property("https://www.example.com/blog/", "https://www.example.com/s.xml")


def test_the_token_comes_from_the_key_file_s_token_uri(server: Endpoints, key_file: Path) -> None:
    token = access_token(str(key_file))
    assert token == Token(TOKEN, EMAIL)
    (seen,) = server.requests("/token")
    form = dict(pair.split("=", 1) for pair in seen.body.decode().split("&"))
    assert form["grant_type"] == "urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
    assert form["assertion"].count(".") == 2  # a signed JWT


def test_credentials_failures_say_what_to_do(
    server: Endpoints, key_file: Path, tmp_path: Path
) -> None:
    with pytest.raises(CredentialsError, match="cannot read the key file"):
        access_token(str(tmp_path / "missing.json"))
    (tmp_path / "bad.json").write_text('{"type": "service_account"}')
    with pytest.raises(CredentialsError, match="not a service account's JSON key"):
        access_token(str(tmp_path / "bad.json"))
    server.script("/token", json_reply(400, {"error": "invalid_grant", "error_description": "x"}))
    with pytest.raises(CredentialsError, match=f"refused the credentials for {re.escape(EMAIL)}"):
        access_token(str(key_file))


def test_submit_then_status_beside_urlset_s_check(server: Endpoints, key_file: Path) -> None:
    sitemap = server.url("/sitemap.xml")
    server.serve("/sitemap.xml", SITEMAP_XML.replace(b"{root}", site_of(server).encode()))
    server.script(api_path(server, sitemap), Reply(204), json_reply(200, wmx(sitemap)))
    result = CliRunner().invoke(
        main,
        [
            "announce", "search-console", site_of(server), "--sitemap", sitemap, "--status",
            "--key-file", str(key_file), "--api", server.url("/api"), "--allow-private",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    put, get = server.requests(api_path(server, sitemap))
    assert (put.method, get.method) == ("PUT", "GET")
    assert put.headers["Authorization"] == f"Bearer {TOKEN}"
    # siteUrl and feedpath are each one path segment: every "/" and ":" percent-encoded
    port = server.port
    assert put.raw_path == (
        f"/api/sites/http%3A%2F%2F127.0.0.1%3A{port}%2F/sitemaps/"
        f"http%3A%2F%2F127.0.0.1%3A{port}%2Fsitemap.xml"
    )
    lines = result.output.splitlines()
    assert lines[0].startswith(f"submit {sitemap}: ok")
    # Google's columns, then urlset's: 2 entries, 0 errors (and its warnings, counted)
    google, mine = lines[-1].split("\t")[:7], lines[-1].split("\t")[7:]
    assert google == [sitemap, "2026-11-27T11:00:00.000Z", "no", "0", "1", "2", "0"]
    assert mine[:2] == ["2", "0"] and mine[2].isdigit()


def test_list_shows_every_sitemap_as_json(server: Endpoints, key_file: Path) -> None:
    rows = [wmx("https://a.example/one.xml", errors="3"), wmx("https://a.example/two.xml")]
    server.script(api_path(server), json_reply(200, {"sitemap": rows}))
    result = CliRunner().invoke(
        main,
        [
            "announce", "search-console", site_of(server), "--key-file", str(key_file),
            "--api", server.url("/api"), "--no-check", "--format", "json",
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output  # Google reports errors in one
    (call,) = json.loads(result.output)
    assert call["action"] == "list" and call["ok"]
    assert [s["google"]["errors"] for s in call["sitemaps"]] == [3, 0]
    assert call["sitemaps"][0]["google"]["contents"] == [
        {"type": "web", "submitted": 2, "indexed": 0}
    ]


def test_403_names_the_account_to_add(server: Endpoints, key_file: Path) -> None:
    sitemap = server.url("/sitemap.xml")
    server.script(
        api_path(server, sitemap),
        google_error(403, "User does not have sufficient permission for site"),
    )
    result = CliRunner().invoke(
        main,
        [
            "announce", "search-console", site_of(server), "--sitemap", sitemap,
            "--key-file", str(key_file), "--api", server.url("/api"),
        ],
    )  # fmt: skip
    assert result.exit_code == 1
    assert (
        f"the service account is not an owner/user of this property in Search Console: add {EMAIL}"
    ) in result.output
    assert "sufficient permission" in result.output


@pytest.mark.parametrize(
    ("reply", "action", "expected"),
    [
        (google_error(401, "Invalid Credentials"), "get", "refused the access token"),
        (google_error(404, "Not found"), "get", "has no sitemap"),
        (google_error(404, "Not found"), "list", "has no property"),
        (
            google_error(403, "Google Search Console API has not been used in project 1"),
            "list",
            "not enabled",
        ),
    ],
)
def test_each_refusal_says_what_to_do(
    server: Endpoints, reply: Reply, action: str, expected: str
) -> None:
    sitemap = server.url("/s.xml") if action == "get" else None
    server.script(api_path(server, sitemap), reply)
    token = Token(TOKEN, EMAIL)
    submit = [sitemap] if sitemap else []
    results = call_search_console_sync(
        site_of(server), token, submit=submit, api=server.url("/api"), http=fast()
    )
    last = results[-1]
    assert last.action == action and not last.ok and expected in last.message
    assert last.attempts == 1  # not worth retrying


def test_429_waits_its_retry_after_and_5xx_is_bounded(server: Endpoints) -> None:
    token = Token(TOKEN, EMAIL)
    server.script(
        api_path(server),
        Reply(429, b"{}", {"Retry-After": "0"}, content_type="application/json"),
        json_reply(200, {}),  # no sitemaps: the API leaves "sitemap" out
    )
    (result,) = call_search_console_sync(
        site_of(server), token, api=server.url("/api"), http=fast()
    )
    assert result.ok and result.attempts == 2 and result.sitemaps == []
    server.script(api_path(server), google_error(503, "Backend Error"))
    (result,) = call_search_console_sync(
        site_of(server), token, api=server.url("/api"), http=fast()
    )
    assert not result.ok and result.attempts == 3
    assert "Backend Error" in result.message and "try again later" in result.message
    assert len(server.requests(api_path(server))) == 5


def test_usage_errors_exit_2(key_file: Path, server: Endpoints) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["announce", "search-console", "example.com"])
    assert result.exit_code == 2 and "sc-domain:example.com" in result.output
    result = runner.invoke(
        main,
        [
            "announce", "search-console", "https://a.example/", "--sitemap",
            "https://b.example/s.xml", "--key-file", str(key_file), "--api", server.url("/api"),
        ],
    )  # fmt: skip
    assert result.exit_code == 2 and "not in the property" in result.output
    assert not server.requests(api_path(server))


def test_without_google_auth_the_message_says_what_to_install(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "google.auth", None)  # as if not installed
    with pytest.raises(CredentialsError, match=r"pip install 'urlset\[google\]'"):
        access_token("key.json")


def test_what_urlset_finds_beside_what_google_says(server: Endpoints, key_file: Path) -> None:
    broken = server.url("/broken.xml")  # Google has not looked yet; urlset finds its errors
    server.serve("/broken.xml", b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
                 b"<url><loc>not a url</loc></url></urlset>")  # fmt: skip
    server.script(
        api_path(server),
        json_reply(200, {"sitemap": [wmx(broken, errors="0", isPending=True)]}),
    )
    result = CliRunner().invoke(
        main,
        [
            "announce", "search-console", site_of(server), "--key-file", str(key_file),
            "--api", server.url("/api"), "--allow-private", "--format", "json",
        ],
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    (call,) = json.loads(result.output)
    (row,) = call["sitemaps"]
    assert row["google"]["errors"] == 0 and row["google"]["isPending"] is True
    assert row["urlset"]["errors"] >= 1

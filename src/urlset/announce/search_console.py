"""Google Search Console: submit a sitemap and read what Google says about a property's sitemaps.

The Search Console API (webmasters v3) ``sitemaps`` resource: ``submit`` (PUT
``/sites/{siteUrl}/sitemaps/{feedpath}``), ``list`` (GET ``/sites/{siteUrl}/sitemaps``) and
``get`` (GET ``/sites/{siteUrl}/sitemaps/{feedpath}``), each answered with the fields the API
documents (lastSubmitted, lastDownloaded, isPending, errors, warnings, contents[type,
submitted, indexed]). Requests carry an OAuth access token for the ``webmasters`` scope,
obtained with google-auth (the optional extra ``urlset[google]``) from a service-account key
file or from application default credentials; the token is fetched from the ``token_uri``
the key file names.

In: a property (``https://www.example.com/`` or ``sc-domain:example.com``), sitemap URLs, a
token. Out: one ``ConsoleResult`` per call, its message saying what failed and what to do.
The requests go through ``announce.http.send`` (5xx and 429 tried again within a deadline,
Retry-After honoured). The API root is ``DEFAULT_API``, or ``URLSET_SEARCH_CONSOLE_API``.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from ..codes import plural
from ..errors import InvalidValue, UrlsetError
from ..fetching.http_options import HttpOptions
from ..urls import to_uri
from .http import Answer, announce_options, open_session, send

DEFAULT_API = "https://www.googleapis.com/webmasters/v3"
API_ENV = "URLSET_SEARCH_CONSOLE_API"
SCOPE = "https://www.googleapis.com/auth/webmasters"
USERS_PAGE = "Settings > Users and permissions"


class CredentialsError(UrlsetError):
    """No access token could be had: the key file or the default credentials are unusable."""


@dataclass(frozen=True, slots=True)
class Token:
    value: str
    email: str | None  # the service account's address, the one to add in Search Console


@dataclass(frozen=True, slots=True)
class Content:
    """One ``contents`` row: URLs (or images, videos, news ...) submitted and indexed."""

    type: str
    submitted: int
    indexed: int | None  # the API no longer fills it in for most types


@dataclass(frozen=True, slots=True)
class SitemapStatus:
    """What Search Console says about one sitemap."""

    path: str
    last_submitted: str | None = None
    last_downloaded: str | None = None
    is_pending: bool = False
    is_index: bool = False
    type: str | None = None
    errors: int = 0
    warnings: int = 0
    contents: tuple[Content, ...] = ()

    @property
    def submitted(self) -> int:
        return sum(c.submitted for c in self.contents)


@dataclass(frozen=True, slots=True)
class ConsoleResult:
    """One API call and how it ended."""

    action: str  # "submit", "list" or "get"
    site: str
    sitemap: str | None
    ok: bool
    status: int | None
    message: str
    attempts: int
    sitemaps: list[SitemapStatus] = field(default_factory=list)


def api_root(api: str | None = None) -> str:
    """The API root: ``api``, else ``URLSET_SEARCH_CONSOLE_API``, else Google's."""
    root = api or os.environ.get(API_ENV) or DEFAULT_API
    return to_uri(root, field="Search Console API root").rstrip("/")


def property_id(site: str) -> str:
    """The property as Search Console names it: ``sc-domain:example.com`` (a domain
    property) or a URL prefix with its scheme and a path ending in ``/``. InvalidValue
    otherwise, saying the two forms."""
    forms = "give https://www.example.com/ (a URL-prefix property) or sc-domain:example.com"
    if site.startswith("sc-domain:"):
        host = site.removeprefix("sc-domain:")
        if not host or "/" in host or ":" in host:
            raise InvalidValue("Search Console property", site, f"not a domain; {forms}")
        return "sc-domain:" + host.lower()
    try:
        url = to_uri(site, field="Search Console property")
    except InvalidValue:
        raise InvalidValue("Search Console property", site, f"not a property; {forms}") from None
    parts = urlsplit(url)
    if parts.query or parts.fragment:
        raise InvalidValue("Search Console property", site, f"has a query or fragment; {forms}")
    if not parts.path.endswith("/"):
        url = url + "/" if not parts.path else url[: url.rfind("/") + 1]
    return url


def in_property(site: str, sitemap: str) -> bool:
    """Whether Search Console accepts ``sitemap`` for the property: under the URL prefix, or
    on the domain (or a subdomain of it) for a domain property."""
    if site.startswith("sc-domain:"):
        domain = site.removeprefix("sc-domain:")
        host = (urlsplit(sitemap).hostname or "").lower()
        return host == domain or host.endswith("." + domain)
    return sitemap.startswith(site)


def _path(site: str, sitemap: str | None) -> str:
    path = f"/sites/{quote(site, safe='')}/sitemaps"
    return path if sitemap is None else f"{path}/{quote(sitemap, safe='')}"


def access_token(key_file: str | None = None) -> Token:
    """An access token for the ``webmasters`` scope: from the service-account key file
    ``key_file``, else from application default credentials (GOOGLE_APPLICATION_CREDENTIALS,
    gcloud's, or the metadata server). Blocking (google-auth's own HTTP). CredentialsError
    saying what to do when none can be had."""
    # loaded as modules of unknown type: google-auth is optional, and not typed throughout
    auth: Any
    auth_errors: Any
    transport: Any
    service_account: Any
    try:
        import urllib3

        auth = importlib.import_module("google.auth")
        auth_errors = importlib.import_module("google.auth.exceptions")
        transport = importlib.import_module("google.auth.transport.urllib3")
        service_account = importlib.import_module("google.oauth2.service_account")
    except ImportError:
        raise CredentialsError(
            "Search Console needs google-auth: pip install 'urlset[google]' (or google-auth)"
        ) from None
    credentials: Any
    try:
        if key_file is not None:
            credentials = service_account.Credentials.from_service_account_file(
                key_file, scopes=[SCOPE]
            )
        else:
            credentials, _ = auth.default(scopes=[SCOPE])
    except OSError as exc:
        raise CredentialsError(
            f"cannot read the key file {key_file}: {exc.strerror or exc}"
        ) from None
    except (auth_errors.DefaultCredentialsError, ValueError, KeyError) as exc:
        if key_file is None:
            raise CredentialsError(
                f"no Google credentials: {exc} Give --key-file with a service account's JSON key"
            ) from None
        raise CredentialsError(
            f"{key_file} is not a service account's JSON key ({exc}); download one from "
            "Google Cloud console > IAM > Service accounts > Keys"
        ) from None
    email = getattr(credentials, "service_account_email", None)
    try:
        credentials.refresh(transport.Request(urllib3.PoolManager(timeout=20.0, retries=2)))
    except auth_errors.RefreshError as exc:
        who = f" for {email}" if email else ""
        raise CredentialsError(
            f"the token endpoint refused the credentials{who}: {_first(exc)}; the key may "
            "have been deleted or disabled: create a new one"
        ) from None
    except auth_errors.TransportError as exc:
        raise CredentialsError(f"cannot reach the token endpoint: {_first(exc)}") from None
    return Token(str(credentials.token), email if isinstance(email, str) else None)


def _first(exc: Exception) -> str:
    return str(exc.args[0]) if exc.args else str(exc)


def _api_message(answer: Answer) -> str:
    """The ``error.message`` of Google's JSON error body, else the body's start."""
    try:
        data = json.loads(answer.body)
        message = data["error"]["message"]
        if isinstance(message, str):
            return message
    except (ValueError, KeyError, TypeError):
        pass
    return answer.body.decode("utf-8", errors="replace").strip()[:200]


def explain(action: str, site: str, sitemap: str | None, answer: Answer, email: str | None) -> str:
    """What a failed call means, and what to do."""
    status = answer.status
    if status is None:
        return (answer.error or "no answer") + (f"; {answer.note}" if answer.note else "")
    said = _api_message(answer)
    http = f"HTTP {status}" + (f": {said}" if said else "")
    if status == 401:
        return (
            f"Search Console refused the access token ({http}); check the key file, or run "
            "`gcloud auth application-default login` for default credentials"
        )
    if status == 403:
        if "has not been used" in said or "disabled" in said:
            return (
                f"the Search Console API is not enabled in the key's Google Cloud project "
                f"({http}); enable it in Google Cloud console > APIs & Services"
            )
        who = email or "the account of these credentials"
        return (
            f"the service account is not an owner/user of this property in Search Console: "
            f"add {who} in {USERS_PAGE} of {site} (verify the property first) ({http})"
        )
    if status == 404:
        if action == "get" and sitemap is not None:
            return f"Search Console has no sitemap {sitemap} for {site}: submit it first ({http})"
        return (
            f"Search Console has no property {site} ({http}); give it as Search Console "
            "names it: https://www.example.com/ with its scheme and slash, or "
            "sc-domain:example.com"
        )
    if status == 400:
        return f"Search Console refused the request ({http})"
    tail = f"; {answer.note}" if answer.note else ""
    if status == 429:
        return f"over the API's quota ({http}){tail}; try again later"
    if status >= 500:
        return f"Search Console failed ({http}){tail}; try again later"
    return f"unexpected answer ({http})"


def parse_sitemap(data: Any) -> SitemapStatus:
    """One ``WmxSitemap`` resource (counts come as strings: int64 in JSON)."""
    if not isinstance(data, dict) or not isinstance(data.get("path"), str):
        raise ValueError("a sitemap without a path")
    contents = tuple(
        Content(
            str(c.get("type", "")),
            int(c.get("submitted", 0)),
            int(c["indexed"]) if c.get("indexed") is not None else None,
        )
        for c in data.get("contents", [])
        if isinstance(c, dict)
    )
    return SitemapStatus(
        path=data["path"],
        last_submitted=data.get("lastSubmitted"),
        last_downloaded=data.get("lastDownloaded"),
        is_pending=bool(data.get("isPending", False)),
        is_index=bool(data.get("isSitemapsIndex", False)),
        type=data.get("type"),
        errors=int(data.get("errors", 0)),
        warnings=int(data.get("warnings", 0)),
        contents=contents,
    )


def _result(
    action: str, site: str, sitemap: str | None, answer: Answer, email: str | None
) -> ConsoleResult:
    status = answer.status
    if status is None or not 200 <= status < 300:
        message = explain(action, site, sitemap, answer, email)
        return ConsoleResult(action, site, sitemap, False, status, message, answer.attempts)
    if action == "submit":
        message = "submitted: Google will download it"
        return ConsoleResult(action, site, sitemap, True, status, message, answer.attempts)
    try:
        data = json.loads(answer.body or b"{}")
        rows = data.get("sitemap", []) if action == "list" else [data]
        sitemaps = [parse_sitemap(row) for row in rows]
    except (ValueError, TypeError, AttributeError) as exc:
        message = f"an answer that is not the API's JSON ({exc}): {answer.body[:80]!r}"
        return ConsoleResult(action, site, sitemap, False, status, message, answer.attempts)
    message = f"{plural(len(sitemaps), 'sitemap')} known to Search Console"
    return ConsoleResult(action, site, sitemap, True, status, message, answer.attempts, sitemaps)


async def call_search_console(
    site: str,
    token: Token,
    *,
    submit: Sequence[str] = (),
    status: bool = True,
    api: str | None = None,
    http: HttpOptions | None = None,
    deadline: float = 60.0,
) -> list[ConsoleResult]:
    """Submit each sitemap of ``submit``, then (``status``) read the status: ``get`` of each
    one submitted, or ``list`` of the property's when none is. InvalidValue for a property or
    sitemap URL that is not one, or a sitemap outside the property."""
    site = property_id(site)
    sitemaps = [to_uri(s, field="sitemap URL") for s in submit]
    for sitemap in sitemaps:
        if not in_property(site, sitemap):
            raise InvalidValue(
                "sitemap URL", sitemap, f"not in the property {site}: Search Console refuses it"
            )
    root = api_root(api)
    options = http or announce_options()
    end = time.monotonic() + deadline
    headers = {"Authorization": f"Bearer {token.value}", "Accept": "application/json"}
    calls: list[tuple[str, str, str | None]] = [("submit", "PUT", s) for s in sitemaps]
    if status:
        calls += [("get", "GET", s) for s in sitemaps] or [("list", "GET", None)]
    results: list[ConsoleResult] = []
    async with open_session(options, [root]) as session:
        for action, method, target in calls:
            url = root + _path(site, target)
            answer = await send(
                session, method, url, headers=headers, options=options, deadline=end
            )
            results.append(_result(action, site, target, answer, token.email))
    return results


def call_search_console_sync(
    site: str,
    token: Token,
    *,
    submit: Sequence[str] = (),
    status: bool = True,
    api: str | None = None,
    http: HttpOptions | None = None,
    deadline: float = 60.0,
) -> list[ConsoleResult]:
    """``call_search_console`` for code without an event loop."""
    return asyncio.run(
        call_search_console(
            site, token, submit=submit, status=status, api=api, http=http, deadline=deadline
        )
    )

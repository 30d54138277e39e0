"""IndexNow, the part that needs no network: keys, the key file, which URLs may go, batches,
requests, and what each documented answer means.

From the IndexNow documentation (indexnow.org/documentation): a key has 8 to 128
characters of ``a-z A-Z 0-9 -``; the key file holds the key and is served at
``https://<host>/<key>.txt`` or at a ``keyLocation`` on the same host, whose directory then
bounds the URLs the key may submit; one URL is submitted with
``GET <endpoint>?url=<url>&key=<key>``, a set with a POST of JSON ``{"host", "key",
"keyLocation", "urlList"}``, at most 10,000 URLs a request, all of the one host (http and
https may be mixed). Answers: 200 OK, 202 received (key validation pending), 400 bad
request, 403 key not valid, 422 URLs not of this host (or a key not matching the schema),
429 too many requests.

In: a site URL, a key (and key location), URLs with their lastmod. Out: a ``Plan`` of
``Batch`` es (and the URLs refused, with why), each batch's ``Request``, and the
``BatchReport`` of an answer. indexnow_http drives it; indexnow_state remembers what was
accepted.
"""

from __future__ import annotations

import re
import secrets
import string
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import quote, urlsplit

from ..dates import Lastmod
from ..errors import InvalidValue
from ..urls import to_uri

MAX_URLS_PER_REQUEST = 10_000  # "You can submit up to 10,000 URLs per post"
KEY_MIN, KEY_MAX = 8, 128
_KEY = re.compile(r"[A-Za-z0-9-]{%d,%d}" % (KEY_MIN, KEY_MAX))  # noqa: UP031 (a regex)
_KEY_ALPHABET = string.ascii_letters + string.digits

# The shared endpoint and each participating engine's own (indexnow.org FAQ). A submission
# to any one of them is shared with all the others, so one is enough.
ENDPOINTS = {
    "indexnow": "https://api.indexnow.org/indexnow",
    "bing": "https://www.bing.com/indexnow",
    "naver": "https://searchadvisor.naver.com/indexnow",
    "seznam": "https://search.seznam.cz/indexnow",
    "yandex": "https://yandex.com/indexnow",
    "yep": "https://indexnow.yep.com/indexnow",
}
DEFAULT_ENDPOINT = ENDPOINTS["indexnow"]


def generate_key(length: int = 32) -> str:
    """A new random key of ``length`` letters and digits (from ``secrets``)."""
    if not KEY_MIN <= length <= KEY_MAX:
        raise InvalidValue("key length", length, f"must be {KEY_MIN} to {KEY_MAX}")
    return "".join(secrets.choice(_KEY_ALPHABET) for _ in range(length))


def check_key(key: str) -> str:
    """``key`` when it is a valid IndexNow key; else InvalidValue saying why."""
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise InvalidValue(
            "IndexNow key",
            key,
            f"must be {KEY_MIN} to {KEY_MAX} characters of a-z, A-Z, 0-9 and '-'",
        )
    return key


def endpoint_url(name: str) -> str:
    """An endpoint by its short name (``indexnow``, ``bing``, ...) or as a full URL."""
    if name.lower() in ENDPOINTS:
        return ENDPOINTS[name.lower()]
    if not name.lower().startswith(("http://", "https://")):
        known = ", ".join(ENDPOINTS)
        raise InvalidValue("IndexNow endpoint", name, f"give a URL or one of: {known}")
    return to_uri(name, field="IndexNow endpoint")


@dataclass(frozen=True, slots=True)
class IndexNowSite:
    """The host submitted for, its key, and where the key file is served."""

    host: str
    key: str
    key_location: str
    directory: str  # the key file's directory: URLs must lie under it

    @classmethod
    def of(cls, site_url: str, key: str, key_location: str | None = None) -> IndexNowSite:
        """For the site at ``site_url`` (any URL on it); the key file at ``key_location``
        (default ``<scheme>://<host>/<key>.txt``), which must be on the same host."""
        check_key(key)
        site = urlsplit(to_uri(site_url, field="site URL"))
        host = (site.hostname or "").lower()
        location = key_location or f"{site.scheme}://{site.netloc}/{key}.txt"
        parts = urlsplit(to_uri(location, field="keyLocation"))
        if (parts.hostname or "").lower() != host:
            raise InvalidValue(
                "keyLocation", location, f"must be on the host submitted for, {host}"
            )
        path = parts.path or "/"
        return cls(host, key, parts.geturl(), path[: path.rfind("/") + 1])

    @property
    def default_location(self) -> bool:
        return urlsplit(self.key_location).path == f"/{self.key}.txt"

    def key_file_path(self, served_at: str | None = None) -> str:
        """The key file's path relative to the directory served at ``served_at`` (default the
        host's root). InvalidValue when the key location lies outside it."""
        base = urlsplit(to_uri(served_at, field="base URL")).path if served_at else "/"
        base = base[: base.rfind("/") + 1]
        path = urlsplit(self.key_location).path
        if not path.startswith(base) or path == base:
            raise InvalidValue(
                "keyLocation", self.key_location, f"is not a file under {served_at or '/'}"
            )
        return path[len(base) :]

    def refusal(self, url: str) -> str | None:
        """Why ``url`` (a URI) cannot be submitted with this key, or None."""
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        if host != self.host:
            return f"host {host} is not {self.host}, the host submitted for"
        if not (parts.path or "/").startswith(self.directory):
            return f"lies outside {self.directory}, the directory of the key file"
        return None


@dataclass(frozen=True, slots=True)
class Batch:
    """URLs sent in one request (at most MAX_URLS_PER_REQUEST), with the lastmod each had."""

    urls: tuple[str, ...]
    lastmods: tuple[Lastmod | None, ...]


@dataclass
class Plan:
    batches: list[Batch]
    refused: list[tuple[str, str]]  # (URL as given, why)
    already_sent: int  # accepted before and not changed since
    duplicates: int


def plan(
    site: IndexNowSite,
    entries: Iterable[tuple[str, Lastmod | None]],
    *,
    already_sent: Callable[[str, Lastmod | None], bool] = lambda url, lastmod: False,
    batch_size: int = MAX_URLS_PER_REQUEST,
) -> Plan:
    """Which URLs go, in batches: each made a URI and checked to belong to the host (and the
    key's directory) first; duplicates and those ``already_sent`` left out."""
    if not 1 <= batch_size <= MAX_URLS_PER_REQUEST:
        raise InvalidValue("batch size", batch_size, f"must be 1 to {MAX_URLS_PER_REQUEST:,}")
    refused: list[tuple[str, str]] = []
    seen: set[str] = set()
    urls: list[str] = []
    lastmods: list[Lastmod | None] = []
    skipped = duplicates = 0
    for given, lastmod in entries:
        try:
            uri = to_uri(given)
        except InvalidValue as exc:
            refused.append((given, exc.reason))
            continue
        why = site.refusal(uri)
        if why is not None:
            refused.append((given, why))
        elif uri in seen:
            duplicates += 1
        elif already_sent(uri, lastmod):
            seen.add(uri)
            skipped += 1
        else:
            seen.add(uri)
            urls.append(uri)
            lastmods.append(lastmod)
    batches = [
        Batch(tuple(urls[i : i + batch_size]), tuple(lastmods[i : i + batch_size]))
        for i in range(0, len(urls), batch_size)
    ]
    return Plan(batches, refused, skipped, duplicates)


@dataclass(frozen=True, slots=True)
class Request:
    method: str
    url: str
    json: dict[str, Any] | None


def request_for(site: IndexNowSite, endpoint: str, batch: Batch) -> Request:
    """One URL: a GET with ``url`` and ``key`` (and ``keyLocation`` when not the default);
    more: a POST of ``host``, ``key``, ``keyLocation`` and ``urlList``."""
    if len(batch.urls) == 1:
        query = f"url={quote(batch.urls[0], safe='')}&key={site.key}"
        if not site.default_location:
            query += f"&keyLocation={quote(site.key_location, safe='')}"
        joiner = "&" if "?" in endpoint else "?"
        return Request("GET", f"{endpoint}{joiner}{query}", None)
    body = {
        "host": site.host,
        "key": site.key,
        "keyLocation": site.key_location,
        "urlList": list(batch.urls),
    }
    return Request("POST", endpoint, body)


class Outcome(StrEnum):
    ACCEPTED = "accepted"  # 200
    RECEIVED = "received"  # 202: received, key validation pending
    BAD_REQUEST = "bad-request"  # 400
    KEY_INVALID = "key-invalid"  # 403
    WRONG_HOST = "wrong-host"  # 422
    TOO_MANY = "too-many-requests"  # 429
    REDIRECTED = "redirected"  # 3xx: not followed, and not acceptance
    FAILED = "failed"  # another status, or no answer

    def __str__(self) -> str:
        return self.value


_OUTCOMES = {
    200: Outcome.ACCEPTED,
    202: Outcome.RECEIVED,
    400: Outcome.BAD_REQUEST,
    403: Outcome.KEY_INVALID,
    422: Outcome.WRONG_HOST,
    429: Outcome.TOO_MANY,
}
_MEANING = {
    Outcome.ACCEPTED: "URLs submitted",
    Outcome.RECEIVED: "URLs received; the key is not validated yet: make sure the key file is "
    "served at {key_location} (the engine fetches it)",
    Outcome.BAD_REQUEST: "bad request (invalid format)",
    Outcome.KEY_INVALID: "key not valid: the key file at {key_location} was not found or does "
    "not hold the key; publish it and submit again",
    Outcome.WRONG_HOST: "URLs not of host {host}, or a key not matching the protocol's schema",
    Outcome.TOO_MANY: "too many requests (the engine suspects spam); submit later, less often",
    Outcome.REDIRECTED: "not accepted: the endpoint redirects, and a redirect is not "
    "acceptance (a POST redirected would arrive as a GET without the URLs); give the "
    "endpoint's final URL",
    Outcome.FAILED: "not submitted",
}
# after these, the endpoint's other batches would meet the same answer: they are not sent
STOPS_ENDPOINT = frozenset({Outcome.KEY_INVALID, Outcome.TOO_MANY, Outcome.REDIRECTED})


def outcome_of(status: int | None) -> Outcome:
    if status is None:
        return Outcome.FAILED
    if status in _OUTCOMES:
        return _OUTCOMES[status]
    if 300 <= status < 400:
        return Outcome.REDIRECTED
    return Outcome.ACCEPTED if 200 <= status < 300 else Outcome.FAILED


@dataclass(frozen=True, slots=True)
class BatchReport:
    """How an endpoint answered one batch."""

    endpoint: str
    method: str
    size: int
    first: str  # the batch's first URL
    status: int | None
    outcome: Outcome
    message: str
    attempts: int = 0
    seconds: float = 0.0

    @property
    def accepted(self) -> bool:
        """The engine took the URLs (200, or 202 with the key still to be validated)."""
        return self.outcome in (Outcome.ACCEPTED, Outcome.RECEIVED)


def batch_report(
    site: IndexNowSite,
    endpoint: str,
    request: Request,
    batch: Batch,
    status: int | None,
    detail: str,
    attempts: int = 1,
    seconds: float = 0.0,
) -> BatchReport:
    """The report of one answer: ``detail`` is the answer as text (or why none came)."""
    outcome = outcome_of(status)
    meaning = _MEANING[outcome].format(key_location=site.key_location, host=site.host)
    message = meaning if outcome is Outcome.ACCEPTED else f"{meaning} ({detail})"
    return BatchReport(
        endpoint,
        request.method,
        len(batch.urls),
        batch.urls[0],
        status,
        outcome,
        message,
        attempts,
        seconds,
    )


def not_sent(site: IndexNowSite, endpoint: str, batch: Batch, why: str) -> BatchReport:
    """A batch left unsent (the endpoint refused an earlier one for good)."""
    request = request_for(site, endpoint, batch)
    return BatchReport(
        endpoint, request.method, len(batch.urls), batch.urls[0], None, Outcome.FAILED, why
    )

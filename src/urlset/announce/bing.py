"""Bing Webmaster Tools API: submit sitemaps (SubmitFeed) and URL batches (SubmitUrlBatch)
within the site's daily quota (GetUrlSubmissionQuota).

The JSON API at ``/webmaster/api.svc/json/<Method>?apikey=KEY``: ``SubmitFeed`` takes
``{"siteUrl", "feedUrl"}``, ``SubmitUrlBatch`` ``{"siteUrl", "urlList"}`` (at most
``BATCH_MAX`` URLs a call), and ``GetUrlSubmissionQuota?siteUrl=`` answers
``{"d": {"DailyQuota": n, "MonthlyQuota": m}}``. A refusal comes as a 4xx with
``{"ErrorCode": n, "Message": "..."}`` (``ERROR_CODES``). URLs beyond today's quota are not
sent: they are returned as ``left`` for a later run. The API key goes in the query and is
never shown in a message.

In: a site, an API key, sitemap URLs, page URLs. Out: a ``BingReport``. The requests go
through ``announce.http.send`` (5xx and 429 tried again within a deadline). The API root is
``DEFAULT_API``, or ``URLSET_BING_API``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

from ..errors import InvalidValue
from ..fetching.http_options import HttpOptions
from ..urls import to_uri
from .http import Answer, announce_options, open_session, send

DEFAULT_API = "https://ssl.bing.com/webmaster/api.svc/json"
API_ENV = "URLSET_BING_API"
BATCH_MAX = 500  # SubmitUrlBatch's documented ceiling per call
KEY_PAGE = "Bing Webmaster Tools > Settings > API access"
# the API's ApiErrorCode values that say something a user can act on
ERROR_CODES = {
    1: "Bing's internal error; try again later",
    3: f"the API key is not valid: generate one in {KEY_PAGE}",
    4: "Bing is throttling this user; try again later",
    5: "Bing is throttling this host; try again later",
    6: "this Bing Webmaster Tools user is blocked",
    7: "Bing finds the URL not valid",
    8: "Bing refused a parameter",
    11: "Bing Webmaster Tools has no such site: add and verify it there first",
    13: "not allowed for this site",
    14: "the API key's account does not own this site in Bing Webmaster Tools: add and verify it",
    16: "this API method is retired",
}


@dataclass(frozen=True, slots=True)
class BingCall:
    """One API call and how it ended."""

    method: str  # SubmitFeed, SubmitUrlBatch, GetUrlSubmissionQuota
    ok: bool
    status: int | None
    message: str
    attempts: int
    size: int = 0  # the URLs (or the one feed) it carried
    first: str | None = None


@dataclass
class BingReport:
    site: str
    calls: list[BingCall] = field(default_factory=list)
    daily_quota: int | None = None
    monthly_quota: int | None = None
    sent: int = 0  # URLs accepted
    left: list[str] = field(default_factory=list)  # over today's quota (or not sent): send later
    refused: list[tuple[str, str]] = field(default_factory=list)  # not of the site: (URL, why)
    duplicates: int = 0

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.calls) and not self.refused


def api_root(api: str | None = None) -> str:
    root = api or os.environ.get(API_ENV) or DEFAULT_API
    return to_uri(root, field="Bing Webmaster API root").rstrip("/")


def site_id(site: str) -> str:
    """The site as Bing Webmaster Tools names it: its http(s) URL (a bare host gets https)."""
    return to_uri(site, field="site URL")


def of_site(site: str, url: str) -> bool:
    """Whether ``url`` is on the site's host (either scheme; Bing scopes quota per site)."""
    return (urlsplit(url).hostname or "") == (urlsplit(site).hostname or "")


def explain(answer: Answer) -> str:
    """What a refusal means, and what to do; the API key never appears."""
    status = answer.status
    if status is None:
        return (answer.error or "no answer") + (f"; {answer.note}" if answer.note else "")
    code: object = None
    said = ""
    try:
        data = json.loads(answer.body)
        code, said = data.get("ErrorCode"), str(data.get("Message", ""))
    except (ValueError, AttributeError):
        said = answer.body.decode("utf-8", errors="replace").strip()[:200]
    http = f"HTTP {status}" + (f": {said}" if said else "")
    tail = f"; {answer.note}" if answer.note else ""
    if "quota" in said.lower():
        return f"over today's quota ({http}); send the rest tomorrow"
    if isinstance(code, int) and code in ERROR_CODES:
        return f"{ERROR_CODES[code]} ({http}){tail}"
    if status in (401, 403):
        return f"the API key was refused ({http}); check it in {KEY_PAGE}"
    if status == 429 or status >= 500:
        return f"Bing did not take it ({http}){tail}; try again later"
    return f"refused ({http}){tail}"


def _call(
    method: str, answer: Answer, size: int = 0, first: str | None = None, done: str = "accepted"
) -> BingCall:
    ok = answer.status is not None and 200 <= answer.status < 300
    message = done if ok else explain(answer)
    return BingCall(method, ok, answer.status, message, answer.attempts, size, first)


def parse_quota(body: bytes) -> tuple[int, int | None]:
    """(daily, monthly) from GetUrlSubmissionQuota's ``{"d": {...}}``; ValueError otherwise."""
    data: Any = json.loads(body)
    quota = data["d"] if isinstance(data, dict) and "d" in data else data
    if not isinstance(quota, dict) or not isinstance(quota.get("DailyQuota"), int):
        raise ValueError(f"no DailyQuota in {body[:120]!r}")
    monthly = quota.get("MonthlyQuota")
    return quota["DailyQuota"], monthly if isinstance(monthly, int) else None


async def submit_bing(
    site: str,
    api_key: str,
    *,
    sitemaps: Sequence[str] = (),
    urls: Sequence[str] = (),
    batch_size: int = BATCH_MAX,
    api: str | None = None,
    http: HttpOptions | None = None,
    deadline: float = 60.0,
) -> BingReport:
    """Submit each sitemap with SubmitFeed, then as many of ``urls`` as today's quota allows
    with SubmitUrlBatch (batches of ``batch_size``, at most 500); the rest are ``left``.
    InvalidValue for a site or sitemap that is not an absolute URL, or an empty key."""
    if not api_key:
        raise InvalidValue("Bing API key", api_key, f"empty; copy it from {KEY_PAGE}")
    site = site_id(site)
    feeds = [to_uri(s, field="sitemap URL") for s in sitemaps]
    report = BingReport(site)
    pages: list[str] = []
    seen: set[str] = set()
    for raw in urls:
        try:
            url = to_uri(raw, field="URL")
        except InvalidValue as exc:
            report.refused.append((raw, exc.reason))
            continue
        if not of_site(site, url):
            report.refused.append((url, f"not on {urlsplit(site).hostname}"))
        elif url in seen:
            report.duplicates += 1
        else:
            seen.add(url)
            pages.append(url)
    root = api_root(api)
    key = quote(api_key, safe="")
    options = http or announce_options()
    end = time.monotonic() + deadline
    size = max(1, min(batch_size, BATCH_MAX))
    async with open_session(options, [root]) as session:

        async def call(method: str, verb: str, query: str, body: Any) -> Answer:
            url = f"{root}/{method}?{query}apikey={key}"
            return await send(session, verb, url, json_body=body, options=options, deadline=end)

        for feed in feeds:
            answer = await call("SubmitFeed", "POST", "", {"siteUrl": site, "feedUrl": feed})
            report.calls.append(_call("SubmitFeed", answer, 1, feed, "sitemap submitted"))
        if not pages:
            return report
        answer = await call(
            "GetUrlSubmissionQuota", "GET", f"siteUrl={quote(site, safe='')}&", None
        )
        quota_call = _call("GetUrlSubmissionQuota", answer, done="quota read")
        if quota_call.ok:
            try:
                report.daily_quota, report.monthly_quota = parse_quota(answer.body)
            except (ValueError, KeyError, TypeError) as exc:
                quota_call = BingCall(
                    quota_call.method, False, answer.status, f"not the API's answer: {exc}", 1
                )
        report.calls.append(quota_call)
        if report.daily_quota is None:  # unknown quota: send nothing rather than guess
            report.left = pages
            return report
        fits, report.left = pages[: report.daily_quota], pages[report.daily_quota :]
        for start in range(0, len(fits), size):
            batch = fits[start : start + size]
            answer = await call("SubmitUrlBatch", "POST", "", {"siteUrl": site, "urlList": batch})
            done = _call("SubmitUrlBatch", answer, len(batch), batch[0])
            report.calls.append(done)
            if done.ok:
                report.sent += len(batch)
            else:  # the rest of today's share waits too: a refusal is for all of them
                report.left = fits[start:] + report.left
                break
    return report


def submit_bing_sync(
    site: str,
    api_key: str,
    *,
    sitemaps: Sequence[str] = (),
    urls: Sequence[str] = (),
    batch_size: int = BATCH_MAX,
    api: str | None = None,
    http: HttpOptions | None = None,
    deadline: float = 60.0,
) -> BingReport:
    """``submit_bing`` for code without an event loop."""
    return asyncio.run(
        submit_bing(
            site,
            api_key,
            sitemaps=sitemaps,
            urls=urls,
            batch_size=batch_size,
            api=api,
            http=http,
            deadline=deadline,
        )
    )

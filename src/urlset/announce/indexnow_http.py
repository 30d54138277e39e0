"""IndexNow over HTTP: the thin driver around indexnow.py, and the key file on disk.

``submit_indexnow`` plans the batches for each endpoint (URLs checked against the host and the key's
directory, those accepted before and unchanged left out, per the state file), sends them one
after another (announce.http: retries, Retry-After, one deadline for the whole run), records
each accepted batch at once, and reports every batch. After a 403 (key not valid) or a 429
that outlasts the deadline, that endpoint's remaining batches are reported as not sent.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from pathlib import Path

from ..dates import Lastmod, parse_w3c
from ..errors import InvalidValue
from ..fetching.http_options import HttpOptions
from .http import announce_options, open_session, send
from .indexnow import (
    DEFAULT_ENDPOINT,
    MAX_URLS_PER_REQUEST,
    STOPS_ENDPOINT,
    BatchReport,
    IndexNowSite,
    batch_report,
    not_sent,
    plan,
    request_for,
)
from .indexnow_state import SubmissionState
from .robots_file import write_atomically

Entry = str | tuple[str, Lastmod | str | None]


@dataclass
class IndexNowReport:
    """Every batch's report, and the URLs that were not sent and why."""

    site: IndexNowSite
    batches: list[BatchReport] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)  # (URL, why): never sent
    already_sent: dict[str, int] = field(default_factory=dict)  # per endpoint
    duplicates: int = 0

    @property
    def accepted(self) -> int:
        return sum(b.size for b in self.batches if b.accepted)

    @property
    def ok(self) -> bool:
        """Every batch accepted and no URL refused."""
        return not self.refused and all(b.accepted for b in self.batches)


def _entries(
    entries: Iterable[Entry], refused: list[tuple[str, str]]
) -> list[tuple[str, Lastmod | None]]:
    out: list[tuple[str, Lastmod | None]] = []
    for entry in entries:
        url, lastmod = (entry, None) if isinstance(entry, str) else entry
        if isinstance(lastmod, str):
            try:
                lastmod = parse_w3c(lastmod.strip()) if lastmod.strip() else None
            except InvalidValue as exc:
                refused.append((url, f"lastmod {lastmod!r}: {exc.reason}"))
                continue
        out.append((url, lastmod))
    return out


async def submit_indexnow(
    site: IndexNowSite,
    entries: Iterable[Entry],
    *,
    endpoints: Sequence[str] = (DEFAULT_ENDPOINT,),
    state: SubmissionState | str | os.PathLike[str] | None = None,
    http: HttpOptions | None = None,
    deadline: float = 120.0,
    batch_size: int = MAX_URLS_PER_REQUEST,
    now: datetime | None = None,
) -> IndexNowReport:
    """Submit ``entries`` (URLs, or (URL, lastmod) pairs) to each endpoint (full URLs).

    ``state``: a SubmissionState or the path of its file (None: remember nothing).
    ``deadline``: seconds for the whole run, waits for Retry-After included.
    """
    report = IndexNowReport(site)
    items = _entries(entries, report.refused)
    memory = state if isinstance(state, SubmissionState) else SubmissionState(state)
    options = http or announce_options()
    end = time.monotonic() + deadline
    plans = {}
    for endpoint in endpoints:
        planned = plan(
            site, items, already_sent=partial(memory.already_sent, endpoint), batch_size=batch_size
        )
        plans[endpoint] = planned
        report.already_sent[endpoint] = planned.already_sent
    first = plans[endpoints[0]] if endpoints else None
    if first is not None:
        report.refused.extend(first.refused)
        report.duplicates = first.duplicates
    async with open_session(options, endpoints) as session:

        async def one_endpoint(endpoint: str) -> list[BatchReport]:
            reports: list[BatchReport] = []
            stopped: str | None = None
            for batch in plans[endpoint].batches:
                if stopped is not None:
                    reports.append(not_sent(site, endpoint, batch, stopped))
                    continue
                request = request_for(site, endpoint, batch)
                answer = await send(
                    session,
                    request.method,
                    request.url,
                    json_body=request.json,
                    follow_redirects=False,
                    options=options,
                    deadline=end,
                )
                detail = answer.describe() + (f"; {answer.note}" if answer.note else "")
                result = batch_report(
                    site,
                    endpoint,
                    request,
                    batch,
                    answer.status,
                    detail,
                    answer.attempts,
                    answer.seconds,
                )
                reports.append(result)
                if result.accepted:
                    memory.record(endpoint, answer.status, batch.urls, batch.lastmods, now)
                elif result.outcome in STOPS_ENDPOINT or answer.error == "deadline passed":
                    stopped = f"not sent: the endpoint answered an earlier batch {result.outcome}"
            return reports

        results = await asyncio.gather(*(one_endpoint(e) for e in endpoints))
    for reports in results:
        report.batches.extend(reports)
    return report


def submit_indexnow_sync(
    site: IndexNowSite,
    entries: Iterable[Entry],
    *,
    endpoints: Sequence[str] = (DEFAULT_ENDPOINT,),
    state: SubmissionState | str | os.PathLike[str] | None = None,
    http: HttpOptions | None = None,
    deadline: float = 120.0,
    batch_size: int = MAX_URLS_PER_REQUEST,
) -> IndexNowReport:
    """``submit_indexnow`` for code without an event loop (a deploy script)."""
    return asyncio.run(
        submit_indexnow(
            site,
            entries,
            endpoints=endpoints,
            state=state,
            http=http,
            deadline=deadline,
            batch_size=batch_size,
        )
    )


def write_key_file(
    site: IndexNowSite, out_dir: str | os.PathLike[str], served_at: str | None = None
) -> Path:
    """Write the key file (the key, nothing else) where ``site.key_location`` puts it inside
    ``out_dir``, the directory served at ``served_at`` (default the host's root); atomically."""
    target = Path(out_dir) / site.key_file_path(served_at)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(target, site.key.encode("ascii"))
    return target

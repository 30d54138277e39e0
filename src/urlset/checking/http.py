"""Checking sitemaps by URL: a thin driver around the pure ``check.check_document``.

Each URL is downloaded with bounded time and size (connect, each read and the whole
download are timed; the body is counted as it arrives and cut at the reader's
decompressed-size limit), then checked exactly as a file would be, with the final URL
(after redirects) as its base. For an index, its children on the same host are fetched and
checked too, and the index is compared with them (nested index, lastmod older than the
child's newest). A failed download is a ``cannot-read`` error on that URL, worded as Search
Console words it ("Couldn't fetch"); the other URLs are unaffected.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from urllib.parse import urlsplit

import aiohttp

from . import rules
from .children import compare_with_children
from .document import CheckOptions, check_document
from .report import CheckReport, FileResult

USER_AGENT = "urlset-check (+https://www.sitemaps.org/protocol.html)"
_CHUNK = 1 << 16


async def _download(
    session: aiohttp.ClientSession, url: str, cap: int
) -> tuple[str, bytes | None, str | None]:
    """(final URL, body, problem): body is None when nothing usable arrived."""
    try:
        async with session.get(url, max_redirects=10) as response:
            final = str(response.url)
            if response.status != 200:
                return final, None, f"HTTP {response.status} {response.reason or ''}".strip()
            parts: list[bytes] = []
            size = 0
            async for chunk in response.content.iter_chunked(_CHUNK):
                size += len(chunk)
                if size > cap:
                    return final, None, f"larger than {cap:,} bytes; download stopped"
                parts.append(chunk)
            return final, b"".join(parts), None
    except aiohttp.TooManyRedirects:
        return url, None, "more than 10 redirects"
    except TimeoutError:
        return url, None, "timed out"
    except (aiohttp.ClientError, OSError, ValueError) as exc:
        return url, None, f"{type(exc).__name__}: {exc}".rstrip(": ")


async def _check_one(session: aiohttp.ClientSession, url: str, options: CheckOptions) -> FileResult:
    final, body, problem = await _download(session, url, options.read_limits.max_decompressed_bytes)
    if body is None:
        issue = rules.make_issue("cannot-read", f"{url}: {problem}", source=url)
        return FileResult(url, [issue], url=url)
    return check_document(body, replace(options, base_url=final), source=url)


async def _check_urls(
    urls: list[str], options: CheckOptions, timeout: float, concurrency: int
) -> CheckReport:
    report = CheckReport()
    limits = aiohttp.ClientTimeout(total=timeout, sock_connect=min(timeout, 15.0), sock_read=30.0)
    gate = asyncio.Semaphore(concurrency)

    async def one(url: str) -> FileResult:
        async with gate:
            return await _check_one(session, url, options)

    async with aiohttp.ClientSession(timeout=limits, headers={"User-Agent": USER_AGENT}) as session:
        for url in urls:
            result = await one(url)
            report.files.append(result)
            if result.format != "sitemapindex" or not result.refs:
                continue
            host = urlsplit(url).netloc
            refs = result.refs[: options.limits.max_sitemaps_per_index]
            wanted = [ref.loc if urlsplit(ref.loc).netloc == host else None for ref in refs]
            fetched = await asyncio.gather(*(one(loc) for loc in wanted if loc is not None))
            children: list[FileResult | None] = []
            it = iter(fetched)
            for loc in wanted:
                child = next(it) if loc is not None else None
                if child is not None:
                    report.files.append(child)
                    if any(i.code == "cannot-read" for i in child.issues):
                        child = None  # reported on the child itself; nothing to compare
                children.append(child)
            children += [None] * (len(result.refs) - len(children))
            compare_with_children(result, children, [""] * len(result.refs))
    return report


def check_urls(
    urls: list[str],
    options: CheckOptions | None = None,
    *,
    timeout: float = 120.0,
    concurrency: int = 8,
) -> CheckReport:
    """Download and check each URL (and an index's children on the same host)."""
    return asyncio.run(_check_urls(list(urls), options or CheckOptions(), timeout, concurrency))

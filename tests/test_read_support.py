"""Shared helpers of the reader's tests (feed a document in given chunk sizes), and their tests."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import cycle

from urlset.model import Issue, SitemapRef, Url
from urlset.reading import sniff
from urlset.reading.reader import SitemapReader

Result = tuple[list[Url | SitemapRef], list[Issue], str | None, bool]
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def feed_all(
    data: bytes, sizes: Sequence[int], *, fast: bool = True, base_url: str | None = None
) -> Result:
    """Feed ``data`` in chunks of the given sizes (cycled): entries in order, issues sorted
    by position (their order relative to entries depends on where chunks end), format, fatal."""
    reader = SitemapReader("doc", base_url=base_url, _fast=fast)
    events: list[Url | SitemapRef | Issue] = []
    pos = 0
    for size in cycle(sizes):
        if pos >= len(data):
            break
        events += reader.feed(data[pos : pos + size])
        pos += size
    events += reader.close()
    entries: list[Url | SitemapRef] = [e for e in events if type(e) is not Issue]  # type: ignore[misc]
    issues = sorted(
        (e for e in events if type(e) is Issue),
        key=lambda i: (i.line, i.column, i.code, i.message),  # type: ignore[union-attr]
    )
    return entries, issues, reader.format, reader.fatal  # type: ignore[return-value]


def feed_all_with(setting: str, value: int, data: bytes, sizes: Sequence[int]) -> Result:
    """``feed_all`` with ``reading.sniff``'s module setting ``setting`` (``GZIP_PIECE``,
    ``GZIP_THREAD_FROM``) at ``value`` for the read: set here, not by a fixture, since
    hypothesis runs its examples in one test call."""
    was = getattr(sniff, setting)
    setattr(sniff, setting, value)
    try:
        return feed_all(data, sizes)
    finally:
        setattr(sniff, setting, was)


def four_ways(data: bytes, chunk: int = 7, *, base_url: str | None = None) -> Result:
    """The result of ``data`` read by the compiled lane whole and in ``chunk``-byte chunks and
    by the careful lane whole and chunked, asserted the same all four ways."""
    expected = feed_all(data, [len(data) or 1], fast=False, base_url=base_url)
    for fast, sizes in ((False, [chunk]), (True, [len(data) or 1]), (True, [chunk])):
        got = feed_all(data, sizes, fast=fast, base_url=base_url)
        assert got == expected, (fast, sizes)
    return expected


def urlset(*records: str, head: str = "") -> bytes:
    """A urlset document around the given <url> records."""
    body = "\n".join(records)
    return f'<?xml version="1.0" encoding="UTF-8"?>{head}\n<urlset xmlns="{NS}">\n{body}\n</urlset>\n'.encode()


def test_feed_all_cycles_sizes() -> None:
    doc = urlset("<url><loc>https://example.com/a</loc></url>")
    whole = feed_all(doc, [len(doc)])
    assert [e.loc for e in whole[0]] == ["https://example.com/a"]
    assert feed_all(doc, [1, 2, 3]) == whole

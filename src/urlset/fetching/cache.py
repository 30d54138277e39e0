"""The ``--cache DIR`` of ``urlset fetch``: validators and parsed results of earlier runs.

Per sitemap URL, two files named by a hash of the URL:
    <key>.json        the format version, the validators (ETag, Last-Modified), the index
                      lastmod at that fetch, the final URL and the format
    <key>.jsonl.gz    the reader's events, one compact JSON array per line, gzipped
Per robots.txt (when it came with a validator): ``<key>.json`` (``"kind": "robots"``, the
validators) and ``<key>.robots``, the bytes read.
Both are written to a temporary name and moved into place, so a run that dies leaves
either the old pair or the new one.

A URL's line is ``["u", loc, lastmod, changefreq, priority]``, followed, when it has
extensions, by a list of ``[kind, object]`` pairs in the order they were read: ``kind`` is
one of the entry-level JSON keys of ``urlset read`` (images, videos, news, alternates: the
object is ``extensions.to_json`` of the value; extensions: a raw element's namespace, name
and xml). A result read back is equal to the one stored, extensions included.

Format versions: 2 stores extensions. Entries of an older version (no ``version`` key: they
were stored without extensions) are not reused: ``records`` reports them without a result
and says why, so discovery downloads them again in full and the new result replaces them.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import repeat
from pathlib import Path
from typing import Any

from ..dates import Lastmod, format_w3c, parse_w3c
from ..errors import InvalidValue
from ..extensions import TYPED, from_json, to_json
from ..model import ChangeFreq, Issue, RawElement, Severity, SitemapRef, Url
from ..reading.output import NO_PRIORITY, UrlColumns
from .parse_pool import columns_of
from .values import CacheRecord

Item = Url | SitemapRef | Issue
VERSION = 2  # the format written; see the module docstring
_RAW = "extensions"  # the kind of a raw element, as in `urlset read`'s JSON
_CHANGEFREQ = {c.value: c for c in ChangeFreq}
_SEVERITY = {s.value: s for s in Severity}


@dataclass(frozen=True, slots=True)
class Stored:
    """A result read back from the cache."""

    url: str
    final_url: str
    format: str | None
    items: list[Item]


def _key(url: str) -> str:
    return hashlib.sha256(url.encode("utf-8")).hexdigest()[:32]


def _lastmod(text: str | None) -> Lastmod | None:
    if not text:
        return None
    try:
        return parse_w3c(text)
    except InvalidValue:
        return None


def _encode(item: Item) -> list[Any]:
    if type(item) is Url:
        url: Url = item
        row: list[Any] = [
            "u",
            url.loc,
            None if url.lastmod is None else format_w3c(url.lastmod),
            None if url.changefreq is None else url.changefreq.value,
            url.priority,
        ]
        if url.extensions:
            row.append([_encode_extension(ext) for ext in url.extensions])
        return row
    if type(item) is SitemapRef:
        ref: SitemapRef = item
        return ["s", ref.loc, None if ref.lastmod is None else format_w3c(ref.lastmod)]
    issue: Issue = item  # type: ignore[assignment]
    return [
        "i",
        issue.code,
        str(issue.severity),
        issue.message,
        issue.line,
        issue.column,
        issue.source,
        issue.hint,
    ]


def _encode_extension(ext: Any) -> list[Any]:
    if type(ext) in TYPED:
        return [ext.kind, to_json(ext)]
    return [_RAW, {"namespace": ext.namespace, "name": ext.name, "xml": ext.xml}]


def _decode_extension(pair: list[Any]) -> object:
    kind, data = pair
    if kind == _RAW:
        return RawElement(data["namespace"], data["name"], data["xml"])
    return from_json(kind, data)  # stored values passed these checks once: they pass again


def _decode(row: list[Any]) -> Item:
    tag = row[0]
    if tag == "u":
        return Url._trusted(
            row[1],
            _lastmod(row[2]),
            None if row[3] is None else _CHANGEFREQ.get(row[3]),
            row[4],
            tuple(map(_decode_extension, row[5])) if len(row) > 5 else (),
        )
    if tag == "s":
        return SitemapRef._trusted(row[1], _lastmod(row[2]))
    return Issue(row[1], _SEVERITY.get(row[2], Severity.WARNING), *row[3:8])


class FetchCache:
    """A directory of stored sitemap results; created on first use."""

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)

    def records(self) -> dict[str, CacheRecord]:
        """Every stored sitemap's validators, by URL (what discovery needs to decide)."""
        found: dict[str, CacheRecord] = {}
        if not self.directory.is_dir():
            return found
        for meta_path in self.directory.glob("*.json"):
            try:
                meta = json.loads(meta_path.read_text("utf-8"))
                url = meta["url"]
            except (OSError, ValueError, KeyError, TypeError):
                continue
            data = meta_path.with_suffix(".robots" if meta.get("kind") == "robots" else ".jsonl.gz")
            version = meta.get("version", 1)
            outdated = None
            if version == 1:
                outdated = (
                    "the cached copy is in an older cache format (1: without extensions); "
                    "downloaded again"
                )
            elif version != VERSION:
                outdated = (
                    f"the cached copy is in cache format {version!r}, which this urlset "
                    f"does not read (it reads {VERSION}); downloaded again"
                )
            found[url] = CacheRecord(
                url=url,
                etag=meta.get("etag"),
                last_modified=meta.get("last_modified"),
                index_lastmod=_lastmod(meta.get("index_lastmod")),
                has_result=outdated is None and data.is_file(),
                outdated=outdated,
            )
        return found

    def load(self, url: str) -> Stored | None:
        """The stored result for ``url``, or None when it is missing or unreadable."""
        key = _key(url)
        try:
            meta = json.loads((self.directory / f"{key}.json").read_text("utf-8"))
            if meta.get("version") != VERSION:
                return None
            with gzip.open(self.directory / f"{key}.jsonl.gz", "rt", encoding="utf-8") as fh:
                items = [_decode(json.loads(line)) for line in fh]
        except (OSError, ValueError, KeyError, TypeError, IndexError, EOFError):
            return None
        if meta.get("url") != url:
            return None
        return Stored(url, meta.get("final_url") or url, meta.get("format"), items)

    def store(
        self,
        url: str,
        *,
        final_url: str,
        headers: Mapping[str, str],
        index_lastmod: Lastmod | None,
        format: str | None,
        items: Iterable[Item],
        urls: Sequence[Url] = (),
    ) -> None:
        """Keep a result and its validators; errors writing the cache are not fatal.
        ``urls``: more Urls, stored after ``items`` (a parse thread's, from their columns)."""
        key = _key(url)
        meta = {
            "version": VERSION,
            "url": url,
            "final_url": final_url,
            "etag": headers.get("ETag") or headers.get("etag"),
            "last_modified": headers.get("Last-Modified") or headers.get("last-modified"),
            "index_lastmod": None if index_lastmod is None else format_w3c(index_lastmod),
            "format": format,
        }
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._write(
                f"{key}.jsonl.gz",
                lambda fh: _write_items(fh, items, urls),
            )
            self._write(
                f"{key}.json",
                lambda fh: fh.write(json.dumps(meta, ensure_ascii=False).encode("utf-8")),
            )
        except OSError:
            return

    def store_robots(self, url: str, *, headers: Mapping[str, str], body: bytes) -> None:
        """Keep a robots.txt and its validators, for the next run's conditional request."""
        key = _key(url)
        meta = {
            "version": VERSION,
            "kind": "robots",
            "url": url,
            "etag": headers.get("ETag"),
            "last_modified": headers.get("Last-Modified"),
        }
        if meta["etag"] is None and meta["last_modified"] is None:
            return  # nothing to ask conditionally with
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            self._write(f"{key}.robots", lambda fh: fh.write(body))
            self._write(
                f"{key}.json",
                lambda fh: fh.write(json.dumps(meta, ensure_ascii=False).encode("utf-8")),
            )
        except OSError:
            return

    def load_robots(self, url: str) -> bytes | None:
        """The stored robots.txt for ``url``, or None."""
        key = _key(url)
        try:
            meta = json.loads((self.directory / f"{key}.json").read_text("utf-8"))
            if meta.get("url") != url or meta.get("kind") != "robots":
                return None
            return (self.directory / f"{key}.robots").read_bytes()
        except (OSError, ValueError, AttributeError):
            return None

    def _write(self, name: str, fill: Any) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-")
        try:
            with os.fdopen(fd, "wb") as fh:
                fill(fh)
            os.replace(tmp, self.directory / name)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _write_items(fh: Any, items: Iterable[Item], urls: Sequence[Url]) -> None:
    dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode
    with gzip.GzipFile(fileobj=fh, mode="wb", compresslevel=3, mtime=0) as gz:
        lines = [dumps(_encode(item)) for item in items]
        if urls:
            lines += _url_lines(columns_of(urls), dumps)
        gz.write(("\n".join(lines) + "\n" if lines else "").encode("utf-8"))


def _url_lines(columns: UrlColumns, dumps: Callable[[Any], str]) -> list[str]:
    """The lines ``_encode`` writes for these Urls, from their columns: no Url value made
    (the columns' lastmods are the W3C text ``format_w3c`` writes)."""
    freqs = [None, *(c.value for c in ChangeFreq)]
    extensions = columns.extensions or repeat(None)
    return [
        dumps(
            ["u", loc, lastmod or None, freqs[code], None if p == NO_PRIORITY else p]
            if not ext
            else [
                "u",
                loc,
                lastmod or None,
                freqs[code],
                None if p == NO_PRIORITY else p,
                [_encode_extension(e) for e in ext],
            ]
        )
        for loc, lastmod, code, p, ext in zip(
            columns.locs,
            columns.lastmods,
            columns.changefreqs,
            columns.priorities,
            extensions,
            strict=False,
        )
    ]

"""Read any sitemap: a sans-I/O push reader and thin functions around it.

``SitemapReader`` takes bytes in chunks of any size (a file, a socket, a queue) and returns
``Url``, ``SitemapRef`` and ``Issue`` values as soon as each is complete. Feeding a document
whole, in 64 KiB chunks or byte by byte gives the same entries and the same issues.

The stages, all driven from ``feed``::

    bytes -> [gzip by magic bytes, bounded pieces] -> size limit -> [sniff: xml | text | ...]
          -> XmlBody (the compiled lane + lxml) or the text reader -> Sink -> events

``read_file``, ``read_bytes`` and ``read_chunks`` run the reader and return a ``ReadResult``:
iterate it for the entries; ``.issues`` is complete once the iteration has ended.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from functools import partial
from itertools import chain
from typing import TYPE_CHECKING, cast

from ..limits import ReadLimits
from ..model import Issue, SitemapRef, Url
from ..urls import to_uri
from .rendered import RenderSpec, add_left
from .sink import Event, Sink
from .sniff import GZIP_MAGIC, Gunzip, GzipError, Sniffed, WideToUtf8, sniff
from .text import TextBody
from .xmlbody import XmlBody

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "ReadResult",
    "SitemapReader",
    "read",
    "read_bytes",
    "read_chunks",
    "read_file",
]

FILE_CHUNK = 262_144


class SitemapReader:
    """Push parser for every sitemap format: ``feed(bytes)`` as data arrives, then ``close()``.

    Each call returns the events completed by that data, in document order. Nothing is
    raised for bad input: every problem is an ``Issue`` (see ``urlset.codes.CODES``).
    ``base_url`` (the URL the document came from) resolves relative locs; without it they
    are reported and skipped. ``limits`` bounds size, entries, depth and value length.
    ``render`` (reading/rendered.py) has the canonical records of a plain urlset rendered
    by the compiled core into ``render.runs`` (output text or Arrow columns) instead of
    returned as events; every other entry and every issue is returned as usual.
    """

    def __init__(
        self,
        source: str = "",
        *,
        base_url: str | None = None,
        limits: ReadLimits = ReadLimits(),  # noqa: B008 (frozen value)
        _fast: bool = True,
        render: RenderSpec | None = None,
    ) -> None:
        if base_url is not None:
            base_url = to_uri(base_url, field="base URL")  # InvalidValue (a ValueError) if not
        self.source = source
        self.limits = limits
        self._sink = Sink(source, limits, base_url)
        # the render lane: canonical records into render.runs as output text, not events
        self._sink.render = render
        if render is not None:
            self._sink.left = render.left  # counted as they leave (rendered.LEFT_REASONS)
        self._fast = _fast
        self._gzip: Gunzip | None = None
        self._decided_gzip = False
        self._head = b""  # bytes held until gzip / format are decided
        self._size = 0
        self._body: XmlBody | TextBody | None = None
        self._wide: WideToUtf8 | None = None
        self._format: str | None = None
        self._done = False
        self._closed = False

    # -- public state --
    @property
    def format(self) -> str | None:
        """ "urlset", "sitemapindex", "rss", "atom", "text", "html" or "unknown"; None until known."""
        body = self._body
        if isinstance(body, XmlBody) and body.format is not None:
            return body.format
        return self._format

    @property
    def fatal(self) -> bool:
        """True when the document could not be read at all."""
        return self._sink.fatal

    @property
    def plain_records(self) -> bool:
        """True once closed when the document was a urlset of canonical records only (to
        its end or to a size limit's cut): the protocol's elements in its order, without
        attributes, comments or other elements, every loc a plain URI as written (ASCII, '&'
        only as '&amp;', no character that needs escaping, at most 2,048 characters) or an
        IRI and no more (reported as read: normalized-url). Need not be proven again."""
        body = self._body
        return self._closed and isinstance(body, XmlBody) and body.plain_records

    @property
    def plain_structure(self) -> bool:
        """True once closed when the document was a urlset of canonical records only, as
        ``plain_records`` says, whatever their locs (an IRI) or extensions: the protocol's
        elements in its order, without attributes, comments or other elements."""
        body = self._body
        return self._closed and isinstance(body, XmlBody) and body.plain_structure

    @property
    def done(self) -> bool:
        """True once reading has stopped early (fatal input, a limit): feed no more data."""
        return self._done

    @property
    def entries(self) -> int:
        """Entries passed on so far."""
        return self._sink.count

    @property
    def issue_counts(self) -> dict[str, int]:
        """Issues found so far per code, the unlisted ones beyond the cap included."""
        return dict(self._sink.per_code)

    # -- feeding --
    def feed(self, data: bytes) -> list[Url | SitemapRef | Issue]:
        if self._closed:
            raise ValueError("feed() after close()")
        if data and not self._done:
            try:
                for _ in self._feed(data if type(data) is bytes else bytes(data)):
                    pass
            except GzipError as exc:
                self._gzip_error(exc)
        return self._take()

    def feed_batches(self, data: bytes) -> Iterator[list[Url | SitemapRef | Issue]]:
        """``feed``, its events handed out as they are completed: a list for each piece a
        gzip stream is inflated in (256 KiB of gzip can hold megabytes of XML), so that a
        consumer holds one piece's entries at a time, as it does with plain chunks. Take
        every list before feeding on; together they are what ``feed`` returns."""
        if self._closed:
            raise ValueError("feed() after close()")
        if data and not self._done:
            try:
                for _ in self._feed(data if type(data) is bytes else bytes(data)):
                    if self._sink.out:
                        yield self._take()
            except GzipError as exc:
                self._gzip_error(exc)
        out = self._take()
        if out:
            yield out

    def close(self) -> list[Url | SitemapRef | Issue]:
        if self._closed:
            return []
        self._closed = True
        if not self._done:
            try:
                self._close()
            except GzipError as exc:
                self._gzip_error(exc)
        self._finish_body()
        sink = self._sink
        sink.finish()
        if sink.render is not None:
            if self.format == "sitemapindex" and not sink.render.indexes:
                # a consumer that follows an index (fetch) takes its entries as values
                sink.left.clear()
                sink.left["index"] = sink.count
            add_left(sink.left)
        return self._take()

    def _take(self) -> list[Event]:
        out = self._sink.out
        if not out:
            return []
        self._sink.out = []
        return out

    def _feed(self, data: bytes) -> Iterator[None]:
        """Read ``data``, pausing after each decompressed piece of a gzip stream."""
        if not self._decided_gzip:
            self._head += data
            if len(self._head) < 2:
                return
            data, self._head = self._head, b""
            self._decided_gzip = True
            if data[:2] == GZIP_MAGIC:
                self._gzip = _gunzip(self._sink.render)
        if self._gzip is not None:
            for piece, held in self._gzip.feed_after(data, partial(_unread, self)):
                self._plain(piece, held=held)
                if self._done:
                    return
                yield
        else:
            self._plain(data)

    def _close(self) -> None:
        if not self._decided_gzip:
            data, self._head = self._head, b""
            self._decided_gzip = True
            if data:
                self._plain(data)
        if self._gzip is not None and not self._done and not self._gzip.complete:
            self._sink.issue(
                "gzip-truncated",
                f"the gzip stream ends early after {self._size:,} decompressed bytes",
            )
        if self._done:
            return
        self._plain(b"", final=True)
        body = self._body
        if body is not None:
            body.close()

    def _gzip_error(self, exc: GzipError) -> None:
        """Damaged gzip data: what came before the damage is read as the whole document
        (closed as if it ended there), with the error."""
        self._sink.issue(exc.code, str(exc))
        if self._body is not None or self._head:
            self._plain(b"", final=True)
        body = self._body
        if body is not None and not self._done:
            body.close()
        if self._sink.count == 0 and self.format is None:
            self._sink.fatal = True
        self._stop()

    def _stop(self) -> None:
        self._done = True
        # no more is read: the inflater's thread (waiting with pieces made) may end now
        self._gzip = None
        self._finish_body()

    def _finish_body(self) -> None:
        body = self._body
        if body is not None:
            body.stop()

    def _plain(self, data: bytes, final: bool = False, held: int = 0) -> None:
        """Decompressed bytes (from ``held`` on: ``_unread``): enforce the size limit, then
        sniff or pass to the body."""
        if data:
            self._size += len(data) - held
            limit = self.limits.max_decompressed_bytes
            if self._size > limit:
                keep = len(data) - (self._size - limit)
                self._size -= len(data)
                if keep > 0:
                    self._plain(data[:keep])
                if self._body is None and sniff(self._head, True) == Sniffed("text"):  # no LF yet
                    self._plain(b"", final=True)
                self._sink.issue(
                    "decompressed-size-limit",
                    f"stopped at {limit:,} bytes (ReadLimits.max_decompressed_bytes)",
                )
                if self._sink.count == 0 and self.format is None:
                    self._sink.fatal = True
                self._stop()
                return
        if self._wide is not None:
            data = self._wide.feed(data, final)
        self._sink.recent.add(data, held)
        body = self._body
        if held:
            cast(XmlBody, body).feed(data, held)  # held only by one (_unread)
        elif body is None:
            if self._done:
                return
            self._head += data
            found = sniff(self._head, final)
            if found is None:
                return
            data, self._head = self._head, b""
            self._start(found, data, final)
        elif data:
            body.feed(data)
        body = self._body
        if body is not None and body.dead:
            self._stop()

    def _start(self, found: Sniffed, data: bytes, final: bool) -> None:
        sink = self._sink
        kind = found.kind
        if kind == "utf16" and self._wide is None:
            self._wide = WideToUtf8(found.reason)
            sink.issue(
                "non-utf8-encoding", f"the document is {found.reason}; the protocol requires UTF-8"
            )
            converted = self._wide.feed(data, final)
            found_in = sniff(converted, final)
            if found_in is None:  # the converted bytes tell once more of them came
                self._head = converted
                return
            self._start(found_in, converted, final)
            return
        if kind == "utf16":
            kind = "unknown"
            found = Sniffed("unknown", reason="neither XML nor text")
        if kind == "xml":
            body = XmlBody(sink, fast=self._fast)
            if found.skip:
                junk = data[: found.skip]
                sink.issue(
                    "junk-before-root",
                    f"{found.skip:,} bytes of text before the XML were skipped",
                    1,
                    1,
                )
                sink.line_shift = junk.count(b"\n")
                sink.col_shift = len(junk) - junk.rfind(b"\n") - 1
                data = data[found.skip :]
            self._body = body
            body.feed(data)
            return
        if kind == "text":
            self._format = "text"
            sink.reason = "text"
            text_body = TextBody(sink)
            self._body = text_body
            text_body.feed(data)
            return
        sink.fatal = True
        if kind == "html":
            self._format = "html"
            sink.issue("html-page", "the document is an HTML page, not a sitemap", 1, 1)
        elif kind == "empty":
            self._format = "unknown"
            sink.issue("empty-document", "the document is empty" + _why(found.reason))
        else:
            self._format = "unknown"
            sink.issue("unknown-format", "not a sitemap" + _why(found.reason), 1, 1)
        self._stop()


def _why(reason: str) -> str:
    return f" ({reason})" if reason else ""


def _gunzip(render: RenderSpec | None) -> Gunzip:
    """A document's gzip stream; in the render lane, on the look at the machine its caller
    took before threads of its own ran (``RenderSpec.looked``), if any."""
    return Gunzip(looked=None if render is None else render.looked)


def _unread(reader: SitemapReader) -> bytearray | None:
    """What the reader's XML body holds unread, for the next gzip piece to come after in one
    bytes object (``XmlBody.held``), while nothing between the stream and the body changes
    the bytes, and the size limit cannot fall in that piece (it is cut alone, as ever)."""
    body, stream = reader._body, reader._gzip
    if type(body) is not XmlBody or reader._wide is not None or reader._done or stream is None:
        return None
    if reader._size + stream.piece > reader.limits.max_decompressed_bytes:
        return None
    return body.held()


class ReadResult:
    """Entries of one document, read lazily; issues and format complete after iteration.

    Iterate once. With ``with_issues=True`` the iteration yields the issues too, in stream
    order. ``issues`` lists them sorted by position (line, column), whatever the chunking.
    """

    def __init__(
        self, reader: SitemapReader, chunks: Iterable[bytes], *, with_issues: bool = False
    ) -> None:
        self.reader = reader
        self.source = reader.source
        self._chunks = chunks
        self._with_issues = with_issues
        self._issues: list[Issue] = []
        self._iter: Iterator[Url | SitemapRef | Issue] | None = None
        self.done = False

    @property
    def issues(self) -> list[Issue]:
        return sorted(self._issues, key=_position)

    @property
    def format(self) -> str | None:
        return self.reader.format

    @property
    def fatal(self) -> bool:
        return self.reader.fatal

    @property
    def entry_stop(self) -> tuple[int, str] | None:
        """Where ``ReadLimits.max_entries`` stopped reading: the line of the entry it refused
        (its start tag's; a text sitemap's line) and its loc; None when it did not (a check
        judges the bytes before that entry only)."""
        return self.reader._sink.entry_stop

    @property
    def errors(self) -> int:
        return sum(1 for i in self._issues if i.severity == "error")

    def __iter__(self) -> Iterator[Url | SitemapRef | Issue]:
        if self._iter is None:
            self._iter = self._run()
        return self._iter

    def batches(self) -> Iterator[tuple[list[Url | SitemapRef | Issue], set[type]]]:
        """The iteration a list of events at a time, in stream order, issues always in it
        (and in ``issues``), each list with the types of its events: a consumer that takes
        a run of entries at once (check's index refs) makes no Python step an entry. Iterate
        this or the result, once."""
        if self._iter is not None:
            raise ValueError("the result is iterated already")
        self._iter = iter(())
        for events in self._batches():
            kinds = set(map(type, events))
            if Issue in kinds:
                self._issues += [event for event in events if type(event) is Issue]
            yield events, kinds
            del events  # not held while the next piece is read

    def _run(self) -> Iterator[Url | SitemapRef | Issue]:
        # the events of each batch are passed on by a C iterator, not a Python step each
        return chain.from_iterable(self._kept())

    def _kept(self) -> Iterator[list[Url | SitemapRef | Issue]]:
        """Each batch's events, its issues kept (and passed on if ``with_issues``)."""
        for batch in self._batches():
            if Issue in map(type, batch):
                self._issues += [event for event in batch if type(event) is Issue]
                if not self._with_issues:
                    batch = [event for event in batch if type(event) is not Issue]
            yield batch
            del batch  # not held while the next piece is read

    def _batches(self) -> Iterator[list[Url | SitemapRef | Issue]]:
        reader = self.reader
        try:
            for chunk in self._chunks:
                if reader.done:
                    break
                for batch in reader.feed_batches(chunk):
                    yield batch
                    del batch
            yield reader.close()
        finally:
            self.done = True
            close = getattr(self._chunks, "close", None)
            if close is not None:
                close()

    def read_all(self) -> list[Url | SitemapRef]:
        """Every entry as a list (issues in ``.issues``)."""
        return [e for e in self if type(e) is not Issue]  # type: ignore[misc]


def _position(issue: Issue) -> tuple[int, int]:
    return (issue.line, issue.column)


def _file_chunks(path: Path, size: int) -> Iterator[bytes]:
    with path.open("rb") as f:
        while True:
            chunk = f.read(size)
            if not chunk:
                return
            yield chunk


def read_file(
    path: str | os.PathLike[str],
    *,
    base_url: str | None = None,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
    with_issues: bool = False,
    source: str | None = None,
) -> ReadResult:
    """Read a sitemap file of any format (gzip detected by content, not by name).

    The file is opened when iteration starts; an OSError then propagates.
    """
    from pathlib import Path  # here: `urlset read` starts without it (cli/read_run.py)

    p = Path(path)
    reader = SitemapReader(str(p) if source is None else source, base_url=base_url, limits=limits)
    return ReadResult(reader, _file_chunks(p, FILE_CHUNK), with_issues=with_issues)


def read(
    path: str | os.PathLike[str],
    *,
    base_url: str | None = None,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
    with_issues: bool = False,
) -> ReadResult:
    """``urlset.read(path)``: the same as ``read_file``."""
    return read_file(path, base_url=base_url, limits=limits, with_issues=with_issues)


def read_bytes(
    data: bytes,
    *,
    source: str = "<bytes>",
    base_url: str | None = None,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
    with_issues: bool = False,
) -> ReadResult:
    """Read a whole document held in memory."""
    reader = SitemapReader(source, base_url=base_url, limits=limits)
    return ReadResult(reader, (data,), with_issues=with_issues)


def read_chunks(
    chunks: Iterable[bytes],
    *,
    source: str = "<stream>",
    base_url: str | None = None,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
    with_issues: bool = False,
) -> ReadResult:
    """Read a document arriving as an iterable of byte chunks (a socket, a pipe)."""
    reader = SitemapReader(source, base_url=base_url, limits=limits)
    return ReadResult(reader, chunks, with_issues=with_issues)

"""A document's bytes as a check reads them: a chunk at a time, as often as a scan needs.

``Source`` gives the stored bytes (gzip or not) of one document in pieces, each time it is
iterated: from bytes held by the caller (``BytesSource``) or from an open file read again from
its start for each pass (``FileSource``); a stream (standard input, read once) is first
``spool``-ed to an unlinked temporary file. ``plain_chunks`` gives
the decompressed bytes as the checker's scans see them. None of them holds the document:
the check's memory stays that of a chunk and of what its scans keep.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import BinaryIO, Protocol

from ..reading.reader import FILE_CHUNK
from ..reading.sniff import GZIP_MAGIC, Gunzip, GzipError


class Source(Protocol):
    """The stored bytes of one document, at most ``limit`` of them, afresh on each pass."""

    def __iter__(self) -> Iterator[bytes]: ...


# an uncompressed document is checked a MiB at a time: each chunk is a pass of the rules
# over its run's columns (~0.1 ms of Python a run; FILE_CHUNKs cost a 1M-entry check ~2% of
# its instructions more), and the runs of a chunk are held until it is read; a gzip one in
# GZIP_CHUNKs, which inflate to about as much at the 10-40x sitemaps compress by (in
# FILE_CHUNKs, a 500k-entry .xml.gz inflated ~10 MB a chunk: a 68 MB peak, 37 MB so)
PLAIN_CHUNK = 1 << 20
GZIP_CHUNK = 1 << 15


def _chunk(first: bytes) -> int:
    """The size of the chunks of a document whose stored bytes start with ``first``."""
    return GZIP_CHUNK if first[:2] == GZIP_MAGIC else PLAIN_CHUNK


class BytesSource:
    """Bytes the caller holds, given in file-sized slices."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def __iter__(self) -> Iterator[bytes]:
        data = self.data
        chunk = _chunk(data)
        for start in range(0, len(data), chunk):
            yield data[start : start + chunk]


class FileSource:
    """An open file's first ``limit`` bytes, read again from its start on each pass."""

    def __init__(self, file: BinaryIO, limit: int) -> None:
        self.file = file
        self.limit = limit

    def __iter__(self) -> Iterator[bytes]:
        left = self.limit
        file = self.file
        file.seek(0)
        chunk = GZIP_CHUNK  # the first: as small as a gzip one
        while left > 0 and (piece := file.read(min(chunk, left))):
            if left == self.limit:
                chunk = _chunk(piece)
            left -= len(piece)
            yield piece


def spool(stream: BinaryIO, limit: int) -> tuple[BinaryIO, int]:
    """A stream's first ``limit`` bytes in an unlinked temporary file (the caller closes it),
    and the stream's whole size: the rest is read on only to be counted, never held."""
    import tempfile  # here: standard input only (it loads shutil, random, bz2, lzma)

    file = tempfile.TemporaryFile()  # noqa: SIM115 (the caller closes it)
    try:
        left = limit
        size = 0
        while left > 0 and (piece := stream.read(min(FILE_CHUNK, left))):
            left -= len(piece)
            size += len(piece)
            file.write(piece)
        while more := stream.read(1 << 20):
            size += len(more)
    except BaseException:
        file.close()
        raise
    return file, size


def plain_chunks(source: Source, cap: int, entry_ends: tuple[bytes, ...] = ()) -> Iterator[bytes]:
    """The document decompressed, at most ``cap`` + 1 bytes: the bytes the reader reads, so
    that the byte rules judge what the entry rules judge, gzipped or not. Cut there, it
    ends after the last of ``entry_ends`` in its last piece (no element or line cut in two
    to judge); of a damaged gzip stream, the bytes before the damage, as the reader gives
    them."""
    pieces = iter(source)
    first = next(pieces, b"")
    chunks = _chain(first, pieces)
    size = 0
    for chunk in _inflated(chunks) if first[:2] == GZIP_MAGIC else chunks:
        size += len(chunk)
        if size > cap:
            last = chunk[: len(chunk) - (size - cap - 1)]
            if entry_ends:
                found = (at + len(end) for end in entry_ends if (at := last.rfind(end)) >= 0)
                last = last[: max(found, default=0)]
            yield last
            return
        if chunk:
            yield chunk


def _inflated(chunks: Iterator[bytes]) -> Iterator[bytes]:
    stream = Gunzip()
    try:
        for data in chunks:
            # fed in file-sized chunks: the decoder copies what is left of its input each time
            for start in range(0, len(data), FILE_CHUNK):
                yield from stream.feed(data[start : start + FILE_CHUNK])
    except GzipError:
        return


def _chain(first: bytes, rest: Iterator[bytes]) -> Iterator[bytes]:
    yield first
    yield from rest

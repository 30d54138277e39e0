"""A large document's check keeps its memory bounded: the document is read a chunk at a time
(standard input spooled to a temporary file, a file read again when a scan needs it), never
held whole. Measured with tracemalloc (what Python allocates) on 110 MB documents."""

from __future__ import annotations

import gzip
import io
import tracemalloc
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from urlset.checking.document import CheckOptions
from urlset.checking.files import check_file, check_stream
from urlset.checking.report import FileResult

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
SIZE = 110_000_000
# far below the document's size: holding it whole, even once, fails
BOUND = 40_000_000
PAD = "segment-" * 110  # long URLs: few entries, so the reader's own state stays small


def _row(j: int, images: bool, flagged: bool) -> str:
    image = (
        f"<image:image><image:loc>https://cdn.urlset-test.org/{j}.jpg</image:loc></image:image>"
        if images
        else ""
    )
    # flagged: every 10th entry a lastmod in the future, every 10th another a priority out of
    # range (each a finding that needs its position in the bytes)
    lastmod = "2027-03-01" if flagged and j % 10 == 0 else f"2025-0{1 + j % 9}-1{j % 10}"
    priority = "<priority>1.5</priority>" if flagged and j % 10 == 5 else ""
    return (
        f"<url><loc>https://www.urlset-test.org:8443/caf%C3%A9/{PAD}{j}?a=1&amp;b={j % 7}"
        f"</loc><lastmod>{lastmod}</lastmod>{priority}{image}</url>\n"
    )


def _entries(images: bool, flagged: bool = False) -> Iterator[bytes]:
    root = f'<urlset xmlns="{NS}"' + (f' xmlns:image="{IMAGE_NS}"' if images else "") + ">\n"
    yield b'<?xml version="1.0" encoding="UTF-8"?>\n' + root.encode()
    written = 0
    i = 0
    while written < SIZE:
        block = "".join(_row(j, images, flagged) for j in range(i, i + 500)).encode()
        i += 500
        written += len(block)
        yield block
    yield b"</urlset>\n"


class _Pipe(io.RawIOBase):
    """A stream that makes its bytes as they are read (standard input's stand-in)."""

    def __init__(self, blocks: Iterator[bytes]) -> None:
        self.blocks = blocks
        self.held = b""

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self.held:
            self.held = next(self.blocks, b"")
            if not self.held:
                return 0
        n = min(len(buffer), len(self.held))
        buffer[:n] = self.held[:n]
        self.held = self.held[n:]
        return n


def _peak(run: Callable[[], FileResult]) -> tuple[int, FileResult]:
    tracemalloc.start()
    try:
        result = run()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    print(f"peak {peak:,} bytes")  # shown with -s
    return peak, result


def test_a_large_standard_input_is_checked_in_bounded_memory() -> None:
    options = CheckOptions()
    peak, result = _peak(lambda: check_stream(io.BufferedReader(_Pipe(_entries(False))), options))
    assert result.size > SIZE
    codes = {i.code for i in result.issues}
    assert codes == {"too-many-urls", "file-too-large"}
    assert peak < BOUND, f"{peak:,} bytes at the peak for a {SIZE:,}-byte document"


def test_a_large_gzip_file_with_extensions_is_checked_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "sitemap.xml.gz"
    with gzip.open(path, "wb", compresslevel=1) as f:
        for block in _entries(True):
            f.write(block)
    peak, result = _peak(lambda: check_file(path, CheckOptions()))
    assert result.size > SIZE
    codes = {i.code for i in result.issues}
    assert codes == {"too-many-urls", "file-too-large"}
    assert peak < BOUND, f"{peak:,} bytes at the peak for a {SIZE:,}-byte document"


def test_a_large_gzip_file_with_findings_is_placed_in_bounded_memory(tmp_path: Path) -> None:
    """Findings that need their line and column (an entry a rule flagged, a value the reader
    refused) are placed a window at a time: the document is still never held whole."""
    path = tmp_path / "flagged.xml.gz"
    with gzip.open(path, "wb", compresslevel=1) as f:
        for block in _entries(False, flagged=True):
            f.write(block)
    options = CheckOptions(now=datetime(2026, 1, 1, tzinfo=UTC))
    peak, result = _peak(lambda: check_file(path, options))
    assert result.size > SIZE
    future = [i for i in result.issues if i.code == "future-lastmod"]
    priority = [i for i in result.issues if i.code == "invalid-priority"]
    assert len(future) == len(priority) == 1000  # listed up to the cap, counted past it
    # entry j is on line j + 3; each finding at its value, past the long loc
    for issues, first, value in ((future, 0, ">2027-03-01<"), (priority, 5, ">1.5<")):
        assert [i.line for i in issues[:3]] == [first + 3, first + 13, first + 23]
        for i in issues:
            assert i.column == _row(i.line - 3, False, True).index(value) + 2, i
    assert peak < BOUND, f"{peak:,} bytes at the peak for a {SIZE:,}-byte document"


def test_a_gzip_bomb_of_binary_data_is_checked_in_bounded_memory(tmp_path: Path) -> None:
    """1 MB of gzip inflating to 300 MB of zeros (the reader stops at its 200 MiB cap): the
    search for header lines before URLs decoded the whole document, a second copy of it
    (429 MB at its peak)."""
    path = tmp_path / "zeros.gz"
    with gzip.open(path, "wb", compresslevel=1) as f:
        block = bytes(1 << 20)
        for _ in range(300):
            f.write(block)
    peak, result = _peak(lambda: check_file(path, CheckOptions()))
    assert {"unknown-format", "file-too-large"} <= {i.code for i in result.issues}
    assert peak < BOUND, f"{peak:,} bytes"

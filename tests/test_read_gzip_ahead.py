"""gzip inflated ahead on a thread of the core's (rust/core/src/read/gzip_ahead.rs) gives
exactly what inline inflation gives: the same pieces' bytes, the same error after the same
output wherever the stream is damaged or cut, however it is chunked, and the reader the same
entries and issues; a size limit hit mid-stream stops the thread.

The inline decoder is the reference (``thread_from`` beyond the stream's size); the threaded
one starts at once (``thread_from=0``) or mid-stream.
"""

from __future__ import annotations

import gc
import gzip
import hashlib
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_read_gzip_damage import damaged_gzips
from test_read_support import feed_all_with, urlset
from urlset.limits import ReadLimits
from urlset.model import Issue
from urlset.reading import sniff
from urlset.reading.reader import SitemapReader
from urlset.reading.sniff import GZIP_PIECE, Gunzip, GzipError

NEVER = 1 << 62


def _sitemap(n: int) -> bytes:
    return urlset(
        *(
            f"<url><loc>https://example.com/{hashlib.md5(str(i).encode()).hexdigest()}</loc>"
            f"<lastmod>2024-01-{1 + i % 28:02d}</lastmod></url>"
            for i in range(n)
        )
    )


BIG = gzip.compress(_sitemap(40_000), mtime=0)  # ~2.3 MB of XML, many pieces


def _inflate(data: bytes, size: int, thread_from: int) -> tuple[bytes, str | None, bool, bool]:
    """The output, the error's text, complete and trailing of ``data`` pushed in ``size``
    chunks, each drained."""
    stream = Gunzip(thread_from)
    out = bytearray()
    try:
        for i in range(0, len(data), size):
            for piece in stream.feed(data[i : i + size]):
                assert 0 < len(piece) <= GZIP_PIECE
                out += piece
    except GzipError as exc:
        return bytes(out), str(exc), stream.complete, stream.trailing
    return bytes(out), None, stream.complete, stream.trailing


def test_threaded_gives_the_inline_pieces_however_chunked() -> None:
    data = BIG + gzip.compress(b"<!-- second member -->", mtime=0) + b"\0\0junk"
    inline = _inflate(data, len(data), NEVER)
    assert inline[1] is None and inline[2] and inline[3]  # complete, with trailing bytes
    for size in (4096, 65_536, 262_144, len(data)):
        for thread_from in (0, 100_000):
            assert _inflate(data, size, thread_from) == inline, (size, thread_from)
    stream = Gunzip(0)
    list(stream.feed(data))
    assert stream.threaded


def test_damage_at_every_position_gives_the_inline_output_and_error() -> None:
    data = gzip.compress(_sitemap(3000), mtime=0)
    # every byte of the header and trailer, and a spread of the deflate data
    positions = {*range(12), *range(len(data) - 10, len(data)), *range(12, len(data), 97)}
    errors = set()
    for at in sorted(positions):
        damaged = bytearray(data)
        damaged[at] ^= 0xA5
        inline = _inflate(bytes(damaged), 4096, NEVER)
        assert _inflate(bytes(damaged), 4096, 0) == inline, at
        assert _inflate(bytes(damaged), len(data), 0) == inline, at
        errors.add(inline[1])
    # the messages the reader reports: the header's, the deflate data's, the trailer's
    assert {
        "gzip data is corrupt: incorrect header check",
        "gzip data is corrupt: invalid deflate data",
        "gzip data is corrupt: incorrect data check",
    } <= errors


def test_a_stream_cut_anywhere_is_incomplete_threaded_too() -> None:
    data = gzip.compress(_sitemap(3000), mtime=0)
    for at in range(1, len(data), 211):
        inline = _inflate(data[:at], 4096, NEVER)
        assert not inline[2] and inline[1] is None
        assert _inflate(data[:at], 4096, 0) == inline, at


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_gzips(), st.lists(st.integers(1, 6000), min_size=1, max_size=8))
def test_the_reader_reads_the_same_threaded(data: bytes, sizes: list[int]) -> None:
    """A damaged or cut gzip sitemap: the same entries and issues (the gzip errors' messages
    among them) with the inflation on a thread from the first byte."""
    assert feed_all_with("GZIP_THREAD_FROM", NEVER, data, sizes) == feed_all_with(
        "GZIP_THREAD_FROM", 0, data, sizes
    )


def _gunzip_threads() -> int | None:
    """Threads of this process named as the core names its inflating ones (Linux)."""
    tasks = Path(f"/proc/{os.getpid()}/task")
    if not tasks.is_dir():
        return None
    count = 0
    for task in tasks.iterdir():
        try:
            count += (task / "comm").read_text().strip() == "urlset-gunzip"
        except OSError:
            continue  # ended meanwhile
    return count


def _read(data: bytes, limits: ReadLimits) -> tuple[list[str], list[tuple[str, str]], int | None]:
    """The locs and issues of ``data`` fed in 64 KiB chunks, and how many inflating threads
    run once the reader has stopped (it is still alive then)."""
    reader = SitemapReader("doc.xml.gz", limits=limits)
    events = []
    for i in range(0, len(data), 65_536):
        events += reader.feed(data[i : i + 65_536])
    events += reader.close()
    locs = [e.loc for e in events if type(e) is not Issue]  # type: ignore[union-attr]
    issues = [(e.code, e.message) for e in events if type(e) is Issue]  # type: ignore[union-attr]
    return locs, issues, _threads_left()


def _threads_left() -> int | None:
    """The inflating threads still running once those ending have had 10 s to end."""
    deadline = time.monotonic() + 10
    while (threads := _gunzip_threads()) and time.monotonic() < deadline:
        time.sleep(0.01)
    return threads


def test_a_size_limit_mid_stream_stops_reading_and_the_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    limits = ReadLimits(max_decompressed_bytes=1_000_000)
    monkeypatch.setattr(sniff, "GZIP_THREAD_FROM", NEVER)
    locs, issues, _ = _read(BIG, limits)
    limit = (
        "decompressed-size-limit",
        "stopped at 1,000,000 bytes (ReadLimits.max_decompressed_bytes)",
    )
    assert limit in issues
    assert 1000 < len(locs) < 40_000
    monkeypatch.setattr(sniff, "GZIP_THREAD_FROM", 0)
    gc.collect()
    assert _threads_left() in (0, None)  # none from an earlier reader
    # the same, and the stopped reader let its inflater go: the thread (which waited with at
    # most two pieces made) has ended while the reader is still alive
    assert _read(BIG, limits) in ((locs, issues, 0), (locs, issues, None))


def test_an_entry_limit_mid_stream_stops_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sniff, "GZIP_THREAD_FROM", 0)
    limits = ReadLimits(max_entries=5000)
    locs, issues, threads = _read(BIG, limits)
    assert len(locs) == 5000 and "entry-limit" in [code for code, _ in issues]
    assert threads in (0, None)


def _batches(data: bytes, size: int) -> tuple[list[list[object]], list[object]]:
    """The event lists of ``feed_batches`` for ``data`` fed in ``size`` chunks, and the
    events of ``feed`` for the same chunks."""
    batched, whole = SitemapReader("doc"), SitemapReader("doc")
    lists: list[list[object]] = []
    events: list[object] = []
    for i in range(0, len(data), size):
        lists += batched.feed_batches(data[i : i + size])
        events += whole.feed(data[i : i + size])
    lists.append(list(batched.close()))
    events += whole.close()
    return lists, events


def test_feed_batches_hand_out_a_gzip_chunk_a_piece_at_a_time() -> None:
    plain = _sitemap(40_000)
    for data in (BIG, plain, BIG[: len(BIG) // 2], _damaged(BIG)):
        lists, events = _batches(data, 262_144)
        assert [e for batch in lists for e in batch] == events
        assert all(batch for batch in lists[:-1])  # no empty list but the close's
    lists, _ = _batches(BIG, 262_144)
    # ~2.3 MB of XML in one chunk of gzip: a list per piece, of some thousands of entries
    assert len(lists) >= len(_sitemap(40_000)) // GZIP_PIECE
    assert max(len(batch) for batch in lists) < 10_000
    plain_lists, _ = _batches(plain, 262_144)
    assert len(plain_lists) == len(range(0, len(plain), 262_144)) + 1


def _damaged(data: bytes) -> bytes:
    damaged = bytearray(data)
    damaged[len(data) // 2] ^= 0xFF
    return bytes(damaged)


def test_no_second_thread_while_other_work_holds_every_core() -> None:
    """A core is free when nothing else is running or ready this instant; with a busy process
    on every core the reader keeps to its own thread (no gzip ahead)."""
    import os
    import subprocess
    import sys
    import time

    busy = [
        subprocess.Popen([sys.executable, "-c", "while True: pass"])
        for _ in range(os.cpu_count() or 1)
    ]
    try:
        time.sleep(0.3)
        assert sniff.free_core_from() is not None
    finally:
        for process in busy:
            process.kill()
            process.wait()


def test_a_gzipped_read_looks_at_the_machine_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Whether a gzipped read inflates ahead is decided once, before its own gzip thread
    runs."""
    from urlset.reading.output import line_tail
    from urlset.reading.rendered import RenderSpec

    looks = iter([None])  # a core free at the first look, none at any later one

    def look() -> int | None:
        return next(looks, NEVER)

    monkeypatch.setattr(sniff, "free_core_from", look)
    monkeypatch.setattr(sniff, "GZIP_THREAD_FROM", None)
    spec = RenderSpec("jsonl", line_tail("jsonl", None))
    reader = SitemapReader("s.xml.gz", render=spec)
    for at in range(0, len(BIG), 65_536):
        list(reader.feed(BIG[at : at + 65_536]))
    list(reader.close())
    assert reader._gzip is not None and reader._gzip.threaded
    assert spec.rendered == 40_000

"""A damaged gzip stream gives the same entries and issues however it is fed (issue 12).

What is right: the entries the stream holds before the damage, plus an error (gzip-corrupt,
or gzip-truncated for a stream cut short), and then the document is closed as if it ended
there (a cut entry is reported, not passed on). The reader once read a file with one
flipped byte as 0 entries (exit 2) when it was read whole, and as 1,175 entries when it was
fed in 7-byte or 4 KiB pieces: zlib drops the output of the call that finds the damage, and
what that call held depended on the chunking.
"""

from __future__ import annotations

import gzip
import hashlib
import zlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_read_support import feed_all, urlset
from urlset.reading.reader import read_bytes


def _loc(seed: int, i: int) -> str:
    # a digest in the path: deflate data varied enough that a flipped bit is often found
    return f"https://example.com/{seed}/{hashlib.md5(f'{seed}-{i}'.encode()).hexdigest()}"


def _sitemap(n: int, seed: int = 0) -> bytes:
    return urlset(
        *(
            f"<url><loc>{_loc(seed, i)}</loc><lastmod>2024-01-{1 + i % 28:02d}</lastmod></url>"
            for i in range(n)
        )
    )


def _flip_that_zlib_finds(data: bytes) -> tuple[bytes, int]:
    """``data`` with one byte of its deflate stream flipped where zlib reports an error
    (not merely a bad checksum at the end), and that byte's offset."""
    for at in range(len(data) // 2, len(data) - 8):
        damaged = bytearray(data)
        damaged[at] ^= 0xFF
        try:
            zlib.decompress(bytes(damaged), 31)
        except zlib.error as exc:
            if "invalid" in str(exc):
                return bytes(damaged), at
    raise AssertionError("no position found")


def _summary(result: tuple) -> tuple[list[str], list[str]]:  # type: ignore[type-arg]
    entries, issues, _, _ = result
    return [e.loc for e in entries], sorted(i.code for i in issues)


def test_one_flipped_byte_gives_the_entries_before_it_however_fed() -> None:
    plain = _sitemap(3000)
    damaged, _ = _flip_that_zlib_finds(gzip.compress(plain, mtime=0))
    whole = feed_all(damaged, [len(damaged)])
    locs, codes = _summary(whole)
    assert len(locs) > 1000  # the entries before the damage
    assert locs == [_loc(0, i) for i in range(len(locs))]
    assert "gzip-corrupt" in codes
    assert not whole[3]  # read, with errors: not "could not be read at all"
    for sizes in ([7], [4096], [1], [65536], [262_144], [3, 1000, 17]):
        assert feed_all(damaged, sizes) == whole, sizes
    result = read_bytes(damaged)
    assert len(list(result)) == len(locs) and not result.fatal


def test_damage_in_the_header_reads_nothing_however_fed() -> None:
    data = bytearray(gzip.compress(_sitemap(50), mtime=0))
    data[3] = 0xFF  # every flag set: the header never ends well
    whole = feed_all(bytes(data), [len(data)])
    assert whole[0] == []
    for sizes in ([1], [7], [4096]):
        assert feed_all(bytes(data), sizes) == whole


@st.composite
def damaged_gzips(draw: st.DrawFn) -> bytes:
    n = draw(st.integers(0, 400))
    plain = _sitemap(n, draw(st.integers(0, 9)))
    level = draw(st.sampled_from([1, 6, 9]))
    data = gzip.compress(plain, compresslevel=level, mtime=0)
    if draw(st.booleans()):  # a second member after the first
        data += gzip.compress(b"", mtime=0)
    at = draw(st.integers(0, len(data) - 1))
    if draw(st.booleans()):
        return data[:at]
    damaged = bytearray(data)
    damaged[at] ^= draw(st.integers(1, 255))
    return bytes(damaged)


chunkings = st.lists(st.integers(1, 6000), min_size=1, max_size=8)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_gzips(), chunkings)
def test_a_damaged_gzip_gives_the_same_result_however_chunked(
    data: bytes, sizes: list[int]
) -> None:
    """A real gzip of a generated sitemap, one byte flipped or the stream cut anywhere: fed
    whole or in random chunks, the same entries and the same issues (codes, positions)."""
    whole = feed_all(data, [len(data) or 1])
    assert feed_all(data, sizes) == whole
    assert _summary(feed_all(data, sizes, fast=False)) == _summary(whole)

"""A gzip stream's pieces come after the start of a record the compiled lane holds unread, in
one bytes object the core makes (``Gunzip.feed_after``: no join of the two in Python): the
reader gives the same entries and issues, with the same lines and columns, as it gives for
the plain document however it is chunked, wherever the pieces end (the careful lane too);
and the render lane writes the same output.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_read_support import feed_all, feed_all_with, urlset
from urlset.cli import main, read_run
from urlset.reading import sniff
from urlset.reading.sniff import Gunzip
from urlset.reading.xml_compiled import CompiledLane


def _record(i: int) -> str:
    """Plain records mostly; every few, values the reader judges (a finding with a column,
    placed from the pieces it keeps), an extension, a long loc."""
    loc = f"https://example.com/p/{i}"
    if i % 7 == 3:
        return f"<url><loc>{loc}</loc><lastmod>2024-13-{i % 28 + 1}</lastmod></url>"
    if i % 11 == 5:
        return f"<url>\n  <loc> {loc} </loc>\n  <priority>1.{i % 10}</priority>\n</url>"
    if i % 13 == 7:
        return f"<url><loc>{loc}?x={'y' * (i % 500)}</loc><changefreq>often</changefreq></url>"
    if i % 17 == 9:
        return f"<url><loc>{loc}</loc><other>{i}</other></url>"
    return f"<url><loc>{loc}</loc><lastmod>2024-05-{i % 28 + 1:02d}</lastmod></url>"


DOC = urlset(*(_record(i) for i in range(3000)))


def _read_gzip(data: bytes, piece: int, sizes: list[int]) -> object:
    return feed_all_with("GZIP_PIECE", piece, data, sizes)


@pytest.fixture
def joins(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[int]]:
    """The held bytes of each chunk the compiled lane took joined (the real method runs)."""
    held: list[int] = []
    feed = CompiledLane.feed

    def counted(lane: CompiledLane, data: bytes, n: int = 0) -> None:
        if n:
            held.append(n)
        feed(lane, data, n)

    monkeypatch.setattr(CompiledLane, "feed", counted)
    yield held


@pytest.mark.parametrize("piece", [1000, 4093, 65_536])
def test_pieces_after_a_held_record_read_as_the_plain_document(
    piece: int, joins: list[int]
) -> None:
    plain = feed_all(DOC, [len(DOC)])
    assert plain == feed_all(DOC, [4093, 17, 65_536])
    assert plain[1], "findings with columns to place"
    data = gzip.compress(DOC, mtime=0)
    assert _read_gzip(data, piece, [len(data)]) == plain
    assert _read_gzip(data, piece, [100, 7, 3000]) == plain
    assert joins, "pieces came after held records"
    # the careful lane reads the same
    assert feed_all(DOC, [len(DOC)], fast=False)[:2] == plain[:2]


def test_a_multi_member_stream_and_a_cut_one_read_as_the_plain_ones(joins: list[int]) -> None:
    half = len(DOC) // 2
    members = gzip.compress(DOC[:half], mtime=0) + gzip.compress(DOC[half:], mtime=0)
    assert _read_gzip(members, 1000, [len(members)]) == feed_all(DOC, [len(DOC)])
    whole = gzip.compress(DOC, mtime=0)
    cut = whole[: len(whole) * 2 // 3]
    got = _read_gzip(cut, 1000, [len(cut)])
    assert isinstance(got, tuple)
    assert "gzip-truncated" in {i.code for i in got[1]}
    assert joins


def test_feed_after_gives_each_piece_after_what_is_held() -> None:
    data = gzip.compress(DOC, mtime=0)
    alone = b"".join(Gunzip(1 << 62).feed(data))
    held = bytearray(b"<url><loc>")
    out = bytearray()
    for joined, n in Gunzip(1 << 62).feed_after(data, lambda: held):
        assert n == len(held) and joined[:n] == held
        out += joined[n:]
    assert out == alone == DOC
    nothing = [(p, n) for p, n in Gunzip(1 << 62).feed_after(data, lambda: None)]
    assert b"".join(p for p, _ in nothing) == DOC and {n for _, n in nothing} == {0}


def test_the_render_lane_writes_the_same_after_held_records(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, joins: list[int]
) -> None:
    """``urlset read`` of the gzip file writes what it writes for the plain file, and what
    the per-URL path writes."""
    plain, packed = tmp_path / "doc.xml", tmp_path / "doc.xml.gz"
    plain.write_bytes(DOC)
    packed.write_bytes(gzip.compress(DOC, mtime=0))
    monkeypatch.setattr(sniff, "GZIP_PIECE", 1000)

    def read(path: Path, lane: bool) -> tuple[int, bytes, bytes]:
        with monkeypatch.context() as patch:
            patch.setattr(read_run, "RENDER_LANE", lane)
            done = CliRunner().invoke(main, ["read", str(path), "-f", "jsonl"])
        # (the file's name in the findings, the same for both files)
        return done.exit_code, done.stdout_bytes, done.stderr_bytes.replace(b".gz:", b":")

    usual = read(plain, lane=False)
    assert usual[1].count(b"\n") > 2000
    assert read(packed, lane=True) == read(plain, lane=True) == usual
    assert read(packed, lane=False) == usual
    assert joins

"""Text sitemaps in the render lane (``RenderSpec(texts=True)``: ``urlset read`` and
``read_arrow``): the lines the compiled core takes are rendered there, every other line is
read by reading/text.py in its place, so that the output, the findings, their lines and
columns are what the line reader alone gives, whole and in chunks of any size.

The family, enumerated from reading/text.py's paths (each finding it or the sink it calls
emits is a case) and the protocol's rules for text files: line breaks (LF, CR LF, CR alone,
a CR LF split between chunks, none after the last line), blank and white-space-only lines, a
byte order mark, white space around a URL (``whitespace-in-value``), a line that is not
UTF-8 (``invalid-encoding``), a NUL (``invalid-character``), a line over the value limit
(``value-too-long``, and the rest of a line too long to keep), a loc the sink judges (an IRI
or a space: ``normalized-url``, ``url-not-escaped``; a relative one: ``relative-url``, or
``resolved-url`` with a base; not a URL, U+FFFD: ``invalid-url``), ``&``, ``'``, ``%``, a
port, an upper-case host, a duplicate, a development host, user info, 50,000 URLs
(``too-many-urls``), the entry and size limits (``entry-limit``,
``decompressed-size-limit``); gzipped or not.
"""

from __future__ import annotations

import gzip
import tempfile
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from urlset.limits import ReadLimits
from urlset.model import Issue, Url
from urlset.reading.output import RENDERERS, UrlColumns, line_tail
from urlset.reading.reader import SitemapReader
from urlset.reading.rendered import RenderSpec, left_core, merge_rendered

LINES = (
    "https://www.shop.org/p/{n}",
    "https://www.shop.org/search?q={n}&page=2",
    "https://www.shop.org/it's-{n}",
    "https://www.shop.org/caf%C3%A9/{n}",
    "https://shop.example.com:44300/{n}",
    "https://www.shop.org/caf\u00e9/{n}-\u20ac",  # an IRI
    "https://WWW.Shop.org/u/{n}",
    "https://www.shop.org/a b{n}",  # a space
    "  https://www.shop.org/w/{n}\t",  # white space around
    "https://www.shop.org/t/{n}   ",  # trailing spaces
    "",
    " \t ",
    "/relative/{n}",
    "not a url {n}",
    "https://[::1/{n}",
    "https://www.shop.org/\ufffd/{n}",
    "https://www.shop.org/nul/{n}\x00",
    "https://www.shop.org/dup",  # a duplicate, from its second
    "http://localhost:3000/{n}",  # a development host
    "https://ann:pw@www.shop.org/{n}",  # user info
    "https://www.shop.org/" + "x" * 120 + "{n}",  # over the test's value limit
)
BREAKS = ("\n", "\r\n", "\r")
_LIMITS = ReadLimits(max_value_length=100)


def text_document(picks: list[tuple[int, int]], *, bom: bool = False, last: bool = True) -> bytes:
    """Lines of LINES with the given (line, break) picks; one a byte that is not UTF-8."""
    parts = [("\ufeff" if bom else "").encode()]
    for i, (pick, brk) in enumerate(picks):
        line = LINES[pick].format(n=i).encode()
        if pick == 0 and i % 7 == 3:
            line += b"\xff"  # not UTF-8
        parts.append(line + BREAKS[brk].encode())
    data = b"".join(parts)
    return data if last else data.rstrip(b"\r\n")


def _jsonl(urls: Sequence[Url]) -> bytes:
    return RENDERERS["jsonl"](UrlColumns.from_urls(urls), None).encode()


def _read(
    data: bytes, chunk: int, *, lane: bool, limits: ReadLimits = _LIMITS, base: str | None = None
) -> tuple[bytes, list[Issue], RenderSpec]:
    """The JSON Lines and the issues (in the order given) of ``data`` fed in chunks."""
    spec = RenderSpec("jsonl", line_tail("jsonl", None), indexes=True, texts=lane)
    reader = SitemapReader("doc", limits=limits, render=spec, base_url=base)
    events = []
    for at in range(0, len(data), chunk):
        events += reader.feed(data[at : at + chunk])
    events += reader.close()
    urls = [e for e in events if type(e) is Url]
    issues = [e for e in events if type(e) is Issue]
    return b"".join(merge_rendered(urls, spec.take(), _jsonl)), issues, spec


def _alike(data: bytes, chunk: int, **options: object) -> RenderSpec:
    """Through the core in ``chunk``-byte chunks: what the line reader gives whole."""
    expected = _read(data, len(data) or 1, lane=False, **options)  # type: ignore[arg-type]
    got = _read(data, chunk, lane=True, **options)  # type: ignore[arg-type]
    assert got[:2] == expected[:2]
    assert expected[2].rendered == 0
    return got[2]


_picks = st.lists(
    st.tuples(st.sampled_from(range(len(LINES))), st.sampled_from(range(len(BREAKS)))),
    min_size=1,
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(_picks, st.integers(1, 200), st.booleans(), st.booleans(), st.booleans())
def test_a_text_sitemap_reads_alike_through_the_core(
    picks: list[tuple[int, int]], chunk: int, bom: bool, last: bool, base: bool
) -> None:
    """Any mix of the family, any chunks, a BOM or not, a last line break or not, with a
    base URL or not: the same output and findings (lines, columns, order)."""
    data = text_document(picks, bom=bom, last=last)
    _alike(data, chunk, base="https://www.shop.org/dir/" if base else None)


@pytest.mark.parametrize("pick", range(len(LINES)))
def test_each_member_of_the_family_reads_alike(pick: int, tmp_path: Path) -> None:
    """Each line among plain ones, with each break: through the render lane (the reader,
    ``urlset read`` and read_arrow), gzipped or not."""
    from urlset.cli import main, read_run
    from urlset.reading import arrow

    for brk in range(len(BREAKS)):
        data = text_document([(0, brk), (pick, brk), (1, brk), (pick, brk), (2, brk)])
        for chunk in (1, 5, len(data)):
            _alike(data, chunk)
        path = tmp_path / "list.txt.gz"
        path.write_bytes(gzip.compress(data))
        outputs = []
        for lane in (True, False):
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(read_run, "RENDER_LANE", lane)
                result = CliRunner().invoke(main, ["read", str(path), "-f", "csv"])
            outputs.append((result.exit_code, result.stdout_bytes, result.stderr))
        assert outputs[0] == outputs[1]
        reader = SitemapReader("v")
        values = [e for e in reader.feed(data) + reader.close() if type(e) is Url]
        assert arrow.read_arrow(path).to_pylist() == arrow._entries_batch(values).to_pylist()


def test_plain_lines_stay_in_the_core() -> None:
    """A text sitemap of plain URLs on a few hosts (a development one among them), IRIs and
    blank lines: every URL rendered, nothing leaves."""
    data = text_document([(k % 7, k % 3) for k in range(300)] + [(18, 0), (10, 0)])
    assert _alike(data, 4096).rendered == 301
    left_core(reset=True)
    spec = _read(data, 4096, lane=True)[2]
    assert (spec.rendered, spec.left, left_core()) == (301, {}, {})


@pytest.mark.parametrize(
    ("limits", "code"),
    [
        (ReadLimits(max_entries=5), "entry-limit"),
        (ReadLimits(max_decompressed_bytes=333), "decompressed-size-limit"),
        (ReadLimits(max_value_length=30), "value-too-long"),
    ],
)
def test_limits_stop_alike(limits: ReadLimits, code: str) -> None:
    data = text_document([(k % 5, 0) for k in range(40)])
    for chunk in (7, 64, len(data)):
        spec = _alike(data, chunk, limits=limits)
        assert code in {i.code for i in _read(data, chunk, lane=True, limits=limits)[1]}
        assert spec.rendered


def test_fifty_thousand_urls_and_one_more() -> None:
    """The protocol's 50,000 URLs a file: reported where the line reader reports it, the
    entry at the limit read the reader's way (counted), the others in the core."""
    data = "".join(f"https://www.shop.org/p/{k}\n" for k in range(50_001)).encode()
    spec = _alike(data, 1 << 18)
    issues = _read(data, 1 << 18, lane=True)[1]
    assert [i.code for i in issues] == ["too-many-urls"]
    assert (spec.rendered, spec.left) == (50_000, {"limit": 1})


def test_fetch_and_check_still_get_a_text_sitemap_as_values() -> None:
    """Without ``texts`` (fetch, check) a text sitemap's URLs are the reader's values."""
    data = text_document([(1, 0)] * 10)
    spec = RenderSpec("arrow", "")
    reader = SitemapReader("doc", render=spec)
    urls = [e for e in reader.feed(data) + reader.close() if type(e) is Url]
    assert (len(urls), spec.rendered, spec.left) == (10, 0, {"text": 10})


def test_the_cli_writes_a_text_sitemap_alike_in_every_format() -> None:
    from urlset.cli import main, read_run

    data = text_document([(k % len(LINES), k % 3) for k in range(60)])
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "list.txt"
        path.write_bytes(data)
        for fmt in ("jsonl", "csv", "tsv", "locs"):
            outputs = []
            for lane in (True, False):
                with pytest.MonkeyPatch.context() as patch:
                    patch.setattr(read_run, "RENDER_LANE", lane)
                    patch.setattr(read_run, "FILE_CHUNK", 33)
                    result = CliRunner().invoke(main, ["read", str(path), "-f", fmt])
                outputs.append((result.exit_code, result.stdout_bytes, result.stderr))
            assert outputs[0] == outputs[1], fmt


@pytest.mark.parametrize("lane", [True, False])
def test_a_development_host_is_placed_where_its_url_starts(lane: bool) -> None:
    """A text line's dev-host finding at the column its URL starts (check's place; it had
    none), through the core or the line reader, with white space before it or not."""
    from urlset.checking.checker import check_document

    data = b"http://localhost:3000/a\n  http://dev.local/b\n"
    read = [(i.code, i.line, i.column) for i in _read(data, 7, lane=lane)[1]]
    assert ("dev-host", 1, 1) in read and ("dev-host", 2, 3) in read
    checked = {(i.code, i.line, i.column) for i in check_document(data).issues}
    assert {("dev-host", 1, 1), ("dev-host", 2, 3)} <= checked

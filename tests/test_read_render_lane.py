"""``urlset read`` through the render lane gives exactly what it gives without it.

With the lane (reading/rendered.py) a plain urlset's canonical records are rendered into
output text by the compiled core; without it (``read_run.RENDER_LANE`` off, the path
``--snapshot`` takes) every entry becomes a ``Url`` rendered by reading/output.py. The CLI's
output bytes, its standard error, its ``--issues-json`` file and its exit status must be
the same in every format, for files and standard input, plain and gzipped, whole and read
in odd chunks: on bench_read.py's mixed shapes, documents that make the lane hand entries
back, broken and limited documents, indexes, RSS/Atom/text, and the real-world corpus.
"""

from __future__ import annotations

import gzip
import random
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner

from helpers import mixed_sitemap
from urlset._core import judged_value
from urlset.cli import main, read_run
from urlset.reading.reader import FILE_CHUNK
from urlset.reading.rendered import RenderSpec
from urlset.reading.xml_compiled import CompiledLane

FORMATS = ("jsonl", "csv", "tsv", "locs")
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


class _Counted(RenderSpec):
    """A RenderSpec that remembers itself, so a test can tell how much the core rendered."""

    made: ClassVar[list[RenderSpec]] = []

    def __init__(
        self,
        fmt: str,
        tail: str,
        *,
        indexes: bool = False,
        texts: bool = False,
    ) -> None:
        super().__init__(fmt, tail, indexes=indexes, texts=texts)
        _Counted.made.append(self)


def _read(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    path: Path,
    fmt: str,
    *,
    lane: bool,
    stdin: bool = False,
    extra: tuple[str, ...] = (),
) -> tuple[int, bytes, str, str]:
    """(exit status, output bytes, stderr, --issues-json text) of ``urlset read``; the issues
    go to the JSON file in one run and standard error in another."""
    with monkeypatch.context() as patch:
        patch.setattr(read_run, "RENDER_LANE", lane)
        out, issues = tmp_path / "out", tmp_path / "issues.json"
        source = "-" if stdin else str(path)
        data = path.read_bytes() if stdin else None
        runner = CliRunner()
        first = runner.invoke(
            main,
            ["read", source, "-f", fmt, "-o", str(out), "--issues-json", str(issues), *extra],
            input=data,
            catch_exceptions=False,
        )
        second = runner.invoke(
            main, ["read", source, "-f", fmt, *extra], input=data, catch_exceptions=False
        )
        written = out.read_bytes()
        assert second.exit_code == first.exit_code
        assert second.stdout_bytes == written  # -o and standard output: the same bytes
        return first.exit_code, written, second.stderr, issues.read_text(encoding="utf-8")


def _same(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    path: Path,
    formats: tuple[str, ...] = FORMATS,
    **options: Any,
) -> tuple[int, bytes]:
    """The lane's results equal the per-URL path's in every format; returns the JSON Lines
    exit status and output."""
    for fmt in formats:
        usual = _read(monkeypatch, tmp_path, path, fmt, lane=False, **options)
        lane = _read(monkeypatch, tmp_path, path, fmt, lane=True, **options)
        assert lane[0] == usual[0], fmt
        assert lane[2:] == usual[2:], fmt  # stderr, issues JSON
        if lane[1] != usual[1]:
            pairs = zip(lane[1].splitlines(), usual[1].splitlines(), strict=False)
            first = next(((a, b) for a, b in pairs if a != b), "(one is longer)")
            pytest.fail(f"{fmt}: first differing line {first}")
    return usual[0], usual[1]


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[RenderSpec]:
    _Counted.made = []
    monkeypatch.setattr(read_run, "RenderSpec", _Counted)
    return _Counted.made


@pytest.mark.parametrize("chunk", [FILE_CHUNK, 997])
@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
def test_mixed_shapes(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    counted: list[RenderSpec],
    chunk: int,
    gz: bool,
) -> None:
    """bench_read.py's mixed shapes: half of them canonical (rendered in the core), half
    judged by the reader (normalised, reported): the two interleave in the output."""
    monkeypatch.setattr(read_run, "FILE_CHUNK", chunk)
    data = mixed_sitemap(3000)
    path = tmp_path / ("mixed.xml.gz" if gz else "mixed.xml")
    path.write_bytes(gzip.compress(data) if gz else data)
    status, out = _same(monkeypatch, tmp_path, path)
    assert status == 0 and out.count(b"\n") == 3000
    assert counted and all(spec.rendered >= 1400 for spec in counted), [s.rendered for s in counted]


def test_stdin(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, counted: list[RenderSpec]) -> None:
    path = tmp_path / "mixed.xml.gz"
    path.write_bytes(gzip.compress(mixed_sitemap(2000)))
    status, out = _same(monkeypatch, tmp_path, path, stdin=True)
    assert status == 0 and out.count(b"\n") == 2000
    assert counted and all(spec.rendered >= 900 for spec in counted)


def test_snapshot_takes_the_per_url_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, counted: list[RenderSpec]
) -> None:
    """--snapshot stores the URLs' values: no render lane, and the same output."""
    pytest.importorskip("duckdb")
    path = tmp_path / "mixed.xml"
    path.write_bytes(mixed_sitemap(500))
    db = tmp_path / "runs.duckdb"
    result = CliRunner().invoke(main, ["read", str(path), "--snapshot", str(db)])
    plain = CliRunner().invoke(main, ["read", str(path)])
    assert result.exit_code == plain.exit_code == 0
    assert result.stdout_bytes == plain.stdout_bytes and result.stdout_bytes.count(b"\n") == 500
    assert len(counted) == 1 and counted[0].rendered > 0  # the plain run only


def test_entries_handed_back_and_errors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, counted: list[RenderSpec]
) -> None:
    """Duplicates, development hosts, comments, extensions, entities between rendered runs,
    then a document broken part-way: exit 1, what was read written, the same issues."""
    monkeypatch.setattr(read_run, "FILE_CHUNK", 2048)
    plain = "<url><loc>https://example.com/p/{}</loc><lastmod>2024-01-0{}</lastmod></url>\n"
    records = [plain.format(i, 1 + i % 9) for i in range(600)]
    records[50] = plain.format(7, 1)
    records[60] = "<url><loc>https://EXAMPLE.com/p/61</loc></url>\n"
    records[100] = "<url><loc>http://localhost:8000/dev</loc></url>\n"
    records[101] = "<!-- a comment -->\n"
    records[150] = (
        "<url><loc>https://example.com/img</loc><image:image><image:loc>"
        "https://example.com/i.png</image:loc></image:image></url>\n"
    )
    records[200] = "<url><loc>https://example.com/a?x=1&amp;y=&apos;2&apos;</loc></url>\n"
    records[500] = "<url><loc>https://example.com/x</loc><url>\n"  # not well-formed
    head = HEAD.replace(
        '0.9">', '0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
    )
    path = tmp_path / "handed-back.xml"
    path.write_text(head + "".join(records) + "</urlset>\n", encoding="utf-8")
    status, out = _same(monkeypatch, tmp_path, path)
    assert status == 1 and out.count(b"\n") >= 490
    assert counted and all(spec.rendered >= 350 for spec in counted)


def test_limits(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--max-bytes stops both paths at the same entry, with the same issue and status."""
    path = tmp_path / "mixed.xml"
    path.write_bytes(mixed_sitemap(4000))
    status, out = _same(monkeypatch, tmp_path, path, extra=("--max-bytes", "100000"))
    assert status != 0 and 0 < out.count(b"\n") < 4000


def test_other_formats_go_the_usual_way(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, counted: list[RenderSpec]
) -> None:
    """RSS and Atom: no record rendered in the core, the same output; an index's records
    and a text sitemap's lines are rendered in the core (tests/test_read_index_lane.py,
    tests/test_read_text_lane.py), with the same output too."""
    documents = {
        "index.xml": '<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/'
        'schemas/sitemap/0.9"><sitemap><loc>https://example.com/s1.xml</loc>'
        "<lastmod>2024-01-01</lastmod></sitemap><sitemap><loc>https://example.com/s2.xml"
        "</loc></sitemap></sitemapindex>",
        "feed.rss": '<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>'
        "<item><link>https://example.com/a</link><pubDate>Mon, 01 Jan 2024 00:00:00 GMT"
        "</pubDate></item></channel></rss>",
        "feed.atom": '<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom">'
        '<entry><link href="https://example.com/b"/><updated>2024-01-01T00:00:00Z</updated>'
        "</entry></feed>",
        "list.txt": "https://example.com/c\nhttps://example.com/d?q=1&r=2\n",
    }
    for name, text in documents.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        counted.clear()
        status, out = _same(monkeypatch, tmp_path, path)
        assert status == 0 and out.count(b"\n") >= 1, name
        rendered = 2 if name in ("index.xml", "list.txt") else 0
        assert counted and all(spec.rendered == rendered for spec in counted), name


def _corpus() -> list[Path]:
    from conftest import SHARED

    base = SHARED / "corpus/realworld"
    return sorted(p for p in base.glob("*") if p.name != "MANIFEST.tsv") if base.exists() else []


@pytest.mark.skipif(not _corpus(), reason="../shared is absent")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_corpus(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, path: Path) -> None:
    _same(monkeypatch, tmp_path, path, formats=("jsonl", "csv"))
    _same(monkeypatch, tmp_path, path, formats=("locs",), stdin=True)


def test_locs_made_uris_past_the_issue_cap(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, counted: list[RenderSpec]
) -> None:
    """Locs the core makes URIs of (upper-case and IDN hosts, non-ASCII paths) render in the
    core, in odd chunks, with the usual path's normalized-url issues: 1,000 listed, the rest
    counted, duplicates found on the URI."""
    monkeypatch.setattr(read_run, "FILE_CHUNK", 4099)
    hosts = ("Example.COM", "b\u00fccher.example", "example.com")
    records = []
    for i in range(2400):
        loc = f"https://{hosts[i % 3]}/caf\u00e9/{i}?q=\u00fc&amp;x={i}"
        if i % 50 == 49:  # an earlier record's URI, on a host written example.com or Example.COM
            j = i - 4 if i % 3 == 1 else i - 3
            loc = f"https://example.com/caf%C3%A9/{j}?q=%C3%BC&amp;x={j}"
        records.append(f"<url><loc>{loc}</loc><changefreq>daily</changefreq></url>\n")
    path = tmp_path / "made-uris.xml"
    path.write_text(HEAD + "".join(records) + "</urlset>\n", encoding="utf-8")
    _, out = _same(monkeypatch, tmp_path, path)
    assert out.count(b"\n") == 2400 and b"xn--bcher-kva.example" in out
    issues = _read(monkeypatch, tmp_path, path, "locs", lane=True)[3]
    assert issues.count('"normalized-url"') == 1000 and "(2352 in all)" in issues
    assert issues.count('"duplicate-loc"') == 48
    assert counted and all(spec.rendered > 2000 for spec in counted), [s.rendered for s in counted]


def test_runs_written_as_they_come(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, counted: list[RenderSpec]
) -> None:
    """A run is written as soon as the core has rendered it while no entry waits before it,
    not held with the rest of its chunk: the output of a chunk of a gzipped file is many runs,
    and holding them all made each chunk's output memory afresh (a page fault every 4 KiB)."""
    held: list[int] = []
    add_run = RenderSpec.add_run

    def counting(spec: RenderSpec, *args: Any) -> None:
        add_run(spec, *args)
        held.append(len(spec.runs))

    monkeypatch.setattr(RenderSpec, "add_run", counting)
    plain = "<url><loc>https://example.com/p/{}</loc><lastmod>2024-01-0{}</lastmod></url>\n"
    body = "".join(plain.format(i, 1 + i % 9) for i in range(60_000))
    path = tmp_path / "plain.xml.gz"
    path.write_bytes(gzip.compress((HEAD + body + "</urlset>\n").encode()))
    out = tmp_path / "out.jsonl"
    result = CliRunner().invoke(main, ["read", str(path), "-o", str(out), "-q"])
    assert result.exit_code == 1  # over the protocol's 50,000: an error, every entry written
    assert out.read_bytes().count(b"\n") == 60_000
    # one run waits for the entry past the protocol's 50,000, which the reader hands on itself
    assert len(held) >= 4 and sum(held) <= 1, held


def _judged_density(count: int, every: int, lastmod: str, seed: int) -> bytes:
    """A urlset whose entry ``i`` has ``lastmod`` (one the reader judges) when ``i % every``
    is 0 (``every`` 0: at random, one in three), else a W3C date; some with an image, a
    changefreq to correct, a priority only Python reads, a repeated loc or an entity among
    them."""
    rng = random.Random(seed)
    head = HEAD.replace(
        '0.9">', '0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
    )
    records = []
    for i in range(count):
        judged = rng.random() < 1 / 3 if every == 0 else i % every == 0
        parts = [f"<loc>https://example.com/p/{i if rng.random() > 0.02 else i // 2}</loc>"]
        parts.append(f"<lastmod>{lastmod if judged else '2024-05-06'}</lastmod>")
        if rng.random() < 0.05:
            parts.append("<changefreq>Weekly</changefreq>")
        if rng.random() < 0.03:
            parts.append("<priority>0_5</priority>")  # float's underscore: the reader's
        if rng.random() < 0.03:
            parts.append(
                "<image:image><image:loc>https://example.com/i.png</image:loc></image:image>"
            )
        if rng.random() < 0.02:
            parts[0] = f"<loc>https://example.com/q?a=1&amp;b={i}</loc>"
        records.append("<url>" + "".join(parts) + "</url>\n")
    return (head + "".join(records) + "</urlset>\n").encode()


@pytest.mark.parametrize(
    ("every", "lastmod"),
    [
        (1, "2024-05-06 10:00:00"),  # every lastmod lenient: a CMS's usual export
        (1, "2024-05-06T10:00:00"),
        (1, "0000-00-00 00:00:00"),  # every lastmod invalid: PHP's zero date
        (1, "2024-05-06t10:00:00z"),  # read in upper case: the reader's own judgement
        (2, "not-a-date"),
        (5, "2024-5-6"),
        (20, "2024-13-01"),
        (0, "2024-05-06t10:00:00z"),
    ],
)
def test_entries_to_judge_in_runs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, every: int, lastmod: str
) -> None:
    """Entries the reader judges (a lenient or invalid lastmod) at every density, with the
    canonical records between them: the same output, issues and status as the per-URL path,
    whole and in odd chunks; those the core judges read in the core, the others judged a
    run at a time, not a scan a record (2,000 entries each judged were 2,000 runs)."""
    runs: list[int] = []
    entries: list[Any] = []
    judged = CompiledLane._judged

    def counted_runs(lane: CompiledLane, run: list[Any]) -> bool:
        runs.append(len(run))
        entries.extend(run)
        return judged(lane, run)

    monkeypatch.setattr(CompiledLane, "_judged", counted_runs)
    path = tmp_path / "judged.xml"
    path.write_bytes(_judged_density(2000, every, lastmod, seed=every))
    for chunk in (FILE_CHUNK, 997):
        monkeypatch.setattr(read_run, "FILE_CHUNK", chunk)
        _, out = _same(monkeypatch, tmp_path, path, formats=("csv", "jsonl"))
        assert out.count(b"\n") == 2000
    if every == 1:
        monkeypatch.setattr(read_run, "FILE_CHUNK", FILE_CHUNK)
        runs.clear()
        entries.clear()
        _read(monkeypatch, tmp_path, path, "jsonl", lane=True)
        if judged_value(1, lastmod.encode()) is not None:
            # the core judges the lastmods and the changefreqs to correct: only the entries
            # with a priority only Python reads are the reader's
            assert entries and all(type(e[4]) is tuple for e in entries), entries[:3]
        else:  # a run ends at an image, a chunk's end or a half's: dozens of entries
            assert sum(runs) >= 2 * 1900 and sum(runs) / len(runs) >= 10, (len(runs), sum(runs))


@pytest.mark.parametrize("batch", [1, 7, 64])
def test_a_full_batch_flushed_mid_chunk_writes_only_the_runs_before_what_is_to_come(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, batch: int
) -> None:
    """The writer flushes a full batch of the reader's entries part-way through a chunk's;
    the runs rendered after entries it has yet to be given wait for them (they were written
    first, with empty lines in their places, once a chunk held more than a batch of values
    followed by runs)."""
    records = []
    for i in range(400):
        # runs of entries the reader judges (a changefreq to correct), runs of records
        changefreq = "Weekly" if i % 40 < 25 else "daily"
        records.append(
            f"<url><loc>https://example.com/p/{i}</loc><changefreq>{changefreq}</changefreq></url>\n"
        )
    path = tmp_path / "batches.xml"
    path.write_bytes((HEAD + "".join(records) + "</urlset>\n").encode())
    monkeypatch.setattr(read_run, "_URL_BATCH", batch)
    _, out = _same(monkeypatch, tmp_path, path, formats=("csv", "jsonl"))
    assert out.count(b"\n") == 400 and b"\n\n" not in out

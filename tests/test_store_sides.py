"""Every kind of diff side read a column at a time, on bench/read_shapes.py's shape matrix.

The side kinds (``store/sources.py``'s ``load``, named in ``urlset diff``'s help): a sitemap
file -- a urlset, a sitemap index or a text sitemap, gzipped or not -- a directory of them,
a URL (fetched), an entries file (JSON Lines, CSV, TSV, Parquet; DuckDB reads those itself)
and a stored run (its rows stored: nothing read). Those read by urlset's reader go through
the render lane into Arrow record batches that DuckDB scans (``sitemap_batches``,
``fetch_entries``); the oracle here is the reader's Url values, written out one by one
(``_values_rows``), and a diff of those values as an entries file: the diff's output must be
the same, byte for byte.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from helpers import bench_module
from test_fetch_support import LoopbackServer
from test_store_diff import _side_rows, _values_rows
from urlset.cli import main
from urlset.reading.rendered import left_core
from urlset.store.diff import compare

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

SHAPES = bench_module("read_shapes")
KINDS = ("urlset", "index", "text")


def _old_new(shape: str, kind: str, n: int = 240) -> tuple[bytes, bytes]:
    """Two documents of one shape: the new one without the first five entries, with ten
    more at the end, a changefreq changed on every 7th and a lastmod moved on every 11th."""
    if kind == "index":
        return SHAPES.index(shape, n), SHAPES.index(shape, n + 10)[:-15] + b"</sitemapindex>\n"
    if kind == "text":
        lines = SHAPES.text(shape, n + 10).splitlines(keepends=True)
        return b"".join(lines[:n]), b"".join(lines[5:])
    old = [SHAPES.entry(shape, i) for i in range(n)]
    new = []
    for i in range(5, n + 10):
        entry = SHAPES.entry(shape, i)
        if i % 7 == 1:
            entry = entry.replace(">daily<", ">weekly<")
        if i % 11 == 0:
            entry = re.sub(r"<lastmod>[^<]*</lastmod>", "<lastmod>2025-01-02</lastmod>", entry)
        new.append(entry)
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SHAPES.NAMESPACES}>\n'
    return (
        (head + "".join(old) + "</urlset>\n").encode(),
        (head + "".join(new) + "</urlset>\n").encode(),
    )


def _write(path: Path, data: bytes, packed: bool) -> Path:
    path.write_bytes(gzip.compress(data) if packed else data)
    return path


def _entries_file(path: Path, rows: list[tuple[Any, ...]]) -> Path:
    """The reader's values as a Parquet entries file (the diff's other way in)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    names = ("loc", "lastmod", "changefreq", "priority", "extensions", "sitemap")
    columns = {name: [row[i] for row in rows] for i, name in enumerate(names)}
    types = {name: pa.float64() if name == "priority" else pa.string() for name in names}
    pq.write_table(pa.table({k: pa.array(v, types[k]) for k, v in columns.items()}), path)
    return path


def _diff_jsonl(old: Path | str, new: Path | str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["diff", str(old), str(new), "-f", "jsonl", "-q"])
    return result.exit_code, result.output


def _cases() -> Iterator[Any]:
    for shape in SHAPES.SHAPES:
        for kind in KINDS:
            yield pytest.param(shape, kind, id=f"{shape}-{kind}")


@pytest.mark.parametrize(("shape", "kind"), list(_cases()))
def test_every_shape_and_kind_diffs_as_its_values(tmp_path: Path, shape: str, kind: str) -> None:
    """A side holds the reader's values (an index: no Urls, so nothing), every entry came as
    columns (none left the core: an index's records and a text sitemap's lines used to come
    as values), and the diff of the two files writes what the diff of their values (as
    entries files) writes."""
    old_doc, new_doc = _old_new(shape, kind)
    suffix = ".txt" if kind == "text" else ".xml"
    for packed in (False, True):
        end = suffix + (".gz" if packed else "")
        old = _write(tmp_path / f"old-{packed}{end}", old_doc, packed)
        new = _write(tmp_path / f"new-{packed}{end}", new_doc, packed)
        left_core(reset=True)
        expected = _values_rows(old, None)
        assert sorted(_side_rows(old), key=repr) == sorted(expected, key=repr)
        assert left_core(reset=True) == {}  # no entry of any shape left the core
        assert (kind == "index") == (expected == [])
        reference = _diff_jsonl(
            _entries_file(tmp_path / "old.parquet", expected),
            _entries_file(tmp_path / "new.parquet", _values_rows(new, None)),
        )
        assert _diff_jsonl(old, new) == reference
        assert reference[0] == (0 if kind == "index" else 1)


def test_the_shapes_diff_found_each_kind_of_change(tmp_path: Path) -> None:
    """The matrix's pair of documents holds added, removed and changed entries (lastmod and
    other fields), so the comparison above compares them all."""
    old_doc, new_doc = _old_new("mix", "urlset")
    old = _write(tmp_path / "old.xml", old_doc, False)
    new = _write(tmp_path / "new.xml", new_doc, False)
    counts = compare(str(old), str(new)).counts
    assert counts["added"] == 10 and counts["removed"] == 5
    assert counts["lastmod_forward"] > 0 and counts["other_fields"] > 0


def test_a_directory_of_every_kind_is_its_files(tmp_path: Path) -> None:
    """A directory side: each file's rows, with its path inside the directory as sitemap."""
    folder = tmp_path / "site"
    folder.mkdir()
    old_urlset, _ = _old_new("mix", "urlset")
    _write(folder / "a.xml.gz", old_urlset, True)
    _write(folder / "b.txt", _old_new("mix", "text")[0], False)
    _write(folder / "index.xml", _old_new("mix", "index")[0], False)
    expected = _values_rows(folder / "a.xml.gz", "a.xml.gz")
    expected += _values_rows(folder / "b.txt", "b.txt")
    assert sorted(_side_rows(folder), key=repr) == sorted(expected, key=repr)


def test_a_fetched_side_holds_what_the_file_side_holds(tmp_path: Path) -> None:
    """A URL side (fetched in the render lane, as Arrow batches) holds the rows of the same
    document read as a file, with the sitemap's URL; its diff finds the same changes."""
    old_doc, new_doc = _old_new("mix", "urlset")
    old = _write(tmp_path / "old.xml", old_doc, False)
    new = _write(tmp_path / "new.xml", new_doc, False)
    with LoopbackServer() as server:
        server.add("/old.xml", old_doc)
        server.add("/new.xml", gzip.compress(new_doc), "application/gzip")
        url = server.url("/old.xml")
        fetched = _side_rows(url)
        code, output = _diff_jsonl(url, server.url("/new.xml"))
    assert sorted(fetched, key=repr) == sorted(_values_rows(old, url), key=repr)
    assert code == 1
    unsited = [
        {k: v for k, v in json.loads(line).items() if not k.endswith("sitemap")}
        for line in output.splitlines()
    ]
    assert unsited == [json.loads(line) for line in _diff_jsonl(old, new)[1].splitlines()]


def test_the_sides_load_at_once_and_fail_in_order(tmp_path: Path) -> None:
    """The two sides load at the same time (the old one on a thread): an error of the old
    side is still the one reported when both fail, the new side's when only it fails, and an
    error raised while a side streams into DuckDB is the side's own message, not DuckDB's."""
    good = _write(tmp_path / "good.xml", _old_new("plain", "urlset")[0], False)
    folder = tmp_path / "empty"
    folder.mkdir()
    for args, message in (
        ([str(tmp_path / "gone-old.xml"), str(tmp_path / "gone-new.xml")], "gone-old.xml"),
        ([str(good), str(tmp_path / "gone-new.xml")], "gone-new.xml: no such file"),
        ([str(folder), str(good)], "empty: no sitemap files in it"),
        ([str(good), str(folder)], "empty: no sitemap files in it"),
    ):
        result = CliRunner().invoke(main, ["diff", *args])
        assert (result.exit_code, "Traceback" in result.output) == (2, False), result.output
        assert message in result.output
        assert result.output.count("urlset diff:") == 1


@pytest.mark.parametrize("repeated", [0, 1, 3])
def test_a_file_side_counts_its_repeated_locs(tmp_path: Path, repeated: int) -> None:
    """A sitemap file's side takes "no loc repeats" from the reader (which reports the first
    repeat of any document, whichever lane read it) and counts the repeats in DuckDB only
    when it reported one: a repeat read by the core, by the reader's careful way (a loc with
    white space around it) or both is counted, and compared through its newest entry."""
    from urlset.store.db import connect
    from urlset.store.sources import load

    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {SHAPES.NAMESPACES}>\n'
    entries = [SHAPES.entry("plain", i) for i in range(50)]
    again = [SHAPES.entry("plain", 7).replace("2024-05-06", "2024-06-01")]
    again.append(SHAPES.entry("plain", 8).replace("<loc>", "<loc>\n  "))
    again.append(SHAPES.entry("plain", 7))
    path = tmp_path / "map.xml"
    path.write_text(head + "".join(entries + again[:repeated]) + "</urlset>\n", encoding="utf-8")
    side = load(connect(), str(path), "side")
    assert (side.count, side.duplicates) == (50 + repeated, repeated)
    assert sorted(_side_rows(path), key=repr) == sorted(_values_rows(path, None), key=repr)


FEEDS = {
    "rss": '<rss version="2.0"><channel><title>t</title>{}</channel></rss>',
    "atom": '<feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>{}</feed>',
}
ITEMS = {
    "rss": "<item><link>https://www.example.com/{i}</link>"
    "<pubDate>Mon, 06 May 2024 10:00:0{d} GMT</pubDate></item>",
    "atom": '<entry><link href="https://www.example.com/{i}"/>'
    "<updated>2024-05-06T10:00:0{d}Z</updated></entry>",
}


@pytest.mark.parametrize("feed", ["rss", "atom"])
def test_a_feed_side_holds_its_values(tmp_path: Path, feed: str) -> None:
    """RSS and Atom (sitemap files too, for a diff) are read by the reader's careful way, whose
    Urls become the same columns: the side is their values, and a moved date is a change."""
    old = FEEDS[feed].format("".join(ITEMS[feed].format(i=i, d=0) for i in range(4)))
    new = FEEDS[feed].format("".join(ITEMS[feed].format(i=i, d=i % 2) for i in range(4)))
    a = _write(tmp_path / f"old.{feed}", old.encode(), False)
    b = _write(tmp_path / f"new.{feed}", new.encode(), True)
    expected = _values_rows(a, None)
    assert len(expected) == 4 and all(row[1] for row in expected)
    assert sorted(_side_rows(a), key=repr) == sorted(expected, key=repr)
    counts = compare(str(a), str(b)).counts
    assert (counts["changed"], counts["lastmod_forward"]) == (2, 2)


def test_a_streamed_side_is_made_on_one_thread() -> None:
    """DuckDB pulls a stream's batches from whichever of its threads is free; the reader
    behind them (libxml2's parser in its careful lane) must stay on one thread."""
    import threading

    import duckdb
    import pyarrow as pa

    from urlset.store.entries import arrow_schema
    from urlset.store.sources import on_one_thread

    made_on: set[int] = set()
    schema = arrow_schema()

    def batches() -> Iterator[Any]:
        for i in range(200):
            made_on.add(threading.get_ident())
            yield pa.RecordBatch.from_pylist([{"loc": f"https://example.com/{i}"}], schema=schema)

    con = duckdb.connect()
    con.execute("SET threads = 4")
    stream = pa.RecordBatchReader.from_batches(schema, on_one_thread(batches()))
    con.register("side", stream)
    assert con.execute("SELECT count(*) FROM side").fetchall() == [(200,)]
    assert len(made_on) == 1 and threading.get_ident() not in made_on


def test_sides_read_by_libxml2_diff_again_and_again(tmp_path: Path) -> None:
    """A set whose files carry a stylesheet is read in the careful lane (libxml2): diffed
    in one process over and over, as a test run or a watch loop does, it never crashes
    (it did: DuckDB's threads fed one parser in turn, 'free(): invalid pointer')."""
    import subprocess
    import sys

    site = tmp_path / "site"
    site.mkdir()
    for n in range(8):
        entries = "".join(f"<url><loc>https://example.com/{n}/{i}</loc></url>" for i in range(25))
        (site / f"sitemap-{n}.xml").write_text(
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            '<?xml-stylesheet type="text/xsl" href="sitemap.xsl"?>\n'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{entries}</urlset>\n'
        )
    script = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from urlset.cli import main\n"
        "for _ in range(30):\n"
        "    result = CliRunner().invoke(main, ['diff', sys.argv[1], sys.argv[1]])\n"
        "    assert result.exit_code == 0, result.output\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(site)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]

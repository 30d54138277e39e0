"""urlset.reading.arrow.read_arrow: the same entries as urlset.read, in the same order, as
Arrow columns; the compiled path (no Python object per entry) and the long way agree.

* Generated documents (the reader's property generators, and plain ones the compiled path
  takes) and the real-world corpus: each row equals the entry ``read`` gives.
* The compiled path is really taken for canonical records, and an unusual entry costs only
  itself: the records around it are still read into columns by the core.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from test_read_property import (
    SETTINGS,
    documents,
    freqs_text,
    index_documents,
    lastmods_text,
    locs_text,
    mutated,
    prios_text,
)
from test_read_support import NS
from urlset.dates import format_w3c, instant
from urlset.extensions import json_fields
from urlset.limits import ReadLimits
from urlset.model import Issue
from urlset.reading.arrow import SLICED_STRETCHES, read_arrow, read_batches
from urlset.reading.reader import SitemapReader, read_bytes
from urlset.reading.rendered import RenderSpec

pa = pytest.importorskip("pyarrow")


def _expected(data: bytes, limits: ReadLimits = ReadLimits()) -> list[tuple[Any, ...]]:  # noqa: B008
    rows = []
    for e in read_bytes(data, limits=limits):
        lastmod = e.lastmod
        changefreq = getattr(e, "changefreq", None)
        rows.append(
            (
                e.loc,
                None if lastmod is None else format_w3c(lastmod),
                None if lastmod is None else instant(lastmod),
                None if changefreq is None else changefreq.value,
                getattr(e, "priority", None),
                _extensions_json(getattr(e, "extensions", ())),
            )
        )
    return rows


def _extensions_json(extensions: tuple[Any, ...]) -> str | None:
    """What ``urlset read`` writes for an entry's extensions (the JSON Lines keys' object)."""
    if not extensions:
        return None
    return json.dumps(json_fields(extensions), ensure_ascii=False, separators=(",", ":"))


def _rows(table: Any) -> list[tuple[Any, ...]]:
    columns = [table.column(name).to_pylist() for name in table.column_names]
    return list(zip(*columns, strict=True))


def _same(data: bytes) -> None:
    table = read_arrow(data)
    assert table.column_names == [
        "loc",
        "lastmod",
        "lastmod_at",
        "changefreq",
        "priority",
        "extensions",
    ]
    assert _rows(table) == _expected(data)


@st.composite
def plain_documents(draw: st.DrawFn) -> bytes:
    """Records in protocol order with nothing between: what the compiled path reads (when
    their values are canonical; others make it hand the document over)."""
    records = []
    for _ in range(draw(st.integers(0, 12))):
        parts = [f"<loc>{draw(locs_text).replace('&', '&amp;')}</loc>"]
        for name, text in (
            ("lastmod", lastmods_text),
            ("changefreq", freqs_text),
            ("priority", prios_text),
        ):
            if draw(st.booleans()):
                parts.append(f"<{name}>{draw(text)}</{name}>")
        records.append("<url>" + "".join(parts) + "</url>")
    head = draw(
        st.sampled_from(
            [
                f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">',
                f'<urlset xmlns="{NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
            ]
        )
    )
    return (head + "\n" + "\n".join(records) + "\n</urlset>\n").encode()


@SETTINGS
@given(plain_documents())
def test_plain_documents_read_the_same(doc: bytes) -> None:
    _same(doc)


@SETTINGS
@given(documents() | index_documents() | mutated())
def test_any_document_reads_the_same(doc: bytes) -> None:
    _same(doc)


def test_the_compiled_path_takes_canonical_records_around_unusual_ones() -> None:
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        "<url><loc>https://example.com/a?x=1&amp;y=%C3%A9</loc>"
        "<lastmod>2024-01-02T03:04:05.5+01:00</lastmod><changefreq>daily</changefreq>"
        "<priority>0.3</priority></url>\n"
        "<url><loc>https://example.com:8080/b</loc><lastmod>2024-02-29</lastmod></url>\n"
        + "".join(f"<url><loc>https://example.com/c{i}</loc></url>\n" for i in range(5))
        + "</urlset>\n"
    ).encode()
    # the first entry on each origin has its host judged by the reader's sink, and is read
    # into columns by the core with the rest: nothing here needs the reader's values
    batches, in_core = read_batches(doc)
    assert in_core == 7 and sum(b.num_rows for b in batches) == 7
    _same(doc)
    _same(gzip.compress(doc))
    # each unusual entry costs itself only (the whole document went the long way before)
    for other in (
        doc.replace(b"<url>", b"<!-- c --><url>", 1),  # a piece lxml reads
        doc.replace(b"daily", b"Daily"),  # a value the reader corrects
        doc.replace(b"</urlset>", b"</urlset><!-- after -->"),
        doc.replace(b"<priority>0.3</priority>", b"<priority>0.3</priority><x>1</x>"),
        doc.replace(b"example.com:8080/b", b"example.com/a?x=1&amp;y=%C3%A9"),  # a duplicate
    ):
        batches, in_core = read_batches(other)
        assert in_core >= 4, other  # after a piece lxml read, its origin is learnt once more
        assert sum(b.num_rows for b in batches) == 7
        _same(other)
    one = ReadLimits(max_entries=1)
    assert _rows(read_arrow(doc, limits=one)) == _expected(doc, one)


def test_new_origins_are_judged_without_handing_entries_back() -> None:
    """The first entry on each origin: its host judged by the reader's sink (a development
    host reported at its line, once) while the core still reads the entry into columns."""
    hosts = ("https://example.com", "http://localhost:8000", "https://example.org:8443")
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        + "".join(f"<url><loc>{hosts[i % 7 % 3]}/p{i}</loc></url>\n" for i in range(40))
        + "</urlset>\n"
    ).encode()
    spec = RenderSpec("arrow", "")
    lane = SitemapReader("doc", render=spec)
    usual = SitemapReader("doc")
    lane_issues = [e for e in lane.feed(doc) + lane.close() if type(e) is Issue]
    usual_issues = [e for e in usual.feed(doc) + usual.close() if type(e) is Issue]
    assert [(i.code, i.line) for i in lane_issues] == [("dev-host", 4)]
    assert lane_issues == usual_issues
    assert spec.rendered == 40
    batches, in_core = read_batches(doc)
    assert in_core == 40 and len(batches) == 1
    _same(doc)


@pytest.mark.parametrize("odd_every", [7, 40, 400])
def test_values_between_core_records_in_document_order(odd_every: int) -> None:
    """Entries the reader gives (a value it corrects: a lastmod with a lower-case 't', which
    it reads again in upper case) among the core's: put in place by slices when they come in
    a few stretches, by one take when in many; the same rows."""
    records = [
        f"<url><loc>https://example.com/{i}</loc><lastmod>"
        f"{'2024-05-06t10:00:00z' if i % odd_every == 3 else '2024-05-06'}</lastmod></url>\n"
        for i in range(1200)
    ]
    doc = f'<urlset xmlns="{NS}">\n{"".join(records)}</urlset>\n'.encode()
    batches, in_core = read_batches(doc)
    stretches = len(range(3, 1200, odd_every))
    assert in_core == 1200 - stretches
    # slices: each stretch of values and each stretch of core records is one batch
    assert len(batches) == (2 * stretches + 1 if stretches <= SLICED_STRETCHES else 1)
    _same(doc)
    _same(gzip.compress(doc))


def test_sitemap_column_and_paths(tmp_path: Path) -> None:
    doc = f'<urlset xmlns="{NS}"><url><loc>https://e.com/</loc></url></urlset>'.encode()
    path = tmp_path / "s.xml.gz"
    path.write_bytes(gzip.compress(doc))
    table = read_arrow(path, sitemap="https://e.com/s.xml.gz")
    assert table.column("sitemap").to_pylist() == ["https://e.com/s.xml.gz"]
    assert table.column("loc").to_pylist() == ["https://e.com/"]


def test_corpus_reads_the_same(shared: Path) -> None:
    files = sorted((shared / "corpus/realworld").iterdir())
    plain = 0
    for path in files:
        if path.name == "MANIFEST.tsv" or not path.is_file():
            continue
        data = path.read_bytes()
        table = read_arrow(path)
        assert _rows(table) == _expected(data), path.name
        plain += read_batches(data)[1] > 0
    assert plain > 0  # some real sitemaps have canonical records


def test_plain_images_are_read_into_the_extensions_column_by_the_core() -> None:
    """An image sitemap's entries keep their images (the extensions column, as ``urlset
    read`` writes them), read into columns by the core, not one entry at a time."""
    image = "http://www.google.com/schemas/sitemap-image/1.1"
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{image}">\n'
        + "".join(
            f"<url><loc>https://example.com/p/{i}</loc><image:image><image:loc>"
            f"https://example.com/{i}.jpg?a=1&amp;b=2</image:loc><image:caption>Caf\u00e9 "
            f"&quot;{i}&quot;</image:caption></image:image></url>\n"
            for i in range(20)
        )
        + "<url><loc>https://example.com/plain</loc></url>\n</urlset>\n"
    ).encode()
    assert read_batches(doc)[1] >= 19  # in the core: all but the first on its origin
    _same(doc)
    texts = read_arrow(doc).column("extensions").to_pylist()
    assert (
        texts[3]
        == '{"images":[{"loc":"https://example.com/3.jpg?a=1&b=2","caption":"Caf\u00e9 \\"3\\""}]}'
    )
    assert texts[-1] is None


_FRESH = """
import gc, gzip, sys, threading
{before}
from urlset.reading import arrow
from urlset.reading.arrow import read_arrow
arrow.free_core_from = lambda: None  # a core free, whatever the machine's load
beside = arrow._import_pyarrow_beside
started = []
arrow._import_pyarrow_beside = lambda free: started.append(beside(free)) or started[-1]
doc = gzip.compress(
    b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    + b"".join(b"<url><loc>https://e.com/%d</loc></url>" % i for i in range(3000))
    + b"</urlset>"
)
failed = []
threading.excepthook = lambda args: failed.append(args.exc_type)
try:
    table = read_arrow(doc)
except ImportError as exc:
    print("ImportError", exc)
else:
    print(type(table).__module__, type(table).__name__, table.num_rows)
print("pandas" in sys.modules, failed, threading.active_count())
print([type(thread).__name__ for thread in started])
print(gc.isenabled())
"""


@pytest.mark.parametrize(
    ("before", "said"),
    [
        ("", ["pyarrow.lib Table 3000", "False [] 1", "['Thread']", "True"]),
        # the collector, off while pyarrow is imported, is left as the caller had it
        ("gc.disable()", ["pyarrow.lib Table 3000", "False [] 1", "['Thread']", "False"]),
        # pyarrow missing: its thread says nothing; the caller's import raises
        (
            "class No:\n"
            "    def find_spec(self, name, path=None, target=None):\n"
            "        if name == 'pyarrow': raise ImportError('no pyarrow here')\n"
            "sys.meta_path.insert(0, No())",
            ["ImportError no pyarrow here", "False [] 1", "['Thread']", "True"],
        ),
    ],
)
def test_pyarrow_is_imported_beside_the_read(before: str, said: list[str]) -> None:
    """A fresh process's first read_arrow imports pyarrow on a thread of its own while the
    core reads, given a free core (the import is as long as reading a few hundred thousand
    entries): a Table all the same, no pandas, no thread left over, the collector as it
    was; without pyarrow, the caller's ImportError and nothing from the thread."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _FRESH.format(before=before)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.splitlines() == said, done.stderr


def test_read_arrow_looks_at_the_machine_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The import's thread and the read's own (the gzip inflated ahead) follow one look taken
    before either runs: a look the read took after the import's thread started counted that
    thread as another program's load, and read inline."""
    from urlset.reading import arrow, sniff

    looks: list[str] = []

    def look(where: str) -> Callable[[], int | None]:
        return lambda: looks.append(where) or None

    monkeypatch.setattr(arrow, "free_core_from", look("read_arrow"))
    monkeypatch.setattr(sniff, "free_core_from", look("gzip"))
    urls = b"".join(b"<url><loc>https://e.com/%d</loc></url>" % i for i in range(30_000))
    doc = b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">' + urls + b"</urlset>"
    for data in (gzip.compress(doc), doc):
        looks.clear()
        assert read_arrow(data).num_rows == 30_000
        assert looks == ["read_arrow"]


def test_column_views_are_the_columns_without_a_copy() -> None:
    """``column_views`` hands over the core's own buffers (read-only, alive as long as a
    view of them is): byte for byte what ``columns`` copies into bytes, nulls included."""
    from urlset._core import RecordRenderer, loc_hashes

    doc = (
        "".join(
            f"<url><loc>https://e.com/{i}?a&amp;b</loc>"
            + (f"<lastmod>2024-01-0{i % 9 + 1}T10:00:00+02:00</lastmod>" if i % 3 else "")
            + ("<changefreq>daily</changefreq><priority>0.3</priority>" if i % 2 else "")
            + "</url>\n"
            for i in range(40)
        )
    ).encode()

    def taken(views: bool) -> Any:
        renderer = RecordRenderer("arrow", "", 4096)
        renderer.know("https://e.com/")  # judged by the sink: the run does not stop there
        assert renderer.render(doc, 0, len(doc), 1, 1000)[2] == 40
        return renderer.column_views() if views else renderer.columns()

    copied, views = taken(False), taken(True)
    assert views[0] == copied[0] == 40
    flat = []
    for (validity, nulls), first, second in views[1:]:
        flat += [validity, first, second]
        assert (validity is None) == (nulls == 0)
    *buffers, hashes = copied[1:]  # the bytes copy ends with the locs' hashes (check's)
    expected = [b for (validity, _), first, second in buffers for b in (validity, first, second)]
    assert [None if b is None else bytes(memoryview(b)) for b in flat] == expected
    assert hashes == loc_hashes([f"https://e.com/{i}?a&b" for i in range(40)])
    assert any(b is not None for b in flat[::3])  # some column has nulls
    held = memoryview(views[1][2])
    assert held.readonly
    with pytest.raises(TypeError):
        held[0] = 0
    del views, flat
    assert held.tobytes() == copied[1][2]  # the view keeps its buffer


@pytest.mark.parametrize("odd", ["\u00a0", '"'])
def test_a_reader_of_the_columns_alone_skips_checks_judgement_of_made_uris(odd: str) -> None:
    """``read_arrow``'s renderer (``judge_locs=False``) gives the same columns as check's
    without judging each loc made a URI for check's ``plain_records`` (``odd_made``): that
    judgement was a fifth of an IRI sitemap's render in ``read_arrow``."""
    from urlset._core import RecordRenderer

    doc = "".join(f"<url><loc>https://e.com/é{odd}/{i}</loc></url>\n" for i in range(20)).encode()
    taken = {}
    for judge in (True, False):
        renderer = RecordRenderer("arrow", "", 4096, judge_locs=judge)
        renderer.know("https://e.com/")
        assert renderer.render(doc, 0, len(doc), 1, 1000)[2] == 20
        taken[judge] = (renderer.odd_made, renderer.columns())
    assert taken[True][0] and not taken[False][0]
    assert taken[True][1] == taken[False][1]

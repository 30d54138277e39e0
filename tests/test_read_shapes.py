"""Every shape a real sitemap has, read in the render lane: how many entries leave the compiled
core (``RenderSpec.left``, ``rendered.left_core``), and that the output is the same without it.

The shapes are bench/read_shapes.py's (the read benchmarks' matrix): loc spellings (plain, IRI,
``&``, ``'``, ``%``, a 5-digit port, a development host), every lastmod form, each extension,
and a mix, in a urlset (plain and gzipped), a sitemap index and a text sitemap.
"""

from __future__ import annotations

import gzip
from collections.abc import Sequence
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import bench_module
from test_read_support import feed_all, four_ways
from urlset.model import Issue, Url
from urlset.reading.output import RENDERERS, UrlColumns, line_tail
from urlset.reading.reader import SitemapReader
from urlset.reading.rendered import LEFT_REASONS, RenderSpec, left_core, merge_rendered

SHAPES = bench_module("read_shapes")


def _read(data: bytes, fmt: str = "jsonl") -> tuple[RenderSpec, list[object]]:
    spec = RenderSpec(fmt, "}\n" if fmt == "jsonl" else "\n")
    reader = SitemapReader("doc", render=spec)
    events = reader.feed(data) + reader.close()
    return spec, [e for e in events if type(e) is not Issue]


def test_the_counter_names_each_entry_that_left_and_why() -> None:
    """A document of plain entries, a duplicate, a value the reader corrects and an entry with
    a processing instruction: three entries leave, each counted under its reason, per reader
    and in the process's total."""
    plain = "".join(SHAPES.entry("plain", i) for i in range(20))
    odd = (
        SHAPES.entry("plain", 3)  # a duplicate
        + "<url><loc>https://www.example.com/x</loc><priority>0_5</priority></url>\n"
        + "<url><loc>https://www.example.com/y</loc><other:r><?pi x?></other:r></url>\n"
    )
    data = f"<urlset {SHAPES.NAMESPACES}>\n{plain}{odd}</urlset>\n".encode()
    left_core(reset=True)
    spec, values = _read(data)
    assert spec.rendered == 20 and len(values) == 3
    assert spec.left == {"duplicate": 1, "values": 1, "piece": 1}
    assert set(spec.left) <= set(LEFT_REASONS)
    assert left_core(reset=True) == spec.left
    assert left_core() == {}


def _with_duplicate(data: bytes) -> bytes:
    """``data`` (a urlset) with its fourth entry listed again at its end: one entry that
    leaves the core (``duplicate``)."""
    return data.replace(b"</urlset>", SHAPES.entry("mix", 3).encode() + b"</urlset>")


def test_plain_documents_leave_nothing() -> None:
    left_core(reset=True)
    spec, values = _read(SHAPES.urlset("plain", 200), "arrow")
    assert (spec.rendered, values, spec.left, left_core()) == (200, [], {}, {})


@pytest.mark.parametrize("shape", ["iri", "apostrophe", "image", "devhost"])
def test_the_first_entry_on_a_host_stays_in_the_core(shape: str) -> None:
    """The first record on an origin whose loc the core made a URI of, or that has images,
    has its host judged and is rendered (it used to be passed on as a value)."""
    spec, values = _read(gzip.decompress(gzip.compress(SHAPES.urlset(shape, 50))))
    assert (spec.rendered, values, spec.left) == (50, [], {})


def test_a_dev_host_reported_after_a_made_uri_still_leaves_one_entry() -> None:
    """A loc made a URI on a development host: normalized-url then dev-host, as the careful
    lane reports them, so that one entry takes the reader's way (counted)."""
    body = "".join(
        f"<url><loc>https://localhost:3000/caf\u00e9/{i}</loc></url>\n" for i in range(10)
    )
    data = f"<urlset {SHAPES.NAMESPACES}>\n{body}</urlset>\n".encode()
    spec = RenderSpec("jsonl", "}\n")
    reader = SitemapReader("doc", render=spec)
    events = reader.feed(data) + reader.close()
    codes = [e.code for e in events if type(e) is Issue]
    assert codes[:2] == ["normalized-url", "dev-host"]
    assert spec.left == {"new-origin": 1} and spec.rendered == 9


def test_read_verbose_prints_the_counts(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from urlset.cli import main

    path = tmp_path / "mix.xml.gz"
    path.write_bytes(gzip.compress(SHAPES.urlset("mix", 100)))
    result = CliRunner().invoke(main, ["read", str(path), "-q", "--verbose", "-o", "/dev/null"])
    assert result.exit_code == 0, result.output
    line = result.stderr.strip().splitlines()[-1]
    assert line == "urlset read: 100 entries, 100 rendered by the compiled core", line
    path.write_bytes(gzip.compress(_with_duplicate(SHAPES.urlset("mix", 100))))
    result = CliRunner().invoke(main, ["read", str(path), "-q", "--verbose", "-o", "/dev/null"])
    line = result.stderr.strip().splitlines()[-1]
    assert line.startswith("urlset read: 101 entries, 100 rendered"), line
    assert "rendered by the compiled core; through the reader: " in line


# ------------------------------------------------------------------------- the matrix
CONTAINERS = ("xml", "xml.gz", "text", "index")
OUTPUTS = ("jsonl", "csv", "tsv", "arrow")
# what still leaves the core, each with its reason: these cells fail the zero (strict xfail)
_GAPS: dict[str, str] = {}
_CONTAINER_GAPS = {}


def _document(shape: str, container: str, n: int = 40) -> bytes:
    if container == "text":
        return SHAPES.text(shape, n)
    if container == "index":
        return SHAPES.index(shape, n)
    data = SHAPES.urlset(shape, n)
    return gzip.compress(data) if container == "xml.gz" else data


def _cells() -> list[object]:
    cells = []
    for container in CONTAINERS:
        # a text sitemap has no lastmod: the judged shapes are plain there
        judged = SHAPES.JUDGED if container != "text" else ()
        for shape in (*SHAPES.SHAPES, *judged):
            reason = _CONTAINER_GAPS.get(container) or _GAPS.get(shape)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            cells.append(pytest.param(shape, container, id=f"{container}-{shape}", marks=marks))
    return cells


def _cli(path: Path, fmt: str, *, lane: bool, monkeypatch: pytest.MonkeyPatch) -> bytes:
    from click.testing import CliRunner

    from urlset.cli import main, read_run

    with monkeypatch.context() as patch:
        patch.setattr(read_run, "RENDER_LANE", lane)
        result = CliRunner().invoke(main, ["read", str(path), "-f", fmt], catch_exceptions=False)
    return result.stdout_bytes + result.stderr.encode()


@pytest.mark.parametrize(("shape", "container"), _cells())
def test_every_shape_stays_in_the_core(
    shape: str, container: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each shape in each container, to every output: nothing leaves the core (the counter
    is zero), and the output (and standard error) is what the per-URL path writes."""
    from urlset.reading.arrow import read_arrow

    data = _document(shape, container)
    path = tmp_path / f"doc.{container}"
    path.write_bytes(data)
    left_core(reset=True)
    for fmt in OUTPUTS:
        if fmt == "arrow":
            from urlset.reading import arrow

            table = read_arrow(path)
            reader = SitemapReader("v")
            values = [e for e in reader.feed(data) + reader.close() if type(e) is not Issue]
            assert table.to_pylist() == arrow._entries_batch(values).to_pylist()
            continue
        lane = _cli(path, fmt, lane=True, monkeypatch=monkeypatch)
        assert lane == _cli(path, fmt, lane=False, monkeypatch=monkeypatch), fmt
    assert left_core() == {}


_REPORTED = {
    "lenient": b"lenient-lastmod",
    "invalid": b"invalid-lastmod",
    "padded": b"whitespace-in-value",
}


@pytest.mark.parametrize("container", ["xml", "xml.gz", "index"])
@pytest.mark.parametrize("shape", SHAPES.JUDGED)
def test_judged_lastmods_read_as_the_per_url_path_reads_them(
    shape: str, container: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Values outside the protocol's forms (lastmods, whitespace around values): what the
    render lane writes, to every output, is what the per-URL path writes, with the same
    issues, and they stay in the core."""
    path = tmp_path / f"doc.{container}"
    path.write_bytes(_document(shape, container, n=200))
    left_core(reset=True)
    for fmt in ("jsonl", "csv", "tsv"):
        lane = _cli(path, fmt, lane=True, monkeypatch=monkeypatch)
        assert lane == _cli(path, fmt, lane=False, monkeypatch=monkeypatch), fmt
        assert _REPORTED[shape] in lane
    assert left_core() == {}


# ------------------------------------------------------------------ lane equality
def _shaped_document(kinds: list[tuple[str, int]]) -> bytes:
    """A urlset of entries of the given (shape, number) pairs, in order."""
    body = "".join(SHAPES.entry(kind, i) for kind, i in kinds)
    return f"<urlset {SHAPES.NAMESPACES}>\n{body}</urlset>\n".encode()


_entries = st.lists(
    st.tuples(st.sampled_from((*SHAPES.KINDS, *SHAPES.JUDGED)), st.integers(0, 10**6)),
    min_size=1,
    max_size=25,
)


@settings(max_examples=60, deadline=None)
@given(_entries, st.integers(1, 400))
def test_compiled_and_careful_lanes_agree_on_every_shape(
    kinds: list[tuple[str, int]], chunk: int
) -> None:
    """The compiled lane and the careful lane, each whole and in chunks, read any mix of the
    shapes alike (entries, issues with their places)."""
    four_ways(_shaped_document(kinds), chunk)


# ------------------------------------------------- elements of other namespaces
# The family, enumerated from what the careful lane does with an element it does not type
# (xml_elements: kept as a RawElement, serialised on its own; reported once per tag when it
# is in the protocol's namespace or at the urlset's level): each place such an element
# stands, each thing its markup may hold (attributes of each quoting and prefix, nested
# children of the same, another and the default namespace, namespaces declared on it and
# redeclared, CDATA, comments, entities, empty forms, non-ASCII text), and the neighbours
# (typed extensions before and after it). 0: it stays in the core (no entry leaves); 1: the
# first entry with it leaves (the reader reports it, once), the others stay; None: lxml's.
FOREIGN_NS = 'xmlns:o2="urn:o2" xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"'
FOREIGN = {
    "<other:r>3</other:r>": 0,
    '<other:r a=\'x"y\' b="1&amp;&lt;&gt;2">3</other:r>': 0,
    "<other:r><other:x>1</other:x> t </other:r>": 0,
    "<other:r><o2:x>1</o2:x></other:r>": 0,
    "<other:r><x>in the default namespace</x></other:r>": 0,
    '<other:r other:a="1" o2:b="2" xml:lang="en"/>': 0,
    "<other:r></other:r>": 0,
    "<other:r>a&gt;b>c'\"\u00e9\u20ac\U00010000\n\tz</other:r>": 0,
    '<x:r xmlns:x="urn:x" xmlns:y="urn:y">own declarations, one unused</x:r>': 0,
    '<r xmlns="urn:x"><s>default namespace redeclared</s></r>': 0,
    '<r xmlns="urn:x"><s xmlns="urn:y"><other:t/></s></r>': 0,
    '<other:r xmlns:other="urn:redeclared">1</other:r>': 0,
    "<other:r><![CDATA[a<b>]]]]><![CDATA[>c]]></other:r>": 0,
    "<other:r>a<!-- c -->b</other:r><other:r><!-- only --></other:r>": 0,
    '<other:r\n  a = "x\ty\nz"\n>1</other:r >': 0,
    "<other:r><other:a><other:b><other:c>deep</other:c></other:b></other:a></other:r>": 0,
    # the simplest form, `<p:name>text</p:name>`, is written without the parse
    # (core/src/read/raw.rs `simple_raw`): each entity, quotes, two in a row, a close that
    # is not its own
    "<other:r>a&amp;b&lt;c&gt;d&quot;e&apos;f</other:r><o2:s>2</o2:s>": 0,
    # its text copied as written when it holds no reference and no '>' (escaped for JSON
    # only), else written again; the names of more elements than the core keeps (16)
    '<other:r>\ta "q" \\\\ \u00e9\n</other:r><other:r>a>b</other:r><o2:s></o2:s>': 0,
    "".join(f"<other:n{i % 20}>{i}</other:n{i % 20}>" for i in range(45)): 0,
    "<other:r>1</other:rr>": None,
    "<zz:r>a prefix nothing declares</zz:r>": None,
    "<xml:r>1</xml:r>": None,
    "<image:image><image:loc>https://www.example.com/i.jpg</image:loc></image:image>"
    "<other:r>after an image</other:r>": 0,
    "<other:r>before an image</other:r>"
    "<image:image><image:loc>https://www.example.com/i.jpg</image:loc></image:image>": 0,
    '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de"/>'
    "<other:r>after a link</other:r>": 0,
    # in the protocol's namespace (prefixed or not): reported once, then the core's
    "<sm:foo>prefixed, the protocol's namespace</sm:foo>": 1,
    "<foo>the protocol's <b>namespace</b></foo>": 1,
    # character references, read as their characters (PHP and WordPress write them)
    "<other:r>&#65;&#8217;&#x26;</other:r><o2:s>it&#039;s</o2:s>": 0,
    # a typed extension's namespace with a name it does not type, a reference to a control
    # character, a processing instruction...: lxml's
    "<image:foo>1</image:foo>": None,
    "<other:r>&#9;</other:r>": None,
    "<other:r><?pi x?></other:r>": None,
    '<other:r xmlns="">1</other:r>': None,
    "<other:r>\r\n</other:r>": None,
    "<other:r><![CDATA[]]></other:r>": None,
}


def _foreign_document(fragments: list[str], top: bool = False) -> bytes:
    """A urlset whose entries hold the given elements of other namespaces (``top``: each
    also before its entry, at the urlset's level)."""
    body = "".join(
        (fragment if top else "")
        + f"<url><loc>{SHAPES.loc('plain', i)}</loc><lastmod>2024-05-06</lastmod>"
        + f"{fragment}</url>\n"
        for i, fragment in enumerate(fragments)
    )
    return f"<urlset {SHAPES.NAMESPACES} {FOREIGN_NS}>\n{body}</urlset>\n".encode()


@pytest.mark.parametrize("fragment", list(FOREIGN))
def test_elements_of_other_namespaces_stay_in_the_core(fragment: str) -> None:
    """Each member of the family is read alike by the compiled lane and the careful lane,
    whole and chunked (entries, raw XML, issues and places), rendered as the values give it,
    and kept in the core when it is plain (once reported, where the reader reports it)."""
    for top in (False, True):
        data = _foreign_document([fragment] * 3, top)
        four_ways(data, 11)
        careful = [e for e in feed_all(data, [len(data)], fast=False)[0] if type(e) is Url]
        assert _render_lane_output(data, len(data)) == _jsonl(careful)
        assert _render_lane_output(data, 13) == _jsonl(careful)
        # text with Arrow columns beside it (a fetch's store): both read the same records
        beside = RenderSpec("jsonl", "}\n", columns=True)
        reader = SitemapReader("doc", render=beside)
        reader.feed(data)
        reader.close()
        assert beside.columns() is not None or not beside.rendered
    leaves = FOREIGN[fragment]
    for top in (False, True):  # at the urlset's level it is reported once (unknown-element)
        spec, _ = _read(_foreign_document([fragment] * 3, top))
        if leaves is None:
            assert spec.left
        else:
            assert spec.left == ({"piece": 1} if leaves or top else {}), top


@pytest.mark.parametrize(
    "fragment", ["<odd:r>1</odd:r>", '<odd:r a="1">1</odd:r>', "<other:r><odd:s/></other:r>"]
)
def test_a_prefix_the_root_binds_to_an_odd_uri_is_written_as_lxml_writes_it(
    fragment: str,
) -> None:
    """An element of a prefix the root declares carries the declaration in its own start
    tag: a URI lxml writes otherwise (its '&' escaped) is left to lxml, alike either way."""
    entries = "".join(
        f"<url><loc>{SHAPES.loc('plain', i)}</loc>{fragment}</url>\n" for i in range(3)
    )
    root = f'<urlset {SHAPES.NAMESPACES} xmlns:odd="&amp;//odd.test/ns">'
    data = f"{root}\n{entries}</urlset>\n".encode()
    four_ways(data, 11)
    careful = [e for e in feed_all(data, [len(data)], fast=False)[0] if type(e) is Url]
    assert "&amp;//odd.test" in careful[0].extensions[0].xml
    assert _render_lane_output(data, len(data)) == _jsonl(careful)


_names = st.sampled_from(["other:r", "other:s", "o2:t", "x", "sm:u", "image:v", "zz:w"])
_texts = st.sampled_from(
    [
        *("1", " t ", "a&amp;b", "&lt;&gt;", "a>b", '\t"\\', "\u00e9"),
        *("<![CDATA[c<d]]>", "<!-- c -->", "\n", ""),
    ]
)
_attributes = st.sampled_from(
    [
        "",
        ' a="1"',
        " b='x\"y'",
        ' other:a="2"',
        ' xml:lang="en"',
        ' xmlns:q="urn:q"',
        ' xmlns="urn:d"',
    ]
)


@st.composite
def _foreign_element(draw: st.DrawFn, depth: int = 0) -> str:
    name = draw(_names)
    attributes = draw(_attributes)
    parts = draw(st.lists(_texts, max_size=3))
    if depth < 2:
        parts += draw(st.lists(_foreign_element(depth + 1), max_size=2))
    parts = draw(st.permutations(parts))
    return f"<{name}{attributes}>{''.join(parts)}</{name}>"


@settings(max_examples=80, deadline=None)
@given(st.lists(_foreign_element(), min_size=1, max_size=6), st.integers(1, 300), st.booleans())
def test_any_element_of_another_namespace_reads_alike(
    fragments: list[str], chunk: int, top: bool
) -> None:
    """Generated elements (names of each namespace, attributes, declarations, text, CDATA,
    comments, nesting) after an entry's values (``top``: and before the entry, at the
    urlset's level): the lanes agree, whole and chunked, and the render lane writes what the
    careful lane's values give."""
    data = _foreign_document(fragments, top)
    four_ways(data, chunk)
    careful = [e for e in feed_all(data, [len(data)], fast=False)[0] if type(e) is Url]
    assert _render_lane_output(data, chunk) == _jsonl(careful)


def _render_lane_output(data: bytes, chunk: int) -> bytes:
    """The JSON Lines ``urlset read`` writes through the render lane, fed in chunks."""
    spec = RenderSpec("jsonl", line_tail("jsonl", None))
    reader = SitemapReader("doc", render=spec)
    urls: list[Url] = []
    for at in range(0, len(data), chunk):
        urls += [e for e in reader.feed(data[at : at + chunk]) if type(e) is Url]
    urls += [e for e in reader.close() if type(e) is Url]
    return b"".join(merge_rendered(urls, spec.take(), _jsonl))


def _jsonl(urls: Sequence[Url]) -> bytes:
    return RENDERERS["jsonl"](UrlColumns.from_urls(urls), None).encode()


@settings(max_examples=60, deadline=None)
@given(_entries, st.integers(1, 400))
def test_the_render_lane_writes_what_the_values_give(
    kinds: list[tuple[str, int]], chunk: int
) -> None:
    """Rendered by the core (whole or chunked) or from the careful lane's values: the same
    output for any mix of the shapes."""
    data = _shaped_document(kinds)
    careful = [e for e in feed_all(data, [len(data)], fast=False)[0] if type(e) is Url]
    expected = _jsonl(careful)
    assert _render_lane_output(data, len(data)) == expected
    assert _render_lane_output(data, chunk) == expected


@pytest.mark.parametrize(
    ("data", "rows"),
    [(SHAPES.urlset("mix", 3000), 3000), (_with_duplicate(SHAPES.urlset("mix", 300)), 301)],
)
def test_read_arrow_reads_every_row(data: bytes, rows: int) -> None:
    """Every entry of the mix is a row of the table (a duplicate too)."""
    from urlset.reading.arrow import read_arrow

    assert read_arrow(data).num_rows == rows


def test_read_arrow_imports_no_pandas(tmp_path: Path) -> None:
    """pyarrow's conversion of Python values imports pandas (a second or more; pyarrow
    itself loads numpy): read_arrow builds every column from buffers, on every shape (the
    reader's values too)."""
    import subprocess
    import sys

    path = tmp_path / "mix.xml"
    path.write_bytes(_with_duplicate(SHAPES.urlset("mix", 200)))  # a value among the records
    index = tmp_path / "index.xml"
    index.write_bytes(SHAPES.index("mix", 20))
    code = (
        "import sys\nfrom urlset.reading.arrow import read_arrow\n"
        f"read_arrow({str(path)!r}, sitemap='https://a.test/s.xml')\nread_arrow({str(index)!r})\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pandas'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout.strip() == "[]", done.stdout


def test_fetch_batches_import_no_pandas(tmp_path: Path) -> None:
    """``urlset fetch --format parquet``'s batches (the core's columns and the reader's
    values, each with its sitemap) are made from buffers too: no ``pa.repeat`` or
    ``from_pydict``, which import pandas; and they hold what the values give."""
    import subprocess
    import sys

    from urlset.reading.arrow import fetch_batches, fetch_values_batch

    path = tmp_path / "mix.xml"
    path.write_bytes(_with_duplicate(SHAPES.urlset("mix", 200)))
    code = (
        "import sys\nfrom urlset.model import Url\nfrom urlset.reading.arrow import fetch_batches\n"
        "from urlset.reading.reader import SitemapReader\n"
        "from urlset.reading.rendered import RenderSpec\n"
        "spec = RenderSpec('arrow', '')\nreader = SitemapReader('doc', render=spec)\n"
        f"data = open({str(path)!r}, 'rb').read()\n"
        "urls = [e for e in reader.feed(data) + reader.close() if type(e) is Url]\n"
        "batches = fetch_batches(urls, spec, 'https://a.test/s.xml')\n"
        "print(sum(b.num_rows for b in batches), len(urls))\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'pandas'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    counts, pandas = done.stdout.strip().splitlines()
    assert pandas == "[]", done.stdout
    assert counts.split()[0] == "201" and counts.split()[1] != "0", counts  # both kinds
    spec = RenderSpec("arrow", "")
    reader = SitemapReader("doc", render=spec)
    data = path.read_bytes()
    urls = [e for e in reader.feed(data) + reader.close() if type(e) is Url]
    rows = [r for b in fetch_batches(urls, spec, "https://a.test/s.xml") for r in b.to_pylist()]
    careful = [e for e in SitemapReader("v").feed(data) if type(e) is Url]
    expected = fetch_values_batch(UrlColumns.from_urls(careful), "https://a.test/s.xml")
    assert rows == expected.to_pylist()
    assert (
        fetch_values_batch(UrlColumns.from_urls(careful[:3]), None).to_pylist()[0]["sitemap"]
        is None
    )


def test_locs_made_uris_past_the_listed_issues_are_counted_alike() -> None:
    """Past the first 1,000 locs made URIs, the core gives no texts (the reader only counts
    them): the render lane's issues, whole or chunked, are still the careful lane's, and
    its output the values' (a file of IRIs made two strings per entry to drop them)."""
    data = SHAPES.urlset("iri", 1_300)
    careful = feed_all(data, [len(data)], fast=False)
    for chunk in (len(data), 7_001):
        spec = RenderSpec("jsonl", line_tail("jsonl", None))
        reader = SitemapReader("doc", render=spec)
        events: list[object] = []
        for at in range(0, len(data), chunk):
            events += reader.feed(data[at : at + chunk])
        events += reader.close()
        issues = sorted(
            (i for i in events if type(i) is Issue),
            key=lambda i: (i.line, i.column, i.code, i.message),  # type: ignore[attr-defined]
        )
        assert issues == careful[1]
        assert sum(i.code == "normalized-url" for i in issues) == 1_000
        urls = [e for e in events if type(e) is Url]
        assert b"".join(merge_rendered(urls, spec.take(), _jsonl)) == _jsonl(careful[0])  # type: ignore[arg-type]


def test_the_renderer_leaves_out_texts_past_the_listed_conversions() -> None:
    from urlset._core import RecordRenderer

    body = b"".join(b"<url><loc>https://a.test/caf\xc3\xa9/%d</loc></url>\n" % i for i in range(4))
    renderer = RecordRenderer("jsonl", "}\n", 4096)
    renderer.know("https://a.test/")
    done = renderer.render(body, 0, len(body), 1, 10, 2)
    assert done[2] == 4
    assert [(c[0], c[1], c[2]) for c in done[4]] == [
        (0, 1, "https://a.test/café/0"),
        (1, 2, "https://a.test/café/1"),
    ]
    assert done[4][0][3] == "https://a.test/caf%C3%A9/0"
    assert done[6] == 2  # the two past the listed ones, only counted


def test_the_renderer_lists_no_more_notes_than_the_sink_has_room_for() -> None:
    """Past a code's cap the sink only counts: the renderer then makes no tuple or text for
    those notes, only counts them (test_read_render_lane's judged entries hold the issues
    across the cap equal to the per-URL path's)."""
    from urlset._core import RecordRenderer

    renderer = RecordRenderer("jsonl", "}\n", 4096)
    renderer.know("https://a.test/")
    renderer.note_room([2, 0, 0, 0, 0, 0], 1)
    for take in range(2):  # the room holds for every take after
        body = b"".join(
            b"<url><loc>https://a.test/%d/%d</loc><lastmod>2024-5-%d</lastmod>"
            b"<priority> 0.%d</priority></url>\n" % (take, i, i + 1, i)
            for i in range(5)
        )
        assert renderer.render(body, 0, len(body), 1, 10, 1000)[2] == 5
        listed, more = renderer.value_notes()
        assert [(n[0], n[3]) for n in listed] == [(0, "2024-5-1"), (1, "2024-5-2")]
        assert more == [3, 0, 0, 0, 0, 0]
        pads, more_pads = renderer.pad_notes()
        assert [(p[0], p[3]) for p in pads] == [(0, "0.0")]
        assert more_pads == [0, 0, 0, 4]


def test_children_out_of_the_schemas_order_are_reported_where_the_careful_lane_reports_them() -> (
    None
):
    """Images whose title comes before their caption (Shopify's and WordPress SEO plugins'
    order), videos and news articles out of order stay in the core, in every lane: each is
    reported (``extension-order``) in the careful lane's words and order, between its loc's
    ``normalized-url`` and its entry's own findings (a news article's before its
    publication's), past the 1,000 listed only counted, in runs read whole and in chunks, the
    object lane too."""
    kinds = ("unordered", "iri", "unordered", "devhost", "unordered", "plain", "image")
    body = "".join(SHAPES.entry(kinds[i % len(kinds)], i) for i in range(3_000))
    body += SHAPES.entry("unordered", 0)  # a duplicate with an image out of order
    data = f"<urlset {SHAPES.NAMESPACES}>\n{body}</urlset>\n".encode()
    careful = SitemapReader("doc", _fast=False)
    expected = [e for e in careful.feed(data) + careful.close() if type(e) is Issue]
    assert sum(i.code == "extension-order" for i in expected) == 1_000
    # one a video or image, two a news article (its own order and its publication's)
    unordered = [i for i in range(3_000) if kinds[i % len(kinds)] == "unordered"]
    late = sum(2 if i % 5 == 4 else 1 for i in unordered) + 1
    assert any(f"extension-order issues not listed ({late} in all)" in i.message for i in expected)
    for chunk in (len(data), 65_537, 7_001):
        for render in (RenderSpec("jsonl", line_tail("jsonl", None)), None):
            reader = SitemapReader("doc", render=render)
            events: list[object] = []
            for at in range(0, len(data), chunk):
                events += reader.feed(data[at : at + chunk])
            events += reader.close()
            assert [e for e in events if type(e) is Issue] == expected, (chunk, render)
    left_core(reset=True)
    _read(data)
    assert left_core() == {"duplicate": 1}  # the duplicate's own finding, as for any entry

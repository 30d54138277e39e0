"""Every shape a real sitemap has, read in the render lane: how many entries leave the compiled
core (``RenderSpec.left``, ``rendered.left_core``), and that the output is the same without it.

The shapes are bench/read_shapes.py's (the read benchmarks' matrix): loc spellings (plain, IRI,
``&``, ``'``, ``%``, a 5-digit port, a development host), every lastmod form, each extension,
and a mix, in a urlset (plain and gzipped), a sitemap index and a text sitemap.
"""

from __future__ import annotations

import gzip
import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from urlset.model import Issue
from urlset.reading.reader import SitemapReader
from urlset.reading.rendered import LEFT_REASONS, RenderSpec, left_core


def _shapes() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "bench" / "read_shapes.py"
    spec = importlib.util.spec_from_file_location("read_shapes", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


SHAPES = _shapes()


def _read(data: bytes, fmt: str = "jsonl") -> tuple[RenderSpec, list[object]]:
    spec = RenderSpec(fmt, "}\n" if fmt == "jsonl" else "\n")
    reader = SitemapReader("doc", render=spec)
    events = reader.feed(data) + reader.close()
    return spec, [e for e in events if type(e) is not Issue]


def test_the_counter_names_each_entry_that_left_and_why() -> None:
    """A document of plain entries, a duplicate, a value the reader corrects and an entry with
    an unknown extension: three entries leave, each counted under its reason, per reader
    and in the process's total."""
    plain = "".join(SHAPES.entry("plain", i) for i in range(20))
    odd = (
        SHAPES.entry("plain", 3)  # a duplicate
        + "<url><loc>https://www.example.com/x</loc><priority>1.5</priority></url>\n"
        + SHAPES.entry("unknown", 99)
    )
    data = f"<urlset {SHAPES.NAMESPACES}>\n{plain}{odd}</urlset>\n".encode()
    left_core(reset=True)
    spec, values = _read(data)
    assert spec.rendered == 20 and len(values) == 3
    assert spec.left == {"duplicate": 1, "values": 1, "piece": 1}
    assert set(spec.left) <= set(LEFT_REASONS)
    assert left_core(reset=True) == spec.left
    assert left_core() == {}


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
    assert line.startswith("urlset read: 100 entries, "), line
    assert "rendered by the compiled core; through the reader: " in line

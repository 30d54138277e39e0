"""The render lane (reading/rendered.py) gives exactly what the usual path gives.

A parse thread reading a document with ``rendered_only`` (canonical records rendered as output
text in the compiled core, the other entries through the Python path at their places) must
give the same output bytes in every text format and the same Parquet rows, the same issues in the same order, the same
refs, format, verdict and URL count as one reading it into Urls and rendering those with the
Python renderers (reading/output.py); asked for ``values`` too (a fetch with ``--report`` or
``--cache``), the same text and rows and, as UrlColumns, the same Urls. Checked on the mixed shapes of bench_read.py
(``&``, ``'``, %-escapes, non-ASCII paths, IDN hosts, ports, long URLs, distinct lastmods),
on documents that make the lane hand entries back (duplicates, development hosts, limits,
comments, extensions), on the real-world corpus, and fed whole and in odd chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

from helpers import mixed_sitemap
from test_read_property import documents
from urlset.fetching.parse_pool import _Parsing
from urlset.limits import ReadLimits
from urlset.reading.arrow import fetch_schema, fetch_values_batch
from urlset.reading.output import RENDERERS, line_tail

FORMATS = tuple(RENDERERS)
# the sitemap column: a comma, a quote and non-ASCII make CSV quote it and JSON escape it
SITEMAPS = ("https://example.com/sitemap.xml", 'https://example.com/a,"b"/caf\u00e9.xml')
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    for i in range(0, len(data), size):
        yield data[i : i + size]


def _parse(
    data: bytes,
    fmt: str,
    rendered_only: bool,
    sitemap: str = SITEMAPS[0],
    size: int = 1 << 30,
    limits: ReadLimits = ReadLimits(),  # noqa: B008
    values: bool = False,
) -> tuple[Any, ...]:
    parsing = _Parsing((fmt, RENDERERS[fmt]), rendered_only, values=values)
    parsing.handle(("o", sitemap, sitemap, limits))
    for chunk in _chunks(data, size):
        if not parsing.handle(("d", chunk)):
            break
    fmt_read, fatal, columns, refs, issues, rendered, _, count = parsing.handle(("c",))
    if isinstance(rendered, list):
        rendered = b"".join(rendered)
    if values:  # made from the core's buffers when asked for
        assert callable(columns) == rendered_only
        columns = columns() if callable(columns) else columns
    assert (columns is None) == (rendered_only and not values)
    assert columns is None or columns.count == count
    in_core = parsing.spec.rendered if parsing.spec is not None else 0
    return fmt_read, fatal, refs, issues, rendered or b"", count, in_core, columns


def _column_values(columns: Any) -> tuple[Any, ...]:
    return (
        columns.locs,
        columns.lastmods,
        columns.changefreqs,
        list(columns.priorities),
        columns.extensions,
    )


def _parquet_rows(
    data: bytes, rendered_only: bool, values: bool = False, **options: Any
) -> list[dict[str, Any]]:
    """The rows `urlset fetch --format parquet` writes for the document, by either path."""
    pa = pytest.importorskip("pyarrow")
    sitemap = options.get("sitemap", SITEMAPS[0])
    parsing = _Parsing(("parquet", None), rendered_only, values=values)
    parsing.handle(("o", sitemap, sitemap, options.get("limits", ReadLimits())))
    for chunk in _chunks(data, options.get("size", 1 << 30)):
        if not parsing.handle(("d", chunk)):
            break
    _, _, columns, _, _, _, batches, count = parsing.handle(("c",))
    if not rendered_only:
        batches = [fetch_values_batch(columns, sitemap)]
    table = pa.Table.from_batches(batches, schema=fetch_schema())
    assert table.num_rows == count
    rows: list[dict[str, Any]] = table.to_pylist()
    return rows


def _same(data: bytes, **options: Any) -> tuple[Any, ...]:
    """Both paths' results for every format, asserted equal; the JSON Lines one returned,
    with the count of entries the core rendered last."""
    rows = _parquet_rows(data, False, **options)
    assert _parquet_rows(data, True, **options) == rows
    assert _parquet_rows(data, True, values=True, **options) == rows
    for fmt in FORMATS:
        usual = _parse(data, fmt, False, **options)
        for lane in (
            _parse(data, fmt, True, **options),
            _parse(data, fmt, True, values=True, **options),
        ):
            assert lane[:4] == usual[:4], fmt
            assert lane[5] == usual[5], fmt
            if lane[4] != usual[4]:
                lines = zip(lane[4].splitlines(), usual[4].splitlines(), strict=False)
                first = next((a, b) for a, b in lines if a != b)
                pytest.fail(f"{fmt}: first differing line {first}")
            if lane[7] is not None:  # asked for values: the Urls the usual path read
                assert _column_values(lane[7]) == _column_values(usual[7]), fmt
    return _parse(data, "jsonl", True, **options)[:7]


def _urlset(*records: str) -> bytes:
    return (HEAD + "".join(records) + "</urlset>\n").encode()


@pytest.mark.parametrize("sitemap", SITEMAPS)
@pytest.mark.parametrize("size", [1 << 30, 65_536, 997])
def test_mixed_shapes(sitemap: str, size: int) -> None:
    data = mixed_sitemap(1200)
    _, fatal, _, issues, rendered, count, in_core = _same(data, sitemap=sitemap, size=size)
    assert not fatal and count == 1200
    assert in_core >= 500  # the plain shapes (half of them): rendered in the core
    assert rendered.count(b"\n") == 1200
    assert issues  # the shapes the reader judges (normalised URLs) are reported


def test_line_tails_are_the_renderers() -> None:
    """line_tail is what the Python renderers end a line with (the core renders with it)."""
    from urlset.model import Url
    from urlset.reading.output import UrlColumns

    columns = UrlColumns.from_urls([Url("https://e.com/a,b")])
    for fmt in FORMATS:
        for sitemap in (*SITEMAPS, None):
            assert RENDERERS[fmt](columns, sitemap).endswith(line_tail(fmt, sitemap))


def test_entries_the_sink_must_see_are_handed_back() -> None:
    """Duplicates (across both paths), development hosts, comments, extensions, a lower-case
    host, entities: each goes the usual way at its place, and the issues say so."""
    plain = "<url><loc>https://example.com/p/{}</loc><lastmod>2024-01-0{}</lastmod></url>\n"
    records = [plain.format(i, 1 + i % 9) for i in range(300)]
    records[50] = plain.format(7, 1)  # a duplicate of a rendered record
    records[60] = "<url><loc>https://EXAMPLE.com/p/61</loc></url>\n"  # judged, normalised
    records[61] = plain.format(61, 2)  # a duplicate of the judged one, rendered path
    records[100] = "<url><loc>http://localhost:8000/dev</loc></url>\n"  # a development host
    records[101] = "<!-- a comment -->\n"
    records[150] = (
        "<url><loc>https://example.com/img</loc><image:image><image:loc>"
        "https://example.com/i.png</image:loc></image:image></url>\n"
    )
    records[200] = "<url><loc>https://example.com/a?x=1&amp;y=&apos;2&apos;</loc></url>\n"
    data = (
        HEAD.replace('0.9">', '0.9" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">')
        + "".join(records)
        + "</urlset>\n"
    ).encode()
    _, fatal, _, issues, rendered, count, in_core = _same(data)
    assert in_core >= 280
    codes = [i.code for i in issues]
    assert not fatal
    assert codes.count("duplicate-loc") == 2
    assert "dev-host" in codes and "normalized-url" in codes
    assert count == 299 and rendered.count(b"\n") == 299
    assert b'"image"' in rendered or b"images" in rendered


def test_a_new_hosts_finding_comes_after_its_first_entrys_own_issues() -> None:
    """The first entry on a development host, with values the reader reports or writes
    padded (hypothesis found ``<changefreq>Daily</changefreq>``): its own issues come first
    and the host's finding after, as the careful lane says them when the sink takes it."""
    for value in (
        "<changefreq>Daily</changefreq>",
        "<lastmod>2024-01-02 10:00</lastmod>",
        "<priority> 0.5 </priority>",
    ):
        data = (
            HEAD
            + "<url><loc>https://example.com/</loc></url>\n"
            + f"<url><loc>http://127.0.0.1:8080/</loc>{value}</url>\n"
            + "</urlset>\n"
        ).encode()
        issues = _same(data)[3]
        codes = [i.code for i in issues]
        assert codes[-1] == "dev-host" and len(codes) == 2, (value, codes)


def test_limits_stop_both_paths_at_the_same_entry() -> None:
    """The protocol's 50,000 reported, then the entry limit: both at the same entry (the
    sink checks its limits from the protocol's count on)."""
    records = [f"<url><loc>https://example.com/{i}</loc></url>\n" for i in range(50_010)]
    limits = ReadLimits(max_entries=50_005)
    _, _, _, issues, rendered, count, _ = _same(_urlset(*records), limits=limits, size=1 << 18)
    assert count == 50_005 and rendered.count(b"\n") == count
    assert [i.code for i in issues] == ["too-many-urls", "entry-limit"]


def test_broken_document_goes_to_the_full_lane_at_the_same_place() -> None:
    records = [f"<url><loc>https://example.com/{i}</loc></url>\n" for i in range(400)]
    records[300] = "<url><loc>https://example.com/x</loc><url>\n"  # not well-formed
    _, _, _, issues, rendered, count, in_core = _same(_urlset(*records), size=2048)
    assert any(i.severity.value == "error" for i in issues)
    assert count >= 300 and rendered.count(b"\n") == count
    assert in_core >= 250


def _corpus() -> list[Path]:
    from conftest import SHARED

    base = SHARED / "corpus/realworld"
    return sorted(p for p in base.glob("*") if p.name != "MANIFEST.tsv") if base.exists() else []


@pytest.mark.skipif(not _corpus(), reason="../shared is absent")
@pytest.mark.parametrize("path", _corpus(), ids=lambda p: p.name)
def test_corpus(path: Path) -> None:
    data = path.read_bytes()
    _same(data)
    _same(data, size=997)


def _made_uris(n: int) -> list[str]:
    """``n`` records whose locs the core makes URIs of (upper-case and IDN hosts, non-ASCII
    paths and queries, ``&amp;``), every 50th a plain loc that is an earlier one's URI (a
    duplicate only once converted)."""
    hosts = ("Example.COM", "b\u00fccher.example", "example.com")
    records = []
    for i in range(n):
        loc = f"https://{hosts[i % 3]}/caf\u00e9/{i}?q=\u00fc&amp;x={i}"
        if i % 50 == 49:  # an earlier record's on a host written example.com or Example.COM
            j = i - 4 if i % 3 == 1 else i - 3
            loc = f"https://example.com/caf%C3%A9/{j}?q=%C3%BC&amp;x={j}"
        records.append(f"<url><loc>{loc}</loc><priority>0.5</priority></url>\n")
    return records


@pytest.mark.parametrize("max_entries", [None, 2_500])
def test_locs_made_uris_render_in_the_core_past_the_issue_cap(max_entries: int | None) -> None:
    """Runs of locs the core made URIs of render in the core, with the usual path's issues in
    its order: 1,000 normalized-url listed and the rest counted, duplicates found on the URI,
    none reported past the entry limit."""
    limits = ReadLimits() if max_entries is None else ReadLimits(max_entries=max_entries)
    data = _urlset(*_made_uris(3000))
    _, _, _, issues, rendered, count, in_core = _same(data, limits=limits, size=65_536)
    assert count == (max_entries or 3000) and rendered.count(b"\n") == count
    assert in_core > count * 9 // 10  # not one entry at a time through Python
    codes = [i.code for i in issues]
    assert codes.count("normalized-url") == 1000
    assert codes.count("duplicate-loc") == count // 50
    summary = next(i for i in issues if i.code == "too-many-errors")
    assert f"({count - count // 50} in all)" in summary.message
    assert ("entry-limit" in codes) == (max_entries is not None)


def _image_records(n: int, prefix: str) -> list[str]:
    """``n`` records, most with plain images whose texts JSON and CSV must escape or quote
    (quotes, a backslash, entities, CDATA, non-ASCII), some on locs the core makes URIs of."""
    texts = (
        'A "quoted" caption, with commas',
        "back\\slash &amp; &lt;tag&gt; caf\u00e9 \u2013 \u65e5\u672c",
        '<![CDATA[ Best <LCD> & LED, "repair" ]]>',
        "Paris, France",
    )
    records = []
    for i in range(n):
        images = "".join(
            f"<{prefix}:image><{prefix}:loc>https://cdn.example.com/{i}/{k}.jpg?w=1&amp;h=2"
            f"</{prefix}:loc>"
            + (f"<{prefix}:caption>{texts[(i + k) % 4]}</{prefix}:caption>" if i % 2 else "")
            + (f"<{prefix}:geo_location>{texts[3]}</{prefix}:geo_location>" if i % 3 else "")
            + (f"<{prefix}:title>{texts[(i + 2) % 4]}</{prefix}:title>" if i % 5 else "")
            + f"</{prefix}:image>\n"
            for k in range(i % 4)
        )
        if i % 50 == 25:  # a text the tokenizer leaves to the extension's reader
            images += (
                f"<{prefix}:image><{prefix}:loc>https://cdn.example.com/{i}.jpg</{prefix}:loc>"
            )
            images += f"<{prefix}:title>\ue000</{prefix}:title></{prefix}:image>"  # private use
        loc = (
            f"https://example.com/p/{i}?a=1&amp;b=2"
            if i % 7
            else f"https://example.com/caf\u00e9/{i}"
        )
        records.append(
            f"<url><loc>{loc}</loc><lastmod>2024-03-0{1 + i % 9}</lastmod>{images}</url>\n"
        )
    return records


@pytest.mark.parametrize("prefix", ["image", "img"])
@pytest.mark.parametrize("size", [1 << 30, 4096])
def test_records_with_plain_images_render_in_the_core(prefix: str, size: int) -> None:
    """Records with plain images stay in the rendered runs (their ``images`` JSON, the CSV
    and TSV extensions cell, the Parquet extensions column) in every format, byte for byte
    what the usual path writes; beside columns (a snapshot store, ``--cache``) too, read back
    as the same Image values."""
    head = HEAD.replace(
        '0.9">', f'0.9" xmlns:{prefix}="http://www.google.com/schemas/sitemap-image/1.1">'
    )
    data = (head + "".join(_image_records(400, prefix)) + "</urlset>\n").encode()
    for sitemap in SITEMAPS:
        _, fatal, _, issues, rendered, count, in_core = _same(data, sitemap=sitemap, size=size)
        assert not fatal and count == 400 and rendered.count(b"\n") == 400
        # all but the 8 whose images the tokenizer left (the first's origin is judged in
        # the lane, and it is rendered too)
        assert in_core == 400 - 8
        assert rendered.count(b'"images":[') == 300
        assert [i.code for i in issues] == ["normalized-url"] * 58
    parsing = _Parsing(("csv", RENDERERS["csv"]), True, values=True)
    parsing.handle(("o", SITEMAPS[0], SITEMAPS[0], ReadLimits()))
    parsing.handle(("d", data))
    columns = parsing.handle(("c",))[2]()
    assert parsing.spec is not None and parsing.spec.rendered == 400 - 8
    assert sum(map(bool, columns.extensions)) == 300


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=documents())
def test_drawn_documents_render_as_the_usual_path_writes(data: bytes) -> None:
    """Drawn urlsets (images with drawn texts and locs, in and out of the schema's order,
    odd values, comments, other extensions): the lane's output, issues and counts are the
    usual path's in every text format and Parquet."""
    _same(data)
    _same(data, size=61)

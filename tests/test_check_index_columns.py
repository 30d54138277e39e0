"""check reads a sitemap index through the render lane, as ``urlset read`` does: its
canonical entries come as runs of the core's columns, judged on the columns
(``index_refs.judge_ref_records``) and kept as them (``IndexRefs``), the others as the
reader's values. Every finding, count, newest lastmod, ref and ref line must be what the
per-value judgement of the same index gives."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from test_read_property import index_documents, mutated
from urlset.checking import document
from urlset.checking.document import CheckOptions, check_document
from urlset.checking.index_refs import IndexRefs, ref_locs, without_lastmod
from urlset.model import SitemapRef
from urlset.reading.rendered import RenderSpec

NOW = datetime(2026, 1, 1, tzinfo=UTC)
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HOSTS = [
    "https://www.acme.com",
    "https://www.acme.com",
    "https://www.acme.com",
    "https://shop.acme.com",
    "http://localhost:8000",
    "https://www.example.org",
    "https://acme.com",
    "https://user@acme.com",
]
LASTMODS = [
    None,
    "2024-05-01",
    "2024-05-02",
    "2025-12-31",
    "2026-01-01",
    "2026-01-02",
    "2030-01-01",
    "2024",
    "2024-05",
    "2024-05-01T10:00:00Z",
    "2024-05-01T10:00:00+02:00",
    "2024-05-01T10:00:00.5-07:30",
    "2025-12-31T23:30:00-05:00",
    "2031-01-01T00:00:00+01:00",
    "yesterday",
    " 2024-05-03 ",
]
ODD = [
    "<sitemap><loc> {loc} </loc></sitemap>",
    "<sitemap><lastmod>2024-05-01</lastmod><loc>{loc}</loc></sitemap>",
    "<sitemap><loc>{loc}</loc><changefreq>daily</changefreq></sitemap>",
    "<sitemap><loc>{loc}?a=1&amp;b=2</loc></sitemap>",
    "<sitemap><loc>{loc}é</loc></sitemap>",
    "<sitemap><loc>/relative/{n}.xml</loc></sitemap>",
    "<!-- c --><sitemap><loc>{loc}</loc></sitemap>",
]


@st.composite
def indexes(draw: st.DrawFn) -> bytes:
    """An index of canonical entries on a few hosts with every kind of lastmod, some
    listed twice, some written so that the reader judges them (its values)."""
    entries = []
    for n in range(draw(st.integers(0, 80))):
        host = draw(st.sampled_from(HOSTS))
        loc = f"{host}/s/{draw(st.integers(0, 60 if n % 3 else 10**6))}.xml"
        if draw(st.integers(0, 9)) == 0:
            entries.append(draw(st.sampled_from(ODD)).format(loc=loc, n=n))
            continue
        lastmod = draw(st.sampled_from(LASTMODS))
        tail = "" if lastmod is None else f"<lastmod>{lastmod}</lastmod>"
        entries.append(f"<sitemap><loc>{loc}</loc>{tail}</sitemap>")
    sep = draw(st.sampled_from(["\n", "\r\n", "", "\n  "]))
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">'
    return (head + sep + sep.join(entries) + sep + "</sitemapindex>\n").encode()


def _values_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """check as it read an index before: every entry a value (no index in the render lane)."""

    def spec(fmt: str, tail: str, **kw: Any) -> RenderSpec:
        kw["indexes"] = False
        return RenderSpec(fmt, tail, **kw)

    monkeypatch.setattr(document, "RenderSpec", spec)


def _outcome(doc: bytes, options: CheckOptions) -> tuple[object, ...]:
    r = check_document(doc, options, "index.xml")
    refs = list(r.refs)
    return (
        r.issues,
        r.entries,
        r.format,
        repr(r.newest_lastmod),
        repr(refs),
        r.ref_lines,
        r.unlisted,
        ref_locs(r.refs) == [ref.loc for ref in refs],
        without_lastmod(r.refs) == sum(ref.lastmod is None for ref in refs),
    )


def _both(doc: bytes, options: CheckOptions, monkeypatch: pytest.MonkeyPatch) -> None:
    columns = _outcome(doc, options)
    with monkeypatch.context() as m:
        _values_only(m)
        values = _outcome(doc, options)
    assert columns == values


OPTIONS = [
    CheckOptions(now=NOW),
    CheckOptions(now=NOW, base_url="https://www.acme.com/"),
    CheckOptions(base_url="https://www.acme.com/sitemaps/index.xml"),
]


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(indexes() | index_documents() | mutated(), st.sampled_from(OPTIONS))
def test_columns_judge_an_index_as_its_values(
    monkeypatch: pytest.MonkeyPatch, doc: bytes, options: CheckOptions
) -> None:
    _both(doc, options, monkeypatch)


@pytest.mark.parametrize("limit", [1, 3, 40])
def test_an_index_stopped_by_the_entry_limit_is_judged_alike(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    from urlset.limits import ReadLimits

    body = "".join(
        f"<sitemap><loc>https://www.acme.com/s/{i}.xml</loc>"
        f"<lastmod>{LASTMODS[1 + i % (len(LASTMODS) - 1)]}</lastmod></sitemap>\n"
        for i in range(120)
    )
    doc = f'<sitemapindex xmlns="{NS}">\n{body}</sitemapindex>\n'.encode()
    options = CheckOptions(now=NOW, read_limits=ReadLimits(max_entries=limit))
    _both(doc, options, monkeypatch)
    cut = CheckOptions(now=NOW, read_limits=ReadLimits(max_decompressed_bytes=len(doc) // 3))
    _both(doc, cut, monkeypatch)


def test_a_canonical_index_comes_in_columns() -> None:
    """The runs are kept as columns: no value is made until the refs are read as a list."""
    body = "".join(
        f"<sitemap><loc>https://www.acme.com/s/{i}.xml</loc><lastmod>2024-05-0{1 + i % 9}"
        "</lastmod></sitemap>\n"
        for i in range(500)
    )
    doc = f'<sitemapindex xmlns="{NS}">\n{body}</sitemapindex>\n'.encode()
    result = check_document(doc, CheckOptions(now=NOW))
    refs = result.refs
    assert isinstance(refs, IndexRefs) and refs._parts  # runs, not yet values
    assert result.careful_entries < 500
    assert len(refs) == 500 and bool(refs)
    assert ref_locs(refs)[499] == "https://www.acme.com/s/499.xml"
    assert without_lastmod(refs) == 0
    assert refs._parts  # still columns
    assert refs[3] == SitemapRef._trusted("https://www.acme.com/s/3.xml", date(2024, 5, 4))
    assert not refs._parts  # made values, once


@given(
    st.lists(
        st.tuples(st.booleans(), st.integers(1, 5), st.sampled_from(LASTMODS[:13])),
        max_size=12,
    )
)
def test_index_refs_read_as_the_list_of_their_values(parts: list[tuple[bool, int, Any]]) -> None:
    """Values and runs added in any order read back as the list of every entry in order
    (its length, locs, lastmods missing, items, equality), before and after they are made."""
    from urlset.checking.records import records
    from urlset.reading.reader import ReadResult, SitemapReader

    refs = IndexRefs()
    expected: list[SitemapRef] = []
    for k, (as_run, n, lastmod) in enumerate(parts):
        tail = "" if lastmod is None else f"<lastmod>{lastmod}</lastmod>"
        body = "".join(
            f"<sitemap><loc>https://www.acme.com/{k}/{i}.xml</loc>{tail}</sitemap>"
            for i in range(n)
        )
        doc = f'<sitemapindex xmlns="{NS}">{body}</sitemapindex>'.encode()
        spec = RenderSpec("arrow", "", indexes=True)
        values = [e for e in ReadResult(SitemapReader("i", render=spec), [doc]) if e]
        if spec.rendered:
            assert spec.rendered == n and not values
            run = records(spec.columns(), 0, n)
            plain = check_document(doc, CheckOptions(now=NOW)).refs
            expected += list(plain)
            if as_run:
                refs.add_run(run)
                continue
            values = list(plain)
        else:
            expected += values  # type: ignore[arg-type]
        if as_run:
            refs.extend(values)  # type: ignore[arg-type]
        else:
            for value in values:
                refs.append(value)  # type: ignore[arg-type]
    assert len(refs) == len(expected)
    assert bool(refs) is bool(expected)
    assert ref_locs(refs) == [ref.loc for ref in expected]
    assert without_lastmod(refs) == sum(ref.lastmod is None for ref in expected)
    if expected:
        locs = [ref.loc for ref in expected]
        for prefix in ("https://www.acme.com/", "https://www.acme.com/1/", locs[0], "http"):
            assert refs.all_start_with(prefix) == all(loc.startswith(prefix) for loc in locs)
    assert refs == expected and list(refs) == expected
    assert repr(refs) == repr(expected)
    assert ref_locs(refs) == [ref.loc for ref in expected]  # after, from the values

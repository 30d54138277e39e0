"""A root element repeated inside itself (``<urlset><urlset>``, as a large public-health site
publishes): its entries are read, as crawler-commons, ultimate-sitemap-parser, Scrapy and
sitemap.js read them, with one ``nested-root`` error; read and check agree, in every lane and
chunking, with and without a namespace, for urlsets and indexes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from test_read_support import feed_all
from urlset.checking.document import check_document
from urlset.cli import main

NS = ' xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
URL = "<url><loc>https://e.com/{0}</loc></url>"
REF = "<sitemap><loc>https://e.com/s{0}.xml</loc></sitemap>"


def _doc(root: str, entry: str, ns: str, *, before: int, inside: int, after: int) -> bytes:
    n = iter(range(before + inside + after))
    outer = "".join(entry.format(next(n)) for _ in range(before))
    inner = "".join(entry.format(next(n)) for _ in range(inside))
    rest = "".join(entry.format(next(n)) for _ in range(after))
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<{root}{ns}>\n{outer}\n<{root}>\n{inner}\n'
        f"</{root}>\n{rest}\n</{root}>\n"
    ).encode()


SHAPES = [
    pytest.param(root, entry, ns, counts, id=f"{root}-{'ns' if ns else 'bare'}-{counts}")
    for root, entry in (("urlset", URL), ("sitemapindex", REF))
    for ns in (NS, "")
    for counts in ((0, 1, 0), (0, 3, 0), (2, 3, 1))
]


@pytest.mark.parametrize(("root", "entry", "ns", "counts"), SHAPES)
def test_every_entry_is_read_in_every_lane_and_chunking(
    root: str, entry: str, ns: str, counts: tuple[int, int, int]
) -> None:
    before, inside, after = counts
    doc = _doc(root, entry, ns, before=before, inside=inside, after=after)
    results = [
        feed_all(doc, sizes, fast=fast) for fast in (True, False) for sizes in ([len(doc)], [7])
    ]
    entries, issues, fmt, fatal = results[0]
    assert [e.loc for e in entries] == [  # type: ignore[union-attr]
        f"https://e.com/{'s' if root == 'sitemapindex' else ''}{i}"
        + (".xml" if root == "sitemapindex" else "")
        for i in range(before + inside + after)
    ]
    assert fmt == root and not fatal
    assert [i.code for i in issues if i.code == "nested-root"] == ["nested-root"]
    assert "unknown-element" not in {i.code for i in issues}
    assert all(result == results[0] for result in results[1:])


@pytest.mark.parametrize(("root", "entry", "ns", "counts"), SHAPES)
def test_check_counts_the_entries_and_reports_the_wrapper_once(
    root: str, entry: str, ns: str, counts: tuple[int, int, int]
) -> None:
    before, inside, after = counts
    doc = _doc(root, entry, ns, before=before, inside=inside, after=after)
    result = check_document(doc, source="nested.xml")
    codes = [i.code for i in result.issues]
    assert result.entries == before + inside + after
    assert codes.count("nested-root") == 1
    assert "misplaced-element" not in codes and "empty-sitemap" not in codes
    assert ("missing-namespace" in codes) == (ns == "")


def test_the_cli_reads_it_and_says_so(tmp_path: Path) -> None:
    path = tmp_path / "nested.xml"
    path.write_bytes(_doc("urlset", URL, "", before=0, inside=2, after=0))
    result = CliRunner().invoke(main, ["read", str(path)])
    assert "https://e.com/0" in result.output and "https://e.com/1" in result.output
    assert "nested-root" in result.output
    assert result.exit_code == 1  # an error finding, read anyway


def test_a_second_repeat_inside_the_first_is_not_unwrapped() -> None:
    """Only one level is taken apart: <urlset><urlset><urlset> is not a shape sites publish."""
    doc = (
        f"<urlset{NS}><urlset><urlset><url><loc>https://e.com/a</loc></url></urlset></urlset>"
        "</urlset>"
    ).encode()
    entries, issues, _, _ = feed_all(doc, [len(doc)], fast=False)
    assert entries == []
    assert "nested-root" in {i.code for i in issues}

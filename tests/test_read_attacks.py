"""Hostile and careless input to the readers (issue 32): each shape gives findings and keeps
the good entries, the same in both lanes and however the bytes arrive."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from test_fetch_support import LoopbackServer, run_fetch
from test_read_support import feed_all, four_ways
from urlset.cli import main
from urlset.model import Url
from urlset.reading.reader import read_bytes

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
GOOD = ["https://e.com/good1", "https://e.com/good2"]


def _around(body: str, root_attributes: str = "", *, index: bool = False) -> bytes:
    """``body`` between two good entries of a urlset (or an index)."""
    root, entry = ("sitemapindex", "sitemap") if index else ("urlset", "url")
    good = [f"<{entry}><loc>{loc}</loc></{entry}>" for loc in GOOD]
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<{root} xmlns="{NS}" '
        f'xmlns:image="{IMAGE_NS}" xmlns:xhtml="{XHTML_NS}"{root_attributes}>\n'
        f"{good[0]}\n{body}\n{good[1]}\n</{root}>\n"
    ).encode()


# every kind XML forbids (a surrogate, past U+10FFFF, NUL, a C0 control, a non-character),
# decimal and hexadecimal
FORBIDDEN = ["&#xD800;", "&#56320;", "&#x110000;", "&#0;", "&#x1;", "&#31;", "&#xFFFE;", "&#xffff;"]
# every place a reference may stand
PLACES = {
    "loc": "<url><loc>https://e.com/a{r}</loc></url>",
    "lastmod": "<url><loc>https://e.com/x</loc><lastmod>2024-01-01{r}</lastmod></url>",
    "changefreq": "<url><loc>https://e.com/x</loc><changefreq>daily{r}</changefreq></url>",
    "priority": "<url><loc>https://e.com/x</loc><priority>0.5{r}</priority></url>",
    "image loc": "<url><loc>https://e.com/x</loc><image:image><image:loc>https://e.com/i{r}.jpg"
    "</image:loc></image:image></url>",
    "image caption": "<url><loc>https://e.com/x</loc><image:image><image:loc>https://e.com/i.jpg"
    "</image:loc><image:caption>a{r}b</image:caption></image:image></url>",
    "link href": '<url><loc>https://e.com/x</loc><xhtml:link rel="alternate" hreflang="de" '
    'href="https://e.com/de{r}"/></url>',
    "attribute": '<url><loc attr="a{r}">https://e.com/x</loc></url>',
    "xmlns on an entry": '<url xmlns:o="https://e.com/ns{r}"><loc>https://e.com/x</loc></url>',
    "unknown element": "<url><loc>https://e.com/x</loc><o:p xmlns:o='https://o.test/'>{r}</o:p></url>",
}


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("ref", FORBIDDEN)
def test_a_forbidden_character_reference_is_found_and_the_good_entries_kept(
    place: str, ref: str
) -> None:
    entries, issues, fmt, fatal = four_ways(_around(PLACES[place].format(r=ref)))
    assert fmt == "urlset" and not fatal
    locs = [e.loc for e in entries]
    assert locs[0] == GOOD[0] and locs[-1] == GOOD[1]
    found = [i for i in issues if i.code == "invalid-character"]
    assert len(found) == 1 and ref in found[0].message and found[0].line == 4
    if place == "loc":  # the URL would be invented: the entry is skipped
        assert locs == GOOD and any(i.code == "invalid-url" for i in issues)
    for entry in entries:
        assert isinstance(entry, Url)
        assert "\ud800" not in repr(entry)  # no lone surrogate reaches a value


@pytest.mark.parametrize("ref", FORBIDDEN)
def test_a_forbidden_reference_in_the_root_or_an_index_is_found(ref: str) -> None:
    entries, issues, _, fatal = four_ways(_around("", f' xmlns:o="https://e.com/{ref}"'))
    assert [e.loc for e in entries] == GOOD and not fatal
    assert [i.line for i in issues if i.code == "invalid-character"] == [2]
    body = f"<sitemap><loc>https://e.com/s{ref}.xml</loc></sitemap>"
    entries, issues, fmt, _ = four_ways(_around(body, index=True))
    assert fmt == "sitemapindex" and [e.loc for e in entries] == GOOD
    assert any(i.code == "invalid-character" for i in issues)


def test_allowed_character_references_stay_what_they_stand_for() -> None:
    body = "<url><loc>https://e.com/&#x41;&#66;&#x10FFFF;&#xE000;</loc></url>"
    entries, issues, _, _ = four_ways(_around(body))
    assert entries[1].loc == "https://e.com/AB%F4%8F%BF%BF%EE%80%80"
    assert not any(i.code == "invalid-character" for i in issues)


SURROGATE_DOC = _around("<url><loc>https://e.com/a&#xD800;</loc></url>")


def test_check_and_fetch_report_a_surrogate_and_keep_the_good_entries(tmp_path: Path) -> None:
    path = tmp_path / "s.xml"
    path.write_bytes(SURROGATE_DOC)
    result = CliRunner().invoke(main, ["check", "--format", "json", str(path)])
    assert result.exit_code == 1, result.output
    codes = {f["code"] for f in json.loads(result.output)["files"][0]["issues"]}
    assert {"invalid-character", "invalid-url"} <= codes
    read = CliRunner().invoke(main, ["read", str(path)])
    assert read.exit_code == 1 and "Traceback" not in read.output
    with LoopbackServer() as server:
        server.add("/s.xml", SURROGATE_DOC)
        run = run_fetch(server.url("/s.xml"))
        assert run.locs_from(server.url("/s.xml")) == GOOD
        assert "invalid-character" in run.codes(server.url("/s.xml"))


def test_a_document_over_10_mb_fed_at_once_keeps_its_last_entries() -> None:
    """libxml2's push parser refuses a single feed of over 10 MB ("Buffer size limit
    exceeded"): the careful lane feeds it one 64 KiB block a call, however the bytes came."""
    path = "/p" * 990
    n = 5_400  # 2 KB each: 11 MB
    records = "".join(f"<url><loc>https://e.com{path}/{i}</loc></url>\n" for i in range(n))
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{records}</urlset>\n'
    ).encode()
    assert len(doc) > 10_500_000
    for fast in (False, True):
        for sizes in ([len(doc)], [1_000_003]):
            entries, issues, _, _ = feed_all(doc, sizes, fast=fast)
            assert len(entries) == n and entries[-1].loc.endswith(f"/{n - 1}"), (fast, sizes)
            assert not [i for i in issues if i.severity == "error"]
    comment = "<!--" + "c" * 2_000 + "-->\n"
    doc = doc.replace(b"</url>\n", b"</url>\n" + comment.encode(), 1)
    assert len(read_bytes(doc).read_all()) == n

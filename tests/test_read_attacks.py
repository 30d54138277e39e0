"""Hostile and careless input to the readers (issue 32): each shape gives findings and keeps
the good entries, the same in both lanes and however the bytes arrive."""

from __future__ import annotations

import gzip
import json
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from test_fetch_support import LoopbackServer, run_fetch
from test_read_support import feed_all, four_ways
from urlset.cli import main
from urlset.model import Url
from urlset.reading.reader import read_bytes
from urlset.reading.xml_compiled import CompiledLane

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


MIB = 1 << 20
# every shape longer than the cap (ReadLimits.max_value_length + 64 KiB): a stretch without
# '>' (comment, tag, attribute, value, loc), and sections that hold '>' (comment, CDATA, PI)
OVERLONG = {
    "comment": b"<!--" + b"x" * (2 * MIB) + b"-->",
    "comment in an entry": b"<url><loc>https://e.com/c</loc><!--" + b"x" * (2 * MIB) + b"--></url>",
    "tag": b"<url><loc>https://e.com/c</loc><x" + b" " * (2 * MIB) + b"/></url>",
    "attribute": b'<url><loc>https://e.com/c</loc><x a="' + b"y" * (2 * MIB) + b'"/></url>',
    "value": b"<url><loc>https://e.com/c</loc><x>" + b"y" * (2 * MIB) + b"</x></url>",
    "loc": b"<url><loc>https://e.com/" + b"y" * (2 * MIB) + b"</loc></url>",
    "comment with '>'": b"<!--" + b"x>" * MIB + b"-->",
    "CDATA with '>'": b"<url><loc>https://e.com/c</loc><x><![CDATA["
    + b"x>" * MIB
    + b"]]></x></url>",
    "PI with '>'": b"<?pi " + b"x>" * MIB + b"?>",
}


@pytest.mark.parametrize("shape", OVERLONG)
def test_an_overlong_stretch_stops_reading_at_the_same_byte_however_fed(shape: str) -> None:
    """Reading stops at the byte that makes the stretch too long, whether it came at once, in
    read_file's 256 KiB chunks or in small ones, in either lane: before, a whole feed read on
    and a chunked one stopped where its chunk ended."""
    doc = _around("").replace(
        b"\n<url><loc>https://e.com/good2",
        b"\n" + OVERLONG[shape] + b"<url><loc>https://e.com/good2",
        1,
    )
    expected = feed_all(doc, [len(doc)], fast=False)
    for fast in (False, True):
        for sizes in ([len(doc)], [262_144], [7_001]):
            assert feed_all(doc, sizes, fast=fast) == expected, (fast, sizes)
    entries, issues, _, _ = expected
    assert [e.loc for e in entries] == GOOD[:1]
    assert [i.code for i in issues if i.severity == "error"] in (
        ["value-too-long"],
        ["not-well-formed"],
    )


@pytest.mark.parametrize("encoding", ["utf-32-le", "utf-32-be", "utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("bom", [True, False])
def test_utf32_and_utf16_documents_read_alike_however_fed(encoding: str, bom: bool) -> None:
    """A UTF-32 byte order mark starts with UTF-16's: it was read as UTF-16 when it came at
    once and otherwise when it came in pieces."""
    text = _around("").decode()
    doc = (("\ufeff" if bom else "") + text).encode(encoding)
    if encoding.startswith("utf-32") and not bom:
        return  # without a mark, UTF-32 is not told from binary data
    entries, issues, fmt, _ = four_ways(doc, 3)
    assert fmt == "urlset" and [e.loc for e in entries] == GOOD
    width = "32" if "32" in encoding else "16"
    assert [i.message for i in issues] == [
        f"the document is UTF-{width}; the protocol requires UTF-8"
    ]


TEXT_LINES = ["https://e.com/a", "https://e.com/b", "", "not a url", "https://e.com/c"]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "utf-16-le", "utf-16-be"])
def test_text_sitemaps_with_any_line_ending_and_encoding(ending: str, encoding: str) -> None:
    """CR-only line endings lost every URL; UTF-16 text (short, or without a byte order
    mark) was taken for an empty or unknown document."""
    doc = ending.join(TEXT_LINES).encode(encoding)
    for sizes in ([len(doc)], [1], [2], [3], [7]):
        entries, issues, fmt, fatal = feed_all(doc, sizes)
        assert fmt == "text" and not fatal, sizes
        assert [e.loc for e in entries] == ["https://e.com/a", "https://e.com/b", "https://e.com/c"]
        assert [(i.code, i.line) for i in issues if i.code == "relative-url"] == [
            ("relative-url", 4)
        ]


# markup that is not well-formed inside the extensions the compiled lane types by pattern
# (links one by one or in a column, images by pattern or by the core): every attribute of a
# link twice, and ']]>' in each image text (in an attribute value it is allowed)
LINK = '<xhtml:link rel="alternate" hreflang="de" href="https://e.com/de"/>'
IMAGE = "<image:image><image:loc>https://e.com/i.jpg</image:loc>{}</image:image>"
NOT_WELL_FORMED = {
    **{
        f"{name} twice": LINK.replace(f' {name}="', f' {name}="{value}" {name}="', 1)
        for name, value in (("rel", "alternate"), ("hreflang", "fr"), ("href", "https://e.com/fr"))
    },
    "image loc ]]>": IMAGE.format("").replace("i.jpg", "i]]>.jpg"),
    **{
        f"image {field} ]]>": IMAGE.format(f"<image:{field}>a]]>b</image:{field}>")
        for field in ("caption", "geo_location", "title", "license")
    },
}


@pytest.mark.parametrize("shape", NOT_WELL_FORMED)
def test_markup_that_is_not_well_formed_in_extensions_is_found_by_both_lanes(
    shape: str, tmp_path: Path
) -> None:
    body = f"<url><loc>https://e.com/x</loc>{NOT_WELL_FORMED[shape]}</url>"
    doc = _around(body)
    entries, issues, _, _ = four_ways(doc)
    assert [e.loc for e in entries] == [GOOD[0], "https://e.com/x", GOOD[1]]
    assert any(i.code == "not-well-formed" for i in issues)
    path = tmp_path / "s.xml"
    path.write_bytes(doc)
    assert CliRunner().invoke(main, ["check", str(path)]).exit_code == 1


def _seconds(doc: bytes, *, fast: bool) -> float:
    """The least of three timings of reading ``doc`` whole (the least is the least disturbed
    by other work on the machine)."""
    times = []
    for _ in range(3):
        start = time.perf_counter()
        feed_all(doc, [len(doc)], fast=fast)
        times.append(time.perf_counter() - start)
    return min(times)


def test_a_flood_of_empty_comments_reads_in_linear_time() -> None:
    """The guard counted each comment's position from the start of what it read: 3.5 MB of
    empty comments took minutes (the compiled lane hands such a flood to the careful lane
    past 1 MiB without an entry). Four times the comments may take about four times as long
    (the quadratic cost took sixteen)."""
    small, large = (_around("<!---->" * n) for n in (10_000, 40_000))
    assert _seconds(large, fast=False) < 8 * _seconds(small, fast=False)


@pytest.mark.parametrize(
    "entry",
    [
        "<url></url>",
        "<url>\n</url>",
        "<url><lastmod>2024-01-01</lastmod></url>",
        "<url><lastmod>bad</lastmod><priority>0.5</priority></url>",
    ],
)
def test_entries_without_a_loc_stay_in_the_compiled_lane(
    entry: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each loc-less entry was a piece for lxml (~40,000 a second); the core judges them now,
    with the careful lane's findings."""
    pieces = []
    piece = CompiledLane._piece

    def counted(self: CompiledLane, *args: Any) -> bool:
        pieces.append(args)
        return piece(self, *args)

    monkeypatch.setattr(CompiledLane, "_piece", counted)
    entries, issues, _, _ = four_ways(_around("\n".join([entry] * 50)))
    assert [e.loc for e in entries] == GOOD
    step = 1 + entry.count("\n")
    assert [i.line for i in issues if i.code == "missing-loc"] == list(
        range(4, 4 + 50 * step, step)
    )
    assert not pieces
    entries, issues, _, _ = four_ways(
        _around("\n".join([entry] * 5), index=True).replace(b"url>", b"sitemap>")
    )
    assert [i.message for i in issues if i.code == "missing-loc"] == ["<sitemap> without <loc>"] * 5


ONE = _around("")
AFTER_ROOT = {
    "two files joined": ONE + ONE,
    "a second root without a declaration": ONE + ONE.split(b"\n", 1)[1],
    "an entry": ONE + b"<url><loc>https://e.com/c</loc></url>\n",
    "text": ONE + b"trailing text\n",
    "a second end tag": ONE.replace(b"</urlset>", b"</urlset></urlset>"),
    "two gzip members": gzip.compress(ONE, mtime=0) + gzip.compress(ONE, mtime=0),
}


@pytest.mark.parametrize("shape", AFTER_ROOT)
def test_content_after_the_root_is_an_error_in_both_lanes(shape: str, tmp_path: Path) -> None:
    """A second document after the root was dropped with a leading-whitespace warning."""
    entries, issues, _, _ = four_ways(AFTER_ROOT[shape])
    assert [e.loc for e in entries] == GOOD
    assert [i.code for i in issues] == ["content-after-root"] and issues[0].line >= 6
    path = tmp_path / "s.xml"
    path.write_bytes(AFTER_ROOT[shape])
    assert CliRunner().invoke(main, ["check", str(path)]).exit_code == 1


def test_comments_and_instructions_after_the_root_are_allowed() -> None:
    entries, issues, _, _ = four_ways(ONE + b"<!-- c -->\n<?pi x?>\n")
    assert [e.loc for e in entries] == GOOD and not issues


def _root(
    attributes: bytes, declaration: bytes = b'<?xml version="1.0" encoding="UTF-8"?>\n'
) -> bytes:
    body = b"".join(b"\n<url><loc>%s</loc></url>" % loc.encode() for loc in GOOD)
    return (
        declaration
        + b'<urlset xmlns="'
        + NS.encode()
        + b'"'
        + attributes
        + b">"
        + body
        + b"\n</urlset>\n"
    )


# a root libxml2 reports something in: the compiled lane took over without it (a URI it
# judged plain) or after it (libxml2 reads on its own way after an error in the head)
ODD_ROOTS = {
    "invalid byte in an attribute name": _root(b' a\xffb="1"'),
    **{
        f"{c!r} in a namespace URI": _root(b' xmlns:x="https://e.com/a%sb"' % c.encode())
        for c in "`{}|^\\[]%"
    },
    "a second '#' in a namespace URI": _root(b' xmlns:x="https://e.com/a#b#c"'),
    "a bad escape in a namespace URI": _root(b' xmlns:x="https://e.com/%zz"'),
    "a CR in the declaration": _root(b"", b'<?xml version="1.0"\rencoding="UTF-8"?>\r'),
    "CRs around the root": _root(b'\r xmlns:x="https://e.com/x"\r', b'<?xml version="1.0"?>\r\n'),
}


@pytest.mark.parametrize("shape", ODD_ROOTS)
def test_odd_roots_read_the_same_in_both_lanes(shape: str) -> None:
    four_ways(ODD_ROOTS[shape])


@pytest.mark.parametrize(
    "loc", ["https://user:pass@e.com/a", "https://evil.com@e.com/a", "https://u@e.com/"]
)
def test_a_url_with_user_info_is_reported_by_read_and_check(loc: str, tmp_path: Path) -> None:
    doc = _around(f"<url><loc>{loc}</loc></url>\n<url><loc>{loc}x</loc></url>")
    entries, issues, _, _ = four_ways(doc)
    assert [e.loc for e in entries] == [GOOD[0], loc, loc + "x", GOOD[1]]
    found = [i for i in issues if i.code == "url-userinfo"]
    assert len(found) == 1 and found[0].line == 4 and "pass" not in found[0].message
    for text in (doc, f"{loc}\n{GOOD[0]}\n".encode()):
        path = tmp_path / "s.xml"
        path.write_bytes(text)
        result = CliRunner().invoke(main, ["check", "--format", "json", str(path)])
        assert result.exit_code == 1
        codes = [f["code"] for f in json.loads(result.output)["files"][0]["issues"]]
        assert "url-userinfo" in codes


def test_build_refuses_a_url_with_user_info_saying_so(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://evil.com@host.example/\nhttps://host.example/a\n")
    result = CliRunner().invoke(
        main,
        [
            "build",
            "--base-url",
            "https://host.example/",
            "--out",
            str(tmp_path / "out"),
            str(source),
        ],
    )
    assert result.exit_code == 1
    assert "holds user info before its host host.example ('evil.com@'" in result.output


def test_the_guards_columns_after_the_compiled_lane_are_the_bytes_as_written() -> None:
    """Found by the fuzzer: after the compiled lane read '&lt;' on a line, the guard counted
    that line's columns as libxml2 does (one more each) where the careful lane counts the
    bytes as written, so an invalid reference later on it was placed one column off."""
    body = (
        "<url><loc>https://e.com/a?q=&lt;&lt;</loc></url> <url><loc>https://e.com/x&#0;</loc></url>"
    )
    _, issues, _, _ = four_ways(_around(body))
    (found,) = [i for i in issues if i.code == "invalid-character"]
    assert (found.line, found.column) == (4, _around(body).split(b"\n")[3].index(b"&#0;") + 1)


@pytest.mark.parametrize(
    "text", ["a\u00e9b", "\u6c26\u3b74", "\U0001f600", "\u00e9" * 5 + "\u6c26" * 7]
)
def test_columns_after_multibyte_text_on_the_roots_line_agree(text: str) -> None:
    """Found by the fuzzer: on a document of one line, the compiled lane's pad put the bytes
    that multi-byte characters add before the line's columns, so libxml2 placed what came
    after a handoff that many columns to the right."""
    doc = (
        f'<?xml version="1.0"?><urlset xmlns="{NS}" xmlns:image="{IMAGE_NS}"><url><loc>'
        f"https://e.com/a</loc><image:image><image:loc>https://e.com/i.jpg</image:loc>"
        f"<image:caption>{text}</image:caption></image:image></url><url><loc>https://e.com/b"
        "</loc><image:image><image:caption>cut"
    ).encode()
    _, issues, _, _ = four_ways(doc)
    (truncated,) = [i for i in issues if i.code == "truncated"]
    assert truncated.column == len(doc.decode()) + 1

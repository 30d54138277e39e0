"""One truth for a URL read as a URI: ``read`` and ``check`` give the same findings of it.

A loc or an extension's URL that the reader makes a URI of (an IRI, an IDN host, a space) is
one finding, ``normalized-url`` or ``url-not-escaped`` (``urls.made_uri_finding`` words
both), with the same code, severity, message, line and column whether ``read`` says it (the
reader's issues, through the API and through ``urlset read``'s render lane) or ``check``
(which passes the reader's on). The family: every URL field the reader reads as a URI
(the entry loc; image loc and license; video thumbnail_loc, content_loc, player_loc,
gallery_loc and uploader info; the hreflang link's href: the ``required_uri`` and
``optional_uri`` fields of extensions/, news has none) holding an IRI, an IDN host or a
space, in small documents (the careful lane) and large ones (the compiled core's runs),
plain and gzipped, and text sitemaps.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from urlset.checking.document import CheckOptions, check_document
from urlset.cli import main
from urlset.model import Issue
from urlset.reading.reader import read_bytes

CODES = ("normalized-url", "url-not-escaped")
NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    f'<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
)

# what a URL field may hold that the reader makes a URI of
IRI, IDN, SPACE = "https://a.test/café/{k}", "https://bücher.test/{k}", "https://a.test/a b/{k}"
FORMS = {"iri": IRI, "idn": IDN, "space": SPACE, "both": "https://a.test/é x/{k}"}


def _entry(field: str, url: str, k: int) -> str:
    """One ``<url>`` (its loc ``https://a.test/p/{k}`` unless the field is the loc) with
    ``url`` in ``field``."""
    loc = url if field == "loc" else f"https://a.test/p/{k}"
    video = (
        "<video:video><video:thumbnail_loc>{thumb}</video:thumbnail_loc>"
        "<video:title>t</video:title><video:description>d</video:description>"
        "<video:content_loc>{content}</video:content_loc>"
        "<video:player_loc>{player}</video:player_loc>"
        "<video:gallery_loc>{gallery}</video:gallery_loc>"
        '<video:uploader info="{info}">u</video:uploader></video:video>'
    )
    plain = {
        name: f"https://a.test/{name}/{k}"
        for name in ("thumb", "content", "player", "gallery", "info")
    }
    extensions = {
        "loc": "",
        "image_loc": f"<image:image><image:loc>{url}</image:loc></image:image>",
        "image_license": (
            f"<image:image><image:loc>https://a.test/i/{k}.jpg</image:loc>"
            f"<image:license>{url}</image:license></image:image>"
        ),
        "href": (
            f'<xhtml:link rel="alternate" hreflang="de" href="{url}"/>'
            f'<xhtml:link rel="alternate" hreflang="en" href="{loc}"/>'
        ),
        **{
            f"video_{name}": video.format(**{**plain, name: url})
            for name in ("thumb", "content", "player", "gallery", "info")
        },
    }
    return f"<url><loc>{loc}</loc>{extensions[field]}</url>\n"


VIDEO_FIELDS = tuple(f"video_{name}" for name in ("thumb", "content", "player", "gallery", "info"))
FIELDS = ("loc", "image_loc", "image_license", "href", *VIDEO_FIELDS)


def _document(field: str, form: str, n: int, multiline: bool = False) -> bytes:
    """``n`` entries, plain but three (the first, the middle and the last) with a URL of
    ``form`` in ``field``; ``multiline``: each element of those three on a line of its own."""
    special = {0, n // 2, n - 1}
    rows = []
    for k in range(n):
        if k in special:
            row = _entry(field, FORMS[form].format(k=k), k)
            rows.append(row.replace("><", ">\n  <") if multiline else row)
        else:
            rows.append(f"<url><loc>https://a.test/p/{k}</loc></url>\n")
    return (HEAD + "".join(rows) + "</urlset>\n").encode()


def _text_document(n: int) -> bytes:
    lines = [f"https://a.test/p/{k}" for k in range(n)]
    for k, form in zip((0, n // 2, n - 1), ("iri", "idn", "space"), strict=True):
        lines[k] = FORMS[form].format(k=k)
    return ("\n".join(lines) + "\n").encode()


Found = list[tuple[str, str, str, int, int]]


def _of(issues: list[Issue]) -> Found:
    return sorted(
        (i.code, str(i.severity), i.message, i.line, i.column) for i in issues if i.code in CODES
    )


def _read(data: bytes) -> tuple[Found, dict[str, int]]:
    result = read_bytes(data, source="doc", with_issues=True)
    result.read_all()
    return _of(result.issues), result.reader.issue_counts


def _read_cli(data: bytes, tmp_path: Path) -> Found:
    """What ``urlset read`` says (the render lane), from ``--issues-json``."""
    doc, out = tmp_path / "doc.xml", tmp_path / "issues.json"
    doc.write_bytes(data)
    result = CliRunner().invoke(
        main, ["read", str(doc), "-o", str(tmp_path / "out.jsonl"), "--issues-json", str(out)]
    )
    assert result.exit_code in (0, 1), result.output
    return sorted(
        (i["code"], i["severity"], i["message"], i["line"], i["column"])
        for i in json.loads(out.read_text())
        if i["code"] in CODES
    )


def _check(data: bytes) -> tuple[Found, dict[str, int]]:
    result = check_document(data, CheckOptions(), "doc")
    return _of(result.issues), result.code_counts()


def _same(data: bytes, tmp_path: Path, expected: int) -> None:
    read, read_counts = _read(data)
    checked, check_counts = _check(data)
    assert read == checked
    assert _read_cli(data, tmp_path) == read
    assert len(read) == expected
    for code in CODES:
        assert read_counts.get(code, 0) == check_counts.get(code, 0)


@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("n", [3, 3000])
def test_read_and_check_say_the_same_of_a_url_made_a_uri(
    field: str, form: str, n: int, tmp_path: Path
) -> None:
    """Each URL field holding an IRI, an IDN host, a space or both: one finding each of the
    three, alike from read (API and CLI) and check, in a small and a large document."""
    _same(_document(field, form, n), tmp_path, 3)


@pytest.mark.parametrize("field", ["loc", "image_loc", "href", "video_content"])
def test_the_same_gzipped_and_on_lines_of_their_own(field: str, tmp_path: Path) -> None:
    for n in (3, 3000):
        _same(gzip.compress(_document(field, "iri", n)), tmp_path, 3)
        _same(_document(field, "iri", n, multiline=True), tmp_path, 3)


def test_the_findings_name_what_was_read() -> None:
    """The words: the text, that it holds non-ASCII characters, and the URI it was read as;
    a space is url-not-escaped (whatever else the text holds)."""
    read, _ = _read(_document("loc", "iri", 3))
    assert read[0][:3] == (
        "normalized-url",
        "warning",
        "'https://a.test/café/0' holds non-ASCII characters: read as https://a.test/caf%C3%A9/0",
    )
    (first, *_), _ = _read(_document("href", "both", 3))
    assert first[:3] == (
        "url-not-escaped",
        "error",
        "'https://a.test/é x/0' contains spaces or control characters",
    )


@pytest.mark.parametrize("n", [3, 3000])
def test_a_text_sitemap_alike(n: int, tmp_path: Path) -> None:
    _same(_text_document(n), tmp_path, 3)


def test_counted_alike_past_the_cap(tmp_path: Path) -> None:
    """Past the first 1,000 of a code, read and check list the same and count the same."""
    n = 1500
    rows = [f"<url><loc>{IRI.format(k=k)}</loc></url>\n" for k in range(n)]
    data = (HEAD + "".join(rows) + "</urlset>\n").encode()
    read, read_counts = _read(data)
    checked, check_counts = _check(data)
    assert read == checked == _read_cli(data, tmp_path)
    assert len(read) == 1000
    assert read_counts["normalized-url"] == check_counts["normalized-url"] == n


@pytest.mark.parametrize("n", [3, 3000])
def test_a_sitemap_index_alike(n: int, tmp_path: Path) -> None:
    """An index's sitemap locs: the same three findings from read and check."""
    locs = [f"https://a.test/s/{k}.xml" for k in range(n)]
    for k, form in zip((0, n // 2, n - 1), ("iri", "idn", "space"), strict=True):
        locs[k] = FORMS[form].format(k=k) + ".xml"
    body = "".join(f"<sitemap><loc>{loc}</loc></sitemap>\n" for loc in locs)
    data = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n{body}'
        "</sitemapindex>\n"
    ).encode()
    _same(data, tmp_path, 3)

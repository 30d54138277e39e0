"""Writing extensions: official schemas, namespace declarations, exact byte accounting,
raw elements unchanged, builds and build inputs (CSV, TSV, JSON Lines)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import etree

from helpers import NS, load, parse
from schema_support import official_schemas
from urlset import SITEMAPS_2008, RawElement, Url
from urlset.cli import main
from urlset.extensions import (
    IMAGE_NS,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    Alternate,
    Image,
    News,
    Video,
    typed,
)
from urlset.reading.reader import read_bytes, read_file
from urlset.writing.build import write_sitemaps
from urlset.writing.document import SitemapDocument, url_element, urlset_header
from urlset.writing.sources import iter_entries

BASE = "https://www.example.com/"


@pytest.fixture(scope="module")
def schema(shared: Path) -> etree.XMLSchema:
    """sitemap.xsd with the image, video, news and XHTML schemas imported.

    sitemap.xsd ends <url> with ``<xsd:any namespace="##other" processContents="strict">``,
    so every extension element must be declared by an imported schema and is validated
    against it; an element of a namespace no schema declares is an error.
    """
    return official_schemas(shared / "xsd")["urlset"]


def assert_valid(data: bytes, schema: etree.XMLSchema) -> None:
    doc = etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
    assert schema.validate(doc), schema.error_log


def document(urls: list[Url], **kwargs: int) -> bytes:
    out: list[bytes] = []
    doc = SitemapDocument(
        out.append,
        max_urls=kwargs.get("max_urls", 50_000),
        max_bytes=kwargs.get("max_bytes", 10**8),
    )
    assert doc.add(urls) == len(urls)
    doc.close()
    return b"".join(out)


def full_video(loc: str = BASE + "v.mp4") -> Video:
    return Video(
        "https://img.example.com/t.jpg?a=1&b=2",
        "Grilling <steaks> & more",
        'Alkis shows "how"',
        content_loc=loc,
        player_loc="https://www.example.com/player?v=1",
        player_allow_embed=True,
        player_autoplay="ap=1",
        duration=600,
        expiration_date="2030-11-05T19:20:30+08:00",  # type: ignore[arg-type]
        rating=4.2,
        view_count=12345,
        publication_date="2007-11-05T19:20:30+08:00",  # type: ignore[arg-type]
        tags=("steak", "grill"),
        category="Cooking",
        family_friendly=True,
        restriction={"relationship": "allow", "values": ["IE", "GB"]},  # type: ignore[arg-type]
        gallery_loc="https://cooking.example.com",
        gallery_title="Cooking Videos",
        prices=({"amount": "1.99", "currency": "EUR", "type": "rent", "resolution": "hd"},),  # type: ignore[arg-type]
        requires_subscription=False,
        uploader="Grilly",
        uploader_info="https://www.example.com/users/grilly",
        platform={"relationship": "deny", "values": ["tv"]},  # type: ignore[arg-type]
        live=False,
    )


def rich_urls() -> list[Url]:
    news = News(
        "The Example Times",
        "zh-cn",
        "2024-05-01T10:00:00Z",  # type: ignore[arg-type]
        "Companies A & B",
        "Subscription",
        ("PressRelease", "Blog"),
        ("business", "merger"),
        ("NASDAQ:A", "NASDAQ:B"),
    )
    images = tuple(
        Image(f"{BASE}img/{i}.jpg", "cap <1>", "Limerick, Ireland", "t & t", BASE + "license")
        for i in range(3)
    )
    links = (Alternate("en", BASE + "en/"), Alternate("de-CH", BASE + "de/"))
    return [
        Url(BASE + "en/", "2024-05-01", "daily", 0.5, (*images, *links)),
        Url(BASE + "de/", extensions=(full_video(), *links)),
        Url(BASE + "news/1", extensions=(news,)),
        Url(BASE + "plain"),
        Url(BASE + "minimal", extensions=(Image(BASE + "x.jpg"),)),
    ]


# ---------------------------------------------------------------- official schemas


def test_every_typed_extension_validates_against_the_official_schemas(
    schema: etree.XMLSchema,
) -> None:
    data = document(rich_urls())
    assert_valid(data, schema)
    root = etree.fromstring(data)
    assert set(root.nsmap.values()) == {NS[1:-1], IMAGE_NS, VIDEO_NS, XHTML_NS, NEWS_NS}


def test_the_schemas_do_reject_bad_extension_markup(schema: etree.XMLSchema) -> None:
    """The validation above is real: strict wildcard processing checks extension content."""
    good = document([Url(BASE, extensions=(Image(BASE + "a.jpg", title="t"),))])
    assert_valid(good, schema)
    swapped = good.replace(b"<image:loc>", b"<image:title>x</image:title><image:loc>")
    with pytest.raises(AssertionError):
        assert_valid(swapped, schema)
    unknown = good.replace(b"</image:image>", b"<image:size>2</image:size></image:image>")
    with pytest.raises(AssertionError):
        assert_valid(unknown, schema)


def test_declarations_on_url_elements_are_valid_too(schema: etree.XMLSchema) -> None:
    urls = [Url(BASE + "p/" + str(i) + "x" * 40) for i in range(20_000)]  # over 1 MiB
    out: list[bytes] = []
    doc = SitemapDocument(out.append, max_urls=50_000, max_bytes=10**8)
    doc.add(urls)  # no extensions, and the root handed to the sink: it declares none
    doc.add(rich_urls())
    doc.close()
    data = b"".join(out)
    assert_valid(data, schema)
    root = etree.fromstring(data)
    assert list(root.nsmap.values()) == [NS[1:-1]]
    assert b'<url xmlns:image="' + IMAGE_NS.encode() + b'" xmlns:xhtml="' in data


def test_a_root_not_yet_written_declares_what_a_later_batch_uses(
    schema: etree.XMLSchema,
) -> None:
    """Entries without extensions first (a run the compiled core rendered), then some with:
    the root, still unwritten, declares their namespaces, as one batch of them all would."""
    plain = [Url(BASE + str(i)) for i in range(3)]
    out: list[bytes] = []
    doc = SitemapDocument(out.append, max_urls=100, max_bytes=10**7)
    doc.add(plain)
    doc.add(rich_urls())
    doc.close()
    data = b"".join(out)
    assert_valid(data, schema)
    assert data == document([*plain, *rich_urls()])
    assert b"<url xmlns:" not in data


@pytest.mark.parametrize("header", [{}, {"schema_location": True, "xsl": BASE + "s.xsl"}])
def test_built_sets_validate(
    tmp_path: Path, schema: etree.XMLSchema, header: dict[str, object]
) -> None:
    report = write_sitemaps(rich_urls(), tmp_path, BASE, gzip=True, **header)
    data = load(tmp_path / report.files[0].name)
    assert_valid(data, schema)
    assert etree.fromstring(data).nsmap["image"] == IMAGE_NS


# ---------------------------------------------------------------- namespaces


def test_namespaces_are_declared_only_when_used() -> None:
    plain = document([Url(BASE)])
    assert b"xmlns:" not in plain
    images = document([Url(BASE, extensions=(Image(BASE + "a.jpg"),))])
    root = etree.fromstring(images)
    assert root.nsmap == {None: NS[1:-1], "image": IMAGE_NS}


def test_root_declares_only_what_the_written_part_of_the_first_batch_uses() -> None:
    """When the byte limit cuts the first batch, namespaces used only after the cut are not
    declared on this document's root; the next document gets its own."""
    urls = [
        Url(BASE + "a", extensions=(Image(BASE + "a.jpg"),)),
        Url(BASE + "b", extensions=(Alternate("en", BASE + "b"),)),
    ]
    first_alone = len(urlset_header().encode()) + len(url_element(urls[0])) + len("</urlset>\n")
    # room for the first URL with its namespace declared on the root, not for the second
    budget = first_alone + 60
    out: list[bytes] = []
    doc = SitemapDocument(out.append, max_urls=10, max_bytes=budget)
    assert doc.add(urls) == 1
    doc.close()
    data = b"".join(out)
    assert len(data) <= budget
    assert etree.fromstring(data).nsmap == {None: NS[1:-1], "image": IMAGE_NS}


def test_raw_elements_are_written_back_unchanged() -> None:
    raw = RawElement(
        "urn:example:x",
        "thing",
        '<x:thing xmlns:x="urn:example:x" a="1">text &amp; <x:b/></x:thing>',
    )
    image_raw = RawElement(
        IMAGE_NS, "image", f'<i:image xmlns:i="{IMAGE_NS}"><i:loc>{BASE}a.jpg</i:loc></i:image>'
    )
    data = document([Url(BASE, extensions=(raw, image_raw))]).decode()
    assert raw.xml in data and image_raw.xml in data
    assert "xmlns:image" not in data  # raw elements declare their own namespaces


def test_url_element_matches_the_document_writer() -> None:
    urls = rich_urls()
    body = "".join(url_element(u) for u in urls)
    data = document(urls).decode()
    # the document declares the typed namespaces once on the root instead of per <url>
    assert data.count("<url>") == len(urls)
    for url in urls:
        assert url_element(url, declared=[IMAGE_NS, VIDEO_NS, NEWS_NS, XHTML_NS]) in data
    assert body.count("xmlns:image") == 2


# ---------------------------------------------------------------- byte accounting


def test_byte_limit_is_exact_with_many_images(tmp_path: Path) -> None:
    images = tuple(Image(f"{BASE}img/{i}/ä.jpg", title=f"Bild {i} – ü") for i in range(1000))
    urls = [Url(f"{BASE}p/{n}", extensions=images) for n in range(7)]
    one = len(url_element(urls[0], declared=[IMAGE_NS]).encode())
    header = len(urlset_header().encode()) + len(f' xmlns:image="{IMAGE_NS}"')
    size = header + 3 * one + len("</urlset>\n")
    limits = SITEMAPS_2008.lowered(max_bytes=size)
    report = write_sitemaps(urls, tmp_path, BASE, gzip=False, limits=limits)
    assert [f.entries for f in report.files] == [3, 3, 1]
    for f in report.files:
        on_disk = (tmp_path / f.name).stat().st_size
        assert on_disk == f.bytes <= size
        assert len(parse(tmp_path / f.name).findall(f"{NS}url")) == f.entries
    assert report.files[0].bytes == size  # filled to the byte


def test_byte_limit_one_byte_short_moves_the_url(tmp_path: Path) -> None:
    images = tuple(Image(f"{BASE}img/{i}.jpg") for i in range(10))
    urls = [Url(f"{BASE}p/{n}", extensions=images) for n in range(4)]
    one = len(url_element(urls[0], declared=[IMAGE_NS]))
    header = len(urlset_header()) + len(f' xmlns:image="{IMAGE_NS}"')
    size = header + 2 * one + len("</urlset>\n") - 1
    report = write_sitemaps(
        urls, tmp_path, BASE, gzip=False, limits=SITEMAPS_2008.lowered(max_bytes=size)
    )
    assert [f.entries for f in report.files] == [1, 1, 1, 1]
    assert all(f.bytes <= size for f in report.files)


# ---------------------------------------------------------------- read back


def test_write_then_read_gives_the_same_values() -> None:
    urls = rich_urls()
    read = [u for u in read_bytes(document(urls)) if isinstance(u, Url)]
    assert [u._replace(extensions=tuple(map(typed, u.extensions))) for u in read] == urls


# ---------------------------------------------------------------- build inputs


def test_jsonl_input_with_typed_and_raw_extensions(tmp_path: Path) -> None:
    line = {
        "loc": BASE + "a",
        "images": [{"loc": BASE + "a.jpg", "title": "A"}, {"loc": BASE + "b.jpg"}],
        "videos": [
            {
                "thumbnail_loc": BASE + "t.jpg",
                "title": "T",
                "description": "D",
                "player_loc": BASE + "p",
                "tags": ["x"],
                "prices": [{"amount": "3", "currency": "USD"}],
            }
        ],
        "news": {
            "publication_name": "N",
            "language": "en",
            "publication_date": "2024-01-02",
            "title": "T",
            "keywords": "a, b",
        },
        "alternates": [{"hreflang": "en", "href": BASE + "a"}],
        "extensions": [{"namespace": "urn:x", "name": "y", "xml": '<y xmlns="urn:x"/>'}],
    }
    bad = {"loc": BASE + "b", "images": [{"loc": "not a url"}]}
    text = json.dumps(line) + "\n" + json.dumps(bad) + "\n"
    (tmp_path / "in.jsonl").write_text(text)
    with (tmp_path / "in.jsonl").open() as f:
        entries = list(iter_entries(f, "jsonl", "in.jsonl"))
    url = entries[0]
    assert isinstance(url, Url)
    kinds = [type(e).__name__ for e in url.extensions]
    assert kinds == ["Image", "Image", "Video", "News", "Alternate", "RawElement"]
    assert url.extensions[3] == News("N", "en", "2024-01-02", "T", keywords=("a", "b"))  # type: ignore[arg-type]
    error = entries[1]
    assert not isinstance(error, Url) and error.line == 2 and error.field == "extensions"
    # the page is kept without the image at fault, reported with the reader's code
    assert error.kept == Url(BASE + "b") and [code for code, _ in error.notes] == ["invalid-image"]


def test_csv_input_columns(tmp_path: Path) -> None:
    rows = [
        "loc,lastmod,image_loc,image_title,alternate_en,alternate_x-default,alternates,news_name,news_language,news_publication_date,news_title,video_thumbnail_loc,video_title,video_description,video_content_loc,video_tags,video_restriction",
        f"{BASE}a,2024-01-01,{BASE}1.jpg|{BASE}2.jpg,|Second,{BASE}a,{BASE}a,de-CH={BASE}de|fr={BASE}fr,,,,,,,,,,",
        f"{BASE}b,,,,,,,N,en,2024-01-01,Title,{BASE}t.jpg,T,D,{BASE}v.mp4,a|b,allow US CA",
        f"{BASE}c,,,,,,,N,,,,,,,,,",
        f"{BASE}d,,{BASE}1.jpg,a|b,,,,,,,,,,,,,",
        f"{BASE}e,,,,,,,,,,,,,,,,",
    ]
    path = tmp_path / "in.csv"
    path.write_text("\n".join(rows) + "\n")
    with path.open() as f:
        entries = list(iter_entries(f, "csv", "in.csv"))
    a, b, c, d, e = entries
    assert isinstance(a, Url) and a.extensions == (
        Image(BASE + "1.jpg"),
        Image(BASE + "2.jpg", title="Second"),
        Alternate("en", BASE + "a"),
        Alternate("x-default", BASE + "a"),
        Alternate("de-CH", BASE + "de"),
        Alternate("fr", BASE + "fr"),
    )
    assert isinstance(b, Url)
    assert b.extensions[0] == Video(
        BASE + "t.jpg",
        "T",
        "D",
        BASE + "v.mp4",
        tags=("a", "b"),
        restriction={"relationship": "allow", "values": ["US", "CA"]},  # type: ignore[arg-type]
    )
    assert b.extensions[1] == News("N", "en", "2024-01-01", "Title")  # type: ignore[arg-type]
    # columns of one kind that do not hold together are left out, that kind alone
    assert not isinstance(c, Url) and c.line == 4 and c.kept == Url(BASE + "c")
    assert c.notes[0][0] == "invalid-news" and "news_language None" in c.notes[0][1]
    assert not isinstance(d, Url) and "2 parts for 1 images" in str(d)
    assert isinstance(e, Url) and e.extensions == ()


def test_csv_unknown_columns_still_fail(tmp_path: Path) -> None:
    from urlset import InvalidValue

    path = tmp_path / "in.csv"
    path.write_text("loc,image_colour\nhttps://www.example.com/,red\n")
    with path.open() as f, pytest.raises(InvalidValue, match="image_colour"):
        list(iter_entries(f, "csv", "in.csv"))


def test_tsv_input(tmp_path: Path) -> None:
    path = tmp_path / "in.tsv"
    path.write_text(f"loc\timage_loc\n{BASE}a\t{BASE}a.jpg\n")
    with path.open() as f:
        (url,) = iter_entries(f, "tsv", "in.tsv")
    assert isinstance(url, Url) and url.extensions == (Image(BASE + "a.jpg"),)


def test_read_then_build_round_trip_from_the_command_line(tmp_path: Path, shared: Path) -> None:
    """`urlset read` JSON Lines of an extension sitemap feed `urlset build`; the rebuilt set
    holds the same entries and extensions (typed values compared after typing both)."""
    source = shared / "corpus/peers/crawler-commons/sitemaps/extension/sitemap-images.xml"
    runner = CliRunner()
    listing = tmp_path / "entries.jsonl"
    result = runner.invoke(main, ["read", str(source), "-o", str(listing)])
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    result = runner.invoke(
        main,
        [
            "build",
            str(listing),
            "--out",
            str(out),
            "--base-url",
            "http://www.example.com/",
            "--no-gzip",
        ],
    )
    assert result.exit_code == 0, result.output

    def values(path: Path) -> list[Url]:
        return [
            u._replace(extensions=tuple(map(typed, u.extensions)))
            for u in read_file(path)
            if isinstance(u, Url)
        ]

    assert values(out / "sitemap.xml") == values(source)


def test_typed_values_fit_the_raw_json_shape_urlset_read_writes(tmp_path: Path) -> None:
    """Typed values carry namespace, name and xml like RawElement, so today's `urlset read`
    output works with them; `json_fields` gives the typed shape; both feed `urlset build`."""
    from urlset.cli.read_run import entry_dict
    from urlset.extensions import json_fields

    urls = rich_urls()
    raw_lines = [json.dumps(entry_dict(u)) for u in urls]
    typed_lines = [
        json.dumps({**entry_dict(u._replace(extensions=())), **json_fields(u.extensions)})
        for u in urls
    ]
    for lines in (raw_lines, typed_lines):
        path = tmp_path / "in.jsonl"
        path.write_text("\n".join(lines) + "\n")
        with path.open() as f:
            got = [u for u in iter_entries(f, "jsonl", "in.jsonl") if isinstance(u, Url)]
        assert [u._replace(extensions=tuple(map(typed, u.extensions))) for u in got] == urls

"""The compiled lane's plain images (rust/core/src/read/images.rs): entries whose images the
tokenizer types stay in its runs, and every image entry reads exactly as the careful lane
reads it, whole or in chunks, plain or not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_read_support import NS, feed_all
from urlset.extensions.image import IMAGE_NS, Image
from urlset.model import Url
from urlset.reading import xml_compiled
from urlset.reading.xml_compiled import CompiledLane

XHTML = "http://www.w3.org/1999/xhtml"


def _doc(*entries: str, prefix: str = "image", more: str = "") -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset xmlns="{NS}" xmlns:{prefix}="{IMAGE_NS}"{more}>\n'
        + "\n".join(entries)
        + "\n</urlset>\n"
    ).encode()


def _image(loc: str, inner: str = "", p: str = "image") -> str:
    return f"<{p}:image><{p}:loc>{loc}</{p}:loc>{inner}</{p}:image>"


def _entry(i: int, images: str = "") -> str:
    return f"  <url>\n    <loc>https://www.example.com/p/{i}?a=1&amp;b=2</loc>\n    <lastmod>2024-03-01</lastmod>\n{images}  </url>"


def _counted(doc: bytes, sizes: list[int]) -> tuple[dict[str, int], Any]:
    """What ``doc`` read as in chunks of ``sizes``, and the calls that left the tokenizer's
    runs: records stopped for extensions, pieces parsed by lxml."""
    calls = {"stops": 0, "pieces": 0}
    stopped, piece = CompiledLane.stopped, CompiledLane._piece

    def counting_stopped(self, data, stop, pos, line):  # type: ignore[no-untyped-def]
        calls["stops"] += 1
        return stopped(self, data, stop, pos, line)

    def counting_piece(self, data, start, stop, line):  # type: ignore[no-untyped-def]
        calls["pieces"] += 1
        return piece(self, data, start, stop, line)

    CompiledLane.stopped = counting_stopped  # type: ignore[method-assign]
    CompiledLane._piece = counting_piece  # type: ignore[method-assign]
    try:
        return calls, feed_all(doc, sizes)
    finally:
        CompiledLane.stopped = stopped  # type: ignore[method-assign]
        CompiledLane._piece = piece  # type: ignore[method-assign]


def _same_in_both_lanes(doc: bytes, sizes: list[list[int]]) -> Any:
    expected = feed_all(doc, [len(doc)], fast=False)
    for size in sizes:
        assert feed_all(doc, size) == expected, size
    return expected


def test_plain_images_are_read_in_the_tokenizers_runs() -> None:
    entries = [
        _entry(
            i,
            (
                "    "
                + _image(
                    f"https://cdn.example.com/i/{i}.jpg?w=1&amp;h=2",
                    "\n      <image:caption> A caption </image:caption>"
                    "<image:geo_location>Paris</image:geo_location>"
                    "<image:title>   </image:title>\n",
                )
                + _image(f"https://cdn.example.com/i/{i}b.jpg")
                + "\n"
            )
            if i % 3 == 0
            else "",
        )
        for i in range(60)
    ]
    doc = _doc(*entries)
    calls, (urls, issues, _, fatal) = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0}
    assert not fatal and not issues and len(urls) == 60
    first = urls[0]
    assert isinstance(first, Url)
    assert first.extensions == (
        Image("https://cdn.example.com/i/0.jpg?w=1&h=2", "A caption", "Paris", None),
        Image("https://cdn.example.com/i/0b.jpg"),
    )
    assert urls[1].extensions == ()  # type: ignore[union-attr]
    # the careful lane reads the same, whole and at every chunk boundary
    assert _same_in_both_lanes(doc, [[1], [7], [64], [333, 1000]])[0] == urls


def test_captions_with_entities_and_non_ascii_are_typed_by_the_tokenizer() -> None:
    inner = (
        "<image:caption>Men\u2019s &amp; women\u2019s caf\u00e9 \u2013 &lt;new&gt;</image:caption>"
        "<image:title>\u65e5\u672c\u8a9e \u0420\u0443\u0441</image:title>"
    )
    doc = _doc(*(_entry(i, _image(f"https://cdn.example.com/{i}.jpg", inner)) for i in range(4)))
    calls, (urls, issues, _, _) = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0} and not issues
    image = urls[0].extensions[0]  # type: ignore[union-attr]
    assert image.caption == "Men\u2019s & women\u2019s caf\u00e9 \u2013 <new>"
    assert image.title == "\u65e5\u672c\u8a9e \u0420\u0443\u0441"
    _same_in_both_lanes(doc, [[1], [29]])


def test_cdata_texts_are_typed_by_the_tokenizer() -> None:
    inner = "<image:title><![CDATA[ Best <LCD> & LED repair ]]></image:title>"
    doc = _doc(*(_entry(i, _image(f"https://cdn.example.com/{i}.jpg", inner)) for i in range(4)))
    calls, (urls, issues, _, _) = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0} and not issues
    assert urls[0].extensions[0].title == "Best <LCD> & LED repair"  # type: ignore[union-attr]
    _same_in_both_lanes(doc, [[1], [23]])


def test_what_the_tokenizer_takes_as_printable_python_does() -> None:
    """Every character of the Basic Multilingual Plane XML allows, as a caption: those the
    tokenizer types are printable by Python's own tables (the others go to the Python
    readers), and each entry reads as the careful lane reads it."""
    chars = [
        chr(c) for c in range(0x20, 0xFFFE) if chr(c) not in "<&" and not 0xD800 <= c <= 0xDFFF
    ]
    typed: list[str | None] = []
    original = xml_compiled._urls

    def spy(*columns: Any) -> Any:
        typed.extend(image.caption for _, made in columns[-1] for image in made)
        return original(*columns)

    for at in range(0, len(chars), 8000):  # documents of a size libxml2 reads in one feed
        doc = _doc(
            *(
                _entry(
                    i,
                    _image(
                        f"https://cdn.example.com/{i}.jpg", f"<image:caption>x{ch}</image:caption>"
                    ),
                )
                for i, ch in enumerate(chars[at : at + 8000], at)
            )
        )
        xml_compiled._urls = spy  # type: ignore[assignment]
        try:
            fast = feed_all(doc, [len(doc)])
        finally:
            xml_compiled._urls = original  # type: ignore[assignment]
        assert fast == feed_all(doc, [len(doc)], fast=False), at
    assert len(typed) > 30_000
    assert all(t is not None and t.isprintable() for t in typed)


def test_the_tokenizers_printable_table_is_pythons() -> None:
    """Every code point: the tokenizer takes it as printable only where ``str.isprintable``
    does (rust/core/src/read/printable.rs, written from Python 3.11's Unicode 14.0 tables by
    scripts/gen_printable.py); on that Unicode version, exactly where it does."""
    import unicodedata

    from urlset._core import printable

    exact = unicodedata.unidata_version == "14.0.0"
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue  # not a character Rust's str holds
        ch = chr(code)
        if exact:
            assert printable(ch) == ch.isprintable(), hex(code)
        else:
            assert not printable(ch) or ch.isprintable(), hex(code)


@pytest.mark.parametrize(
    "text",
    [
        "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",  # Greek
        "\u05e2\u05d1\u05e8\u05d9\u05ea",  # Hebrew
        "\u0627\u0644\u0639\u0631\u0628\u064a\u0629",  # Arabic
        "\u0e20\u0e32\u0e29\u0e32\u0e44\u0e17\u0e22",  # Thai, with its combining marks
        "Ti\u1ebfng Vi\u1ec7t",  # Vietnamese
        "\u300c\u65e5\u672c\u300d\u3001\u3002\uff01",  # CJK punctuation, fullwidth
        "Sale \U0001f600 \U0001f6d2 \u2605",  # emoji
        "e\u0301 combining",
    ],
)
def test_captions_in_any_script_are_typed_by_the_tokenizer(text: str) -> None:
    inner = f"<image:caption>{text}</image:caption><image:title>{text}</image:title>"
    doc = _doc(*(_entry(i, _image(f"https://cdn.example.com/{i}.jpg", inner)) for i in range(4)))
    calls, (urls, issues, _, _) = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0} and not issues
    assert urls[0].extensions[0].caption == text  # type: ignore[union-attr]
    _same_in_both_lanes(doc, [[1], [5]])


def test_image_entries_at_chunk_boundaries() -> None:
    image = _image("https://cdn.example.com/i/x.jpg", "<image:title>T</image:title>")
    doc = _doc(*(_entry(i, f"    {image}\n") for i in range(8)))
    expected = feed_all(doc, [len(doc)], fast=False)
    # every cut inside the first two entries, the rest of the document in one piece
    for cut in range(doc.index(b"<url>"), doc.index(b"</url>", doc.index(b"</url>") + 1) + 8):
        assert feed_all(doc, [cut, len(doc)]) == expected, cut


def test_locs_the_core_makes_uris_of_keep_their_images() -> None:
    doc = _doc(
        "<url><loc>https://bücher.example/café</loc>"
        + _image("https://cdn.example.com/i/1.jpg")
        + "</url>",
        _entry(2),
    )
    calls, (urls, issues, _, _) = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0}
    assert urls[0].loc == "https://xn--bcher-kva.example/caf%C3%A9"
    assert urls[0].extensions == (Image("https://cdn.example.com/i/1.jpg"),)  # type: ignore[union-attr]
    assert [i.code for i in issues] == ["normalized-url"]
    _same_in_both_lanes(doc, [[1], [50]])


@pytest.mark.parametrize(
    "images",
    [
        _image("https://CDN.example.com/i.jpg"),  # a URL to normalise
        _image("/i/relative.jpg"),
        _image(""),
        _image(" https://cdn.example.com/i.jpg "),
        _image("https://cdn.example.com/caf\u00e9.jpg"),
        _image("https://cdn.example.com/i.jpg?a&b"),  # a bare '&': not well-formed
        _image("https://cdn.example.com/&#105;.jpg"),
        _image("not a url"),
        _image("https://cdn.example.com/i.jpg", "<image:caption>a &#38; b</image:caption>"),
        _image("https://cdn.example.com/i.jpg", "<image:caption>nbsp\u00a0</image:caption>"),
        _image("https://cdn.example.com/i.jpg", "<image:caption>\U0001f600</image:caption>"),
        _image("https://cdn.example.com/i.jpg", "<image:caption>tab\there</image:caption>"),
        _image("https://cdn.example.com/i.jpg", "<image:caption>line\nbreak</image:caption>"),
        _image("https://cdn.example.com/i.jpg", "<image:title>caf\u00e9</image:title>"),
        _image("https://cdn.example.com/i.jpg", "<image:title>" + "x" * 3000 + "</image:title>"),
        _image("https://cdn.example.com/i.jpg", "<image:license>https://l.test/</image:license>"),
        _image("https://cdn.example.com/i.jpg", "<image:license>no url</image:license>"),
        _image(
            "https://cdn.example.com/i.jpg",
            "<image:title>t</image:title><image:caption>c</image:caption>",
        ),
        _image(
            "https://cdn.example.com/i.jpg",
            "<image:caption>c</image:caption><image:caption>d</image:caption>",
        ),
        _image("https://cdn.example.com/i.jpg", "<image:unknown>u</image:unknown>"),
        _image("https://cdn.example.com/i.jpg", "<!-- c -->"),
        _image("https://cdn.example.com/i.jpg", "<image:title><![CDATA[t]]>u</image:title>"),
        _image("https://cdn.example.com/i.jpg", "<image:title><![CDATA[t\tu]]></image:title>"),
        _image("https://cdn.example.com/i.jpg", "<image:title><![CDATA[]]></image:title>"),
        _image("https://cdn.example.com/i.jpg") + "text between",
        '<image:image xml:lang="en"><image:loc>https://cdn.example.com/i.jpg</image:loc></image:image>',
        "<image:image></image:image>",
        "<image:image><image:title>t</image:title></image:image>",
        "<image:loc>https://cdn.example.com/i.jpg</image:loc>",
        _image("https://cdn.example.com/i.jpg", p="img"),  # a prefix the root does not bind
        _image("https://cdn.example.com/i.jpg")
        + '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de"/>',
        _image("https://cdn.example.com/i.jpg") * 1001,  # over the 1,000 a URL may hold
    ],
)
def test_image_values_that_are_not_plain_read_as_the_careful_lane_reads_them(
    images: str,
) -> None:
    more = f' xmlns:xhtml="{XHTML}"' if "xhtml:" in images else ""
    doc = _doc(
        _entry(1), _entry(2, images), _entry(3, _image("https://cdn.example.com/3.jpg")), more=more
    )
    _same_in_both_lanes(doc, [[1], [17], [len(doc) // 2, len(doc)]])


@pytest.mark.parametrize("prefix", ["image", "img", "i_2"])
def test_any_prefix_the_root_binds(prefix: str) -> None:
    image = _image("https://cdn.example.com/i.jpg", p=prefix)
    doc = _doc(*(_entry(i, image) for i in range(5)), prefix=prefix)
    calls, result = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0}
    assert all(len(u.extensions) == 1 for u in result[0])  # type: ignore[union-attr]
    _same_in_both_lanes(doc, [[1], [40]])


def test_images_and_links_together_stay_in_the_tokenizers_runs() -> None:
    """Plain hreflang links beside images are typed by the tokenizer too (media.rs): they
    used to stop its run, one entry at a time."""
    link = '<xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de"/>'
    doc = _doc(
        *(
            _entry(i, _image(f"https://cdn.example.com/{i}.jpg") + (link if i % 2 else ""))
            for i in range(6)
        ),
        more=f' xmlns:xhtml="{XHTML}"',
    )
    calls, result = _counted(doc, [len(doc)])
    assert calls == {"stops": 0, "pieces": 0}
    assert result == feed_all(doc, [len(doc)], fast=False)


def _extension_files(shared: Path) -> list[Path]:
    corpus = shared / "corpus"
    return sorted(
        p
        for p in corpus.rglob("*.xml")
        if b"xmlns:" in p.read_bytes()[:4096] and b"<urlset" in p.read_bytes()[:4096]
    )


def test_every_corpus_file_with_extensions_reads_the_same_in_both_lanes(shared: Path) -> None:
    files = _extension_files(shared)
    assert len(files) >= 10
    typed = 0
    for path in files:
        data = path.read_bytes()
        expected = feed_all(data, [len(data) or 1], fast=False)
        for size in ([len(data) or 1], [4093]):
            assert feed_all(data, size) == expected, (path.name, size[0])
        calls, _ = _counted(data, [len(data) or 1])
        typed += calls["stops"] == 0 and IMAGE_NS.encode() in data
    assert typed  # some real image sitemap is read without leaving the tokenizer's runs

"""The structure prover's order rule in the compiled core (``_core.breaks_order``,
``core/src/check/order.rs``) finds what the patterns it replaced found: these patterns, run
here on documents made of the tags, spaces and text that decide them."""

from __future__ import annotations

import random
import re

from urlset._core import breaks_order, declares_namespace

_X = rb"[A-Za-z_][\w.\-]*:"
_URLSET = (
    re.compile(
        rb"</(?:loc>\s*<(?!lastmod>|changefreq>|priority>|/url>|" + _X + rb")"
        rb"|lastmod>\s*<(?!changefreq>|priority>|/url>|" + _X + rb")"
        rb"|changefreq>\s*<(?!priority>|/url>|" + _X + rb")"
        rb"|priority>\s*<(?!/url>|" + _X + rb"))"
    ),
    re.compile(rb"<url>\s*<(?!loc>)"),
    re.compile(rb"</" + _X + rb"[^>]*>\s*<(?:loc|lastmod|changefreq|priority)>"),
)
_INDEX = (
    re.compile(
        rb"</(?:loc>\s*<(?!lastmod>|/sitemap>|" + _X + rb")"
        rb"|lastmod>\s*<(?!/sitemap>|" + _X + rb"))"
    ),
    re.compile(rb"<sitemap>\s*<(?!loc>)"),
    re.compile(rb"</" + _X + rb"[^>]*>\s*<(?:loc|lastmod)>"),
)
_TOKENS = [
    *(f"<{n}>".encode() for n in ("url", "sitemap", "loc", "lastmod", "changefreq", "priority")),
    *(f"</{n}>".encode() for n in ("url", "sitemap", "loc", "lastmod", "changefreq", "priority")),
    b"<image:image>", b"</image:image>", b"<image:loc>", b"</image:loc>", b"</x-1.y:z a>",
    b"</:loc>", b"</1a:b>", b"<", b"</", b">", b" ", b"\n", b"\t", b"\x0b", b"\x0c", b"\x85",
    b"text", b"a:b", b"/url>", b"loc>", b"lastmodx>", b"<url >", b"&amp;",
]  # fmt: skip


def _patterns(window: bytes, start: int, index: bool, prefixes: bool) -> bool:
    after, entry, after_extension = _INDEX if index else _URLSET
    return bool(
        after.search(window, start)
        or entry.search(window, start)
        or (prefixes and after_extension.search(window, start))
    )


def test_the_order_rule_finds_what_the_patterns_find() -> None:
    rnd = random.Random(26)
    found = 0
    for _ in range(20_000):
        window = b"".join(rnd.choice(_TOKENS) for _ in range(rnd.randint(0, 14)))
        start = rnd.randint(0, len(window))
        for index in (False, True):
            for prefixes in (False, True):
                expected = _patterns(window, start, index, prefixes)
                found += expected
                assert breaks_order(window, start, index, prefixes) == expected, (
                    window,
                    start,
                    index,
                    prefixes,
                )
    assert found > 1_000  # the documents break the order often enough to tell
    for window in (b"", b"xmlns", b'<urlset xmlns:x="u">', b"xmln", b"<url>xmlns</url>"):
        assert declares_namespace(window) == (b"xmlns" in window)


def test_a_canonical_urlset_keeps_the_order() -> None:
    window = (
        b"<url><loc>https://a.test/</loc><lastmod>2024-01-01</lastmod>"
        b"<image:image><image:loc>https://a.test/1.jpg</image:loc></image:image></url>\n"
        b"<url>\n  <loc>https://a.test/2</loc>\n  <priority>0.5</priority>\n</url>\n"
    )
    assert not breaks_order(window, 0, False, True)
    late = window.replace(b"</priority>", b"</priority><lastmod>2024</lastmod>")
    assert breaks_order(late, 0, False, True)  # a lastmod after the priority
    moved = b"<url><loc>x</loc><image:image></image:image><lastmod>2024</lastmod></url>"
    assert breaks_order(moved, 0, False, True)
    assert not breaks_order(moved, 0, False, False)  # no prefix declared: not extension tags

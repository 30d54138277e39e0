"""The HTML page reader: link resolution's string fast paths agree with urljoin, robots
directives, and what a page gives (base href, nofollow, images)."""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit, urlunsplit

from hypothesis import given
from hypothesis import strategies as st

from sources_support import html_page
from urlset.sources.page import absolute, read_page, robots_directives


def _reference(href: str, base: str) -> str | None:
    href = href.strip()
    if not href or href.startswith("#"):
        return None
    joined = urljoin(base, href)
    parts = urlsplit(joined)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return (
        urlunsplit(parts._replace(fragment=""))
        if parts.fragment or joined.endswith("#")
        else joined
    )


_pieces = st.sampled_from(
    [
        "a",
        "b.html",
        "/",
        "//",
        "./",
        "../",
        "?",
        "#",
        "x=1&y=2",
        ":",
        "é",
        "%41",
        " ",
        "http://",
        "https:",
        "h",
    ]
)
_hrefs = st.lists(_pieces, max_size=6).map("".join)
_bases = st.sampled_from(
    ["http://h/a/b.html", "http://h", "http://h/a/", "https://h:8443/a/b?q=1#f", "https://u@h/x/y/"]
)


@given(_hrefs, _bases)
def test_links_resolve_as_urljoin_does(href: str, base: str) -> None:
    assert absolute(href, base) == _reference(href, base)


def test_robots_directives() -> None:
    assert robots_directives("NOINDEX, Follow") == {"noindex", "follow"}
    assert robots_directives("none") == {"noindex", "nofollow"}
    assert robots_directives("googlebot: noindex") == {"noindex"}


def test_base_href_nofollow_and_images() -> None:
    page = html_page(
        head='<base href="https://cdn.example.com/site/"><meta name="robots" content="nofollow">'
        '<meta property="og:image" content="og.png">',
        body='<a href="a.html">a</a><a href="b.html" rel="sponsored nofollow">b</a>'
        '<area href="/c"><img src="i.png"><img src="i.png"><img src="data:x">',
    )
    facts = read_page(page.encode(), "https://www.example.com/p/", links=True, images=True)
    assert facts.nofollow and not facts.noindex
    assert facts.links == ("https://cdn.example.com/site/a.html", "https://cdn.example.com/c")
    assert facts.images == (
        "https://cdn.example.com/site/og.png",
        "https://cdn.example.com/site/i.png",
    )


def test_an_empty_or_broken_page_gives_no_facts() -> None:
    assert read_page(b"", "https://e.com/") == read_page(b"\x00\xff<<<", "https://e.com/")
    assert read_page(b"", "https://e.com/").canonical is None

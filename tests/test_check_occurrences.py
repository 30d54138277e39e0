"""Where check's findings' locs are written (``positions._occurrences``): the compiled core
(``_core.ElementTexts``) finds the texts and looks them up; Python's ``re.finditer`` of the
same pattern with a set lookup is the reference, held equal here on windows with '>' and
'<' in odd places, needles present and absent, escaped and not, whole and in windows."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from urlset import _core
from urlset.checking import positions
from urlset.checking import windows as windowing

# what a document around the locs is made of: tags, texts with '>' and '<' where XML has
# none, entities, the locs themselves (appended per example), line ends
PIECES = [
    "<url>",
    "</url>",
    "<loc>",
    "</loc>",
    "<image:loc>",
    "</image:loc>",
    ">",
    "<",
    "><",
    ">>",
    "x",
    "https://",
    "&amp;",
    "\n",
    " ",
    "é",
]
LOCS = [
    "https://a.test/1",
    "https://a.test/1&q=2",
    "https://a.test/1&amp;q=2",
    "https://b.test/é",
    "http://c.test/",
    "x>https://a.test/1",
    "a<b",
    "x",
    ">",
]


def _reference(data: bytes, needles: set[bytes], prefixes: list[bytes] | None) -> dict:
    """What ``_occurrences`` gave before the core did it: every match of the pattern whose
    text is a needle, its offset in document order."""
    body = rb"[^<]+"
    if prefixes is not None:
        body = rb"(?:" + b"|".join(map(re.escape, prefixes)) + rb")[^<]*"
    found: dict[bytes, list[int]] = {}
    for m in re.finditer(rb">(" + body + rb")<", data):
        if m.group(1) in needles:
            found.setdefault(m.group(1), []).append(m.start(1))
    return found


def _core_found(data: bytes, needles: set[bytes], prefixes: list[bytes] | None) -> dict:
    texts = _core.ElementTexts(needles, prefixes)
    texts.scan(data, 0)
    return texts.found


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES + LOCS), max_size=40),
    st.sets(st.sampled_from(LOCS), min_size=1),
    st.integers(min_value=1, max_value=12),
    st.booleans(),
)
@example(["<loc>", "x>https://a.test/1", "</loc>"], {"https://a.test/1"}, 8, True)
@example(["<loc>", "https://a.test/1", "</loc>"], {"https://a.test/1"}, 8, False)
@example([">", "a<b", "<"], {"a<b", "x"}, 3, True)
def test_the_core_finds_the_texts_the_pattern_finds(
    pieces: list[str], locs: set[str], prefix: int, many: bool
) -> None:
    data = "".join(pieces).encode()
    needles = {loc.encode() for loc in locs} | {
        loc.encode().replace(b"&", b"&amp;") for loc in locs
    }
    cut = sorted({n[:prefix] for n in needles}, key=len, reverse=True)
    for prefixes in (None, cut) if many else (cut,):
        assert _core_found(data, needles, prefixes) == _reference(data, needles, prefixes)


def test_an_empty_prefix_matches_empty_texts_as_the_pattern_does() -> None:
    data = b"<a><b>x</b>>y<</a>"
    needles = {b"x", b"y", b""}
    assert _core_found(data, needles, [b""]) == _reference(data, needles, [b""])
    assert _core_found(data, needles, None) == _reference(data, needles, None)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(LOCS[:5]), min_size=1, max_size=60), st.integers(1, 300))
def test_whole_and_in_windows_alike(locs: list[str], window: int) -> None:
    """The offsets are the document's, however the windows are cut, for each way
    ``_occurrences`` has (a few needles, a few prefixes, many prefixes)."""
    rows = [f"<url><loc>{loc.replace('&', '&amp;')}</loc></url>\n" for loc in locs]
    data = ("<urlset>\n" + "".join(rows) + "</urlset>\n").encode()
    chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    windows = windowing.windows_of(lambda: chunks, False, window=window)
    whole = windowing.whole_windows(data)
    needles = {loc.encode() for loc in locs}
    # more needles than a few, of a few prefixes; more prefixes than a few
    shared = {n + b"/%d" % i for n in needles for i in range(40)} | needles
    distinct = {b"%02d" % i + n for n in needles for i in range(80)} | needles
    for wanted in (needles, shared, distinct):
        found = positions._occurrences(windows, wanted, "urlset")
        assert found == positions._occurrences(whole, wanted, "urlset")
        assert found == _reference(data, wanted, None)

"""The check's provers judge a document a window at a time; their verdicts must not depend on
where the windows are cut: windows of a few bytes (cut after nearly every entry) give what
one window over the whole document gives, on the corpus and on faults placed at the cuts."""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from urlset.checking import document, positions, raw_text
from urlset.checking import windows as windowing
from urlset.checking.document import CheckOptions, check_document
from urlset.checking.findings import Findings
from urlset.checking.progress import Progress
from urlset.checking.scan import Provers
from urlset.limits import CURRENT
from urlset.model import Issue

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
GOOD = "<url><loc>https://a.test/{n}</loc><lastmod>2025-01-01</lastmod></url>\n"


def _judged(
    data: bytes, window: int, piece: int, max_window: int | None = None
) -> tuple[tuple[bool, bool, bool], list[Issue]]:
    """The provers' verdicts (locs plain, a urlset's order, an index's order) and the loc
    findings, with their places."""
    pieces = [data[i : i + piece] for i in range(0, len(data), piece)]
    most = len(data) + 1 if max_window is None else max_window
    found = Findings("doc")
    provers = Provers(CURRENT, found, window=window, max_window=most).run(lambda: pieces)
    structure = provers.structure
    assert structure is not None
    verdicts = (provers.locs_plain, structure.proves("urlset"), structure.proves("sitemapindex"))
    return verdicts, found.placed


def _verdict(
    data: bytes, window: int, piece: int, max_window: int | None = None
) -> tuple[bool, bool, bool]:
    return _judged(data, window, piece, max_window)[0]


WINDOWS = ((1, 7), (16, 3), (64, 64), (200, 1000))


def _same_in_windows(data: bytes, windows: tuple[tuple[int, int], ...] = WINDOWS) -> None:
    whole = _judged(data, len(data) + 1, len(data) + 1)
    for window, piece in WINDOWS:
        assert _judged(data, window, piece) == whole, (window, piece)


def _doc(*entries: str) -> bytes:
    return (HEAD + "".join(entries) + "</urlset>\n").encode()


CASES = {
    "plain": _doc(*(GOOD.format(n=n) for n in range(20))),
    "order after a cut": _doc(
        GOOD.format(n=1),
        "<url><lastmod>2025-01-01</lastmod><loc>https://a.test/2</loc></url>",
        GOOD.format(n=3),
    ),
    "entry without end tag": _doc(
        GOOD.format(n=1), "<url><loc>https://a.test/2</loc><priority>0.5</priority>\n<url>"
    ),
    "loc with a raw space": _doc(GOOD.format(n=1), "<url><loc>https://a.test/a b</loc></url>"),
    "loc with an unescaped ampersand": _doc("<url><loc>https://a.test/?a=1&b=2</loc></url>"),
    "a second default namespace late": _doc(
        *(GOOD.format(n=n) for n in range(5)),
        f'<url xmlns="{NS}"><loc>https://a.test/x</loc></url>',
    ),
    "a prefix declared late": _doc(
        *(GOOD.format(n=n) for n in range(5)),
        '<url><loc>https://a.test/y</loc><x:y xmlns:x="urn:x">1</x:y><lastmod>2025-01-01'
        "</lastmod></url>",
    ),
    "comment between entries": _doc(GOOD.format(n=1), "<!-- a note -->", GOOD.format(n=2)),
    "index written as a urlset": (
        f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://a.test/s.xml</loc></sitemap>'
        "<sitemap><lastmod>2025-01-01</lastmod><loc>https://a.test/t.xml</loc></sitemap>"
        "</sitemapindex>"
    ).encode(),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_verdict_does_not_depend_on_the_windows(name: str) -> None:
    _same_in_windows(CASES[name])


def test_the_faults_are_seen_in_small_windows() -> None:
    """Not only the same verdict: the faults above are found (each case is not plain)."""
    for name, data in CASES.items():
        locs, urlset, index = _verdict(data, 16, 5)
        if name in ("plain", "comment between entries"):  # the walk drops comments
            assert (locs, urlset, index) == (True, True, False)
        elif name.startswith("loc with"):
            assert not locs, name
        elif name == "index written as a urlset":
            assert not index
        else:
            assert not urlset, name


def test_the_corpus_gets_the_same_verdicts_in_small_windows(shared: Path) -> None:
    files = sorted(
        p for p in (shared / "corpus").rglob("*") if p.is_file() and p.suffix in (".xml", ".txt")
    )
    assert files
    for path in files:
        data = path.read_bytes()[:200_000]
        _same_in_windows(data, ((64, 4096), (1000, 1000)))


def test_no_entry_end_within_the_largest_window_proves_no_order() -> None:
    """Past ``max_window`` bytes without an entry's end tag the structure prover gives up:
    the lxml walk decides (a cost in time, never a missed finding); the locs are judged in
    the window that grows until an entry ends."""
    data = _doc(*(GOOD.format(n=n) for n in range(20)))
    assert _verdict(data, 16, 5) == (True, True, False)
    assert _verdict(data.replace(b"</url>", b"</url >"), 16, 5, max_window=100) == (
        True,
        False,
        False,
    )
    spaced = data.replace(b"a.test/3<", b"a.test/a 3<").replace(b"</url>", b"</url >")
    verdicts, placed = _judged(spaced, 16, 5, max_window=100)
    assert verdicts == (False, False, False)
    assert [(i.code, i.line) for i in placed] == [("url-not-escaped", 6)]


# --- placing findings a window at a time --------------------------------------------------------


class _Pieces:
    """A document given a few bytes at a time (a Source), so that windows are cut often."""

    def __init__(self, data: bytes, size: int) -> None:
        self.data = data
        self.size = size

    def __iter__(self) -> Iterator[bytes]:
        for start in range(0, len(self.data), self.size):
            yield self.data[start : start + self.size]


def _flagged(one_line: bool) -> bytes:
    """Entries with findings placed at their loc or at their value: future lastmods, bad
    priorities and changefreqs, repeated locs (with &amp; and without), an extension."""
    end = "" if one_line else "\n"
    rows = []
    for j in range(60):
        loc = (
            f"https://a.test:8443/caf%C3%A9/{j % 9}?a=1&amp;b={j % 4}"
            if j % 3
            else f"https://a.test/p/{j % 7}"
        )
        lastmod = "2027-01-0" + str(1 + j % 9) if j % 5 == 0 else "2025-01-01"
        priority = f"<priority>{'1.5' if j % 4 == 0 else '0.5'}</priority>"
        freq = "<changefreq>sometimes</changefreq>" if j % 7 == 0 else ""
        image = f"<image:image><image:loc>{loc}</image:loc></image:image>" if j % 11 == 0 else ""
        gap = end if j % 2 else ""
        rows.append(
            f"<url>{gap}<loc>{loc}</loc>{gap}<lastmod>{lastmod}</lastmod>{freq}{priority}"
            f"{image}</url>{end}"
        )
    image_ns = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>{end}<urlset xmlns="{NS}" {image_ns}>{end}'
        + "".join(rows)
        + "</urlset>\n"
    ).encode()


PLACED = {
    "flagged": _flagged(False),
    "flagged on one line": _flagged(True),
    "text": b"https://a.test/1\nhttps://a.test/a b\n\nnot a url\nhttps://a.test/\xff\n"
    b"https://b.test/1\n  https://a.test/2  \nhttps://a.test/1\nfooter",
}


@pytest.mark.parametrize("name", sorted(PLACED))
@pytest.mark.parametrize(("piece", "window"), [(1, 1), (7, 40), (64, 300)])
def test_positions_do_not_depend_on_the_windows(
    name: str, piece: int, window: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The findings placed a window at a time (entries, value columns, text lines) are those
    placed in one window over the whole document, positions included."""
    options = CheckOptions(now=datetime(2026, 1, 1, tzinfo=UTC), base_url="https://a.test/")
    data = PLACED[name]
    whole = check_document(data, options, "doc").issues
    placed = [i for i in whole if i.line and i.column]
    assert len(placed) >= 5  # the document has findings to place
    small = functools.partial(windowing.windows_of, window=window)
    monkeypatch.setattr(document, "windows_of", small)
    assert check_document(_Pieces(data, piece), options, "doc").issues == whole


# the XML's ways to write a character in a loc (only & and ' are plain in a URI as they
# are), with the findings the careful scan gives (< and > the reader percent-encodes)
ENTITY_CODES = {
    "&amp;": set(),
    "&apos;": set(),
    "&quot;": {"url-not-escaped"},
    "&lt;": {"normalized-url"},
    "&gt;": {"normalized-url"},
    "&#39;": set(),
    "&#038;": set(),
    "&#x27;": set(),
    "&#x22;": {"url-not-escaped"},
}
# the references the reader reads in a plain loc (WordPress's and PHP's): its records proven
READER_PLAIN = ("&#39;", "&#038;", "&#x27;")


@pytest.mark.parametrize("entity", sorted(ENTITY_CODES))
def test_entities_in_a_loc(entity: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loc with &amp; or &apos; (as build writes ' ) is proven plain in the windows; any
    other entity takes the Python rules on the loc text, which judge the character it stands
    for, unless the reader proved the text gives them nothing (&lt; and &gt;: its
    normalized-url says what it read, and check reads no loc text again; the character
    references of & and ' it reads in a plain record)."""
    image = 'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    data = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" {image}>\n'
        + "".join(GOOD.format(n=n) for n in range(5))
        + f"<url><loc>https://a.test/q?a=1{entity}b</loc><image:image><image:loc>"
        "https://a.test/i.jpg</image:loc></image:image></url>\n</urlset>\n"
    ).encode()
    plain = entity in ("&amp;", "&apos;")
    assert _verdict(data, 64, 7)[0] is plain
    careful: list[bytes] = []
    loc_text = raw_text._loc_text
    monkeypatch.setattr(
        raw_text, "_loc_text", lambda text, *rest: careful.append(text) or loc_text(text, *rest)
    )
    result = check_document(data, CheckOptions(now=datetime(2026, 1, 1, tzinfo=UTC)), "doc")
    assert {i.code for i in result.issues} - {"dev-host"} == ENTITY_CODES[entity]
    assert bool(careful) is (entity not in ("&amp;", "&apos;", "&lt;", "&gt;", *READER_PLAIN))


def test_locs_not_plain_are_judged_a_window_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """IRIs, spaces and a raw & in locs: their findings (with lines and columns) come from
    the windows; the document is never read whole for them."""
    rows = [
        "<url><loc>https://a.test/café-{n}</loc></url>\n",
        "<url><loc>https://a.test/a b{n}</loc></url>\n",
        "<url>\n  <loc>https://a.test/{n}?a=1&amp;b=2</loc></url>\n",
    ]
    data = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        + "".join(rows[n % 3].format(n=n) for n in range(300))
        + "</urlset>\n"
    ).encode()
    whole = check_document(data, CheckOptions(), "doc")

    def held(self: object) -> bytes:
        raise AssertionError("the document read whole")

    monkeypatch.setattr(document._Again, "plain", held)
    monkeypatch.setattr(document, "windows_of", functools.partial(windowing.windows_of, window=512))
    windowed = check_document(data, CheckOptions(), "doc")
    assert windowed.issues == whole.issues
    codes = {(i.code, i.line, i.column) for i in windowed.issues}
    assert ("normalized-url", 3, 11) in codes
    assert ("url-not-escaped", 4, 11) in codes


def test_a_few_locs_are_found_where_every_text_is_looked_at(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A few pending locs are looked for as themselves, not among every element's text; the
    places are the same, a '>' inside a text included (a text that starts like a loc takes
    in what follows its '>')."""
    data = (
        b"<urlset><url><loc>https://a.test/1</loc></url>"
        b"<url><loc>https://a.test/x>https://a.test/1</loc></url>"
        b"<url><loc>x>https://a.test/1</loc></url></urlset>"
    )
    needles = {b"https://a.test/1", b"https://b.test/2"}
    windows = windowing.whole_windows(data)
    few = positions._occurrences(windows, needles, "urlset")
    monkeypatch.setattr(positions, "_FEW", 0)
    assert positions._occurrences(windows, needles, "urlset") == few
    assert few == {b"https://a.test/1": [18, data.rindex(b"https://a.test/1")]}


def test_a_few_locs_are_found_as_the_pattern_finds_them() -> None:
    """``bytes.find`` of ``>loc<`` gives the pattern's matches, a loc written twice and two
    locs side by side included; a loc with a '<' (which could overlap another's match) is
    found by the pattern itself."""
    data = (
        b"<urlset><url><loc>https://a.test/1</loc><x>https://a.test/2</x></url>"
        b"<url><loc>https://a.test/2</loc><loc>https://a.test/1</loc></url>"
        b"<url><loc>https://a.test/<</loc><loc>https://a.test/<<</loc></url></urlset>"
    )
    texts = re.compile(rb">([^<]+)<")
    for needles in (
        {b"https://a.test/1"},
        {b"https://a.test/1", b"https://a.test/2"},
        {b"https://a.test/<"},
    ):
        pattern = re.compile(rb">(" + b"|".join(map(re.escape, needles)) + rb")<")
        expected = [(m.start(), m.group(1)) for m in pattern.finditer(data)]
        assert positions._marked_texts(needles)(data) == expected
        found = positions._few_occurrences(windowing.whole_windows(data), needles, texts, None)
        assert sum(map(len, found.values())) == len(expected) > 0


@pytest.mark.parametrize("fmt", ["urlset", "text"])
def test_placing_a_few_findings_stops_at_the_window_that_places_them(
    monkeypatch: pytest.MonkeyPatch, fmt: str
) -> None:
    """A finding early in a document (a host's, at its first URL) is placed without reading
    the rest of it again; a loc written twice is placed at its occurrence after the last
    finding's, so the scan goes on until that one; the places are those of a whole scan.
    So in a text sitemap, where a loc is a line's word."""
    form, head, tail, column = {
        "urlset": ("<url><loc>{}</loc></url>\n", "<urlset>\n", "</urlset>\n", 11),
        "text": ("{}\n", "", "", 1),
    }[fmt]
    rows = [form.format(f"https://a.test/{i}") for i in range(6_000)]
    rows[5_000] = form.format("https://a.test/0")  # written again, late
    data = (head + "".join(rows) + tail).encode()
    chunks = [data[i : i + 4096] for i in range(0, len(data), 4096)]

    def placed(pending: list[tuple[str, str, str, bool, int]]) -> list[tuple[int, int]]:
        windows = windowing.windows_of(lambda: chunks, fmt == "text", window=8192)
        issues = positions.place_entries(windows, fmt, pending, "doc", None, lambda: data)
        return [(issue.line, issue.column) for issue in issues]

    def consumed(pending: list[tuple[str, str, str, bool, int]]) -> int:
        """Bytes the placement took from the pieces (a lazy iterator of them)."""
        taken = 0

        def lazy() -> Iterator[bytes]:
            nonlocal taken
            for chunk in chunks:
                taken += len(chunk)
                yield chunk

        windows = windowing.windows_of(lazy, fmt == "text", window=8192)
        positions.place_entries(windows, fmt, pending, "doc", None, lambda: data)
        return taken

    early = [("placeholder-host", "m", "https://a.test/1", False, 1)]
    twice = [
        ("mixed-hosts", "m", "https://a.test/5", True, 5),
        ("duplicate-loc", "m", "https://a.test/0", True, 5_000),
    ]
    assert consumed(early) < len(data) // 3  # two passes (occurrences, lines) of a window each
    assert consumed(twice) > len(data) * 3 // 4
    for pending in (early, twice):
        fast = placed(pending)
        monkeypatch.setattr(Progress, "placed", lambda self, found: False)
        assert placed(pending) == fast
        monkeypatch.undo()
    first_row = 2 if head else 1
    assert placed(twice) == [(first_row + 5, column), (first_row + 5_000, column)]  # at the loc


@pytest.mark.parametrize("text", [False, True])
def test_placing_goes_on_from_the_first_finding_not_placed(text: bool) -> None:
    """``_Progress`` asked after each window (the occurrences grown at their ends) says what
    one asked afresh of the same occurrences says: findings of one loc written many times,
    ordered or not, of two codes, a loc never written."""
    rng = random.Random(26)
    locs = [f"https://a.test/{n}" for n in range(6)]
    for _ in range(200):
        pending = [
            (rng.choice(("a", "b")), "m", rng.choice(locs), rng.random() < 0.7, -1)
            for _ in range(rng.randrange(1, 9))
        ]
        if rng.random() < 0.1:
            pending.append(("a", "m", "https://a.test/never", True, -1))
        offsets = sorted(rng.sample(range(1, 400), 30))
        growing: dict[bytes, list[int]] = {}
        raws = [finding[2].encode() for finding in pending]
        progress = Progress(pending, raws, text)
        for at in offsets:
            needle = rng.choice(locs).encode()
            growing.setdefault(needle, []).append(at)
            if rng.random() < 0.5:
                continue  # a window may add several occurrences
            fresh = Progress(pending, raws, text).placed(growing)
            assert progress.placed(growing) == fresh, (pending, growing)
        fresh = Progress(pending, raws, text).placed(growing)
        assert progress.placed(growing) == fresh


def test_placing_stops_after_the_last_findings_entry_when_the_reader_read_every_entry() -> None:
    """A loc not written as its URI (an IRI, an '&' written '&amp;') is never found as its
    needle, so the first pass read the whole document for it; when the reader passed on
    every entry (its records canonical), the entries are numbered as the document's and the
    pass ends with the last finding's entry. The places are those of the whole pass, for
    findings of every kind (as written, escaped, an IRI placed by its entry number, a loc
    written twice, ordered or not), and a finding's loc written again after its entry does
    not move it there."""
    rows = [f"<url><loc>https://a.test/{i}</loc></url>\n" for i in range(3_000)]
    rows[3] = "<url><loc>https://a.test/café/3</loc></url>\n"
    rows[5] = "<url><loc>https://a.test/5?a=1&amp;b=2</loc></url>\n"
    rows[9] = "<url><loc>https://a.test/7</loc></url>\n"  # the loc of entry 7 again
    data = ("<urlset>\n" + "".join(rows) + "</urlset>\n").encode()
    taken = 0

    def placed(
        pending: list[tuple[str, str, str, bool, int]], every: bool, doc: bytes = data
    ) -> list[Issue]:
        nonlocal taken
        taken = 0

        def lazy() -> Iterator[bytes]:
            nonlocal taken
            for at in range(0, len(doc), 4096):
                taken += len(doc[at : at + 4096])
                yield doc[at : at + 4096]

        windows = windowing.windows_of(lazy, False, window=8192)
        entries = 3_000 if every else None
        return positions.place_entries(
            windows, "urlset", pending, "doc", None, lambda: doc, entries
        )

    iri = ("normalized-url", "m", "https://a.test/caf%C3%A9/3", True, 3)
    amp = ("placeholder-host", "m", "https://a.test/5?a=1&b=2", False, 5)
    again = [
        ("mixed-hosts", "m", "https://a.test/7", True, 7),
        ("duplicate-loc", "m", "https://a.test/7", True, 9),
    ]
    for pending in ([iri], [amp], [iri, amp], again, [amp, *again], [iri, *again]):
        whole = placed(pending, False)
        assert taken >= len(data) or (iri not in pending and amp not in pending)
        assert placed(pending, True) == whole, pending
        assert taken < len(data) // 3
    # entry 3's URI written as such at entry 2,900: the whole pass placed entry 3's
    # finding there; it is at entry 3 (line 5)
    rows[2_900] = "<url><loc>https://a.test/caf%C3%A9/3</loc></url>\n"
    late = ("<urlset>\n" + "".join(rows) + "</urlset>\n").encode()
    assert [(i.line, i.column) for i in placed([iri], False, late)] == [(2_902, 11)]
    assert [(i.line, i.column) for i in placed([iri], True, late)] == [(5, 11)]
    # the last finding in the document's last tenth: the entries are not counted
    near_end = [iri, ("duplicate-loc", "m", "https://a.test/2950", True, 2_950)]
    assert placed(near_end, True) == placed(near_end, False) and taken >= len(data)
    # a finding without an entry number: the whole pass, as before
    unnumbered = [("mixed-hosts", "m", "https://a.test/5?a=1&b=2", False, -1)]
    assert placed(unnumbered, True) == placed(unnumbered, False) and taken >= len(data)


def test_windows_end_at_the_last_entry_end_however_the_pieces_fall() -> None:
    """Each window ends right after the last entry end tag of what was read when it reached
    its size (whichever piece that end is in, or across two), an entry longer than a window
    makes it grow, and the windows joined are the document."""
    rnd = random.Random(26)
    parts = [b"<url><loc>x</loc></url>\n", b"</url>", b"<u", b"rl>", b"</", b"url>", b"</sitemap>"]
    for _ in range(2_000):
        doc = b"".join(rnd.choice([*parts, b"x" * rnd.randint(0, 90)]) for _ in range(40))
        cuts = sorted(rnd.sample(range(len(doc) + 1), min(len(doc) + 1, rnd.randint(0, 12))))
        chunks = [doc[a:b] for a, b in zip([0, *cuts], [*cuts, len(doc)], strict=True)]
        size = rnd.choice([1, 8, 30, 64, 200])
        first = rnd.choice([None, 1, 8, 30])  # the first window's size, doubled each window
        for text in (False, True):
            ends = (b"\n",) if text else (b"</url>", b"</sitemap>")
            expected, held, base = [], b"", 0  # cut at the last end of all that is held
            wanted = size if first is None else min(first, size)
            for chunk in chunks:
                held += chunk
                cut = max((held.rfind(end) + len(end) for end in ends if end in held), default=0)
                if len(held) >= wanted and cut > 0:
                    expected.append((base, held[:cut]))
                    base, held = base + cut, held[cut:]
                    wanted = min(wanted * 2, size)
            if held:
                expected.append((base, held))
            windows = windowing.windows_of(lambda c=chunks: c, text, size, ends, first)
            assert list(windows()) == expected


def test_lines_count_as_bytes_count() -> None:
    """``Lines`` counts lines in the compiled core (``_core.newlines``): what ``bytes.count``
    gives over any slice, clamped as a slice is, and a line of every offset of a window that
    is that of the lines before it."""
    from urlset._core import newlines
    from urlset.checking.lines import Lines

    data = b"a\nbb\r\n\n\xc3\xa9\tc\n" * 3 + b"tail"
    for start in range(len(data) + 3):
        assert newlines(data, start) == data.count(b"\n", start)
        for end in range(len(data) + 3):
            assert newlines(data, start, end) == data.count(b"\n", start, end), (start, end)
    lines = Lines()
    lines.enter(0, data[:9])
    lines.enter(9, data[9:])
    for offset in (0, 3, 12, 11, 20, len(data) - 9 - 1):
        assert lines.line_of(offset) == data.count(b"\n", 0, 9 + offset) + 1, offset

"""The loc texts as written: the compiled core (``_core.loc_texts``) flags the texts worth a
closer look and judges an IRI's itself (too long; that it is no URI is the reader's
normalized-url, which check passes on); everything else goes to the Python rules
(``raw_text._loc_text``). Its verdicts must be theirs, text for text, and a check whose
IRIs are past the caps (only counted) must give what the Python rules give."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from urlset import _core
from urlset.checking import document, raw_text
from urlset.checking.document import CheckOptions, check_document
from urlset.checking.findings import MAX_PER_CODE, Findings
from urlset.limits import CURRENT, Limits
from urlset.reading.reader import SitemapReader

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
# the core's verdicts the rules give a code of (an IRI's non-ASCII is the reader's to say)
CODES = {_core.LOC_TOO_LONG: "url-too-long"}

# the pieces a loc text is made of: URI characters, the entities, the characters the rules
# look at (spaces of every kind Python's str.isspace knows, controls, what a URI forbids,
# a raw &), non-ASCII letters, a byte that is not UTF-8
PIECES = [
    "https://a.test/",
    "p",
    "%C3%A9",
    "?q=1",
    "&amp;",
    "&apos;",
    "&quot;",
    "&lt;",
    "&#39;",
    "&",
    "&amp;apos;",
    "é",
    "ü",
    "日本",
    " ",
    "\t",
    "\x1c",
    "\x7f",
    "\x85",
    "\xa0",
    "\u2003",
    "\u3000",
    "{",
    "|",
    '"',
    "`",
    "\n",
]


def _python_codes(raw: bytes, limits: Limits) -> list[str]:
    found = Findings("doc")
    raw_text._loc_text(raw, 1, 1, limits, found)
    return [issue.code for issue in found.placed]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), min_size=1, max_size=12),
    st.booleans(),
    st.integers(min_value=10, max_value=60),
)
# a raw & that taking "&amp;" out joins into "&apos;" (the core missed it; the fuzz target
# check_loc_texts found it)
@example(["https://a.test/", "&", "&amp;apos;"], False, 60)
def test_the_core_flags_and_judges_as_the_rules_do(
    pieces: list[str], bad: bool, longest: int
) -> None:
    raw = "".join(pieces).encode() + (b"\xff" if bad else b"")
    limits = Limits(name="t", max_loc_length=longest)
    window = b"<url><loc>" + raw + b"</loc></url>\n"
    columns = _core.loc_texts(window, longest, 1, 0)[0]
    expected = _python_codes(raw, limits)
    if not columns[4]:  # nothing worth a closer look: the rules find nothing either
        assert expected == []
        return
    (start,), (end,), (line,), (column,) = (memoryview(c).cast("Q") for c in columns[:4])
    (flags,) = columns[4]
    assert (window[start:end], line, column) == (raw, 1, 11)
    assert bool(flags & _core.LOC_NON_ASCII) == (not raw.isascii() and not flags & _core.LOC_JUDGE)
    if not flags & _core.LOC_JUDGE:
        assert expected == [code for bit, code in CODES.items() if flags & bit]


_ENTITY_VALUES = {"&amp;": "&", "&apos;": "'", "&quot;": '"', "&lt;": "<", "&gt;": ">"}


def _as_read(raw: bytes) -> str | None:
    """A loc text as the reader reads it (``read::values::value_text``: the five entities
    replaced; None for what it does not take: a raw '&', another reference, not UTF-8)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    out, rest = [], text
    while "&" in rest:
        at = rest.index("&")
        entity = next((e for e in _ENTITY_VALUES if rest.startswith(e, at)), None)
        if entity is None:
            return None
        out.append(rest[:at] + _ENTITY_VALUES[entity])
        rest = rest[at + len(entity) :]
    return "".join(out) + rest


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), min_size=1, max_size=12), st.integers(0, 2100))
@example(["https://a.test/", "é"], 2048 - len("https://a.test/"))
@example(["https://a.test/", "&lt;", "é"], 2048 - len("https://a.test/") - 1)
def test_a_text_read_as_an_iri_only_gives_the_rules_nothing(pieces: list[str], pad: int) -> None:
    """A loc text the reader took that ``_core.loc_read_iri_only`` passes (then check reads
    no loc text again) gives the loc-text rules nothing to say: no Python finding, no
    too-long verdict of the core's."""
    raw = ("".join(pieces) + "p" * pad).encode()
    text = _as_read(raw)
    if text is None or not _core.loc_read_iri_only(text.strip()) or text != text.strip():
        return
    assert _python_codes(raw, CURRENT) == []
    columns = _core.loc_texts(b"<url><loc>" + raw + b"</loc></url>\n", 2048, 1, 0)[0]
    assert not any(flags & _core.LOC_TOO_LONG for flags in columns[4])


@pytest.mark.parametrize("odd", ["", "a b", "&quot;", "x" * 2100])
@pytest.mark.parametrize("n", [40, 3000])
def test_iris_only_are_not_read_again(odd: str, n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """A urlset of canonical records whose locs are plain or IRIs only (the reader said what
    each was read as) is not read again for its loc texts; one other text among them (a
    space, an entity, too long) has them read again. The findings are the same either way."""
    rows = [
        f"<url><loc>https://a.test/{'café' if k % 3 else 'p'}/{k}</loc></url>\n" for k in range(n)
    ]
    if odd:
        rows[n // 2] = f"<url><loc>https://a.test/é/{odd}</loc></url>\n"
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
    data = (head + "".join(rows) + "</urlset>\n").encode()
    runs: list[int] = []
    provers = document.Provers
    monkeypatch.setattr(document, "Provers", lambda *a, **k: runs.append(1) or provers(*a, **k))
    fast = check_document(data, CheckOptions(), "doc")
    assert runs == ([1] if odd else [])
    monkeypatch.setattr(SitemapReader, "plain_records", property(lambda _: False))
    slow = check_document(data, CheckOptions(), "doc")
    assert runs == [1, 1] if odd else [1]
    assert fast.issues == slow.issues
    assert fast.unlisted == slow.unlisted


def _iris(n: int, long_every: int) -> bytes:
    rows = []
    for k in range(n):
        loc = f"https://a.test/café/{k}" + ("x" * 2100 if k % long_every == 0 else "")
        if k % 7 == 0:
            loc = f"https://a.test/a b/{k}"  # for the Python rules
        rows.append(f"<url>\n  <loc>{loc}</loc>\n</url>\n")
    head = f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
    return (head + "".join(rows) + "</urlset>\n").encode()


@pytest.mark.parametrize(("n", "long_every"), [(40, 3), (MAX_PER_CODE + 700, 500)])
def test_counted_past_the_caps_as_the_rules_find(
    n: int, long_every: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """IRIs past the caps of their codes are counted without their messages: the check
    gives what it gives when the Python rules judge every flagged text (totals, listed
    issues and their places, the too-many-errors lines)."""
    data = _iris(n, long_every)
    options = CheckOptions(limits=CURRENT)
    counted = check_document(data, options, "doc")
    loc_texts = raw_text.loc_texts

    def every_one_judged(*args: object) -> object:
        columns, newlines, last = loc_texts(*args)  # type: ignore[arg-type]
        judged = bytes([_core.LOC_JUDGE]) * len(columns[4])
        return (*columns[:4], judged), newlines, last

    monkeypatch.setattr(raw_text, "loc_texts", every_one_judged)
    judged = check_document(data, options, "doc")
    assert counted.issues == judged.issues
    assert counted.unlisted == judged.unlisted
    assert (counted.errors, counted.warnings) == (judged.errors, judged.warnings)
    codes = counted.code_counts()
    assert codes["normalized-url"] == _read_as_iris(n, long_every)
    assert codes["url-too-long"] == len([k for k in range(0, n, long_every) if k % 7])


def _read_as_iris(n: int, long_every: int) -> int:
    """The reader's normalized-url count for ``_iris(n, long_every)``: each loc it made a URI
    of (a too long one it makes none of) but the ones with a space (url-not-escaped) among
    its first ``MAX_PER_CODE``; past them, each counted unjudged."""
    made = [k for k in range(n) if k % 7 == 0 or k % long_every]
    return len(made) - len([k for k in made[:MAX_PER_CODE] if k % 7 == 0])


def test_one_too_many_errors_line_a_code() -> None:
    """Past the caps, normalized-url is the reader's count (the locs it made URIs of), which
    check passes on: one line says how many more, the reader's."""
    n = MAX_PER_CODE + 500
    result = check_document(_iris(n, 10**9), CheckOptions(), "doc")
    summaries = [i.message for i in result.issues if i.code == "too-many-errors"]
    iris = _read_as_iris(n, 10**9)
    assert summaries == [
        f"{iris - MAX_PER_CODE} more normalized-url issues not listed ({iris} in all)"
    ]
    assert result.code_counts()["normalized-url"] == iris


def test_texts_past_a_cap_are_not_judged_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a window of thousands of IRIs, none goes to the Python rules (the reader's
    normalized-url says what each was read as): only the locs with a space do."""
    judged: list[int] = []
    loc_text = raw_text._loc_text
    monkeypatch.setattr(
        # a loc end tag's "\n" before "</url>" is a (blank) text too, flagged for the rules
        raw_text,
        "_loc_text",
        lambda raw, *a: (raw.strip() and judged.append(1)) or loc_text(raw, *a),
    )
    n = 4 * MAX_PER_CODE
    result = check_document(_iris(n, 10**9), CheckOptions(), "doc")
    assert result.code_counts()["normalized-url"] == _read_as_iris(n, 10**9)
    # every loc with a space (for the Python rules)
    assert len(judged) == len(range(0, n, 7))


def _with_foreign_locs(n: int, iri_every: int) -> bytes:
    """``n`` entries, each with an element named loc of another namespace holding an IRI
    (``<other:loc>``), one in ``iri_every`` with an IRI loc of its own, the first with an
    image, and the last written with a prefix of the sitemap namespace (``<sm:loc>``)."""
    rows = []
    for k in range(n):
        loc = f"https://a.test/café/{k}" if k % iri_every == 0 else f"https://a.test/p/{k}"
        other = f"<other:loc>https://a.test/été/{k}</other:loc>"
        image = "<image:image><image:loc>https://a.test/né.jpg</image:loc></image:image>"
        if k == n - 1:
            rows.append(f"<sm:url><sm:loc>{loc}</sm:loc>{other}</sm:url>\n")
        else:
            rows.append(f"<url><loc>{loc}</loc>{other}{image if k == 0 else ''}</url>\n")
    head = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:sm="{NS}" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
        'xmlns:other="https://other.example/ns">\n'
    )
    return (head + "".join(rows) + "</urlset>\n").encode()


@pytest.mark.parametrize("n", [3, 40, 3000, 12_000])
def test_a_foreign_element_named_loc_is_no_url_at_any_size(n: int) -> None:
    """``<other:loc>`` of another namespace is an unknown element, not a loc: no
    normalized-url for its IRI, in a small document or a large one (whose runs the compiled
    core reads), while the locs of the sitemap's own prefixes and images are judged."""
    iri_every = 5
    result = check_document(_with_foreign_locs(n, iri_every), CheckOptions(), "doc")
    named = [i.message for i in result.issues if i.code == "normalized-url"]
    assert not any("été" in message for message in named)
    # the IRI locs (the sitemap's own prefix's too) and the image's
    assert result.code_counts()["normalized-url"] == len(range(0, n, iri_every)) + 1
    assert any("né.jpg" in message for message in named)

"""A reader finding's column found from the last line placed (``RecentLines``' fast way) is
the one the line by line search gives, wherever its value is written."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from urlset.model import Issue, Severity
from urlset.reading.columns import RecentLines

VALUES = ["a", "b&c", "ab", "b", "x y"]
# a document's lines: values in elements, repeated, on other lines, or none
LINE = st.lists(
    st.sampled_from(["<loc>", "</loc>", " ", "<url>", ">"] + [f"<loc>{v}</loc>" for v in VALUES]),
    max_size=4,
).map("".join)


def _placed(pieces: list[bytes], issues: list[Issue], fast: bool) -> list[Issue]:
    recent = RecentLines()
    if not fast:
        recent._best_on_its_line = lambda line, needle, past: 0  # type: ignore[method-assign]
    for piece in pieces:
        recent.add(piece)
    return [
        issue._replace(column=recent.column(issue.code, issue.message, issue.line))
        for issue in issues
    ]


@settings(max_examples=400, deadline=None)
@given(
    lines=st.lists(LINE, min_size=1, max_size=30),
    cuts=st.lists(st.integers(1, 40), max_size=6),
    data=st.data(),
)
def test_the_fast_way_places_as_the_line_by_line_search(
    lines: list[str], cuts: list[int], data: st.DataObject
) -> None:
    text = "\n".join(lines).encode()
    pieces, at = [], 0
    for cut in cuts:
        if at + cut < len(text):
            pieces.append(text[at : at + cut])
            at += cut
    pieces.append(text[at:])
    # findings on the document's lines (and one past them), about values written there or not
    found = data.draw(
        st.lists(
            st.tuples(
                st.integers(1, len(lines) + 1),
                st.sampled_from(VALUES),
                st.sampled_from(["x", "d"]),
            ),
            max_size=8,
        )
    )
    issues = [
        Issue(
            "normalized-url" if kind == "x" else "duplicate-loc",
            Severity.INFO,
            f"{value!r} read as https://example.com/" if kind == "x" else "listed before",
            line,
            0,
            "doc.xml",
            "",
        )
        for line, value, kind in sorted(found)  # a reader's findings come in line order
    ]
    assert _placed(pieces, issues, fast=True) == _placed(pieces, issues, fast=False)
    shuffled = issues[::-1]  # and out of order: the cursor starts again from the piece
    assert _placed(pieces, shuffled, fast=True) == _placed(pieces, shuffled, fast=False)

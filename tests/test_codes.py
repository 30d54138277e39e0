"""The one table of rules (``urlset.codes``): every code any stage can emit has its row, and
one problem has one code and one severity whichever stage reports it.

How the codes are enumerated: every string literal handed as the code to an issue-making
call in ``src/urlset`` (``issue``, ``make_issue``, ``fetch_issue``, ``Issue``, the
checker's ``add``/``at_entry``/``per_host`` and the extensions' ``coded_issue``), every
(code, message) tuple a rule walk returns, fetching's code constants, and each
extension's rows (``EXT_CODES``, assembled from each extension's ``SPEC``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import urlset
from test_read_index_lane import INDEX_ENTRIES, index_document
from test_read_text_lane import BREAKS, LINES, text_document
from urlset.codes import CODES, all_codes, rule
from urlset.extensions import EXT_CODES
from urlset.fetching.issues import FETCH_CODES
from urlset.model import Issue, Severity

PACKAGE = Path(urlset.__file__).parent
_CODE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")  # "truncated", "unknown-root"
_KEBAB = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
_ISSUE_CALLS = frozenset(
    ("issue", "make_issue", "fetch_issue", "Issue", "_issue", "add", "at_entry", "per_host")
)
_ISSUE_CALLS |= {"coded_issue"}


def emitted_codes(under: Path = PACKAGE) -> dict[str, set[str]]:
    """code -> the places (file:line) that emit it, found in the source under ``under``."""
    found: dict[str, set[str]] = {}
    for path in sorted(under.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            literal = None
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                name = getattr(func, "attr", None) or getattr(func, "id", "")
                first = node.args[0]
                if name in _ISSUE_CALLS and isinstance(first, ast.Constant):
                    literal = first.value
                if name == "coded_issue" and len(node.args) > 1:  # (table, code, message)
                    second = node.args[1]
                    literal = second.value if isinstance(second, ast.Constant) else None
            elif isinstance(node, ast.Tuple) and len(node.elts) >= 2:
                first = node.elts[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    literal = first.value if _KEBAB.fullmatch(first.value) else None
            if isinstance(literal, str) and _CODE.fullmatch(literal):
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                found.setdefault(literal, set()).add(where)
    return found


def test_every_emitted_code_has_its_row() -> None:
    table = all_codes()
    emitted = emitted_codes()
    assert len(emitted) > 80  # the scan finds the codes (a broken scan finds none)
    missing = {code: sorted(where)[:2] for code, where in emitted.items() if code not in table}
    assert not missing
    assert set(FETCH_CODES) <= set(table)
    assert set(EXT_CODES) <= set(table)


def test_the_table_is_one_table() -> None:
    table = all_codes()
    for code, row in table.items():
        assert _CODE.fullmatch(code), code
        assert isinstance(row.severity, Severity)
        assert row.title and row.hint, code
        assert rule(code) == row
    # the extensions' rows are found through the same lookup as the core's
    some = next(iter(EXT_CODES))
    assert rule(some) is EXT_CODES[some] and some not in CODES


# ---------------------------------------------------------------- read and check agree

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
# entries, each with the problem it carries (none for the first): every pair of codes the
# reader and the checker both could give for one problem
ENTRIES = (
    "<url><loc>https://www.shop.org/{n}</loc><lastmod>2024-01-02</lastmod></url>",
    "<url><loc>https://www.shop.org/a b{n}</loc></url>",  # a space
    "<url><loc>https://www.shop.org/b|{n}</loc></url>",  # a character no URI holds
    "<url><loc>https://www.shop.org/bücher/{n}</loc></url>",  # an IRI
    "<url><loc>https://WWW.Shop.org/{n}</loc></url>",  # upper case host
    "<url><loc>https://www.shop.org/{n}</loc><lastmod>2024-01-02 10:00</lastmod></url>",
    "<url><loc>https://www.shop.org/{n}</loc><lastmod>someday</lastmod></url>",
    "<url><loc>https://www.shop.org/{n}</loc><changefreq>Daily</changefreq></url>",
    "<url><loc>https://www.shop.org/{n}</loc><changefreq>often</changefreq></url>",
    "<url><loc>https://www.shop.org/{n}</loc><priority>2</priority></url>",
    "<url><loc>https://www.shop.org/{n}</loc><title>x</title></url>",  # unknown element
    "<url><loc>https://www.shop.org/{n}</loc><sitemap>x</sitemap></url>",  # misplaced
    "<url><loc>http://localhost:3000/{n}</loc></url>",  # a development host
    "<url><loc>https://ann:pw@www.shop.org/{n}</loc></url>",  # user and password
    "<url><loc>https://www.shop.org/{n}</loc><lastmod>2999-01-02</lastmod></url>",  # future
    "<url><loc>https://www.shop.org/dup</loc></url>",  # a duplicate, from its second
    "<url><loc>  https://www.shop.org/{n}  </loc></url>",  # white space around
    "<url><loc>https://www.shop.org/{n}</loc><lastmod>2024-01-02</lastmod>"
    "<lastmod>2024-01-03</lastmod></url>",  # repeated
    "<url><loc>/relative/{n}</loc></url>",
    "<url></url>",  # no loc
    "<url><loc>https://www.shop.org/{n}</loc><image:image><image:loc>a b</image:loc>"
    "</image:image></url>",
    "<url><loc>https://www.shop.org/{n}</loc><video:video><video:title>t</video:title>"
    "<video:duration>-5</video:duration></video:video></url>",
    # elements of other namespaces: kept raw (the core keeps the plain ones), an undeclared
    # prefix, one at the urlset's level
    '<url><loc>https://www.shop.org/{n}</loc><other:r a="1"><other:s>t</other:s></other:r></url>',
    '<url><loc>https://www.shop.org/{n}</loc><r xmlns="urn:x"><![CDATA[<c>]]></r></url>',
    "<other:top>x</other:top>",
)
ROOTS = (
    f'<urlset xmlns="{NS}">',
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9/">',  # wrong namespace
    "<urlset>",  # no namespace
    f'<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"'
    ' xmlns:video="http://www.google.com/schemas/sitemap-video/1.1">',
    f'<urlset xmlns="{NS}" xmlns:other="https://other.example/ns">',
)


def _read_and_check(doc: bytes) -> tuple[list[Issue], list[Issue]]:
    from urlset.checking.checker import check_document
    from urlset.reading.reader import read_bytes

    read = read_bytes(doc)
    list(read)
    return list(read.issues), check_document(doc).issues


def _document(root: str, picks: list[int], declared: bool, spread: bool) -> bytes:
    head = '<?xml version="1.0" encoding="UTF-8"?>\n' if declared else ""
    body = "\n".join(ENTRIES[p].format(n=i) for i, p in enumerate(picks))
    if spread:  # an entry's values on lines of their own
        body = body.replace("</loc><", "</loc>\n  <").replace("</lastmod><", "</lastmod>\n  <")
    return f"{head}{root}\n{body}\n</urlset>\n".encode()


DOCUMENTS = (
    st.sampled_from(ROOTS),
    st.lists(st.sampled_from(range(len(ENTRIES))), min_size=1, max_size=12),
    st.booleans(),
    st.booleans(),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(*DOCUMENTS)
def test_every_problem_read_reports_check_reports_alike(
    root: str, picks: list[int], declared: bool, spread: bool
) -> None:
    """The same bytes to read and to check: each issue read gives, check gives too, with
    the same code and severity at the same line and column."""
    doc = _document(root, picks, declared, spread)
    read, checked = _read_and_check(doc)
    found = {(i.code, i.severity, i.line, i.column) for i in checked}
    missing = [i for i in read if (i.code, i.severity, i.line, i.column) not in found]
    assert not missing, (doc.decode(), [str(i) for i in checked])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(*DOCUMENTS, st.integers(min_value=1, max_value=97))
def test_read_places_its_issues_alike_in_any_chunks(
    root: str, picks: list[int], declared: bool, spread: bool, size: int
) -> None:
    """Read in chunks of any size (a value's line cut between two of them), read's issues
    have the positions read of the whole document gives them."""
    from urlset.reading.reader import read_bytes, read_chunks

    doc = _document(root, picks, declared, spread)
    whole = read_bytes(doc)
    list(whole)
    chunked = read_chunks(doc[k : k + size] for k in range(0, len(doc), size))
    list(chunked)
    assert [(i.code, i.line, i.column) for i in chunked.issues] == [
        (i.code, i.line, i.column) for i in whole.issues
    ]


def test_read_issues_carry_the_columns_check_gives() -> None:
    doc = (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        "<url><loc>https://www.shop.org/a</loc><priority>2</priority></url>\n</urlset>\n"
    ).encode()
    read, checked = _read_and_check(doc)
    assert [(i.code, i.line, i.column) for i in read] == [
        (i.code, i.line, i.column) for i in checked
    ]
    assert read[0].column == doc.split(b"\n")[2].index(b">2<") + 2  # the value, 1-based


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(range(len(INDEX_ENTRIES))), min_size=1, max_size=12),
    st.booleans(),
    st.sampled_from(["jsonl", "arrow"]),
)
def test_every_problem_read_reports_in_an_index_check_reports_alike(
    picks: list[int], declared: bool, fmt: str
) -> None:
    """A sitemap index read as ``urlset read`` and ``read_arrow`` read it (the render lane,
    the core rendering its plain entries) and checked: each issue read gives, check gives
    too, with the same code and severity at the same line and column."""
    from urlset.checking.checker import check_document
    from urlset.reading.reader import SitemapReader
    from urlset.reading.rendered import RenderSpec

    doc = index_document(picks, declared)
    reader = SitemapReader("doc", render=RenderSpec(fmt, "}\n", indexes=True))
    read = [e for e in reader.feed(doc) + reader.close() if type(e) is Issue]
    found = {(i.code, i.severity, i.line, i.column) for i in check_document(doc).issues}
    missing = [i for i in read if (i.code, i.severity, i.line, i.column) not in found]
    assert not missing, doc.decode()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        # each line break the reader takes (LF, CR LF, a CR alone): check's lines are its
        st.tuples(st.sampled_from(range(len(LINES))), st.sampled_from(range(len(BREAKS)))),
        min_size=1,
        max_size=14,
    ),
    st.sampled_from(["jsonl", "arrow"]),
)
def test_every_problem_read_reports_in_a_text_sitemap_check_reports_alike(
    picks: list[tuple[int, int]], fmt: str
) -> None:
    """A text sitemap read as ``urlset read`` and ``read_arrow`` read it (the render lane,
    the core rendering its plain lines) and checked: each issue read gives, check gives too,
    with the same code and severity at the same line and column."""
    from urlset.checking.checker import check_document
    from urlset.checking.findings import _SUPERSEDED
    from urlset.reading.reader import SitemapReader
    from urlset.reading.rendered import RenderSpec

    doc = text_document(picks)
    reader = SitemapReader("doc", render=RenderSpec(fmt, "}\n", texts=True))
    read = [e for e in reader.feed(doc) + reader.close() if type(e) is Issue]
    checked = check_document(doc).issues
    found = {(i.code, i.severity, i.line, i.column) for i in checked}
    # a finding check states more precisely on its line (a line that is no URL at all:
    # text-not-url, where read says relative-url)
    said = {(i.code, i.line) for i in checked}
    missing = [
        i
        for i in read
        if (i.code, i.severity, i.line, i.column) not in found
        and not any((code, i.line) in said for code in _SUPERSEDED.get(i.code, ()))
    ]
    assert not missing, doc

"""An index's entries judged at once give what they give one by one: the rules on its refs
(``index_refs.judge_refs`` against ``EntryRules.value`` per ref; the refs taken from the
reader a list at a time, ``ReadResult.batches``, against its iteration), the lines of its
entries (``index_lines.ref_lines_at_once``, the compiled core's pass, against the Python
pass ref by ref, and ``ref_lines_in_pieces``, a run of whole entries at a time, against the
pass over the whole), and where its children lie on disk (``child_paths.local_children``
against ``local_child`` per loc; ``_cut`` and ``all_start_with`` at C speed against a text
at a time)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from urlset.checking import index_lines
from urlset.checking.child_paths import Listed, _cut, local_child, local_children
from urlset.checking.document import CheckOptions, check_document
from urlset.checking.entries import EntryRules
from urlset.checking.findings import Findings
from urlset.checking.index_refs import all_start_with, judge_refs
from urlset.dates import from_formatted
from urlset.extensions.set_checks import SetChecks
from urlset.model import Issue, SitemapRef
from urlset.reading.reader import ReadResult, SitemapReader

NOW = datetime(2026, 11, 29, tzinfo=UTC)
HOSTS = [
    "https://www.example.org",
    "https://shop.example.org",
    "http://localhost:8000",
    "https://localhost",
    "https://other.example.net",
    "https://site.test",
]
LASTMODS = [
    None,
    date(2024, 1, 2),
    date(2027, 1, 1),  # after the latest day
    NOW - timedelta(days=3),
    NOW + timedelta(hours=1),  # in the future
    datetime(2024, 5, 1, 10, tzinfo=timezone(timedelta(hours=2))),
    datetime(2024, 5, 1, 8, tzinfo=UTC),  # the same instant as the one before
    from_formatted("2024"),
    from_formatted("2024-05"),
]
BASES = [None, "https://www.example.org/", "https://www.example.org/sitemaps/index.xml"]


def _rules(refs: list[SitemapRef], base_url: str | None, now: datetime | None) -> EntryRules:
    return EntryRules(
        Findings("index.xml"),
        SetChecks(),
        refs,
        "index.xml",
        base_url=base_url,
        url_scope=None,
        cross_submit=None,
        now=now,
    )


def _state(rules: EntryRules) -> tuple[object, ...]:
    found = rules.found
    newest = rules.newest()
    return (
        found.pending,
        list(found.by_host.items()),
        found.per_code,
        found.placed,
        found.entry,
        rules.entries,
        rules.careful,
        rules.refs,
        (newest, None if newest is None else repr(newest)),
    )


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(range(len(HOSTS))), st.sampled_from(range(len(LASTMODS)))),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(BASES),
    st.booleans(),
)
def test_refs_judged_at_once_as_one_by_one(
    entries: list[tuple[int, int]], base_url: str | None, with_now: bool
) -> None:
    refs = [
        SitemapRef._trusted(f"{HOSTS[h]}/s{n}.xml", LASTMODS[k]) for n, (h, k) in enumerate(entries)
    ]
    now = NOW if with_now else None
    one_by_one = _rules([], base_url, now)
    for ref in refs:
        one_by_one.value(ref)
    at_once = _rules([], base_url, now)
    judge_refs(at_once, refs)
    one_by_one.found.finish()
    at_once.found.finish()
    assert _state(at_once) == _state(one_by_one)


ENTRIES = [
    "<sitemap><loc>https://e.com/{i}.xml</loc></sitemap>",
    "<sitemap>\n  <loc>https://e.com/{i}.xml</loc>\n  <lastmod>2024-01-02</lastmod>\n</sitemap>",
    "<sitemap><lastmod>2024-01-02</lastmod>\n<loc>https://e.com/{i}.xml</loc></sitemap>",
    "<sitemap><loc> https://e.com/{i}.xml</loc></sitemap>",
    "<sitemap><loc>https://e.com/{i}.xml?a=1&amp;b=2</loc></sitemap>",
    "<sitemap><loc>https://e.com/caf\u00e9/{i}.xml</loc></sitemap>",
    "<sitemap><loc>https://e.com/{i}.xml</loc><loc>https://e.com/x{i}.xml</loc></sitemap>",
    "<!-- <sitemap> --><loc>https://e.com/c{i}.xml</loc>",
    "<sitemap></sitemap>",
    "\n",
    "<sitemap><loc>https://e.com/{i}.xml<b/></loc>\n<loc>https://e.com/{i}.xml</loc></sitemap>",
    "<sitemap><lastmod>2024-01-02</lastmod></sitemap><loc>https://e.com/{i}.xml</loc>",
]
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(range(len(ENTRIES))), min_size=1, max_size=25))
def test_ref_lines_at_once_are_the_pass_ref_by_ref(kinds: list[int]) -> None:
    body = "\n".join(ENTRIES[k].replace("{i}", str(n)) for n, k in enumerate(kinds))
    document = (HEAD + body + "\n</sitemapindex>\n").encode("utf-8")
    reader = SitemapReader("index.xml")
    refs = [e for e in [*reader.feed(document), *reader.close()] if type(e) is SitemapRef]
    at_once = index_lines.ref_lines_at_once(document, refs)
    if at_once is not None:
        assert at_once == index_lines._ref_lines_in_order(document, refs, None)
    if refs and all(k in (0, 1, 2, 9) for k in kinds):  # plain entries: vouched for at once
        assert at_once is not None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(range(len(ENTRIES))), min_size=1, max_size=25),
    st.lists(st.integers(min_value=1, max_value=2000), max_size=8),
)
def test_ref_lines_in_pieces_are_the_pass_over_the_whole(kinds: list[int], cuts: list[int]) -> None:
    body = "\n".join(ENTRIES[k].replace("{i}", str(n)) for n, k in enumerate(kinds))
    document = (HEAD + body + "\n</sitemapindex>\n").encode("utf-8")
    reader = SitemapReader("index.xml")
    refs = [e for e in [*reader.feed(document), *reader.close()] if type(e) is SitemapRef]
    bounds = sorted({cut % len(document) for cut in cuts})
    pieces = [document[a:b] for a, b in pairwise([0, *bounds, len(document)])]
    in_pieces = index_lines.ref_lines_in_pieces(pieces, refs)
    if in_pieces is not None:
        assert in_pieces == index_lines.ref_lines_at_once(document, refs)
    if refs and all(k in (0, 1, 2, 9) for k in kinds):  # plain entries: vouched for in pieces
        assert in_pieces is not None


HEADS = ["https://www.example.org/sitemaps", "https://www.example.org", "", "s", "https:/"]
TAILS = ["s1.xml", "s2.xml.gz", "", "a/s3.xml", "a/", "/"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(HEADS), st.sampled_from(TAILS)), min_size=1, max_size=12),
    st.booleans(),
)
def test_texts_cut_at_once_as_one_by_one(parts: list[tuple[str, str]], as_list: bool) -> None:
    texts = [f"{head}/{tail}" if head else tail for head, tail in parts]
    heads, names = _cut(texts if as_list else iter(texts))
    assert heads == [text.rpartition("/")[0] for text in texts]
    assert names == [text.rpartition("/")[2] for text in texts]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(["ab", "abc", "a", "", "b", "aab", "ab\U0010ffff", "ac"]), min_size=1),
    st.sampled_from(["", "a", "ab", "abc", "b"]),
)
def test_all_start_with_is_each_start(texts: list[str], prefix: str) -> None:
    assert all_start_with(texts, prefix) == all(text.startswith(prefix) for text in texts)


REF_ENTRIES = [
    "<sitemap><loc>https://e.com/{i}.xml</loc><lastmod>2024-01-02</lastmod></sitemap>",
    "<sitemap><loc>/relative/{i}.xml</loc></sitemap>",
    "<sitemap><loc>https://e.com/{i}.xml</loc><lastmod>2024-13-45</lastmod></sitemap>",
    "<sitemap><loc>https://e.com/{i}.xml</loc><lastmod>2031-01-02</lastmod></sitemap>",
    "<sitemap><loc>https://other.example.net/{i}.xml</loc></sitemap>",
    "<sitemap><lastmod>2024-01-02</lastmod></sitemap>",
    "<sitemap><loc>https://e.com/{i}.xml</loc><changefreq>daily</changefreq></sitemap>",
    "<sitemap>\n  <loc>http://localhost/{i}.xml</loc>\n</sitemap>",
]


def _index(kinds: list[int]) -> bytes:
    body = "\n".join(REF_ENTRIES[k].replace("{i}", str(n)) for n, k in enumerate(kinds))
    return (HEAD + body + "\n</sitemapindex>\n").encode("utf-8")


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(range(len(REF_ENTRIES))), min_size=1, max_size=20),
    st.integers(min_value=1, max_value=300),
)
def test_batches_are_the_iteration(kinds: list[int], chunk: int) -> None:
    document = _index(kinds)
    chunks = [document[at : at + chunk] for at in range(0, len(document), chunk)]
    one_by_one = ReadResult(SitemapReader("index.xml"), chunks, with_issues=True)
    events = list(one_by_one)
    at_once = ReadResult(SitemapReader("index.xml"), chunks, with_issues=True)
    batched = []
    for batch, kinds_in in at_once.batches():
        assert kinds_in == set(map(type, batch))
        batched += batch
    assert batched == events
    assert at_once.issues == one_by_one.issues


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(range(len(REF_ENTRIES))), min_size=1, max_size=20))
def test_check_takes_the_readers_refs_and_issues(kinds: list[int]) -> None:
    """Check's refs are the reader's, in order, and each issue the reader gives is among
    check's findings: the refs taken a list at a time lose none and take no issue."""
    document = _index(kinds)
    result = check_document(document, CheckOptions(now=NOW), "index.xml")
    read = ReadResult(SitemapReader("index.xml"), [document], with_issues=True)
    events = list(read)
    assert result.refs == [e for e in events if type(e) is SitemapRef]
    found = {(i.code, i.line) for i in result.issues}
    told = {(i.code, i.line) for i in events if type(i) is Issue and i.code != "dev-host"}
    assert told <= found  # (dev-host: check reports it per host, its URLs counted)


CHILD_FILES = [
    "s1.xml",
    "s2.xml.gz",
    "index.xml",
    "sitemaps/s1.xml",
    "sitemaps/s3.xml",
    "a/b/s4.xml",
]
CHILD_FOLDERS = ["sitemaps/s5.xml", "empty"]  # folders named like a child, and none
CHILD_LOCS = [
    "https://www.example.org/s1.xml",
    "https://www.example.org/s2.xml.gz",
    "https://www.example.org/s9.xml",
    "https://www.example.org/index.xml",
    "https://www.example.org/sitemaps/s1.xml",
    "https://www.example.org/sitemaps/s3.xml",
    "https://www.example.org/sitemaps/s5.xml",
    "https://www.example.org/sitemaps/s9.xml",
    "https://www.example.org/a/b/s4.xml",
    "https://www.example.org/a/b/s9.xml",
    "https://www.example.org/s1.xml?x=1",
    "https://www.example.org/s%31.xml",
    "https://www.example.org/x#s1.xml",
    "https://www.example.org/sitemaps/",
    "https://www.example.org/sitemaps/..",
    "https://www.example.org/a/../s1.xml",
    "https://www.example.org/a//s9.xml",
    "https://www.example.org/./s9.xml",
    "https://www.example.org",
    "https://cdn.example.net/x/s1.xml",
    "https://cdn.example.net/s9.xml",
    "s1.xml",
    "/sitemaps/s3.xml",
]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(CHILD_LOCS), min_size=1, max_size=20),
    st.sampled_from([None, "https://www.example.org/", "https://www.example.org/sitemaps"]),
    st.sampled_from(["", "sitemaps"]),
)
def test_children_found_at_once_where_one_by_one(
    tmp_path_factory: object, locs: list[str], root_url: str | None, inner: str
) -> None:
    assert hasattr(tmp_path_factory, "mktemp")
    top: Path = tmp_path_factory.mktemp("children")
    for name in CHILD_FILES:
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text("x")
    for name in CHILD_FOLDERS:
        (top / name).mkdir(parents=True, exist_ok=True)
    index_path = top / inner / "index.xml" if inner else top / "index.xml"
    index_path.parent.mkdir(parents=True, exist_ok=True)
    index_path.write_text("x")
    root = index_path.parent
    one_by_one = [local_child(loc, index_path, root, root_url, Listed()) for loc in locs]
    made, files = local_children(locs, index_path, root, root_url, Listed())
    wheres = made()
    expected_files = [(i, local) for i, (local, is_file) in enumerate(one_by_one) if is_file]
    assert [(i, str(local)) for i, local in files] == [(i, str(p)) for i, p in expected_files]
    assert wheres == [
        "" if local is None or is_file else str(local) for local, is_file in one_by_one
    ]

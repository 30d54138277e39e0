"""The values the compiled lane makes itself (rust/py/src/lastmods.rs, read.rs) are exactly the
careful lane's: lastmods (type, fields, precision, zone), the issues of locs made URIs past
the listed ones, the origins a scan hands the sink.

Datetimes compare equal when they are the same instant, whatever their zones: ``strict``
compares them field by field, zone included.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from test_read_support import feed_all, urlset
from urlset import _core
from urlset.dates import parse_lenient
from urlset.model import ChangeFreq, Url
from urlset.reading.sink import MAX_ISSUES_PER_CODE

OFFSETS = ["Z", "+00:00", "-00:00", "+05:30", "-09:45", "+23:59", "-23:59", "+01:00", "-01:00"]
FRACTIONS = ["", ".1", ".12", ".123", ".1234", ".12345", ".123456", ".000000", ".5"]


def strict(value: object) -> object:
    """What tells two lastmods apart: the type, every field, the zone and its offset."""
    if isinstance(value, datetime):
        return (datetime, value.timetuple()[:6], value.microsecond, value.tzinfo, value.utcoffset())
    if isinstance(value, date):
        return (type(value), value.toordinal())
    return value


def lastmods_of(result: tuple[object, ...]) -> list[object]:
    entries = result[0]
    assert isinstance(entries, list)
    return [strict(e.lastmod) for e in entries]


def both_lanes(doc: bytes) -> tuple[tuple[object, ...], tuple[object, ...]]:
    fast = feed_all(doc, [len(doc)])
    full = feed_all(doc, [len(doc)], fast=False)
    assert fast == full
    assert lastmods_of(fast) == lastmods_of(full)
    return fast, full


def test_every_offset_form_and_fraction_is_the_careful_lanes_value() -> None:
    texts = [f"2024-02-29T23:59:58{f}{o}" for o in OFFSETS for f in FRACTIONS]
    texts += ["2024-02-29", "0001-01-01", "9999-12-31", "9999-12-31T23:59:59.999999-23:59"]
    records = [
        f"<url><loc>https://a.test/{i}</loc><lastmod>{t}</lastmod></url>"
        for i, t in enumerate(texts)
    ]
    fast, _ = both_lanes(urlset(*records))
    values = [e.lastmod for e in fast[0]]  # type: ignore[attr-defined]
    assert len(values) == len(texts)
    for text, value in zip(texts, values, strict=True):
        expected, problem = parse_lenient(text)
        assert problem is None and strict(value) == strict(expected), text
        if isinstance(value, datetime) and value.utcoffset() == timedelta(0):
            assert value.tzinfo is UTC, text  # as dates._zone gives it


def test_one_zone_object_per_offset_and_repeated_lastmods_share_their_value() -> None:
    texts = [f"2024-01-0{1 + i % 3}T10:00:00{OFFSETS[i % len(OFFSETS)]}" for i in range(200)]
    records = [
        f"<url><loc>https://a.test/{i}</loc><lastmod>{t}</lastmod></url>"
        for i, t in enumerate(texts)
    ]
    fast, _ = both_lanes(urlset(*records))
    values = [e.lastmod for e in fast[0]]  # type: ignore[attr-defined]
    zones: dict[timedelta | None, set[int]] = {}
    for v in values:
        zones.setdefault(v.utcoffset(), set()).add(id(v.tzinfo))
    assert all(len(ids) == 1 for ids in zones.values()), zones
    offsets = {parse_lenient(f"2024-01-01T00:00:00{o}")[0] for o in OFFSETS}
    assert zones.keys() == {v.utcoffset() for v in offsets}  # type: ignore[union-attr]
    assert all(type(v.tzinfo) is timezone for v in values)
    by_text: dict[str, set[int]] = {}
    for text, v in zip(texts, values, strict=True):
        by_text.setdefault(text, set()).add(id(v))
    assert all(len(ids) == 1 for ids in by_text.values())  # a value kept is given again


def test_more_distinct_lastmods_than_are_kept_stay_exact() -> None:
    """Past the 4,096 values kept (rust/py/src/lastmods.rs forgets them all at once), then
    the first ones again: each still the careful lane's."""
    start = datetime(2024, 3, 1, tzinfo=UTC)
    texts = [(start + timedelta(seconds=7 * i)).isoformat() for i in range(5000)]
    texts += texts[:300] + [f"2024-03-{1 + i % 28:02d}" for i in range(100)]
    records = [
        f"<url><loc>https://a.test/{i}</loc><lastmod>{t}</lastmod></url>"
        for i, t in enumerate(texts)
    ]
    fast, _ = both_lanes(urlset(*records))
    assert len(fast[0]) == len(texts)  # type: ignore[arg-type]


ODD = [
    "2024-12-31T23:59:60Z",  # a leap second: Python has none
    "2024-01-01T24:00:00Z",
    "2024-02-30",
    "2023-02-29T00:00:00Z",
    "2024-01-01T10:30:00z",
    "2024-01-01T10:30:00+0100",
    "2024-01-01T10:30:00+24:00",
    "2024-01-01T10:30:00",
    " 2024-01-01",
    "\u0662\u0660\u0662\u0664",  # Arabic-Indic digits: Python's \d takes them
    "0000-01-01",
]


# W3C forms the core reads itself: the same value (and type: Year, YearMonth) as the careful lane
W3C_FORMS = [
    "2024-01-01T10:30:00.1234567Z",  # seven digits, cut to microseconds
    "2024-01-01T10:30Z",  # no seconds
    "2024-01-01T10:30-05:00",
    "2024-01",
    "2024",
]


def test_every_w3c_form_is_the_careful_lanes_value() -> None:
    for text in W3C_FORMS:
        value, problem = parse_lenient(text)
        made = _core.lastmod_value(text.encode())
        assert problem is None and made == value and type(made) is type(value), text
    records = [
        f"<url><loc>https://a.test/{i}</loc><lastmod>{t}</lastmod></url>"
        for i, t in enumerate(W3C_FORMS)
    ]
    fast, _ = both_lanes(urlset(*records))
    assert [url.lastmod for url in fast[0]] == [parse_lenient(t)[0] for t in W3C_FORMS]  # type: ignore[union-attr]


def test_odd_lastmods_are_handed_back_and_judged_as_the_careful_lane_does() -> None:
    for text in ODD:
        assert _core.lastmod_value(text.encode()) is None, text
    records = [
        f"<url><loc>https://a.test/{i}</loc><lastmod>{t}</lastmod></url>" for i, t in enumerate(ODD)
    ]
    fast, _ = both_lanes(urlset(*records))
    assert len(fast[0]) == len(ODD)  # type: ignore[arg-type]


@settings(max_examples=400, deadline=None)
@given(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    st.integers(-23 * 60 - 59, 23 * 60 + 59),
    st.integers(0, 6),
)
def test_any_datetime_is_the_careful_lanes_value(when: datetime, offset: int, digits: int) -> None:
    sign = "-" if offset < 0 else "+"
    zone = f"{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    fraction = f".{when.microsecond:06d}"[: 1 + digits] if digits else ""
    text = when.strftime("%Y-%m-%dT%H:%M:%S") + fraction + zone
    # strftime pads the year to four digits on glibc only for %Y >= 1000
    text = f"{when.year:04d}" + text[text.index("-") :]
    value = _core.lastmod_value(text.encode())
    expected, problem = parse_lenient(text)
    assert problem is None and strict(value) == strict(expected), text


def test_locs_made_uris_past_the_listed_issues_carry_no_text() -> None:
    """The scanner gives the texts of the first ``texts`` locs made URIs (the issues the sink
    lists), None for the others; the sink then only counts them, as the careful lane does."""
    n = MAX_ISSUES_PER_CODE + 300
    doc = urlset(*(f"<url><loc>https://a.test/café/{i}</loc></url>" for i in range(n)))
    start = doc.index(b"<url>")
    scanner = _core.UrlsetScanner(False, 1 << 20, list(ChangeFreq))
    found = scanner.scan(doc, start, doc.rindex(b"</url>") + 6, 3, n, 5)
    converted = found[9]
    assert len(converted) == n
    assert [c[2] for c in converted[:5]] == [f"https://a.test/café/{i}" for i in range(5)]
    assert all(c[2] is None for c in converted[5:])
    assert [c[3] for c in converted] == found[3]  # the URIs are the locs
    fast, _ = both_lanes(doc)
    issues = fast[1]
    assert isinstance(issues, list)
    assert sum(i.code == "normalized-url" for i in issues) == MAX_ISSUES_PER_CODE


def test_a_scan_gives_each_origin_once_and_findings_come_at_their_first_entry() -> None:
    hosts = ["www.shop.de", "img.shop.de:8443", "bücher.de", "localhost:8080"]
    records = [
        f"<url><loc>https://{hosts[i % 4] if i >= 40 else hosts[i % 3]}/p/{i}</loc></url>"
        for i in range(400)
    ]
    doc = urlset(*records)
    scanner = _core.UrlsetScanner(False, 1 << 20, list(ChangeFreq))
    start = doc.index(b"<url>")
    found = scanner.scan(doc, start, doc.rindex(b"</url>") + 6, 3, 1000)
    assert [o for _, o in found[8]] == [
        "https://www.shop.de/",
        "https://img.shop.de:8443/",
        "https://xn--bcher-kva.de/",
        "https://localhost:8080/",
    ]
    assert [r for r, _ in found[8]] == [0, 1, 2, 43]
    fast, _ = both_lanes(doc)
    issues = fast[1]
    assert isinstance(issues, list)
    dev = [i for i in issues if i.code == "dev-host"]
    assert len(dev) == 1 and dev[0].line == records_line(doc, 43)


def test_many_origins_are_each_given_at_each_change() -> None:
    records = [f"<url><loc>https://h{i % 12}.shop.de/{i}</loc></url>" for i in range(48)]
    doc = urlset(*records)
    scanner = _core.UrlsetScanner(False, 1 << 20, list(ChangeFreq))
    found = scanner.scan(doc, doc.index(b"<url>"), doc.rindex(b"</url>") + 6, 3, 1000)
    # more sites than the scan keeps in mind: none is missed
    assert {o for _, o in found[8]} == {f"https://h{k}.shop.de/" for k in range(12)}
    both_lanes(doc)


def records_line(doc: bytes, record: int) -> int:
    at = -1
    for _ in range(record + 1):
        at = doc.index(b"<url>", at + 1)
    return doc.count(b"\n", 0, at) + 1


def test_urls_from_the_compiled_lane_are_urls() -> None:
    doc = urlset(
        "<url><loc>https://a.test/x</loc><lastmod>2024-01-02T03:04:05+01:00</lastmod><changefreq>daily</changefreq><priority>0.5</priority></url>"
    )
    fast, _ = both_lanes(doc)
    url = fast[0][0]  # type: ignore[index]
    assert type(url) is Url and url.changefreq is ChangeFreq.DAILY and url.priority == 0.5

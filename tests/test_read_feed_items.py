"""Feed items read the quick way read as the careful way did: an RSS ``<pubDate>`` read
without the email package (``xml_feeds.canonical_rfc822``) is the moment the email package
reads, or is left to it, over every part of the canonical form, valid and not, and the forms
beside it that only the package reads; a plain value taken as it is (``_plain_value``) is
one with nothing to report."""

from __future__ import annotations

import itertools
import random
from datetime import UTC, date, datetime
from email.utils import parsedate_to_datetime

import pytest

from urlset.limits import ReadLimits
from urlset.model import Url
from urlset.reading.reader import read_bytes
from urlset.reading.xml_feeds import canonical_rfc822


def _by_the_package(text: str) -> datetime | None:
    try:
        return parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None


# each part of the canonical form: as written by feeds, then odd or invalid
DAYS = (["1", "6", "06", "28", "29", "30", "31"], ["00", "32", "006"])
MONTHS = (["Jan", "Feb", "Jun", "Sep", "Dec"], ["may", "MAY", "Foo"])
YEARS = (["2024", "2023", "1999", "9999", "1000"], ["0999", "0050", "24", "99"])
TIMES = (["10:00:00", "00:00:00", "23:59:59"], ["24:00:00", "10:60:00", "10:00:60", "10:00"])
ZONES = (
    ["+0000", "GMT", "+0530", "-0500", "+2359", "+0599", "-1200"],
    ["-0000", "UT", "Z", "EST", "+2400", "-2400", "+05:30", "0000", "+000"],
)


def _forms() -> list[str]:
    """Dates of parts as feeds write them, then of any parts, odd and invalid ones too."""
    rng = random.Random(26)
    parts = (DAYS, MONTHS, YEARS, TIMES, ZONES)
    texts: list[str] = []
    for choices in ([written for written, _ in parts], [written + odd for written, odd in parts]):
        texts += rng.sample(
            [
                f"{weekday}, {day} {month} {year} {time} {zone}"
                for weekday, day, month, year, time, zone in itertools.product(
                    ["Mon", "Fri"], *choices
                )
            ],
            2000,
        )
    texts += [
        "06 May 2024 10:00:00 +0000",  # no weekday
        "Mon,06 May 2024 10:00:00 +0000",
        "Mon, 06 May 2024 10:00:00 +0000 (UTC)",
        "mon, 06 May 2024 10:00:00 +0000",
        "Mon, 06 May 2024  10:00:00 +0000",
        "Mon, 06 May 2024 10:00:00",
        "Sat, 29 Feb 2025 10:00:00 +0000",  # no such day
        "Thu, 29 Feb 2024 10:00:00 +0100",
        "Mon, 06 May 2024 10:00:00 +0000\n",
    ]
    return texts


@pytest.mark.parametrize("chunk", range(4))
def test_the_canonical_form_reads_as_the_email_package_reads_it(chunk: int) -> None:
    read_here = 0
    for text in _forms()[chunk::4]:
        here = canonical_rfc822(text)
        if here is None:
            continue  # the package reads it (the reader's fallback)
        read_here += 1
        package = _by_the_package(text)
        assert here == package, text
        assert package is not None and here.utcoffset() == package.utcoffset(), text
    assert read_here > 100  # the form is taken here, not all left to the package


def _as_before(text: str) -> datetime | None:
    """The reader's date before ``canonical_rfc822``: the package's, -0000 read as UTC, None
    (with an invalid-pubdate finding) for no date or no zone."""
    value = _by_the_package(text)
    if value is not None and value.tzinfo is None and text.endswith("-0000"):
        value = value.replace(tzinfo=UTC)
    return None if value is None or value.tzinfo is None else value


def test_feed_dates_in_every_form_read_as_before() -> None:
    """Through the reader: each item's date, or its finding, as the email package gave."""
    texts = [*_forms()[:500], "", "not a date", "Mon, 06 May 2024 10:00:00 -0000"]
    items = "".join(
        f"<item><link>https://www.example.com/p/{k}</link><pubDate>{text}</pubDate></item>\n"
        for k, text in enumerate(texts)
    )
    doc = f'<rss version="2.0"><channel><title>t</title>\n{items}</channel></rss>'.encode()
    result = read_bytes(doc)
    got = {e.loc: e.lastmod for e in result if isinstance(e, Url)}
    expected = {
        f"https://www.example.com/p/{k}": _as_before(t.strip()) for k, t in enumerate(texts)
    }
    assert got == expected
    assert sum(v is not None for v in got.values()) > 100
    invalid = [i.line for i in result.issues if i.code == "invalid-pubdate"]
    assert invalid == [k + 2 for k, t in enumerate(texts) if _as_before(t.strip()) is None]


# each value as written, and what reading it reports
LINKS = [
    ("https://www.example.com/a", None),
    (" https://www.example.com/b", "whitespace-in-value"),
    ("https://www.example.com/c ", "whitespace-in-value"),
    ("https://www.example.com/d\n", "whitespace-in-value"),
    ("\thttps://www.example.com/e", "whitespace-in-value"),
    ("https://www.example.com/f\u00a0", "whitespace-in-value"),
    ("https://www.example.com/g<b>h</b>", "unexpected-child"),
    ("https://www.example.com/" + "i" * 100, "value-too-long"),
    ("https://www.example.com/" + "j" * 76, None),  # at the limit
]
DATES = [
    ("2024-05-06", None),
    (" 2024-05-06", "whitespace-in-value"),
    ("2024-05-06\n", "whitespace-in-value"),
    ("2024-05-06\u00a0", "whitespace-in-value"),
    ("2024<b>-05-06</b>", "unexpected-child"),
    ("2024-05-06T10:00:00Z" + " " * 90, "value-too-long"),
]


def _read_values(feed: str, values: list[tuple[str, str | None]]) -> None:
    """Each of ``values`` in an item of its own (RSS: its link, a guid beside it; Atom: its
    updated date) read with the findings due, on its line, and no other."""
    if feed == "rss":
        items = [
            f"<item><link>{v}</link><guid>https://www.example.com/guid/{k}</guid></item>"
            for k, (v, _) in enumerate(values)
        ]
        doc = '<rss version="2.0"><channel><title>t</title>\n{}\n</channel></rss>'
    else:
        items = [
            f'<entry><link href="https://www.example.com/{k}"/><updated>{v}</updated></entry>'
            for k, (v, _) in enumerate(values)
        ]
        doc = '<feed xmlns="http://www.w3.org/2005/Atom">\n{}\n</feed>'
    result = read_bytes(
        doc.format("\n".join(items)).encode(), limits=ReadLimits(max_value_length=100)
    )
    read = [(u.loc, u.lastmod) for u in result if isinstance(u, Url)]
    expected: list[tuple[str, object]] = []
    found: set[tuple[int, str]] = set()
    line = 2
    for k, (value, code) in enumerate(values):
        text = None if code == "value-too-long" else value.replace("<b>", "").replace("</b>", "")
        if feed == "rss":
            expected.append((text.strip() if text else f"https://www.example.com/guid/{k}", None))
        else:
            expected.append((f"https://www.example.com/{k}", text and date(2024, 5, 6)))
        if code is not None:
            found.add((line, code))
        line += 1 + value.count("\n")
    assert read == expected
    assert {(i.line, i.code) for i in result.issues} == found


def test_each_link_is_reported_as_written() -> None:
    _read_values("rss", LINKS)


def test_each_date_is_reported_as_written() -> None:
    _read_values("atom", DATES)

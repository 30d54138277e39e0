"""The compiled writer (urlset._core) agrees with the Python model on every value it takes:
what it accepts is what the model's checks accept, written as ``format_w3c`` and
``format_priority`` write it; anything else sends the batch the per-entry way (None)."""

from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from urlset._core import escape, loc_hashes, render_rows
from urlset.dates import check_lastmod, format_w3c
from urlset.errors import InvalidValue
from urlset.extensions.image import Image
from urlset.model import RawElement, _absent, check_changefreq, check_priority
from urlset.writing.document import format_priority

PREFIX = "https://example.com/"
LOC = PREFIX + "a"
ENTRY = re.compile(
    r"<url><loc>(?P<loc>[^<]*)</loc>(?:<lastmod>(?P<lastmod>[^<]*)</lastmod>)?"
    r"(?:<changefreq>(?P<changefreq>[^<]*)</changefreq>)?"
    r"(?:<priority>(?P<priority>[^<]*)</priority>)?</url>\n"
)


def _whole(rows: Any, prefix: Any, max_length: int, text: bool, *rest: Any) -> Any:
    """``render_rows`` as a batch: None when it refused any row (each refused row alone goes
    the per-entry way in the build: tests/test_build_lanes.py)."""
    rendered = render_rows(rows, prefix, max_length, text, *rest)
    return None if rendered is None or rendered.refused() else rendered


def _one(lastmod: object = None, changefreq: object = None, priority: object = None) -> str | None:
    rendered = _whole([(LOC, lastmod, changefreq, priority)], PREFIX, 2048, False)
    return None if rendered is None else rendered.text(0, 1).decode()


def _expected(check: object, value: object, write: object) -> str | None:
    """The text the model gives a value ("" when absent), or None when it refuses it."""
    if value is None or _absent(value):
        return ""
    try:
        checked = check(value)  # type: ignore[operator]
    except InvalidValue:
        return None
    return write(checked)  # type: ignore[operator, no-any-return]


W3C_PARTS = st.tuples(
    st.integers(0, 10000),
    st.integers(0, 13),
    st.integers(0, 32),
    st.integers(0, 25),
    st.integers(0, 61),
    st.integers(0, 61),
    st.sampled_from(["", ".5", ".123456789", ".000", "."]),
    st.sampled_from(["Z", "+00:00", "-00:00", "+02:00", "-05:30", "+23:59", "+24:00", "", "z"]),
    st.integers(1, 7),
)


@settings(max_examples=3000)
@given(W3C_PARTS)
@example((2024, 2, 29, 10, 30, 0, "", "Z", 4))
def test_lastmod_strings_as_the_model_writes_them(parts: tuple[object, ...]) -> None:
    y, m, d, hh, mm, ss, frac, zone, cut = parts
    full = f"{y:04d}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}:{ss:02d}{frac}{zone}"
    text = [
        full,
        f"{y:04d}",
        f"{y:04d}-{m:02d}",
        f"{y:04d}-{m:02d}-{d:02d}",
        f"{y:04d}-{m:02d}-{d:02d}T{hh:02d}:{mm:02d}{zone}",
        f" {full} ",
        full[:-1],
    ][cut - 1]
    rendered = _one(lastmod=text)
    want = _expected(check_lastmod, text, format_w3c)
    if rendered is None:
        assert want is None, text  # the core may only refuse what the model refuses...
    else:
        assert want is not None, text  # ...or what it writes the same way
        found = ENTRY.fullmatch(rendered)
        assert found is not None
        assert (found["lastmod"] or "") == want


@settings(max_examples=500)
@given(
    st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)),
    st.integers(-23 * 60 - 59, 23 * 60 + 59),
    st.sampled_from(["date", "datetime", "naive"]),
)
def test_date_and_datetime_objects(moment: datetime, offset: int, kind: str) -> None:
    value: object = moment.date() if kind == "date" else moment
    if kind == "datetime":
        value = moment.replace(tzinfo=timezone(timedelta(minutes=offset)))
    rendered = _one(lastmod=value)
    if kind == "naive":
        assert rendered is None
        return
    found = ENTRY.fullmatch(rendered or "")
    assert found is not None
    assert found["lastmod"] == format_w3c(value)  # type: ignore[arg-type]


@settings(max_examples=3000)
@given(
    st.one_of(
        st.floats(0, 1),
        st.floats(allow_nan=True),
        st.from_regex(r"\s?[0-9]{0,2}(\.[0-9]{0,7})?\s?", fullmatch=True),
        st.sampled_from(["nan", "1e-1", "-0.0", "0_5", "", " ", "\xa00.5", "1.0000001"]),
        st.integers(0, 2**20).map(lambda k: k / 2**20),  # ties at four places
    )
)
def test_priorities_as_the_model_writes_them(value: object) -> None:
    rendered = _one(priority=value)
    want = _expected(check_priority, value, format_priority)
    if rendered is None:
        # -0.0 is written "-0.0" by the long way
        plain = (isinstance(value, float) and math.copysign(1, value) > 0) or (
            isinstance(value, str)
            and value.isascii()
            and re.fullmatch(r"[0-9]*\.?[0-9]*", value.strip()) is not None
        )
        assert want is None or not plain, value  # the long way reads other spellings
    else:
        found = ENTRY.fullmatch(rendered)
        assert found is not None
        assert (found["priority"] or "") == want, value


@given(st.text(max_size=12) | st.sampled_from([" Daily ", "WEEKLY", "never", "\tyearly\n"]))
def test_changefreq_as_the_model_reads_it(value: str) -> None:
    rendered = _one(changefreq=value)
    want = _expected(check_changefreq, value, lambda c: c.value)
    if rendered is None:
        assert want is None or not value.isascii(), value
    else:
        found = ENTRY.fullmatch(rendered)
        assert found is not None
        assert (found["changefreq"] or "") == want


@given(st.text())
def test_escape_undoes_to_the_text(text: str) -> None:
    escaped = escape(text)
    assert not re.search(r"[<>\"']|&(?!amp;|lt;|gt;|quot;|apos;)", escaped)
    for entity, raw in (("&lt;", "<"), ("&gt;", ">"), ("&quot;", '"'), ("&apos;", "'")):
        escaped = escaped.replace(entity, raw)
    assert escaped.replace("&amp;", "&") == text


def test_a_batch_counts_bytes_cuts_and_keeps_its_order() -> None:
    locs = [f"https://example.com/{i}?a=1&b='{i}'" for i in range(50)]
    lastmods = [date(2024, 1, 1) + timedelta(days=i % 7) for i in range(50)]
    rendered = _whole(
        [(loc, lm, None, None) for loc, lm in zip(locs, lastmods, strict=True)], PREFIX, 2048, False
    )
    assert rendered is not None and len(rendered) == 50
    whole = rendered.text(0, 50)
    sizes = [rendered.size(i) for i in range(50)]
    assert sum(sizes) == len(whole)
    assert b"".join(e.encode() for e in rendered.entries()) == whole
    room = sum(sizes[:10]) + sizes[10] - 1
    assert rendered.fit(0, 50, room) == 10
    assert rendered.fit(0, 7, room) == 7
    assert rendered.newest(0, 50) == "2024-01-07"
    assert rendered.newest(0, 3) == "2024-01-03"
    kept = rendered.select(bytes([i % 2 for i in range(50)]))
    assert kept.locs == locs[1::2]
    assert kept.text(0, 25) == b"".join(rendered.text(i, i + 1) for i in range(1, 50, 2))
    assert len(rendered.hashes()) == 8 * 50
    assert rendered.hashes() == loc_hashes(locs)


def test_future_lastmods_are_found_at_the_microsecond() -> None:
    now = datetime(2024, 1, 1, 12, tzinfo=UTC)
    micros = (now - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)
    for value, future in [
        ("2024-01-01T12:00:00Z", False),
        ("2024-01-01T12:00:00.000001Z", True),
        ("2024-01-01T13:00:00+01:00", False),
        ("2024-01-02", False),  # already begun at UTC+14
        ("2024-01-03", True),
    ]:
        rendered = _whole([(LOC, value, None, None)], PREFIX, 2048, False)
        assert rendered is not None
        assert rendered.all_current(micros) is not future, value


def test_rows_that_need_the_long_way_are_refused() -> None:
    good = (LOC, "2024-01-01", "daily", "0.5")
    assert _whole([good], PREFIX, 2048, False) is not None
    for bad in [
        ("https://other.org/a", None, None, None),  # not under the prefix
        (PREFIX + "a/../b", None, None, None),
        (PREFIX + "x" * 2048, None, None, None),
        (LOC, None, None),  # not four fields
        (LOC, None, None, None, [Image(LOC)]),  # extensions other than a tuple of images
        (LOC, None, None, None, (RawElement("urn:x", "x", "<x xmlns='urn:x'/>"),)),
        [LOC, None, None, None],  # not a tuple
        (LOC, None, None, True),  # a bool priority: the long way refuses it
        (LOC, "2024-02-30", None, None),
    ]:
        assert _whole([good, bad], PREFIX, 2048, False) is None, bad  # type: ignore[list-item]
    # an int priority is Python's float of it, as check_priority takes it
    ints = _whole([good, (LOC, None, None, 1), (LOC, None, None, 0)], PREFIX, 2048, False)
    assert ints is not None and "<priority>1.0</priority>" in ints.entries()[1]
    # an IRI is made a URI in the core, as urls.to_uri makes it
    iri = _whole([good, (PREFIX + "ä", None, None, None)], PREFIX, 2048, False)
    assert iri is not None and iri.locs[1] == PREFIX + "%C3%A4"
    # Url values (no prefix): locs taken as they are; a fifth field of images only (a Url's
    # extensions) is written as the entry's images
    assert _whole([(PREFIX + "ä", None, None, None, ())], None, 2048, False) is not None
    with_image = _whole([good, (LOC, None, None, None, (Image(LOC),))], PREFIX, 2048, False)
    assert with_image is not None and with_image.namespaces(0, 2) == 1
    assert b"<image:image><image:loc>" in with_image.text(1, 2)

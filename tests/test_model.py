"""The data model checks itself: each bad field named, with the reason."""

from __future__ import annotations

import pickle
from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from urlset import ChangeFreq, InvalidValue, SitemapRef, Url
from urlset.dates import (
    Year,
    YearMonth,
    format_w3c,
    from_formatted,
    instant,
    parse_lenient,
    parse_w3c,
)
from urlset.urls import Scope, to_uri


@pytest.mark.parametrize(
    ("given_loc", "expected"),
    [
        ("https://example.com/", "https://example.com/"),
        ("https://EXAMPLE.com", "https://example.com/"),
        (
            "https://bücher.example/straße?q=ä b",
            "https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4%20b",
        ),
        ("http://example.com/100%-off", "http://example.com/100%25-off"),
        ("http://example.com/a%20b", "http://example.com/a%20b"),
        ("http://example.com/a b", "http://example.com/a%20b"),
        ("http://example.com/x#section", "http://example.com/x"),
        ("http://example.com:80/x", "http://example.com/x"),
        ("https://example.com/a|b^{c}", "https://example.com/a%7Cb%5E%7Bc%7D"),
        ("https://[::1]:8443/p", "https://[::1]:8443/p"),
        # "'" is kept in the query too (RFC 3986 allows it; WHATWG would write %27)
        ("https://example.com/it's?a=1&b='2'", "https://example.com/it's?a=1&b='2'"),
        ("https://example.com/?a='ü'&b=%27", "https://example.com/?a='%C3%BC'&b=%27"),
        ("https://example.com/?s='!$()*,;~+@", "https://example.com/?s='!$()*,;~+@"),
        ("https://例え.jp/パス", "https://xn--r8jz45g.jp/%E3%83%91%E3%82%B9"),
    ],
)
def test_loc_becomes_a_uri(given_loc: str, expected: str) -> None:
    assert Url(given_loc).loc == expected


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("", "is empty"),
        ("/relative/path", "not an absolute URL"),
        ("example.com/page", "not an absolute URL"),
        ("ftp://example.com/file", "only http and https"),
        ("https://exa mple.com/", "not a valid URL"),
        ("https://example.com/a\nb", "control character"),
        ("https://example.com/\x00", "control character"),
        ("http:///nohost", "not a valid URL"),
    ],
)
def test_bad_loc_is_refused_with_reason(bad: str, reason: str) -> None:
    with pytest.raises(InvalidValue, match=reason) as info:
        Url(bad)
    assert info.value.field == "loc"


def test_loc_length_limit_applies_after_encoding() -> None:
    base = "https://example.com/"
    assert len(Url(base + "a" * (2048 - len(base))).loc) == 2048
    with pytest.raises(InvalidValue, match="2049 characters"):
        Url(base + "a" * (2049 - len(base)))
    # 683 non-ASCII characters are short as text but 3 bytes each once percent-encoded (x3)
    with pytest.raises(InvalidValue, match="once encoded"):
        Url(base + "é" * 400)


def test_lastmod_forms() -> None:
    # reduced precision is kept as written, and ordered as the period's first day
    year, month = Url("https://a.com/", "2024").lastmod, Url("https://a.com/", "2024-05").lastmod
    assert year == Year(2024) and month == YearMonth(2024, 5)
    assert year != date(2024, 1, 1) and month != date(2024, 5, 1)
    assert format_w3c(year) == "2024" and format_w3c(month) == "2024-05"  # type: ignore[arg-type]
    assert instant(year) == datetime(2024, 1, 1, tzinfo=UTC)  # type: ignore[arg-type]
    assert date(2023, 12, 31) < year < month < date(2024, 5, 2)  # type: ignore[operator]
    assert pickle.loads(pickle.dumps(month)) == month and from_formatted("2024-05") == month
    assert Url("https://a.com/", "2024-05-06").lastmod == date(2024, 5, 6)
    value = Url("https://a.com/", "2024-05-06T07:08+02:00").lastmod
    assert value == datetime(2024, 5, 6, 7, 8, tzinfo=timezone(timedelta(hours=2)))
    value = Url("https://a.com/", "2024-05-06T07:08:09.123Z").lastmod
    assert value == datetime(2024, 5, 6, 7, 8, 9, 123000, tzinfo=UTC)


@pytest.mark.parametrize(
    "bad",
    ["2024-5-6", "2024-05-06T07:08", "2024-05-06 07:08Z", "06/05/2024", "2024-02-30", "yesterday"],
)
def test_bad_lastmod_strings(bad: str) -> None:
    with pytest.raises(InvalidValue) as info:
        Url("https://a.com/", bad)
    assert info.value.field == "lastmod"


def test_naive_datetime_needs_a_zone() -> None:
    naive = datetime(2024, 1, 2, 3, 4, 5)
    with pytest.raises(InvalidValue, match="naive datetime"):
        Url("https://a.com/", naive)
    assert Url("https://a.com/", naive, default_tz=UTC).lastmod == naive.replace(tzinfo=UTC)
    assert Url("https://a.com/", "2024-01-02T03:04:05", default_tz=UTC).lastmod == naive.replace(
        tzinfo=UTC
    )


def test_changefreq_and_priority() -> None:
    url = Url("https://a.com/", changefreq=" Weekly ", priority="0.85")
    assert url.changefreq is ChangeFreq.WEEKLY and url.priority == 0.85
    for bad_cf in ("sometimes", 3):
        with pytest.raises(InvalidValue, match="changefreq"):
            Url("https://a.com/", changefreq=bad_cf)  # type: ignore[arg-type]
    for bad_p in (1.01, -0.1, "high", float("inf"), True):
        with pytest.raises(InvalidValue, match="priority"):
            Url("https://a.com/", priority=bad_p)  # type: ignore[arg-type]
    assert Url("https://a.com/", priority=0).priority == 0.0
    assert Url("https://a.com/", priority=1).priority == 1.0


def test_values_are_immutable_and_compare_by_type() -> None:
    url = Url("https://a.com/x", "2024-01-01")
    with pytest.raises(AttributeError):
        url.loc = "https://b.com/"  # type: ignore[misc]
    assert url == Url("https://a.com/x", date(2024, 1, 1))
    assert url != ("https://a.com/x", date(2024, 1, 1), None, None, ())
    assert SitemapRef("https://a.com/x") != Url("https://a.com/x")
    assert len({url, Url("https://a.com/x", "2024-01-01")}) == 1


def test_from_dict_names_unknown_fields() -> None:
    with pytest.raises(InvalidValue, match="unknown fields"):
        Url.from_dict({"loc": "https://a.com/", "prio": 1})
    with pytest.raises(InvalidValue, match="missing"):
        Url.from_dict({"lastmod": "2024"})


def test_w3c_format_round_trip() -> None:
    for text in (
        "2024-05-06",
        "2024-05-06T07:08:09Z",
        "2024-05-06T07:08:09+05:30",
        "2024-05-06T07:08:09.5-03:00",
    ):
        value = parse_w3c(text)
        assert parse_w3c(format_w3c(value)) == value


def test_lenient_dates_are_read_and_reported() -> None:
    assert parse_lenient("2024-05-06") == (date(2024, 5, 6), None)
    value, problem = parse_lenient("2024-5-6")
    assert value == date(2024, 5, 6) and problem is not None
    value, problem = parse_lenient("2024-05-06 10:00:00")
    assert value == datetime(2024, 5, 6, 10, tzinfo=UTC) and "zone" in (problem or "")
    assert parse_lenient("last tuesday")[0] is None


@given(
    st.datetimes(
        min_value=datetime(1990, 1, 1),
        max_value=datetime(2100, 1, 1),
        timezones=st.just(UTC),
    )
)
def test_any_aware_datetime_round_trips_through_w3c(value: datetime) -> None:
    assert parse_w3c(format_w3c(value)) == value


def test_scope_rules_name_the_problem() -> None:
    scope = Scope.of("https://www.example.com/blog/")
    assert scope.violation(to_uri("https://www.example.com/blog/post")) is None
    assert "www. variant" in (scope.violation(to_uri("https://example.com/blog/post")) or "")
    assert "scheme" in (scope.violation(to_uri("http://www.example.com/blog/post")) or "")
    assert "port" in (scope.violation(to_uri("https://www.example.com:8443/blog/post")) or "")
    assert "directory" in (scope.violation(to_uri("https://www.example.com/shop/")) or "")
    assert "host" in (scope.violation(to_uri("https://cdn.example.com/blog/")) or "")


_row_values = st.tuples(
    st.one_of(
        st.sampled_from(
            [
                "https://a.com/x",
                "https://a.com/x?a=1&b=2",
                "https://A.com/é",
                "ftp://a.com/",
                "",
                "rel/ative",
            ]
        ),
        st.integers(0, 50).map(lambda i: f"https://a.com/p{i}"),
    ),
    st.sampled_from(
        [
            None,
            "2024-01-02",
            "2024-01-02T03:04:05Z",
            "2024-13-01",
            "2024-01-02T03:04",
            date(2024, 1, 2),
            datetime(2024, 1, 2, 3),
            datetime(2024, 1, 2, 3, tzinfo=timezone.utc),
        ]
    ),
    st.sampled_from([None, "daily", "Daily", "sometimes", ChangeFreq.NEVER, 7]),
    st.sampled_from([None, "0.5", 0.5, 1, True, "1.5", "x", float("nan"), 0.25, "1.0", 1.0]),
)


def _one(row: tuple[object, ...]) -> object:
    try:
        return Url(*row)  # type: ignore[arg-type]
    except InvalidValue as exc:
        return ("error", exc.field)


@given(st.lists(_row_values, max_size=30))
def test_rows_checked_by_column_match_the_constructor(rows: list[tuple[object, ...]]) -> None:
    from urlset.model import urls_from_rows

    for _ in range(2):  # the second pass runs with the known-value tables filled
        got = [
            ("error", r.field) if isinstance(r, InvalidValue) else r for r in urls_from_rows(rows)
        ]
        assert got == [_one(row) for row in rows]


_loc_tails = st.text(alphabet="aZ09-._~!$&'()*+,;=:@/?%#[]\\ é2eE\n", max_size=20)


@given(
    st.lists(_loc_tails, min_size=1, max_size=20),
    st.sampled_from(
        [
            "https://a.com/",
            "http://A.com/",
            "https://a.com:443/",
            "https://a.com:80/",
            "http://a.com:08080/",
            "http://a.com:8080/",
            "http://127.1/",
            "http://0x7f.0.0.1/",
            "http://127.0.0.1/",
            "http://1.2.3.4:8080/",
            "http://10.0.0.1:80/",
            "http://01.2.3.4/",
            "https://xn--bcher-kva.example/",
            "ftp://a.com/",
            "HTTPS://a.com/",
            "https://user@a.com/",
            "https://a.com./",
            "https:/a.com/",
        ]
    ),
)
def test_fast_paths_never_keep_what_the_full_parse_would_change(
    tails: list[str], prefix: str
) -> None:
    from urlset.urls import full_uri, is_plain_uri, plain_uri_flags

    locs = [prefix + tail for tail in tails]
    for loc, flag in zip(locs, plain_uri_flags(locs), strict=True):
        for fast in (flag, is_plain_uri(loc)):
            if fast:
                assert full_uri(loc) == loc


def test_fast_path_cases() -> None:
    from urlset.urls import is_plain_uri, plain_uri_flags

    assert to_uri("http://a.com/a/%2e%2e/b") == "http://a.com/b"
    assert to_uri("http://a.com/[x]") == "http://a.com/%5Bx%5D"
    assert to_uri("http://[::1]/[x]") == "http://[::1]/%5Bx%5D"
    assert not is_plain_uri("http://a.com/a/%2e%2e/b")
    assert is_plain_uri("http://a.com:8080/x") and is_plain_uri("https://a.com:80/x")
    assert not is_plain_uri("http://a.com:80/x") and not is_plain_uri("http://a.com:99999/x")
    assert not is_plain_uri("http://127.1/") and to_uri("http://127.1/") == "http://127.0.0.1/"
    assert plain_uri_flags(
        ["https://a.com/x", "https://a.com/./y", "https://b.com/z", "https://a.com/q?x='1'"]
    ) == [True, False, False, True]
    # a line break inside a loc once passed when another loc sent the batch to the per-loc check
    assert plain_uri_flags(["https://a.com/x\ny", "https://a.com/a b"]) == [False, False]
    assert plain_uri_flags(["https://a.com/caf%C3%A9", "https://a.com/%2e", "https://a.com/%"]) == [
        True,
        False,
        False,
    ]

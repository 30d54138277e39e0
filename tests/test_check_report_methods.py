"""A check's report classes keep what a dataclass gives (their init, repr and eq written by
hand: ``dataclass`` compiles its methods' source at import), and count findings as the
plain sum over them does; a news message's day is that of its own ``now``."""

from __future__ import annotations

import dataclasses
import random
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from urlset.checking.report import SUMMARY_CODE, CheckReport, FileResult, by_position
from urlset.extensions.news import too_old_issue
from urlset.model import Issue, Severity, SitemapRef


def _value(name: str, n: int) -> Any:
    """A value for the field ``name`` unlike its default (``n`` tells two apart)."""
    return {
        "source": f"s{n}",
        "issues": [Issue("dev-host", Severity.WARNING, f"m{n}")],
        "files": [FileResult(f"f{n}")],
        "skipped": [(f"p{n}", "why")],
        "unlisted": {"a": n},
        "discovered": {"images": n},
        "not_started": [f"n{n}"],
        "refs": [SitemapRef(f"https://a.test/{n}.xml")],
        "ref_lines": [n],
        "newest_lastmod": datetime(2024, 1, n + 1, tzinfo=UTC),
    }.get(name, f"v{n}" if name in ("format", "url") else n + 1)


@pytest.mark.parametrize("cls", [FileResult, CheckReport])
def test_the_report_classes_are_dataclasses_as_made(cls: Any) -> None:
    fields = dataclasses.fields(cls)
    missing = dataclasses.MISSING
    required = {f.name: "s" for f in fields if f.default is f.default_factory is missing}
    made = cls(**required)
    for f in fields:  # every default as the field says, a fresh one of each factory
        if f.name in required:
            continue
        if f.default_factory is missing:
            assert getattr(made, f.name) == f.default, f.name
        else:
            assert getattr(made, f.name) == f.default_factory(), f.name
            assert getattr(made, f.name) is not getattr(cls(**required), f.name)
    given = {f.name: _value(f.name, 1) for f in fields}
    one = cls(**given)
    assert [getattr(one, f.name) for f in fields] == list(given.values())
    assert cls(*given.values()) == one  # positionally, in the fields' order
    shown = ", ".join(f"{name}={value!r}" for name, value in given.items())
    assert repr(one) == f"{cls.__qualname__}({shown})"
    for f in fields:  # each field counts in ==
        other = dataclasses.replace(one, **{f.name: _value(f.name, 2)})
        assert other != one, f.name
        assert not other.__eq__(one), f.name
    assert dataclasses.replace(one) == one
    assert one.__eq__(object()) is NotImplemented
    with pytest.raises(TypeError):
        hash(one)


def test_counts_by_severity_leave_out_the_summary_lines() -> None:
    rng = random.Random(26)
    for _ in range(300):
        issues = [
            Issue(rng.choice([SUMMARY_CODE, "dev-host", "normalized-url"]), severity, "m")
            for severity in rng.choices(list(Severity), k=rng.randrange(12))
        ]
        result = FileResult("doc", issues, unlisted={"dev-host": 2})
        for severity in Severity:
            listed = sum(1 for i in issues if i.severity == severity and i.code != SUMMARY_CODE)
            counted = 2 if severity == Severity.WARNING else 0  # dev-host's severity
            assert result.count(severity) == listed + counted
        key = sorted(issues, key=lambda i: (i.line, i.column))
        assert sorted(issues, key=by_position) == key


def test_a_news_message_says_the_day_of_its_own_now() -> None:
    """Two nows of one instant in two zones may fall on two days: each message says its own."""
    utc = datetime(2026, 11, 30, 5, 0, tzinfo=UTC)
    west = utc.astimezone(timezone(timedelta(hours=-9)))
    assert utc == west
    age = timedelta(days=3)
    for now, day in ((utc, "2026-11-30"), (west, "2026-11-29"), (utc, "2026-11-30")):
        issue = too_old_issue("https://a.test/", "T", age, now)
        assert issue.message.endswith(f"3 days before {day}")

"""A check's report counts findings as the plain sum over them does; a news message's day is
that of its own ``now``."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta, timezone

from urlset.checking.report import SUMMARY_CODE, FileResult, by_position
from urlset.extensions.news import too_old_issue
from urlset.model import Issue, Severity


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

"""A build's work on two threads (rows read on one, checked and rendered on another; shards
compressed on their own): the same entries in the same order as on one thread, a bad row in
any chunk is refused alone in its place, and a failure on any thread mid-build publishes
nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from urlset import InvalidValue, write_sitemaps
from urlset._core import render_rows, types_of
from urlset.dates import Year

PREFIX = "https://www.example.com/"
CHUNK = 1024  # rows a chunk (rust/py/src/write.rs): the tests cross its edges


def _rows(n: int) -> list[tuple[Any, ...]]:
    """Rows of every value shape the core takes: texts with spaces, dates, aware datetimes,
    Years, floats, NaN, blanks, escapes."""
    zone = timezone(timedelta(hours=-3, minutes=-30))
    lastmods: list[object] = [
        "2024-01-02",
        " 2024-01-02T10:00:00+02:00 ",
        date(2023, 5, 6),
        datetime(2022, 1, 1, 12, 30, tzinfo=zone),
        Year(2019),
        None,
        "",
        float("nan"),
    ]
    freqs = ["daily", " Weekly", None, "", float("nan")]
    prios: list[object] = ["0.5", 0.25, None, " 1 ", float("nan"), ""]
    shapes = ["p/{}", "s?q={}&page=2", "q?x=it's-{}", "caf%C3%A9/{}"]
    return [
        (
            PREFIX + shapes[i % 4].format(i),
            lastmods[i % len(lastmods)],
            freqs[i % len(freqs)],
            prios[i % len(prios)],
        )
        for i in range(n)
    ]


def test_rows_rendered_beside_are_those_rendered_on_one_thread_in_order() -> None:
    rows = _rows(5 * CHUNK + 17)
    alone = render_rows(rows, PREFIX, 2048, False, False)
    beside = render_rows(rows, PREFIX, 2048, False, True)
    assert alone is not None and beside is not None
    assert len(beside) == len(rows)
    assert beside.locs == [row[0] for row in rows]
    assert beside.text(0, len(rows)) == alone.text(0, len(rows))
    assert beside.hashes() == alone.hashes()
    assert beside.newest(0, len(rows)) == alone.newest(0, len(rows))
    text = render_rows(rows, PREFIX, 2048, True, True)
    assert text is not None
    assert text.text(0, len(rows)).decode().splitlines() == [row[0] for row in rows]


@pytest.mark.parametrize("at", [0, CHUNK - 1, CHUNK, 3 * CHUNK + 5, 4 * CHUNK - 1])
@pytest.mark.parametrize(
    ("bad", "why"),
    [
        ((PREFIX + "a b", None, None, None), None),  # a loc to encode: made a URI there
        ((PREFIX + "a", "2024-02-30", None, None), "value"),  # text values: checked there too
        ((PREFIX + "a", None, "sometimes", None), "value"),
        ((PREFIX + "a", None, None, "1.5"), "value"),
        ((PREFIX + "a", datetime(2024, 1, 1), None, None), "row"),  # naive: refused as read
        ((PREFIX + "a", None, None, 2), "row"),
        ([PREFIX + "a", None, None, None], "row"),
        (("https://elsewhere.example/a", None, None, None), "loc"),
    ],
)
def test_a_bad_row_in_any_chunk_is_refused_alone_in_its_place(
    at: int, bad: Any, why: str | None
) -> None:
    rows: list[Any] = _rows(4 * CHUNK)
    whole = render_rows(rows, PREFIX, 2048, False, True)
    assert whole is not None and not whole.refused()
    rows[at] = bad
    for beside in (False, True):
        rendered = render_rows(rows, PREFIX, 2048, False, beside)
        assert rendered is not None
        assert rendered.refused() == ([] if why is None else [(at, why)]), (at, beside)
        others = [row[0] for n, row in enumerate(rows) if n != at]
        if why is None:
            assert rendered.locs[at] == PREFIX + "a%20b"
        else:
            assert rendered.locs == others


def test_types_of_is_the_set_of_types() -> None:
    mixed: list[Any] = [(1,), (2,), "x", 3, (4,), 5.0, "y", None]
    assert types_of(mixed) == set(map(type, mixed))
    assert types_of([]) == set()
    assert types_of([(1,)] * 10) == {tuple}


def test_a_bad_row_late_in_a_strict_build_publishes_nothing(tmp_path: Path) -> None:
    """The row fails while earlier shards are already compressed and staged: the build
    raises, the set published before stays as it was, no staging directory is left."""
    out = tmp_path / "out"
    first = [(f"{PREFIX}old/{i}", "2024-01-01", None, None) for i in range(120_000)]
    write_sitemaps(first, out, PREFIX, now=datetime(2026, 1, 1, tzinfo=UTC))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    rows: list[tuple[str, str, str | None, str | None]] = [
        (f"{PREFIX}new/{i}", "2024-01-01", "daily", "0.5") for i in range(300_000)
    ]
    rows[250_000] = (f"{PREFIX}new/bad", "2024-02-30", None, None)
    with pytest.raises(InvalidValue, match="2024-02-30"):
        write_sitemaps(rows, out, PREFIX, strict=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


CHILD = r"""
import json, resource, signal, sys
from urlset import write_sitemaps
from urlset.errors import PublishError
out, limit, gzip = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, resource.RLIM_INFINITY))
rows = [(f"https://www.example.com/p/{i}?a={i}&b=2", "2024-01-01", "daily", "0.5")
        for i in range(400_000)]
try:
    write_sitemaps(rows, out, "https://www.example.com/", gzip=gzip)
except PublishError as exc:
    print(json.dumps(str(exc)))
    sys.exit(2)
"""


@pytest.mark.parametrize("gzip", [False, True])
def test_a_write_failing_on_a_compressing_thread_publishes_nothing(
    tmp_path: Path, gzip: bool
) -> None:
    """A real write error (the file size limit, EFBIG) on a shard's writing thread, while the
    main thread renders the next rows: the build stops with PublishError naming the file,
    publishes nothing and removes its staging directory."""
    out = tmp_path / "out"
    limit = 100_000 if gzip else 3_000_000  # past the first shard's start, before its end
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(out), str(limit), "1" if gzip else "0"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    message = json.loads(done.stdout)
    assert "could not write" in message and "File too large" in message, message
    assert list(out.iterdir()) == []

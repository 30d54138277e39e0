"""Live sources: sitemaps computed on demand from an iterable, pages, or a SQL query."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from urlset import CURRENT, InvalidValue, read_bytes, write_sitemaps
from urlset.serve import Request, Response, SitemapApp
from urlset.serve.live import LiveSet, from_pages, from_query

BASE = "https://example.com/"
LIMITS = CURRENT.lowered(max_urls=400)


def _rows(count: int, start: int = 0) -> list[tuple[str, str, str, str]]:
    return [
        (f"{BASE}item/{i}?ref=a&lang=ü", f"2026-10-{1 + i % 28:02d}", "weekly", "0.7")
        for i in range(start, start + count)
    ]


def _get(app: SitemapApp, path: str) -> Response:
    return app.respond(Request("GET", path, {}))


def _served(app: SitemapApp) -> dict[str, bytes]:
    """Every document the index lists, by name, and the index."""
    index = b"".join(_get(app, "/sitemap.xml").body)
    found = {"sitemap.xml": index}
    for ref in read_bytes(index):
        name = ref.loc.rsplit("/", 1)[1]
        response = _get(app, f"/{name}")
        assert response.status == 200, name
        found[name] = b"".join(response.body)
    return found


def test_a_live_iterable_is_served_as_the_stable_build_writes_it(tmp_path: Path) -> None:
    rows = _rows(2000)
    live = LiveSet.from_iterable(rows, BASE, limits=LIMITS)
    served = _served(SitemapApp(live))
    built = tmp_path / "built"
    write_sitemaps(rows, built, BASE, limits=LIMITS, stable=True, gzip=False)
    on_disk = {p.name: p.read_bytes() for p in built.iterdir() if not p.name.startswith(".")}
    assert served == on_disk
    assert len(served) >= 6  # an index and five or more shards of at most 400
    assert sum(len(list(read_bytes(b))) for n, b in served.items() if n != "sitemap.xml") == 2000


@pytest.mark.parametrize(
    ("page", "changed"),
    [
        ("new-page", 0),  # another directory: a shard of its own, the others kept
        ("item/1500?ref=b", 1),  # among its neighbours: their one shard
    ],
)
def test_a_shard_keeps_its_url_when_an_unrelated_page_is_added(page: str, changed: int) -> None:
    rows = _rows(3000)
    live = LiveSet(lambda: rows, BASE, limits=LIMITS, max_age=None)
    before = set(_served(SitemapApp(live))) - {"sitemap.xml"}
    rows.append((f"{BASE}{page}", "2026-11-01", "daily", "0.9"))
    live.refresh()
    after = set(_served(SitemapApp(live))) - {"sitemap.xml"}
    assert len(before) >= 8
    assert len(before - after) == changed  # the shard the new page fell in, if any
    assert 1 <= len(after - before) <= 2  # written again, split in two, or new


def test_pages_of_entries(tmp_path: Path) -> None:
    def pages() -> Iterator[list[tuple[str, str, str, str]]]:
        for start in range(0, 1000, 150):
            yield _rows(min(150, 1000 - start), start)

    live = LiveSet(from_pages(pages), BASE, limits=LIMITS, directory=tmp_path / "snap")
    served = _served(SitemapApp(live))
    urls = [u.loc for n, b in served.items() if n != "sitemap.xml" for u in read_bytes(b)]
    assert sorted(urls) == sorted(row[0].replace("ü", "%C3%BC") for row in _rows(1000))
    assert (tmp_path / "snap" / "sitemap.xml").exists()


def test_a_sql_query_through_the_db_api_refreshes_when_old(tmp_path: Path) -> None:
    db = tmp_path / "site.db"
    with sqlite3.connect(db) as connection:
        connection.execute("create table page (path text, updated text, hidden int)")
        connection.executemany(
            "insert into page values (?, ?, ?)",
            [(f"p/{i}&x", f"2026-05-{1 + i % 9:02d}", i % 10 == 0) for i in range(500)],
        )
    now = [0.0]
    live = LiveSet(
        from_query(
            lambda: sqlite3.connect(db),
            "select ? || path, updated from page where hidden = ? order by path",
            (BASE, 0),
        ),
        BASE,
        limits=LIMITS,
        max_age=60,
        clock=lambda: now[0],
    )
    app = SitemapApp(live)

    def count() -> int:
        return sum(len(list(read_bytes(b))) for n, b in _served(app).items() if n != "sitemap.xml")

    assert count() == 450
    with sqlite3.connect(db) as connection:
        connection.execute("update page set hidden = 0")
    now[0] = 30.0
    assert count() == 450  # still fresh
    now[0] = 61.0
    _get(app, "/sitemap.xml")  # starts the refresh; the old snapshot answers meanwhile
    assert live._refreshing is not None
    live._refreshing.join(timeout=60)
    assert count() == 500


def test_a_database_error_answers_503_and_concurrent_first_requests_build_once(
    tmp_path: Path,
) -> None:
    import threading

    calls = []

    def rows() -> list[tuple[str]]:
        calls.append(1)
        return [(f"{BASE}x",)]

    live = LiveSet(rows, BASE, max_age=None)
    app = SitemapApp(live)
    threads = [threading.Thread(target=_get, args=(app, "/sitemap.xml")) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1
    broken = LiveSet(
        from_query(lambda: sqlite3.connect(tmp_path / "empty.db"), "select loc from missing"),
        BASE,
    )
    response = _get(SitemapApp(broken), "/sitemap.xml")
    assert response.status == 503
    assert b"OperationalError: no such table: missing" in b"".join(response.body)


def test_a_failing_source_answers_503_with_the_reason_then_recovers() -> None:
    rows: list[tuple[str, ...]] = [("https://elsewhere.example/x",)]
    now = [0.0]
    live = LiveSet(lambda: rows, BASE, max_age=None, clock=lambda: now[0])
    app = SitemapApp(live)
    response = _get(app, "/sitemap.xml")
    assert response.status == 503
    assert response.header("Retry-After") == "5"
    assert b"could not be computed" in b"".join(response.body)
    with pytest.raises(InvalidValue):
        live.refresh()
    rows[0] = (f"{BASE}x",)
    now[0] = 3.0
    assert _get(app, "/sitemap.xml").status == 503  # not tried again before Retry-After
    now[0] = 6.0
    assert _get(app, "/sitemap.xml").status == 200

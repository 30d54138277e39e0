"""The diff's 64-bit keys may collide: runs stored with keys forced to collide (far more often
than MD5 ever would) still diff exactly as the oracle says, and count their duplicates on the
loc strings. Not forced: two rows of one loc with equal ``h`` (2^-64 per changed entry) or of
two locs with equal ``k`` and ``h`` (2^-128 a pair), which the diff takes for twins."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from test_store_diff import Entry, generated, oracle, rows_of
from urlset.store.diff import compare
from urlset.store.entries import TEXT_COLUMNS, arrow_schema, keyed
from urlset.store.snapshot import SnapshotStore

pytest.importorskip("duckdb")

BASE = "https://www.example.com/"


def store_run(store: SnapshotStore, entries: list[Entry], forced: str) -> int:
    """Store entries as a run, their keys rewritten by ``forced`` (a REPLACE list)."""
    import pyarrow as pa

    rows = {name: [e.get(name) for e in entries] for name in TEXT_COLUMNS}
    rows["priority"] = [None if p is None else float(p) for p in rows["priority"]]
    rows["sitemap"] = [BASE + s for s in rows["sitemap"]]
    store.con.register("_forced", pa.table(rows, schema=arrow_schema()))
    writer = store.begin(BASE, "import")
    replace = f" REPLACE ({forced})" if forced else ""
    writer.insert_sql(f"SELECT *{replace} FROM ({keyed('_forced')})")
    store.con.unregister("_forced")
    return writer.finish()


FORCED = {
    "real keys": "",
    "every loc one key": "0::UBIGINT AS k",
    "four keys": "k % 4 AS k",
    # entries of different locs with equal fields share h (the loc left out of the hash)
    "h without the loc": "md5_number_lower(concat_ws('|', coalesce(lastmod, '-'),"
    " coalesce(changefreq, '-'), coalesce(CAST(priority AS VARCHAR), '-'))) AS h",
}


@pytest.mark.parametrize("forced", FORCED.values(), ids=list(FORCED))
def test_colliding_keys_give_the_oracle_diff(tmp_path: Path, forced: str) -> None:
    old, new = generated(seed=5, n=300)
    db = tmp_path / "s.duckdb"
    with SnapshotStore(db) as store:
        a, b = store_run(store, old, forced), store_run(store, new, forced)
        runs = {r.run_id: r for r in store.runs()}
    # the duplicates are the repeated locs, however many keys collide
    assert (runs[a].duplicates, runs[b].duplicates) == (1, 2)
    result = compare(f"{db}@{a}", f"{db}@{b}", moves=True)
    expected = oracle(
        [dict(e, sitemap=BASE + e["sitemap"]) for e in old],
        [dict(e, sitemap=BASE + e["sitemap"]) for e in new],
    )
    assert rows_of(result) == expected
    assert {v[0] for v in expected.values()} == {"added", "removed", "changed", "moved"}
    counts: dict[str, Any] = result.counts
    assert (counts["old_duplicates"], counts["new_duplicates"]) == (1, 2)
    assert counts["old_urls"] == len(old)


def test_entry_files_count_duplicates_on_locs_when_keys_repeat(tmp_path: Path) -> None:
    """Two locs that share a key are two locs (the file side counts through the same
    ``distinct_locs`` as the store)."""
    from urlset.store.db import connect
    from urlset.store.entries import distinct_locs

    con = connect()
    con.execute(
        "CREATE TABLE t AS SELECT * FROM (VALUES ('a', 1::UBIGINT), ('b', 1), ('b', 1),"
        " ('c', 2), ('d', 3), ('d', 3), ('e', 3)) v(loc, k)"
    )
    assert distinct_locs(con, "t") == 5
    assert distinct_locs(con, "(SELECT * FROM t WHERE loc <> 'b' AND loc <> 'd')") == 3


def test_a_store_of_an_earlier_key_layout_is_refused(tmp_path: Path) -> None:
    import duckdb

    from urlset.store.db import StoreError

    db = tmp_path / "old.duckdb"
    con = duckdb.connect(str(db))
    con.execute("CREATE TABLE entries (run_id INTEGER, loc VARCHAR, k UHUGEINT, fp UBIGINT)")
    con.close()
    with pytest.raises(StoreError, match="earlier urlset"):
        SnapshotStore(db, read_only=True)


@pytest.mark.parametrize("stored", ["old", "new", "both", "neither"])
def test_a_stored_run_and_a_loaded_side_diff_as_the_oracle_says(
    tmp_path: Path, stored: str
) -> None:
    """A run stored with MD5 keys and a side loaded for this diff (a JSON Lines file, keyed
    by DuckDB's hash for the session) meet: the diff computes both sides' join keys itself,
    and finds what the oracle finds, with moves and repeated locs, whichever side is stored."""
    from test_store_diff import write_entries
    from urlset.store.db import connect
    from urlset.store.sources import load

    old, new = generated(seed=11, n=300)
    db = tmp_path / "s.duckdb"
    specs = []
    with SnapshotStore(db) as store:
        for name, entries in (("old", old), ("new", new)):
            if stored in (name, "both"):
                specs.append(f"{db}@{store_run(store, entries, '')}")
            else:
                specs.append(str(write_entries(tmp_path / f"{name}.jsonl", entries, BASE)))
    con = connect()
    sides = [load(con, spec, f"side_{n}") for n, spec in enumerate(specs)]
    assert [side.session_keys for side in sides] == [
        stored not in (name, "both") for name in ("old", "new")
    ]
    result = compare(*specs, moves=True)
    expected = oracle(
        [dict(e, sitemap=BASE + e["sitemap"]) for e in old],
        [dict(e, sitemap=BASE + e["sitemap"]) for e in new],
    )
    assert rows_of(result) == expected
    assert {v[0] for v in expected.values()} == {"added", "removed", "changed", "moved"}

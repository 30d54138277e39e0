"""``urlset diff`` and ``urlset.store``: diffs against expectations computed by hand (a small
case written out) and by an independent oracle (generated sets with reduced-precision
lastmods, repeated locs and entries that moved between sitemaps), from every kind of source."""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest
from click.testing import CliRunner

from urlset.cli import main
from urlset.dates import from_formatted, instant
from urlset.store.diff import compare
from urlset.store.frames import read_frame

pytest.importorskip("duckdb")

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
Entry = dict[str, Any]  # loc, lastmod, changefreq, priority, sitemap


def sitemap_xml(entries: list[Entry]) -> str:
    rows = []
    for e in entries:
        parts = [f"<loc>{escape(e['loc'])}</loc>"]
        for key in ("lastmod", "changefreq", "priority"):
            if e.get(key) is not None:
                parts.append(f"<{key}>{e[key]}</{key}>")
        rows.append("<url>" + "".join(parts) + "</url>")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n'
        + "\n".join(rows)
        + "\n</urlset>\n"
    )


def write_dir(folder: Path, entries: list[Entry]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    by_map: dict[str, list[Entry]] = {}
    for e in entries:
        by_map.setdefault(e["sitemap"], []).append(e)
    for name, members in by_map.items():
        (folder / name).write_text(sitemap_xml(members), encoding="utf-8")
    return folder


def write_entries(path: Path, entries: list[Entry], base: str) -> Path:
    """The same entries as a JSON Lines, CSV or Parquet file (sitemap as a URL under base)."""
    rows = [
        {
            "loc": e["loc"],
            "lastmod": e.get("lastmod"),
            "changefreq": e.get("changefreq"),
            "priority": e.get("priority"),
            "extensions": None,
            "sitemap": base + e["sitemap"],
        }
        for e in entries
    ]
    if path.suffix == ".jsonl":
        with path.open("w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps({k: v for k, v in row.items() if v is not None}) + "\n")
    elif path.suffix == ".csv":
        with path.open("w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(list(rows[0]))
            for row in rows:
                writer.writerow(["" if v is None else v for v in row.values()])
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        pq.write_table(pa.Table.from_pylist(rows), path)
    return path


# ------------------------------------------------------------------ the oracle
def _chosen(entries: list[Entry]) -> dict[str, Entry]:
    """One entry per loc: the newest lastmod instant (none oldest), then the smallest
    sitemap, lastmod text, changefreq, priority; sitemaps: all that list it."""
    groups: dict[str, list[Entry]] = {}
    for e in entries:
        groups.setdefault(e["loc"], []).append(e)
    out = {}
    for loc, members in groups.items():

        def key(e: Entry) -> tuple[Any, ...]:
            at = instant(from_formatted(e["lastmod"])).timestamp() if e.get("lastmod") else None
            return (
                0 if at is None else 1,
                -(at or 0),
                e["sitemap"],
                e.get("lastmod") or "",
                e.get("changefreq") or "",
                e.get("priority") or -1,
            )

        best = dict(min(members, key=lambda e: (-key(e)[0], *key(e)[1:])))
        best["sitemap"] = " ".join(sorted({m["sitemap"] for m in members}))
        out[loc] = best
    return out


def oracle(
    old: list[Entry], new: list[Entry], moves: bool = True
) -> dict[str, tuple[str, str | None, str | None]]:
    """loc -> (change, fields, lastmod_change); ``moves``: sitemaps compared."""
    o, n = _chosen(old), _chosen(new)
    found: dict[str, tuple[str, str | None, str | None]] = {}
    for loc in o.keys() - n.keys():
        found[loc] = ("removed", None, None)
    for loc in n.keys() - o.keys():
        found[loc] = ("added", None, None)
    for loc in o.keys() & n.keys():
        a, b = o[loc], n[loc]
        names = ("lastmod", "changefreq", "priority", "sitemap")[: 4 if moves else 3]
        fields = [f for f in names if a.get(f) != b.get(f)]
        if not fields:
            continue
        direction = None
        if "lastmod" in fields:
            direction = "other"
            if a.get("lastmod") and b.get("lastmod"):
                x = instant(from_formatted(a["lastmod"]))
                y = instant(from_formatted(b["lastmod"]))
                direction = "forward" if x < y else "back" if x > y else "other"
        change = "moved" if fields == ["sitemap"] else "changed"
        found[loc] = (change, ",".join(fields), direction)
    return found


# ------------------------------------------------------------------ generated sets
LASTMODS = [
    "2014",
    "2014-06",
    "2024-03-01",
    "2024-03-01T10:00:00+01:00",
    "2024-03-01T09:00:00Z",
    None,
]


def generated(seed: int = 7, n: int = 400) -> tuple[list[Entry], list[Entry]]:
    rng = random.Random(seed)

    def loc(i: int) -> str:
        kinds = [
            f"https://www.example.com/p/{i}",
            f"https://www.example.com:8443/search?q={i}&amp=1&lang=fr",
            f"https://www.example.com/caf%C3%A9/%E6%97%A5%E6%9C%AC/{i}",
            f"https://www.example.com/long/{'x' * 300}/{i}?a=b&c=d",
        ]
        return kinds[i % 4]

    old = [
        {
            "loc": loc(i),
            "lastmod": LASTMODS[i % len(LASTMODS)],
            "changefreq": "daily" if i % 3 == 0 else None,
            "priority": "0.5" if i % 5 == 0 else None,
            "sitemap": f"s{i % 3}.xml",
        }
        for i in range(n)
    ]
    new = [dict(e) for e in old]
    for i, e in enumerate(new):
        r = rng.random()
        if r < 0.05:
            e["lastmod"] = "2025-01-01"  # forward (or appears)
        elif r < 0.08:
            e["lastmod"] = "2001-01"  # back, reduced precision (or appears)
        elif r < 0.11:
            e["priority"] = "0.9"
        elif r < 0.14:
            e["sitemap"] = f"s{(i + 1) % 3}.xml"  # moved
        elif r < 0.16:
            e["lastmod"] = "2024-03"  # precision change at the same instant as 2024-03-01
    new = [e for i, e in enumerate(new) if i % 29 != 3]  # removed
    new += [dict(old[0], loc=f"https://www.example.com/new/{j}?x=1&y=2") for j in range(9)]
    # repeated locs: listed twice on one side, in another sitemap with an older lastmod
    old.append(dict(old[10], sitemap="s2.xml", lastmod="2000"))
    new.append(dict(new[20], sitemap="s0.xml", lastmod="2000-01-01"))
    new.append(dict(new[21]))  # the same entry twice in one sitemap
    return old, new


def rows_of(diff: Any) -> dict[str, tuple[str, str | None, str | None]]:
    frame = diff.frame()
    return {
        r.loc: (r.change, ",".join(r.fields) if r.fields is not None else None,
                r.lastmod_change if isinstance(r.lastmod_change, str) else None)
        for r in frame.itertuples()
    }  # fmt: skip


def test_generated_sitemap_directories_match_the_oracle(tmp_path: Path) -> None:
    old, new = generated()
    expected = oracle(old, new)
    a, b = str(write_dir(tmp_path / "old", old)), str(write_dir(tmp_path / "new", new))
    result = compare(a, b, moves=True)
    assert rows_of(result) == expected
    # moves between sitemaps only when asked for
    assert rows_of(compare(a, b)) == oracle(old, new, moves=False)
    kinds = {v[0] for v in expected.values()}
    assert kinds == {"added", "removed", "changed", "moved"}  # the set exercises every kind
    assert {v[2] for v in expected.values()} >= {"forward", "back", "other"}
    c = result.counts
    assert c["added"] == sum(v[0] == "added" for v in expected.values())
    assert c["lastmod_forward"] == sum(v[2] == "forward" for v in expected.values())
    assert c["moved"] == sum(v[0] == "moved" for v in expected.values())
    # each row counted once, under its kind (a moved loc whose fields changed is changed)
    assert sum(c[k] for k in ("added", "removed", "changed", "moved")) == len(expected)
    assert (c["old_duplicates"], c["new_duplicates"]) == (1, 2)


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_entry_files_give_the_same_diff(tmp_path: Path, suffix: str) -> None:
    old, new = generated(seed=11)
    base = "https://www.example.com/"
    a = write_entries(tmp_path / f"old{suffix}", old, base)
    b = write_entries(tmp_path / f"new{suffix}", new, base)
    assert rows_of(compare(str(a), str(b), moves=True)) == oracle(
        [dict(e, sitemap=base + e["sitemap"]) for e in old],
        [dict(e, sitemap=base + e["sitemap"]) for e in new],
    )


HAND_OLD = [
    {"loc": "https://e.com/a", "lastmod": "2014", "sitemap": "a.xml"},
    {"loc": "https://e.com/b", "lastmod": "2024-01-01", "priority": "0.5", "sitemap": "a.xml"},
    {"loc": "https://e.com/c", "lastmod": "2024-01-01", "sitemap": "a.xml"},
    {"loc": "https://e.com/d", "sitemap": "a.xml"},
    {"loc": "https://e.com/d", "lastmod": "2020-01-01", "sitemap": "a.xml"},
    {"loc": "https://e.com/m", "lastmod": "2020-01-01", "sitemap": "a.xml"},
    {"loc": "https://e.com/same", "lastmod": "2014-06", "sitemap": "b.xml"},
]
HAND_NEW = [
    {"loc": "https://e.com/a", "lastmod": "2014-01-01", "sitemap": "a.xml"},
    {"loc": "https://e.com/b", "lastmod": "2024-02-01T10:00:00+01:00", "priority": "0.5", "sitemap": "a.xml"},
    {"loc": "https://e.com/c", "lastmod": "2023-12-31T23:59:59-01:00", "changefreq": "daily", "sitemap": "a.xml"},
    {"loc": "https://e.com/e?x=1&y=%C3%A9", "sitemap": "a.xml"},
    {"loc": "https://e.com/m", "lastmod": "2020-01-01", "sitemap": "b.xml"},
    {"loc": "https://e.com/same", "lastmod": "2014-06", "sitemap": "b.xml"},
]  # fmt: skip


def test_a_small_diff_by_hand(tmp_path: Path) -> None:
    result = compare(
        str(write_dir(tmp_path / "old", HAND_OLD)),
        str(write_dir(tmp_path / "new", HAND_NEW)),
        moves=True,
    )
    assert rows_of(result) == {
        "https://e.com/a": ("changed", "lastmod", "other"),  # 2014 -> 2014-01-01: same instant
        "https://e.com/b": ("changed", "lastmod", "forward"),
        # 2023-12-31T23:59:59-01:00 is 2024-01-01T00:59:59Z: later than 2024-01-01
        "https://e.com/c": ("changed", "lastmod,changefreq", "forward"),
        "https://e.com/d": ("removed", None, None),
        "https://e.com/e?x=1&y=%C3%A9": ("added", None, None),
        "https://e.com/m": ("moved", "sitemap", None),
    }
    assert result.counts["old_duplicates"] == 1
    assert result.examples["removed"][0]["old_lastmod"] == "2020-01-01"  # the newest listing


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, ["diff", *args], catch_exceptions=False)


def test_cli_exit_status_and_formats(tmp_path: Path) -> None:
    old = write_dir(tmp_path / "old", HAND_OLD)
    new = write_dir(tmp_path / "new", HAND_NEW)
    same = invoke(str(old), str(old))
    assert same.exit_code == 0, same.output
    assert "added             0" in same.output
    text = invoke(str(old), str(new), "--moves")
    assert text.exit_code == 1
    assert "lastmod 2024-01-01 -> 2024-02-01T10:00:00+01:00 (forward)" in text.output
    assert "https://e.com/m  a.xml -> b.xml" in text.output
    lines = invoke(str(old), str(new), "--format", "jsonl", "-q", "--moves").output.splitlines()
    assert len(lines) == 6 and json.loads(lines[0])["change"] == "added"
    # without --moves, m (only listed in another file) is no change; counts equal the rows
    plain = invoke(str(old), str(new))
    assert "\nmoved" not in plain.output and "a.xml -> b.xml" not in plain.output
    rows = [json.loads(x) for x in invoke(str(old), str(new), "-f", "jsonl").stdout.splitlines()]
    assert len(rows) == 5 and "https://e.com/m" not in {r["loc"] for r in rows}
    # fields is a list, as build --changes writes it
    assert {r["loc"]: r.get("fields") for r in rows}["https://e.com/c"] == [
        "lastmod",
        "changefreq",
    ]
    out = tmp_path / "d.csv"
    assert invoke(str(old), str(new), "-f", "csv", "-o", str(out), "-q").exit_code == 1
    table = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
    assert len(table) == 5 and {r["fields"] for r in table} >= {"lastmod,changefreq"}
    pq = tmp_path / "d.parquet"
    assert invoke(str(old), str(new), "-f", "parquet", "-o", str(pq), "-q").exit_code == 1
    assert len(read_frame_rows(pq)) == 5


def test_a_rebuild_that_renames_its_files_is_no_move(tmp_path: Path) -> None:
    # a build names a file by a hash of its content: one changed URL renames its whole file
    kept = [{"loc": f"https://e.com/k{n}", "sitemap": "sitemap-1-aaaa.xml"} for n in range(50)]
    moved = [{"loc": f"https://e.com/p{n}", "sitemap": "sitemap-2-bbbb.xml"} for n in range(300)]
    renamed = [dict(e, sitemap="sitemap-2-cccc.xml") for e in moved]
    renamed[7]["lastmod"] = "2024-05-01"
    old = write_dir(tmp_path / "old", kept + moved)
    new = write_dir(tmp_path / "new", kept + renamed)
    result = compare(str(old), str(new))
    assert result.counts["changed"] == 1 and result.counts["moved"] == 0
    assert rows_of(result) == {"https://e.com/p7": ("changed", "lastmod", "other")}
    asked = compare(str(old), str(new), moves=True).counts
    assert (asked["moved"], asked["changed"]) == (299, 1)
    summary_line = invoke(str(old), str(new), "-f", "jsonl").stderr
    assert "changed           1" in summary_line and "\nmoved" not in summary_line


def read_frame_rows(path: Path) -> list[dict[str, Any]]:
    import pyarrow.parquet as pq

    return list(pq.read_table(path).to_pylist())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope.xml", "nope2.xml"], "nope.xml: no such file"),
        (["db.duckdb@latest", "x"], "no such file, directory or snapshot (a snapshot is"),
        (["a", "b", "-f", "parquet"], "give -o FILE"),
    ],
)
def test_cli_errors_are_messages(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["diff", *args])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_read_frame(tmp_path: Path) -> None:
    folder = write_dir(tmp_path / "old", HAND_OLD)
    frame = read_frame(folder)
    assert list(frame.columns) == [
        "loc", "lastmod", "lastmod_at", "changefreq", "priority", "extensions", "sitemap",
    ]  # fmt: skip
    assert len(frame) == len(HAND_OLD)
    row = frame[frame["loc"] == "https://e.com/same"].iloc[0]
    assert row["lastmod"] == "2014-06" and str(row["lastmod_at"]) == "2014-06-01 00:00:00+00:00"
    assert row["sitemap"] == "b.xml"


def _values_rows(path: Path, sitemap: str | None) -> list[tuple[Any, ...]]:
    """A sitemap file's rows as the reader's Url values give them, each value written on its
    own (format_w3c, the extensions' JSON): the oracle of the columns a diff side holds."""
    from urlset.dates import format_w3c
    from urlset.extensions import json_fields
    from urlset.model import Url
    from urlset.reading.reader import read_file

    rows = []
    for url in read_file(path):
        if type(url) is not Url:
            continue
        extensions = (
            json.dumps(json_fields(url.extensions), ensure_ascii=False, separators=(",", ":"))
            if url.extensions
            else None
        )
        rows.append(
            (
                url.loc,
                None if url.lastmod is None else format_w3c(url.lastmod),
                None if url.changefreq is None else url.changefreq.value,
                url.priority,
                extensions,
                sitemap,
            )
        )
    return rows


def _side_rows(path: Path | str) -> list[tuple[Any, ...]]:
    from urlset.store.db import connect
    from urlset.store.sources import load

    con = connect()
    side = load(con, str(path), "side")
    columns = "loc, lastmod, changefreq, priority, extensions, sitemap"
    return [tuple(row) for row in con.execute(f"SELECT {columns} FROM {side.table}").fetchall()]


def _offsets_sitemap(n: int) -> bytes:
    """One instant in four offsets (equal datetimes in Python, four different texts), plain
    images, duplicates, and entries the core does not read into columns (a loc with spaces
    around it, an extension it does not type), among canonical records."""
    image = "http://www.google.com/schemas/sitemap-image/1.1"
    video = "http://www.google.com/schemas/sitemap-video/1.1"
    offsets = ("Z", "+01:00", "-05:00", "+05:30")
    rows = []
    for i in range(n):
        hour = 10 + (0, 1, -5, 5)[i % 4]
        minute = 30 if i % 4 == 3 else 0
        lastmod = f"2024-03-01T{hour:02d}:{minute:02d}:00{offsets[i % 4]}"
        loc = f"https://www.urlset-test.org/p/{i % (n - 3)}"
        if i % 97 == 5:
            loc = f"  {loc}\n"
        extra = ""
        if i % 10 == 0:
            extra = f"<image:image><image:loc>https://www.urlset-test.org/i/{i}.jpg</image:loc></image:image>"
        if i % 211 == 7:
            extra = (
                "<video:video><video:thumbnail_loc>https://www.urlset-test.org/t.jpg"
                "</video:thumbnail_loc><video:title>T</video:title><video:description>D"
                "</video:description><video:content_loc>https://www.urlset-test.org/v.mp4"
                "</video:content_loc></video:video>"
            )
        rows.append(f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod>{extra}</url>")
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" xmlns:image="{image}"'
        f' xmlns:video="{video}">\n' + "\n".join(rows) + "\n</urlset>\n"
    ).encode()


@pytest.mark.parametrize("packed", ["xml", "gz"])
def test_a_sitemap_file_side_holds_what_the_reader_gives(tmp_path: Path, packed: str) -> None:
    """A sitemap file goes into a diff side through the render lane's Arrow columns, a chunk
    at a time: the rows are the reader's values, every field written as on its own (this
    compared one instant in different offsets as one before: the memo of lastmod texts)."""
    import gzip

    data = _offsets_sitemap(30_000)  # several file chunks
    path = tmp_path / ("map.xml" if packed == "xml" else "map.xml.gz")
    path.write_bytes(data if packed == "xml" else gzip.compress(data))
    expected = _values_rows(path, None)
    assert len({row[1][-6:] for row in expected}) == 4  # all four offsets read as written
    assert any(row[4] for row in expected) and len(expected) == 30_000
    assert sorted(_side_rows(path), key=repr) == sorted(expected, key=repr)


def test_one_instant_in_two_offsets_is_a_change(tmp_path: Path) -> None:
    old = sitemap_xml([{"loc": "https://a.test/x", "lastmod": "2024-03-01T10:00:00Z"}])
    new = sitemap_xml([{"loc": "https://a.test/x", "lastmod": "2024-03-01T11:00:00+01:00"}])
    (tmp_path / "old.xml").write_text(old)
    (tmp_path / "new.xml").write_text(new)
    result = compare(str(tmp_path / "old.xml"), str(tmp_path / "new.xml"))
    assert result.counts["changed"] == 1
    rows = result.relation().fetchall()
    assert [(r[0], r[3], r[4], r[5]) for r in rows] == [
        ("changed", "other", "2024-03-01T10:00:00Z", "2024-03-01T11:00:00+01:00")
    ]

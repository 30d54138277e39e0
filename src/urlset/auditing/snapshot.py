"""``--snapshot DB``: audit results in the snapshot store's DuckDB file (driver).

    audit_runs     audit_id, started, finished (NULL while under way), target, listed,
                   sample, seed
    audit_results  audit_id, loc, sitemap, class (the status mix's bucket), status, final,
                   seconds, codes (sorted, space-separated), findings (JSON [[code, message]]),
                   redirects (JSON [[status, target]])

Results are written in batches, each committed, so an audit that is interrupted keeps what
it did: the next audit of the same target (same sample) takes up the unfinished run,
gives back what it holds (each result as it was found: counted and written to the report
again) and requests only the rest. A finished audit is compared with the previous finished
one of its target: per code, the URLs that gained it and lost it (``Changes``).
Tables of their own, so the fetch runs that ``diff`` and ``watch`` read are untouched.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..checking.rules import make_issue
from ..model import Issue
from ..store.db import StoreError, connect

SCHEMA = """
CREATE SEQUENCE IF NOT EXISTS audit_ids START 1;
CREATE TABLE IF NOT EXISTS audit_runs (
    audit_id INTEGER PRIMARY KEY, started TIMESTAMPTZ NOT NULL, finished TIMESTAMPTZ,
    target VARCHAR NOT NULL, listed BIGINT, sample BIGINT, seed BIGINT
);
CREATE TABLE IF NOT EXISTS audit_results (
    audit_id INTEGER NOT NULL, loc VARCHAR NOT NULL, sitemap VARCHAR, class VARCHAR,
    status INTEGER, final VARCHAR, seconds DOUBLE, codes VARCHAR, findings VARCHAR
);
ALTER TABLE audit_results ADD COLUMN IF NOT EXISTS redirects VARCHAR;
"""
FLUSH = 2000  # results written (and committed) together
# audit_results' columns as a batch holds them (pyarrow's type of each, by name)
_COLUMNS = (
    ("audit_id", "int32"),
    ("loc", "string"),
    ("sitemap", "string"),
    ("class", "string"),
    ("status", "int32"),
    ("final", "string"),
    ("seconds", "float64"),
    ("codes", "string"),
    ("findings", "string"),
    ("redirects", "string"),
)
CHANGE_EXAMPLES = 5


class StoredResult:
    """A result read back from an unfinished run (``AuditStore.resumed``)."""

    __slots__ = ("bucket", "final", "findings", "loc", "redirects", "seconds", "sitemap", "status")

    def __init__(self, row: tuple[Any, ...]) -> None:
        self.loc: str = row[0]
        self.bucket: str = row[1]
        self.status: int | None = row[2]
        self.seconds: float = row[3]
        self.findings: list[Issue] = [
            make_issue(code, message, source=self.loc) for code, message in json.loads(row[4])
        ]
        self.sitemap: str = row[5] or ""
        self.final: str = row[6] or self.loc
        self.redirects: tuple[tuple[int, str], ...] = tuple(
            (status, target) for status, target in json.loads(row[7] or "[]")
        )


@dataclass
class Changes:
    """What changed since the target's previous finished audit: per code, how many URLs
    gained it and lost it, and the first few of each."""

    since_audit: int
    since: str  # when it finished, UTC
    gained: dict[str, list[str]] = field(default_factory=dict)
    lost: dict[str, list[str]] = field(default_factory=dict)
    gained_count: Counter[str] = field(default_factory=Counter)
    lost_count: Counter[str] = field(default_factory=Counter)

    def to_dict(self) -> dict[str, Any]:
        codes = sorted(set(self.gained_count) | set(self.lost_count))
        return {
            "since_audit": self.since_audit,
            "since": self.since,
            "codes": {
                code: {
                    "more": self.gained_count[code],
                    "fewer": self.lost_count[code],
                    "new": self.gained.get(code, []),
                    "gone": self.lost.get(code, []),
                }
                for code in codes
            },
        }


class AuditStore:
    """One audit's results in the DuckDB file at ``path``."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.con = connect(path)
        self.con.execute(SCHEMA)
        self.audit_id = 0
        self.resuming = False
        self.changes: Changes | None = None  # set by a complete finish() with a previous run
        self._rows: list[tuple[Any, ...]] = []

    def start(self, target: str, listed: int, sample: int | None, seed: int) -> None:
        """Take up the target's unfinished run with the same sample, or begin one."""
        found = self.con.execute(
            "SELECT audit_id FROM audit_runs WHERE target = ? AND finished IS NULL"
            " AND sample IS NOT DISTINCT FROM ? AND seed = ? ORDER BY audit_id DESC LIMIT 1",
            [target, sample, seed],
        ).fetchone()
        if found is not None:
            self.audit_id, self.resuming = found[0], True
            return
        row = self.con.execute(
            "INSERT INTO audit_runs VALUES (nextval('audit_ids'), now(), NULL, ?, ?, ?, ?)"
            " RETURNING audit_id",
            [target, listed, sample, seed],
        ).fetchone()
        assert row is not None
        self.audit_id = row[0]

    def resumed(self) -> Iterator[StoredResult]:
        """The results the unfinished run already holds, a batch at a time."""
        cursor = self.con.execute(
            "SELECT loc, class, status, seconds, findings, sitemap, final, redirects"
            " FROM audit_results WHERE audit_id = ?",
            [self.audit_id],
        )
        while rows := cursor.fetchmany(FLUSH):
            for row in rows:
                yield StoredResult(row)

    def add(
        self,
        loc: str,
        sitemap: str,
        bucket: str,
        status: int | None,
        final: str,
        seconds: float,
        findings: list[Issue],
        redirects: tuple[tuple[int, str], ...] = (),
    ) -> None:
        codes, shown = "", "[]"  # most URLs: nothing found, nothing to encode
        if findings:
            codes = " ".join(sorted({i.code for i in findings}))
            shown = json.dumps([[i.code, i.message] for i in findings], ensure_ascii=False)
        hops = json.dumps(redirects, ensure_ascii=False) if redirects else None
        self._rows.append(
            (self.audit_id, loc, sitemap, bucket, status, final, seconds, codes, shown, hops)
        )
        if len(self._rows) >= FLUSH:
            self.flush()

    def flush(self) -> None:
        """The batch inserted as one Arrow table: DuckDB's ``executemany`` runs its statement
        once a row, which cost 1,160 us a row against 23 (measured: BENCHMARKS.md, "Audit"),
        three times what the audit of the URL cost."""
        if not self._rows:
            return
        import pyarrow as pa

        columns = zip(*self._rows, strict=True)
        table = pa.table(
            {
                name: pa.array(values, type=getattr(pa, kind)())
                for (name, kind), values in zip(_COLUMNS, columns, strict=True)
            }
        )
        self.con.register("_urlset_audit_batch", table)
        try:
            names = ", ".join(name for name, _ in _COLUMNS)
            self.con.execute(
                f"INSERT INTO audit_results ({names}) SELECT {names} FROM _urlset_audit_batch"
            )
        finally:
            self.con.unregister("_urlset_audit_batch")
        self._rows = []

    def finish(self, complete: bool) -> list[str]:
        """Write what is left; a complete run is marked finished and compared with the
        target's previous finished run (``changes``): the lines saying what changed."""
        self.flush()
        if not complete:
            return [f"audit {self.audit_id} in {self.path} is unfinished: run again to go on"]
        self.con.execute(
            "UPDATE audit_runs SET finished = now() WHERE audit_id = ?", [self.audit_id]
        )
        self.changes = self._changes()
        if self.changes is None:
            return [f"stored as audit {self.audit_id} in {self.path}"]
        return change_lines(self.audit_id, self.changes)

    def _changes(self) -> Changes | None:
        previous = self.con.execute(
            "SELECT p.audit_id, strftime(p.finished, '%Y-%m-%d %H:%M') FROM audit_runs p,"
            " audit_runs c WHERE c.audit_id = ? AND p.target = c.target AND p.audit_id < ?"
            " AND p.finished IS NOT NULL ORDER BY p.audit_id DESC LIMIT 1",
            [self.audit_id, self.audit_id],
        ).fetchone()
        if previous is None:
            return None
        changes = Changes(*previous)
        cursor = self.con.execute(
            """
            WITH cur AS (SELECT loc, codes FROM audit_results WHERE audit_id = ?),
                 pre AS (SELECT loc, codes FROM audit_results WHERE audit_id = ?)
            SELECT coalesce(cur.loc, pre.loc), pre.codes, cur.codes
            FROM cur FULL OUTER JOIN pre ON cur.loc = pre.loc
            WHERE cur.codes IS DISTINCT FROM pre.codes ORDER BY 1
            """,
            [self.audit_id, changes.since_audit],
        )
        while rows := cursor.fetchmany(FLUSH):
            for loc, old, new in rows:
                old_codes = set((old or "").split())
                new_codes = set((new or "").split())
                for code in new_codes - old_codes:
                    _count(changes.gained, changes.gained_count, code, loc)
                for code in old_codes - new_codes:
                    _count(changes.lost, changes.lost_count, code, loc)
        return changes

    def close(self) -> None:
        self.con.close()


def _count(kept: dict[str, list[str]], counts: Counter[str], code: str, loc: str) -> None:
    counts[code] += 1
    shown = kept.setdefault(code, [])
    if len(shown) < CHANGE_EXAMPLES:
        shown.append(loc)


def change_lines(audit_id: int, changes: Changes) -> list[str]:
    """What changed, for a person."""
    lines = [
        f"stored as audit {audit_id}; since audit {changes.since_audit} ({changes.since} UTC):"
    ]
    for code, row in changes.to_dict()["codes"].items():
        new = row["new"]
        lines.append(
            f"  {code}: {row['more']:,} URLs more, {row['fewer']:,} fewer"
            + (f" (new: {', '.join(new)})" if new else "")
        )
    if len(lines) == 1:
        lines.append("  no finding changed")
    return lines


def open_store(path: str) -> AuditStore:
    """The store at ``path`` (made when missing); a StoreError says what went wrong."""
    try:
        return AuditStore(path)
    except StoreError:
        raise
    except Exception as exc:
        raise StoreError(f"cannot use {path} as a snapshot store: {exc}") from None

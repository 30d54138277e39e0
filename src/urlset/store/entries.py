"""Entries as tables: the columns a snapshot, a diff side and ``read_frame`` share.

Every source (a sitemap read here, a fetch, a JSON Lines, CSV or Parquet file of entries, a
stored run) becomes rows of ``TEXT_COLUMNS``; ``KEYED`` then adds what comparing needs, once:

- ``lastmod_at``: the lastmod as an instant (TIMESTAMPTZ, UTC), for "moved forward / back",
  computed when rows are read (``select_list``), never stored; ``lastmod`` keeps the W3C text
  as read, so a reduced precision ("2014", "2014-06") survives.
  A year or month counts as its first day, a date as its start in UTC (``dates.instant``).
- ``k``: 64 bits of the loc's MD5, which picks the rows a diff reads back. Two locs may
  share a ``k`` (about once in 10^5 pairs of 10M-URL sets): nothing treats equal keys as
  one loc; the loc strings of the few rows read back decide (``diff``), and a run's
  duplicates are counted on the strings when keys repeat (``distinct_locs``).
- ``h``: 64 bits of MD5 over the loc, lastmod, changefreq, priority and extensions: the
  whole entry but its sitemap. A diff's first pass joins on ``h`` (xor ``sh`` when sitemaps
  are compared) and ``k`` together, so only rows that are new, gone or different are read
  back: rows of two locs match only when both numbers collide (2^-128 a pair).
- ``sh``: 64 bits of MD5 over the sitemap the entry came from ("moved between sitemaps").

MD5 rather than DuckDB's ``hash()`` for what is stored: stored keys must mean the same under
the next DuckDB. A side loaded for one diff (a file, a directory, a fetch) is never stored:
its keys are DuckDB's ``hash()`` of the same columns (``keyed(session=True)``, about 20x
cheaper than MD5), and a diff of a stored run with such a side computes its join keys from
the columns of both (``session_keys``), so keys of the two kinds never meet.
"""

from __future__ import annotations

from typing import Any

from ..reading.output import UrlColumns

TEXT_COLUMNS = ("loc", "lastmod", "changefreq", "priority", "extensions", "sitemap")
# what a stored run, a loaded side and a frame hold, in this order
COLUMNS = (
    "loc",
    "lastmod",
    "lastmod_at",
    "changefreq",
    "priority",
    "extensions",
    "sitemap",
    "k",
    "h",
    "sh",
)
TABLE_DDL = """
    loc VARCHAR NOT NULL,
    lastmod VARCHAR,
    changefreq VARCHAR,
    priority DOUBLE,
    extensions VARCHAR,
    sitemap VARCHAR,
    k UBIGINT NOT NULL,
    h UBIGINT NOT NULL,
    sh UBIGINT NOT NULL
"""

_SEP = "chr(31)"  # a unit separator: no W3C date, changefreq, number or JSON text holds one
_NULL = "chr(0)"
# W3C text -> instant; a time without a zone (never written by urlset) reads as UTC
INSTANT_SQL = """CASE length(lastmod)
    WHEN 4 THEN try_cast(lastmod || '-01-01' AS TIMESTAMPTZ)
    WHEN 7 THEN try_cast(lastmod || '-01' AS TIMESTAMPTZ)
    ELSE try_cast(lastmod AS TIMESTAMPTZ) END"""
STORED_KEYS = {
    "k": "md5_number_lower(loc)",
    "h": f"""md5_number_lower(concat_ws({_SEP}, loc, coalesce(lastmod, {_NULL}),
        coalesce(changefreq, {_NULL}), coalesce(CAST(priority AS VARCHAR), {_NULL}),
        coalesce(extensions, {_NULL})))""",
    "sh": f"md5_number_lower(coalesce(sitemap, {_NULL}))",
}
# the same keys for a side of one session: DuckDB's hash (a NULL hashes apart from any text)
SESSION_KEYS = {
    "k": "hash(loc)",
    "h": "hash(loc, lastmod, changefreq, priority, extensions)",
    "sh": "hash(sitemap)",
}
KEYED = """SELECT loc, lastmod, changefreq, priority, extensions, sitemap,
    {k} AS k, {h} AS h, {sh} AS sh
FROM (SELECT CAST(loc AS VARCHAR) AS loc, nullif(CAST(lastmod AS VARCHAR), '') AS lastmod,
        nullif(lower(CAST(changefreq AS VARCHAR)), '') AS changefreq,
        try_cast(nullif(CAST(priority AS VARCHAR), '') AS DOUBLE) AS priority,
        coalesce(CAST(try(json(nullif(nullif(CAST(extensions AS VARCHAR), ''), '{}'))) AS VARCHAR),
            nullif(nullif(CAST(extensions AS VARCHAR), ''), '{}')) AS extensions,
        nullif(CAST(sitemap AS VARCHAR), '') AS sitemap
      FROM {source} WHERE loc IS NOT NULL AND CAST(loc AS VARCHAR) <> '')"""
# the same for rows as the reader's record batches hold them (``arrow_schema``): a loc on
# every row, no empty text but the sitemap's, changefreq names in lower case, priority a
# double, extensions the JSON object urlset writes (which DuckDB's json() leaves as it is:
# tests/test_store_sides.py); the rest of KEYED's cleaning would cost a side a third more
KEYED_READ = """SELECT loc, lastmod, changefreq, priority, extensions, sitemap,
    {k} AS k, {h} AS h, {sh} AS sh
FROM (SELECT loc, lastmod, changefreq, priority, extensions, nullif(sitemap, '') AS sitemap
      FROM {source})"""


def keyed(source: str, *, session: bool = False, read: bool = False) -> str:
    """The SELECT that turns ``source`` (a table, view or table function with the text
    columns) into keyed rows (``COLUMNS`` but ``lastmod_at``, in ``TABLE_DDL``'s order):
    with the stored keys (MD5), or with a session's (``session``: never stored). ``read``:
    ``source`` holds record batches the reader made (``KEYED_READ``), not any table."""
    select = KEYED_READ if read else KEYED
    for name, key in (SESSION_KEYS if session else STORED_KEYS).items():
        select = select.replace("{" + name + "}", key)
    return select.replace("{source}", source)


def select_list(names: tuple[str, ...] = COLUMNS) -> str:
    """The SELECT list of ``names`` over keyed rows: ``lastmod_at`` is computed from the
    lastmod text as read (only diffs and frames need the instant, and it costs a snapshot
    12% of its size on disk)."""
    return ", ".join(f"{INSTANT_SQL} AS lastmod_at" if n == "lastmod_at" else n for n in names)


def distinct_locs(con: Any, rows: str) -> int:
    """How many different locs ``rows`` (keyed rows) hold: counted on ``k``, and on the loc
    strings only when keys repeat (a duplicate, or two locs whose keys collide)."""
    count, keys = con.execute(f"SELECT count(*), count(DISTINCT k) FROM {rows}").fetchall()[0]
    if keys == count:
        return int(keys)
    locs, repeated = con.execute(
        f"""SELECT count(DISTINCT loc), count(DISTINCT k) FROM {rows}
        SEMI JOIN (SELECT k FROM {rows} GROUP BY k HAVING count(*) > 1) USING (k)"""
    ).fetchall()[0]
    return int(keys - repeated + locs)


class Batches:
    """Collects entries as Arrow record batches of ``TEXT_COLUMNS`` (``add``: ``UrlColumns``
    and the sitemap they came from; ``add_batches``: record batches as the render lane makes
    them, reading/arrow.py's ``fetch_batches``) and hands them on as tables of about ``size``
    rows, so a large fetch never holds more than one batch."""

    def __init__(self, size: int = 200_000) -> None:
        self.size = size
        self.count = 0
        self._held: list[Any] = []
        self._rows = 0

    def add(self, columns: UrlColumns, sitemap: str | None) -> Any | None:
        """Add entries; returns a full table to hand on, or None."""
        from ..reading.arrow import fetch_values_batch

        return self.add_batches([fetch_values_batch(columns, sitemap)])

    def add_batches(self, batches: list[Any]) -> Any | None:
        """Add record batches (in ``arrow_schema``); returns a full table to hand on, or None."""
        rows = sum(batch.num_rows for batch in batches)
        self._held.extend(batches)
        self._rows += rows
        self.count += rows
        return self.take() if self._rows >= self.size else None

    def take(self) -> Any | None:
        """What is held, as an Arrow table (None when nothing is)."""
        if not self._rows:
            self._held = []
            return None
        import pyarrow as pa

        table = pa.Table.from_batches(self._held, schema=arrow_schema())
        self._held, self._rows = [], 0
        return table


def arrow_schema() -> Any:
    """``TEXT_COLUMNS`` as Arrow types: the columns `fetch --format parquet` writes."""
    from ..reading.arrow import fetch_schema

    return fetch_schema()

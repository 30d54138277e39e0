"""The diff of two sides (``sources.Side``): added, removed, changed, moved between sitemaps.

Two passes, so that 10 million entries a side join as integers, not strings:

1. twins: a full outer join on two 64-bit numbers a row, the entry's hash ``h`` (of its
   loc and fields; xor ``sh`` when sitemaps are compared) and the loc's key ``k``, keeps the
   row ids of the rows that have no identical twin on the other side: new, gone, changed or
   moved entries. Rows match only when both numbers do (two different rows of one loc share
   ``k`` and would need equal 64-bit ``h`` too, one chance in 2^64 per changed entry; two of
   different locs, both, 2^-128 a pair): a collision of either alone changes nothing;
2. details: just those rows are read back (by row id), joined on the loc strings (never on
   ``k``: equal keys are not taken for one loc), and classified; pairs found equal dropped.

Rules:
- a loc listed more than once on one side is compared through one entry: the one with the
  newest lastmod instant (no lastmod counts as oldest), ties broken by the smallest sitemap,
  then lastmod text, changefreq, priority and extensions; its sitemaps are all the sitemaps
  listing it (sorted, space-separated), and the extra listings are counted as duplicates;
- changed: lastmod (text), changefreq, priority or extensions differ. ``lastmod_change`` is
  ``forward`` or ``back`` when both lastmods are instants and they differ, ``other`` when the
  text differs at the same instant (a precision change: "2014" and "2014-01-01") or a lastmod
  appeared or went;
- moved: the sitemaps listing a loc differ; compared only when asked (``moves``: a build
  that names its files by their content renames every file it changes, and a move between
  files is no change of the site), when both sides name the sitemaps of their entries and
  share at least one sitemap name (a fetch of a site and a directory of its files name them
  differently). A moved loc whose fields also changed is ``changed`` (with ``sitemap``
  among its fields), counted once, as changed: the counts add up to the rows.
- ``fields`` is a list of the field names that differ (as ``build --changes`` writes them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .db import arrow_table
from .entries import COLUMNS, SESSION_KEYS, STORED_KEYS, select_list
from .sources import Side

KINDS = ("added", "removed", "changed", "moved")
DIFF_COLUMNS = (
    "change",
    "loc",
    "fields",
    "lastmod_change",
    "old_lastmod",
    "new_lastmod",
    "old_changefreq",
    "new_changefreq",
    "old_priority",
    "new_priority",
    "old_extensions",
    "new_extensions",
    "old_sitemap",
    "new_sitemap",
)
COUNTS = (
    "added",
    "removed",
    "changed",
    "lastmod_forward",
    "lastmod_back",
    "other_fields",
    "moved",
)


@dataclass(slots=True)
class Diff:
    """A finished diff: ``counts`` (``COUNTS`` plus old/new sizes and duplicates),
    ``examples`` (the first rows of each kind, by loc), and the whole diff in the
    connection's temp table ``table`` (``relation()``, ``frame()``, ``arrow()``)."""

    con: Any
    table: str
    old: Side
    new: Side
    counts: dict[str, int]
    compared_sitemaps: bool
    examples: dict[str, list[dict[str, Any]]] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return any(self.counts[k] for k in ("added", "removed", "changed", "moved"))

    def sections(self) -> dict[str, dict[str, int]]:
        """Changes by kind in each section of the sides, when they were written by section
        (their sitemap files named ``sitemap-blog-3-<hash>.xml.gz``: an added, changed or
        moved loc counts in its new file's section, a removed one in its old file's), in
        name order; empty otherwise."""
        from ..writing.options import sections_of_names  # the build's options: only here

        columns = self.con.execute(f"SELECT * FROM {self.table} LIMIT 0").description
        if "new_sitemap" not in {d[0] for d in columns}:
            return {}
        found = self.con.execute(
            f"SELECT change, coalesce(new_sitemap, old_sitemap) AS sitemap, count(*) "
            f"FROM {self.table} WHERE sitemap IS NOT NULL GROUP BY ALL"
        ).fetchall()
        # a loc listed in several files: the first; a URL: its file name
        first = {s: s.split(" ")[0].rstrip("/").rsplit("/", 1)[-1] for _, s, _ in found}
        section_of = sections_of_names(sorted(set(first.values())), [])
        out: dict[str, dict[str, int]] = {}
        for change, sitemap, n in found:
            section = section_of.get(first[sitemap])
            if section is not None:
                out.setdefault(section, dict.fromkeys(KINDS, 0))[change] += int(n)
        return dict(sorted(out.items()))

    def relation(self) -> Any:
        return self.con.sql(f"SELECT * FROM {self.table} ORDER BY change, loc")

    def frame(self) -> Any:
        return arrow_table(self.relation()).to_pandas()

    def arrow(self) -> Any:
        return arrow_table(self.relation())


def _collapsed(side: Side) -> str:
    """The side with one row per loc (see the module doc): the table itself when it has no
    duplicates, else its unique rows plus one chosen row for each repeated loc."""
    t = side.table
    if not side.duplicates:
        return t
    keys = SESSION_KEYS if side.session_keys else STORED_KEYS
    sitemap_key = keys["sh"].replace("sitemap", "maps.maps")
    return f"""(
    WITH rows AS (SELECT * FROM {t}),
    repeated AS (SELECT k FROM rows GROUP BY k HAVING count(*) > 1),
    candidates AS (SELECT * FROM rows SEMI JOIN repeated USING (k)),
    maps AS (
        SELECT loc, nullif(array_to_string(list_sort(list(DISTINCT sitemap)), ' '), '') AS maps
        FROM candidates GROUP BY loc),
    ranked AS (
        SELECT c.*, row_number() OVER (PARTITION BY c.loc ORDER BY c.lastmod_at DESC NULLS LAST,
            c.sitemap NULLS LAST, c.lastmod, c.changefreq, c.priority, c.extensions) AS n
        FROM candidates c),
    chosen AS (
        SELECT ranked.* EXCLUDE (sitemap, sh, n), maps.maps AS sitemap,
            {sitemap_key} AS sh
        FROM ranked JOIN maps USING (loc) WHERE n = 1)
    SELECT * FROM rows ANTI JOIN repeated USING (k)
    UNION ALL BY NAME SELECT * FROM chosen)"""


def diff_sides(
    con: Any,
    old: Side,
    new: Side,
    *,
    examples: int = 5,
    name: str = "urlset_diff",
    moves: bool = False,
) -> Diff:
    """Compare two loaded sides in ``con``; the result's rows are in temp table ``name``.
    ``moves``: also report locs listed in other sitemaps than before."""
    o_src, o_where = _base(con, old, f"{name}_old")
    n_src, n_where = _base(con, new, f"{name}_new")
    o, n = f"(SELECT * FROM {o_src} WHERE {o_where})", f"(SELECT * FROM {n_src} WHERE {n_where})"
    # a stored run's keys and a loaded side's are of two kinds: then both sides' join keys
    # are the session's, computed here from their columns (cheap beside reading them)
    k, h, sh = ("k", "h", "sh") if old.session_keys == new.session_keys else _session()
    compare = moves and old.named_sitemaps and new.named_sitemaps and _share_sitemaps(con, o, n, sh)
    entry = f"xor({h}, {sh})" if compare else h
    # pass 1: rows without an identical twin (same entry hash and key) on the other side
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE {name}_keys AS
        SELECT o.r AS orow, n.r AS nrow
        FROM (SELECT {entry} AS e, {k} AS k, rowid AS r FROM {o_src} WHERE {o_where}) o
        FULL JOIN (SELECT {entry} AS e, {k} AS k, rowid AS r FROM {n_src} WHERE {n_where}) n
            ON o.e = n.e AND o.k = n.k
        WHERE o.e IS NULL OR n.e IS NULL"""
    )
    sitemap_differs = "o.sitemap IS DISTINCT FROM n.sitemap" if compare else "false"
    fields = select_list(COLUMNS[:7])
    con.execute(
        f"""CREATE OR REPLACE TEMP TABLE {name} AS
        WITH o AS (SELECT {fields} FROM {o_src} WHERE rowid IN (SELECT orow FROM {name}_keys)),
             n AS (SELECT {fields} FROM {n_src} WHERE rowid IN (SELECT nrow FROM {name}_keys)),
             pairs AS (
                SELECT coalesce(n.loc, o.loc) AS loc, o.loc IS NULL AS is_new,
                    n.loc IS NULL AS is_gone,
                    concat_ws(',',
                        CASE WHEN o.lastmod IS DISTINCT FROM n.lastmod THEN 'lastmod' END,
                        CASE WHEN o.changefreq IS DISTINCT FROM n.changefreq THEN 'changefreq' END,
                        CASE WHEN o.priority IS DISTINCT FROM n.priority THEN 'priority' END,
                        CASE WHEN o.extensions IS DISTINCT FROM n.extensions THEN 'extensions' END,
                        CASE WHEN {sitemap_differs} THEN 'sitemap' END) AS field_list,
                    CASE WHEN o.lastmod IS NOT DISTINCT FROM n.lastmod THEN NULL
                        WHEN o.lastmod_at < n.lastmod_at THEN 'forward'
                        WHEN o.lastmod_at > n.lastmod_at THEN 'back'
                        ELSE 'other' END AS lastmod_change,
                    o.lastmod AS old_lastmod, n.lastmod AS new_lastmod,
                    o.changefreq AS old_changefreq, n.changefreq AS new_changefreq,
                    o.priority AS old_priority, n.priority AS new_priority,
                    o.extensions AS old_extensions, n.extensions AS new_extensions,
                    o.sitemap AS old_sitemap, n.sitemap AS new_sitemap
                FROM o FULL JOIN n ON o.loc = n.loc)
        SELECT CASE WHEN is_new THEN 'added' WHEN is_gone THEN 'removed'
                WHEN field_list = 'sitemap' THEN 'moved' ELSE 'changed' END AS change,
            loc,
            CASE WHEN is_new OR is_gone THEN NULL ELSE string_split(field_list, ',') END
                AS fields,
            CASE WHEN is_new OR is_gone THEN NULL ELSE lastmod_change END AS lastmod_change,
            * EXCLUDE (loc, is_new, is_gone, field_list, lastmod_change)
        FROM pairs WHERE is_new OR is_gone OR field_list <> ''"""
    )
    counts = _counts(con, name, old, new)
    result = Diff(con, name, old, new, counts, bool(compare))
    if examples:
        result.examples = _examples(con, name, examples)
    return result


def _base(con: Any, side: Side, table: str) -> tuple[str, str]:
    """The table and filter to read a side from: its own, or, when it repeats locs, a temp
    table of its collapsed rows."""
    if not side.duplicates:
        return side.source, side.where
    con.execute(f"CREATE OR REPLACE TEMP TABLE {table} AS SELECT * FROM {_collapsed(side)}")
    return table, "true"


def _session() -> tuple[str, str, str]:
    """The session's keys (k, h, sh), as expressions over a side's columns."""
    return SESSION_KEYS["k"], SESSION_KEYS["h"], SESSION_KEYS["sh"]


def _share_sitemaps(con: Any, o: str, n: str, sh: str) -> bool:
    shared = con.execute(
        f"SELECT count(*) FROM (SELECT DISTINCT {sh} AS sh FROM {o}) SEMI JOIN"
        f" (SELECT DISTINCT {sh} AS sh FROM {n}) USING (sh)"
    ).fetchall()[0][0]
    return bool(shared)


def _counts(con: Any, name: str, old: Side, new: Side) -> dict[str, int]:
    row = con.execute(
        f"""SELECT count(*) FILTER (change = 'added'), count(*) FILTER (change = 'removed'),
            count(*) FILTER (change = 'changed'),
            count(*) FILTER (lastmod_change = 'forward'), count(*) FILTER (lastmod_change = 'back'),
            count(*) FILTER (change = 'changed' AND (lastmod_change = 'other'
                OR list_has_any(fields, ['changefreq', 'priority', 'extensions']))),
            count(*) FILTER (change = 'moved')
        FROM {name}"""
    ).fetchall()[0]
    counts = dict(zip(COUNTS, (int(v or 0) for v in row), strict=True))
    counts.update(
        old_urls=old.count,
        new_urls=new.count,
        old_duplicates=old.duplicates,
        new_duplicates=new.duplicates,
    )
    return counts


def _examples(con: Any, name: str, limit: int) -> dict[str, list[dict[str, Any]]]:
    cursor = con.execute(
        f"""SELECT * EXCLUDE (r) FROM (
            SELECT *, row_number() OVER (PARTITION BY change ORDER BY loc) AS r FROM {name})
        WHERE r <= {int(limit)} ORDER BY change, loc"""
    )
    names = [d[0] for d in cursor.description]
    found: dict[str, list[dict[str, Any]]] = {kind: [] for kind in KINDS}
    for row in cursor.fetchall():
        record = dict(zip(names, row, strict=True))
        found[record["change"]].append(record)
    return found


def compare(
    old: str,
    new: str,
    *,
    examples: int = 5,
    site: str | None = None,
    con: Any = None,
    moves: bool = False,
) -> Diff:
    """Load two sides (``sources.load`` specs: ``DB@latest``, a URL, a directory, a sitemap
    or an entries file) and diff them, on ``con`` or a new in-memory connection; ``moves``
    also reports locs that moved between sitemaps."""
    from .db import connect
    from .sources import shared_connection

    if con is None:  # in the database of a store open on a side's file, if one is
        con = shared_connection(old, new) or connect()
    old_side, new_side = _load_both(con, old, new, site)
    return diff_sides(con, old_side, new_side, examples=examples, moves=moves)


def _load_both(con: Any, old: str, new: str, site: str | None) -> tuple[Side, Side]:
    """Both sides, loaded at once unless one is a stored run (nothing to read): reading a
    sitemap is one core's work (the compiled reader lets go of the GIL), so the old side
    reads on a thread, into another cursor of the same database, while the new one reads
    here. An error of the old side is raised first, as when they load in turn."""
    from concurrent.futures import ThreadPoolExecutor

    from .db import configured
    from .sources import SNAPSHOT, attach_sides, load

    if any(SNAPSHOT.fullmatch(spec) for spec in (old, new)):
        return load(con, old, "urlset_old", site=site), load(con, new, "urlset_new", site=site)
    attach_sides(con)
    cursor = configured(con.cursor())
    try:
        with ThreadPoolExecutor(1, thread_name_prefix="urlset-diff-side") as pool:
            loading = pool.submit(load, cursor, old, "urlset_old", site=site)
            try:
                new_side = load(con, new, "urlset_new", site=site)
            except BaseException as exc:
                if not isinstance(exc, Exception):  # Ctrl-C: the old side stops too
                    cursor.interrupt()
                if loading.exception() is None or not isinstance(exc, Exception):
                    raise
            return loading.result(), new_side
    finally:
        cursor.close()

"""Snapshots and diffs: what a site's sitemaps held at each run, and what changed between two.

Import from the modules (``urlset.store.diff.compare``, ``urlset.store.snapshot.SnapshotStore``,
``urlset.store.frames.read_frame``); this package imports nothing, so loading one module does
not load the others.

entries    the columns every source becomes (W3C lastmod text + instant, MD5 keys)
db         DuckDB opened in UTC with a memory limit; StoreError
snapshot   SnapshotStore: runs in one DuckDB file, Parquet export and import
record     storing a fetch (FetchRecorder, store_fetch) or a read (store_read)
sources    diff sides: a stored run, a URL, a directory, a sitemap, an entries file
diff       diff_sides: added, removed, changed (lastmod forward / back, other fields), moved
frames     read_frame, read_arrow, read_relation
watch      the watch loop: fetch, store, diff with the previous run, hand the diff on
"""

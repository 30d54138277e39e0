"""Checking a site over HTTP: the fetcher's discovery and downloads, the checker's rules.

``checking`` and ``fetching`` sit at the same rank and stay apart; this stage joins them.
``driver`` runs ``fetching.http.fetch_sitemaps`` (robots.txt, well-known locations, index
children; retries, concurrency, the run's deadline and caps) with a reader that keeps each
document's bytes for ``checking.document.check_document``, then compares each index with
its children and gives one ``CheckReport``.
"""

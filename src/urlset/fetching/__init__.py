"""Fetching: a site in, every sitemap it lists read, with a tree of what was fetched.

``discovery`` is the flow as a generator of requests (robots.txt, well-known locations, index
children; no I/O), built from ``values``, ``issues``, ``admission``, ``robots`` and
``sitemap_stage``; ``http`` is the aiohttp driver that answers it and streams bodies into the
reader, built from ``http_options``, ``fetcher``, ``failures``, ``body`` and ``parse_pool``;
``cache`` keeps validators and parsed results for conditional re-fetches.
"""

"""Fetching: a site in, every sitemap it lists read, with a tree of what was fetched.

``discovery`` is the flow as a generator of requests (robots.txt, well-known locations, index
children; no I/O); ``http`` is the aiohttp driver that answers it and streams bodies into the
reader; ``cache`` keeps validators and parsed results for conditional re-fetches.
"""

"""Sources of a sitemap's URLs when there is no list: a site's files, its access logs, or
the running site itself.

Each source yields batches of build entries (rows, ``Url`` values, ``InputError`` values)
for ``writing.build.write_sitemaps``, the one writer, and keeps a ``SourceReport`` of what it
left out and why.

    page.py        pure: an HTML page's bytes -> PageFacts (robots, canonical, hreflang,
                   images, links)
    entries.py     PageFacts -> a build entry
    directory.py   a static site's output folder -> entries (git or mtime lastmod)
    access_log.py  Common/Combined Log Format files -> one row per page requested
    crawl.py       a running site -> entries, crawled politely over fetching's Fetcher
    report.py      SourceReport, SourceError
"""

from __future__ import annotations

"""Auditing: are the URLs a sitemap lists pages a search engine would index?

    rules.py   pure: a listed URL and the answer to it -> findings (status, redirects,
               indexability, freshness), and the rules over the whole list (duplicates,
               forms of one page, one lastmod everywhere)
    driver.py  the listed URLs read (site, sitemap, folder) and requested politely over the
               Fetcher; ``audit()``, ``AuditReport``
    output.py  the report as text, JSON Lines, SARIF and HTML

Named ``auditing`` (as checking, fetching) so that ``urlset.audit`` stays the function.
"""

from __future__ import annotations

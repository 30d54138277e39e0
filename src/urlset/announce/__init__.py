"""Announce: telling search engines where the sitemaps are and what changed.

The protocol's last section, "Informing search engine crawlers", and what engines accept
today, each usable from a site's deploy script:

- robots.txt: ``edit_sitemaps`` (bytes -> bytes, every other byte kept) and
  ``update_robots_file`` (the same on a file, atomically) add, update and take out
  ``Sitemap:`` lines, and with ``policies`` (``parse_policy``, ``parse_policy_file``;
  ``edit_policies`` on bytes) User-agent groups; ``check_robots`` checks a robots.txt against the sitemaps it names
  (reachable, in scope with cross-submission, not disallowed, their URLs not blocked);
  ``robots_test`` (bytes, URLs, agents -> ``RobotsVerdict``s: allowed or not, by which rule
  on which line) and ``robots_matrix`` / ``robots_matrix_sync`` (the same of a file or URL).
- ping: ``ping_sitemap`` / ``ping_sitemap_sync`` send ``<endpoint>?sitemap=<URL>`` to the endpoints given
  (there are no default ones: the large engines retired theirs).
- Search Console: ``call_search_console`` / ``call_search_console_sync`` (submit, list,
  get) with an ``access_token`` from google-auth; Bing Webmaster: ``submit_bing`` / ``submit_bing_sync``
  (SubmitFeed, SubmitUrlBatch within the daily quota).
- IndexNow: ``generate_key``, ``IndexNowSite``, ``write_key_file``, ``submit_indexnow`` /
  ``submit_indexnow_sync`` (batches of at most 10,000, each answer reported, what was
  accepted remembered in a ``SubmissionState`` file).

The parts: ``robots_text`` and ``robots_policy`` (pure editing), ``robots_file`` (atomic write), ``robots_check``
(pure rules), ``robots_rules`` (verdicts explained) and ``robots_verify`` (their driver over
the fetcher); ``ping``; ``indexnow``
(pure), ``indexnow_state`` and ``indexnow_http`` (driver); ``http`` (one request, retried
within a deadline). Names load on first use, so importing this package stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .bing import BingReport, submit_bing, submit_bing_sync
    from .indexnow import (
        DEFAULT_ENDPOINT,
        ENDPOINTS,
        BatchReport,
        IndexNowSite,
        Outcome,
        check_key,
        generate_key,
    )
    from .indexnow_http import (
        IndexNowReport,
        submit_indexnow,
        submit_indexnow_sync,
        write_key_file,
    )
    from .indexnow_state import SubmissionState
    from .ping import PingResult, ping_request, ping_sitemap, ping_sitemap_sync
    from .robots_file import update_robots_file
    from .robots_policy import (
        Policy,
        edit_policies,
        parse_policy,
        parse_policy_file,
    )
    from .robots_rules import RobotsVerdict, robots_test
    from .robots_text import PolicyChange, RobotsEdit, edit_sitemaps, sitemap_lines
    from .robots_verify import (
        RobotsCheckReport,
        RobotsMatrix,
        check_robots,
        check_robots_sync,
        robots_matrix,
        robots_matrix_sync,
    )
    from .search_console import (
        ConsoleResult,
        access_token,
        call_search_console,
        call_search_console_sync,
    )

_LAZY = {
    "BingReport": "bing",
    "submit_bing": "bing",
    "submit_bing_sync": "bing",
    "ConsoleResult": "search_console",
    "access_token": "search_console",
    "call_search_console": "search_console",
    "call_search_console_sync": "search_console",
    "DEFAULT_ENDPOINT": "indexnow",
    "ENDPOINTS": "indexnow",
    "BatchReport": "indexnow",
    "IndexNowSite": "indexnow",
    "Outcome": "indexnow",
    "check_key": "indexnow",
    "generate_key": "indexnow",
    "IndexNowReport": "indexnow_http",
    "submit_indexnow": "indexnow_http",
    "submit_indexnow_sync": "indexnow_http",
    "write_key_file": "indexnow_http",
    "SubmissionState": "indexnow_state",
    "PingResult": "ping",
    "ping_sitemap": "ping",
    "ping_request": "ping",
    "ping_sitemap_sync": "ping",
    "update_robots_file": "robots_file",
    "Policy": "robots_policy",
    "PolicyChange": "robots_text",
    "edit_policies": "robots_policy",
    "parse_policy": "robots_policy",
    "parse_policy_file": "robots_policy",
    "RobotsEdit": "robots_text",
    "edit_sitemaps": "robots_text",
    "sitemap_lines": "robots_text",
    "RobotsCheckReport": "robots_verify",
    "check_robots": "robots_verify",
    "check_robots_sync": "robots_verify",
    "RobotsMatrix": "robots_verify",
    "robots_matrix": "robots_verify",
    "robots_matrix_sync": "robots_verify",
    "RobotsVerdict": "robots_rules",
    "robots_test": "robots_rules",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'urlset.announce' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_ENDPOINT",
    "ENDPOINTS",
    "BatchReport",
    "BingReport",
    "ConsoleResult",
    "IndexNowReport",
    "IndexNowSite",
    "Outcome",
    "PingResult",
    "Policy",
    "PolicyChange",
    "RobotsCheckReport",
    "RobotsEdit",
    "RobotsMatrix",
    "RobotsVerdict",
    "SubmissionState",
    "access_token",
    "call_search_console",
    "call_search_console_sync",
    "check_key",
    "check_robots",
    "check_robots_sync",
    "edit_policies",
    "edit_sitemaps",
    "generate_key",
    "parse_policy",
    "parse_policy_file",
    "ping_request",
    "ping_sitemap",
    "ping_sitemap_sync",
    "robots_matrix",
    "robots_matrix_sync",
    "robots_test",
    "sitemap_lines",
    "submit_bing",
    "submit_bing_sync",
    "submit_indexnow",
    "submit_indexnow_sync",
    "update_robots_file",
    "write_key_file",
]

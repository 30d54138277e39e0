"""The rules on each entry of a document: host and scope, lastmod, extensions.

``EntryRules`` takes a document's entries in order, two ways: one value at a time (``value``:
a ``Url`` or ``SitemapRef`` the reader gave), or a run of records the compiled core read into
columns (``records``: the render lane's locs and lastmods as text, their instants, their
extensions' JSON), judged a column at a time. Both ways give the same findings in the same
order per code: a run costs a few passes at C speed, and only a record a rule may flag (a
host with findings, a loc outside the scope, a lastmod in the future or without a day, an
extension) is looked at on its own.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime, time
from itertools import compress, repeat
from typing import Any, cast

from .._core import loc_hashes_where
from ..dates import Lastmod, from_formatted, future_lastmod, lastmod_without_day, latest_day
from ..errors import InvalidValue
from ..extensions.set_checks import SetChecks
from ..model import ChangeFreq, SitemapRef, Url
from ..urls import Scope, non_production_host, placeholder_host
from . import rules
from .ext_columns import NewsAges, judged, listed_issues
from .findings import Findings
from .records import Lastmods, Records

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_FREQS = tuple(ChangeFreq)


class Hosts:
    """Host rules, computed once per scheme://authority and applied to every URL on it."""

    def __init__(
        self, found: Findings, scope: Scope | None, index: bool, also: Scope | None = None
    ) -> None:
        self.found = found
        self.scope = scope
        self.also = None if index else also  # a cross-submitting site (urlsets only)
        self.index = index
        self.seen: dict[str, tuple[tuple[str, str], ...]] = {}
        self.first_host: str | None = None
        self.prefix = "" if scope is None else scope.prefix

    def of_index(self, served: Scope | None) -> Hosts:
        """The rules for an index's entries, on its own site (``served``), which this one
        turns out to be."""
        return Hosts(self.found, served, True)

    def check(self, loc: str) -> None:
        end = loc.find("/", 8)
        authority = loc if end < 0 else loc[:end]
        verdicts = self.count(authority, loc, 1, self.found.entry)
        self.in_scope(loc, verdicts)

    def count(self, authority: str, loc: str, urls: int, entry: int) -> tuple[tuple[str, str], ...]:
        """The verdicts on ``authority`` (judged on ``loc`` when new), counted for ``urls``
        URLs on it, the first of them ``loc``, entry number ``entry``."""
        verdicts = self.seen.get(authority)
        if verdicts is None:
            verdicts = self._judge(loc)
            self.seen[authority] = verdicts
        found = self.found
        for code, message in verdicts:
            # a development host is one finding whatever its scheme and port, as the reader
            # reports it: every URL on the host counted
            key = rules.host_of(loc) if code == "dev-host" else authority
            found.per_host(code, key, message, loc, urls, entry)
        return verdicts

    def in_scope(self, loc: str, verdicts: tuple[tuple[str, str], ...]) -> None:
        """The scope rule on ``loc``, whose authority's verdicts are ``verdicts``."""
        scope = self.scope
        if (
            scope is not None
            and not self.index
            and not loc.startswith(self.prefix)
            and not any(code in ("www-variant", "url-not-allowed") for code, _ in verdicts)
            and (self.also is None or not loc.startswith(self.also.prefix))
        ):
            why = rules.url_not_allowed(loc, scope)
            if why is not None:
                self.found.at_entry("url-not-allowed", why, loc)

    def _judge(self, loc: str) -> tuple[tuple[str, str], ...]:
        host = rules.host_of(loc)
        out: list[tuple[str, str]] = []
        message = non_production_host(host)
        if message is not None:
            out.append(("dev-host", message))
        message = placeholder_host(host)
        if message is not None:
            out.append(("placeholder-host", message))
        scope = self.scope
        if scope is None:
            if self.first_host is None:
                self.first_host = host
            message = rules.mixed_hosts(host, self.first_host)
            if message is not None:
                out.append(("mixed-hosts", message))
            return tuple(out)
        if self.also is not None and loc.startswith(self.also.prefix):
            return tuple(out)  # cross-submitted: the site's robots.txt lists the sitemap
        message = rules.www_variant(loc, scope)
        if message is not None:
            out.append(("www-variant", message))
            return tuple(out)
        site = Scope(scope.scheme, scope.host, scope.port, "/")
        message = rules.index_other_site(loc, scope) if not loc.startswith(site.prefix) else None
        if message is not None:
            out.append(("index-other-site" if self.index else "url-not-allowed", message))
        return tuple(out)


def scope_of(base_url: str | None) -> Scope | None:
    if base_url is None:
        return None
    try:
        return Scope.of(base_url)
    except (InvalidValue, ValueError):
        return None


class EntryRules:
    """The rules on a document's entries, given in document order (see the module doc);
    ``entries`` counts them, ``careful`` the ones given as values (not in the core's runs),
    ``newest()`` is the newest lastmod."""

    def __init__(
        self,
        found: Findings,
        set_checks: SetChecks,
        refs: list[SitemapRef],
        source: str,
        *,
        base_url: str | None,
        url_scope: str | None,
        cross_submit: str | None,
        now: datetime | None,
    ) -> None:
        self.found = found
        self.set_checks = set_checks
        self.refs = refs
        self.source = source
        self.served = scope_of(base_url)
        scope = self.served if url_scope is None else scope_of(url_scope)
        self.now = now
        self.day_limit = latest_day(now) if now is not None else date.max
        self.newest_date: date | None = None
        self.newest_time: datetime | None = None
        self.entries = 0
        self.careful = 0
        self.hosts = Hosts(found, scope, False, scope_of(cross_submit))
        self.prefix = None if scope is None else scope.prefix
        self._check_url: Any = None
        self._ages: NewsAges | None = None
        self._reduced: dict[str, list[tuple[str, str]]] = {}
        # the lastmod rules' limits as the core's instants (microseconds since 1970 UTC)
        self._latest_day = (datetime.combine(self.day_limit, time(), UTC) - _EPOCH) // _MICROSECOND
        self._now = None if now is None else (now - _EPOCH) // _MICROSECOND

    def value(self, event: Url | SitemapRef) -> Url | None:
        """One entry the reader gave; the Url, when it is one. The per-entry hot loop."""
        hosts = self.hosts
        if type(event) is SitemapRef:
            if not hosts.index:  # an index's children lie on its own site
                hosts = self.hosts = hosts.of_index(self.served)
                self.prefix = None if self.served is None else self.served.prefix
            self.refs.append(event)
        self.found.entry = self.entries
        self.entries += 1
        self.careful += 1
        loc: str = event[0]
        url: Url | None = None
        if type(event) is Url:
            url = event
            if url.extensions:
                self._extensions(url)
            else:
                self.set_checks.reciprocity.add_plain(loc)
        # fast path: a known host without findings, inside the scope
        end = loc.find("/", 8)
        verdicts = hosts.seen.get(loc[:end] if end >= 0 else loc)
        prefix = self.prefix
        if verdicts is None or verdicts or (prefix is not None and not loc.startswith(prefix)):
            hosts.check(loc)
        lastmod: Lastmod | None = event[1]
        if lastmod is not None:
            self._lastmod(lastmod, loc)
        return url

    def _lastmod(self, lastmod: Lastmod, loc: str) -> None:
        if not isinstance(lastmod, datetime):
            if self.newest_date is None or lastmod > self.newest_date:
                self.newest_date = lastmod
            if lastmod > self.day_limit or type(lastmod) is not date:  # a year or a month
                self._lastmod_rules(lastmod, loc)
        else:
            if self.newest_time is None or lastmod > self.newest_time:
                self.newest_time = lastmod
            if self.now is not None and lastmod > self.now:
                self._lastmod_rules(lastmod, loc)

    def _lastmod_rules(self, lastmod: Lastmod, loc: str) -> None:
        """The rules on one lastmod (called only when one may apply)."""
        for code, message in self._lastmod_findings(lastmod):
            self.found.at_entry(code, message, loc)

    def _lastmod_findings(self, lastmod: Lastmod) -> list[tuple[str, str]]:
        out = []
        message = lastmod_without_day(lastmod)
        if message is not None:
            out.append(("lastmod-without-day", message))
        message = None if self.now is None else future_lastmod(lastmod, self.now)
        if message is not None:
            out.append(("future-lastmod", message))
        return out

    def _reduced_rules(self, text: str, loc: str) -> None:
        """``_lastmod_rules`` on a year or a month as the core wrote it, worked out once per
        text (a sitemap of them repeats a few)."""
        for code, message in self._reduced_findings(text):
            self.found.at_entry(code, message, loc)

    def _reduced_findings(self, text: str) -> list[tuple[str, str]]:
        said = self._reduced.get(text)
        if said is None:
            said = self._reduced[text] = self._lastmod_findings(from_formatted(text))
        return said

    def _extensions(self, url: Url) -> None:
        """Their own rules, and the set-wide ones (hreflang, news)."""
        check_url = self._check_url
        if check_url is None:
            from ..extensions.rules import check_url  # loaded with the first extension

            self._check_url = check_url
        # the reader has already reported elements it could not type (raw=False)
        for problem in check_url(url, now=self.now, raw=False):
            self.found.at_entry(problem.code, problem.message, url[0])
        self.set_checks.add(url, source=self.source)

    def records(self, run: Records) -> None:
        """A run of records the core read into columns, judged a column at a time; the
        records a rule may flag are then taken in document order, each as ``value`` takes
        an entry (extensions, host and scope, lastmod), so findings are placed alike."""
        first = self.entries
        count = run.count
        self.entries += count
        hosts_each = self._hosts_each(run)
        outside = self._hosts_in_columns(run, first) if hosts_each else set()
        flagged = self._lastmods_of(run)
        reciprocity = self.set_checks.reciprocity
        with_extensions: list[int] = []
        hashes = run.loc_hashes()  # the set rules' plain pages, hashed from the buffers
        links: list[int] | bytes = []
        counted: list[tuple[str, int]] = []
        listed: dict[int, set[str]] = {}
        if run.has_extensions:  # the pages without extensions, then the others once judged
            with_extensions, listed, links, counted = self._judged(run, hashes)
        else:
            reciprocity.add_plain_hashes(hashes)
        if outside or flagged or with_extensions or listed or links:
            self._one_by_one(run, first, outside, flagged, with_extensions, listed, links)
        for code, n in counted:  # after the listed ones (see ``ext_columns.judged``)
            self.found.count(code, n)

    def _one_by_one(
        self,
        run: Records,
        first: int,
        outside: set[int],
        flagged: list[int],
        with_extensions: list[int],
        listed: dict[int, set[str]],
        links: list[int] | bytes,
    ) -> None:
        """The records of a run a rule may flag, in document order, each as ``value``
        takes an entry (extensions, host and scope, lastmod), so findings are placed
        alike; of those judged in the core (``listed``: each with its codes), the findings
        alone, worded from their JSON (``ext_columns.listed_issues``)."""
        reciprocity = self.set_checks.reciprocity
        extended, flags = set(with_extensions), set(flagged)
        hosts, found = self.hosts, self.found
        seen = hosts.seen
        if links and not extended:  # the set rule takes them in document order, at once
            reciprocity.add_json_rows(run.column_buffers(), links)
            links = []
        linked = set(links if isinstance(links, list) else memoryview(links).cast("I"))
        todo = sorted(extended | flags | outside | linked | listed.keys())
        needed = sorted(flags | outside | listed.keys())  # the records whose loc is worded
        locs = dict(zip(needed, run.locs_at(needed), strict=True))
        jsons = dict(zip(sorted(listed), run.extension_texts(sorted(listed)), strict=True))
        lastmods = sorted(flags)
        texts = dict(zip(lastmods, run.lastmod_texts_at(lastmods), strict=True))
        waiting: list[int] = []  # records with alternates not yet given to the set rule
        for i in todo:
            loc = locs.get(i, "")
            found.entry = first + i
            if i in extended:
                if waiting:  # the set rule takes them in document order: those before first
                    reciprocity.add_json_rows(run.column_buffers(), waiting)
                    waiting = []
                self._extensions(run.url(i))
            elif i in linked:
                waiting.append(i)
            if i in listed:
                for problem in listed_issues(loc, jsons[i], listed[i], self.now):
                    found.at_entry(problem.code, problem.message, loc)
            if i in outside:
                end = loc.find("/", 8)
                hosts.in_scope(loc, seen[loc[:end] if end >= 0 else loc])
            if i in flags:
                text = texts[i]
                if len(text) in (4, 7):  # a year, a month: each a finding, the same per text
                    self._reduced_rules(text, loc)
                else:
                    self._lastmod_rules(from_formatted(text), loc)
        if waiting:
            reciprocity.add_json_rows(run.column_buffers(), waiting)

    def _judged(
        self, run: Records, hashes: bytes
    ) -> tuple[list[int], dict[int, set[str]], list[int] | bytes, list[tuple[str, int]]]:
        """The records with extensions whose JSON is not the core's usual shape (made
        values later), the others counted for the set rules here (``ext_columns``;
        ``hashes``, the run's locs' hashes: the pages without extensions, then those
        without alternates); the records whose findings are listed, with their codes; the
        hreflang links by record, for the reciprocity in document order; the findings not
        listed, by code, to count once the listed ones are added."""
        if self._ages is None:
            self._ages = NewsAges(self.now)
        kinds: Counter[str] = Counter()
        found = judged(run, self._ages, kinds, self.found)
        reciprocity = self.set_checks.reciprocity
        reciprocity.add_plain_hashes(loc_hashes_where(hashes, found.without))
        self.set_checks.add_kinds(kinds, source=self.source)
        reciprocity.add_plain_hashes(loc_hashes_where(hashes, bytes(found.plain)))
        return found.flagged, found.listed, found.links, found.counted

    def _hosts_in_columns(self, run: Records, first: int) -> set[int]:
        """The host rules on a run, an authority at a time (the URLs on each counted at C
        speed, its first one named); the records outside the scope, for the scope rule.
        A run on one authority inside the scope is judged on the loc column's buffers."""
        hosts = self.hosts
        first_loc = run.loc(0)
        end = first_loc.find("/", 8)
        if end >= 0 and run.all_start_with(first_loc[: end + 1]):
            hosts.count(first_loc[:end], first_loc, run.count, first)  # one authority
            prefix = self.prefix
            return set() if prefix is None or run.all_start_with(prefix) else self._outside(run)
        cut = run.authorities()  # (authority, its first record, its records), in the core
        if cut is not None:
            for authority, at, urls in cut:
                hosts.count(authority, run.loc(at), urls, first + at)
            return self._outside(run)
        # each loc's scheme://authority, as ``Hosts.check`` cuts it (C-speed maps)
        locs = run.locs
        ends = list(map(str.find, locs, repeat("/"), repeat(8)))
        if -1 in ends:
            ends = [end if end >= 0 else len(loc) for end, loc in zip(ends, locs, strict=True)]
        authorities = list(map(str.__getitem__, locs, map(slice, repeat(None), ends)))
        for authority, urls in Counter(authorities).items():
            at = authorities.index(authority)
            hosts.count(authority, locs[at], urls, first + at)
        return self._outside(run)

    def _outside(self, run: Records) -> set[int]:
        """The records of a run outside the scope (none without one)."""
        prefix = self.prefix
        if prefix is None:
            return set()
        locs = run.locs
        return set(
            compress(
                range(len(locs)), map(operator.not_, map(str.startswith, locs, repeat(prefix)))
            )
        )

    def _hosts_each(self, run: Records) -> bool:
        """Whether the host and scope rules must judge each loc: not when every loc is on
        the first one's authority, known (judged here if new) without findings, and inside
        the scope (judged on the loc column's buffers: no string per loc)."""
        hosts = self.hosts
        first = run.loc(0)
        end = first.find("/", 8)
        authority = first if end < 0 else first[:end]
        verdicts = hosts.seen.get(authority)
        if verdicts is None:
            verdicts = hosts.seen[authority] = hosts._judge(first)
        prefix = self.prefix
        return not (
            not verdicts
            and run.all_start_with(authority + "/")
            and (prefix is None or run.all_start_with(prefix))
        )

    def _lastmods_of(self, run: Records) -> list[int]:
        """Newest lastmods, and the records a lastmod rule may flag (a date after the latest
        day, a time after now), judged by their instants in the core (the text read only for
        the newest and the flagged); every year and month among them (each a finding), by
        their distinct texts."""
        judged = run.judge_lastmods(self._latest_day, self._now)
        flagged = judged.flagged
        newest: list[tuple[int, date]] = []  # the run's newest date-kind lastmods, by kind
        if judged.reduced:
            newest.append(_newest_reduced(judged.groups))
            flagged += _reduced_listed(self.found, self._reduced_findings, judged)
        if judged.newest_date is not None:  # dates (at the start of their day in UTC)
            at = judged.newest_date
            newest.append((at, date.fromisoformat(run.lastmod(at))))
        for _, day in sorted(newest, key=operator.itemgetter(0)):  # in document order
            if self.newest_date is None or day > self.newest_date:
                self.newest_date = day
        if judged.newest_time is not None:  # times
            moment = cast(datetime, from_formatted(run.lastmod(judged.newest_time)))
            if self.newest_time is None or moment > self.newest_time:
                self.newest_time = moment
        return flagged

    def newest(self) -> Lastmod | None:
        known: list[Lastmod] = [v for v in (self.newest_date, self.newest_time) if v]
        return rules.newest(known)


def _reduced_listed(
    found: Findings, findings: Callable[[str], list[tuple[str, str]]], judged: Lastmods
) -> list[int]:
    """The years and months of a run (``judged.reduced``, each with its distinct text's
    index in ``judged.group_of``) whose findings (``findings`` of a text) may still be
    listed; the others' findings, every code past its cap, counted at once per text."""
    groups, reduced = judged.groups, judged.reduced
    full: set[int] = set()
    for group, (text, _, n) in enumerate(groups):
        said = findings(text)
        if not any(found.has_room(code) for code, _ in said):
            full.add(group)
            for code, _ in said:
                found.count(code, n)
    if not full:
        return reduced
    if len(full) == len(groups):
        return []
    groups_of = memoryview(judged.group_of).cast("I")
    return [i for i, group in zip(reduced, groups_of, strict=True) if group not in full]


def _newest_reduced(groups: list[tuple[str, int, int]]) -> tuple[int, date]:
    """The first of the newest years and months of a run (``groups``: each distinct text
    with its first record, first seen first), each text read once."""
    best: tuple[int, date] | None = None
    for text, first, _ in groups:  # in document order
        value = from_formatted(text)
        if best is None or value > best[1]:
            best = (first, value)
    assert best is not None
    return best


_MICROSECOND = datetime(1970, 1, 1, 0, 0, 0, 1, tzinfo=UTC) - _EPOCH

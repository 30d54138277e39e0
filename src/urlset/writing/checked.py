"""The entries a build takes, checked: valid, in scope, first seen, the shared rules applied
(``entry_rules``); every entry left out or changed goes to the report. Every build runs it
(``build``, ``stable``, ``update``, the Dask build's partitions)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from itertools import repeat
from pathlib import Path
from typing import Any

from ..errors import InputError, InvalidValue, written_without
from ..extensions import JSON_KEYS, from_json_fields
from ..model import Url, row_from_dict, url_keeping_loc, urls_from_rows
from ..urls import Scope, plain_directory
from .compiled import mapping_rows, refused_runs, render_batch, rows_between, without_entries
from .dedupe import SeenLocs
from .document import Rendered, render_rows
from .entry_rules import EntryRules
from .excludes import Excludes
from .options import BuildOptions, Entry
from .report import BuildReport
from .source_rows import (
    KeptWarning,
    SourceEntries,
    SourceRows,
    entry_batches,
    repaired_rows,
    resolved_row,
)
from .tables import TableBatch

BATCH = 8192  # entries written at once (~1 MiB of XML); 16k: no faster, 10 MB more
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def checked_batches(
    entries: Iterable[Entry],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    spill_dir: Path,
) -> Iterator[list[Url] | Rendered]:
    """Batches of valid, in-scope, first-seen URLs; rejected entries go to the report.

    A batch of rows (a list of rows, a table's, a source's ``SourceRows``) is rendered in the
    compiled core and never becomes ``Url`` values (the fast path); a row the core refuses
    goes entry by entry on its own, in its place (``compiled.refused_runs``), counted by
    reason in ``report.left_core``, as is a batch that cannot go the fast way at all."""
    seen = SeenLocs(spill_dir)
    rules = EntryRules.of(opts, report)
    now = (rules.now - _EPOCH) // _MICROSECOND  # as the core compares lastmods
    # rows are rendered at once under a plain directory; a zone to apply sends Python's rows
    # and tables the per-entry way, not a source's (read with its own zone: ``_repaired``)
    zone = "default-tz" if opts.default_tz is not None else None
    directory = None if plain_directory(scope.prefix) else "base-url"
    try:
        for given, kinds in entry_batches(entries, BATCH):
            if kinds == {dict} and (rows := mapping_rows(given)) is not None:
                given, kinds = rows, {tuple}  # mappings of the core keys: rows, in the core
            bypass = directory or (zone if kinds != {SourceRows} else None)
            rendered = render_batch(given, kinds, scope.prefix, opts.text, report.left_core, bypass)
            if rendered is None:
                yield from _one_by_one(given, kinds, opts, scope, report, seen, rules)
                continue
            # unreadable lines (and with them the warnings of rows written without a value)
            errors: deque[tuple[int, InputError | KeptWarning]]
            errors = deque(given.errors if kinds == {SourceRows} else ())
            named = kinds == {SourceRows} and given.sections is not None
            count = len(given)
            refused = rendered.refused()
            if refused and (kinds == {SourceRows} or kinds == {tuple}):
                rendered, refused = _repaired(given, rendered, refused, scope, opts, errors, now)
            left = dict.fromkeys(() if rendered.all_current(now) else rendered.future(now), "")
            for index in left:  # each such entry the rules leave without its lastmod
                left[index] = "future-lastmod"
            if rules.news_since is not None:  # articles the window leaves out: theirs
                since = (rules.news_since - _EPOCH) // _MICROSECOND
                for index, _, _ in rendered.news_before(since):
                    left.setdefault(index, "news-window")
            if left:
                rendered, refused = without_entries(rendered, count, left)
            for start, end, run in refused_runs(rendered, count, refused):
                while errors and errors[0][0] <= (start if run is None else end):
                    _in_place(errors.popleft()[1], opts, report)  # in their place
                if run is None:
                    part = rows_between(given, start, end)  # with the errors among its rows
                    while errors and errors[0][0] < end:
                        errors.popleft()
                    yield from _one_by_one(part, kinds, opts, scope, report, seen, rules)
                    continue
                if named:  # a section column: each entry's, by its loc
                    given.note_sections(run.locs, start, end)
                if opts.exclude is not None:
                    run = _without_excluded(run, opts.exclude, report)
                if opts.dedupe:
                    fresh = seen.first_seen_packed(run.hashes())
                    if 0 in fresh:
                        report.duplicates += fresh.count(0)
                        run = run.select(fresh)
                _entry_findings(run, rules)
                if run:
                    if opts.on_written is not None:
                        opts.on_written(run)
                    yield run
            for _, error in errors:
                _in_place(error, opts, report)
            for _, why in refused:
                report.left_core[why] += 1
        if opts.on_seen is not None and opts.dedupe:
            opts.on_seen(seen.known)
    finally:
        seen.close()


def _repaired(
    given: SourceRows | list[tuple[Any, ...]],
    rendered: Rendered,
    refused: list[tuple[int, str]],
    scope: Scope,
    opts: BuildOptions,
    errors: deque[tuple[int, InputError | KeptWarning]],
    now: int,
) -> tuple[Rendered, list[tuple[int, str]]]:
    """A source's batch (or Python rows) with the rows the core refused for a value at fault
    alone (a spreadsheet's lastmod, a decimal comma) rendered by the core after all, without
    those values (a lastmod without a zone given the source's, as its lines are read), in
    their places; each such row's warnings put among ``errors`` in its
    place, in the per-entry way's words (``SourceRows.repaired``, ``repaired_rows``), so
    that a file of such rows stays in the core and costs a warning a row. A row whose repair the core still refuses goes
    the per-entry way as before (and one whose lastmod is later than ``now``, the core's
    microseconds), and so does every row under ``strict`` (which stops at the first)."""
    value = [at for at, why in refused if why == "value"]
    if not value or opts.strict:
        return rendered, refused
    if isinstance(given, SourceRows):
        at, rows, warnings = given.repaired(value, given.default_tz)  # its lines' zone
    else:
        at, rows, warnings = repaired_rows([given[index] for index in value], value)
    again = render_rows(rows, scope.prefix, text=opts.text) if rows else None
    if again is None:
        return rendered, refused
    # the core's entries only for the repaired rows it takes, and whose lastmod is not later
    # than the build's now (the rules leave such a lastmod out: the per-entry way says all)
    out = {index for index, _ in again.refused()}
    taken = [n for n in range(len(at)) if n not in out]
    later = set(again.future(now))
    if later:
        again = again.select(bytes(entry not in later for entry in range(len(again))))
        taken = [n for entry, n in enumerate(taken) if entry not in later]
    if len(taken) < len(at):
        at, warnings = [at[n] for n in taken], [warnings[n] for n in taken]
    spliced = rendered.spliced(again, at)
    warned = [(index, w) for index, ws in zip(at, warnings, strict=True) for w in ws]
    places = sorted([*errors, *warned], key=lambda item: item[0])
    errors.clear()
    errors.extend(places)  # an unreadable line before a row, then the row's warning
    return spliced, spliced.refused()


def _in_place(item: InputError | KeptWarning, opts: BuildOptions, report: BuildReport) -> None:
    """An unreadable line, or the warning of a row written without a value, reported."""
    if type(item) is tuple:
        report.warn(*item)
    else:
        _from_input_error(item, opts, report)  # type: ignore[arg-type]


def _entry_findings(run: Rendered, rules: EntryRules) -> None:
    """What the shared rules report on entries the core wrote as given, entry by entry in
    the order the per-entry way reports them: a lastmod without a day, then what the
    extension rules found (image fields Google no longer reads, news older than two days at
    the build's now, a news element repeated, an hreflang self-link), in their rules' order."""
    short_texts = run.without_day_texts()  # a few distinct texts, however many entries
    counts = dict(run.finding_counts())  # a few codes: each finding's text only when read
    before = rules.news_too_old_before
    old_count = run.news_count_before(before) if run.has_news() else 0
    if not short_texts and not counts and not old_count:
        return
    if _only_counted(short_texts, counts, old_count, rules):  # the examples full: no message made
        return
    old = run.news_before(before) if old_count else []
    found = run.findings()
    short = run.without_day() if short_texts else []  # each entry's, for its message
    locs = run.locs
    if not short and not old:  # the usual case with extensions: one call
        rules.core_findings([(locs[index], code, text) for index, code, text in found])
        return
    # stable: an entry's lastmod first, then its findings in the rules' order
    too_old = _RULE_ORDER["news-too-old"]
    merged = sorted(
        [(index, -1, "", text, 0) for index, text in short]
        + [(index, _RULE_ORDER[code], code, text, 0) for index, code, text in found]
        + [(index, too_old, "", title, published) for index, title, published in old],
        key=lambda item: item[:2],
    )
    for index, rank, code, text, published in merged:
        if rank < 0:
            rules.without_day(locs[index], text)
        elif rank == too_old:
            rules.news_too_old(locs[index], text, published)
        else:
            rules.core_findings([(locs[index], code, text)])


def _only_counted(
    short_texts: list[tuple[str, int]],
    counts: dict[str, int],
    old: int,
    rules: EntryRules,
) -> bool:
    """Whether a run's findings of one kind (the usual case: one a row) were counted without
    their messages (``EntryRules.counts_only``); mixed kinds go entry by entry."""
    if bool(short_texts) + bool(counts) + bool(old) != 1:
        return False
    if counts:
        return rules.counts_only(counts)
    if old:
        return rules.counts_only({"news-too-old": old})
    # each distinct lastmod text judged once (the core counts them): a run of a year-month
    # site has a few dozen
    why = rules.why_without_day
    without_day = sum(n for text, n in short_texts if why(text))
    return rules.counts_only({"lastmod-without-day": without_day})


# the per-URL rules the core finds something for, in the order ``check_url`` runs them
_RULE_ORDER = {
    code: rank
    for rank, code in enumerate(
        ("image-deprecated-field", "news-too-old", "news-repeated", "hreflang-missing-self")
    )
}


def _one_by_one(
    given: Any,
    kinds: set[type],
    opts: BuildOptions,
    scope: Scope,
    report: BuildReport,
    seen: SeenLocs,
    rules: EntryRules,
) -> Iterator[list[Url]]:
    """A batch entry by entry: each checked, converted, its problems reported."""
    lines: tuple[str, dict[str, int]] | None = None  # a source's line of each loc
    if kinds == {SourceEntries}:
        given = given.entries
        kinds = set(map(type, given))
    if kinds == {SourceRows}:
        lines = (given.source, given.lines_by_loc(scope.prefix))
        given = given.entries(scope.prefix)
        kinds = set(map(type, given))
    if kinds == {TableBatch}:
        given = given.rows()
        kinds = set(map(type, given))
    if kinds == {Url}:
        good: list[Url] = given
    elif kinds == {tuple}:
        good = _from_rows(given, opts, report, scope.prefix)
    else:
        good = [
            url
            for url in map(
                _convert, given, given, repeat(opts), repeat(report), repeat(scope.prefix)
            )
            if url is not None
        ]
    if opts.exclude is not None:
        kept = [url for url in good if not opts.exclude.excludes(url[0])]
        report.excluded += len(good) - len(kept)
        good = kept
    prefix = scope.prefix
    locs = [url[0] for url in good]
    if not all(map(str.startswith, locs, repeat(prefix))):
        good = [url for url in good if _in_scope(url, scope, opts, report, lines)]
        locs = [url[0] for url in good]
    new = seen.first_seen(locs) if opts.dedupe else [True]
    if not all(new):
        report.duplicates += new.count(False)
        good = [url for url, fresh in zip(good, new, strict=True) if fresh]
    if good:
        good = rules.apply(good)
        if opts.on_written is not None:
            opts.on_written(good)
        yield good


def _without_excluded(run: Rendered, exclude: Excludes, report: BuildReport) -> Rendered:
    """A run the core rendered without the entries an ``exclude`` pattern matches (they stay
    in the core: only their locs are read), counted."""
    keep = exclude.kept(run.locs)
    if keep is None:
        return run
    report.excluded += keep.count(0)
    return run.select(keep)


def _in_scope(
    url: Url,
    scope: Scope,
    opts: BuildOptions,
    report: BuildReport,
    lines: tuple[str, dict[str, int]] | None = None,
) -> bool:
    """Whether ``url`` lies in the scope; one outside is reported (with its source and
    line, from ``lines`` when known) or raises."""
    reason = scope.violation(url.loc)
    if reason is None:
        return True
    prefix = scope.prefix
    where = (
        f"sitemap served from {prefix}"
        if opts.sitemap_url is None
        else f"sitemap set for URLs under {prefix}"
    )
    source, line = (None, None) if lines is None else (lines[0], lines[1].get(url.loc))
    if not opts.skip_out_of_scope or opts.strict:
        at = "" if line is None else f" ({source}:{line})"
        raise InvalidValue("loc", url.loc, f"{reason}; {where}{at}")
    message = f"{url.loc}: not allowed in a {where}: {reason}"
    if line is not None:
        message = f"{source}:{line}: {message}"
    report.reject("out-of-scope", message, source, line)
    return False


def _from_rows(
    rows: list[tuple[Any, ...]], opts: BuildOptions, report: BuildReport, base: str
) -> list[Url]:
    converted = urls_from_rows(rows, default_tz=opts.default_tz)
    if InvalidValue not in set(map(type, converted)):
        return converted  # type: ignore[return-value]
    return [
        url
        for url in map(_convert, converted, rows, repeat(opts), repeat(report), repeat(base))
        if url is not None
    ]


def _convert(
    entry: object, row: object, opts: BuildOptions, report: BuildReport, base: str
) -> Url | None:
    """The Url an entry gives (``row``: what it was made from, when it is already a Url or an
    error), or None when it is left out; every problem goes to the report. A relative loc
    is resolved against ``base``, the build's base directory, as the compiled core does."""
    if isinstance(entry, Url):
        return entry
    if isinstance(entry, InputError):
        return _from_input_error(entry, opts, report)
    if isinstance(entry, InvalidValue):
        entry = row
    notes: list[str] = []  # extension values left out alone, as the reader does
    try:
        if isinstance(entry, Mapping):
            fields = {k: v for k, v in entry.items() if k not in JSON_KEYS}
            if len(fields) < len(entry):  # images, videos, news, alternates, raw extensions
                fields["extensions"] = from_json_fields(entry, None if opts.strict else notes)
            entry = row_from_dict(fields)
        if not isinstance(entry, tuple):
            raise InvalidValue(
                "entry",
                entry,
                "must be a Url, a (loc, lastmod, changefreq, priority) row or a mapping",
            )
        url, dropped = url_keeping_loc(resolved_row(entry, base), default_tz=opts.default_tz)
    except InvalidValue as exc:
        if opts.strict:
            raise
        report.reject(f"invalid-{exc.field}", str(exc))
        return None
    except TypeError:
        error = InvalidValue("entry", entry, "a row is (loc, lastmod, changefreq, priority)")
        if opts.strict:
            raise error from None
        report.reject("invalid-entry", str(error))
        return None
    if dropped and opts.strict:
        raise dropped[0]
    for note in notes:
        report.warn(getattr(note, "code", "invalid-extensions"), f"{url[0]}: {note}")
    for bad in dropped:
        report.warn(f"invalid-{bad.field}", written_without(bad, bad.field))
    return url


def _from_input_error(error: InputError, opts: BuildOptions, report: BuildReport) -> Url | None:
    if opts.strict:
        raise error
    code = "unreadable-line" if error.field == "line" else f"invalid-{error.field}"
    if error.kept is None:
        report.reject(code, str(error), error.source, error.line)
        return None
    if error.notes:  # each value left out under its own code, as check reports it
        for note_code, message in error.notes:
            report.warn(
                note_code, f"{error.source}:{error.line}: {message}", error.source, error.line
            )
    else:
        report.warn(code, str(error), error.source, error.line)
    kept: Url = error.kept
    return kept

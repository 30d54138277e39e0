"""What ``urlset build`` does once it runs, without click: the sources read, the set written
(plain, ``--stable``, ``--update`` or on Dask), the reports printed, robots.txt updated.

The command and its options are ``cli/build.py``; the console script's lean parse
(cli/lean.py) runs this module without loading click. A value the build refuses is a
``UsageProblem``, raised before a sitemap is written (only --stylesheet's sitemap.xsl may be
published by then): build.py makes it click's usage error, and the lean path hands the
command line to click, which says it.
"""

from __future__ import annotations

import contextlib
import gc
import sys
import zlib
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, timedelta, timezone, tzinfo
from itertools import chain
from typing import Any, NoReturn

from ..codes import plural, rule
from ..errors import InputError, InvalidValue, LimitExceeded, PublishError
from ..extensions.reciprocity import Reciprocity
from ..limits import Limits, profile
from ..model import SitemapRef, Url
from ..writing.build import BuildReport, write_sitemaps
from ..writing.excludes import Excludes, excludes_of
from ..writing.options import BuildOptions
from ..writing.sections import Sections, parse_pattern, parse_rule
from ..writing.sources import Row, detect_format, iter_batches, open_source, unreadable
from .shared import BuildMode, json_lines_log
from .site_sources import (
    DIRECTORY,
    SiteSources,
    access_logs,
    source_format,
)
from .streams import UsageProblem, echo, say


def _timezone(value: str | None) -> tzinfo | None:
    if value is None:
        return None
    if value.upper() in ("UTC", "Z"):
        return UTC
    if value[:1] in "+-" and len(value) == 6 and value[3] == ":":
        sign = -1 if value[0] == "-" else 1
        return timezone(sign * timedelta(hours=int(value[1:3]), minutes=int(value[4:6])))
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise UsageProblem(
            f"{value!r} is not a time zone; use UTC, +hh:mm or a name like Europe/Paris", ""
        ) from None


def build_sitemaps(
    sources: tuple[str, ...],
    base_url: str,
    sitemap_url: str | None,
    out_dir: str,
    input_format: str | None,
    output_format: str,
    gzip: bool,
    profile_name: str,
    max_urls: int | None,
    max_bytes: int | None,
    prefix: str,
    xsl: str | None,
    stylesheet: bool,
    schema_location: bool,
    skip_out_of_scope: bool,
    no_dedupe: bool,
    strict: bool,
    tz_name: str | None,
    news_window: timedelta | None,
    exclude: tuple[str, ...],
    report_path: str | None,
    robots_path: str | None,
    stable: bool,
    update: bool,
    remove_paths: tuple[str, ...],
    changes_path: str | None,
    quiet: bool,
    verbose: bool = False,
    dask_scheduler: str | None = None,
    **site_options: Any,
) -> None:
    """Run ``urlset build`` with the command's parameters (see its help)."""
    default_tz = _timezone(tz_name)
    sections = _sections(site_options.pop("section_by"), site_options.pop("section_patterns"))
    excludes = _excludes(exclude)
    limits = _limits(profile_name, max_urls, max_bytes)
    mode = BuildMode(update, stable, remove_paths, report_path, changes_path, dask_scheduler)
    sources, formats, site = _inputs(sources, input_format, base_url, site_options, mode)
    _check_stable_usage(sources, site, mode)
    progress = _Progress(enabled=not quiet and sys.stderr.isatty())
    # hreflang across the set as check judges it: every page written, as hashes (see _set_rules)
    reciprocity = Reciprocity()
    entries: Iterator[Url | InputError | Row] = chain.from_iterable(
        _batches(sources, formats, default_tz, site, None if sections is None else sections.given)
    )
    options: dict[str, Any] = {
        "limits": limits,
        "gzip": gzip,
        "text": output_format == "text",
        "prefix": prefix,
        "xsl": _stylesheet(stylesheet, xsl, output_format, out_dir),
        "schema_location": schema_location,
        "skip_out_of_scope": skip_out_of_scope,
        "strict": strict,
        "dedupe": not no_dedupe,
        "default_tz": default_tz,
        "sitemap_url": sitemap_url,
        "news_window": news_window,
        "section": sections,
        "exclude": excludes,
        **_set_rules(reciprocity, mode),
    }
    naming = _options_for_names(base_url, sitemap_url, prefix, gzip, output_format)
    options["include"] = _included(site_options, naming, out_dir, update)
    try:
        if mode.dask:  # the sources are read by the cluster's workers
            from .build_dask import run_on_dask

            report = run_on_dask(mode.dask, sources, input_format, out_dir, base_url, options, mode)
        else:
            report = _run(entries, out_dir, base_url, options, progress, mode, reciprocity)
    except _BUILD_FAILURES as exc:
        _fail_build(exc, strict=strict)
    cross_submit = sitemap_url is not None
    _print_report(report, out_dir, site, reciprocity, quiet, verbose, cross_submit, update)
    if robots_path is not None:
        _update_robots(robots_path, report, quiet)


def _print_report(
    report: BuildReport,
    out_dir: str,
    site: SiteSources,
    reciprocity: Reciprocity,
    quiet: bool,
    verbose: bool,
    cross_submit: bool,
    update: bool,
) -> None:
    """What a build wrote and found: the summary, or with ``quiet`` the errors only."""
    if not quiet:
        _summary(report, out_dir, cross_submit=cross_submit, update=update)
        site.print_reports()
        _all_reciprocal(report, reciprocity)
    else:  # -q: the errors only (entries skipped), none of the warnings or notes
        _problems("skipped {}", report.rejected, report.examples)
    if verbose:
        say(f"urlset build: {_lanes(report)}")


def _included(
    params: dict[str, Any], options: BuildOptions, out_dir: str, update: bool
) -> tuple[SitemapRef, ...]:
    """``included_sitemaps``: the sitemaps --include-sitemap(s) name (taken out of
    ``params``), their module loaded only when one of its options is given."""
    keys = ("include_sitemaps", "include_list", "include_fetch")
    if not any(params[key] for key in keys):
        for key in keys:
            del params[key]
        return ()
    from .build_includes import included_sitemaps

    return included_sitemaps(params, options, out_dir, update)


def _limits(profile_name: str, max_urls: int | None, max_bytes: int | None) -> Limits:
    """The --profile's limits, lowered by --max-urls and --max-bytes (a bad one: usage)."""
    try:
        return profile(profile_name).lowered(max_urls=max_urls, max_bytes=max_bytes)
    except InvalidValue as exc:
        raise UsageProblem(str(exc)) from None


def _lanes(report: BuildReport) -> str:
    """--verbose: how many input rows left the compiled core for the per-entry way, by why
    (``BuildReport.left_core``)."""
    left = report.left_core
    if not +left:
        return "every row through the compiled core"
    reasons = ", ".join(f"{reason} {n:,}" for reason, n in sorted(left.items()) if n)
    return f"{plural(sum(left.values()), 'row')} the per-entry way: {reasons}"


def _all_reciprocal(report: BuildReport, reciprocity: Reciprocity) -> None:
    """Say that the set's hreflang alternates are all reciprocal, when check finds nothing."""
    hreflang = [c for c in (*report.flagged, *report.noted) if c.startswith("hreflang")]
    if reciprocity.pages and not hreflang:
        pages = plural(reciprocity.pages, "page")
        echo(f"hreflang: {pages} with alternates, all reciprocal")


def _stylesheet(stylesheet: bool, xsl: str | None, output_format: str, out_dir: str) -> str | None:
    """The href documents reference: --xsl, or with --stylesheet urlset's, published beside
    them first (before any document that references it)."""
    if not stylesheet:
        return xsl
    if xsl is not None:
        raise UsageProblem("--stylesheet references sitemap.xsl beside the set; leave out --xsl")
    if output_format == "text":
        raise UsageProblem("--stylesheet: text sitemaps cannot reference a stylesheet")
    from ..writing.stylesheet import STYLESHEET_NAME, publish_stylesheet  # with it only

    try:
        publish_stylesheet(out_dir)
    except OSError as exc:
        _fail(2, f"cannot write {out_dir}/{STYLESHEET_NAME}: {exc.strerror or exc}")
    return STYLESHEET_NAME


def _update_robots(path: str, report: BuildReport, quiet: bool) -> None:
    """The last step of a publish: the set's entry points in robots.txt."""
    from ..announce import update_robots_file

    try:
        edit = update_robots_file(path, report.entry_points, replace=report.owns)
    except (PublishError, InvalidValue) as exc:
        _fail(2, f"{exc} (the sitemaps were published; robots.txt was left as it was)")
    if not quiet:
        what = (
            f"added {len(edit.added)}, removed {len(edit.removed)}" if edit.changed else "unchanged"
        )
        echo(f"{path}: Sitemap lines {what}")


def _set_rules(reciprocity: Reciprocity, mode: BuildMode) -> dict[str, Any]:
    """The build's hooks for hreflang across the set (none on Dask: its workers write): the
    pages written, kept as hashes spilled to disk and judged once the build has let go
    (asking the de-duplication set which variants it holds would add each one outside the
    set to it: 23 MB of its trace for ten million)."""
    if mode.dask:
        return {}
    return {"on_written": reciprocity.add_written}


def _run(
    entries: Iterator[Url | InputError | Row],
    out_dir: str,
    base_url: str,
    options: dict[str, Any],
    progress: _Progress,
    mode: BuildMode,
    reciprocity: Reciprocity,
) -> BuildReport:
    """The build, or with ``mode.update`` the update, with its progress line and logs; then
    the hreflang findings across what was read, flagged as check reports them."""
    with (
        progress,
        _fewer_collections(),
        json_lines_log("--report", mode.report_path) as on_problem,
        json_lines_log("--changes", mode.changes_path) as on_change,
    ):
        options.update(progress=progress.update, on_problem=on_problem)
        if mode.update:
            from ..writing.update import update_sitemaps  # with the stable build's modules

            remove = _removals(mode.remove_paths)
            report = update_sitemaps(
                entries, out_dir, base_url, remove=remove, on_change=on_change, **options
            )
        else:
            if mode.stable:
                options.update(stable=True, on_change=on_change)
            report = write_sitemaps(entries, out_dir, base_url, **options)
        if reciprocity.pages:  # pages with alternates: judged across the set as check does
            _flag_hreflang(report, reciprocity)
        return report


def _flag_hreflang(report: BuildReport, reciprocity: Reciprocity) -> None:
    """The set's hreflang findings flagged as check lists them: the first 1,000 of each
    code, the rest counted (every one made and logged when ``--report`` takes them)."""
    from ..extensions.set_checks import HreflangFound

    found = HreflangFound(reciprocity, None if report.listener is not None else _SHOWN_LINKS)
    codes = [*found.codes, *found.more]
    severities = {code: rule(code).severity for code in dict.fromkeys(codes)}
    report.flag_each(found.codes, severities, found.message)
    for code, more in found.more.items():  # past the cap: counted, as check counts them
        (report.noted if severities[code] == "info" else report.flagged)[code] += more
    reciprocity.close()


def _inputs(
    sources: tuple[str, ...],
    input_format: str | None,
    base_url: str,
    site_options: dict[str, Any],
    mode: BuildMode,
) -> tuple[tuple[str, ...], list[str], SiteSources]:
    """The SOURCE arguments that are URL lists or folders, each one's format (a folder's is
    ``directory``), and the site sources the options name (access logs expanded)."""
    logs, sources = access_logs(site_options["access_logs"], sources)
    site_options = {**site_options, "access_logs": logs}
    try:
        formats = [
            source_format(name) or input_format or detect_format(name)
            for name in sources
            if not mode.dask  # --dask: the cluster's workers read the sources
        ]
    except InvalidValue as exc:
        raise UsageProblem(str(exc)) from None
    if sources.count("-") > 1:
        raise UsageProblem("standard input ('-') can be read only once")
    return sources, formats, SiteSources(base_url, site_options)


_SHOWN_LINKS = 1_000  # hreflang findings named one by one a code, as check names them


def _options_for_names(
    base_url: str, sitemap_url: str | None, prefix: str, gzip: bool, output_format: str
) -> BuildOptions:
    """The options that name a set's files and where they are served (a bad one: usage)."""
    try:
        options = BuildOptions(
            base_url,
            sitemap_url=sitemap_url,
            prefix=prefix,
            gzip=gzip,
            text=output_format == "text",
        )
        options.sitemap_directory()
    except InvalidValue as exc:
        raise UsageProblem(str(exc)) from None
    return options


def _sections(rule: str | None, patterns: tuple[str, ...]) -> Sections | None:
    """The sections --section-by or --section name; a bad rule is a usage error."""
    if rule is not None and patterns:
        raise UsageProblem("give --section-by or --section NAME=GLOB, not both")
    try:
        if rule is not None:
            return parse_rule(rule)
        if patterns:
            return Sections.by_patterns(map(parse_pattern, patterns))
    except InvalidValue as exc:
        raise UsageProblem(str(exc)) from None
    return None


def _excludes(patterns: tuple[str, ...]) -> Excludes | None:
    """The --exclude patterns; a bad one is a usage error."""
    try:
        return excludes_of(patterns)
    except InvalidValue as exc:
        raise UsageProblem(str(exc), "--exclude") from None


def _check_stable_usage(sources: tuple[str, ...], site: SiteSources, mode: BuildMode) -> None:
    remove, changes = mode.remove_paths, mode.changes_path
    if mode.dask and site.given:  # the cluster reads files of rows only: never drop these
        raise UsageProblem(
            "--dask reads URL lists (Parquet, CSV, TSV, JSON Lines); --access-log and --crawl "
            "build without it"
        )
    if remove and not mode.update:
        raise UsageProblem("--remove takes URLs out of a set with --update only")
    if changes and not (mode.stable or mode.update):
        raise UsageProblem("--changes needs --stable or --update")
    if not sources and not site.given and not remove:
        raise UsageProblem(
            "give at least one SOURCE, --access-log or --crawl (or, with --update, a --remove file)"
        )


def _batches(
    sources: tuple[str, ...],
    formats: list[str],
    default_tz: tzinfo | None,
    site: SiteSources,
    sections: dict[str, str] | None,
) -> Iterator[Sequence[Url | InputError | Row]]:
    for name, fmt in zip(sources, formats, strict=True):
        label = "<stdin>" if name == "-" else name
        try:
            if fmt == DIRECTORY:
                yield from _site_batches(site.folder(name))
                continue
            with open_source(name) as stream:
                # clean rows pass as tuples: the build renders them without Url values
                yield from iter_batches(
                    stream, fmt, label, default_tz=default_tz, rows=True, sections=sections
                )
        except (OSError, EOFError, zlib.error) as exc:
            raise _SourceUnreadable(unreadable(label, exc)) from exc
    if site.given:
        yield from _site_batches(site.others())


def _site_batches(batches: Iterator[Sequence[Any]]) -> Iterator[Sequence[Any]]:
    """The batches of a folder, access logs or a crawl, a SourceError in them unreadable."""
    # imported with such a source only: a build of URL lists never raises it (~3.5M
    # instructions of a small build's start, its dataclass made)
    from ..sources.report import SourceError

    try:
        yield from batches
    except SourceError as exc:
        raise _SourceUnreadable(str(exc)) from exc


def _fail_build(exc: Exception, *, strict: bool = False) -> NoReturn:
    """Exit with the status and message a failed build gets: nothing was published."""
    if isinstance(exc, _SourceUnreadable | PublishError | OSError):
        _fail(2, f"{exc}; nothing was published")
    if isinstance(exc, InputError):
        _fail(1, f"{exc.refused()} (--strict: nothing was published)")
    if isinstance(exc, InvalidValue):
        if exc.field in ("base URL", "sitemap URL", "prefix", "exclude"):
            _fail(2, str(exc))
        if strict and exc.field in _ENTRY_FIELDS:
            # an entry's value (a Dask partition's rows fail so; scope too, which
            # --skip-out-of-scope does not skip under --strict)
            _fail(1, f"{exc} (--strict: nothing was published)")
        _fail(
            1,
            f"{exc}; nothing was published (use --skip-out-of-scope to leave such URLs out)"
            if exc.field == "loc"
            else f"{exc}; nothing was published",
        )
    reason, _, examples = str(exc).partition("\n")  # the first rejected entries go last
    _fail(1, f"{reason}; nothing was published" + "\n" * bool(examples) + examples)


def _removals(paths: tuple[str, ...]) -> Iterator[str]:
    """The locs listed in --remove files, one a line; blank lines and '#' comments skipped."""
    for path in paths:
        try:
            with open_source(path) as stream:
                for line in stream:
                    text = line.strip()
                    if text and not text.startswith("#"):
                        yield text
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else exc
            raise _SourceUnreadable(f"--remove {path}: cannot read ({reason or exc})") from exc


def _update_summary(report: BuildReport, out_dir: str) -> None:
    counts = ", ".join(
        f"{report.changes[kind]:,} {kind}" for kind in ("added", "changed", "removed")
    )
    echo(
        f"updated {out_dir}: {counts}; wrote {len(report.rewritten)} of the set's "
        f"{plural(len(report.files), 'sitemap')}, the others left in place; "
        f"{plural(report.urls, 'URL')}"
    )


@contextlib.contextmanager
def _fewer_collections() -> Iterator[None]:
    """A build allocates millions of short-lived containers (CSV rows, tuples); collecting
    the young ones every 700 allocations costs about a fifth of a build from CSV. This
    process is ours: every 100,000 keeps the time and still bounds what cycles could hold."""
    threshold = gc.get_threshold()
    gc.set_threshold(100_000, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)


_ENTRY_FIELDS = frozenset({"loc", "lastmod", "changefreq", "priority", "entry"})


class _SourceUnreadable(Exception):
    pass


# what ends a build with a message and exit status 2 (``_fail_build``)
_BUILD_FAILURES = (
    _SourceUnreadable,
    PublishError,
    OSError,
    InputError,
    InvalidValue,
    LimitExceeded,
)


def _fail(status: int, message: str) -> NoReturn:
    say(f"urlset build: error: {message}")
    sys.exit(status)


def _summary(
    report: BuildReport, out_dir: str, *, cross_submit: bool = False, update: bool = False
) -> None:
    files = report.files + report.indexes
    raw = sum(f.bytes for f in files)
    written = sum(f.written for f in files)
    if update:
        _update_summary(report, out_dir)
    else:
        indexes = plural(len(report.indexes), "index", "indexes")
        echo(
            f"wrote {plural(len(report.files), 'sitemap')}"
            f"{f' and {indexes}' if report.indexes else ''}"
            f" to {out_dir}: {plural(report.urls, 'URL')}, {plural(raw, 'byte')} uncompressed,"
            f" {written:,} on disk"
        )
    if report.included:
        echo(f"listed {plural(len(report.included), 'other sitemap')} in the index")
    if report.duplicates:
        echo(f"dropped {plural(report.duplicates, 'duplicate URL')}")
    if report.excluded:
        echo(f"{plural(report.excluded, 'URL')} excluded (--exclude)")
    if report.news_outside_window:
        echo(
            f"{plural(report.news_outside_window, 'news article')} outside the news window: "
            "written without <news:news>, as in a regular sitemap"
        )
    _problems("skipped {}", report.rejected, report.examples)
    _problems("wrote {} without a bad value", report.kept_without, report.warnings)
    _problems("wrote {} that check warns about", report.flagged, report.flag_examples)
    _problems("wrote {} that check notes (info)", report.noted, report.note_examples)
    for code, note in report.notes.items():
        say(f"{'note' if code == 'unchanged' else 'warning'}: {note} ({code})")
    if report.removed:
        echo(
            f"removed {plural(len(report.removed), 'file')} of the previous build: "
            f"{', '.join(report.removed)}"
        )
    if cross_submit:  # the URLs' host vouches for sitemaps served elsewhere (sitemaps.org)
        echo(f"add to {report.robots_txt} (it lets the sitemaps served elsewhere list its URLs):")
    else:
        echo("add to robots.txt:")
    for url in report.entry_points:
        echo(f"Sitemap: {url}")


def _problems(heading: str, counts: Counter[str], examples: list[str]) -> None:
    """One kind of problem on stderr: the total by code, then the first examples."""
    if not counts:
        return
    total = sum(counts.values())
    by_code = ", ".join(f"{code}: {n:,}" for code, n in counts.most_common())
    say(f"{heading.format(plural(total, 'entry', 'entries'))} ({by_code})")
    for example in examples:
        say(f"  {example}")
    if total > len(examples):
        say(f"  ... and {total - len(examples):,} more (--report FILE lists all)")


class _Progress:
    """A rich progress line on a terminal; nothing otherwise (rich is imported only then)."""

    def __init__(self, *, enabled: bool) -> None:
        self._enabled = enabled
        self._bar: Any = None
        self._task: Any = None

    def __enter__(self) -> _Progress:
        if self._enabled:
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._bar = Progress(
                SpinnerColumn(),
                TextColumn("{task.completed:,} URLs written"),
                TimeElapsedColumn(),
                transient=True,
            )
            self._bar.__enter__()
            self._task = self._bar.add_task("build", total=None)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.__exit__(None, None, None)

    def update(self, urls: int) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=urls)

"""``urlset build``'s site sources: a folder given as SOURCE, access logs, a crawl.

The options live here so that build.py stays about URL lists; ``SiteSources`` turns them
into batches of entries for the one build pipeline and prints what each source left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ..patterns import lazy
from .shared import allow_private_option

if TYPE_CHECKING:
    from ..sources.report import SourceReport

F = TypeVar("F", bound=Callable[..., Any])

DIRECTORY = "directory"  # the input format of a SOURCE that is a folder
# `sources.directory.LASTMOD_CHOICES`, written out so that the options load without the
# folder walk (tests/test_startup.py holds them equal)
LASTMOD_CHOICES = ("auto", "git", "mtime", "none")


def directory_options(command: F) -> F:
    """The options of a folder given as SOURCE."""
    import click  # here: a build run by the lean parse (cli/lean.py) loads no click

    options = [
        click.option(
            "--strip-html",
            is_flag=True,
            help="Folder SOURCE: list about.html as .../about (the host serves pages "
            "without the suffix). index.html is always its folder's URL.",
        ),
        click.option(
            "--ignore",
            "ignore_patterns",
            multiple=True,
            metavar="PATTERN",
            help="Folder SOURCE: leave out files matching PATTERN (.gitignore syntax, relative "
            "to the folder; repeatable). Hidden files and 404.html are left out already.",
        ),
        click.option(
            "--lastmod",
            "lastmod_from",
            type=click.Choice(LASTMOD_CHOICES),
            default="auto",
            show_default=True,
            help="Folder SOURCE: lastmod from the last git commit touching the file, the "
            "file's modification time, or none; auto: git inside a git work tree, else mtime.",
        ),
        click.option(
            "--images",
            is_flag=True,
            help="Folder SOURCE and --crawl: list each page's images (<img src>, og:image).",
        ),
    ]
    return _decorated(command, options)


def log_options(command: F) -> F:
    """The options of access logs and a crawl as sources."""
    import click  # here: a build run by the lean parse (cli/lean.py) loads no click

    options = [
        click.option(
            "--access-log",
            "access_logs",
            multiple=True,
            type=click.Path(dir_okay=False),
            metavar="FILE",
            help="List the HTML pages requested in this access log (Common or Combined Log "
            "Format, plain or gzipped): successful GETs, without bots, assets and private "
            "paths. Repeatable; a quoted glob pattern ('/var/log/nginx/access.log*') takes "
            "every file it matches, and the rotated files an unquoted pattern expands to "
            "(access.log.1, access.log.2.gz) are read as logs too.",
        ),
        click.option(
            "--crawl",
            "crawl_site",
            metavar="SITE",
            help="List the pages found by crawling SITE (a URL): same-site links from it and "
            "from its sitemaps, obeying robots.txt; see `urlset crawl --help` for the limits.",
        ),
        click.option(
            "--keep-query",
            is_flag=True,
            help="--access-log: keep each request's query string (dropped by default).",
        ),
    ]
    return _decorated(command, options)


def crawl_limits(command: F) -> F:
    """The options of a crawl (``urlset crawl`` and ``build --crawl``)."""
    import click  # here: a build run by the lean parse (cli/lean.py) loads no click

    options = [
        click.option(
            "--concurrency",
            type=click.IntRange(1, 256),
            default=8,
            show_default=True,
            help="Crawl: requests in flight at once.",
        ),
        click.option(
            "--rate",
            type=click.FloatRange(min=0, min_open=True),
            help="Crawl: requests a second at most (robots.txt's Crawl-delay holds too).",
        ),
        click.option(
            "--max-depth", type=click.IntRange(min=0), help="Crawl: links followed from the start."
        ),
        click.option(
            "--max-pages",
            type=click.IntRange(min=1),
            default=10_000,
            show_default=True,
            help="Crawl: pages requested at most.",
        ),
        click.option(
            "--time-limit",
            type=click.FloatRange(min=0, min_open=True),
            metavar="SECONDS",
            help="Crawl: stop after this long (downloads under way are cut off).",
        ),
        click.option(
            "--no-sitemaps",
            is_flag=True,
            help="Crawl: start from the start URL only, not also from the site's sitemaps.",
        ),
        click.option(
            "--allow-host",
            "allow_hosts",
            multiple=True,
            metavar="HOST",
            help="Crawl: also follow links to this host (host or host:port; repeatable). "
            "Without it the crawl never leaves the start URL's host and directory.",
        ),
        click.option("--user-agent", help="Crawl: the User-Agent sent and matched in robots.txt."),
        allow_private_option("the start's and --allow-host's hosts", when="Crawl: "),
    ]
    return _decorated(command, options)


def crawl_options(values: dict[str, Any], images: bool) -> Any:
    """CrawlOptions from the options ``crawl_limits`` adds."""
    from dataclasses import replace

    from ..sources.crawl import CrawlOptions

    options = CrawlOptions(
        concurrency=values["concurrency"],
        rate=values["rate"],
        max_depth=values["max_depth"],
        max_pages=values["max_pages"],
        max_seconds=values["time_limit"],
        images=images,
        sitemaps=not values["no_sitemaps"],
        hosts=tuple(h.lower() for h in values["allow_hosts"]),
    )
    if values["user_agent"]:
        options = replace(options, http=replace(options.http, user_agent=values["user_agent"]))
    if values["allow_private"]:
        options = replace(options, http=replace(options.http, allow_private=True))
    return options


def source_format(name: str) -> str | None:
    """``directory`` for a folder; None for a file, whose format build.py decides."""
    return DIRECTORY if name != "-" and os.path.isdir(name) else None


# what logrotate adds to a log's name: access.log.1, access.log.2.gz, access.log-20261127
# (compiled with the first log given: a build without one never uses it)
_ROTATED = lazy(r"(?:[.-][0-9]+)?(?:\.gz)?")


def access_logs(
    patterns: Sequence[str], sources: Sequence[str]
) -> tuple[list[str], tuple[str, ...]]:
    """The log files of --access-log, and the SOURCE arguments that are not logs.

    Each --access-log is a file or a glob pattern (quoted: ``'/var/log/nginx/access.log*'``),
    expanded here in name order. Unquoted, the shell expands the pattern itself and click
    gives --access-log the first file only; the rest arrive as SOURCE arguments, so a SOURCE
    named as a rotation of a log given (``access.log.1``, ``access.log.2.gz``,
    ``access.log-20261127``) is read as a log too."""
    logs: list[str] = []
    for pattern in patterns:
        import glob  # with --access-log only (~1.5M instructions)

        if os.path.exists(pattern) or not glob.has_magic(pattern):
            logs.append(pattern)  # a missing file says so when it is read
            continue
        matched = sorted(glob.glob(pattern))
        if not matched:
            from .streams import UsageProblem  # (the options load without it, for --help)

            raise UsageProblem(f"no file matches {pattern!r}", "--access-log")
        logs.extend(matched)
    rest = []
    for source in sources:
        rotated = any(
            source.startswith(log) and _ROTATED.fullmatch(source[len(log) :]) for log in logs
        )
        if rotated and source not in logs:
            logs.append(source)
        elif not rotated:
            rest.append(source)
    return logs, tuple(rest)


class SiteSources:
    """The site sources of one build, from the command's options (``access_logs``: the log
    files, patterns expanded)."""

    def __init__(self, base_url: str, options: dict[str, Any]) -> None:
        self.base_url = base_url
        self.access_logs: list[str] = list(options["access_logs"])
        self.keep_query: bool = options["keep_query"]
        self.crawl_site: str | None = options["crawl_site"]
        self.options = options  # the crawl's are read when it runs (it imports aiohttp)
        self.reports: list[SourceReport] = []

    @property
    def given(self) -> bool:
        """Whether a source other than SOURCE arguments was given."""
        return bool(self.access_logs) or self.crawl_site is not None

    def folder(self, name: str) -> Iterator[Sequence[Any]]:
        """The entries of a folder SOURCE (raises SourceError when it cannot be walked)."""
        from ..sources.directory import DirectoryOptions, DirectoryWalk  # only for a folder

        options = self.options
        directory = DirectoryOptions(
            strip_html=options["strip_html"],
            ignore=tuple(options["ignore_patterns"]),
            lastmod=options["lastmod_from"],
            images=options["images"],
        )
        walk = DirectoryWalk(name, self.base_url, directory)
        self.reports.append(walk.report)
        yield from walk.batches()

    def others(self) -> Iterator[Sequence[Any]]:
        """The entries of the sources given by options, after the SOURCE arguments."""
        if self.access_logs:
            from ..sources.access_log import AccessLogs, LogOptions

            logs = AccessLogs(self.access_logs, self.base_url, LogOptions(self.keep_query))
            self.reports.append(logs.report)
            yield from logs.batches()
        if self.crawl_site is not None:
            from ..sources.crawl import Crawl

            crawl = Crawl(self.crawl_site, crawl_options(self.options, self.options["images"]))
            self.reports.append(crawl.report)
            crawl.run_sync()
            yield from crawl.batches()

    def print_reports(self) -> None:
        """Each source's summary (on stdout) and what it left out (on stderr)."""
        from .streams import echo, say

        for report in self.reports:
            lines = report.lines()
            echo(lines[0])
            for line in lines[1:]:
                say(line)


def _decorated(command: F, options: Sequence[Callable[[Any], Any]]) -> F:
    """``command`` with ``options`` in the order given (as if written as decorators)."""
    for option in reversed(options):
        command = option(command)
    return command

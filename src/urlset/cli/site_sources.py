"""``urlset build``'s site sources: a folder given as SOURCE, access logs, a crawl.

The options live here so that build.py stays about URL lists; ``SiteSources`` turns them
into batches of entries for the one build pipeline and prints what each source left out.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

import click

from ..sources.report import SourceReport

F = TypeVar("F", bound=Callable[..., Any])

DIRECTORY = "directory"  # the input format of a SOURCE that is a folder


def directory_options(command: F) -> F:
    """The options of a folder given as SOURCE."""
    from ..sources.directory import LASTMOD_CHOICES

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
    for option in reversed(options):
        command = option(command)
    return command


def log_options(command: F) -> F:
    """The options of access logs as a source."""
    options = [
        click.option(
            "--access-log",
            "access_logs",
            multiple=True,
            type=click.Path(dir_okay=False),
            metavar="FILE",
            help="List the HTML pages requested in this access log (Common or Combined Log "
            "Format, plain or gzipped; repeatable, rotated files too): successful GETs, "
            "without bots, assets and private paths.",
        ),
        click.option(
            "--keep-query",
            is_flag=True,
            help="--access-log: keep each request's query string (dropped by default).",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def source_format(name: str) -> str | None:
    """``directory`` for a folder; None for a file, whose format build.py decides."""
    return DIRECTORY if name != "-" and os.path.isdir(name) else None


class SiteSources:
    """The site sources of one build, from the command's options."""

    def __init__(self, base_url: str, options: dict[str, Any]) -> None:
        from ..sources.directory import DirectoryOptions

        self.base_url = base_url
        self.directory = DirectoryOptions(
            strip_html=options["strip_html"],
            ignore=tuple(options["ignore_patterns"]),
            lastmod=options["lastmod_from"],
            images=options["images"],
        )
        self.access_logs: list[str] = list(options["access_logs"])
        self.keep_query: bool = options["keep_query"]
        self.reports: list[SourceReport] = []

    @property
    def given(self) -> bool:
        """Whether a source other than SOURCE arguments was given."""
        return bool(self.access_logs)

    def folder(self, name: str) -> Iterator[Sequence[Any]]:
        """The entries of a folder SOURCE (raises SourceError when it cannot be walked)."""
        from ..sources.directory import DirectoryWalk

        walk = DirectoryWalk(name, self.base_url, self.directory)
        self.reports.append(walk.report)
        yield from walk.batches()

    def others(self) -> Iterator[Sequence[Any]]:
        """The entries of the sources given by options, after the SOURCE arguments."""
        if self.access_logs:
            from ..sources.access_log import AccessLogs, LogOptions

            logs = AccessLogs(self.access_logs, self.base_url, LogOptions(self.keep_query))
            self.reports.append(logs.report)
            yield from logs.batches()

    def print_reports(self, quiet: bool) -> None:
        """Each source's summary (on stdout) and what it left out (on stderr)."""
        for report in self.reports:
            lines = report.lines()
            if not quiet:
                click.echo(lines[0])
            for line in lines[1:]:
                click.echo(line, err=True)

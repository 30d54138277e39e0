"""``urlset read SOURCE [options]``, ``urlset check PATH... [options]`` and ``urlset build
[SOURCE]... [options]`` parsed without click, for the commands' start-up.

click and what it imports are about 25 ms of CPU, more than the interpreter's own start;
reading a 50,000-URL file takes about as long again, and checking a small sitemap (what CI
runs on a site's sitemaps) or building a set of a few pages takes less. So the console
script (``console`` in ``urlset.cli``) first offers the command line to ``lean_command``,
which takes only the plainest spelling of these commands: the subcommand first, its SOURCE
(read), PATHs (check) or SOURCEs (build), each option at most once as its own word with its
value as the next word (``-o out.jsonl``, not ``-oout.jsonl``, ``--output=out.jsonl`` or
``-qv``; an option click collects, ``build --exclude``, as often as given), every value one
click would accept as it is. Anything else, ``--help`` and every usage error included, is
None: click parses it and says what is wrong, as it always has; so is an option whose value
click converts by a callback (``build --news-window``). tests/test_cli_lean.py,
tests/test_cli_lean_check.py and tests/test_cli_lean_build.py hold the tables below to the
click commands' options (cli/read.py, cli/check.py, cli/build.py) and each parse to click's.
"""

from __future__ import annotations

import gc
import os
import stat
import sys

TYPE_CHECKING = False  # as in urlset/__init__.py: typing is loaded with the command's run
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

FORMATS = ("jsonl", "csv", "tsv", "locs")  # read's
CHECK_FORMATS = ("text", "json", "sarif", "html")
CHECK_FAIL_ON = ("error", "warning")
# limits.PROFILES' names, written out: that module is not loaded here, nor for build --help
PROFILES = ("current", "sitemaps-0.9-2008")
# build's: `writing.sources.FORMATS`, written out so that the options load without the
# writer (tests/test_startup.py holds them equal)
INPUT_FORMATS = ("text", "csv", "tsv", "jsonl")
BUILD_FORMATS = ("xml", "text")


class Options:
    """A command's options as its click command declares them (a plain class: a NamedTuple
    or a dataclass costs a read's start-up ~1.5M instructions more)."""

    __slots__ = (
        *("argument", "choices", "defaults", "flags", "many", "multiple", "numbers", "off"),
        *("paths", "required", "to_click", "valued"),
    )

    def __init__(
        self,
        *,
        flags: dict[str, str],
        valued: dict[str, str],
        defaults: dict[str, Any],
        choices: dict[str, tuple[str, ...]],
        paths: dict[str, str],
        numbers: dict[str, Callable[[str], Any]],
        argument: str,
        many: bool,
        required: tuple[str, ...],
        off: dict[str, str] | None = None,
        multiple: tuple[str, ...] = (),
        to_click: tuple[str, ...] = (),
    ) -> None:
        self.flags = flags  # each word of an option without a value -> its parameter
        self.off = off or {}  # the --no-x word of a --x/--no-x flag -> its parameter
        self.valued = valued  # each word of an option taking a value -> its parameter
        self.multiple = multiple  # options that may be given again: a tuple of the values
        self.defaults = defaults  # every parameter but the argument -> its default
        self.choices = choices  # click.Choice: the values it takes
        # click.Path(): "file" (dir_okay=False), "writable file" (and writable=True) or
        # "directory" (file_okay=False), a path that need not exist
        self.paths = paths
        # click.INT, IntRange, FloatRange: the value click converts a plain number to (None:
        # another spelling, or out of the range, which click then converts or refuses)
        self.numbers = numbers
        self.argument = argument  # the positional parameter
        self.many = many  # any number of it (nargs=-1) or exactly one
        self.required = required  # the parameters click requires (the argument too if so)
        self.to_click = to_click  # the words of the options left to click (their defaults above)


def _integer(text: str, low: int = 0, high: int | None = None) -> int | None:
    """click.INT or IntRange(low, high) of plain decimal digits (18 at most: a longer
    number goes to click, whose int() refuses one past 4,300 digits)."""
    if not (text.isascii() and text.isdigit() and len(text) < 19):
        return None
    number = int(text)
    return number if low <= number and (high is None or number <= high) else None


def _count(text: str) -> int | None:
    """click.IntRange(min=1) of a plain decimal count."""
    return _integer(text, 1)


def _seconds(text: str) -> float | None:
    """click.FloatRange(min=0, min_open=True) of a plain decimal (digits, one point)."""
    digits = text.replace(".", "", 1)
    plain = text.isascii() and digits.isdigit()
    return float(text) if plain and float(text) > 0 else None


READ = Options(
    flags={"-q": "quiet", "--quiet": "quiet", "-v": "verbose", "--verbose": "verbose"},
    valued={
        "-f": "fmt",
        "--format": "fmt",
        "-o": "output",
        "--output": "output",
        "--issues-json": "issues_json",
        "--base-url": "base_url",
        "--max-bytes": "max_bytes",
        "--snapshot": "snapshot",
    },
    defaults={
        "fmt": "jsonl",
        "output": None,
        "issues_json": None,
        "base_url": None,
        "quiet": False,
        "max_bytes": None,
        "snapshot": None,
        "verbose": False,
    },
    choices={"fmt": FORMATS},
    paths={"output": "file", "issues_json": "file", "snapshot": "file"},
    numbers={"max_bytes": _count},
    argument="source",
    many=False,
    required=("source",),
)
CHECK = Options(
    flags={
        "--schema": "schema",
        "-q": "quiet",
        "--quiet": "quiet",
        "--allow-private": "allow_private",
    },
    valued={
        "--base-url": "base_url",
        "--sitemap-url": "sitemap_url",
        "--profile": "profile",
        "--format": "fmt",
        "-o": "output",
        "--output": "output",
        "--fail-on": "fail_on",
        "--now": "now",
        "--deadline": "deadline",
    },
    defaults={
        "base_url": None,
        "sitemap_url": None,
        "profile": "current",
        "fmt": "text",
        "output": None,
        "fail_on": "error",
        "schema": False,
        "now": None,
        "quiet": False,
        "deadline": None,
        "allow_private": False,
    },
    choices={"profile": PROFILES, "fmt": CHECK_FORMATS, "fail_on": CHECK_FAIL_ON},
    paths={"output": "file"},
    numbers={"deadline": _seconds},
    argument="paths",
    many=True,
    required=("paths",),
)
# build.py's options and site_sources.py's
BUILD_FLAGS = (
    *("stylesheet", "schema_location", "skip_out_of_scope", "no_dedupe", "strict"),
    *("include_fetch", "stable", "update", "quiet", "verbose", "strip_html", "images"),
    *("keep_query", "no_sitemaps", "allow_private"),
)
BUILD_VALUED = {
    "--base-url": "base_url",
    "--sitemap-url": "sitemap_url",
    "--out": "out_dir",
    "--input-format": "input_format",
    "--format": "output_format",
    "--profile": "profile_name",
    "--max-urls": "max_urls",
    "--max-bytes": "max_bytes",
    "--prefix": "prefix",
    "--xsl": "xsl",
    "--timezone": "tz_name",
    "--exclude": "exclude",
    "--report": "report_path",
    "--robots": "robots_path",
    "--section-by": "section_by",
    "--section": "section_patterns",
    "--include-sitemap": "include_sitemaps",
    "--include-sitemaps": "include_list",
    "--remove": "remove_paths",
    "--changes": "changes_path",
    "--ignore": "ignore_patterns",
    "--lastmod": "lastmod_from",
    "--access-log": "access_logs",
    "--crawl": "crawl_site",
    "--concurrency": "concurrency",
    "--rate": "rate",
    "--max-depth": "max_depth",
    "--max-pages": "max_pages",
    "--time-limit": "time_limit",
    "--allow-host": "allow_hosts",
    "--user-agent": "user_agent",
}
BUILD_MULTIPLE = (
    *("exclude", "section_patterns", "include_sitemaps", "remove_paths", "ignore_patterns"),
    *("access_logs", "allow_hosts"),
)
BUILD = Options(
    flags={
        **{"--" + name.replace("_", "-"): name for name in BUILD_FLAGS},
        **{"--gzip": "gzip", "-q": "quiet", "-v": "verbose"},
    },
    off={"--no-gzip": "gzip"},
    valued=BUILD_VALUED,
    multiple=BUILD_MULTIPLE,
    defaults={
        **dict.fromkeys(BUILD_VALUED.values()),
        **dict.fromkeys(BUILD_FLAGS, False),
        **dict.fromkeys(BUILD_MULTIPLE, ()),
        "output_format": "xml",
        "gzip": True,
        "profile_name": "current",
        "prefix": "sitemap",
        "lastmod_from": "auto",
        "concurrency": 8,
        "max_pages": 10_000,
        "news_window": None,
        "dask_scheduler": None,
    },
    choices={
        "input_format": INPUT_FORMATS,
        "output_format": BUILD_FORMATS,
        "profile_name": PROFILES,
        # site_sources.LASTMOD_CHOICES (not loaded here; tests/test_cli_lean_build.py holds
        # the table's choices to the command's)
        "lastmod_from": ("auto", "git", "mtime", "none"),
    },
    paths={
        "out_dir": "directory",
        "report_path": "writable file",
        "robots_path": "file",
        "include_list": "file",
        "remove_paths": "file",
        "changes_path": "writable file",
        "access_logs": "file",
    },
    numbers={
        "max_urls": _integer,
        "max_bytes": _integer,
        "max_depth": _integer,
        "max_pages": _count,
        "rate": _seconds,
        "time_limit": _seconds,
        "concurrency": lambda text: _integer(text, 1, 256),
    },
    argument="sources",
    many=True,
    required=("base_url", "out_dir"),
    # --news-window: a callback converts its value; --dask: the job can refuse a value once
    # it has started (the lean path hands a refused line to click, which would run it again)
    to_click=("--news-window", "--dask"),
)
COMMANDS = {"read": READ, "check": CHECK, "build": BUILD}


def lean_params(args: Sequence[str]) -> dict[str, Any] | None:
    """The parameters of ``urlset read``, ``check`` or ``build`` from ``args`` (the words
    after ``urlset``), as click would give them, or None when the lean parse does not take
    this command line."""
    if not args or args[0] not in COMMANDS or "_URLSET_COMPLETE" in os.environ:
        return None
    options = COMMANDS[args[0]]
    params: dict[str, Any] = {}
    arguments: list[str] = []
    words = iter(args[1:])
    for word in words:
        value: Any
        if word in options.flags:
            name, value = options.flags[word], True
        elif word in options.off:
            name, value = options.off[word], False
        elif word in options.valued:
            name, text = options.valued[word], next(words, None)
            if text is None or text.startswith("-"):
                return None
            value = _accepted(options, name, text)
            if value is None:
                return None
        elif word == "-" or not word.startswith("-"):
            arguments.append(word)
            continue
        else:
            return None
        if name in options.multiple:
            params[name] = (*params.get(name, ()), value)
        elif name in params:
            return None
        else:
            params[name] = value
    if not options.many and len(arguments) != 1:
        return None
    if not arguments and options.argument in options.required:
        return None
    if any(name not in params for name in options.required if name != options.argument):
        return None
    given = tuple(arguments) if options.many else arguments[0]
    return {options.argument: given, **options.defaults, **params}


def _accepted(options: Options, name: str, text: str) -> Any:
    """The value click gives option ``name`` for ``text`` when it takes it unchanged, else
    None (from the caller: click then converts it or says what is wrong)."""
    if name in options.choices:
        return text if text in options.choices[name] else None
    if name in options.numbers:
        return options.numbers[name](text)
    if name in options.paths:
        return text if _path_taken(text, options.paths[name]) else None
    return text


def _path_taken(path: str, kind: str) -> bool:
    """Whether click.Path of ``kind`` (``Options.paths``) takes ``path`` as it is: one that
    exists must be readable, a directory or not as the kind says, and writable if so."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return True  # click does not ask that it exist
    except ValueError:
        return False  # a NUL in it: click's to say
    if stat.S_ISREG(mode) if kind == "directory" else stat.S_ISDIR(mode):
        return False  # a file for a directory, or the other way round
    return os.access(path, os.R_OK) and (kind != "writable file" or os.access(path, os.W_OK))


def lean_command(args: Sequence[str]) -> Callable[[], None] | None:
    """``urlset read``, ``check`` or ``build`` of ``args`` ready to run, or None (see
    ``lean_params``)."""
    params = lean_params(args)
    if params is None:
        return None

    def command() -> None:
        run = _load(args[0])
        from .streams import UsageProblem  # loaded by now

        try:
            _standalone(run, params)
        except UsageProblem:
            # a value the command refuses (check's --now, build's --timezone) is found before
            # its output is written: click says so, as for any other usage error
            from .group import main

            main(list(args), prog_name="urlset")

    return command


def _load(command: str) -> Callable[..., None]:
    """The ``run`` of ``read_run`` or ``check_run``, or ``build_run.build_sitemaps``."""
    # the reader's, the checker's and the writer's modules are loaded without the cyclic
    # collector, which would walk their new objects a few times over (~10M instructions),
    # and kept out of its later walks (frozen): they live as long as the process
    gc.disable()
    try:
        if command == "read":
            from .read_run import run as read

            return read
        if command == "check":
            from .check_run import run as check

            return check
        from .build_run import build_sitemaps

        return build_sitemaps
    finally:
        gc.freeze()
        gc.enable()


def _standalone(run: Callable[..., None], params: dict[str, Any]) -> None:
    """``run(**params)``, ended as click's standalone mode ends a command interrupted, or
    whose standard output has gone."""
    try:
        run(**params)
    except (EOFError, KeyboardInterrupt):
        sys.stderr.write("\nAborted!\n")
        sys.exit(1)
    except BrokenPipeError:
        from .streams import quiet_stdout

        quiet_stdout()
        sys.exit(1)

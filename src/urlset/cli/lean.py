"""``urlset read SOURCE [options]`` and ``urlset check PATH... [options]`` parsed without
click, for the commands' start-up.

click and what it imports are about 25 ms of CPU, more than the interpreter's own start;
reading a 50,000-URL file takes about as long again, and checking a small sitemap (what CI
runs on a site's sitemaps) takes less. So the console script (``console`` in
``urlset.cli``) first offers the command line to ``lean_command``, which takes only the
plainest spelling of these commands: the subcommand first, its SOURCE (read) or one or more
PATHs (check), each option at most once as its own word with its value as the next word
(``-o out.jsonl``, not ``-oout.jsonl``, ``--output=out.jsonl`` or ``-qv``), every value one
click would accept as it is. Anything else, ``--help`` and every usage error included, is
None: click parses it and says what is wrong, as it always has. tests/test_cli_lean.py and
tests/test_cli_lean_check.py hold the tables below to the click commands' options
(cli/read.py, cli/check.py) and each parse to click's.
"""

from __future__ import annotations

import gc
import os
import sys

TYPE_CHECKING = False  # as in urlset/__init__.py: typing is loaded with the command's run
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import Any

FORMATS = ("jsonl", "csv", "tsv", "locs")  # read's
CHECK_FORMATS = ("text", "json", "sarif", "html")
CHECK_FAIL_ON = ("error", "warning")


class Options:
    """A command's options as its click command declares them (a plain class: a NamedTuple
    or a dataclass costs a read's start-up ~1.5M instructions more)."""

    __slots__ = ("argument", "choices", "defaults", "files", "flags", "many", "numbers", "valued")

    def __init__(
        self,
        *,
        flags: dict[str, str],
        valued: dict[str, str],
        defaults: dict[str, Any],
        choices: dict[str, tuple[str, ...]],
        files: tuple[str, ...],
        numbers: dict[str, Callable[[str], Any]],
        argument: str,
        many: bool,
    ) -> None:
        self.flags = flags  # each word of an option without a value -> its parameter
        self.valued = valued  # each word of an option taking a value -> its parameter
        self.defaults = defaults  # every option's parameter -> its default
        self.choices = choices  # click.Choice: the values it takes
        self.files = files  # click.Path(dir_okay=False): a file to write
        # click.IntRange / FloatRange: the value click converts a plain number to (None:
        # another spelling, or out of the range, which click then converts or refuses)
        self.numbers = numbers
        self.argument = argument  # the positional parameter
        self.many = many  # one or more of it (nargs=-1, required) or exactly one


def _count(text: str) -> int | None:
    """click.IntRange(min=1) of a plain decimal count."""
    return int(text) if text.isascii() and text.isdigit() and int(text) >= 1 else None


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
    files=("output", "issues_json", "snapshot"),
    numbers={"max_bytes": _count},
    argument="source",
    many=False,
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
    # --profile's are limits.PROFILES' names, written out: that module is not loaded here
    choices={
        "profile": ("current", "sitemaps-0.9-2008"),
        "fmt": CHECK_FORMATS,
        "fail_on": CHECK_FAIL_ON,
    },
    files=("output",),
    numbers={"deadline": _seconds},
    argument="paths",
    many=True,
)
COMMANDS = {"read": READ, "check": CHECK}


def lean_params(args: Sequence[str]) -> dict[str, Any] | None:
    """The parameters of ``urlset read`` or ``urlset check`` from ``args`` (the words after
    ``urlset``), as click would give them, or None when the lean parse does not take this
    command line."""
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
        if name in params:
            return None
        params[name] = value
    if len(arguments) != 1 and not (options.many and arguments):
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
    # click.Path(dir_okay=False): an existing path must be a readable non-directory
    if name in options.files and os.path.exists(text):
        return None if os.path.isdir(text) or not os.access(text, os.R_OK) else text
    return text


def lean_command(args: Sequence[str]) -> Callable[[], None] | None:
    """``urlset read`` or ``urlset check`` of ``args`` ready to run, or None (see
    ``lean_params``)."""
    params = lean_params(args)
    if params is None:
        return None
    if args[0] == "read":
        return lambda: _standalone(_load("read"), params)

    def check() -> None:
        run = _load("check")
        from .check_run import UsageProblem  # loaded by now

        try:
            _standalone(run, params)
        except UsageProblem:
            # a value check refuses (--now, --base-url) is found before anything is
            # written: click says so, as for any other usage error
            from .group import main

            main(list(args), prog_name="urlset")

    return check


def _load(command: str) -> Callable[..., None]:
    """The ``run`` of ``read_run`` or ``check_run``."""
    # the reader's and the checker's modules are loaded without the cyclic collector, which
    # would walk their new objects a few times over (~10M instructions), and kept out of its
    # later walks (frozen): they live as long as the process
    gc.disable()
    try:
        if command == "read":
            from .read_run import run as read

            return read
        from .check_run import run as check

        return check
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

"""``urlset read SOURCE [options]`` parsed without click, for the command's start-up.

click and what it imports are about 25 ms of CPU, more than the interpreter's own start;
reading a 50,000-URL file takes about as long again. So the console script (``console`` in
``urlset.cli``) first offers the command line to ``read_command``, which takes only the
plainest spelling of ``urlset read``: the subcommand first, one SOURCE, each option at most
once as its own word with its value as the next word (``-o out.jsonl``, not ``-oout.jsonl``,
``--output=out.jsonl`` or ``-qv``), every value one click would accept as it is. Anything
else, ``--help`` and every usage error included, is None: click parses it and says what is
wrong, as it always has. tests/test_cli_lean.py holds the table below to the click command's
options (cli/read.py) and each parse to click's.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

FORMATS = ("jsonl", "csv", "tsv", "locs")

# each option's words -> its parameter name in cli/read.py, and whether it takes a value
FLAGS = {"-q": "quiet", "--quiet": "quiet", "-v": "verbose", "--verbose": "verbose"}
VALUED = {
    "-f": "fmt",
    "--format": "fmt",
    "-o": "output",
    "--output": "output",
    "--issues-json": "issues_json",
    "--base-url": "base_url",
    "--max-bytes": "max_bytes",
    "--snapshot": "snapshot",
}
# options whose value is a file to write (click.Path(dir_okay=False))
PATHS = ("output", "issues_json", "snapshot")
DEFAULTS: dict[str, Any] = {
    "fmt": "jsonl",
    "output": None,
    "issues_json": None,
    "base_url": None,
    "quiet": False,
    "max_bytes": None,
    "snapshot": None,
    "verbose": False,
}


def read_params(args: Sequence[str]) -> dict[str, Any] | None:
    """The read command's parameters from ``args`` (the words after ``urlset``), as click
    would give them, or None when the lean parse does not take this command line."""
    if not args or args[0] != "read" or "_URLSET_COMPLETE" in os.environ:
        return None
    params: dict[str, Any] = {}
    source: str | None = None
    words = iter(args[1:])
    for word in words:
        value: str | bool | None
        if word in FLAGS:
            name, value = FLAGS[word], True
        elif word in VALUED:
            name, text = VALUED[word], next(words, None)
            if text is None or text.startswith("-") or not _accepted(name, text):
                return None
            value = text
        elif word == "-" or not word.startswith("-"):
            if source is not None:
                return None
            source = word
            continue
        else:
            return None
        if name in params:
            return None
        params[name] = value
    if source is None:
        return None
    if "max_bytes" in params:
        params["max_bytes"] = int(params["max_bytes"])
    return {"source": source, **DEFAULTS, **params}


def _accepted(name: str, value: str) -> bool:
    """Whether click takes ``value`` for option ``name`` unchanged (None from the caller
    otherwise: click then converts it or says what is wrong)."""
    if name == "fmt":
        return value in FORMATS
    if name == "max_bytes":
        return value.isascii() and value.isdigit() and int(value) >= 1
    if name in PATHS:
        # click.Path(dir_okay=False): an existing path must be a readable non-directory
        return not os.path.exists(value) or (not os.path.isdir(value) and os.access(value, os.R_OK))
    return True


def read_command(args: Sequence[str]) -> Callable[[], None] | None:
    """``urlset read`` of ``args`` ready to run, or None (see ``read_params``)."""
    params = read_params(args)
    if params is None:
        return None

    def run() -> None:
        # the reader's modules are loaded without the cyclic collector, which would walk
        # their new objects a few times over (~10M instructions), and kept out of its later
        # walks (frozen): they live as long as the process
        gc.disable()
        try:
            from .read_run import run
        finally:
            gc.freeze()
            gc.enable()

        # as click's standalone mode ends a command interrupted, or whose stderr has gone
        try:
            run(**params)
        except (EOFError, KeyboardInterrupt):
            sys.stderr.write("\nAborted!\n")
            sys.exit(1)
        except BrokenPipeError:
            from .streams import quiet_stdout

            quiet_stdout()
            sys.exit(1)

    return run

"""The ``urlset`` command line: ``main``, the click group (cli/group.py), and ``console``,
the console script, which runs a plain ``urlset read FILE ...``, ``urlset check PATH...`` or
``urlset build SOURCE... --base-url URL --out DIR`` without click (cli/lean.py).

Loading this package loads neither: click and its imports (inspect, ast, uuid, ...) are
about 25 ms of a read's, a check's or a small build's start-up, more than the interpreter's
own. Every other
command line, and every one the lean path does not parse exactly as click would (``--help``,
a usage error, an option it does not know), goes to the click group.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # as in urlset/__init__.py: typing is not loaded for it
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any

    from .group import COMMANDS as COMMANDS
    from .group import main as main


def console(argv: Sequence[str] | None = None) -> None:
    """The ``urlset`` console script: ``argv`` (default ``sys.argv[1:]``) run as ``urlset``
    runs it, ``urlset read``, ``check`` and ``build`` by the lean path when it takes the
    command line."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["read"], ["check"], ["build"]):
        from .lean import lean_command

        if (command := lean_command(args)) is not None:
            command()
            return
    from .group import main as group

    group(args, prog_name="urlset")


def __getattr__(name: str) -> Any:
    """``main`` and ``COMMANDS``: the click group and its table, loaded on first use."""
    if name in ("main", "COMMANDS"):
        from . import group

        return getattr(group, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

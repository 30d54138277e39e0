"""Command output that fails the way Unix tools do.

A write error on the output (a full disk, ``/dev/full``, a read-only target) is told apart
from a read error on the input: ``Output`` raises ``OutputError`` naming the target.
``output_errors`` turns it into a message and exit status 2, and a closed pipe
(``urlset read ... | head``) into a quiet end with the status the command chose.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import click


class UsageProblem(Exception):
    """A value the command refuses (exit 2, as a usage error), found before its output is
    written: the message, and the option it is about (``usage_error`` says it as click
    does). The commands that run without click (cli/lean.py) raise it; their click
    commands make it click's usage error, and the lean path hands the command line to click,
    which says it as it always has."""

    def __init__(self, message: str, option: str | None = None) -> None:
        super().__init__(message)
        # "--now": click's "Invalid value for '--now'"; "": a value of no option named
        # ("Invalid value"); None: the command line as a whole
        self.option = option


def usage_error(problem: UsageProblem) -> click.UsageError:
    """click's usage error saying what the command refused (exit 2, with the usage line)."""
    import click

    if problem.option is None:
        return click.UsageError(str(problem))
    return click.BadParameter(str(problem), param_hint=problem.option or None)


class OutputError(Exception):
    """Writing the command's output failed."""

    def __init__(self, target: str, error: OSError) -> None:
        self.target = target
        self.error = error
        super().__init__(f"cannot write {target}: {error.strerror or error}")


class Output:
    """A text stream whose write errors are OutputErrors naming ``target``."""

    def __init__(self, stream: IO[str], target: str) -> None:
        self._stream = stream
        self.target = target

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as exc:
            raise OutputError(self.target, exc) from exc

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as exc:
            raise OutputError(self.target, exc) from exc

    def close(self) -> None:
        try:
            self._stream.close()
        except OSError as exc:
            raise OutputError(self.target, exc) from exc


def target_name(path: str | None) -> str:
    """How a message names an output: its path, or standard output and where it leads."""
    if path not in (None, "-"):
        return str(path)
    try:
        return f"standard output ({os.readlink(f'/proc/self/fd/{sys.stdout.fileno()}')})"
    except (OSError, ValueError, AttributeError):
        return "standard output"


@contextlib.contextmanager
def output_errors(command: str, *, closed_pipe_status: int = 0) -> Iterator[None]:
    """Exit 2 with ``urlset COMMAND: cannot write TARGET: reason`` when output fails; exit
    with ``closed_pipe_status`` and no message when the reader of standard output has gone."""
    try:
        yield
    except OutputError as exc:
        if isinstance(exc.error, BrokenPipeError):
            quiet_stdout()
            sys.exit(closed_pipe_status)
        say(f"urlset {command}: {exc}")
        quiet_stdout()
        sys.exit(2)
    except BrokenPipeError:
        quiet_stdout()
        sys.exit(closed_pipe_status)


def say(message: str) -> None:
    """``message`` and a newline to standard error, as ``click.echo(message, err=True)``
    writes it (``echo``)."""
    echo(message, err=True)


def echo(message: str, *, err: bool = False) -> None:
    """``message`` and a newline to standard output (``err``: error), as ``click.echo``
    writes it, without loading click (``read``, ``check`` and ``build`` run without it,
    cli/lean.py) unless click would change the text: it strips escape sequences when the
    stream is no terminal, and re-encodes for a stream that is not UTF-8."""
    stream = sys.stderr if err else sys.stdout
    encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
    if stream is None or "\x1b" in message or not (message.isascii() or encoding == "utf8"):
        import click

        click.echo(message, err=err)
        return
    stream.write(message + "\n")
    stream.flush()


def quiet_stdout() -> None:
    """Point standard output at /dev/null, so the interpreter's flush at exit neither fails
    again nor prints 'Exception ignored'."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def need_report_extra() -> None:
    """A usage error (exit 2) naming the pip command when the HTML reports' extra
    (matplotlib) is not installed; called before any work is done."""
    if (missing := report_extra_missing()) is not None:
        import click

        raise click.UsageError(missing)


def report_extra_missing() -> str | None:
    """What to install when the HTML reports' extra (matplotlib) is missing, else None."""
    from ..reports import ExtraMissing, require

    try:
        require()
    except ExtraMissing as exc:
        return str(exc)
    return None

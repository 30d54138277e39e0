"""What more than one command module shares, below all of them (so the commands import one
way: a command module, then its ``*_run`` module, then this): the keys options leave their
values under in the click context, the columns ``read`` and ``fetch`` write, the mode and
the JSON Lines logs of a build (local or on Dask), and the network options of the commands
that download (``network_options``)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ..errors import PublishError

# where --sites leaves its values in the click context
FETCH_SITES = "urlset.fetch.sites"
FETCH_DASK = "urlset.fetch.dask"

URL_COLUMNS = ("loc", "lastmod", "changefreq", "priority", "extensions")
INDEX_COLUMNS = ("loc", "lastmod")

F = TypeVar("F", bound=Callable[..., Any])


def network_options(
    *,
    timeout: float,
    timeout_help: str,
    private_hosts: str,
    refused: str = "",
    user_agent: str | None = None,
) -> Callable[[F], F]:
    """--timeout, --read-timeout, --retries, --user-agent and --allow-private, as every
    command that downloads takes them: ``timeout`` and what it bounds (``timeout_help``),
    the hosts that may be on a private address by default (``private_hosts``; what else is
    refused: ``refused``), the
    User-Agent sent when none is given (``user_agent``; None: the HTTP client's)."""
    import click  # here: ``urlset read`` takes its columns from this module without click

    options = [
        click.option(
            "--timeout",
            type=click.FloatRange(min=0.1),
            default=timeout,
            show_default=True,
            help=timeout_help,
        ),
        click.option(
            "--read-timeout",
            type=click.FloatRange(min=0.1),
            default=30.0,
            show_default=True,
            help="Seconds to wait for the next bytes (longer: a timeout).",
        ),
        click.option(
            "--retries",
            type=click.IntRange(0, 20),
            default=3,
            show_default=True,
            help="Tries after the first for a 5xx, a 429, a timeout or a reset.",
        ),
        click.option(
            "--user-agent",
            default=user_agent,
            show_default=False,
            help="The User-Agent sent and matched in robots.txt.",
        ),
        allow_private_option(private_hosts, more=refused and f": {refused}"),
    ]

    def decorate(command: F) -> F:
        for option in reversed(options):
            command = option(command)
        return command

    return decorate


def allow_private_option(private_hosts: str, when: str = "", more: str = "") -> Callable[[F], F]:
    """--allow-private: ``private_hosts``, the hosts that may be on a private address by
    default; ``when``, what the option is for ("For URLs: "); ``more``, said after."""
    import click

    return click.option(
        "--allow-private",
        is_flag=True,
        help=f"{when}{'c' if when else 'C'}onnect to private, loopback and link-local addresses "
        f"too (by default only {private_hosts} may be on one{more}).",
    )


class BuildMode:
    """How a build runs: an update of a set, a stable set, the locs --remove names, the
    files --report and --changes write, and the scheduler --dask names (None or '': a
    local build). A plain class: a NamedTuple's making (and a Protocol's, ``AsDict``) cost
    a small build's start ~1.5M instructions."""

    __slots__ = ("changes_path", "dask", "remove_paths", "report_path", "stable", "update")

    def __init__(
        self,
        update: bool,
        stable: bool,
        remove_paths: tuple[str, ...],
        report_path: str | None,
        changes_path: str | None,
        dask: str | None = None,
    ) -> None:
        self.update = update
        self.stable = stable
        self.remove_paths = remove_paths
        self.report_path = report_path
        self.changes_path = changes_path
        self.dask = dask


if TYPE_CHECKING:  # only mypy needs it (see BuildMode)
    from typing import Protocol

    class AsDict(Protocol):
        def as_dict(self) -> dict[str, Any]: ...


@contextlib.contextmanager
def json_lines_log(option: str, path: str | None) -> Iterator[Callable[[AsDict], None] | None]:
    """A listener writing each item (a problem, a change) to ``path`` as a JSON line; None
    when no file was asked for. ``option`` names the file in an error."""
    if path is None:
        yield None
        return
    import json  # with a log only: check and read load no json

    try:
        log = open(path, "w", encoding="utf-8")  # noqa: SIM115
    except OSError as exc:
        raise PublishError(f"{option} {path}: cannot write ({exc.strerror or exc})") from exc
    with log:

        def write(item: AsDict) -> None:
            log.write(json.dumps(item.as_dict(), ensure_ascii=False) + "\n")

        yield write

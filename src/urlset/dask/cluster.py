"""The cluster a call runs on: the scheduler at an address, a client given, or a local
cluster started for the call and closed after it."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..errors import InvalidValue

if TYPE_CHECKING:
    from distributed import Client

LOCAL = "local"  # the scheduler "address" that asks for a local cluster


def require_dask() -> None:
    """ImportError naming the extra to install when Dask is not there."""
    try:
        import dask.dataframe  # noqa: F401
        import distributed  # noqa: F401
    except ImportError as exc:
        raise ImportError(
            f"urlset's Dask stage needs dask[distributed] ({exc}); "
            "install it with: pip install 'urlset[dask]'"
        ) from None


@contextlib.contextmanager
def connect(
    scheduler: str | None = None, client: Client | None = None, *, workers: int | None = None
) -> Iterator[Client]:
    """A client for ``scheduler`` (an address such as tcp://host:8786, or None / "local"
    for a local cluster of ``workers`` processes), or ``client`` itself when given."""
    require_dask()
    if client is not None:
        yield client
        return
    from distributed import Client, LocalCluster

    if scheduler is not None and scheduler != LOCAL:
        try:
            remote = Client(scheduler, timeout="30s")
        except (OSError, ValueError, TypeError) as exc:
            raise InvalidValue(
                "scheduler", scheduler, f"no Dask scheduler answered there ({exc})"
            ) from None
        with remote:
            yield remote
        return
    # the local scheduler runs in this process: its notes on each shuffle's life are noise
    shuffle_log = logging.getLogger("distributed.shuffle")
    level = shuffle_log.level
    shuffle_log.setLevel(logging.ERROR)
    try:
        # the dashboard on a free port: the default 8787 may be taken (a second cluster, Jupyter)
        with (
            LocalCluster(n_workers=workers, processes=True, dashboard_address=":0") as cluster,
            Client(cluster) as local,
        ):
            yield local
    finally:
        shuffle_log.setLevel(level)

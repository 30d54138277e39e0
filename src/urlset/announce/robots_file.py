"""A robots.txt file on disk, its ``Sitemap:`` lines updated atomically (robots_text does the edit).

In: a path and the sitemap URLs (a build's ``entry_points``, say). Out: the ``RobotsEdit``;
the file is replaced only when its bytes change: written beside itself under a temporary
name, flushed to disk, given the old file's permissions, and renamed over it, so a reader
sees the old file or the new one, never half of one. A missing file is created.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import PublishError
from .robots_text import RobotsEdit, edit_sitemaps


def update_robots_file(
    path: str | os.PathLike[str],
    sitemaps: Sequence[str] = (),
    remove: Sequence[str] = (),
    *,
    replace: Callable[[str], bool] | None = None,
) -> RobotsEdit:
    """Add a ``Sitemap:`` line for each of ``sitemaps`` to the robots.txt at ``path`` (and take
    out those of ``remove``, and those ``replace`` owns); see ``edit_sitemaps``.

    InvalidValue for a URL that is not absolute; PublishError when the file cannot be read
    or written (the old file is then left as it was).
    """
    target = Path(path)
    try:
        data = target.read_bytes()
        mode: int | None = stat.S_IMODE(target.stat().st_mode)
    except FileNotFoundError:
        data, mode = b"", None
    except OSError as exc:
        raise PublishError(f"cannot read {target}: {exc.strerror or exc}") from exc
    edit = edit_sitemaps(data, sitemaps, remove, replace=replace)
    if edit.changed or mode is None:
        write_atomically(target, edit.data, mode)
    return edit


def write_atomically(target: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``target`` with ``data`` in one rename (``mode``: the permissions to give it;
    None: 0o644 less the umask)."""
    directory = target.parent
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise PublishError(f"cannot write in {directory}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is None:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o644 & ~umask
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise PublishError(f"cannot write {target}: {exc.strerror or exc}") from exc
    with contextlib.suppress(OSError):  # some file systems refuse fsync on directories
        dir_fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

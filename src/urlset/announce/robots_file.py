"""A robots.txt file on disk, its ``Sitemap:`` lines and policy groups updated atomically
(robots_text and robots_policy do the edits).

In: a path and the sitemap URLs (a build's ``entry_points``, say). Out: the ``RobotsEdit``;
the file is replaced only when its bytes change: written beside itself under a temporary
name, flushed to disk, given the old file's permissions, and renamed over it, so a reader
sees the old file or the new one, never half of one. A missing file is created.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from ..errors import PublishError
from .robots_policy import Policy, edit_policies
from .robots_text import RobotsEdit, edit_sitemaps


def update_robots_file(
    path: str | os.PathLike[str],
    sitemaps: Sequence[str] = (),
    remove: Sequence[str] = (),
    *,
    replace: Callable[[str], bool] | None = None,
    policies: Sequence[Policy] = (),
) -> RobotsEdit:
    """Add a ``Sitemap:`` line for each of ``sitemaps`` to the robots.txt at ``path`` (and take
    out those of ``remove``, and those ``replace`` owns; see ``edit_sitemaps``), and give
    each of ``policies`` its User-agent group (see ``robots_policy.edit_policies``).

    InvalidValue for a URL that is not absolute or a policy whose group is unclear;
    PublishError when the file cannot be read or written (the old file is then left as it
    was).
    """
    # a symlink is written through: its target is the file edited, the link stays a link
    target = Path(os.path.realpath(path))
    try:
        data = target.read_bytes()
        there: os.stat_result | None = target.stat()
    except FileNotFoundError:
        data, there = b"", None
    except OSError as exc:
        raise PublishError(f"cannot read {target}: {exc.strerror or exc}") from exc
    encoding = _not_utf8(data)
    if encoding is not None:
        raise PublishError(
            f"{path} is {encoding}; robots.txt is read as UTF-8 (RFC 9309), so its lines "
            "would not be found: save it as UTF-8, then run again (it was left as it was)"
        )
    edit = edit_sitemaps(data, sitemaps, remove, replace=replace)
    if policies:
        groups = edit_policies(edit.data, policies)
        edit = dataclasses.replace(edit, data=groups.data, groups=groups.groups)
    if edit.changed or there is None:
        write_atomically(target, edit.data, there)
    return edit


def _not_utf8(data: bytes) -> str | None:
    """The encoding a robots.txt is in when it is not UTF-8 (or ASCII) text, by its byte
    order mark or its NUL bytes: appending ASCII lines to it would give a broken file."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")) or b"\x00" in data[:4096]:
        return "UTF-16 (or another encoding of two or more bytes a character)"
    return None


def write_atomically(target: Path, data: bytes, there: os.stat_result | None = None) -> None:
    """Replace ``target`` with ``data`` in one rename, with the permissions and owner of the
    file it replaces (``there``: its stat; None: a new file, 0o644 less the umask)."""
    mode = None if there is None else stat.S_IMODE(there.st_mode)
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
        if there is not None:
            _keep_owner(tmp, there, target)
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


def _keep_owner(tmp: str, there: os.stat_result, target: Path) -> None:
    """Give the new file the old one's owner and group (a rename would otherwise hand the
    file to whoever ran the command); refuse when that is not allowed."""
    mine = os.stat(tmp)
    if (mine.st_uid, mine.st_gid) == (there.st_uid, there.st_gid):
        return
    try:
        os.chown(tmp, there.st_uid, there.st_gid)
    except PermissionError:
        raise PermissionError(
            f"{target} belongs to another user ({there.st_uid}:{there.st_gid}); replacing it "
            "would change its owner: run as that user or as root"
        ) from None

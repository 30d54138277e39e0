"""File I/O for building: deterministic gzip on a background thread, and atomic publishing.

Publishing: every file of a build is written into a staging directory inside the output
directory (same file system, so renames are atomic), then moved into place, children first
and each index last: its rename is the commit point of its children. Children are named by a
hash of their bytes, so moving one in never changes a file that a published index lists, and
files of an earlier build are removed only after every new index is in place. A build that
fails or is killed, at any moment, leaves every published index listing files that exist and
hold what it says (the previous set, or the new one).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import os
import queue
import re
import stat
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from zlib_ng import zlib_ng

from ..errors import PublishError

STAGING_PREFIX = ".urlset-staging-"
_REMOVAL_TRIES = 50  # a tenth of a second apart
# zlib-ng level 6: the size `gzip -6` gives (0.998x) at 2.3x stdlib's speed, on the thread
# beside the serialiser, which is the slower of the two (BENCHMARKS.md); isal level 3 was 3x
# faster but 1.18x larger on sitemap XML. Its CRC-32 too, folded into the copy of the input
# into its window (gzip mode, `_gzip_compressor`), not a pass of its own over the XML
DEFAULT_GZIP_LEVEL = 6
# gzip member header: magic, deflate, no flags, mtime 0 (deterministic), no extra flags, OS unknown
_GZIP_HEADER = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff"
_QUEUE_CHUNKS = 4  # at most ~4 MiB waiting for the writing thread


class _Workers:
    """Threads that run one file's write loop each, each kept for a later file when done.
    A thread started for each file cost the writing thread a wait for it to start (up to the
    GIL's switch interval while the others run) once a file, and a news build starts a file
    every 1,000 entries. A file waits for no other: with none idle, a thread is started."""

    def __init__(self) -> None:
        self._idle: list[queue.SimpleQueue[Callable[[], None]]] = []
        self._lock = threading.Lock()
        # a forked child has none of the parent's threads
        os.register_at_fork(after_in_child=self._idle.clear)

    def run(self, job: Callable[[], None]) -> None:
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = queue.SimpleQueue()
            threading.Thread(target=self._serve, args=(inbox,), daemon=True).start()
        inbox.put(job)

    def _serve(self, inbox: queue.SimpleQueue[Callable[[], None]]) -> None:
        while True:
            inbox.get()()
            with self._lock:
                self._idle.append(inbox)


_WORKERS = _Workers()


class FileSink:
    """Writes bytes to a file on a background thread, gzip-compressed when asked.

    Compression, writing and hashing release the GIL, so they run beside the serialiser on
    another core. The gzip output is a standard single-member stream with mtime 0: the same
    input always gives the same bytes. ``hexdigest`` is the SHA-256 of the bytes written to
    the file (the compressed ones, when compressed), hashed on that thread as they are
    written, never read back.
    """

    def __init__(self, path: Path, *, gzip: bool, level: int = DEFAULT_GZIP_LEVEL) -> None:
        self.path = path
        self.written = 0
        # opened on the file's thread: creating a file waits on the file system's journal
        # while other files are fsynced (~0.3 ms each here), and a news build starts 1,001
        self._file: BinaryIO | None = None
        self._gzip = gzip
        self._error: BaseException | None = None
        # SHA-256: in the standard library, and its fastest hash here (0.8 GB/s, SHA
        # instructions; BLAKE2b 0.57, MD5 0.69); gzip output is about a tenth of the XML
        self._hash = hashlib.sha256()
        if gzip:
            self._compressor = _gzip_compressor(level)
        self._queue: queue.Queue[bytes | None] = queue.Queue(_QUEUE_CHUNKS)
        self._done = threading.Event()
        _WORKERS.run(self._write_loop)

    def __call__(self, data: bytes) -> None:
        if self._error is not None:
            raise self._failed(self._error) from self._error
        self._queue.put(data)

    def hexdigest(self) -> str:
        """The SHA-256 of the file's bytes, in hex; whole once ``wait`` has returned."""
        return self._hash.hexdigest()

    def _failed(self, exc: BaseException) -> PublishError:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return PublishError(f"{self.path}: could not write ({reason})")

    def _write_loop(self) -> None:
        try:
            self._write_all()
        finally:
            self._done.set()

    def _write_all(self) -> None:
        try:
            file = self._file = open(self.path, "wb")  # noqa: SIM115 - closed in wait()
            if self._gzip:
                file.write(_GZIP_HEADER)
                self._hash.update(_GZIP_HEADER)
                self.written = len(_GZIP_HEADER)
        except BaseException as exc:  # handed to the writing thread on its next call
            self._error = exc
        while True:
            data = self._queue.get()
            if data is None:
                break
            if self._error is not None:
                continue
            try:
                if self._gzip:
                    data = self._compressor.compress(data)
                file.write(data)
                self._hash.update(data)
                self.written += len(data)
            except BaseException as exc:  # handed to the writing thread on its next call
                self._error = exc
        if self._error is None:
            try:  # the trailer and fsync here too, so that the next file starts meanwhile
                if self._gzip:
                    tail = self._compressor.flush()  # the deflate end, CRC-32 and size
                    file.write(tail)
                    self._hash.update(tail)
                    self.written += len(tail)
                file.flush()
                os.fsync(file.fileno())
            except BaseException as exc:
                self._error = exc

    def finish(self) -> None:
        """Start finishing the file: writing what is queued, the gzip trailer and the fsync
        go on in the background (``wait`` for them). Nothing may be written after."""
        self._queue.put(None)

    def wait(self) -> None:
        """Wait until the file is whole on disk (fsynced), or raise PublishError."""
        self._done.wait()
        error = self._error
        try:
            if self._file is not None:
                self._file.close()
        except OSError as exc:
            error = error or exc
        if error is not None:
            raise self._failed(error) from error

    def close(self) -> None:
        """Finish the stream and fsync, so a published file is whole on disk."""
        self.finish()
        self.wait()

    def discard(self) -> None:
        """Stop without finishing (the staging directory is removed by the publisher)."""
        if not self._done.is_set():
            self._error = self._error or RuntimeError("discarded")
            self._queue.put(None)
            self._done.wait()
        with contextlib.suppress(OSError):  # what it could not flush is thrown away anyway
            if self._file is not None:
                self._file.close()


def _gzip_compressor(level: int) -> zlib_ng._Compress:
    """A gzip compressor whose own header is taken off (``_GZIP_HEADER`` replaces it: zlib-ng
    writes OS 3, ours says unknown); what it gives after is the deflate stream, then at
    ``flush`` the CRC-32 and size of the input. zlib-ng computes the CRC as it copies the
    input into its window, not in a pass of its own over the XML."""
    compressor = zlib_ng.compressobj(level, zlib_ng.DEFLATED, 31)
    header = compressor.compress(b"")  # zlib-ng hands its header over at once
    if len(header) != len(_GZIP_HEADER) or header[:4] != _GZIP_HEADER[:4]:
        raise RuntimeError(f"zlib-ng wrote an unexpected gzip header: {header!r}")
    return compressor


def gzip_bytes(data: bytes, level: int = DEFAULT_GZIP_LEVEL) -> bytes:
    """The same deterministic gzip stream FileSink writes, for small documents in memory."""
    compressor = _gzip_compressor(level)
    return _GZIP_HEADER + compressor.compress(data) + compressor.flush()


def _new_directory(parent: Path, prefix: str) -> Path:
    """A new directory ``parent/prefix<random>``, readable by its owner only, as
    ``tempfile.mkdtemp`` makes it (which loads shutil, random, bz2 and lzma: ~4 ms of a
    build's start-up)."""
    while True:
        path = parent / f"{prefix}{os.urandom(6).hex()}"
        try:
            path.mkdir(mode=0o700)
        except FileExistsError:
            continue
        return path


def _remove_tree(path: Path) -> None:
    """Remove ``path`` and what it holds, ignoring errors; an empty directory (a published
    build's staging) without loading shutil."""
    try:
        path.rmdir()
    except FileNotFoundError:
        return
    except OSError:
        import shutil

        shutil.rmtree(path, ignore_errors=True)


def _same_bytes(one: Path, other: Path) -> bool:
    import filecmp

    return filecmp.cmp(one, other, shallow=False)


class Publisher:
    """Stages the files of one build and moves them into ``out_dir`` atomically.

    Use as a context manager: leaving the block by an exception removes the staging
    directory and publishes nothing. ``stale`` matches the names an earlier build of the same
    prefix may have left, so that only our own files are ever removed.
    """

    def __init__(self, out_dir: Path, stale: re.Pattern[str]) -> None:
        self.out_dir = out_dir
        self._stale = stale
        self.repaired: list[str] = []  # files in place whose bytes were not their name's
        self._lock_fd: int | None = None
        self.staging = Path()

    def __enter__(self) -> Publisher:
        try:
            self.out_dir.mkdir(parents=True, exist_ok=True)
            # the lock is held on the directory itself, so no lock file is ever published
            self._lock_fd = os.open(self.out_dir, os.O_RDONLY)
            try:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise PublishError(
                    f"{self.out_dir}: another urlset build is publishing here; wait for it to end"
                ) from None
            # with the lock held, any staging directory left here is from a killed build
            for leftover in self.out_dir.glob(STAGING_PREFIX + "*"):
                _remove_tree(leftover)
            self.staging = _new_directory(self.out_dir, STAGING_PREFIX)
        except OSError as exc:
            self._unlock()
            if isinstance(exc, PublishError):
                raise
            raise PublishError(_unusable(self.out_dir, exc)) from exc
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        # a task of a failed distributed build may still be writing here as it is removed
        for _ in range(_REMOVAL_TRIES):
            _remove_tree(self.staging)
            if not self.staging.exists():
                break
            time.sleep(0.1)
        self._unlock()

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            os.close(self._lock_fd)
            self._lock_fd = None

    def publish(self, sets: Sequence[Sequence[str]], keep: Iterable[str] = ()) -> list[str]:
        """Move each set into place, its last name last: an index (or the one file of a set
        without one), whose rename is the commit point of the children before it. Then remove
        the files of our own naming that no set lists and ``keep`` does not name (files
        already in place that an index lists: an incremental build's unchanged children).
        Returns the removed names.

        Children are named by their content, so a child never replaces a file of the same
        name with other bytes; one already in place under its name, with its bytes, is left
        as it is (its modification time too, which HTTP caches go by). One damaged in place
        (other bytes under the name) is written again, and named in ``repaired``."""
        try:
            for names in sets:
                *children, commit = names
                for name in children:
                    self._move_child(name)
                if children:  # the children are in place on disk before the index names them
                    _fsync_dir(self.out_dir)
                os.replace(self.staging / commit, self.out_dir / commit)
                _fsync_dir(self.out_dir)
            keep = {*keep, *(name for names in sets for name in names)}
            removed = []
            for path in self.out_dir.iterdir():
                if path.name not in keep and self._stale.fullmatch(path.name) and path.is_file():
                    path.unlink()
                    removed.append(path.name)
            _fsync_dir(self.out_dir)
        except OSError as exc:
            raise PublishError(
                f"{self.out_dir}: could not move the new files into place ({exc.strerror or exc})"
            ) from exc
        return sorted(removed)

    def _move_child(self, name: str) -> None:
        staged, target = self.staging / name, self.out_dir / name
        try:
            there = target.lstat()
        except FileNotFoundError:
            there = None
        if (
            there is None
            or not stat.S_ISREG(there.st_mode)
            or there.st_size != staged.stat().st_size
        ):
            os.replace(staged, target)
        elif not _same_bytes(staged, target):  # damaged in place: same size
            os.replace(staged, target)
            self.repaired.append(name)


_KINDS = {
    stat.S_IFREG: "a file",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
}


def _unusable(out_dir: Path, exc: OSError) -> str:
    """Why ``out_dir`` cannot take a build, naming the path at fault: the output directory
    or, when it is to be created, the nearest path above it that exists."""
    at = out_dir
    while not os.path.lexists(at) and at.parent != at:
        at = at.parent
    try:
        mode: int | None = at.stat().st_mode
    except OSError:
        mode = None  # a symbolic link to nothing, or not ours to look at
    below = "" if at == out_dir else f", so {out_dir} cannot be created"
    if mode is not None and not stat.S_ISDIR(mode):
        kind = _KINDS.get(stat.S_IFMT(mode), "not a directory")
        return f"{at}: exists and is not a directory ({kind}){below}"
    if exc.errno == errno.EROFS:
        return f"{at}: the directory is on a read-only file system{below}"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return f"{at}: the directory is read-only for this user ({exc.strerror}){below}"
    return f"{out_dir}: cannot prepare the output directory ({exc.strerror or exc})"


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):  # some file systems refuse fsync on directories
            os.fsync(fd)
    finally:
        os.close(fd)

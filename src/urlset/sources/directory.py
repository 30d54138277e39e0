"""A static site's output folder -> build entries (driver: reads the files, runs git once).

Each HTML file (``.html``, ``.htm``) becomes the URL it is served at under the base URL:
``index.html`` is its directory's URL (``blog/index.html`` -> ``blog/``), and with
``strip_html`` a page's ``.html`` suffix is dropped (``about.html`` -> ``about``), as most
static hosts serve it. Path segments are percent-encoded (UTF-8), so a file named
``café & co.html`` becomes ``caf%C3%A9%20&%20co.html``.

Left out: files matching an ignore pattern (``.gitignore`` syntax, relative to the
folder; hidden files and folders and ``404.html`` by default), pages whose head says
``<meta name="robots" content="noindex">``, and pages whose ``<link rel="canonical">``
names another URL (the other URL is the one to list). The report names each.

lastmod (``lastmod``): ``git`` takes the date of the last commit that touched the file, from
one ``git log`` over the folder (files git does not track get their modification time);
``mtime`` the file's modification time; ``none`` leaves it out; ``auto`` is ``git`` inside a
git work tree and ``mtime`` elsewhere. Uncommitted edits are not seen by ``git``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from ..errors import InputError
from ..model import Url
from .entries import Row, page_entry, same_url
from .page import HEAD_SCAN, read_page
from .report import SourceError, SourceReport

LASTMOD_CHOICES = ("auto", "git", "mtime", "none")
DEFAULT_IGNORE = (".*", "404.html")
HTML_SUFFIXES = (".html", ".htm")
_BATCH = 2048
# each commit, newest first: \x01, its committer date, NUL, then the files it touched
_GIT_LOG = ("git", "log", "--name-only", "--no-renames", "--format=%x01%cI", "-z")
_SEGMENT_SAFE = "!$&'()*+,;=:@-._~"  # RFC 3986 pchar, less the escapes quote() adds


@dataclass(frozen=True, slots=True)
class DirectoryOptions:
    """How a folder becomes URLs (see the module's docstring)."""

    strip_html: bool = False
    ignore: tuple[str, ...] = ()
    lastmod: str = "auto"
    images: bool = False
    default_ignore: bool = True


def url_path(relative: str, *, strip_html: bool) -> str:
    """The URL path (relative to the base URL) a file at ``relative`` (POSIX) is served at."""
    directory, _, name = relative.rpartition("/")
    lower = name.lower()
    if lower in ("index.html", "index.htm"):
        name = ""
    elif strip_html and lower.endswith(".html"):
        name = name[:-5]
    parts = [*directory.split("/"), name] if directory else [name]
    return "/".join(quote(part, safe=_SEGMENT_SAFE) for part in parts)


def git_dates(folder: Path) -> dict[str, str] | None:
    """The committer date of the last commit touching each file under ``folder`` (paths
    relative to it), from one ``git log``; None when ``folder`` is not in a git work tree
    or git is not installed."""
    try:
        inside = subprocess.run(
            ["git", "rev-parse", "--is-inside-work-tree"],
            cwd=folder,
            capture_output=True,
            check=False,
        )
        if inside.returncode != 0 or inside.stdout.strip() != b"true":
            return None
        log = subprocess.run(
            [*_GIT_LOG, "--relative", "--", "."],
            cwd=folder,
            capture_output=True,
            check=False,
        )
    except OSError:
        return None
    if log.returncode != 0:  # a repository without commits
        return {}
    dates: dict[str, str] = {}
    for commit in log.stdout.split(b"\x01")[1:]:  # newest first: the first date seen wins
        date, _, names = commit.partition(b"\0")
        when = date.decode("ascii").strip()
        for name in names.lstrip(b"\n").split(b"\0"):
            if name:
                dates.setdefault(os.fsdecode(name), when)
    return dates


def _mtime(path: str) -> str:
    return datetime.fromtimestamp(os.stat(path).st_mtime, UTC).isoformat(timespec="seconds")


def _read(path: str, whole: bool) -> bytes:
    with open(path, "rb") as stream:
        return stream.read() if whole else stream.read(HEAD_SCAN)


class DirectoryWalk:
    """``batches()`` walks ``folder`` and yields lists of build entries; ``report`` says
    what was left out."""

    def __init__(self, folder: str | Path, base_url: str, options: DirectoryOptions) -> None:
        import pathspec

        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"{folder}: not a directory")
        self.base = base_url if base_url.endswith("/") else base_url + "/"
        self.options = options
        patterns = (*DEFAULT_IGNORE, *options.ignore) if options.default_ignore else options.ignore
        self.ignore = pathspec.GitIgnoreSpec.from_lines(patterns)
        self.report = SourceReport(str(folder))
        self.dates: dict[str, str] | None = None
        if options.lastmod in ("auto", "git"):
            self.dates = git_dates(self.folder)
            if self.dates is None and options.lastmod == "git":
                raise SourceError(
                    f"{folder}: not in a git work tree (or git is not installed); "
                    "use --lastmod mtime or none"
                )

    def files(self) -> Iterator[str]:
        """The HTML files to list, relative to the folder (POSIX), in a stable order."""
        for top, dirs, names in os.walk(self.folder):
            here = Path(top).relative_to(self.folder).as_posix()
            prefix = "" if here == "." else here + "/"
            dirs[:] = sorted(d for d in dirs if not self.ignore.match_file(prefix + d + "/"))
            for name in sorted(names):
                if name.lower().endswith(HTML_SUFFIXES) and not self.ignore.match_file(
                    prefix + name
                ):
                    yield prefix + name

    def batches(self) -> Iterator[list[Url | Row | InputError]]:
        batch: list[Url | Row | InputError] = []
        for relative in self.files():
            entry = self._entry(relative)
            if entry is not None:
                batch.append(entry)
                if len(batch) >= _BATCH:
                    yield batch
                    batch = []
        if batch:
            yield batch

    def _lastmod(self, relative: str, path: str) -> str | None:
        how = self.options.lastmod
        if how == "none":
            return None
        if self.dates is not None:
            found = self.dates.get(relative)
            if found is not None:
                return found
        return _mtime(path)

    def _entry(self, relative: str) -> Url | Row | InputError | None:
        path = os.path.join(self.folder, relative)
        url = self.base + url_path(relative, strip_html=self.options.strip_html)
        try:
            data = _read(path, self.options.images)
            lastmod = self._lastmod(relative, path)
        except OSError as exc:
            self.report.leave_out("unreadable", f"{relative} ({exc.strerror or exc})")
            return None
        facts = read_page(data, url, images=self.options.images)
        if facts.noindex:
            self.report.leave_out('noindex (<meta name="robots">)', relative)
            return None
        if facts.canonical is not None and not same_url(facts.canonical, url):
            self.report.leave_out(
                "canonical is another URL", f"{relative}: {url} -> {facts.canonical}"
            )
            return None
        self.report.entries += 1
        return page_entry(path, url, lastmod, facts, images=self.options.images)

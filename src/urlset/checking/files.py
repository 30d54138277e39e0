"""The file layer of a check: paths in, a ``CheckReport`` out.

``check_file`` reads one file (at most what the reader would take) and checks it with
``check_document``; ``check_paths`` takes files and directories (every sitemap in them),
pools them as one set for the rules across URLs, and resolves each index's children inside
the directory through the base URL, to compare the index with them.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING, BinaryIO

from ..extensions.set_checks import SetChecks
from ..patterns import lazy
from ..reading.sniff import GZIP_MAGIC, Gunzip, GzipError, sniff
from . import rules
from .child_paths import Listed, local_children
from .children import compare_with_children
from .document import CheckOptions, check_document, check_lines_later, with_ref_lines
from .findings import MAX_PER_CODE, unlisted_summary
from .index_refs import ref_locs, starts_with_of
from .report import NOT_A_FILE, SET_FORMAT, CheckReport, FileResult
from .source import FileSource, spool

if TYPE_CHECKING:
    from pathlib import Path

# how much of a file is looked at to tell whether it is a sitemap
_HEAD = 4096
_URL_AT_LINE_START = lazy(rb"(?:^|\n)[ \t]*https?://", re.IGNORECASE)
# an XSLT root (a set's stylesheet, such as the sitemap.xsl build --stylesheet publishes):
# never a sitemap, whatever its name
_XSLT_ROOT = lazy(
    rb"<(?:[\w.-]+:)?(?:stylesheet|transform)\b[^>]*?"
    rb"xmlns(?::[\w.-]+)?\s*=\s*[\"']http://www\.w3\.org/1999/XSL/Transform[\"']"
)


def _head_of(path: Path) -> bytes:
    """The first bytes of a file's content (of what a gzip file holds, when it is one)."""
    with path.open("rb") as f:
        head = f.read(_HEAD)
    if head[:2] != GZIP_MAGIC:
        return head
    out = bytearray()
    with path.open("rb") as f:
        stream = Gunzip()
        try:
            while len(out) < _HEAD and (data := f.read(1 << 14)):
                for piece in stream.feed(data):
                    out += piece
                    if len(out) >= _HEAD:
                        break
        except GzipError:
            pass  # a damaged sitemap is checked, and its damage reported
    return bytes(out[:_HEAD])


def _why_not_a_sitemap(path: Path) -> str | None:
    """None when the file's content may be a sitemap (XML, UTF-16, a list of URLs), else why
    it is left out. A file named like a sitemap is always checked, so that what is wrong
    with it is said."""
    name = path.name.lower()
    named = "sitemap" in name or (name.endswith((".xml", ".xml.gz")) and "urls" in name)
    head = _head_of(path)
    sniffed = sniff(head, len(head) < _HEAD) or sniff(head, True)
    kind = sniffed.kind if sniffed is not None else "unknown"
    if kind == "xml" and _XSLT_ROOT.search(head):
        return "an XSL stylesheet"
    if named or kind in ("xml", "utf16"):
        return None
    if kind == "text":
        if _URL_AT_LINE_START.search(head):
            return None
        return "text, but no line starts with an http(s) URL"
    if kind == "empty":
        return None if name.endswith((".xml", ".gz", ".txt")) else "empty"
    if kind == "html":
        return "an HTML page"
    return sniffed.reason if sniffed is not None and sniffed.reason else "not XML or text"


def _not_a_sitemap(result: FileResult, path: Path) -> str | None:
    """Why an XML file found in a directory is no sitemap or feed (browserconfig.xml, an
    RSS-less config), or None; a file named like a sitemap is kept, to say what is wrong."""
    if "sitemap" in path.name.lower():
        return None
    for issue in result.issues:
        if issue.code == "unknown-root":
            return f"XML, but not a sitemap ({issue.message})"
    return None


def not_a_file(path: Path) -> tuple[str, str] | None:
    """(code, message) for a name in a directory that is no regular file: a link to nothing,
    a named pipe, a device or a socket; None for a file. Nothing is opened (a FIFO would
    block the check until something writes to it)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        if path.is_symlink():
            target = os.readlink(path)
            return "dangling-link", f"{path} is a symbolic link to {target}, which does not exist"
        return None  # removed while the directory was walked
    except OSError as exc:  # a link loop, a name too long
        return "not-a-file", f"{path} cannot be looked at: {exc.strerror or exc}"
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    what = (
        "a named pipe (FIFO)"
        if stat.S_ISFIFO(mode)
        else "a device"
        if stat.S_ISCHR(mode) or stat.S_ISBLK(mode)
        else "a socket"
        if stat.S_ISSOCK(mode)
        else "not a regular file"
    )
    link = " (through a symbolic link)" if path.is_symlink() else ""
    return "not-a-file", f"{path} is {what}{link}; it was not opened"


def find_sitemaps(
    directory: Path,
) -> tuple[list[Path], list[tuple[Path, str]], list[tuple[Path, str, str]]]:
    """The files under ``directory`` whose content may be a sitemap, those left out with
    the reason (hidden folders and files are left out whole, each named once), and the names
    that are no regular file, with the code and message of their finding (``not_a_file``)."""
    found: list[Path] = []
    skipped: list[tuple[Path, str]] = []
    odd: list[tuple[Path, str, str]] = []
    from pathlib import Path  # here: a check of files alone starts without it (~17M instructions)

    for top, dirs, names in os.walk(directory):
        here = Path(top)
        for d in sorted(dirs):
            if d.startswith("."):
                skipped.append((here / d, "hidden folder"))
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            path = here / name
            if name.startswith("."):
                skipped.append((path, "hidden file"))
                continue
            if not path.is_file():
                finding = not_a_file(path)
                if finding is not None:
                    odd.append((path, *finding))
                continue
            try:
                why = _why_not_a_sitemap(path)
            except OSError:
                why = None  # checking it says why it cannot be read
            if why is None:
                found.append(path)
            else:
                skipped.append((path, why))
    return found, skipped, odd


def sitemap_files(directory: Path) -> list[Path]:
    """The files under ``directory`` whose content may be a sitemap."""
    return find_sitemaps(directory)[0]


def _file_url(base_url: str | None, root: Path | None, path: Path | str) -> str | None:
    if base_url is None:
        return None
    if root is None:
        name = os.path.basename(path)  # (a name as pathlib writes it: its Path.name)
        return base_url + name if base_url.endswith("/") else base_url
    assert not isinstance(path, str)
    directory = base_url if base_url.endswith("/") else base_url + "/"
    return directory + path.relative_to(root).as_posix()


def _cannot_read(source: str, exc: OSError) -> FileResult:
    reason = exc.strerror or str(exc)
    issue = rules.make_issue("cannot-read", f"cannot read {source}: {reason}", source=source)
    return FileResult(source, [issue])


def check_stream(
    stream: BinaryIO,
    options: CheckOptions = CheckOptions(),  # noqa: B008 (frozen)
    source: str = "<stdin>",
    *,
    set_checks: SetChecks | None = None,
) -> FileResult:
    """Check a stream (standard input) as a file is checked: what the reader would take is
    spooled to a temporary file (read once, never held), the rest read on only to be
    counted."""
    cap = options.read_limits.max_decompressed_bytes
    try:
        spooled, size = spool(stream, cap + 1)
    except OSError as exc:
        return _cannot_read(source, exc)
    with spooled:
        return _check_open(spooled, size, cap, options, source, set_checks)


# what a caller does with a file's result while it is open: an index's ref lines are then
# made only if asked for (``document.check_lines_later``)
Then = Callable[[FileResult, Callable[[], list[int]] | None], None]


def _check_open(
    f: BinaryIO,
    size: int,
    cap: int,
    options: CheckOptions,
    source: str,
    set_checks: SetChecks | None,
) -> FileResult:
    """Check an open file, read from its start in chunks as often as the check needs."""
    return with_ref_lines(*_check_open_later(f, size, cap, options, source, set_checks))


def _check_open_later(
    f: BinaryIO,
    size: int,
    cap: int,
    options: CheckOptions,
    source: str,
    set_checks: SetChecks | None,
) -> tuple[FileResult, Callable[[], list[int]] | None]:
    """``_check_open``, an index's ref lines left to the call returned (while ``f`` is
    open: ``document.check_lines_later``)."""
    f.seek(0)
    plain_size = size if f.read(2) != GZIP_MAGIC else None
    stored = FileSource(f, cap + 1)  # beyond this the reader stops anyway
    return check_lines_later(stored, options, source, plain_size, set_checks)


def check_file(
    path: str | os.PathLike[str],
    options: CheckOptions = CheckOptions(),  # noqa: B008 (frozen)
    *,
    url: str | None = None,
    set_checks: SetChecks | None = None,
    then: Then | None = None,
) -> FileResult:
    """Check one file; ``url`` is where it is served (its scope), else ``options.base_url``;
    ``then``, given the result and its ref lines to make, before the file is closed (not
    called for a file that could not be read)."""
    name = written(path)
    cap = options.read_limits.max_decompressed_bytes
    try:
        f = open(name, "rb")  # noqa: SIM115 (closed below, after the errors opening it)
    except OSError as exc:
        return _cannot_read(name, exc)
    with f:
        try:
            size = os.fstat(f.fileno()).st_size
            options = replace(options, base_url=url or options.base_url)
            if then is None:
                return _check_open(f, size, cap, options, name, set_checks)
            result, lines = _check_open_later(f, size, cap, options, name, set_checks)
        except OSError as exc:  # a read that fails midway (an I/O error, a directory)
            return _cannot_read(name, exc)
        then(result, lines)  # while the file is open (its errors are its own)
        return result


def written(path: str | os.PathLike[str]) -> str:
    """``str(Path(path))``, the name a file is reported by: a name pathlib writes as it is
    given (no empty or ``.`` part, no slash at its end) is that name, without loading
    pathlib (with the urllib.parse and ipaddress it imports: ~17M instructions, a twelfth of
    a small check)."""
    name = os.fspath(path)
    if (
        isinstance(name, str)
        and name not in ("", ".")
        and not name.startswith("./")
        and not name.endswith(("/", "/."))
        and "//" not in name
        and "/./" not in name
    ):
        return name
    from pathlib import Path

    return str(Path(path))


def check_paths(
    paths: Iterable[str | os.PathLike[str]],
    options: CheckOptions = CheckOptions(),  # noqa: B008 (frozen)
    *,
    stdin: bytes | BinaryIO | None = None,
) -> CheckReport:
    """Check files and directories (and ``-`` for ``stdin``: bytes, or a binary stream
    read as a file is, up to what the reader takes).

    ``options.base_url`` is the URL of the directory (or of the single file) given; with it,
    each index's children are looked up inside the directory, checked, and compared with
    the index (nested index, missing file, stale lastmod).
    """
    report = CheckReport()
    done: dict[str, FileResult] = {}  # by the file's resolved path
    pool = SetChecks()  # the files given form one set: hreflang across them
    base = options.base_url
    for given in paths:
        if str(given) == "-":
            if stdin is None or isinstance(stdin, bytes):
                result = check_document(stdin or b"", options, "<stdin>", set_checks=pool)
            else:
                result = check_stream(stdin, options, set_checks=pool)
            if any(i.code == "cannot-read" for i in result.issues):
                report.not_started.append("-")
            report.files.append(result)
            continue
        name = written(given)
        if os.path.isfile(name):  # (Path.is_dir false, Path.resolve its realpath)
            _given_file(name, os.path.realpath(name), options, done, report, pool)
            continue
        from pathlib import Path

        p = Path(given)
        if p.is_dir():
            files, skipped, odd = find_sitemaps(p)
            report.skipped.extend((str(f), why) for f, why in skipped)
            for f, code, message in odd:  # listed, each with its finding, never opened
                issue = rules.make_issue(code, message, source=str(f))
                report.files.append(FileResult(str(f), [issue], format=NOT_A_FILE))
            kept = []
            for f in files:
                if str(f.resolve()) in done:
                    continue
                result = check_file(f, options, url=_file_url(base, p, f), set_checks=pool)
                why = _not_a_sitemap(result, f)
                if why is not None:
                    report.skipped.append((str(f), why))
                    continue
                done[str(f.resolve())] = result
                report.files.append(result)
                kept.append(f)
            for f in kept:
                index = done[str(f.resolve())]
                _children(index, f, p, base, options, done, report, pool, in_directory=True)
            if not any(str(f.resolve()) in done for f in files):
                left = f" ({len(skipped):,} other files left out)" if skipped else ""
                message = f"no sitemap files in {p}{left}"
                issue = rules.make_issue("no-sitemaps", message, source=str(p))
                report.files.append(FileResult(str(p), [issue]))
        else:
            _given_file(str(p), str(p.resolve()), options, done, report, pool)
    attach_set_findings(pool, report)
    return report


def _given_file(
    name: str,
    key: str,
    options: CheckOptions,
    done: dict[str, FileResult],
    report: CheckReport,
    pool: SetChecks,
) -> None:
    """Check a file given by name (``key``: its resolved path), and an index's children
    (while the file is open: the lines of its refs are read again only to compare them)."""
    if key in done:
        return
    base = options.base_url
    url = _file_url(base, None, name) if base is not None else None
    root_url = None if url is None else url[: url.rfind("/") + 1]
    taken: list[FileResult] = []

    def then(result: FileResult, lines: Callable[[], list[int]] | None) -> None:
        taken.append(result)
        if any(i.code == "cannot-read" for i in result.issues):
            report.not_started.append(name)
        done[key] = result
        report.files.append(result)
        _children(result, name, None, root_url, options, done, report, pool, lines=lines)

    result = check_file(name, options, url=url, set_checks=pool, then=then)
    if not taken:  # not read
        then(result, None)


def attach_set_findings(pool: SetChecks, report: CheckReport) -> None:
    """The findings across the checked files: news counts go to their sitemap; hreflang
    findings to the one file checked, or to an entry of their own for a set of files."""
    findings = pool.findings(MAX_PER_CODE)
    if not findings.listed:
        return
    by_source = {f.source: f for f in report.files}
    whole_set: list[FileResult] = []

    def target_of(source: str) -> FileResult:
        target = by_source.get(source)
        if target is None and len(report.files) == 1:
            target = report.files[0]
        if target is None:
            if not whole_set:
                files = len(report.files)
                whole_set.append(
                    FileResult(f"(the {files} files checked, as one set)", format=SET_FORMAT)
                )
                report.files.append(whole_set[0])
            target = whole_set[0]
        return target

    for finding in findings.listed:
        target = target_of(finding.source)
        target.issues.append(rules.make_issue(finding.code, finding.message, source=target.source))
    # past the cap, as every code is listed: counted, with the line that says so
    for (source, code), n in findings.unlisted.items():
        target = target_of(source)
        target.unlisted[code] = target.unlisted.get(code, 0) + n
        target.issues.append(unlisted_summary(code, MAX_PER_CODE + n, target.source))


def _children(
    index: FileResult,
    path: Path | str,
    root: Path | None,
    root_url: str | None,
    options: CheckOptions,
    done: dict[str, FileResult],
    report: CheckReport,
    pool: SetChecks | None = None,
    *,
    in_directory: bool = False,
    lines: Callable[[], list[int]] | None = None,
) -> None:
    """Resolve an index's children in ``root`` and check the index against them. Without
    a URL for the folder, an index given alone none of whose children lie beside it was
    taken out of its set: its children are not reported missing. ``root`` None: the folder
    ``path`` lies in. ``lines``: the index's ref lines, made if it is compared (else they
    were made with it)."""
    if index.format != "sitemapindex" or not index.refs:
        return
    from pathlib import Path

    path = Path(path)
    root = path.parent if root is None else root
    locs = ref_locs(index.refs)  # (from an index read into columns: no value made)
    at_once = starts_with_of(index.refs)
    wheres, files = local_children(locs, path, root, root_url, Listed(), at_once)
    found: list[FileResult | None] = [None] * len(locs)
    for i, local in files:
        local = Path(local)
        key = str(local.resolve())
        child = done.get(key)
        if child is None:
            child = check_file(local, options, url=locs[i], set_checks=pool)
            done[key] = child
            report.files.append(child)
        found[i] = child
    if not files and root_url is None and not in_directory:
        return
    missing = wheres()
    # a child in another URL directory than the children found here is another generator's
    # sitemap the index lists (build --include-sitemap), published elsewhere: not missing
    here = {locs[i].rsplit("/", 1)[0] for i, _ in files}
    if here:
        missing = [
            where if where and loc.rsplit("/", 1)[0] in here else ""
            for loc, where in zip(locs, missing, strict=True)
        ]
    if files or any(missing):  # (else it has nothing to say)
        if lines is not None:
            try:
                index.ref_lines = lines()
            except OSError:  # the file unreadable since it was checked: its lines unknown
                index.ref_lines = []
        compare_with_children(index, found, missing)

"""The file layer of a check: paths in, a ``CheckReport`` out.

``check_file`` reads one file (at most what the reader would take) and checks it with
``check_document``; ``check_paths`` takes files and directories (every sitemap in them),
pools them as one set for the rules across URLs, and resolves each index's children inside
the directory through the base URL, to compare the index with them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from ..extensions import rules as ext_rules
from ..reading.sniff import GZIP_MAGIC
from . import rules
from .children import compare_with_children
from .document import CheckOptions, check_document
from .report import SET_FORMAT, CheckReport, FileResult


def _is_sitemap_name(path: Path) -> bool:
    name = path.name.lower()
    if name.startswith("."):
        return False
    if name.endswith(".txt"):
        return "sitemap" in name or "urls" in name
    if name.endswith((".tar.gz", ".tgz")):
        return False
    return name.endswith((".xml", ".gz"))


def _not_a_sitemap(result: FileResult, path: Path) -> bool:
    """An XML file found in a directory that is no sitemap or feed (browserconfig.xml, an
    RSS-less config): left out, unless its name says it should be a sitemap."""
    if "sitemap" in path.name.lower():
        return False
    return any(i.code == "unknown-root" for i in result.issues)


def sitemap_files(directory: Path) -> list[Path]:
    """The sitemap files under ``directory``: *.xml, *.gz, and *.txt named like a sitemap."""
    out = []
    for path in sorted(directory.rglob("*")):
        rel = path.relative_to(directory)
        if any(part.startswith(".") for part in rel.parts):
            continue
        if path.is_file() and _is_sitemap_name(path):
            out.append(path)
    return out


def _file_url(base_url: str | None, root: Path | None, path: Path) -> str | None:
    if base_url is None:
        return None
    if root is None:
        return base_url + path.name if base_url.endswith("/") else base_url
    directory = base_url if base_url.endswith("/") else base_url + "/"
    return directory + path.relative_to(root).as_posix()


def _cannot_read(source: str, exc: OSError) -> FileResult:
    reason = exc.strerror or str(exc)
    issue = rules.make_issue("cannot-read", f"cannot read {source}: {reason}", source=source)
    return FileResult(source, [issue])


def check_file(
    path: str | os.PathLike[str],
    options: CheckOptions = CheckOptions(),  # noqa: B008 (frozen)
    *,
    url: str | None = None,
    set_checks: ext_rules.SetChecks | None = None,
) -> FileResult:
    """Check one file; ``url`` is where it is served (its scope), else ``options.base_url``."""
    p = Path(path)
    cap = options.read_limits.max_decompressed_bytes
    try:
        with p.open("rb") as f:
            data = f.read(cap + 1)  # beyond this the reader stops anyway
            size = os.fstat(f.fileno()).st_size
    except OSError as exc:
        return _cannot_read(str(p), exc)
    plain_size = size if data[:2] != GZIP_MAGIC else None
    return check_document(
        data,
        replace(options, base_url=url or options.base_url),
        str(p),
        full_size=plain_size,
        set_checks=set_checks,
    )


def check_paths(
    paths: Iterable[str | os.PathLike[str]],
    options: CheckOptions = CheckOptions(),  # noqa: B008 (frozen)
    *,
    stdin: bytes | None = None,
) -> CheckReport:
    """Check files and directories (and ``-`` for ``stdin``, the bytes the caller read).

    ``options.base_url`` is the URL of the directory (or of the single file) given; with it,
    each index's children are looked up inside the directory, checked, and compared with
    the index (nested index, missing file, stale lastmod).
    """
    report = CheckReport()
    done: dict[Path, FileResult] = {}
    pool = ext_rules.SetChecks()  # the files given form one set: hreflang across them
    base = options.base_url
    for given in paths:
        if str(given) == "-":
            result = check_document(stdin or b"", options, "<stdin>", set_checks=pool)
            report.files.append(result)
            continue
        p = Path(given)
        if p.is_dir():
            files = sitemap_files(p)
            kept = []
            for f in files:
                if f.resolve() in done:
                    continue
                result = check_file(f, options, url=_file_url(base, p, f), set_checks=pool)
                if _not_a_sitemap(result, f):
                    continue
                done[f.resolve()] = result
                report.files.append(result)
                kept.append(f)
            for f in kept:
                _children(done[f.resolve()], f, p, base, options, done, report, pool)
            if not files:
                issue = rules.make_issue("no-sitemaps", f"no sitemap files in {p}", source=str(p))
                report.files.append(FileResult(str(p), [issue]))
        else:
            key = p.resolve()
            if key in done:
                continue
            url = _file_url(base, None, p) if base is not None else None
            result = check_file(p, options, url=url, set_checks=pool)
            done[key] = result
            report.files.append(result)
            root_url = None if url is None else url[: url.rfind("/") + 1]
            _children(result, p, p.parent, root_url, options, done, report, pool)
    _attach_set_findings(pool, report)
    return report


def _attach_set_findings(pool: ext_rules.SetChecks, report: CheckReport) -> None:
    """The findings across the checked files: news counts go to their sitemap; hreflang
    findings to the one file checked, or to an entry of their own for a set of files."""
    findings = pool.finish()
    if not findings:
        return
    by_source = {f.source: f for f in report.files}
    whole_set: FileResult | None = None
    for finding in findings:
        target = by_source.get(finding.source)
        if target is None and len(report.files) == 1:
            target = report.files[0]
        if target is None:
            if whole_set is None:
                whole_set = FileResult(
                    f"(the {len(report.files)} files checked, as one set)", format=SET_FORMAT
                )
                report.files.append(whole_set)
            target = whole_set
        target.issues.append(rules.make_issue(finding.code, finding.message, source=target.source))


def _children(
    index: FileResult,
    path: Path,
    root: Path,
    root_url: str | None,
    options: CheckOptions,
    done: dict[Path, FileResult],
    report: CheckReport,
    pool: ext_rules.SetChecks | None = None,
) -> None:
    """Resolve an index's children in ``root`` and check the index against them."""
    if index.format != "sitemapindex" or not index.refs:
        return
    found: list[FileResult | None] = []
    missing: list[str] = []
    for ref in index.refs:
        local = _local_child(ref.loc, path, root, root_url)
        if local is None or not local.is_file():
            found.append(None)
            missing.append("" if local is None or root_url is None else str(local))
            continue
        key = local.resolve()
        child = done.get(key)
        if child is None:
            child = check_file(local, options, url=ref.loc, set_checks=pool)
            done[key] = child
            report.files.append(child)
        found.append(child)
        missing.append("")
    compare_with_children(index, found, missing)


def _local_child(loc: str, index_path: Path, root: Path, root_url: str | None) -> Path | None:
    """Where the child ``loc`` lies on disk: under ``root`` through ``root_url``, or else
    beside the index by file name."""
    if root_url is not None:
        directory = root_url if root_url.endswith("/") else root_url + "/"
        if not loc.startswith(directory):
            return None
        rel = loc[len(directory) :].split("?", 1)[0]
        if not rel or ".." in rel.split("/"):
            return None
        return root.joinpath(*rel.split("/"))
    name = loc.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
    if not name:
        return None
    candidate = index_path.parent / name
    return candidate if candidate.is_file() else None

"""What ``urlset read`` does once it runs: the lazy read, entries written a batch at a time
through the column renderers ``urlset fetch`` shares, issues to standard error or a file,
and the run stored on ``--snapshot``.

Unless ``--snapshot`` needs the URLs' values, the read goes through the render lane
(reading/rendered.py), as ``urlset fetch`` does: a plain urlset's canonical records become
output text in the compiled core, without a Python object per URL; the entries the reader
still gives (and every other format) are written by the column renderers in their places.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator, Sequence
from itertools import groupby
from typing import Any, NoReturn

from ..dates import format_w3c
from ..errors import InvalidValue
from ..extensions import json_fields
from ..limits import ReadLimits
from ..model import Issue, SitemapRef, Url
from ..reading.output import RENDERERS, UrlColumns, line_tail
from ..reading.reader import FILE_CHUNK, ReadResult, SitemapReader
from ..reading.rendered import RenderedRun, RenderSpec, merge_rendered
from .shared import INDEX_COLUMNS, URL_COLUMNS
from .streams import Output, OutputError, output_errors, say, target_name

STDIN_CHUNK = 262_144
_URL_BATCH = 8192  # URLs rendered at once (a few MB of text at most)
# the render lane (switched off only to compare it with the per-URL path: a test does)
RENDER_LANE = True


def entry_dict(entry: Url | SitemapRef) -> dict[str, Any]:
    """The JSON form of one entry: loc, then only the fields that are present."""
    data: dict[str, Any] = {"loc": entry.loc}
    if type(entry) is SitemapRef:
        data["type"] = "sitemap"
        if entry.lastmod is not None:
            data["lastmod"] = format_w3c(entry.lastmod)
        return data
    assert isinstance(entry, Url)
    if entry.lastmod is not None:
        data["lastmod"] = format_w3c(entry.lastmod)
    if entry.changefreq is not None:
        data["changefreq"] = entry.changefreq.value
    if entry.priority is not None:
        data["priority"] = entry.priority
    if entry.extensions:
        # typed values as images / videos / news / alternates, anything else raw: the shape
        # `urlset build` reads back
        data.update(json_fields(entry.extensions))
    return data


def issue_dict(issue: Issue) -> dict[str, Any]:
    return {
        "code": issue.code,
        "severity": issue.severity.value,
        "message": issue.message,
        "line": issue.line,
        "column": issue.column,
        "source": issue.source,
        "hint": issue.hint,
    }


def _stdin_chunks() -> Iterator[bytes]:
    stream = sys.stdin.buffer
    while True:
        chunk = stream.read1(STDIN_CHUNK) if hasattr(stream, "read1") else stream.read(STDIN_CHUNK)
        if not chunk:
            return
        yield chunk


def _file_chunks(path: str, size: int) -> Iterator[bytes]:
    """The file's bytes; opened when iteration starts (an OSError then is a read error)."""
    with open(path, "rb") as f:
        while chunk := f.read(size):
            yield chunk


class _Output(Output):
    """The command's output: text, and the render lane's runs as the UTF-8 bytes they are."""

    def __init__(self, stream: io.TextIOWrapper, target: str) -> None:
        super().__init__(stream, target)
        self._text = stream

    def write_bytes(self, parts: Sequence[bytes]) -> None:
        """``parts`` one after another (each as it is: the runs are large, joining them
        first would copy every byte once more)."""
        try:
            self._text.flush()  # what the text layer holds goes first
            write = self._text.buffer.write
            for part in parts:
                write(part)
        except OSError as exc:
            raise OutputError(self.target, exc) from exc


class _Writer:
    """Writes entries as they come; URLs a batch at a time through the column renderers of
    ``urlset.reading.output`` (the ones `urlset fetch` uses), index entries one by one. In
    the render lane (``spec``) the runs the core rendered are written with the URLs held
    back, each in its place (``merge_rendered``), as each chunk has been read."""

    def __init__(self, out: _Output, fmt: str, spec: RenderSpec | None = None) -> None:
        self.out = out
        self.fmt = fmt
        self.header = False
        self.urls: list[Url | SitemapRef] = []  # SitemapRefs only in the render lane
        self.csv: Any = None
        self.kept: list[UrlColumns] | None = None  # the URLs' columns, for --snapshot
        self.spec = spec
        self.at = 0  # the render lane: entries of the document written so far
        if spec is not None:
            spec.on_run = self.flush  # each run written as it comes, not a chunk's at once
        if fmt in ("csv", "tsv"):
            import csv

            self.csv = csv.writer(out, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")

    def entry(self, entry: Url | SitemapRef) -> None:
        # the render lane holds an index's entries back too: the core's runs go between them
        if type(entry) is Url or self.spec is not None:
            self.urls.append(entry)
            if len(self.urls) >= _URL_BATCH:
                self.flush()
            return
        self.flush()  # keep the order of the entries
        if self.csv is not None and not self.header:
            self._header(index=True)
        self.out.write(_index_lines(self.fmt, [entry]))  # type: ignore[list-item]

    def flush(self) -> None:
        """Write the URLs held back (and in the render lane the runs rendered so far)."""
        if self.spec is not None:
            self._flush_rendered(self.spec)
            return
        if not self.urls:
            return
        if self.csv is not None and not self.header:
            self._header(index=False)
        urls: list[Url] = self.urls  # type: ignore[assignment]  # Urls only outside the lane
        columns = (
            UrlColumns.from_urls(urls) if self.fmt != "locs" or self.kept is not None else None
        )
        if self.kept is not None and columns is not None:
            self.kept.append(columns)
        if self.fmt == "locs":
            self.out.write("".join([url[0] + "\n" for url in urls]))
        else:
            assert columns is not None
            self.out.write(RENDERERS[self.fmt](columns, None))
        self.urls = []

    def _flush_rendered(self, spec: RenderSpec) -> None:
        """The URLs held back and the runs rendered since the last flush that come before
        any entry the reader has yet to give (a flush of a full batch comes part-way through
        a chunk's entries), in document order."""
        at, urls = self.at, self.urls
        runs = spec.take_before(at + len(urls)) if spec.runs else []
        if not runs and not urls:
            return
        if self.csv is not None and not self.header:
            self._header(index=spec.index or type(urls[:1] and urls[0]) is SitemapRef)
        if at:  # run.at counts from the document's start; these URLs from entry `at`
            runs = [RenderedRun(run.at - at, run.count, run.text) for run in runs]
        self.out.write_bytes(merge_rendered(urls, runs, self._render))
        self.at = at + len(urls) + sum(run.count for run in runs)
        self.urls = []

    def _render(self, entries: Sequence[Url | SitemapRef]) -> bytes:
        """One line per entry, a run of one type at a time (an index's, a urlset's)."""
        parts = []
        for is_url, group in groupby(entries, lambda entry: type(entry) is Url):
            same: list[Any] = list(group)
            if not is_url:
                parts.append(_index_lines(self.fmt, same))
            elif self.fmt == "locs":
                parts.append("".join([url[0] + "\n" for url in same]))
            else:
                parts.append(RENDERERS[self.fmt](UrlColumns.from_urls(same), None))
        return "".join(parts).encode("utf-8")

    def _header(self, index: bool) -> None:
        self.header = True
        self.csv.writerow(INDEX_COLUMNS if index else URL_COLUMNS)

    def chunks(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """``chunks``; in the render lane the output of each is written before the next is
        read (the reader has given all of its entries by then), so output keeps pace."""
        try:
            for chunk in chunks:
                if self.spec is not None:
                    self.flush()
                yield chunk
        finally:
            close = getattr(chunks, "close", None)
            if close is not None:
                close()

    def finish(self) -> None:
        self.flush()
        if self.spec is not None and self.spec.runs:  # never output with entries left out
            raise RuntimeError(f"{len(self.spec.runs)} rendered runs after the last entry")
        if self.csv is not None and not self.header:
            self._header(False)


def _index_lines(fmt: str, refs: Sequence[SitemapRef]) -> str:
    """An index's entries as lines of ``fmt`` (JSON Lines: ``entry_dict``; CSV and TSV: the
    loc and lastmod cells), as the compiled core renders them too (core/src/read/render.rs)."""
    if fmt == "jsonl":
        import json

        return "".join(
            json.dumps(entry_dict(ref), ensure_ascii=False, separators=(",", ":")) + "\n"
            for ref in refs
        )
    if fmt == "locs":
        return "".join(ref.loc + "\n" for ref in refs)
    import csv

    text = io.StringIO()
    writer = csv.writer(text, delimiter="," if fmt == "csv" else "\t", lineterminator="\n")
    writer.writerows(
        (ref.loc, "" if ref.lastmod is None else format_w3c(ref.lastmod)) for ref in refs
    )
    return text.getvalue()


def _fail(message: str) -> NoReturn:
    say(f"urlset read: {message}")
    sys.exit(2)


def run(
    source: str,
    fmt: str,
    output: str | None,
    issues_json: str | None,
    base_url: str | None,
    quiet: bool,
    max_bytes: int | None,
    snapshot: str | None,
    *,
    verbose: bool = False,
) -> None:
    """Read SOURCE and write its entries as FMT; exits 1 on errors found, 2 when it could not
    be read (see the command's help)."""
    if source.lower().startswith(("http://", "https://")):
        _fail(f"reading URLs is not supported yet; use `urlset fetch {source}` (or download it)")
    # the render lane unless --snapshot needs the URLs' values
    spec = (
        RenderSpec(fmt, line_tail(fmt, None), indexes=True, texts=True)
        if RENDER_LANE and snapshot is None
        else None
    )
    reader = _reader(source, base_url, max_bytes, spec)
    try:
        stream = (
            open(output, "w", encoding="utf-8", newline="")  # noqa: SIM115
            if output
            else io.TextIOWrapper(
                sys.stdout.buffer, encoding="utf-8", newline="", write_through=False
            )
        )
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror or exc}")
    out = _Output(stream, target_name(output))
    issues: list[Issue] = []
    writer = _Writer(out, fmt, spec)
    chunks = _stdin_chunks() if source == "-" else _file_chunks(source, FILE_CHUNK)
    result = ReadResult(reader, writer.chunks(chunks), with_issues=True)
    if snapshot is not None:
        writer.kept = []
    with output_errors("read"):
        try:
            # -q: errors only (what makes the exit status 1); --issues-json: none on stderr
            shown = set() if issues_json else {"error"} if quiet else {"error", "warning", "info"}
            _copy(result, writer, issues, shown=shown)
        except OSError as exc:  # reading failed: what was read is written, then the error
            _fail(f"cannot read {source}: {exc.strerror or exc}")
        finally:
            if output:
                out.close()
            else:
                with contextlib.suppress(ValueError, OSError):
                    stream.detach()
    if verbose:
        say(f"urlset read: {_lanes(reader, spec)}")
    if issues_json is not None:
        _write_issues(issues_json, result.issues)
    if snapshot is not None and writer.kept is not None:
        _store(snapshot, source, writer.kept, issues)
    if result.fatal:
        sys.exit(2)
    if any(i.severity == "error" for i in issues):
        sys.exit(1)


def _lanes(reader: SitemapReader, spec: RenderSpec | None) -> str:
    """--verbose: the entries the compiled core rendered, and the others per reason."""
    if spec is None:
        return f"{reader.entries:,} entries, each through the reader (--snapshot)"
    left = ", ".join(f"{reason} {n:,}" for reason, n in sorted(spec.left.items()))
    text = f"{reader.entries:,} entries, {spec.rendered:,} rendered by the compiled core"
    return text + (f"; through the reader: {left}" if left else "")


def _copy(result: ReadResult, writer: _Writer, issues: list[Issue], *, shown: set[str]) -> None:
    """Entries to ``writer``, issues to ``issues`` (and those of the ``shown`` severities to
    stderr); on a read error, what was read is still written before the error is raised."""
    try:
        for event in result:
            if type(event) is Issue:
                issues.append(event)
                if event.severity in shown:
                    say(str(event))
            else:
                writer.entry(event)  # type: ignore[arg-type]
    finally:
        writer.finish()
        writer.out.flush()


def _reader(
    source: str, base_url: str | None, max_bytes: int | None, spec: RenderSpec | None
) -> SitemapReader:
    """The reader of SOURCE (a path, or - for stdin), in the render lane when given ``spec``;
    a bad --base-url is a usage error."""
    limits = ReadLimits() if max_bytes is None else ReadLimits(max_decompressed_bytes=max_bytes)
    try:
        return SitemapReader(
            "<stdin>" if source == "-" else path_name(source),
            base_url=base_url,
            limits=limits,
            render=spec,
        )
    except InvalidValue as exc:
        _fail(f"--base-url: {exc}")


def path_name(path: str) -> str:
    """``str(pathlib.Path(path))`` (a POSIX path as the reader names it: ``./a//b/`` is
    ``a/b``), without loading pathlib (with urllib.parse, ~7M instructions of start-up)."""
    root = "//" if path[:2] == "//" and path[2:3] != "/" else "/" if path[:1] == "/" else ""
    name = root + "/".join(part for part in path.split("/") if part not in ("", "."))
    return name or "."


def _store(db: str, source: str, kept: list[UrlColumns], issues: list[Issue]) -> None:
    from ..store.db import StoreError
    from ..store.record import store_read

    try:
        run = store_read(db, "<stdin>" if source == "-" else source, kept, issues)
    except StoreError as exc:
        _fail(str(exc))
    except Exception as exc:  # a DuckDB error: never a traceback
        _fail(f"cannot store the run in {db}: {type(exc).__name__}: {exc}")
    say(f"urlset read: stored as run {run} in {db}")


def _write_issues(path: str, issues: list[Issue]) -> None:
    import json

    try:
        with open(path, "w", encoding="utf-8") as f:
            json.dump([issue_dict(i) for i in issues], f, ensure_ascii=False, indent=1)
            f.write("\n")
    except OSError as exc:
        _fail(f"cannot write {path}: {exc.strerror or exc}")

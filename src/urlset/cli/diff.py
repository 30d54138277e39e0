"""``urlset diff OLD NEW``: what changed between two snapshots, sitemaps, sites or entry files.

Exit status: 0 no change, 1 changes (so a CI job can gate on it), 2 usage or I/O error.
"""

from __future__ import annotations

import io
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NoReturn

import click

from .streams import Output, need_report_extra, output_errors, target_name

if TYPE_CHECKING:
    from ..store.diff import Diff

FORMATS = ("text", "jsonl", "csv", "parquet", "html")


def _fail(message: str) -> NoReturn:
    click.echo(f"urlset diff: {message}", err=True)
    sys.exit(2)


@click.command("diff")
@click.argument("old")
@click.argument("new")
@click.option(
    "-f",
    "--format",
    "fmt",
    type=click.Choice(FORMATS),
    default="text",
    show_default=True,
    help="text: counts and examples; jsonl, csv, parquet: one row per changed loc; html: a "
    "report page with charts (the report extra).",
)
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write here, not stdout.")
@click.option(
    "--examples",
    type=click.IntRange(0, 10_000),
    default=5,
    show_default=True,
    help="Examples of each kind in the text output.",
)
@click.option("--site", help="Count DB@latest and DB@-N among this site's runs only.")
@click.option(
    "--moves",
    is_flag=True,
    help="Also report locs listed in another sitemap file than before (off: a build that "
    "names files by their content renames every file it changes; a move is no change of "
    "the site).",
)
@click.option("-q", "--quiet", is_flag=True, help="No summary on stderr (jsonl, csv, parquet).")
def diff(
    old: str,
    new: str,
    fmt: str,
    output: str | None,
    examples: int,
    site: str | None,
    moves: bool,
    quiet: bool,
) -> None:
    """Compare OLD with NEW: entries added, removed, changed (lastmod moved forward or back,
    other fields), and with --moves, moved between sitemaps.

    Each side is a stored run (DB@latest, DB@-1, DB@<run id>), a sitemap file or a
    directory of them, a site or sitemap URL (fetched), or a JSON Lines, CSV, TSV or Parquet
    file of entries (as `urlset read` and `urlset fetch` write them). Exit status: 0 no
    change, 1 changes, 2 usage or I/O error.
    """
    if fmt == "parquet" and output is None:
        raise click.UsageError("--format parquet writes a file: give -o FILE")
    if fmt == "html":
        need_report_extra()
    from ..store.db import StoreError
    from ..store.diff import compare
    from ..store.report import summary, write_parquet

    try:
        shown = examples if fmt == "text" else 0
        result = compare(old, new, examples=shown, site=site, moves=moves)
        if fmt == "parquet":
            assert output is not None
            write_parquet(result, output)
        else:
            _write(result, fmt, output, moves)
    except StoreError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"{exc.filename or 'I/O'}: {exc.strerror or exc}")
    except Exception as exc:  # a DuckDB error: never a traceback
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        _fail(f"{type(exc).__name__}: {first}")
    if fmt != "text" and not quiet:
        click.echo(summary(result, moves=moves), err=True, nl=False)
    sys.exit(1 if result.changed else 0)


def _write(result: Diff, fmt: str, output: str | None, moves: bool) -> None:
    from ..store.report import rows, summary_json, text, write_csv, write_jsonl

    try:
        stream = (
            open(output, "w", encoding="utf-8", newline="")  # noqa: SIM115
            if output
            else io.TextIOWrapper(sys.stdout.buffer, encoding="utf-8", newline="")
        )
    except OSError as exc:
        _fail(f"cannot write {output}: {exc.strerror or exc}")
    out = Output(stream, target_name(output))
    with output_errors("diff"):
        try:
            if fmt == "text":
                out.write(text(result, moves=moves))
            elif fmt == "html":
                from ..reports.diff import diff_html

                page = diff_html(
                    summary_json(result),
                    rows(result),
                    compared_sitemaps=result.compared_sitemaps,
                    made=datetime.now(UTC),
                )
                out.write(page)
            elif fmt == "jsonl":
                write_jsonl(result, out)
            else:
                write_csv(result, out)
            out.flush()
        finally:
            if output:
                out.close()
            else:
                stream.detach()

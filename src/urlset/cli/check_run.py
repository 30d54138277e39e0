"""What ``urlset check`` does once it runs, without click: the check of the files, directories
and URLs named, the report written in its format, and the exit status.

The command and its options are in ``check.py`` (what ``urlset check --help`` needs); the
console script's lean parse (cli/lean.py) runs this module without loading click at all. A
value the command itself refuses (a --now that is no date, a --base-url that is no URL) is
a ``UsageProblem``, raised before anything is written: check.py makes it click's usage
error, and the lean path hands the command line to click, which says it as it always has.
"""

from __future__ import annotations

import gc
import sys
import time
from dataclasses import replace
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, BinaryIO, NoReturn

from .streams import (
    Output,
    OutputError,
    UsageProblem,
    output_errors,
    report_extra_missing,
    say,
    target_name,
)

if TYPE_CHECKING:
    from ..checking.checker import CheckReport


def parse_now(text: str | None) -> datetime:
    """--now as a datetime with its zone (the clock's time when not given)."""
    if text is None:
        return datetime.now(UTC)
    value = text.strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime(day.year, day.month, day.day, tzinfo=UTC)
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise UsageProblem(
            f"{text!r} is not a date (YYYY-MM-DD) or a datetime with zone", "--now"
        ) from None
    if parsed.tzinfo is None:
        raise UsageProblem("give the zone, e.g. 2026-01-01T00:00:00Z", "--now")
    return parsed


def run(
    paths: tuple[str, ...],
    base_url: str | None,
    profile: str,
    fmt: str,
    fail_on: str,
    schema: bool,
    now: str | None,
    output: str | None,
    quiet: bool,
    deadline: float | None,
    allow_private: bool,
    sitemap_url: str | None,
) -> NoReturn:
    """``urlset check`` with the parameters click gives it: exits with the check's status."""
    moment = parse_now(now)
    if fmt == "html" and (missing := report_extra_missing()) is not None:
        raise UsageProblem(missing)
    try:
        code = _run(
            paths,
            base_url,
            profile,
            fmt,
            fail_on,
            schema,
            moment,
            output,
            deadline,
            quiet,
            allow_private,
            sitemap_url,
        )
    except UsageProblem:
        raise
    except Exception as exc:  # never a traceback: report and exit 2
        say(f"urlset check: {type(exc).__name__}: {exc}")
        code = 2
    sys.exit(code)


def _run(
    paths: tuple[str, ...],
    base_url: str | None,
    profile: str,
    fmt: str,
    fail_on: str,
    schema: bool,
    now: datetime,
    output: str | None,
    deadline: float | None,
    quiet: bool,
    allow_private: bool,
    sitemap_url: str | None,
) -> int:
    """``run``'s body, its ``now`` parsed: the check's exit status."""
    # loaded without the cyclic collector, then frozen out of its walks (as cli/lean.py
    # loads this module: here for the click command)
    gc.disable()
    try:
        from ..checking.checker import CheckOptions, check_paths
    finally:
        gc.freeze()
        gc.enable()
    from ..limits import profile as get_profile

    _check_urls_given(base_url, sitemap_url)
    options = CheckOptions(limits=get_profile(profile), base_url=base_url, now=now, schema=schema)
    if sitemap_url is not None:  # the files are served there; their URLs lie under base_url
        options = replace(options, base_url=sitemap_url, url_scope=base_url)
    urls = [p for p in paths if p.lower().startswith(("http://", "https://"))]
    local = [p for p in paths if p not in urls]
    stdin: BinaryIO | None = sys.stdin.buffer if "-" in local else None
    counter = None
    if fmt == "html":  # the report's URL charts count what the checker reads, as it reads
        from ..reports.gather import UrlCounter

        counter = UrlCounter()
    report = check_paths(local, replace(options, on_urls=counter), stdin=stdin)
    if urls:
        from ..fetching.http import HttpOptions
        from ..sitecheck.driver import check_site

        # --deadline bounds the whole run: each URL gets the time the ones before it left
        ends = None if deadline is None else time.monotonic() + deadline
        for url in urls:
            left = None if ends is None else max(ends - time.monotonic(), 0.001)
            http = HttpOptions(deadline=left, allow_private=allow_private)
            site = check_site(url, replace(options, base_url=None), http=http)
            report.files.extend(site.files)
            report.not_started.extend(site.not_started)
    # 2 only when the run could not start from an argument; what it found is 1
    status = 2 if report.not_started else 1 if report.failed(fail_on) else 0
    # a closed pipe still ends with the findings' status: the report was made
    with output_errors("check", closed_pipe_status=status):
        out = open_output(output)
        if fmt == "html":
            from ..reports.gather import check_page

            assert counter is not None
            out.write(check_page(report, options.limits, counter, now))
        elif fmt in ("json", "sarif"):
            import json  # the text report, the usual one, needs none

            found = (
                report.to_dict() if fmt == "json" else report.to_sarif(version=package_version())
            )
            json.dump(found, out, indent=2, ensure_ascii=False)
            out.write("\n")
        else:
            _text(report, out, quiet)
        out.flush()
        if output is not None:
            out.close()
    return status


def _check_urls_given(base_url: str | None, sitemap_url: str | None) -> None:
    """--base-url and --sitemap-url must be URLs, and --sitemap-url comes with --base-url."""
    from ..errors import InvalidValue
    from ..urls import to_uri

    for option, value in (("--base-url", base_url), ("--sitemap-url", sitemap_url)):
        if value is not None:
            try:
                to_uri(value, field=option[2:].replace("-", " ").replace("url", "URL"))
            except InvalidValue as exc:
                raise UsageProblem(str(exc), option) from None
    if sitemap_url is not None and base_url is None:
        raise UsageProblem("--sitemap-url needs --base-url, the URLs' scope")


def open_output(output: str | None) -> Output:
    """Standard output, or the file ``output`` (check and audit write their reports there)."""
    if output is None:
        return Output(sys.stdout, target_name(None))
    try:
        return Output(open(output, "w", encoding="utf-8"), output)
    except OSError as exc:
        raise OutputError(output, exc) from exc


def package_version() -> str:
    """urlset's version, as a SARIF log names the tool: the compiled core's, which the
    package's metadata takes (rust/Cargo.toml; importlib.metadata cost a small check ~45%
    of its instructions)."""
    from .._core import VERSION

    return VERSION


def _text(report: CheckReport, out: Output, errors_only: bool) -> None:
    from ..checking.text import report_lines

    for line in report_lines(report, errors_only=errors_only):
        out.write(line + "\n")

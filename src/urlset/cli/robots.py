"""``urlset robots FILE --sitemap URL...``: add, update and take out ``Sitemap:`` lines;
``urlset robots URL-or-FILE --check``: check a robots.txt against the sitemaps it names;
``urlset robots URL-or-FILE --test URL --user-agent A``: which URLs each agent may fetch.

Exit status: 0 written (or checked clean, or all allowed), 1 the check found problems (or a
URL is disallowed), 2 usage or I/O error.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, BinaryIO, TextIO

import click

from .streams import Output, output_errors, target_name

if TYPE_CHECKING:
    from ..announce.robots_policy import Policy
    from ..announce.robots_verify import RobotsCheckReport, RobotsMatrix


@click.command(
    "robots", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100}
)
@click.argument("target", metavar="FILE_OR_URL")
@click.option(
    "--sitemap",
    "sitemaps",
    multiple=True,
    metavar="URL",
    help="A sitemap (index) URL robots.txt must name; repeat for several.",
)
@click.option(
    "--remove", multiple=True, metavar="URL", help="Take out the Sitemap: line of this URL."
)
@click.option(
    "--replace-prefix",
    metavar="URL",
    help="Also take out the other Sitemap: lines whose URL starts with this (an earlier "
    "build's indexes); the new lines take their place.",
)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="'AGENT...: RULE, ...'",
    help="Give these user agents a group holding exactly these rules, e.g. 'Googlebot: "
    "disallow /private/, allow /private/public' or 'GPTBot CCBot: disallow /'; repeat for "
    "several groups.",
)
@click.option(
    "--policy-file",
    type=click.File("rb"),
    help="Groups to write, as in robots.txt (User-agent lines, then Allow and Disallow "
    "lines), each applied as a --policy.",
)
@click.option("--check", is_flag=True, help="Check the robots.txt instead of editing it.")
@click.option(
    "--test",
    "tests",
    multiple=True,
    metavar="URL",
    help="Say whether each --user-agent may fetch this URL (or path), and which rule on "
    "which line decides; repeat for several. Exit status 1 when any is disallowed.",
)
@click.option(
    "--test-file",
    type=click.File("r", encoding="utf-8-sig"),
    help="Like --test, for each URL of this file (one a line, '#' comments; '-' is stdin).",
)
@click.option(
    "--user-agent",
    "user_agents",
    multiple=True,
    metavar="AGENT",
    help="The crawler whose rules apply (default '*'): with --check one, with --test any "
    "number (a column each).",
)
@click.option(
    "--site",
    metavar="URL",
    help="With --check of a file: the site it is served at (default: the host of its first "
    "sitemap).",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json", "csv")),
    default="text",
    help="csv: with --test only (a row a URL and agent).",
)
def robots(
    target: str,
    sitemaps: tuple[str, ...],
    remove: tuple[str, ...],
    replace_prefix: str | None,
    policies: tuple[str, ...],
    policy_file: BinaryIO | None,
    check: bool,
    tests: tuple[str, ...],
    test_file: TextIO | None,
    user_agents: tuple[str, ...],
    site: str | None,
    fmt: str,
) -> None:
    """Add or update Sitemap: lines and User-agent groups in a robots.txt FILE, keeping every
    other byte; or, with --check, check a robots.txt (a FILE or an http(s) URL) against the
    sitemaps it names; or, with --test, say which URLs each user agent may fetch.

    Editing: each --sitemap URL gets a line unless one names it already; --remove takes a
    line out; each --policy sets the Allow and Disallow lines of the group of exactly its
    user agents (added when there is none; left as written when it holds them already);
    other lines are never touched. The file is replaced atomically (created when missing),
    and only when it changes: running the same edit twice changes nothing.

    Checking: the Sitemap: lines are complete URLs, each sitemap is reachable, is not
    disallowed, and lists only URLs its location allows (or, by cross-submission, URLs of
    the host whose robots.txt names it); URLs that robots.txt disallows for --user-agent
    are counted.

    Testing: for each --test URL (or path) and each --user-agent, allowed or disallowed, with
    the rule and line that decide (Google's rules: the most specific user agent's group, the
    longest matching path, Allow winning a tie), as text (a URL a row, an agent a column),
    JSON or CSV.

    Exit status: 0 ok (all allowed), 1 the check found problems (a URL is disallowed), 2
    usage or I/O error.
    """
    edits = bool(sitemaps or remove or replace_prefix or policies or policy_file)
    if tests or test_file is not None:
        if check or edits or site is not None:
            raise click.UsageError("--test reads a robots.txt; give it alone (with --user-agent)")
        sys.exit(_safely(_test, target, tests, test_file, user_agents or ("*",), fmt))
    if fmt == "csv":
        raise click.UsageError("--format csv is for --test")
    if check:
        if edits:
            raise click.UsageError("--check reads a robots.txt; it cannot be combined with edits")
        if len(user_agents) > 1:
            raise click.UsageError("--check takes one --user-agent (--test takes several)")
        agent = user_agents[0] if user_agents else "*"
        sys.exit(_safely(_check, target, site, agent, fmt))
    if site is not None:
        raise click.UsageError("--site is for --check")
    if user_agents:
        raise click.UsageError("--user-agent is for --check and --test")
    if not edits:
        raise click.UsageError(
            "give --sitemap URL (or --remove URL) or --policy, or --check, or --test URL"
        )
    if target.lower().startswith(("http://", "https://")):
        raise click.UsageError("edit a file: give the robots.txt path, not a URL")
    groups = _policies(policies, policy_file)
    sys.exit(_safely(_edit, target, sitemaps, remove, replace_prefix, groups, fmt))


def _policies(given: tuple[str, ...], policy_file: BinaryIO | None) -> list[Policy]:
    from ..announce.robots_policy import parse_policy, parse_policy_file
    from ..errors import InvalidValue

    try:
        out = [parse_policy(text) for text in given]
    except InvalidValue as exc:
        raise click.BadParameter(str(exc), param_hint="--policy") from None
    if policy_file is not None:
        with policy_file:
            try:
                out += parse_policy_file(policy_file.read())
            except InvalidValue as exc:
                raise click.BadParameter(str(exc), param_hint="--policy-file") from None
    return out


def _safely(run: Callable[..., int], *args: Any) -> int:
    """Never a traceback: an unforeseen error is reported in one line, exit status 2."""
    try:
        return run(*args)
    except (click.ClickException, SystemExit):
        raise
    except Exception as exc:
        click.echo(f"urlset robots: {type(exc).__name__}: {exc}", err=True)
        return 2


def _edit(
    path: str,
    sitemaps: tuple[str, ...],
    remove: tuple[str, ...],
    prefix: str | None,
    policies: list[Policy],
    fmt: str,
) -> int:
    from ..announce.robots_file import update_robots_file
    from ..errors import InvalidValue, PublishError
    from ..urls import to_uri

    try:
        start = None if prefix is None else to_uri(prefix, field="--replace-prefix")
        owns = None if start is None else (lambda url: url.startswith(start))
        edit = update_robots_file(path, sitemaps, remove, replace=owns, policies=policies)
    except InvalidValue as exc:
        fix = "" if exc.field.startswith("policy") else "; give absolute http(s) URLs"
        click.echo(f"urlset robots: {exc}{fix} (the file was left as it was)", err=True)
        return 2
    except PublishError as exc:
        click.echo(f"urlset robots: {exc}; nothing was changed", err=True)
        return 2
    out = Output(sys.stdout, target_name(None))
    with output_errors("robots"):
        if fmt == "json":
            summary = {
                "file": path,
                "changed": edit.changed,
                "added": list(edit.added),
                "removed": list(edit.removed),
                "already_listed": list(edit.present),
                "groups": [
                    {"user_agents": list(g.agents), "change": g.change, "line": g.line}
                    for g in edit.groups
                ],
            }
            out.write(json.dumps(summary, indent=2) + "\n")
            return 0
        for url in edit.added:
            out.write(f"added    Sitemap: {url}\n")
        for url in edit.removed:
            out.write(f"removed  Sitemap: {url}\n")
        for url in edit.present:
            out.write(f"kept     Sitemap: {url} (already listed)\n")
        for g in edit.groups:
            said = {"added": "added   ", "replaced": "rewrote ", "unchanged": "kept    "}[g.change]
            why = " (already so)" if g.change == "unchanged" else ""
            out.write(f"{said} User-agent: {', '.join(g.agents)} at line {g.line}{why}\n")
        out.write(f"{path}: {'updated' if edit.changed else 'unchanged'}\n")
    return 0


def _check(target: str, site: str | None, user_agent: str, fmt: str) -> int:
    from ..announce.robots_verify import check_robots_sync
    from ..errors import InvalidValue

    try:
        report = check_robots_sync(target, site=site, user_agent=user_agent)
    except InvalidValue as exc:
        click.echo(f"urlset robots: {exc}", err=True)
        return 2
    except OSError as exc:
        click.echo(f"urlset robots: cannot read {target}: {exc.strerror or exc}", err=True)
        return 2
    unreadable = any(i.code == "robots-unavailable" for i in report.issues)
    status = 2 if unreadable else 1 if report.problems else 0
    out = Output(sys.stdout, target_name(None))
    with output_errors("robots", closed_pipe_status=status):
        if fmt == "json":
            out.write(json.dumps(_as_json(report), indent=2, ensure_ascii=False) + "\n")
        else:
            _text(report, out)
    return status


def _as_json(report: RobotsCheckReport) -> dict[str, object]:
    return {
        "robots": report.source,
        "served_at": report.robots_url,
        "user_agent": report.user_agent,
        "issues": [
            {
                "code": i.code,
                "severity": i.severity.value,
                "line": i.line or None,
                "message": i.message,
                "hint": i.hint or None,
            }
            for i in report.issues
        ],
        "sitemaps": [
            {
                "url": t.url,
                "line": t.line,
                "sitemaps_read": t.sitemaps_read,
                "failed": t.failed,
                "urls": t.urls,
                "out_of_scope": t.out_of_scope,
                "blocked": t.blocked,
                "cross_submitted": t.cross_submitted,
            }
            for t in report.tallies
        ],
    }


def _text(report: RobotsCheckReport, out: Output) -> None:
    from ..model import Severity

    where = f" (served at {report.robots_url})" if report.robots_url else ""
    out.write(f"{report.source}{where}: {len(report.tallies)} sitemaps named\n")
    for t in report.tallies:
        state = "unreachable" if t.failed and not t.sitemaps_read else f"{t.urls:,} URLs"
        files = f" in {t.sitemaps_read} files" if t.sitemaps_read > 1 else ""
        out.write(f"  line {t.line:>4}  {t.url}: {state}{files}\n")
    for i in report.issues:
        line = f"line {i.line}" if i.line else "-"
        out.write(f"  {line:>9}  {i.severity.value:<7}  {i.code}: {i.message}\n")
        if i.hint:
            out.write(f"  {'':>9}  {'':<7}  hint: {i.hint}\n")
    errors, warnings = report.count(Severity.ERROR), report.count(Severity.WARNING)
    urls = sum(t.urls for t in report.tallies)
    out.write(
        f"checked {len(report.tallies)} sitemaps, {urls:,} URLs for user agent "
        f"{report.user_agent!r}: {errors} errors, {warnings} warnings\n"
    )


def _listed(stream: TextIO | None) -> list[str]:
    """The URLs of a --test-file: one a line, blank lines and '#' comments left out."""
    if stream is None:
        return []
    with stream:
        lines = (line.strip() for line in stream)
        return [line for line in lines if line and not line.startswith("#")]


def _test(
    target: str, tests: tuple[str, ...], listed: TextIO | None, agents: tuple[str, ...], fmt: str
) -> int:
    from ..announce.robots_verify import robots_matrix_sync
    from ..errors import InvalidValue

    try:
        urls = list(dict.fromkeys([*tests, *_listed(listed)]))  # each URL a row
    except UnicodeDecodeError as exc:
        click.echo(f"urlset robots: --test-file is not UTF-8 text ({exc.reason})", err=True)
        return 2
    if not urls:
        click.echo("urlset robots: --test-file holds no URL", err=True)
        return 2
    try:
        matrix = robots_matrix_sync(target, urls, agents)
    except InvalidValue as exc:
        click.echo(f"urlset robots: {exc}; give URLs of that site, or paths", err=True)
        return 2
    except OSError as exc:
        click.echo(f"urlset robots: cannot read {target}: {exc.strerror or exc}", err=True)
        return 2
    status = 1 if matrix.disallowed else 0
    out = Output(sys.stdout, target_name(None))
    with output_errors("robots", closed_pipe_status=status):
        if fmt == "json":
            found = {
                "robots": matrix.source,
                "served_at": matrix.robots_url,
                "note": matrix.note or None,
                "disallowed": matrix.disallowed,
                "verdicts": [v.as_dict() for v in matrix.verdicts],
            }
            out.write(json.dumps(found, indent=2, ensure_ascii=False) + "\n")
        elif fmt == "csv":
            _csv(matrix, out)
        else:
            _matrix_text(matrix, agents, out)
    return status


def _csv(matrix: RobotsMatrix, out: Output) -> None:
    import csv
    import io

    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(("url", "user_agent", "allowed", "rule", "line", "group"))
    for v in matrix.verdicts:
        allowed = "true" if v.allowed else "false"
        writer.writerow((v.url, v.user_agent, allowed, v.rule or "", v.line or "", v.group or ""))
    out.write(text.getvalue())


def _matrix_text(matrix: RobotsMatrix, agents: tuple[str, ...], out: Output) -> None:
    """A URL a row, an agent a column: "allowed" or "disallowed", with the deciding line;
    then the rules those lines hold."""
    cells: dict[str, list[str]] = {}
    rules: dict[int, str] = {}
    for v in matrix.verdicts:
        where = f" ({'line ' + str(v.line) if v.line else v.rule})" if v.rule else ""
        cells.setdefault(v.url, []).append(f"{'allowed' if v.allowed else 'disallowed'}{where}")
        if v.line and v.rule:
            rules[v.line] = v.rule
    widths = [max(len("URL"), *(len(url) for url in cells))]
    widths += [
        max(len(agent), *(len(row[n]) for row in cells.values())) for n, agent in enumerate(agents)
    ]
    where = f" (served at {matrix.robots_url})" if matrix.robots_url else ""
    out.write(f"{matrix.source}{where}\n")
    if matrix.note:
        out.write(f"note: {matrix.note}\n")
    for row in (["URL", *agents], *([url, *row] for url, row in cells.items())):
        out.write("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        out.write("\n")
    for number in sorted(rules):
        out.write(f"line {number}: {rules[number]}\n")
    total = len(matrix.verdicts)
    out.write(f"{matrix.disallowed:,} of {total:,} disallowed\n")

"""``urlset watch SITE --every DURATION``: fetch, store, diff with the previous run, hand on.

Each run is fetched with the cache (unchanged sitemaps are not downloaded again), stored
(``--snapshot DB``, or in memory), and compared with the site's previous run; when something
changed, the diff goes to ``--exec CMD`` (rows as JSON Lines on its standard input, the
summary as JSON in ``URLSET_DIFF``) or is POSTed as JSON to ``--webhook URL``. SIGTERM or
SIGINT stops the loop: at once when waiting, after the run when fetching (a second signal
aborts the run, which then stores nothing). Exit status: 0 stopped, 2 usage or store error,
130 aborted by a second signal.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
from types import FrameType
from typing import TYPE_CHECKING, Any, NoReturn

import click

if TYPE_CHECKING:
    from ..store.watch import Outcome

_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(s|m|h|d|)")
HOOK_TIMEOUT = 30.0  # seconds for a webhook POST


def parse_duration(text: str) -> float:
    """``90``, ``90s``, ``5m``, ``1h``, ``1d`` or ``1h30m`` -> seconds."""
    parts = _DURATION.findall(text.strip().lower())
    if not parts or "".join(n + u for n, u in parts) != re.sub(r"\s", "", text.strip().lower()):
        raise click.BadParameter(f"{text!r}: a duration is like 30s, 5m, 1h, 1d or 1h30m")
    seconds = sum(float(n) * _UNITS[u] for n, u in parts)
    if seconds <= 0:
        raise click.BadParameter(f"{text!r}: the interval must be more than zero")
    return seconds


def _target(value: str) -> tuple[str, bool]:
    """The start URL, and whether it had no scheme (https, falling back to http)."""
    from ..errors import InvalidValue
    from ..urls import to_uri

    text = value.strip()
    bare = "://" not in text
    try:
        return to_uri("https://" + text if bare else text, field="URL"), bare
    except InvalidValue as exc:
        raise click.BadParameter(str(exc), param_hint="SITE_OR_SITEMAP_URL") from None


def _fail(message: str) -> NoReturn:
    click.echo(f"urlset watch: {message}", err=True)
    sys.exit(2)


@click.command("watch")
@click.argument("site", metavar="SITE_OR_SITEMAP_URL")
@click.option("--every", required=True, help="Time between runs: 30s, 5m, 1h, 1d, 1h30m.")
@click.option(
    "--snapshot",
    type=click.Path(dir_okay=False),
    help="Store every run in this DuckDB file (default: in memory, for this watch only).",
)
@click.option(
    "--cache",
    "cache_dir",
    type=click.Path(file_okay=False),
    help="Fetch cache (default: DB.cache beside --snapshot, else a temporary directory).",
)
@click.option("--exec", "command", help="Run this shell command when a run changed something.")
@click.option("--webhook", help="POST the diff summary as JSON to this URL when something changed.")
@click.option("--max-runs", type=click.IntRange(1), help="Stop after this many runs.")
@click.option("--examples", type=click.IntRange(0, 1000), default=5, show_default=True)
@click.option("--timeout", type=click.FloatRange(min=0.1), default=300.0, show_default=True)
@click.option("-q", "--quiet", is_flag=True, help="No line per run on stdout.")
def watch(
    site: str,
    every: str,
    snapshot: str | None,
    cache_dir: str | None,
    command: str | None,
    webhook: str | None,
    max_runs: int | None,
    examples: int,
    timeout: float,
    quiet: bool,
) -> None:
    """Fetch SITE_OR_SITEMAP_URL every so often, store each run, and report what changed.

    Exit status: 0 stopped (by a signal or --max-runs), 2 usage or store error, 130
    aborted by a second signal.
    """
    from ..fetching.http import HttpOptions
    from ..store.db import StoreError
    from ..store.watch import Watcher, WatchOptions

    try:
        interval = parse_duration(every)
    except click.BadParameter as exc:
        exc.param_hint = "--every"
        raise
    start, bare = _target(site)
    if webhook is not None and not webhook.lower().startswith(("http://", "https://")):
        raise click.BadParameter("must be an http(s) URL", param_hint="--webhook")
    temp = None
    if cache_dir is None:
        if snapshot is not None:
            cache_dir = snapshot + ".cache"
        else:
            temp = tempfile.TemporaryDirectory(prefix="urlset-watch-")
            cache_dir = temp.name
    from ..fetching.discovery import DiscoveryOptions

    options = WatchOptions(
        site=start,
        every=interval,
        db=snapshot or ":memory:",
        cache_dir=cache_dir,
        max_runs=max_runs,
        discovery=DiscoveryOptions(http_fallback=bare),
        http=HttpOptions(total_timeout=timeout, connect_timeout=min(10.0, timeout)),
        examples=examples,
    )
    stop = threading.Event()
    previous = _on_signals(stop)
    hand_on = _HandOn(command, webhook, quiet)
    try:
        Watcher(options, hand_on).loop(stop.wait)
    except KeyboardInterrupt:
        click.echo("urlset watch: aborted; the run in progress was not stored", err=True)
        sys.exit(130)
    except StoreError as exc:
        _fail(str(exc))
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if temp is not None:
            temp.cleanup()
    if not quiet:
        click.echo("urlset watch: stopped", err=True)


def _on_signals(stop: threading.Event) -> dict[int, Any]:
    """SIGTERM and SIGINT set ``stop`` (a second one aborts); returns the handlers replaced."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if stop.is_set():
            raise KeyboardInterrupt
        stop.set()
        click.echo(
            f"urlset watch: {signal.Signals(signum).name}: stopping after the run in progress",
            err=True,
        )

    previous: dict[int, Any] = {}
    for signum in (signal.SIGTERM, signal.SIGINT):
        previous[signum] = signal.signal(signum, handler)
    return previous


class _HandOn:
    """What each run leads to: a line on stdout, and the diff to --exec or --webhook."""

    def __init__(self, command: str | None, webhook: str | None, quiet: bool) -> None:
        self.command = command
        self.webhook = webhook
        self.quiet = quiet

    def __call__(self, outcome: Outcome) -> None:
        when = outcome.started.strftime("%Y-%m-%dT%H:%M:%SZ")
        if outcome.skipped is not None or outcome.run is None:
            click.echo(f"urlset watch: {when} run skipped: {outcome.skipped}", err=True)
            return
        line = f"{when} run {outcome.run.run_id}: {outcome.run.url_count:,} entries"
        diff = outcome.diff
        if diff is None:
            line += " (first run)"
        else:
            c = diff.counts
            line += (
                f"; added {c['added']:,}, removed {c['removed']:,}, changed {c['changed']:,},"
                f" moved {c['moved']:,} since run {outcome.previous.run_id if outcome.previous else '?'}"
            )
        if outcome.result is not None and outcome.result.partial:
            line += " (partial: some sitemaps failed)"
        if not self.quiet:
            click.echo(line)
        if diff is not None and diff.changed:
            self._send(outcome)

    def _payload(self, outcome: Outcome) -> dict[str, Any]:
        from ..store.report import summary_json

        assert outcome.diff is not None and outcome.run is not None
        data = summary_json(outcome.diff)
        data.update(
            site=outcome.run.site,
            run=outcome.run.run_id,
            previous_run=outcome.previous.run_id if outcome.previous else None,
            started=outcome.run.started,
        )
        return data

    def _send(self, outcome: Outcome) -> None:
        payload = json.dumps(self._payload(outcome), ensure_ascii=False, default=str)
        if self.command is not None:
            self._exec(outcome, payload)
        if self.webhook is not None:
            import urllib.request  # here: http.client and ssl load only when a webhook is sent

            request = urllib.request.Request(
                self.webhook,
                data=payload.encode(),
                headers={"Content-Type": "application/json"},
                method="POST",
            )
            try:
                with urllib.request.urlopen(request, timeout=HOOK_TIMEOUT) as answer:
                    answer.read()
            except (OSError, ValueError) as exc:
                click.echo(f"urlset watch: webhook {self.webhook} failed: {exc}", err=True)

    def _exec(self, outcome: Outcome, payload: str) -> None:
        import io

        from ..store.report import write_jsonl

        assert outcome.diff is not None and outcome.run is not None
        rows = io.StringIO()
        write_jsonl(outcome.diff, rows)
        env = dict(os.environ, URLSET_DIFF=payload, URLSET_SITE=outcome.run.site)
        env["URLSET_RUN"] = str(outcome.run.run_id)
        try:
            done = subprocess.run(
                self.command or "",
                shell=True,
                input=rows.getvalue().encode(),
                env=env,
                check=False,
            )
        except OSError as exc:
            click.echo(f"urlset watch: --exec failed: {exc}", err=True)
            return
        if done.returncode:
            click.echo(f"urlset watch: --exec exited with status {done.returncode}", err=True)

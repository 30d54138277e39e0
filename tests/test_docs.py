"""Every code example of the documentation site (docs/) and of README.md runs, with sybil.

Each page is one test: its ``python`` and ``sh`` blocks run in order in a new temporary
directory, sharing one namespace (a block may use what an earlier one made). ``sh`` blocks run
in bash with this environment's ``urlset`` first on PATH and fail on the first failing command.
A page prepares what its examples assume (a published set, a site to fetch) in hidden blocks,
``<!-- invisible-code-block: python ... -->``; a block that cannot run here says why in
``<!-- skip: next "reason" -->``. A page may map the example site to a loopback server it
starts, ``serve(directory)``: the ``sh`` blocks then run against that server with the URLs they
show (``replace``, shown text -> text run; also for paths such as /var/log/nginx/).
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import os
import shutil
import subprocess
import sys
import threading
import unittest
from pathlib import Path
from typing import Any

import pytest
from mkdocs.exceptions import PluginError
from sybil import Example, Sybil
from sybil.parsers.markdown import CodeBlockParser, PythonCodeBlockParser, SkipParser

ROOT = Path(__file__).resolve().parents[1]
# README.md joins once it says so: its long reference moved to docs/, and what stays (the
# tour) is written to run; the mark keeps a README without it from failing here meanwhile.
README_MARK = "<!-- Every code block below runs as a test: tests/test_docs.py -->"
PAGES = sorted((ROOT / "docs").rglob("*.md"))
if README_MARK in (ROOT / "README.md").read_text(encoding="utf-8"):
    PAGES.insert(0, ROOT / "README.md")


def run_shell(example: Example) -> str | None:
    namespace: dict[str, Any] = example.namespace
    script = str(example.parsed)
    for shown, served in namespace.get("replace", {}).items():
        script = script.replace(shown, served)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["URLSET_REPO"] = str(ROOT)
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", script],
        cwd=namespace["cwd"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    namespace["shell_output"] = done.stdout
    if done.returncode != 0:
        return (
            f"{example.path}:{example.line}: exit status {done.returncode}\n"
            f"{script}\n--- stdout\n{done.stdout[-3000:]}\n--- stderr\n{done.stderr[-3000:]}"
        )
    return None


# the example site's spellings in the docs, longest first
SHOWN_SITES = ("https://www.example.com", "https://example.com", "https://search.example")


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(
    namespace: dict[str, Any], directory: str | Path, shown: tuple[str, ...] = SHOWN_SITES
) -> str:
    """Serves ``directory`` on a loopback port until the page's test ends, and maps the example
    sites the page shows (``shown``) to it; returns its URL (``http://127.0.0.1:PORT``)."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    namespace.setdefault("cleanups", []).extend([server.server_close, server.shutdown])
    url = f"http://127.0.0.1:{server.server_address[1]}"
    namespace.setdefault("replace", {}).update(dict.fromkeys(shown, url))
    return url


def publish(directory: str | Path, base_url: str, robots: bool = True) -> Path:
    """A small published set (the example list) in ``directory``, with its robots.txt."""
    from urlset import write_sitemaps

    rows = (ROOT / "examples" / "urls.csv").read_text(encoding="utf-8").splitlines()[1:]
    base = base_url.rstrip("/") + "/"
    entries = [
        (row.split(",")[0].replace("https://www.example.com/", base), None, None, None)
        for row in rows
    ]
    out = Path(directory)
    report = write_sitemaps(entries, out, base)
    if robots:
        lines = "".join(f"Sitemap: {entry_point}\n" for entry_point in report.entry_points)
        (out / "robots.txt").write_text("User-agent: *\nAllow: /\n" + lines, encoding="utf-8")
    return out


def run(command: str, namespace: dict[str, Any]) -> str:
    """Runs a shell command as an example would (hidden set-up that needs the CLI)."""
    done = subprocess.run(
        ["bash", "-e", "-o", "pipefail", "-c", command],
        cwd=namespace["cwd"],
        env=dict(
            os.environ,
            PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
        ),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode in (0, 1), f"{command}: {done.stderr}"
    return done.stdout


SYBIL = Sybil(
    parsers=[
        PythonCodeBlockParser(),
        CodeBlockParser(language="sh", evaluator=run_shell),
        SkipParser(),
    ],
    path=str(ROOT),
)


def page_id(page: Path) -> str:
    return str(page.relative_to(ROOT))


def test_every_page_is_collected() -> None:
    names = {page_id(page) for page in PAGES}
    assert {"docs/index.md", "docs/getting-started.md", "docs/guides/publish.md"} <= names


@pytest.mark.slow  # a page runs commands end to end: scripts/check --quick leaves them out
@pytest.mark.parametrize("page", PAGES, ids=page_id)
def test_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    document = SYBIL.parse(page)
    namespace = document.namespace
    namespace.update(
        cwd=tmp_path,
        REPO=ROOT,
        serve=functools.partial(serve, namespace),
        publish=publish,
        run=functools.partial(run, namespace=namespace),
        copy=shutil.copy,
    )
    skipped = []
    try:
        for example in document.examples():
            try:
                example.evaluate()
            except unittest.SkipTest as reason:  # a `skip: next "reason"`: the next block only
                skipped.append(f"line {example.line}: {reason}")
    finally:
        for cleanup in reversed(document.namespace.get("cleanups", [])):
            cleanup()


def load_hook(name: str) -> Any:
    path = ROOT / "docs" / "hooks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"{name}_hook", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rule_table_page_lists_every_code() -> None:
    from urlset.checking.rules import all_codes

    table = load_hook("rules").rule_table()
    for code, row in all_codes().items():
        assert f"| `{code}` | {row.severity.value} |" in table


def test_the_rule_table_hook_fails_loudly_when_the_table_moves(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import urlset.checking.rules

    hook = load_hook("rules")
    monkeypatch.delattr(urlset.checking.rules, "all_codes")
    with pytest.raises(PluginError, match="all_codes"):
        hook.rule_table()


def test_the_benchmarks_page_charts_each_latest_table_from_its_own_figures() -> None:
    hook = load_hook("benchmarks")
    page = hook.with_charts((ROOT / "BENCHMARKS.md").read_text(encoding="utf-8"))
    sections = page.count("\n### Main on")
    assert sections >= 1
    assert page.count('<figure class="benchmark-chart"><svg') >= sections
    table = "| tool | URLs/s |\n|---|---:|\n| urlset | 2,000,000 |\n| peer | 100,000 |\n"
    drawn = hook.chart(["tool", "URLs/s"], [["urlset", "2,000,000"], ["peer", "100,000"]])
    assert drawn.startswith("<svg") and "urlset" in drawn
    with pytest.raises(PluginError, match="Main on"):
        hook.with_charts("## Build\n" + table)

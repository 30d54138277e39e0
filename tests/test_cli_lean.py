"""The console script's lean parse (cli/lean.py): its option tables are the click commands'
(``read`` and ``check``); it takes a ``urlset read`` command line only when click would parse
it to the same parameters, and the command then runs as it does under click, byte for byte,
without loading click (``check``'s: tests/test_cli_lean_check.py)."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path, PurePosixPath

import click
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import urlset
from urlset.cli import lean, streams
from urlset.cli.build import build
from urlset.cli.check import check
from urlset.cli.read import read
from urlset.cli.read_run import path_name

DOC = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    "<url><loc>https://shop.test/a?x=1&amp;y=2</loc><lastmod>2024-05-01T10:00:00+02:00"
    "</lastmod><changefreq>daily</changefreq><priority>0.8</priority></url>"
    "<url><loc>https://shop.test/b</loc><lastmod>2024-13-01</lastmod></url>"
    "</urlset>\n"
)


def click_params(args: list[str], command: click.Command = read) -> dict[str, object] | None:
    """What click parses ``args`` (after the command's name) to, or None for a usage error."""
    try:
        with command.make_context(command.name, list(args), resilient_parsing=False) as context:
            return dict(context.params)
    except click.exceptions.Exit:
        return None  # --help
    except click.UsageError:
        return None


# each command's required options, given so that click parses the plainest command line
REQUIRED = {"build": ["--base-url", "https://a.test/", "--out", "out"]}


@pytest.mark.parametrize(
    ("table", "command"), [(lean.READ, read), (lean.CHECK, check), (lean.BUILD, build)]
)
def test_the_option_table_is_the_click_commands(
    table: lean.Options, command: click.Command
) -> None:
    name = str(command.name)
    assert lean.COMMANDS[name] is table
    every = [p for p in command.params if isinstance(p, click.Option)]
    # an option whose value a callback converts is left to click (with any other the table
    # names so), its default given by the table
    assert {w for p in every if p.callback is not None for w in p.opts} <= set(table.to_click)
    options = [p for p in every if not set(p.opts) & set(table.to_click)]
    assert {w for p in every if p not in options for w in p.opts} == set(table.to_click)
    # nothing click would take from elsewhere, or count, or ask for
    assert all(p.expose_value and p.nargs == 1 and not p.count for p in options)
    assert not [p for p in options if p.envvar or p.prompt or p.is_eager]
    words = {word: p.name for p in options for word in p.opts}
    assert words == {**table.flags, **table.valued}
    assert {w: p.name for p in options for w in p.secondary_opts} == table.off
    assert {w for p in options if p.is_flag for w in p.opts} == set(table.flags)
    assert all(p.is_bool_flag for p in options if p.is_flag)  # True given, False not
    assert {p.name for p in options if p.multiple} == set(table.multiple)
    assert {p.name for p in command.params if p.required} == set(table.required)
    required = REQUIRED.get(name, [])
    given = dict(zip(required[::2], required[1::2], strict=True))
    assert click_params(["s.xml", *required], command) == {
        table.argument: ("s.xml",) if table.many else "s.xml",
        **table.defaults,
        **{words[word]: value for word, value in given.items()},
    }
    choices = {p.name: tuple(p.type.choices) for p in options if isinstance(p.type, click.Choice)}
    assert choices == table.choices
    assert {p.name: path_kind(p.type) for p in options if isinstance(p.type, click.Path)} == (
        table.paths
    )
    numbers = (click.types.IntParamType, click.types.FloatParamType)
    assert {p.name for p in options if isinstance(p.type, numbers)} == set(table.numbers)
    # every other option's value is click's plain string, taken as it is
    valued = {p.name for p in options if not p.is_flag} - {*choices, *table.paths, *table.numbers}
    assert {p.name for p in options if p.type is click.STRING} >= valued
    (argument,) = [p for p in command.params if isinstance(p, click.Argument)]
    assert (argument.name, argument.nargs == -1, argument.required) == (
        table.argument,
        table.many,
        table.argument in table.required,
    )


def path_kind(path: click.Path) -> str:
    """``Options.paths``' name for a click.Path that need not exist."""
    assert (path.exists, path.readable, path.executable) == (False, True, False)
    assert not (path.resolve_path or path.allow_dash or path.type)
    kinds = {
        (True, False, False): "file",
        (True, False, True): "writable file",
        (False, True, False): "directory",
    }
    return kinds[(not path.dir_okay, not path.file_okay, path.writable)]


NUMBERS = st.one_of(
    st.integers(-5, 300).map(str),
    st.sampled_from(["0", "00", "007", "1.5", ".5", "1.", "0.0", "+5", "1_0", "1e3", "inf"]),
    st.sampled_from(["nan", " 2", "2 ", "٣", "", "9" * 19, "9" * 18, "256", "257", "-0"]),
)


@settings(max_examples=300, deadline=None)
@given(NUMBERS)
def test_a_number_the_tables_take_is_the_one_click_converts(text: str) -> None:
    """A number's converter (``Options.numbers``) gives click's value, or None."""
    for table, command in ((lean.READ, read), (lean.CHECK, check), (lean.BUILD, build)):
        params = {p.name: p for p in command.params}
        for name, convert in table.numbers.items():
            value = convert(text)
            if value is not None:
                param = params[name]
                assert isinstance(param, click.Option)
                clicks = param.type.convert(text, param, None)
                assert (value, type(value)) == (clicks, type(clicks)), (name, text)


def test_the_plain_spellings_are_taken(tmp_path: Path) -> None:
    out = str(tmp_path / "out.jsonl")
    taken = [
        ["read", "s.xml"],
        ["read", "s.xml", "-o", out, "-q"],
        ["read", "-f", "csv", "s.xml.gz", "--verbose", "--max-bytes", "1000"],
        ["read", "-", "--format", "locs", "--issues-json", out, "--base-url", "https://a.test/"],
    ]
    for args in taken:
        assert lean.lean_params(args) == click_params(args[1:]) is not None, args


def test_every_other_spelling_goes_to_click(tmp_path: Path) -> None:
    given_dir = str(tmp_path)
    for args in (
        ["read"],
        ["read", "--help"],
        ["read", "s.xml", "-h"],
        ["read", "s.xml", "-qv"],
        ["read", "s.xml", "--format=csv"],
        ["read", "s.xml", "-fcsv"],
        ["read", "s.xml", "-f", "CSV"],
        ["read", "s.xml", "-o", given_dir],
        ["read", "s.xml", "--max-bytes", "0"],
        ["read", "s.xml", "--max-bytes", "1_000"],
        ["read", "s.xml", "-q", "-q"],
        ["read", "s.xml", "t.xml"],
        ["read", "--", "-s.xml"],
        ["read", "s.xml", "-o"],
        ["read", "s.xml", "-o", "-q"],
        ["read", "s.xml", "--snapshot-x", "a"],
        ["fetch", "s.xml"],
        ["--version"],
    ):
        assert lean.lean_params(args) is None, args


WORDS = st.sampled_from(
    [
        *lean.READ.flags,
        *lean.READ.valued,
        *lean.FORMATS,
        *("CSV", "json", "0", "7", "12", "-1", "+5", "1_0", "٣", "-", "--", "-x", "--help"),
        *("s.xml", "t.xml.gz", "out.csv", "https://a.test/", "", ".", "-qv", "--format=csv"),
    ]
)


@settings(max_examples=400, deadline=None)
@given(st.lists(WORDS, max_size=7))
def test_a_lean_parse_is_clicks(words: list[str]) -> None:
    """Any command line the lean parse takes, click parses to the same parameters."""
    taken = lean.lean_params(["read", *words])
    if taken is not None:
        assert taken == click_params(words), words


def run_console(
    args: list[str], cwd: Path, *, lean_path: bool = True, stdin: bytes = b""
) -> tuple[int, bytes, bytes]:
    """``urlset ARGS`` in a fresh interpreter, by the console script (the lean path when it
    takes the line) or by the click group; and whether click was loaded, said on stderr."""
    entry = "console" if lean_path else "main"
    code = (
        f"import gc, sys\nsys.argv[0] = 'urlset'\nfrom urlset.cli import {entry}\n"
        "try:\n    " + entry + "(sys.argv[1:])\n"
        "finally:\n    assert gc.isenabled()\n"
        "    sys.stderr.write('click loaded: %s' % ('click' in sys.modules))\n"
    )
    # the urlset this process imported (a relative PYTHONPATH, such as src, would be looked
    # for in ``cwd``, and another install found)
    tree = str(Path(urlset.__file__).resolve().parents[1])
    path = os.pathsep.join([tree, *filter(None, [os.environ.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": path},
    )
    return done.returncode, done.stdout, done.stderr


# (a command line, whether the lean path takes it): exit 0, 1 (an error in the document: the
# second lastmod; a limit hit) and 2 (the run's own usage and I/O errors, and click's)
LINES = [
    (["read", "s.xml"], True),
    (["read", "s.xml", "-q"], True),
    (["read", "s.xml.gz", "-f", "csv"], True),
    (["read", "s.xml", "-f", "tsv", "--verbose"], True),
    (["read", "s.xml.gz", "-f", "locs", "--max-bytes", "40"], True),
    (["read", "s.xml", "--base-url", "ftp://nope"], True),
    (["read", "missing.xml"], True),
    (["read", "s.xml", "-o", "out/none/x.jsonl"], True),
    (["read", "s.xml", "--issues-json", "issues.json"], True),
    (["read", "s.xml", "-o", "dir"], False),
    (["read", "s.xml", "-f", "bogus"], False),
    (["read", "--help"], False),
]


@pytest.mark.parametrize(("args", "taken"), LINES, ids=[" ".join(a) for a, _ in LINES])
def test_the_console_reads_as_the_click_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], taken: bool
) -> None:
    monkeypatch.chdir(tmp_path)  # where the lean parse below looks at the paths
    (tmp_path / "s.xml").write_text(DOC, encoding="utf-8")
    (tmp_path / "s.xml.gz").write_bytes(gzip.compress(DOC.encode()))
    (tmp_path / "dir").mkdir()
    code, out, err = run_console(args, tmp_path)
    issues = (tmp_path / "issues.json").read_bytes() if "--issues-json" in args else b""
    click_code, click_out, click_err = run_console(args, tmp_path, lean_path=False)
    assert (code, out) == (click_code, click_out)
    assert err.replace(b"click loaded: False", b"click loaded: True") == click_err
    if "--issues-json" in args:
        assert (tmp_path / "issues.json").read_bytes() == issues
    assert (lean.lean_params(args) is not None) == taken
    # the lean path ran without click; click ran the others
    assert err.endswith(b"click loaded: %s" % str(not taken).encode())


def test_a_message_with_an_escape_is_written_by_click(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """click strips escape sequences from a message for an output that is not a terminal;
    ``say`` leaves such a message to click, and writes any other as click would."""
    for message in ("plain words", "a \x1b[31mred\x1b[0m loc", "non-ASCII: ä"):
        streams.say(message)
        said = capsys.readouterr().err
        click.echo(message, err=True)
        assert said == capsys.readouterr().err
        assert "\x1b" not in said, message


@settings(max_examples=500, deadline=None)
@given(st.text(st.sampled_from("/.ab"), max_size=9))
def test_a_source_is_named_as_pathlib_names_it(path: str) -> None:
    """``urlset read`` names its source as ``str(Path(source))`` did, without pathlib."""
    assert path_name(path) == str(PurePosixPath(path))

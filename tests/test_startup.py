"""Start-up stays light: which modules a command loads, checked without timing anything.

Each case runs the real ``urlset`` entry point in a fresh interpreter and lists the modules
loaded when the command has finished; heavy libraries must load only where they are used
(BENCHMARKS.md, "Start-up", has the times).
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from test_fetch_support import LoopbackServer, gz, sitemapindex

# loads `urlset.cli.console` as the console script does, runs it, then prints sys.modules
# (listed before the probe's own json loads)
_PROBE = """
import sys
sys.argv = ["urlset", *sys.argv[1:]]
from urlset.cli import console
try:
    console()
except SystemExit as exit:
    code = exit.code
else:
    code = 0
modules = sorted(sys.modules)
import json
sys.stdout.flush()
sys.stderr.write("\\n" + json.dumps({"code": code, "modules": modules}) + "\\n")
"""

# libraries that cost tens of milliseconds each and that no command below needs
HEAVY = ("aiohttp", "numpy", "pandas", "pyarrow", "duckdb", "matplotlib", "dask", "rich")

TINY = (
    '<?xml version="1.0" encoding="UTF-8"?>\n'
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
    "<url><loc>https://shop.test/a?x=1&amp;y=2</loc><lastmod>2024-01-01</lastmod></url>"
    "</urlset>\n"
)


def loaded(*args: str, code: int = 0) -> set[str]:
    """The modules loaded once ``urlset ARGS`` has run (it must exit ``code``)."""
    return probed(*args, code=code)[0]


def probed(*args: str, code: int = 0) -> tuple[set[str], str]:
    """The modules loaded once ``urlset ARGS`` has run (it must exit ``code``), and what it
    wrote to standard error."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args], capture_output=True, text=True, timeout=120
    )
    *said, last = done.stderr.strip().splitlines()
    report = json.loads(last)
    assert report["code"] in ((0, None) if code == 0 else (code,)), done.stderr
    return set(report["modules"]), "\n".join(said)


def tops(modules: set[str]) -> set[str]:
    return {name.partition(".")[0] for name in modules}


@pytest.mark.parametrize(
    "args",
    [
        ("--help",),
        ("read", "--help"),
        ("check", "--help"),
        ("build", "--help"),
        ("fetch", "--help"),
        ("serve", "--help"),
        ("diff", "--help"),
        ("watch", "--help"),
    ],
    ids=lambda a: " ".join(a),
)
def test_help_loads_no_heavy_library(args: tuple[str, ...]) -> None:
    modules = loaded(*args)
    assert not tops(modules) & {*HEAVY, "lxml", "wsgiref"}, sorted(tops(modules) & {*HEAVY})


def test_top_level_help_loads_no_subcommand_and_no_parser() -> None:
    modules = loaded("--help")
    assert not {m for m in modules if m.startswith("urlset.") and m != "urlset.errors"} - {
        "urlset.cli",
        "urlset.cli.group",
    }
    # the URL parser, the compiled core, the values and asyncio are for commands that run
    assert not tops(modules) & {"ada_url", "asyncio", "lxml", "xml"}
    assert "urlset._core" not in modules and "urlset.model" not in modules


def test_import_urlset_loads_only_the_errors() -> None:
    code = (
        "import sys, urlset; print(sorted(m for m in sys.modules if m.startswith('urlset'))); "
        "print('typing' in sys.modules, 're' in sys.modules)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split("\n")[:2] == [str(["urlset", "urlset.errors"]), "False False"]


def test_fetch_help_loads_the_command_only() -> None:
    modules = loaded("fetch", "--help")
    # (with the options and keys the commands share: click and the errors only)
    assert urlset_modules(modules, "urlset") == {
        "urlset.errors",
        "urlset.cli",
        "urlset.cli.group",
        "urlset.cli.fetch",
        "urlset.cli.shared",
    }
    # the event loop, TLS and the parse threads are for a fetch that runs
    assert not tops(modules) & {"aiohttp", "asyncio", "ssl", "concurrent", "lxml"}


def test_a_fetch_loads_what_its_run_needs_only(tmp_path: Path) -> None:
    """A tiny site (robots.txt, an index, three children, one gzipped) is fetched by the
    lean client alone: no aiohttp, nor its yarl and multidict, nor any heavy library."""
    with LoopbackServer() as site:
        site.add("/robots.txt", b"User-agent: *\nSitemap: /index.xml\n", "text/plain")
        children = [site.url(f"/{n}.xml") for n in ("two", "three")]
        site.add("/index.xml", sitemapindex([site.url("/one.xml.gz"), *children]))
        site.add("/one.xml.gz", gz(TINY.encode()), "application/gzip")
        for child in children:
            site.add(child.removeprefix(site.base), TINY.encode())
        out = tmp_path / "urls.jsonl"
        modules = loaded("fetch", site.base, "-q", "-o", str(out))
        assert {path: site.hits[path] for path in site.hits} == {
            "/robots.txt": 1,
            "/index.xml": 1,
            "/one.xml.gz": 1,
            "/two.xml": 1,
            "/three.xml": 1,
        }
    lines = out.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["loc"] for line in lines] == ["https://shop.test/a?x=1&y=2"] * 3
    assert not tops(modules) & {*HEAVY, "yarl", "multidict"}, sorted(tops(modules) & {*HEAVY})
    assert "urlset.fetching.aio" not in modules
    # no cache, snapshot, report, --sites or --tree: none of their modules
    assert not modules & {"urlset.fetching.cache", "urlset.cli.fetch_sites", "urlset.dask"}
    assert not urlset_modules(modules, "urlset.store") | urlset_modules(modules, "urlset.reports")


def test_no_fetching_module_imports_aiohttp_at_its_top() -> None:
    """Every module of fetching/ but aio.py (the aiohttp session, imported on need) loads
    without aiohttp, nor its yarl and multidict."""
    package = Path(__file__).resolve().parents[1] / "src" / "urlset" / "fetching"
    names = sorted(f"urlset.fetching.{p.stem}" for p in package.glob("*.py") if p.stem != "aio")
    code = (
        f"import importlib, sys; [importlib.import_module(n) for n in {names!r}]; "
        "print(sorted(m for m in ('aiohttp', 'yarl', 'multidict') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert len(names) > 15 and done.stdout.strip() == "[]"


def test_a_fetch_loads_aiohttp_when_a_request_needs_it(tmp_path: Path) -> None:
    """An answer the lean client does not read (a Content-Encoding it has no decoder for)
    is asked again through aiohttp, imported then, so that the failure reads as it always
    did; the sitemaps before and after it are read all the same."""
    if any(importlib.util.find_spec(name) for name in ("brotli", "brotlicffi")):
        pytest.skip("aiohttp decodes br here")
    with LoopbackServer() as site:
        names = [f"/s{n}.xml" for n in range(12)]
        site.add("/index.xml", sitemapindex([site.url(n) for n in [*names, "/br.xml"]]))
        for n, name in enumerate(names):
            site.add(name, TINY.replace("/a?", f"/a{n}?").encode())
        site.add("/br.xml", b"\x0b\x02\x80hello\x03", headers={"Content-Encoding": "br"})
        out = tmp_path / "urls.jsonl"
        modules, said = probed("fetch", site.url("/index.xml"), "-o", str(out), code=1)
    locs = [json.loads(line)["loc"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(locs) == sorted(f"https://shop.test/a{n}?x=1&y=2" for n in range(len(names)))
    assert "Content-Encoding br" in said
    assert {"aiohttp", "urlset.fetching.aio"} <= modules


def test_read_and_check_of_a_small_file_skip_the_network_stack(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY, encoding="utf-8")
    for command in ("read", "check"):
        modules = loaded(command, str(sitemap))
        assert not tops(modules) & {*HEAVY, "http", "ssl"}, command
        assert "urllib.request" not in modules and "http.client" not in modules, command
        assert "email.utils" not in modules, command


def test_check_of_a_file_loads_nothing_of_the_build(tmp_path: Path) -> None:
    """The text report's sections load the build's file-name rule only for names that can
    be a section's file (``sitemap-blog-3-<hash>.xml.gz``): the writing stage costs a check
    ~50 ms of imports; not for any name with two dashes, as WordPress names its files."""
    for name in ("sitemap.xml", "wp-sitemap-posts-post-1.xml", "shape-plain-200000.xml"):
        sitemap = tmp_path / name
        sitemap.write_text(TINY, encoding="utf-8")
        modules = loaded("check", str(sitemap))
        assert not {m for m in modules if m.startswith("urlset.writing")}, name


def test_check_of_a_file_loads_no_pathlib(tmp_path: Path) -> None:
    """A file given by name is opened by that name: no pathlib, nor the urllib.parse and
    ipaddress it imports (~17M instructions, a twelfth of a small check); a directory, an
    index's children and SARIF's file URIs load it."""
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY, encoding="utf-8")
    for form in ("text", "json"):
        modules = loaded("check", str(sitemap), "--format", form)
        assert not modules & {"pathlib", "urllib.parse", "ipaddress"}, form
    assert "pathlib" in loaded("check", str(tmp_path))
    assert "pathlib" in loaded("check", str(sitemap), "--format", "sarif")


def test_check_of_a_plain_sitemap_loads_no_lxml(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY, encoding="utf-8")
    assert not tops(loaded("check", str(sitemap))) & {"lxml", "json"}  # json: --format json
    # an element out of order is named by libxml2's walk: there lxml loads
    sitemap.write_text(
        TINY.replace("<loc>https://shop.test/a?x=1&amp;y=2</loc>", "").replace(
            "</lastmod>", "</lastmod><loc>https://shop.test/a</loc>"
        ),
        encoding="utf-8",
    )
    assert "lxml" in tops(loaded("check", str(sitemap)))


def test_build_of_a_small_list_loads_no_heavy_library(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://shop.test/a\nhttps://shop.test/b?x=1&y=2\n", encoding="utf-8")
    out = tmp_path / "out"
    modules = loaded("build", "--base-url", "https://shop.test/", "--out", str(out), str(source))
    assert any(out.iterdir())  # the build ran
    assert not tops(modules) & {*HEAVY, "lxml", "ssl", "http"}, sorted(tops(modules) & {*HEAVY})


def test_lazy_values_still_import() -> None:
    import urlset

    assert urlset.Url("https://shop.test/ä").loc == "https://shop.test/%C3%A4"
    assert urlset.ChangeFreq("daily") is urlset.ChangeFreq.DAILY
    assert urlset.CURRENT.max_urls == 50_000
    assert urlset.InvalidValue is urlset.errors.InvalidValue


def urlset_modules(modules: set[str], under: str) -> set[str]:
    return {m for m in modules if m.startswith(under + ".")}


def test_read_help_loads_the_command_only() -> None:
    modules = loaded("read", "--help")
    # (the lean parse, cli/lean.py, hands --help to click; read.py takes its formats from it)
    assert urlset_modules(modules, "urlset") == {
        *("urlset.errors", "urlset.cli", "urlset.cli.group", "urlset.cli.lean"),
        "urlset.cli.read",
    }


def test_importing_the_extensions_package_loads_no_extension() -> None:
    code = (
        "import sys, urlset.extensions as e; assert e.SAFE_PARSER_OPTIONS['no_network']; "
        "print(sorted(m for m in sys.modules if m.startswith('urlset.extensions.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_sitemap_without_extensions_loads_none(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY, encoding="utf-8")
    assert urlset_modules(loaded("read", str(sitemap)), "urlset.extensions") == set()
    # check keeps one set-wide rule object for every document (a plain page can be the
    # return link of another file's alternate), without any extension module (nor numpy:
    # the set rule's engine is the compiled core's)
    assert urlset_modules(loaded("check", str(sitemap)), "urlset.extensions") == {
        "urlset.extensions.reciprocity",
        "urlset.extensions.set_checks",
    }


def test_a_sitemap_with_an_image_loads_the_extensions_it_needs(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(
        TINY.replace(
            "<urlset ", '<urlset xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
        ).replace(
            "</lastmod>",
            "</lastmod><image:image><image:loc>https://shop.test/a.png</image:loc></image:image>",
        ),
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "read", str(sitemap)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert json.loads(done.stdout.splitlines()[0])["images"] == [{"loc": "https://shop.test/a.png"}]
    modules = set(json.loads(done.stderr.strip().splitlines()[-1])["modules"])
    # extensions.PREFIXES names the namespace; the record is rendered by the core (its first
    # on the host too), so no extension value is made and no extension module is loaded
    assert not {m for m in modules if m.startswith("urlset.extensions.")}


def test_build_of_a_plain_csv_loads_only_what_it_uses(tmp_path: Path) -> None:
    """A CSV of the core columns is read by the core: no JSON reader; the staging directory
    is made and removed without tempfile and shutil (with random, bz2 and lzma: ~4 ms)."""
    source = tmp_path / "urls.csv"
    source.write_text("loc,lastmod\nhttps://shop.test/a,2024-05-06\n", encoding="utf-8")
    out = tmp_path / "out"
    modules = loaded("build", "--base-url", "https://shop.test/", "--out", str(out), str(source))
    assert [path.name for path in out.iterdir()] == ["sitemap.xml.gz"]  # staging removed
    assert not modules & {"json", "tempfile", "shutil", "filecmp", "random", "bz2", "lzma"}


def test_build_of_a_list_loads_neither_the_folder_walk_nor_the_stable_build(
    tmp_path: Path,
) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://shop.test/a\n", encoding="utf-8")
    out = tmp_path / "out"
    modules = loaded("build", "--base-url", "https://shop.test/", "--out", str(out), str(source))
    assert any(out.iterdir())
    assert not modules & {
        "urlset.sources.directory",
        "urlset.sources.page",
        "urlset.writing.update",
        "urlset.writing.stable",
        "urlset.writing.shards",
    }
    # URLs without extensions: no extension module but the set-wide hreflang report's
    assert urlset_modules(modules, "urlset.extensions") == {"urlset.extensions.reciprocity"}


def test_build_of_a_table_with_an_image_column_loads_the_extensions(tmp_path: Path) -> None:
    source = tmp_path / "urls.csv"
    source.write_text("loc,image_loc\nhttps://shop.test/a,https://shop.test/a.png\n", "utf-8")
    out = tmp_path / "out"
    modules = loaded("build", "--base-url", "https://shop.test/", "--out", str(out), str(source))
    assert b"<image:loc>https://shop.test/a.png</image:loc>" in gzip.decompress(
        (out / "sitemap.xml.gz").read_bytes()
    )
    # the image module names the namespace; the record is rendered by the core (its first
    # on the host too), so no extension value is made and the registry is not loaded
    assert "urlset.extensions.image" in modules


def test_static_option_choices_match_the_implementations() -> None:
    from urlset import limits
    from urlset.cli.lean import INPUT_FORMATS, PROFILES
    from urlset.cli.site_sources import LASTMOD_CHOICES
    from urlset.sources import directory
    from urlset.writing import sources

    assert LASTMOD_CHOICES == directory.LASTMOD_CHOICES
    assert INPUT_FORMATS == sources.FORMATS
    assert tuple(limits.PROFILES) == PROFILES


def test_extension_names_written_out_match_the_registry() -> None:
    from urlset import extensions
    from urlset.extensions import registry

    assert extensions.JSON_KEYS == registry.JSON_KEYS
    assert list(extensions.PREFIXES.items()) == list(registry.PREFIXES.items())


def test_fetch_option_defaults_match_the_implementations() -> None:
    from urlset.cli.fetch import DEFAULT_USER_AGENT, FORMATS, TREE_FORMATS, fetch
    from urlset.fetching import http_options
    from urlset.fetching.values import DiscoveryOptions
    from urlset.reading.output import RENDERERS

    assert DEFAULT_USER_AGENT == http_options.DEFAULT_USER_AGENT
    assert set(FORMATS) == {*RENDERERS, "parquet"} and "json" in TREE_FORMATS
    default = {p.name: p.default for p in fetch.params}
    http, discovery = http_options.HttpOptions(), DiscoveryOptions()
    assert default["user_agent"] == http.user_agent
    assert (default["concurrency"], default["per_host"]) == (http.concurrency, http.per_host)
    assert (default["timeout"], default["read_timeout"]) == (
        http.total_timeout,
        http.read_timeout,
    )
    assert default["retries"] + 1 == http.retry.attempts
    assert (default["max_depth"], default["max_sitemaps"], default["max_urls"]) == (
        discovery.max_depth,
        discovery.max_sitemaps,
        discovery.max_urls,
    )


def test_build_help_loads_neither_the_writer_nor_the_extensions() -> None:
    modules = loaded("build", "--help")
    assert not urlset_modules(modules, "urlset.writing"), sorted(modules)
    assert not urlset_modules(modules, "urlset.extensions")
    assert "urlset.model" not in modules and "urlset._core" not in modules
    # the options name the profiles and the formats as cli/lean.py writes them out: no
    # limits (with dataclasses), no source report, no glob (~15M instructions of its ~235M)
    assert not modules & {"urlset.limits", "urlset.sources.report", "dataclasses", "glob"}


def test_a_build_of_a_small_list_loads_no_click(tmp_path: Path) -> None:
    """The console script builds by the lean parse (cli/lean.py) too: no click (with its
    uuid, platform, gettext: ~60M instructions, a fifth of a small build), nor
    the modules of options not given: the site sources' report and glob, the included
    sitemaps', the stylesheet's. A value build refuses is said by click: it loads then."""
    source = tmp_path / "urls.txt"
    source.write_text("https://shop.test/a\nhttps://shop.test/b?x=1&y=2\n", encoding="utf-8")
    out = tmp_path / "out"
    build = ("build", str(source), "--base-url", "https://shop.test/", "--out", str(out))
    modules = loaded(*build)
    assert any(out.iterdir())  # the build ran
    assert not tops(modules) & {"click", "uuid", "platform", "gettext", "glob"}, sorted(modules)
    assert not modules & {
        *("urlset.cli.build", "urlset.cli.group", "urlset.cli.build_includes"),
        *("urlset.sources.report", "urlset.writing.stylesheet"),
    }
    assert "click" in tops(loaded(*build, "--timezone", "Nowhere/Bogus", code=2))


def test_a_plain_sitemap_read_by_the_compiled_lane_loads_no_lxml(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY, encoding="utf-8")
    modules = loaded("read", str(sitemap))
    assert not tops(modules) & {"lxml", "ada_url", "xml"}
    # the reader's modules, pinned: a new one on this path is a choice, not an accident
    assert urlset_modules(modules, "urlset.reading") == {
        f"urlset.reading.{name}"
        for name in (
            *("columns", "output", "reader", "rendered", "sink", "sniff", "text", "xml_common"),
            *("xml_compiled", "xml_elements", "xml_feeds", "xml_full", "xml_guard"),
            *("xml_prolog", "xmlbody", "run_issues"),
        )
    }


def test_a_read_of_a_plain_sitemap_loads_neither_click_nor_what_it_does_not_use(
    tmp_path: Path,
) -> None:
    """The console script reads by the lean parse (cli/lean.py): no click (with its inspect,
    ast, uuid: ~60M instructions); the core renders every entry: no json, csv, pathlib or
    urllib.parse (~25M). Written to CSV, the csv module loads."""
    sitemap = tmp_path / "sitemap.xml.gz"
    sitemap.write_bytes(gzip.compress(TINY.encode()))
    out = tmp_path / "out.jsonl"
    modules = loaded("read", str(sitemap), "-o", str(out), "-q")
    assert json.loads(out.read_text(encoding="utf-8"))["loc"] == "https://shop.test/a?x=1&y=2"
    assert not tops(modules) & {"click", "json", "csv", "pathlib", "urllib"}, sorted(modules)
    assert "csv" in loaded("read", str(sitemap), "-o", str(out), "-f", "csv")


def test_a_check_of_a_plain_sitemap_loads_no_click(tmp_path: Path) -> None:
    """The console script checks by the lean parse (cli/lean.py) too: no click (with its
    uuid, platform, gettext: ~50M instructions, a fifth of a small check), nor json for the
    text report; under ``--format json`` json loads, still without click."""
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY, encoding="utf-8")
    out = tmp_path / "report.txt"
    now = ("--now", "2026-11-29T00:00:00Z")
    modules = loaded("check", str(sitemap), "-o", str(out), "-q", *now)
    assert out.read_text(encoding="utf-8") == ""  # -q: no errors, so nothing written
    assert not tops(modules) & {"click", "json", "uuid", "platform"}, sorted(modules)
    modules = loaded("check", str(sitemap), "--format", "json", *now)
    assert "json" in tops(modules) and "click" not in tops(modules)
    # a value check refuses is said by click: it loads then
    assert "click" in tops(loaded("check", str(sitemap), "--now", "soon", code=2))


def test_a_sitemap_the_compiled_lane_hands_over_loads_lxml(tmp_path: Path) -> None:
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY.replace("</urlset>", "<!-- <x> --></urlset>"), encoding="utf-8")
    assert "lxml" in tops(loaded("read", str(sitemap)))  # the check above could fail


def test_build_with_a_plain_base_url_loads_no_url_parser(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("https://shop.test/a\nhttps://shop.test/b?x=1&y=2\n", encoding="utf-8")
    out = tmp_path / "out"
    modules = loaded("build", "--base-url", "https://shop.test/", "--out", str(out), str(source))
    assert any(out.iterdir())
    assert "ada_url" not in tops(modules)


def test_a_text_sitemap_loads_no_xml_lane(tmp_path: Path) -> None:
    listing = tmp_path / "sitemap.txt"
    listing.write_text("https://shop.test/a\nhttps://shop.test/b?x=1&y=2\n", encoding="utf-8")
    modules = loaded("read", str(listing))
    assert "lxml" not in tops(modules)
    assert not modules & {"urlset.reading.xml_full", "urlset.reading.xml_compiled"}


def test_the_extension_modules_are_attributes_of_the_package_before_import() -> None:
    code = (
        "import pathlib, types, urlset.extensions as ext\n"
        "names = sorted(p.stem for p in pathlib.Path(ext.__file__).parent.glob('[a-z]*.py'))\n"
        "assert all(isinstance(getattr(ext, n), types.ModuleType) for n in names), names\n"
        "assert ext.image.Image is ext.Image and ext.registry.REGISTRY is ext.REGISTRY\n"
        "print(len(names))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert int(done.stdout) >= 11


# runs ``urlset ARGS`` as _PROBE does, then names each lazy pattern of urlset that was compiled
_COMPILED_PROBE = _PROBE.replace(
    'sys.stderr.write("\\n" + json.dumps({"code": code, "modules": modules}) + "\\n")',
    """from urlset.patterns import Lazy
compiled = sorted(
    f"{name}.{attr}"
    for name, module in list(sys.modules.items())
    if name.startswith("urlset.")
    for attr, value in list(vars(module).items())
    if isinstance(value, Lazy) and "_compiled" in vars(value)
)
sys.stderr.write("\\n" + json.dumps({"code": code, "compiled": compiled}) + "\\n")""",
)


def compiled_patterns(*args: str) -> set[str]:
    """The module-level patterns compiled once ``urlset ARGS`` has run (it must exit 0)."""
    assert "compiled" in _COMPILED_PROBE  # the replace above found its line
    done = subprocess.run(
        [sys.executable, "-c", _COMPILED_PROBE, *args], capture_output=True, text=True, timeout=120
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] in (0, None), done.stderr
    return set(report["compiled"])


# what a plain XML document's head needs (the prolog, the root start tag)
_HEAD = {
    f"urlset.reading.xml_prolog.{name}"
    for name in ("_DEFAULT_NS", "_ENCODING", "_START_TAG", "_WS", "_WS_BOM")
}


def test_a_short_command_compiles_only_the_patterns_it_uses(tmp_path: Path) -> None:
    """Each pattern costs its compilation (re's parser, in Python) when first used, not at
    import: what these commands compile is pinned, so a new one on their path is a choice."""
    sitemap = tmp_path / "sitemap.xml"
    sitemap.write_text(TINY, encoding="utf-8")
    listing = tmp_path / "urls.txt"
    listing.write_text("https://shop.test/a\nhttps://shop.test/b?x=1&y=2\n", encoding="utf-8")
    assert compiled_patterns("read", str(sitemap)) == _HEAD
    assert compiled_patterns("check", str(sitemap)) == {
        *_HEAD,
        "urlset.checking.rules._DECLARATION",
    }
    # a text sitemap's lines are the core's to render: only sniffing it is Python's
    assert compiled_patterns("read", str(listing)) == {"urlset.reading.sniff._URL_LINE"}
    out = tmp_path / "out"
    build = ("build", "--base-url", "https://shop.test/", "--out", str(out), str(listing))
    assert compiled_patterns(*build) == {"urlset.urls._PLAIN_ORIGIN"}
    # a document the compiled lane hands over: the full lane's patterns are compiled then
    # (its values' checks)
    sitemap.write_text(TINY.replace("<url>", "<!-- <x> --><url>"), encoding="utf-8")
    assert "urlset.reading.sink._FAST_URI" in compiled_patterns("read", str(sitemap))


def test_the_extension_modules_compile_no_pattern_at_import() -> None:
    """A check that meets an extension loads the four modules (~50M instructions); their
    patterns are compiled at their first use, not at import."""
    code = (
        "import re, sys, urlset.extensions.rules, urlset.extensions.fastlane\n"
        "print(sorted(f'{n}.{a}' for n, m in list(sys.modules.items())"
        " if n.startswith('urlset.extensions.') for a, v in vars(m).items()"
        " if isinstance(v, re.Pattern)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_a_lazy_pattern_answers_as_the_compiled_one() -> None:
    import re

    from urlset.patterns import lazy

    cases = [
        (r"(?P<y>\d{4})-(\d{2})", 0, "on 2024-01 and 2025-02"),
        (r"https?://", re.IGNORECASE, "HTTP://a http://b"),
        (rb"loc>([^<]*)</", 0, b"<loc>x</loc><loc>y</loc>"),
    ]
    for source, flags, text in cases:
        pattern, compiled = lazy(source, flags), re.compile(source, flags)
        assert "_compiled" not in vars(pattern)  # nothing compiled until it is used
        for method in ("search", "match", "fullmatch", "finditer"):
            for at in (0, 3):
                found = getattr(pattern, method)(text, at)
                expected = getattr(compiled, method)(text, at)
                if method == "finditer":
                    found, expected = list(found), list(expected)
                assert repr(found) == repr(expected), (source, method, at)
        assert pattern.findall(text) == compiled.findall(text)
        assert (pattern.pattern, pattern.flags, pattern.groups, pattern.groupindex) == (
            compiled.pattern,
            compiled.flags,
            compiled.groups,
            compiled.groupindex,
        )
    year = lazy(r"\d{4}")
    assert year.sub("Y", "2024-2025", count=1) == "Y-2025"
    assert year.sub(lambda m: m.group()[::-1], "2024") == "4202"


def test_a_diff_of_two_sitemap_files_loads_no_pandas(tmp_path: Path) -> None:
    """The sides go file -> Arrow (made from buffers) -> DuckDB: pyarrow's conversion of
    Python values, which imports pandas (a second or more), is never used."""
    old, new = tmp_path / "old.xml", tmp_path / "new.xml"
    old.write_text(TINY, encoding="utf-8")
    new.write_text(TINY.replace("2024-01-01", "2024-02-01"), encoding="utf-8")
    out = tmp_path / "diff.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, "diff", str(old), str(new), "-f", "jsonl", "-o", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    report = json.loads(done.stderr.strip().splitlines()[-1])
    assert report["code"] == 1  # a change found
    assert json.loads(out.read_text(encoding="utf-8"))["change"] == "changed"
    assert {"duckdb", "pyarrow"} <= tops(set(report["modules"]))
    assert "pandas" not in tops(set(report["modules"]))

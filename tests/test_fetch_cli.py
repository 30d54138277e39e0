"""``urlset fetch`` end to end: output formats, tree, exit status, no tracebacks."""

from __future__ import annotations

import csv
import io
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from test_fetch_support import LoopbackServer, gz, sitemapindex
from urlset.cli import main

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
FAST = ["--timeout", "3", "--read-timeout", "1", "--retries", "1"]


def detailed(server: LoopbackServer, n: int, prefix: str) -> bytes:
    rows = "".join(
        f"<url><loc>{server.url(f'/{prefix}/{i}')}</loc><lastmod>2024-03-0{1 + i % 9}</lastmod>"
        f"<changefreq>weekly</changefreq><priority>0.{i % 10}</priority></url>\n"
        for i in range(n)
    )
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>\n{rows}</urlset>\n'.encode()


@pytest.fixture
def site() -> Iterator[LoopbackServer]:
    with LoopbackServer() as server:
        server.add("/robots.txt", b"User-agent: *\nSitemap: /index.xml\n", "text/plain")
        server.add("/index.xml", sitemapindex([server.url("/one.xml"), server.url("/two.xml.gz")]))
        server.add("/one.xml", detailed(server, 5, "one"))
        server.add("/two.xml.gz", gz(detailed(server, 3, "two")), "application/gzip")
        yield server


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, ["fetch", *args], catch_exceptions=False)


def test_jsonl_to_stdout(site: LoopbackServer) -> None:
    result = invoke(site.base, *FAST)
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(rows) == 8
    first = next(r for r in rows if r["loc"] == site.url("/one/0"))
    assert first == {
        "loc": site.url("/one/0"),
        "lastmod": "2024-03-01",
        "changefreq": "weekly",
        "priority": 0.0,
        "sitemap": site.url("/one.xml"),
    }
    assert {r["sitemap"] for r in rows} == {site.url("/one.xml"), site.url("/two.xml.gz")}
    assert "complete" in result.stderr and "PARTIAL" not in result.stderr


@pytest.mark.parametrize("fmt", ["csv", "tsv", "locs"])
def test_other_formats_to_a_file(site: LoopbackServer, tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"urls.{fmt}"
    result = invoke(site.url("/index.xml"), "--format", fmt, "-o", str(out), *FAST)
    assert result.exit_code == 0, result.output
    assert result.stdout == ""
    text = out.read_text("utf-8")
    if fmt == "locs":
        assert sorted(text.split()) == sorted(
            [site.url(f"/one/{i}") for i in range(5)] + [site.url(f"/two/{i}") for i in range(3)]
        )
        return
    rows = list(csv.reader(io.StringIO(text), delimiter="," if fmt == "csv" else "\t"))
    assert rows[0] == ["loc", "lastmod", "changefreq", "priority", "extensions", "sitemap"]
    assert len(rows) == 9
    assert [site.url("/two/2"), "2024-03-03", "weekly", "0.2", "", site.url("/two.xml.gz")] in rows


@pytest.mark.parametrize("fmt", ["csv", "tsv", "jsonl"])
def test_fetched_urls_build_again(site: LoopbackServer, tmp_path: Path, fmt: str) -> None:
    """What fetch writes, its ``sitemap`` column included, is a build input as it is."""
    fetched = tmp_path / f"urls.{fmt}"
    result = invoke(site.base, "--format", fmt, "-o", str(fetched), *FAST)
    assert result.exit_code == 0, result.output
    out = tmp_path / "out"
    build = ["build", str(fetched), "--base-url", site.url("/"), "--out", str(out), "--no-gzip"]
    built = CliRunner().invoke(main, build, catch_exceptions=False)
    assert built.exit_code == 0, built.output
    assert "skipped" not in built.output
    again = CliRunner().invoke(main, ["read", str(out / "sitemap.xml")], catch_exceptions=False)
    rows = [json.loads(line) for line in again.stdout.splitlines()]
    assert len(rows) == 8
    assert {
        "loc": site.url("/two/2"),
        "lastmod": "2024-03-03",
        "changefreq": "weekly",
        "priority": 0.2,
    } in rows


def test_parquet_output(site: LoopbackServer, tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is the optional 'arrow' extra")
    out = tmp_path / "urls.parquet"
    result = invoke(site.url("/index.xml"), "--format", "parquet", "-o", str(out), *FAST)
    assert result.exit_code == 0, result.output
    table = pq.read_table(out).to_pylist()
    assert len(table) == 8
    row = next(r for r in table if r["loc"] == site.url("/two/2"))
    assert (row["lastmod"], row["changefreq"], row["sitemap"]) == (
        "2024-03-03",
        "weekly",
        site.url("/two.xml.gz"),
    )
    assert float(row["priority"]) == 0.2
    stdout_only = invoke(site.url("/index.xml"), "--format", "parquet", *FAST)
    assert stdout_only.exit_code == 2 and "-o FILE" in stdout_only.output


def test_tree(site: LoopbackServer) -> None:
    result = invoke(site.base, "--tree", *FAST)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith(site.url("/robots.txt"))
    assert any(
        site.url("/index.xml") in ln and "sitemapindex" in ln and "2 sitemaps" in ln for ln in lines
    )
    assert any(
        site.url("/one.xml") in ln and "urlset" in ln and "5 URLs" in ln and "HTTP 200" in ln
        for ln in lines
    )
    assert lines[-1].endswith(": complete")


def test_some_sitemaps_failed_exit_1(site: LoopbackServer) -> None:
    site.add("/index.xml", sitemapindex([site.url("/one.xml"), site.url("/gone.xml")]))
    result = invoke(site.base, *FAST)
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 5  # what was read is still written
    assert f"failed: {site.url('/gone.xml')}: http-status: HTTP 404" in result.stderr
    assert "PARTIAL" in result.stderr
    tree = invoke(site.base, "--tree", *FAST)
    assert tree.exit_code == 1 and "PARTIAL" in tree.stdout and "[failed]" in tree.stdout


def test_cap_reached_is_partial(site: LoopbackServer) -> None:
    result = invoke(site.base, "--max-urls", "6", *FAST)
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 6
    assert "url-limit" in result.stderr and "PARTIAL" in result.stderr


def test_nothing_fetched_exit_2() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        result = invoke(f"http://127.0.0.1:{port}/sitemap.xml", *FAST)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "could not connect" in result.stderr and "nothing read" in result.stderr


def test_no_sitemap_anywhere_exit_2() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", b"User-agent: *\nDisallow:\n", "text/plain")
        result = invoke(server.base, *FAST)
    assert result.exit_code == 2
    assert "no-sitemaps" in result.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["ftp://example.com/sitemap.xml"],
        ["http://"],
        ["https://example.com", "--concurrency", "0"],
        ["https://example.com", "--format", "xml"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    result = invoke(*args)
    assert result.exit_code == 2
    assert "Traceback" not in result.output


def test_parquet_without_pyarrow_is_a_clear_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pyarrow is an optional extra; scripts/check installs every extra, so its absence is simulated
    import urlset.cli.fetch

    monkeypatch.setattr(urlset.cli.fetch, "_parquet_available", lambda: False)
    result = invoke("https://example.com", "--format", "parquet", "-o", str(tmp_path / "x"))
    assert result.exit_code == 2
    assert "pyarrow" in result.output


def test_unwritable_output_exit_2(site: LoopbackServer, tmp_path: Path) -> None:
    result = invoke(site.base, "-o", str(tmp_path / "missing-dir" / "out.jsonl"), *FAST)
    assert result.exit_code == 2
    assert "cannot write output" in result.stderr and "Traceback" not in result.output


def test_user_agent_is_sent(site: LoopbackServer) -> None:
    result = invoke(site.url("/one.xml"), "--user-agent", "test-bot/1.0", *FAST)
    assert result.exit_code == 0
    assert site.request_headers["/one.xml"][0]["User-Agent"] == "test-bot/1.0"


def test_custom_well_known(site: LoopbackServer) -> None:
    site.add("/robots.txt", b"User-agent: *\n", "text/plain")
    result = invoke(site.base, "--well-known", "/one.xml", *FAST)
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 5
    assert site.hits["/sitemap.xml"] == 0


def test_extensions_are_in_the_jsonl_output(tmp_path: Path) -> None:
    image_ns = "http://www.google.com/schemas/sitemap-image/1.1"
    with LoopbackServer() as server:
        doc = (
            '<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:image="{image_ns}">\n'
            f"<url><loc>{server.url('/p')}</loc><image:image><image:loc>{server.url('/i.png')}</image:loc>"
            "<image:title>A &amp; B</image:title></image:image></url>\n"
            f"<url><loc>{server.url('/q')}</loc></url>\n</urlset>\n"
        ).encode()
        server.add("/images.xml", doc)
        for workers in ("0", "1"):
            result = invoke(server.url("/images.xml"), "--workers", workers, *FAST)
            assert result.exit_code == 0, result.output
            rows = [json.loads(line) for line in result.stdout.splitlines()]
            assert rows[0]["images"] == [{"loc": server.url("/i.png"), "title": "A & B"}]
            assert "images" not in rows[1] and rows[1]["sitemap"] == server.url("/images.xml")


# ----------------------------------------------------------------------------- extensions in CSV/TSV
IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
XHTML_NS = "http://www.w3.org/1999/xhtml"
CAPTION = 'Caf\u00e9, "the best"\tin town\nsince 1901'


def tricky(server: LoopbackServer) -> bytes:
    """An image whose caption holds a comma, quotes, a tab and a line break; hreflang links;
    an element in an unknown namespace; plain URLs; a loc with a comma (which CSV quotes)."""
    page = server.url("/en/page")
    caption = CAPTION.replace("&", "&amp;").replace('"', "&quot;")
    image = (
        f"<image:image><image:loc>{server.url('/i.png')}</image:loc>"
        f"<image:caption>{caption}</image:caption></image:image>"
    )
    links = (
        f'<xhtml:link rel="alternate" hreflang="en" href="{page}"/>'
        f'<xhtml:link rel="alternate" hreflang="fr" href="{server.url("/fr/page")}"/>'
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<urlset {NS} xmlns:image="{IMAGE_NS}" xmlns:xhtml="{XHTML_NS}">\n'
        f"<url><loc>{page}</loc><lastmod>2024-05-01</lastmod>{image}{links}</url>\n"
        f"<url><loc>{server.url('/plain')}</loc><priority>0.5</priority></url>\n"
        f'<url><loc>{server.url("/a,b")}</loc><x:y xmlns:x="urn:x" k="v">t</x:y></url>\n'
        f"<url><loc>{server.url('/last')}</loc></url>\n"
        "</urlset>\n"
    ).encode()


EXTENSION_KEYS = ("images", "videos", "news", "alternates", "extensions")


def extension_fields(row: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in row.items() if k in EXTENSION_KEYS}


@pytest.mark.parametrize("workers", ["0", "1"])
@pytest.mark.parametrize(("fmt", "sep"), [("csv", ","), ("tsv", "\t")])
def test_csv_and_tsv_have_an_extensions_column(
    tmp_path: Path, fmt: str, sep: str, workers: str
) -> None:
    with LoopbackServer() as server:
        server.add("/sitemap.xml", tricky(server))
        url = server.url("/sitemap.xml")
        jsonl = invoke(url, "--workers", workers, *FAST)
        table = invoke(url, "--format", fmt, "--workers", workers, *FAST)
    assert jsonl.exit_code == 0 and table.exit_code == 0, table.output
    expected = [extension_fields(json.loads(line)) for line in jsonl.stdout.splitlines()]
    assert expected[0]["images"] == [{"loc": server.url("/i.png"), "caption": CAPTION}]
    rows = list(csv.reader(io.StringIO(table.stdout, newline=""), delimiter=sep))
    assert rows[0] == ["loc", "lastmod", "changefreq", "priority", "extensions", "sitemap"]
    assert len(rows) == 5 and {len(row) for row in rows} == {6}
    assert [row[0] for row in rows[1:]] == [
        server.url(p) for p in ("/en/page", "/plain", "/a,b", "/last")
    ]
    assert [json.loads(row[4]) if row[4] else {} for row in rows[1:]] == expected
    assert rows[2][4] == "" and rows[4][4] == ""  # no extensions: an empty cell
    assert {row[5] for row in rows[1:]} == {url}
    # the same cells as `urlset read`, in the same columns
    path = tmp_path / "sitemap.xml"
    path.write_bytes(tricky(server))
    read = CliRunner().invoke(main, ["read", str(path), "-f", fmt], catch_exceptions=False)
    assert read.exit_code == 0, read.output
    read_rows = list(csv.reader(io.StringIO(read.stdout, newline=""), delimiter=sep))
    assert read_rows == [row[:5] for row in rows]
    # byte for byte: the fast renderer quotes the JSON cell as csv.writer does
    assert read.stdout.splitlines() == [
        line.rsplit(sep, 1)[0] for line in table.stdout.splitlines()
    ]


def test_parquet_has_the_extensions_column(tmp_path: Path) -> None:
    pq = pytest.importorskip("pyarrow.parquet", reason="pyarrow is the optional 'arrow' extra")
    out = tmp_path / "urls.parquet"
    with LoopbackServer() as server:
        server.add("/sitemap.xml", tricky(server))
        result = invoke(server.url("/sitemap.xml"), "--format", "parquet", "-o", str(out), *FAST)
    assert result.exit_code == 0, result.output
    table = pq.read_table(out)
    assert table.column_names == [
        "loc",
        "lastmod",
        "changefreq",
        "priority",
        "extensions",
        "sitemap",
    ]
    cells = table.column("extensions").to_pylist()
    assert json.loads(cells[0])["images"][0]["caption"] == CAPTION
    assert cells[1] is None and json.loads(cells[2])["extensions"][0]["namespace"] == "urn:x"


def test_the_result_is_never_formatted_on_the_way_out(
    site: LoopbackServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Python 3.11's asyncio.run formats repr() of its main task, result and all, as it
    ends (signal.getsignal of its SIGINT handler): 0.27 s of a 500,000-URL fetch."""
    from urlset.fetching.values import DiscoveryResult

    formatted: list[int] = []

    def counted(self: DiscoveryResult) -> str:
        formatted.append(1)
        return "DiscoveryResult(...)"

    monkeypatch.setattr(DiscoveryResult, "__repr__", counted)
    result = invoke(site.base, *FAST)
    assert result.exit_code == 0, result.output
    assert len(result.stdout.splitlines()) == 8
    assert formatted == []


def test_run_loop_gives_the_result_and_the_error_as_asyncio_run() -> None:
    from urlset.fetching.running import run_loop

    async def answer() -> list[int]:
        return [1, 2]

    async def failing() -> None:
        raise LookupError("no such sitemap")

    assert run_loop(answer()) == [1, 2]
    with pytest.raises(LookupError, match="no such sitemap"):
        run_loop(failing())

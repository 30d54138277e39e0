"""``urlset read``: output formats, issues, exit status, and never a traceback."""

from __future__ import annotations

import csv
import gzip
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from urlset.cli import main

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
DOC = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
<url><loc>https://example.com/a</loc><lastmod>2024-05-01T10:00:00+00:00</lastmod>
<changefreq>daily</changefreq><priority>0.8</priority></url>
<url><loc>https://example.com/b?x=1&amp;y=2</loc>
<image:image><image:loc>https://example.com/b.png</image:loc></image:image></url>
</urlset>
"""


@pytest.fixture()
def sitemap(tmp_path: Path) -> Path:
    path = tmp_path / "sitemap.xml"
    path.write_text(DOC, encoding="utf-8")
    return path


def invoke(*args: str, input: bytes | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["read", *args], input=input, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_jsonl_default(sitemap: Path) -> None:
    code, out, err = invoke(str(sitemap))
    assert code == 0 and err == ""
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[0] == {
        "loc": "https://example.com/a",
        "lastmod": "2024-05-01T10:00:00Z",
        "changefreq": "daily",
        "priority": 0.8,
    }
    assert rows[1]["loc"] == "https://example.com/b?x=1&y=2"
    # a typed image comes out in the shape `urlset build` reads back
    assert rows[1] == {
        "loc": "https://example.com/b?x=1&y=2",
        "images": [{"loc": "https://example.com/b.png"}],
    }


@pytest.mark.parametrize(("fmt", "sep"), [("csv", ","), ("tsv", "\t")])
def test_csv_and_tsv(sitemap: Path, fmt: str, sep: str) -> None:
    code, out, _ = invoke(str(sitemap), "--format", fmt)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == sep.join(["loc", "lastmod", "changefreq", "priority", "extensions"])
    assert lines[1] == sep.join(
        ["https://example.com/a", "2024-05-01T10:00:00Z", "daily", "0.8", ""]
    )
    assert lines[2] == sep.join(
        [
            "https://example.com/b?x=1&y=2",
            "",
            "",
            "",
            '"{""images"":[{""loc"":""https://example.com/b.png""}]}"',
        ]
    )


def test_locs_and_output_file(sitemap: Path, tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    code, out, _ = invoke(str(sitemap), "-f", "locs", "-o", str(target))
    assert code == 0 and out == ""
    assert target.read_text().splitlines() == [
        "https://example.com/a",
        "https://example.com/b?x=1&y=2",
    ]


def test_index_entries_have_a_type(tmp_path: Path) -> None:
    path = tmp_path / "index.xml.gz"
    path.write_bytes(
        gzip.compress(
            f'<sitemapindex xmlns="{NS}"><sitemap><loc>https://example.com/s1.xml</loc>'
            "<lastmod>2024-01-01</lastmod></sitemap></sitemapindex>".encode()
        )
    )
    code, out, _ = invoke(str(path))
    assert code == 0
    assert json.loads(out) == {
        "loc": "https://example.com/s1.xml",
        "type": "sitemap",
        "lastmod": "2024-01-01",
    }


def test_stdin_and_issues_on_stderr() -> None:
    doc = f'<urlset xmlns="{NS}"><url><loc>/relative</loc></url><url><loc>https://e.com/x</loc></url></urlset>'
    code, out, err = invoke("-", input=doc.encode())
    assert code == 1  # an error was found; what could be read is still written
    assert json.loads(out) == {"loc": "https://e.com/x"}
    column = doc.index("/relative") + 1
    assert f"<stdin>:1:{column}: error relative-url" in err


def test_base_url_and_issues_json(tmp_path: Path) -> None:
    path = tmp_path / "rel.xml"
    path.write_text(f'<urlset xmlns="{NS}"><url><loc>/a</loc></url></urlset>')
    report = tmp_path / "issues.json"
    code, out, err = invoke(
        str(path), "--base-url", "https://example.org/", "--issues-json", str(report)
    )
    assert code == 0 and err == ""  # a warning only
    assert json.loads(out) == {"loc": "https://example.org/a"}
    issues = json.loads(report.read_text())
    assert [i["code"] for i in issues] == ["resolved-url"]
    assert issues[0]["severity"] == "warning" and issues[0]["line"] == 1
    assert set(issues[0]) == {"code", "severity", "message", "line", "column", "source", "hint"}


def test_unreadable_sources_exit_2(tmp_path: Path) -> None:
    code, out, err = invoke(str(tmp_path / "missing.xml"))
    assert code == 2 and out == "" and "cannot read" in err and "Traceback" not in err
    code, _, err = invoke(str(tmp_path))  # a directory
    assert code == 2 and "cannot read" in err
    html = tmp_path / "page.xml"
    html.write_text("<!DOCTYPE html><html><body>moved</body></html>")
    code, out, err = invoke(str(html))
    assert code == 2 and out == "" and "html-page" in err


def test_urls_are_for_fetch() -> None:
    code, _, err = invoke("https://example.com/sitemap.xml")
    assert code == 2 and "urlset fetch" in err


def test_usage_errors_exit_2(sitemap: Path) -> None:
    code, _, err = invoke(str(sitemap), "--base-url", "not a url")
    assert code == 2 and "--base-url" in err
    code, _, _ = invoke(str(sitemap), "--format", "xml")
    assert code == 2


def test_quiet_and_size_limit(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_text("".join(f"https://example.com/{i}\n" for i in range(1000)))
    code, out, err = invoke(str(path), "--max-bytes", "100", "-q")
    # -q: the errors only, so the exit status 1 comes with its reason
    assert code == 1 and err.count("\n") == 1 and "error decompressed-size-limit" in err
    assert 0 < len(out.splitlines()) < 10


CAPTION = 'Caf\u00e9, "the best"\tin town\nsince 1901'
TRICKY = f"""<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="{NS}" xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
<url><loc>https://example.com/a</loc><priority>0.5</priority>
<image:image><image:loc>https://example.com/a.png</image:loc>
<image:caption>Caf\u00e9, &quot;the best&quot;\tin town
since 1901</image:caption></image:image>
<xhtml:link rel="alternate" hreflang="de" href="https://example.com/de/a"/>
<o:thing xmlns:o="urn:other">kept, "as is"</o:thing></url>
<url><loc>https://example.com/b</loc></url>
</urlset>
"""


@pytest.mark.parametrize(("fmt", "sep"), [("csv", ","), ("tsv", "\t")])
def test_csv_and_tsv_extensions_column(tmp_path: Path, fmt: str, sep: str) -> None:
    path = tmp_path / "tricky.xml"
    path.write_text(TRICKY, encoding="utf-8")
    _, jsonl, _ = invoke(str(path))
    code, out, _ = invoke(str(path), "-f", fmt)
    assert code == 0
    rows = list(csv.reader(io.StringIO(out, newline=""), delimiter=sep))
    assert rows[0] == ["loc", "lastmod", "changefreq", "priority", "extensions"]
    assert len(rows) == 3 and len(out.splitlines()) == 3  # one line per entry
    cell = json.loads(rows[1][4])
    assert cell["images"] == [{"loc": "https://example.com/a.png", "caption": CAPTION}]
    assert cell["alternates"] == [{"hreflang": "de", "href": "https://example.com/de/a"}]
    assert cell["extensions"][0]["xml"] == '<o:thing xmlns:o="urn:other">kept, "as is"</o:thing>'
    # the same object as the JSON Lines output's extension fields
    first = json.loads(jsonl.splitlines()[0])
    assert cell == {k: v for k, v in first.items() if k not in ("loc", "priority")}
    assert rows[1][:4] == ["https://example.com/a", "", "", "0.5"]
    assert rows[2] == ["https://example.com/b", "", "", "", ""]


@pytest.mark.parametrize("fmt", ["csv", "tsv"])
def test_read_csv_and_tsv_build_again(tmp_path: Path, fmt: str) -> None:
    """`urlset read -f csv` output is a build input: the extensions column is read back,
    and the built sitemap reads as the original did."""
    path = tmp_path / "tricky.xml"
    path.write_text(TRICKY, encoding="utf-8")
    _, original, _ = invoke(str(path))
    code, table, _ = invoke(str(path), "-f", fmt)
    assert code == 0
    source = tmp_path / f"urls.{fmt}"
    source.write_text(table, encoding="utf-8")
    out = tmp_path / "out"
    built = CliRunner().invoke(
        main,
        [
            "build",
            str(source),
            "--base-url",
            "https://example.com/",
            "--out",
            str(out),
            "--no-gzip",
        ],
        catch_exceptions=False,
    )
    assert built.exit_code == 0, built.output
    _, again, _ = invoke(str(out / "sitemap.xml"))
    assert [json.loads(line) for line in again.splitlines()] == [
        json.loads(line) for line in original.splitlines()
    ]


def test_a_bad_extensions_cell_is_a_reported_line(tmp_path: Path) -> None:
    source = tmp_path / "urls.csv"
    source.write_text('loc,extensions\nhttps://example.com/a,"[1, 2]"\nhttps://example.com/b,\n')
    built = CliRunner().invoke(
        main,
        ["build", str(source), "--base-url", "https://example.com/", "--out", str(tmp_path / "o")],
        catch_exceptions=False,
    )
    assert built.exit_code == 0
    assert "urls.csv:2" in built.output and "extensions" in built.output


def test_empty_csv_still_has_the_columns(tmp_path: Path) -> None:
    path = tmp_path / "empty.xml"
    path.write_text(f'<urlset xmlns="{NS}"></urlset>')
    code, out, _ = invoke(str(path), "-f", "csv")
    assert code == 0 and out == "loc,lastmod,changefreq,priority,extensions\n"


def test_quiet_prints_only_errors(tmp_path: Path) -> None:
    path = tmp_path / "s.xml"
    path.write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
        "<url><loc>https://WWW.shop.org/a</loc></url>\n"  # a warning: normalized-url
        "<url><loc>https://www.shop.org/b</loc><priority>7</priority></url>\n"  # an error
        "</urlset>\n",
        encoding="utf-8",
    )
    code, _, err = invoke(str(path))
    assert "normalized-url" in err and "invalid-priority" in err and code == 1
    code, _, err = invoke(str(path), "-q")
    assert "invalid-priority" in err and "normalized-url" not in err and code == 1

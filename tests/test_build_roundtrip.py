"""What build publishes, check accepts: a set written by ``urlset build`` (every output option,
every extension) is clean under ``urlset check`` as a directory and file by file, valid under
the official schemas, and read back equal by ``read``; and build's own verdicts on its input
are check's (same code, same severity)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lxml import etree

from helpers import load
from schema_support import official_schemas
from urlset import read_file
from urlset.cli import main

BASE = "https://www.acme-shop.com/"
NOW = "2026-11-27T00:00:00Z"


def urlset(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    """Run the CLI: (exit status, stdout, stderr); never a traceback."""
    result = CliRunner().invoke(main, list(args), input=stdin)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result.exit_code, result.stdout, result.stderr


def check_json(*args: str) -> tuple[int, dict[str, Any]]:
    code, out, _ = urlset("check", "--now", NOW, "--format", "json", *args)
    return code, json.loads(out)


def codes(report: dict[str, Any]) -> dict[str, str]:
    """Each code check reported, with its severity."""
    return {i["code"]: i["severity"] for f in report["files"] for i in f["issues"]}


def published(out: Path) -> list[Path]:
    """The sitemap files a build wrote (not its stylesheet, manifest or robots.txt)."""
    return sorted(
        p for p in out.iterdir() if p.name.startswith("sitemap") and not p.name.endswith(".xsl")
    )


def test_a_set_with_its_stylesheet_checks_clean_as_a_directory(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{BASE}p{i}\n" for i in range(30)))
    out = tmp_path / "out"
    for extra in ([], ["--stable", "--max-urls", "10"]):
        code, _, err = urlset(
            "build", str(source), "--base-url", BASE, "--out", str(out), "--stylesheet", *extra
        )
        assert code == 0, err
        assert (out / "sitemap.xsl").is_file()
        code, report = check_json(str(out), "--base-url", BASE)
        assert code == 0 and codes(report) == {}, report
        assert {"path": str(out / "sitemap.xsl"), "reason": "an XSL stylesheet"} in report[
            "skipped"
        ]


def test_a_stylesheet_named_anything_is_left_out_of_a_directory_check(tmp_path: Path) -> None:
    stylesheet = (
        '<?xml version="1.0"?>\n<xsl:stylesheet version="1.0" '
        'xmlns:xsl="http://www.w3.org/1999/XSL/Transform"/>\n'
    )
    (tmp_path / "sitemap-style.xml").write_text(stylesheet)
    (tmp_path / "sitemap.xml").write_text(
        '<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{BASE}</loc></url></urlset>"
    )
    code, report = check_json(str(tmp_path))
    assert code == 0 and codes(report) == {}
    # a file that is not a stylesheet and not a sitemap, named like one, is still an error
    (tmp_path / "sitemap-other.xml").write_text("<stylesheet/>")
    code, report = check_json(str(tmp_path))
    assert code == 1 and codes(report) == {"unknown-root": "error"}


def test_a_set_served_elsewhere_checks_clean_with_its_sitemap_url(tmp_path: Path) -> None:
    """build --sitemap-url (cross-submission): check takes the same two URLs, the URLs' scope
    and where the files are served, and finds the children and every URL in scope."""
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{BASE}p{i}\n" for i in range(30)))
    out = tmp_path / "out"
    elsewhere = "https://cdn.acme-shop.com/big/"
    code, _, err = urlset(
        "build", str(source), "--base-url", BASE, "--sitemap-url", elsewhere,
        "--out", str(out), "--max-urls", "10",
    )  # fmt: skip
    assert code == 0, err
    code, report = check_json(str(out), "--base-url", BASE, "--sitemap-url", elsewhere)
    assert code == 0 and codes(report) == {}, report
    assert report["summary"]["files"] == 4
    # the URLs' scope is still enforced: a narrower one than the build's is not met
    code, report = check_json(str(out), "--base-url", BASE + "shop/", "--sitemap-url", elsewhere)
    assert code == 1 and codes(report) == {"url-not-allowed": "error"}
    # served at --sitemap-url alone, its URLs lie outside the sitemaps' directory
    code, report = check_json(str(out), "--base-url", elsewhere)
    assert code == 1 and codes(report) == {"url-not-allowed": "error"}
    code, _, err = urlset("check", str(out), "--sitemap-url", elsewhere)
    assert code == 2 and "--sitemap-url needs --base-url" in err


def test_every_writer_declares_only_the_namespaces_used(tmp_path: Path) -> None:
    source = tmp_path / "ext.jsonl"
    lines = [
        {"loc": f"{BASE}a", "images": [{"loc": f"{BASE}a.jpg"}]},
        {"loc": f"{BASE}b"},
    ]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    for extra in ([], ["--stable"]):
        out = tmp_path / f"out{len(extra)}"
        code, _, err = urlset(
            "build", str(source), "--base-url", BASE, "--out", str(out), "--no-gzip", *extra
        )
        assert code == 0, err
        roots = [etree.fromstring(load(p)) for p in published(out) if b"<urlset" in load(p)[:200]]
        assert roots and all(
            set(root.nsmap.values())
            == {
                "http://www.sitemaps.org/schemas/sitemap/0.9",
                "http://www.google.com/schemas/sitemap-image/1.1",
            }
            for root in roots
        ), extra


def read_back(out: Path) -> list[tuple[Any, ...]]:
    """Every URL of a published set as ``read`` gives it, in loc order."""
    urls = []
    for path in published(out):
        result = read_file(path)
        urls.extend(u for u in result.urls)
    return sorted(urls)


@pytest.fixture(scope="module")
def official(shared: Path) -> dict[str, etree.XMLSchema]:
    return official_schemas(shared / "xsd")

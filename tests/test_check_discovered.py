"""What check counts per sitemap besides its URLs: the images, videos, news entries and
hreflang links its URLs hold, as Search Console's sitemaps report counts what it
"discovered". The kinds are enumerated from the extension registry (every typed extension),
and every way check reads a document is covered: a file, gzipped or not, a directory (whose
files share one pool of set-wide rules, yet each keeps its own counts), standard input and a
site over HTTP; every output: text, JSON, HTML."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from click.testing import CliRunner

from test_fetch_support import LoopbackServer
from urlset.checking.checker import CheckOptions
from urlset.cli import main
from urlset.extensions import KINDS
from urlset.extensions.registry import REGISTRY
from urlset.sitecheck.driver import check_site

BASE = "https://www.acme-shop.com/"
NAMESPACES = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" xmlns:other="urn:other"'
)


def image(n: int) -> str:
    return f"<image:image><image:loc>{BASE}i{n}.jpg</image:loc></image:image>"


def video(n: int) -> str:
    return (
        f"<video:video><video:thumbnail_loc>{BASE}t{n}.jpg</video:thumbnail_loc>"
        f"<video:title>V{n}</video:title><video:description>D</video:description>"
        f"<video:content_loc>{BASE}v{n}.mp4</video:content_loc></video:video>"
    )


def news(n: int) -> str:
    return (
        "<news:news><news:publication><news:name>P</news:name><news:language>en"
        "</news:language></news:publication><news:publication_date>2026-11-26"
        f"</news:publication_date><news:title>T{n}</news:title></news:news>"
    )


def links(page: str, pages: list[str]) -> str:
    return "".join(
        f'<xhtml:link rel="alternate" hreflang="{p}" href="{BASE}{p}/{page}"/>' for p in pages
    )


def sitemap(name: str, images: int, videos: int, articles: int) -> bytes:
    """A urlset: one page with the images and videos, one a news article each, and two
    language versions of a page linking each other (and themselves): 4 hreflang links."""
    urls = [f"<url><loc>{BASE}{name}/p</loc>{''.join(map(image, range(images)))}"]
    urls[0] += "".join(map(video, range(videos))) + "<other:thing>kept raw</other:thing></url>"
    urls += [f"<url><loc>{BASE}{name}/n{i}</loc>{news(i)}</url>" for i in range(articles)]
    urls += [
        f"<url><loc>{BASE}{lang}/{name}</loc>{links(name, ['en', 'de'])}</url>"
        for lang in ("en", "de")
    ]
    body = "\n".join(urls)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NAMESPACES}>\n{body}\n</urlset>\n'.encode()


def check_json(*args: str, stdin: bytes | None = None) -> dict[str, object]:
    result = CliRunner().invoke(
        main, ["check", "--now", "2026-11-27T00:00:00Z", "--format", "json", *args], input=stdin
    )
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads(result.stdout)
    return report


def test_the_kinds_counted_are_every_typed_extension() -> None:
    assert set(KINDS) == {spec.value.kind for spec in REGISTRY}


def test_each_file_of_a_directory_has_its_own_counts_and_the_run_their_sum(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.xml").write_bytes(sitemap("a", images=3, videos=2, articles=5))
    (tmp_path / "b.xml.gz").write_bytes(gzip.compress(sitemap("b", images=1, videos=0, articles=0)))
    report = check_json(str(tmp_path))
    files = {Path(str(f["source"])).name: f for f in report["files"]}
    assert files["a.xml"]["discovered"] == {"images": 3, "videos": 2, "news": 5, "alternates": 4}
    assert files["b.xml.gz"]["discovered"] == {"images": 1, "videos": 0, "news": 0, "alternates": 4}
    assert report["discovered"] == {"images": 4, "videos": 2, "news": 5, "alternates": 8}


def test_the_text_report_says_what_each_sitemap_holds(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(sitemap("a", images=1, videos=0, articles=2))
    (tmp_path / "plain.xml").write_bytes(
        f'<?xml version="1.0"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
        f"<url><loc>{BASE}x</loc></url></urlset>\n".encode()
    )
    result = CliRunner().invoke(main, ["check", "--now", "2026-11-27T00:00:00Z", str(tmp_path)])
    lines = result.stdout.splitlines()
    assert (
        f"{tmp_path / 'a.xml'} (urlset, 5 URLs; 1 image, 2 news entries, 4 hreflang links): ok"
        in lines
    )
    assert (
        f"{tmp_path / 'plain.xml'} (urlset, 1 URL): ok" in lines
    )  # nothing to count, nothing said
    assert lines[-1] == (
        "checked 2 files, 6 entries holding 1 image, 2 news entries, 4 hreflang links: "
        "0 errors, 0 warnings"
    )


def test_standard_input_is_counted_as_a_file_is() -> None:
    report = check_json("-", stdin=sitemap("s", images=2, videos=1, articles=1))
    files = report["files"]
    assert files[0]["discovered"] == {"images": 2, "videos": 1, "news": 1, "alternates": 4}


def test_a_file_not_read_counts_nothing_rather_than_zero(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", "--format", "json", str(tmp_path / "missing.xml")])
    assert result.exit_code == 2
    assert json.loads(result.stdout)["files"][0]["discovered"] is None


def test_a_site_checked_over_http_is_counted_per_sitemap() -> None:
    with LoopbackServer() as server:
        server.add("/robots.txt", f"Sitemap: {server.url('/a.xml')}\n".encode(), "text/plain")
        server.add(
            "/a.xml",
            sitemap("a", images=2, videos=1, articles=3).replace(
                BASE.encode(), server.url("/").encode()
            ),
        )
        report = check_site(server.url("/"), CheckOptions())
    (result,) = [f for f in report.files if f.format == "urlset"]
    assert result.discovered == {"images": 2, "videos": 1, "news": 3, "alternates": 4}


def test_the_html_report_has_a_column_for_each_kind_the_set_holds(tmp_path: Path) -> None:
    (tmp_path / "a.xml").write_bytes(sitemap("a", images=2, videos=0, articles=1))
    page = tmp_path / "report.html"
    result = CliRunner().invoke(
        main, ["check", "--format", "html", "--output", str(page), str(tmp_path)]
    )
    assert result.exit_code == 0, result.output
    html = page.read_text()
    files_part = html[html.index('id="files"') :]
    for heading in ("images", "news", "hreflang links"):
        assert f">{heading}</th>" in files_part
    assert ">videos</th>" not in files_part  # none in the set: no empty column


def test_advertools_extension_sitemaps_count_what_their_tests_expect(shared: Path) -> None:
    """advertools' image, video and news test sitemaps: the images and news entries its tests
    expect are counted; its six videos lack a thumbnail, so each is kept as written with an
    ``invalid-video`` error and not counted (what is counted is what a crawler can use)."""
    folder = shared / "corpus/peers/advertools/tests/data/sitemap_testing"
    names = ("image_sitemap.xml", "video_sitemap.xml", "news_sitemap.xml")
    result = CliRunner().invoke(
        main, ["check", "--format", "json", *(str(folder / name) for name in names)]
    )
    report = json.loads(result.stdout)
    found = {Path(f["source"]).name: f for f in report["files"]}
    assert found["image_sitemap.xml"]["discovered"]["images"] == 4
    assert found["news_sitemap.xml"]["discovered"] == {
        "images": 5, "videos": 0, "news": 6, "alternates": 0
    }  # fmt: skip
    video = found["video_sitemap.xml"]
    assert video["discovered"]["videos"] == 0
    assert sum(1 for i in video["issues"] if i["code"] == "invalid-video") == 6

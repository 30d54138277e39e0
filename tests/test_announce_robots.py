"""robots.txt Sitemap: lines: added, updated and taken out with every other byte kept."""

from __future__ import annotations

import csv
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from protego import Protego

from urlset.announce import edit_sitemaps, sitemap_lines, update_robots_file
from urlset.cli import main
from urlset.errors import InvalidValue, PublishError

NEW = "https://new.example.org/sitemap.xml"


def _robots_corpus(shared: Path) -> list[Path]:
    root = shared / "corpus" / "realworld"
    with (root / "MANIFEST.tsv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [root / row["file"] for row in rows if row["format"] == "robots"]


def _protego_sitemaps(data: bytes) -> list[str]:
    return list(Protego.parse(data.decode("utf-8-sig", errors="replace")).sitemaps)


def test_real_world_robots_keep_every_other_byte(shared: Path) -> None:
    files = _robots_corpus(shared)
    assert len(files) >= 7
    for path in files:
        data = path.read_bytes()
        # the lines found are the ones protego reads
        assert [line.sitemap for line in sitemap_lines(data)] == _protego_sitemaps(data), path
        edit = edit_sitemaps(data, [NEW])
        assert edit.added == (NEW,) and edit.changed
        # exactly one line was inserted: removing it, byte for byte, gives the original
        inserted = [line for line in edit.data.splitlines(keepends=True) if NEW.encode() in line]
        assert len(inserted) == 1, path
        assert edit.data.replace(inserted[0], b"", 1) == data or not data.endswith(b"\n")
        assert edit.data.startswith(data[:3]) if data.startswith(b"\xef\xbb\xbf") else True
        assert _protego_sitemaps(edit.data) == [*_protego_sitemaps(data), NEW], path
        back = edit_sitemaps(edit.data, remove=[NEW])
        assert back.data == data, path
        assert back.removed == (NEW,)


def test_real_world_robots_with_crlf_and_bom_stay_so(shared: Path) -> None:
    by_name = {p.name: p.read_bytes() for p in _robots_corpus(shared)}
    bom = by_name["robots_061.txt"]
    assert bom.startswith(b"\xef\xbb\xbf")
    assert edit_sitemaps(bom, [NEW]).data.startswith(b"\xef\xbb\xbf")
    mixed = by_name["robots_062.txt"]
    assert b"\r\n" in mixed
    out = edit_sitemaps(mixed, [NEW]).data
    line = next(line for line in out.splitlines(keepends=True) if NEW.encode() in line)
    common = b"\r\n" if mixed.count(b"\r\n") * 2 > mixed.count(b"\n") else b"\n"
    assert line.endswith(common)


def test_new_line_goes_after_the_last_sitemap_line_with_the_file_ending() -> None:
    data = b"User-agent: *\r\nDisallow: /x\r\nSitemap: https://a.example/s1.xml\r\n\r\n# end\r\n"
    out = edit_sitemaps(data, ["https://a.example/s2.xml"]).data
    assert out == (
        b"User-agent: *\r\nDisallow: /x\r\nSitemap: https://a.example/s1.xml\r\n"
        b"Sitemap: https://a.example/s2.xml\r\n\r\n# end\r\n"
    )


def test_without_sitemap_lines_the_line_is_appended_and_no_final_newline_stays_so() -> None:
    data = b"User-agent: *\nDisallow: /private"
    out = edit_sitemaps(data, ["https://a.example/sitemap.xml"]).data
    assert out == b"User-agent: *\nDisallow: /private\nSitemap: https://a.example/sitemap.xml"
    assert (
        edit_sitemaps(b"", ["https://a.example/s.xml"]).data
        == b"Sitemap: https://a.example/s.xml\n"
    )
    assert edit_sitemaps(b"\xef\xbb\xbf", ["https://a.example/s.xml"]).data == (
        b"\xef\xbb\xbfSitemap: https://a.example/s.xml\n"
    )


def test_a_url_already_named_keeps_its_line_as_written() -> None:
    data = b"sitemap:   https://a.example/s.xml   # ours\nUser-agent: *\n"
    edit = edit_sitemaps(data, ["https://a.example/s.xml"])
    assert not edit.changed and edit.present == ("https://a.example/s.xml",) and edit.added == ()
    # compared as URIs: the IDN host and the spelled-out default port name the same sitemap
    data = b"Sitemap: https://b\xc3\xbccher.example:443/s.xml\n"
    assert not edit_sitemaps(data, ["https://xn--bcher-kva.example/s.xml"]).changed


def test_remove_takes_out_only_that_line() -> None:
    data = (
        b"# keep me\nSitemap: https://a.example/old.xml\nUser-agent: *\nDisallow: /\n"
        b"Sitemap: https://a.example/other.xml\n"
    )
    edit = edit_sitemaps(data, remove=["https://a.example/old.xml"])
    assert edit.data == (
        b"# keep me\nUser-agent: *\nDisallow: /\nSitemap: https://a.example/other.xml\n"
    )
    assert edit.removed == ("https://a.example/old.xml",)


def test_replace_updates_a_build_s_lines_in_place_and_leaves_the_others() -> None:
    data = (
        b"Sitemap: https://a.example/sitemap-index-1.xml.gz\n"
        b"Sitemap: https://a.example/sitemap-index-2.xml.gz\n"
        b"Sitemap: https://a.example/news.xml\n"
        b"User-agent: *\n"
    )
    edit = edit_sitemaps(
        data,
        ["https://a.example/sitemap.xml.gz"],
        replace=lambda url: url.startswith("https://a.example/sitemap"),
    )
    assert edit.data == (
        b"Sitemap: https://a.example/sitemap.xml.gz\nSitemap: https://a.example/news.xml\n"
        b"User-agent: *\n"
    )
    assert len(edit.removed) == 2


def test_bad_urls_are_refused() -> None:
    with pytest.raises(InvalidValue, match="absolute"):
        edit_sitemaps(b"", ["/sitemap.xml"])
    with pytest.raises(InvalidValue, match="both added and removed"):
        edit_sitemaps(b"", ["https://a.example/s.xml"], ["https://a.example/s.xml"])


# -- the property: adding then removing a line gives back the original file
_LINES = st.sampled_from(
    [
        b"User-agent: *",
        b"User-agent: Googlebot",
        b"Disallow: /private/",
        b"Allow: /",
        b"",
        b"   ",
        b"# a comment: Sitemap: https://in.comment.example/x.xml",
        b"Sitemap: https://a.example/sitemap.xml",
        b"sitemap:https://a.example/other.xml",
        b"Crawl-delay: 10",
        b"Host: a.example",
        "Disallow: /caf\u00e9".encode(),
        b"Disallow: /\xff\xfe latin-1",
    ]
)
_ENDINGS = st.sampled_from([b"\n", b"\r\n", b"\r"])


@st.composite
def robots_files(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.tuples(_LINES, _ENDINGS), max_size=12))
    data = b"".join(text + ending for text, ending in lines)
    if lines and draw(st.booleans()):  # no line break at the end
        data = data[: -len(lines[-1][1])]
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return data


_NEW_URLS = st.sampled_from(
    ["https://new.example/sitemap.xml.gz", "http://new.example:8080/a/b.xml", NEW]
)


@settings(max_examples=300, deadline=None)
@given(robots_files(), _NEW_URLS)
def test_adding_then_removing_gives_back_the_original(data: bytes, url: str) -> None:
    added = edit_sitemaps(data, [url])
    assert added.changed
    assert url in _protego_sitemaps(added.data)
    assert edit_sitemaps(added.data, [url]).data == added.data  # adding again changes nothing
    assert edit_sitemaps(added.data, remove=[url]).data == data


# -- the file
def test_the_file_is_replaced_atomically_keeping_its_mode(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(b"User-agent: *\nDisallow:\n")
    os.chmod(path, 0o640)
    edit = update_robots_file(path, ["https://a.example/sitemap.xml"])
    assert edit.changed
    assert (
        path.read_bytes() == b"User-agent: *\nDisallow:\nSitemap: https://a.example/sitemap.xml\n"
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["robots.txt"]  # no temporary left
    inode = path.stat().st_ino
    assert not update_robots_file(path, ["https://a.example/sitemap.xml"]).changed
    assert path.stat().st_ino == inode  # an unchanged file is not rewritten


def test_a_missing_file_is_created(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    update_robots_file(path, ["https://a.example/sitemap.xml"])
    assert path.read_bytes() == b"Sitemap: https://a.example/sitemap.xml\n"


def test_a_missing_directory_is_a_publish_error(tmp_path: Path) -> None:
    with pytest.raises(PublishError, match="cannot write in"):
        update_robots_file(tmp_path / "no" / "robots.txt", ["https://a.example/sitemap.xml"])


def test_an_unwritable_directory_is_a_publish_error_and_the_file_stays(tmp_path: Path) -> None:
    """chmod 555 on the file's directory. Root writes there anyway, so the edit runs in a child
    process without the one capability that lets it (CAP_DAC_OVERRIDE), as any user."""
    from test_build_publish import _without_dac_override

    path = tmp_path / "robots.txt"
    path.write_bytes(b"User-agent: *\n")
    code = (
        "import sys\nfrom urlset.announce import update_robots_file\nfrom urlset.errors import PublishError\n"
        f"try:\n    update_robots_file({str(path)!r}, ['https://a.example/sitemap.xml'])\n"
        "except PublishError as exc:\n    print(exc)\n    sys.exit(3)\n"
    )
    os.chmod(tmp_path, 0o555)
    try:
        result = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            preexec_fn=_without_dac_override if os.geteuid() == 0 else None,
        )
    finally:
        os.chmod(tmp_path, 0o755)
    assert result.returncode == 3, result.stderr
    assert "cannot write" in result.stdout
    assert path.read_bytes() == b"User-agent: *\n"


# -- the command
def test_cli_adds_removes_and_reports(tmp_path: Path) -> None:
    path = tmp_path / "robots.txt"
    path.write_bytes(b"User-agent: *\r\nDisallow: /tmp/\r\n")
    runner = CliRunner()
    result = runner.invoke(
        main,
        [
            "robots",
            str(path),
            "--sitemap",
            "https://a.example/s1.xml",
            "--sitemap",
            "https://a.example/s2.xml",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "added    Sitemap: https://a.example/s1.xml" in result.output
    assert path.read_bytes().endswith(
        b"Sitemap: https://a.example/s1.xml\r\nSitemap: https://a.example/s2.xml\r\n"
    )
    result = runner.invoke(main, ["robots", str(path), "--remove", "https://a.example/s1.xml"])
    assert result.exit_code == 0 and "removed  Sitemap: https://a.example/s1.xml" in result.output
    assert b"s1.xml" not in path.read_bytes()
    result = runner.invoke(
        main,
        [
            "robots",
            str(path),
            "--sitemap",
            "https://a.example/sitemap-new.xml",
            "--replace-prefix",
            "https://A.example/sitemap",
        ],
    )
    assert (
        result.exit_code == 0 and "removed  Sitemap: https://a.example/s2.xml" not in result.output
    )
    assert path.read_bytes().endswith(
        b"Sitemap: https://a.example/s2.xml\r\nSitemap: https://a.example/sitemap-new.xml\r\n"
    )
    result = runner.invoke(
        main,
        [
            "robots",
            str(path),
            "--sitemap",
            "https://a.example/s3.xml",
            "--replace-prefix",
            "https://a.example/s",
        ],
    )
    assert result.exit_code == 0 and result.output.count("removed") == 2
    assert path.read_bytes().endswith(b"Disallow: /tmp/\r\nSitemap: https://a.example/s3.xml\r\n")
    result = runner.invoke(main, ["robots", str(path), "--sitemap", "sitemap.xml"])
    assert result.exit_code == 2 and "absolute" in result.output
    assert "Traceback" not in result.output


def test_cli_usage_errors_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    path = str(tmp_path / "robots.txt")
    assert runner.invoke(main, ["robots", path]).exit_code == 2
    assert runner.invoke(main, ["robots", path, "--check", "--sitemap", NEW]).exit_code == 2
    assert (
        runner.invoke(main, ["robots", "https://a.example/robots.txt", "--sitemap", NEW]).exit_code
        == 2
    )


def test_a_symlinked_robots_txt_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    from urlset.announce import update_robots_file

    real = tmp_path / "shared" / "robots.txt"
    real.parent.mkdir()
    real.write_bytes(b"User-agent: *\nDisallow:\n")
    link = tmp_path / "robots.txt"
    link.symlink_to(real)
    update_robots_file(link, ["https://www.shop.org/sitemap.xml"])
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes().endswith(b"Sitemap: https://www.shop.org/sitemap.xml\n")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_the_owner_and_mode_of_robots_txt_are_kept(tmp_path: Path) -> None:
    from urlset.announce import update_robots_file

    path = tmp_path / "robots.txt"
    path.write_bytes(b"User-agent: *\n")
    os.chown(path, 4321, 4322)
    path.chmod(0o640)
    update_robots_file(path, ["https://www.shop.org/sitemap.xml"])
    after = path.stat()
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (4321, 4322, 0o640)
    assert b"Sitemap: https://www.shop.org/sitemap.xml" in path.read_bytes()


@pytest.mark.parametrize("bom", [b"\xff\xfe", b"\xfe\xff", b""])
def test_a_utf16_robots_txt_is_refused_and_left_as_it_was(tmp_path: Path, bom: bytes) -> None:
    path = tmp_path / "robots.txt"
    encoding = "utf-16-be" if bom == b"\xfe\xff" else "utf-16-le"
    original = bom + "User-agent: *\nDisallow: /x\n".encode(encoding)
    path.write_bytes(original)
    result = CliRunner().invoke(
        main, ["robots", str(path), "--sitemap", "https://www.shop.org/sitemap.xml"]
    )
    assert (
        result.exit_code == 2 and "UTF-16" in result.output and "save it as UTF-8" in result.output
    )
    assert path.read_bytes() == original


def test_a_large_robots_txt_is_edited_in_memory_bounded_by_its_size(tmp_path: Path) -> None:
    """The edit holds the Sitemap lines, not every line: a few copies of the bytes at most
    (a line a Python object took ~13 times the file's size)."""
    import tracemalloc

    from urlset.announce import update_robots_file

    path = tmp_path / "robots.txt"
    lines = b"".join(b"Disallow: /private/section-%d/page\n" % i for i in range(100_000))
    path.write_bytes(b"User-agent: *\nSitemap: https://www.shop.org/old.xml\n" + lines)
    size = path.stat().st_size
    tracemalloc.start()
    try:
        edit = update_robots_file(path, ["https://www.shop.org/new.xml"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert edit.added == ("https://www.shop.org/new.xml",)
    assert peak < 5 * size, (peak, size)
    assert path.read_bytes().startswith(
        b"User-agent: *\nSitemap: https://www.shop.org/old.xml\nSitemap: https://www.shop.org/new.xml\n"
    )

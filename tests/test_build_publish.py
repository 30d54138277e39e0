"""Publishing a set: atomic for every index with its children at every rename, served from
another host or path, and into a target that cannot be written."""

from __future__ import annotations

import ctypes
import itertools
import os
import shutil
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from helpers import NS, locs, parse
from urlset import SITEMAPS_2008, InvalidValue, Url
from urlset.cli import main
from urlset.errors import PublishError
from urlset.writing.build import write_sitemaps

BASE = "https://www.example.com/"

# A build of "old" or "new" URLs into OUT, 1,000 URLs a file and PER_INDEX files an index,
# that dies (os._exit, as a SIGKILL would: no cleanup, no finally) right after its K-th
# os.replace, the call that moves a staged file into place; K = 0 runs to the end.
# old: /a/0-4999, lastmod 2024-01-01 + one day a file (5 files).
# new: /a/0-999 as in old (the same first file, byte for byte), then /b/1000-6999 with 2025
#      lastmods (7 files).
KILL_AFTER = """
import os
import sys
from dataclasses import replace
from datetime import date, timedelta

from urlset import Url
from urlset.limits import CURRENT
from urlset.writing.build import write_sitemaps

out, build, per_index, kill_after = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
real_replace = os.replace
renames = 0


def replace_then_die(*args, **kwargs):
    global renames
    real_replace(*args, **kwargs)
    renames += 1
    if renames == kill_after:
        os._exit(137)


os.replace = replace_then_die


def urls():
    for i in range(5_000 if build == "old" else 7_000):
        day = timedelta(days=i // 1_000)
        if build == "old" or i < 1_000:
            yield Url(f"https://www.example.com/a/{i}", date(2024, 1, 1) + day)
        else:
            yield Url(f"https://www.example.com/b/{i}", date(2025, 1, 1) + day)


limits = replace(CURRENT.lowered(max_urls=1_000), max_sitemaps_per_index=per_index)
write_sitemaps(urls(), out, "https://www.example.com/", gzip=False, limits=limits)
"""


def _published(out: Path) -> dict[str, frozenset[str]]:
    """Each index published in ``out`` -> the URLs of its children, once it is checked that
    every child it lists exists and that the lastmod it gives each child is the newest
    lastmod inside that child."""
    found = {}
    for entry in sorted([*out.glob("sitemap.xml"), *out.glob("sitemap-index-*.xml")]):
        index = parse(entry)
        assert index.tag == f"{NS}sitemapindex", entry.name
        urls: set[str] = set()
        for ref in index.iter(f"{NS}sitemap"):
            loc, lastmod = ref.findtext(f"{NS}loc"), ref.findtext(f"{NS}lastmod")
            assert loc is not None and loc.startswith(BASE) and lastmod is not None
            child = out / loc.removeprefix(BASE)
            assert child.is_file(), f"{entry.name} lists {child.name}, which is missing"
            root = parse(child)
            newest = max(date.fromisoformat(el.text or "") for el in root.iter(f"{NS}lastmod"))
            assert newest == date.fromisoformat(lastmod), f"{entry.name} on {child.name}"
            urls.update(el.text or "" for el in root.iter(f"{NS}loc"))
        found[entry.name] = frozenset(urls)
    return found


@pytest.mark.parametrize("per_index", [50_000, 3], ids=["one index", "several indexes"])
def test_a_build_killed_after_any_rename_leaves_every_index_whole(
    tmp_path: Path, per_index: int
) -> None:
    """Over a published set, a new build dies right after its first, second, ... rename,
    until one runs to the end. After each death every published index lists children that
    exist, whose lastmods it gives right, and whose URLs are all those of the same index of
    one build, the old or the new: never a mix."""
    script = tmp_path / "kill_after.py"
    script.write_text(KILL_AFTER)

    def run(out: Path, build: str, kill_after: int) -> subprocess.CompletedProcess[str]:
        args = [sys.executable, str(script), str(out), build, str(per_index), str(kill_after)]
        return subprocess.run(args, capture_output=True, text=True, timeout=120)

    for build in ("old", "new"):  # the reference sets, each built whole
        assert run(tmp_path / build, build, 0).returncode == 0
    old, new = _published(tmp_path / "old"), _published(tmp_path / "new")
    assert len(old) == (1 if per_index > 7 else 2) and len(new) == (1 if per_index > 7 else 3)
    kills = []
    for k in itertools.count(1):
        out = tmp_path / f"killed-after-{k}"
        shutil.copytree(tmp_path / "old", out)
        result = run(out, "new", k)
        if result.returncode == 0:
            break
        assert result.returncode == 137, result.stderr
        kills.append(k)
        published = _published(out)
        # no index goes missing (old ones go only after the last rename), none is foreign
        assert set(old) <= set(published) <= set(old) | set(new), k
        for name, urls in published.items():
            assert urls in (old.get(name), new.get(name)), f"after rename {k}: {name} is a mix"
        if len(new) == 1:  # the old set until the index moves, the new one from then on
            assert published == (new if k == 7 else old), k
    # six changed children (the unchanged first stays in place) and the indexes
    assert kills == list(range(1, 6 + len(new) + 1))
    assert _published(out) == new
    # and the old children are gone: the directory holds the new set only
    assert sorted(p.name for p in out.iterdir()) == sorted(
        p.name for p in (tmp_path / "new").iterdir()
    )


def test_a_rebuild_of_the_same_input_gives_the_same_files_and_leaves_children_in_place(
    tmp_path: Path,
) -> None:
    urls = [Url(f"{BASE}p/{i}", f"2024-03-{1 + i % 28:02d}") for i in range(50)]
    limits = SITEMAPS_2008.lowered(max_urls=10)
    first = write_sitemaps(urls, tmp_path, BASE, limits=limits)
    before = {p.name: (p.read_bytes(), p.stat()) for p in tmp_path.iterdir()}
    assert len(before) == 6
    again = write_sitemaps(urls, tmp_path, BASE, limits=limits)
    after = {p.name: (p.read_bytes(), p.stat()) for p in tmp_path.iterdir()}
    assert [f.name for f in again.files] == [f.name for f in first.files]
    assert {name: data for name, (data, _) in after.items()} == {
        name: data for name, (data, _) in before.items()
    }
    assert not again.removed
    for f in first.files:  # an identical child is not written again: same inode, same mtime
        old, new = before[f.name][1], after[f.name][1]
        assert (new.st_ino, new.st_mtime_ns) == (old.st_ino, old.st_mtime_ns), f.name


def test_stale_children_of_this_and_earlier_versions_go_and_other_files_stay(
    tmp_path: Path,
) -> None:
    """The stale-file cleanup knows the hashed child names and the unhashed ones of sets
    written by earlier versions, and nothing else."""
    earlier = [
        "sitemap-1.xml.gz",
        "sitemap-2.xml.gz",
        "sitemap-index-1.xml.gz",
        "sitemap-index-2.xml.gz",
        "sitemap-7-0123456789abcdef.xml.gz",
        "sitemap-3-fedcba9876543210.txt",
    ]
    foreign = [
        "robots.txt",
        "sitemap-news.xml",
        "sitemap-1-abc.xml.gz",  # not 16 hex digits
        "sitemap-1-0123456789ABCDEF.xml.gz",  # we write lower case only
        "sitemap-1-0123456789abcdef0.xml.gz",
        "sitemap-x-0123456789abcdef.xml.gz",
        "sitemap-1-0123456789abcdef.xml.gz.bak",
        "sitemaps-1-0123456789abcdef.xml.gz",
        "other-1-0123456789abcdef.xml.gz",
    ]
    for name in earlier + foreign:
        (tmp_path / name).write_text("x")
    report = write_sitemaps(
        [Url(f"{BASE}{i}") for i in range(3)],
        tmp_path,
        BASE,
        limits=SITEMAPS_2008.lowered(max_urls=2),
    )
    assert report.removed == sorted(earlier)
    ours = ["sitemap.xml.gz", *(f.name for f in report.files)]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(foreign + ours)


@pytest.mark.parametrize(
    "sitemap_url",
    ["https://cdn.example.net/maps/", "https://www.example.com/sitemaps"],
    ids=["another host", "another path"],
)
def test_sitemaps_served_from_elsewhere_are_named_there_and_urls_keep_the_base_scope(
    tmp_path: Path, sitemap_url: str
) -> None:
    served = sitemap_url.rstrip("/") + "/"
    base = BASE + "shop/"
    urls = [Url(f"{base}{i}", "2024-05-06") for i in range(5)]
    two = SITEMAPS_2008.lowered(max_urls=2)
    report = write_sitemaps(urls, tmp_path / "set", base, sitemap_url=sitemap_url, limits=two)
    assert len(report.files) == 3
    assert locs(tmp_path / "set" / "sitemap.xml.gz") == [served + f.name for f in report.files]
    assert [f.url for f in report.files] == [served + f.name for f in report.files]
    assert report.entry_points == [served + "sitemap.xml.gz"]
    assert report.robots_txt == "https://www.example.com/robots.txt"
    written = [loc for f in report.files for loc in locs(tmp_path / "set" / f.name)]
    assert written == [u.loc for u in urls]  # every URL kept, as it was

    one = write_sitemaps(urls[:1], tmp_path / "one", base, sitemap_url=sitemap_url)
    assert one.entry_points == [served + "sitemap.xml.gz"] and not one.indexes

    # the scope is still the base URL's, even for a URL where the sitemaps are served
    outside = [Url(served + "x"), Url(BASE + "blog/1")]
    for url in outside:
        with pytest.raises(InvalidValue, match=r"outside|differs"):
            write_sitemaps([*urls, url], tmp_path / "bad", base, sitemap_url=sitemap_url)
    assert not (tmp_path / "bad" / "sitemap.xml.gz").exists()
    skipped = write_sitemaps(
        [*urls, *outside], tmp_path / "skip", base, sitemap_url=sitemap_url, skip_out_of_scope=True
    )
    assert skipped.rejected == {"out-of-scope": 2} and skipped.urls == 5
    with pytest.raises(InvalidValue, match=r"sitemap URL .* names a file"):
        write_sitemaps(urls, tmp_path / "file", base, sitemap_url=served + "sitemap.xml")


def test_cli_build_prints_where_sitemaps_served_elsewhere_must_be_listed(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text("".join(f"{BASE}p/{i}\n" for i in range(3)))
    out = tmp_path / "out"
    args = ["build", str(source), "--base-url", BASE, "--out", str(out), "--max-urls", "2"]
    result = CliRunner().invoke(main, [*args, "--sitemap-url", "https://cdn.example.net/maps/"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[-2].startswith("add to https://www.example.com/robots.txt ")
    assert lines[-1] == "Sitemap: https://cdn.example.net/maps/sitemap.xml.gz"
    assert all(
        loc.startswith("https://cdn.example.net/maps/sitemap-")
        for loc in locs(out / "sitemap.xml.gz")
    )
    bad = CliRunner().invoke(main, [*args, "--sitemap-url", "https://cdn.example.net/s.xml"])
    assert bad.exit_code == 2 and "sitemap URL" in bad.output and "names a file" in bad.output


# --- targets that cannot be written: the message names the path and the reason ---------------


def _without_dac_override() -> None:
    """In the child, before it runs the command: drop CAP_DAC_OVERRIDE from the capability
    bounding set (prctl PR_CAPBSET_DROP), so that root executing it keeps every other power
    but is held to the file modes, as any user is."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(24, 1, 0, 0, 0) != 0:  # PR_CAPBSET_DROP, CAP_DAC_OVERRIDE
        raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP, CAP_DAC_OVERRIDE)")


def test_a_read_only_output_directory_is_named_and_said_read_only(tmp_path: Path) -> None:
    """A directory without write permission (chmod 555), given as --out or as the parent of a
    new --out. Root writes there anyway, so under root the command runs without the one
    capability that lets it (CAP_DAC_OVERRIDE)."""
    source = tmp_path / "urls.txt"
    source.write_text(f"{BASE}a\n")
    read_only = tmp_path / "site"
    write_sitemaps([Url(BASE + "old")], read_only, BASE)
    before = {p.name: p.read_bytes() for p in read_only.iterdir()}
    command = [sys.executable, "-c", "from urlset.cli import main; main()", "build", str(source)]
    read_only.chmod(0o555)
    try:
        for out in (read_only, read_only / "new"):
            try:
                result = subprocess.run(
                    [*command, "--base-url", BASE, "--out", str(out)],
                    capture_output=True,
                    text=True,
                    timeout=60,
                    preexec_fn=_without_dac_override if os.geteuid() == 0 else None,
                )
            except subprocess.TimeoutExpired:
                raise
            except subprocess.SubprocessError as exc:  # the child failed before running it
                pytest.skip(f"running as root, and cannot give up CAP_DAC_OVERRIDE: {exc}")
            below = "" if out == read_only else f", so {out} cannot be created"
            assert result.returncode == 2, result.stderr
            assert result.stderr == (
                f"urlset build: error: {read_only}: the directory is read-only for this user "
                f"(Permission denied){below}; nothing was published\n"
            )
            assert {p.name: p.read_bytes() for p in read_only.iterdir()} == before
    finally:
        read_only.chmod(0o755)


@pytest.mark.skipif(not Path("/sys/kernel").is_dir(), reason="needs Linux's sysfs at /sys")
def test_a_directory_no_one_may_write_in_is_said_read_only(tmp_path: Path) -> None:
    """/sys takes no new file or directory, from root either."""
    source = tmp_path / "urls.txt"
    source.write_text(f"{BASE}a\n")
    for out in ("/sys", "/sys/urlset-test/out"):
        result = CliRunner().invoke(main, ["build", str(source), "--base-url", BASE, "--out", out])
        assert result.exit_code == 2
        assert result.output.startswith("urlset build: error: /sys: the directory is ")
        assert "read-only" in result.output and "nothing was published" in result.output
    assert not Path("/sys/urlset-test").exists()


def test_an_output_that_is_not_a_directory_is_named_and_said_so(tmp_path: Path) -> None:
    source = tmp_path / "urls.txt"
    source.write_text(f"{BASE}a\n")
    a_file = tmp_path / "a-file"
    a_file.write_text("mine")
    targets = [
        (
            str(a_file / "out"),
            f"{a_file}: exists and is not a directory (a file), so {a_file / 'out'} cannot be created",
        )
    ]
    if Path("/dev/full").exists():
        targets.append(
            ("/dev/full", "/dev/full: exists and is not a directory (a character device)")
        )
    for out, message in targets:
        result = CliRunner().invoke(main, ["build", str(source), "--base-url", BASE, "--out", out])
        assert result.exit_code == 2
        assert result.output == f"urlset build: error: {message}; nothing was published\n"
    with pytest.raises(
        PublishError, match=f"^{a_file}: exists and is not a directory \\(a file\\)$"
    ):
        write_sitemaps([Url(BASE + "a")], a_file, BASE)
    assert a_file.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "urls.txt"]
    if Path("/dev/full").exists():
        assert Path("/dev/full").is_char_device()


@pytest.mark.parametrize("cut", ["truncated", "damaged"])
def test_a_broken_gzip_input_fails_the_build_and_publishes_nothing(
    tmp_path: Path, cut: str
) -> None:
    import gzip

    whole = gzip.compress("".join(f"https://example.com/p{i}\n" for i in range(50_000)).encode())
    broken = (
        whole[: len(whole) // 2] if cut == "truncated" else whole[:-40] + bytes(32) + whole[-8:]
    )
    source = tmp_path / "urls.txt.gz"
    source.write_bytes(broken)
    out = tmp_path / "out"
    result = CliRunner().invoke(
        main, ["build", str(source), "--base-url", "https://example.com/", "--out", str(out), "-q"]
    )
    assert result.exit_code == 2, result.output
    assert "gzip stream ends early or is damaged" in result.output
    assert "nothing was published" in result.output
    assert not out.exists() or not any(out.iterdir())

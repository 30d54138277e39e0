"""Hostile inputs: each ends with a clear error, in bounded memory, without reading files.

Every case runs in a fresh interpreter that builds its input itself (a gzip bomb is 1 MB on
the wire and over 1 GB inflated; nothing that size ever exists in memory) and reports the
entries, the issue codes and how much its resident memory grew while reading. A hang would
show as the generous subprocess timeout, not as a timing assertion.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SCRIPT = r"""
import json, os, resource, sys, zlib
from urlset.reading.reader import read_chunks
from urlset.limits import ReadLimits

NS = b"http://www.sitemaps.org/schemas/sitemap/0.9"
HEAD = b'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="' + NS + b'">\n'
MB = 1 << 20

def bomb():
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    yield z.compress(HEAD + b"<url><loc>https://example.com/first</loc></url>\n") + z.flush()
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    member = z.compress(b" " * (16 * MB)) + z.flush()  # about 16 KB
    for _ in range(70):  # 70 x 16 MiB = 1.1 GiB inflated, about 1.1 MB deflated
        yield member

def bomb_of_markup():
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    yield z.compress(HEAD + b"<url><loc>https://example.com/first</loc></url>\n") + z.flush()
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = (b"<junk>" + b"a" * 4000 + b"</junk>\n") * 4096
    member = z.compress(block) + z.flush()
    for _ in range(70):  # 70 x 16 MiB = 1.1 GiB of elements nobody asked for
        yield member

def bomb_of_entries():
    record = b"<url><loc>https://example.com/same</loc></url>\n"
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    yield z.compress(HEAD)
    block = record * (MB // len(record))
    for _ in range(1200):  # about 1.2 GB of entries
        out = z.compress(block)
        if out:
            yield out
    yield z.flush()

def long_loc():
    yield HEAD + b"<url><loc>https://example.com/"
    for _ in range(100):
        yield b"a" * MB
    yield b"</loc></url>\n<url><loc>https://example.com/after</loc></url>\n</urlset>\n"

def long_text_line():
    yield b"https://example.com/first\nhttps://example.com/"
    for _ in range(100):
        yield b"a" * MB
    yield b"\nhttps://example.com/after\n"

def one_line_no_newline():
    for _ in range(100):
        yield b"x" * MB

def deep():
    yield HEAD + b"<url><loc>https://example.com/a</loc></url>" + b"<a>" * 200_000
    yield b"</a>" * 200_000 + b"</urlset>"

def laughs():
    ents = b'<!ENTITY l0 "lol">' + b"".join(
        b'<!ENTITY l%d "%s">' % (i, (b"&l%d;" % (i - 1)) * 10) for i in range(1, 10)
    )
    yield b'<?xml version="1.0"?>\n<!DOCTYPE urlset [' + ents + b"]>\n"
    yield b'<urlset xmlns="' + NS + b'"><url><loc>https://example.com/&l9;</loc></url></urlset>'

def quadratic():
    big = b"x" * 100_000
    yield b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY a "' + big + b'">]>'
    yield b'<urlset xmlns="' + NS + b'">' + b"<url><loc>&a;&a;&a;&a;&a;&a;</loc></url>" * 5000
    yield b"</urlset>"

def xxe():
    path = sys.argv[2]
    yield b'<?xml version="1.0"?>\n<!DOCTYPE urlset [<!ENTITY x SYSTEM "file://' + path.encode() + b'">]>'
    yield b'<urlset xmlns="' + NS + b'"><url><loc>&x;</loc></url></urlset>'

def quadratic_no_dtd():
    yield HEAD
    yield b"<url><loc>https://example.com/a</loc>" + b'<x a="'
    for _ in range(50):
        yield b"y" * MB
    yield b'"/></url></urlset>'

def invalid_utf8():
    yield HEAD + b"<url><loc>https://example.com/\xff\xfe\xfd</loc></url>\n"
    yield b"<url><loc>https://example.com/ok</loc></url>\n</urlset>\n"

def nul():
    yield HEAD + b"<url><loc>https://example.com/a\x00b</loc></url>\n"
    yield b"<url><loc>https://example.com/ok</loc></url>\n</urlset>\n"

def nul_text():
    yield b"https://example.com/a\x00b\nhttps://example.com/ok\n"

def many_errors():
    yield HEAD
    for _ in range(15):
        yield b"<url><loc>https://example.com/a&b</loc></url>\n" * 2000
    yield b"</urlset>\n"

CASES = {name: fn for name, fn in globals().items() if callable(fn) and not name.startswith("_")}
case = sys.argv[1]
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
limits = ReadLimits(max_entries=int(os.environ.get("MAX_ENTRIES", "1000000")))
result = read_chunks(CASES[case](), source=case, limits=limits)
count = 0
first = last = None
for entry in result:
    count += 1
    if first is None:
        first = entry.loc
    last = entry.loc
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
json.dump({
    "entries": count, "first": first, "last": last, "fatal": result.fatal,
    "codes": [i.code for i in result.issues],
    "messages": [i.message[:200] for i in result.issues][:20],
    "grew_mb": (after - before) / 1024,
}, sys.stdout)
"""

# generous: a case that hangs fails here rather than blocking the suite
TIMEOUT = 300
MEMORY_MB = 150


def run(case: str, *args: str, max_entries: int = 1_000_000) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, case, *args],
        env={**os.environ, "MAX_ENTRIES": str(max_entries)},
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    data: dict[str, Any] = json.loads(proc.stdout)
    assert data["grew_mb"] < MEMORY_MB, data
    return data


def test_gzip_bomb_of_whitespace_stops_early() -> None:
    out = run("bomb")
    assert out["entries"] == 1 and out["first"] == "https://example.com/first"
    # a gigabyte of nothing but spaces: no markup for more than the value limit
    assert out["codes"] == ["value-too-long"]
    assert not out["fatal"]  # the entry before the bomb was read


@pytest.mark.slow
def test_gzip_bomb_stops_at_the_size_limit() -> None:
    out = run("bomb_of_markup")
    assert out["entries"] == 1 and out["first"] == "https://example.com/first"
    assert "decompressed-size-limit" in out["codes"]
    assert out["codes"].count("unknown-element") == 1  # one finding per tag, at its first place
    assert not out["fatal"]


@pytest.mark.slow
def test_gzip_bomb_of_entries_stops_at_the_size_limit() -> None:
    out = run("bomb_of_entries", max_entries=200_000)
    # the entry limit comes before 200 MB: that limit stops it
    assert out["entries"] == 200_000
    assert "entry-limit" in out["codes"]
    # every entry is the same URL: one duplicate issue per entry after the first, capped
    assert out["codes"].count("duplicate-loc") == 1000
    assert "too-many-errors" in out["codes"]


def test_100_mb_value_in_xml() -> None:
    out = run("long_loc")
    assert out["codes"] == ["value-too-long"]
    assert out["entries"] == 0  # reading stops; nothing is invented


def test_100_mb_line_in_text() -> None:
    out = run("long_text_line")
    assert out["codes"] == ["value-too-long"]
    assert (out["first"], out["last"]) == ("https://example.com/first", "https://example.com/after")


def test_100_mb_without_any_newline() -> None:
    out = run("one_line_no_newline")
    assert out["entries"] == 0
    assert out["codes"] == ["value-too-long"]


def test_deep_nesting() -> None:
    out = run("deep")
    assert out["entries"] == 1
    assert out["codes"][0] == "depth-limit"


def test_billion_laughs() -> None:
    out = run("laughs")
    assert out["entries"] == 0 and out["fatal"]
    assert out["codes"] == ["doctype-refused"]


def test_quadratic_blowup() -> None:
    out = run("quadratic")
    assert out["entries"] == 0 and out["fatal"]
    assert out["codes"] == ["doctype-refused"]


def test_huge_attribute_without_dtd() -> None:
    out = run("quadratic_no_dtd")
    assert out["entries"] == 0
    assert out["codes"] == ["value-too-long"]


def test_external_entity_never_read(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("https://example.com/SECRET-CONTENT\n")
    out = run("xxe", str(secret))
    assert out["entries"] == 0 and out["fatal"]
    assert out["codes"] == ["doctype-refused"]
    assert "SECRET" not in json.dumps(out)


def test_invalid_utf8() -> None:
    out = run("invalid_utf8")
    assert "invalid-encoding" in out["codes"]
    assert out["last"] == "https://example.com/ok"


def test_nul_byte() -> None:
    out = run("nul")
    assert "invalid-character" in out["codes"]
    assert out["last"] == "https://example.com/ok"
    text = run("nul_text")
    assert text["codes"] == ["invalid-character"] and text["entries"] == 1


def test_a_flood_of_errors_is_capped() -> None:
    out = run("many_errors")
    # 30,000 bare '&': read as '&amp;', 1,000 listed, the rest counted; memory stays flat
    assert out["entries"] == 30_000 and out["first"] == "https://example.com/a&b"
    assert out["codes"].count("unescaped-ampersand") == 1000
    assert out["codes"].count("duplicate-loc") == 1000
    assert sorted(set(out["codes"])) == ["duplicate-loc", "too-many-errors", "unescaped-ampersand"]

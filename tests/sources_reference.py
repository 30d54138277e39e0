"""Reference reads of build inputs: CSV, TSV, text and JSON Lines files of every shape the
sources take (quotes, quoted line breaks, CRLF and lone CR, BOMs, invalid UTF-8, blank and
comment lines, missing and extra fields, bad JSON, extension columns and keys, fields past the
CSV field limit, gzip), and what reading and building them gave: each entry or problem with
its line, the files written (SHA-256) and the build's problems. Recorded in
tests/data/sources_reference.json by the Python parsers (the `csv` and `json` modules) as
they were before parsing moved to the compiled core (git history: the commit adding that
file); ``tests/test_sources_reference.py`` reads and builds the same inputs and compares.
Regenerate only when the output is meant to change:

    .venv/bin/python tests/sources_reference.py
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import Any

REFERENCE = Path(__file__).parent / "data" / "sources_reference.json"
BASE = "https://www.example.com/"
NOW = datetime(2026, 1, 1, tzinfo=UTC)
BOM = b"\xef\xbb\xbf"
B = BASE.encode()

_LOCS = [
    "p/{i}",
    "p/{i}?a=1&b=2",
    "p/{i}?q=it's",
    "p/{i}/café-日本",
    "p/{i}/caf%C3%A9",
    "p/{i}?x=<y>",
    "p/{d}",  # duplicates
]
_LASTMODS = ["", "2024-01-02", "2024-13-01", "2021-03-04T05:06:07+02:00", "2024", "2099-01-01"]
_FREQS = ["", "daily", "Weekly", "sometimes", " monthly "]
_PRIORITIES = ["", "0.5", "1.0", "high", "0.25", "2"]


def _quoted(cell: str, delimiter: str) -> str:
    if any(c in cell for c in f'"{delimiter}\r\n') or cell != cell.strip():
        return '"' + cell.replace('"', '""') + '"'
    return cell


def _table_lines(seed: int, n: int, delimiter: str) -> bytes:
    """A header then ``n`` rows: mostly good, some of every kind of bad."""
    rng = random.Random(seed)
    out = [delimiter.join(["LOC", " lastmod ", "changefreq", "priority", "sitemap"]).encode()]
    for i in range(n):
        loc = BASE + rng.choice(_LOCS).format(i=i, d=i % 40)
        cells = [loc, rng.choice(_LASTMODS), rng.choice(_FREQS), rng.choice(_PRIORITIES), ""]
        kind = rng.randrange(40)
        if kind == 0:
            cells = cells[:3]  # too few
        elif kind == 1:
            cells.append("extra")
        elif kind == 2:
            cells[0] = "relative/" + str(i)
        elif kind == 3:
            cells[0] = f' "{loc}" '
        elif kind == 4:
            cells[0] = loc + "\nsecond"  # a quoted line break
        line = delimiter.join(_quoted(c, delimiter) for c in cells).encode()
        if kind == 5:
            line = line.replace(b"p/", b"p\xff/", 1)  # not UTF-8
        elif kind == 6:
            line += b"\xfe"  # not UTF-8, in the ignored column
        elif kind == 7:
            line = b""  # blank
        elif kind == 8:
            line = b"  \t "
        out.append(line)
    ends = [b"\n", b"\r\n", b"\r"]
    return b"".join(line + rng.choice(ends) for line in out)


def _json_lines(seed: int, n: int) -> bytes:
    rng = random.Random(seed)
    out: list[bytes] = []
    for i in range(n):
        obj: dict[str, Any] = {"loc": BASE + rng.choice(_LOCS).format(i=i, d=i % 40)}
        for key, values in (("lastmod", _LASTMODS), ("changefreq", _FREQS)):
            value = rng.choice(values)
            if value or rng.randrange(2):
                obj[key] = value or rng.choice([None, ""])
        obj["priority"] = rng.choice([*_PRIORITIES, 0.5, 1, None, 0.0])
        kind = rng.randrange(60)
        if kind == 0:
            line = b"{broken"
        elif kind == 1:
            line = b""
        elif kind == 2:
            line = json.dumps({**obj, "images": [{"loc": BASE + "i.jpg"}]}).encode()
        elif kind == 3:
            line = json.dumps({**obj, "sitemap": BASE + "sitemap.xml"}).encode()
        elif kind == 4:
            line = json.dumps({**obj, "unknown": 1}).encode()
        elif kind == 5:
            line = json.dumps(obj).encode().replace(b"p/", b"p\xff/", 1)
        else:
            line = json.dumps(obj, ensure_ascii=bool(kind % 2)).encode()
        out.append(line)
    ends = [b"\n", b"\n", b"\r\n"]
    return b"".join(line + rng.choice(ends) for line in out)


_LONG = "x" * 131_072

# name -> (file name, its bytes, rows per batch or None for the default)
Case = tuple[str, Callable[[], bytes], int | None]
CASES: dict[str, Case] = {
    "csv-edges": (
        "e.csv",
        lambda: (
            BOM
            + b"Loc ,lastmod,priority\r\n"
            + f"{BASE}a?x=1&y='2',2024-01-02,0.5\r\n".encode()
            + b"\r\n"
            + f'"{BASE}b ""q""",,\n'.encode()  # a quoted quote: a bad loc
            + f'"{BASE}c"d,,\n'.encode()  # text after the closing quote
            + f'{BASE}d"e,,\n'.encode()  # a quote inside an unquoted cell
            + f'"{BASE}f\r\ng",,1.0\n'.encode()  # a quoted CRLF
            + f"\xa0{BASE}h\u3000,\x1c2024-01-03\x1f,\n".encode()  # Unicode spaces around
            + f"{BASE}i,2024-01-04\n".encode()  # too few fields
            + f"{BASE}j,2024-01-04,0.1,more\n".encode()  # too many
            + b'""\n'  # one empty quoted cell: blank
            + b" \n"
            + f"{BASE}k\x00,,\n".encode()  # a NUL
            + B
            + b"l\xc3\xa9,,\r"  # é, then a lone CR ends the line
            + B
            + b"m\xc3,,\n"  # cut UTF-8
            + b'"'
            + B
            + b'n\xc3""\xa9",,\n'  # é split by a quoted quote: not UTF-8
            + B
            + b'o\xc3"\xa9,,\n'
            + f'"{BASE}{_LONG}",,\n'.encode()  # past the field limit
            + f'"{BASE}{_LONG[: 131_072 - len(BASE)]}",,\n'.encode()  # just at it
            + f'"{BASE}{_LONG}\n{BASE}p",,\n'.encode()  # past it over two lines
            + f"{BASE}q,,0.9\n".encode()
            + f'"{BASE}unterminated,,\n{BASE}r,,\n'.encode()
        ),  # an open quote to the end
        None,
    ),
    "csv-edges-small-batches": ("e.csv", lambda: CASES["csv-edges"][1](), 2),
    "tsv-edges": (
        "e.tsv",
        lambda: (
            b"loc\tpriority\tchangefreq\n"
            + f"{BASE}a,b\t0.5\tdaily\n".encode()
            + f'"{BASE}b\t"\t\t\n'.encode()
            + f"{BASE}c\t\t\t\n".encode()
            + f"{BASE}d\t1\n".encode()
        ),
        None,
    ),
    "csv-mixed": ("m.csv", lambda: _table_lines(1, 9000, ","), None),
    "csv-mixed-gz": ("m.csv.gz", lambda: gzip.compress(_table_lines(2, 5000, ","), mtime=0), None),
    "tsv-mixed": ("m.tsv", lambda: _table_lines(3, 5000, "\t"), 1000),
    "csv-extensions": (
        "x.csv",
        lambda: (
            b"loc,image_loc,image_title,sitemap,alternate_de,news_name\n"
            + f"{BASE}a,{BASE}a.jpg|{BASE}b.jpg,|Té,,{BASE}de/a,\n".encode()
            + f"{BASE}b,,,{BASE}s.xml".encode()
            + b"\xff,,\n"  # bad bytes in an ignored column
            + f"{BASE}c,{BASE}c.jpg,,,,News\n".encode()  # news without its other columns
            + f"{BASE}d,{BASE}d.jpg\n".encode()
            + B
            + b"e\xff,,,,,\n"
            + f"{BASE}f,,T,,,\n".encode()
            + f'"{BASE}g\n",,,,,\n'.encode()
            + b"\n"
            + f'{BASE}h,"{BASE}h.jpg",,,"{BASE}de/h",\n'.encode()
        ),
        None,
    ),
    "csv-extensions-many": (
        "xm.csv",
        lambda: (
            b"loc,lastmod,image_loc\n"
            + b"".join(
                f"{BASE}x/{i},2024-02-{1 + i % 28:02},{BASE}x/{i}.jpg\n".encode()
                for i in range(5000)
            )
        ),
        None,
    ),
    "csv-unknown-column": ("u.csv", lambda: b"loc,lastmodified\nhttps://e.com/,x\n", None),
    "csv-no-loc": ("n.csv", lambda: b"url,lastmod\n", None),
    "csv-blank-header": ("b.csv", lambda: b"\nloc\nhttps://e.com/\n", None),
    "csv-two-boms": ("bb.csv", lambda: BOM + BOM + b"loc\n", None),
    "csv-header-not-utf8": ("h.csv", lambda: b"loc,lastmod\xff\n", None),
    "csv-empty": ("empty.csv", lambda: b"", None),
    "csv-bom-only": ("bom.csv", lambda: BOM, None),
    "csv-header-only": ("ho.csv", lambda: b"loc,lastmod", None),
    "csv-no-final-newline": ("nf.csv", lambda: f"loc\n{BASE}a\n{BASE}b".encode(), None),
    "text-edges": (
        "e.txt",
        lambda: (
            BOM
            + f"{BASE}a?b=1&c='d'\n".encode()
            + b"# a comment\n"
            + b"   # an indented comment\r\n"
            + b"\n \t\n"
            + f"  {BASE}b  \r".encode()
            + B
            + b"c\xff\n"
            + f"\x1c{BASE}d\u2028\x85\n".encode()
            + B
            + b"caf\xc3\xa9\r\n"
            + f"{BASE}e #not a comment\n".encode()
            + b"relative\n"
            + BOM
            + f"{BASE}f\n".encode()
            + f"{BASE}g".encode()
        ),
        None,
    ),
    "text-edges-small-batches": ("e.txt", lambda: CASES["text-edges"][1](), 2),
    "text-many": (
        "many.txt",
        lambda: b"".join(f"{BASE}t/{i}?a={i}&b=2\n".encode() for i in range(9000)),
        None,
    ),
    "jsonl-edges": (
        "e.jsonl",
        lambda: (
            BOM
            + f'{{"loc": "{BASE}a", "lastmod": "2024-01-02", "priority": 0.5}}\n'.encode()
            + f'{{"loc":"{BASE}b\\u00e9\\/x","changefreq":"daily","priority":"0.3"}}\r\n'.encode()
            + f'  {{ "priority" : 1 , "loc" : "{BASE}c" }}  \n'.encode()
            + f'{{"loc": "{BASE}d", "loc": "{BASE}d2", "lastmod": null}}\n'.encode()
            + f'{{"loc": "{BASE}e", "priority": NaN}}\n'.encode()
            + f'{{"loc": "{BASE}f", "sitemap": {{"nested": [1, 2]}}}}\n'.encode()
            + b"\n"
            + f'{{"loc": "{BASE}g", "type": "url"}}\n'.encode()
            + f'{{"loc": "{BASE}h", "type": "index"}}\n'.encode()
            + b"[1, 2]\n"
            + b'{"loc": "'
            + B
            + b'i\xff"}\n'
            + f'{{"loc": "{BASE}j", "lastmod": ""}}\r'.encode()  # a lone CR ends the line
            + f'{{"loc": "{BASE}k\\ud800"}}\n'.encode()
            + f'{{"loc": "{BASE}l", "images": [{{"loc": "{BASE}l.jpg"}}]}}\n'.encode()
            + f'{{"loc": "{BASE}m", "images": [{{"loc": 5}}]}}\n'.encode()
            + f'{{"loc": "{BASE}n",\n"lastmod": "2024-01-01"}}\n'.encode()  # split over lines
            + f'{{"loc": "{BASE}o\tx"}}\n'.encode()  # a raw tab: not JSON
            + f'{{"loc": "{BASE}p", "priority": 1e-1, "changefreq": "Never"}}\n'.encode()
            + b'{"lastmod": "2024-01-01"}\n'
            + f'{{"loc": "{BASE}q"}}'.encode()
        ),
        None,
    ),
    "jsonl-edges-small-batches": ("e.jsonl", lambda: CASES["jsonl-edges"][1](), 3),
    "jsonl-mixed": ("m.jsonl", lambda: _json_lines(4, 9000), None),
    "jsonl-clean": (
        "c.jsonl",
        lambda: b"".join(
            json.dumps(
                {
                    "loc": f"{BASE}c/{i}?a=1&b='{i}'/ü",
                    "lastmod": f"2024-03-{1 + i % 28:02}T10:00:00Z",
                    "changefreq": "weekly",
                    "priority": [0.5, "0.7", None][i % 3],
                },
                ensure_ascii=bool(i % 2),
            ).encode()
            + b"\n"
            for i in range(9000)
        ),
        None,
    ),
}


def _shown(entry: Any) -> Any:
    from urlset.errors import InputError

    if isinstance(entry, InputError):
        kept = entry.kept.loc if entry.kept is not None else None
        return ["error", entry.source, entry.line, entry.field, entry.reason, kept]
    return ["url", repr(entry)]


def read_and_build(name: str, tmp: Path) -> dict[str, Any]:
    """Read one case as ``iter_entries`` does and build it as ``urlset build`` does."""
    import urlset.writing.sources as sources
    from urlset import write_sitemaps
    from urlset.writing.build import BuildProblem

    file_name, make, per_batch = CASES[name]
    path = tmp / file_name
    path.write_bytes(make())
    fmt = sources.detect_format(file_name)
    saved = sources._ROWS_PER_CHECK
    if per_batch is not None:
        sources._ROWS_PER_CHECK = per_batch
    result: dict[str, Any] = {}
    try:
        try:
            with sources.open_source(str(path)) as stream:
                result["entries"] = [
                    _shown(e) for e in sources.iter_entries(stream, fmt, file_name)
                ]
        except Exception as exc:  # what a bad header raises is recorded
            result["entries"] = ["raised", type(exc).__name__, str(exc)]
        problems: list[BuildProblem] = []
        out = tmp / f"{name}-out"
        try:
            with sources.open_source(str(path)) as stream:
                batches = sources.iter_batches(stream, fmt, file_name, rows=True)
                write_sitemaps(
                    chain.from_iterable(batches),
                    out,
                    BASE,
                    now=NOW,
                    on_problem=problems.append,
                    gzip=False,
                    skip_out_of_scope=True,
                )
        except Exception as exc:
            result["raised"] = [type(exc).__name__, str(exc)]
        result["problems"] = [list(p) for p in problems]
        for key in ("entries", "problems"):  # a digest of long lists, the short ones as they are
            if len(result[key]) > 60:
                text = json.dumps(result[key], ensure_ascii=True)
                digest = hashlib.sha256(text.encode()).hexdigest()
                result[key] = {"count": len(result[key]), "sha256": digest}
        result["files"] = (
            {
                p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(out.iterdir())
                if p.is_file()
            }
            if out.exists()
            else {}
        )
    finally:
        sources._ROWS_PER_CHECK = saved
    return result


def main() -> None:
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in CASES:
            results[name] = read_and_build(name, Path(tmp))
    REFERENCE.write_text(json.dumps(results, indent=1, sort_keys=True, ensure_ascii=True) + "\n")
    sys.stdout.write(f"{REFERENCE}: {len(results)} cases\n")


if __name__ == "__main__":
    main()

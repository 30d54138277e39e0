"""Differential fuzzing of the readers at the Python boundary (tests/test_read_fuzz.py for a few
seconds in the suite, scripts/fuzz_read.py for as long as asked).

Seeds are the repository's sample files and, when ../shared is there, the real-world corpus and
the peers' test files (gzip ones inflated). Each case is a seed mutated one to four times the
ways hostile and careless input differs from a good sitemap: bit flips, inserted entity and
character references (surrogates, NUL, past U+10FFFF), raw surrogate and invalid UTF-8 bytes,
CDATA ends, comments and instructions, attributes given twice, cuts, swapped tag names, long
runs, repeated or deleted slices, CRs, a second document, a byte order mark; sometimes gzipped
again. It is read four ways, the compiled lane and the careful lane, each whole and in chunks
of a drawn size: nothing may raise, every issue code must be in the table, and the four results
(entries, issues with their places, format, fatal) must be equal, unless a row of
``read_fuzz_known.KNOWN`` (a deliberate difference, with its reason) explains it.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import random
import re
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from read_fuzz_known import KNOWN
from test_read_support import Result, feed_all
from urlset.codes import CODES
from urlset.extensions.rules import EXT_CODES

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("URLSET_SHARED") or REPO.parent / "shared")
SEED_CAP = 24_576  # a larger seed is cut to its head and its last 2 KiB (the root's end)
_SEED_SUFFIXES = (".xml", ".gz", ".txt", ".rss", ".atom")

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"
# a seed of each root the readers know, for when no file is at hand
BUILT_IN = [
    (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}" '
        'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
        'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
        "<url><loc>https://e.com/a?x=1&amp;y=2</loc><lastmod>2024-01-02</lastmod>"
        "<changefreq>daily</changefreq><priority>0.5</priority></url>\n"
        "<url><loc>https://e.com/b</loc><image:image><image:loc>https://e.com/i.jpg</image:loc>"
        "<image:caption>A caption</image:caption></image:image>"
        '<xhtml:link rel="alternate" hreflang="de" href="https://e.com/de"/></url>\n'
        "</urlset>\n"
    ).encode(),
    (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex xmlns="{NS}">\n'
        "<sitemap><loc>https://e.com/s1.xml</loc><lastmod>2024-01-02T03:04:05Z</lastmod></sitemap>\n"
        "<sitemap><loc>https://e.com/s2.xml</loc></sitemap>\n</sitemapindex>\n"
    ).encode(),
    b"https://e.com/a\nhttps://e.com/b\r\n\nhttps://e.com/c\n",
]


def seeds(shared: bool = True) -> list[tuple[str, bytes]]:
    """(name, bytes) of every seed: the repository's sample files, the corpus's when
    ``shared`` and it is there, and the built-in ones."""
    folders = [REPO / "tests" / "data" / "check"]
    if shared and (SHARED / "corpus").is_dir():
        folders += [SHARED / "corpus" / "realworld", SHARED / "corpus" / "peers"]
    found = [(f"built-in {i}", data) for i, data in enumerate(BUILT_IN)]
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if not path.is_file() or not path.name.endswith(_SEED_SUFFIXES):
                continue
            data = path.read_bytes()
            if data[:2] == b"\x1f\x8b":  # a damaged gzip file is a seed as it is
                with contextlib.suppress(OSError, EOFError, zlib.error):
                    data = gzip.decompress(data)
            if len(data) > SEED_CAP:
                data = data[: SEED_CAP - 2048] + data[-2048:]
            found.append((str(path.relative_to(folder.parent)), data))
    return found


# --- mutations: each takes the document and a random source, and gives the mutated document

REFERENCES = [
    b"&amp;",
    b"&lt;",
    b"&quot;",
    b"&#x41;",
    b"&#65;",
    b"&#xD800;",
    b"&#xDFFF;",
    b"&#55296;",
    b"&#0;",
    b"&#x1;",
    b"&#31;",
    b"&#x110000;",
    b"&#xFFFE;",
    b"&#xFFFF;",
    b"&#x10FFFF;",
    b"&nbsp;",
    b"&",
    b"&#;",
    b"&#x;",
    b"&#99999999;",
    b"&#x0000000D800;",
]
PIECES = [
    b"]]>",
    b"<![CDATA[",
    b"<![CDATA[x]]>",
    b"<!--",
    b"-->",
    b"<!---->",
    b"<?pi x?>",
    b"<?xml version='1.0'?>",
    b"<",
    b">",
    b"</url>",
    b"<url>",
    b"<url/>",
    b"</urlset>",
    b"\x00",
    b"\r",
    b"\r\n",
    b"\t",
    b"\xed\xa0\x80",
    b"\xff",
    b"\xc3",
    b"\xef\xbb\xbf",
    b"`",
    b"{",
    b"'",
    b'"',
    b"=",
    b"https://u:p@e.com/",
    b"<loc>",
    b"</loc>",
    b"<x:y/>",
    b"xmlns:q='urn:q'",
]
_TAG = re.compile(rb"<([A-Za-z_][\w.:\-]*)")
_ATTRIBUTE = re.compile(rb"""\s([A-Za-z_][\w.:\-]*)\s*=\s*("[^"<]*"|'[^'<]*')""")


def _at(doc: bytes, rng: random.Random) -> int:
    return rng.randrange(len(doc) + 1)


def flip(doc: bytes, rng: random.Random) -> bytes:
    if not doc:
        return doc
    at = rng.randrange(len(doc))
    return doc[:at] + bytes([doc[at] ^ (1 << rng.randrange(8))]) + doc[at + 1 :]


def reference(doc: bytes, rng: random.Random) -> bytes:
    at = _at(doc, rng)
    return doc[:at] + rng.choice(REFERENCES) + doc[at:]


def piece(doc: bytes, rng: random.Random) -> bytes:
    at = _at(doc, rng)
    return doc[:at] + rng.choice(PIECES) + doc[at:]


def in_text(doc: bytes, rng: random.Random) -> bytes:
    """A reference or piece inside a value: just before some element's end tag."""
    ends = [m.start() for m in re.finditer(rb"</", doc)]
    if not ends:
        return reference(doc, rng)
    at = rng.choice(ends)
    return doc[:at] + rng.choice(REFERENCES + PIECES[:8]) + doc[at:]


def duplicate_attribute(doc: bytes, rng: random.Random) -> bytes:
    found = list(_ATTRIBUTE.finditer(doc))
    if not found:
        return piece(doc, rng)
    m = rng.choice(found)
    return doc[: m.end()] + b" " + m.group(1) + b"=" + m.group(2) + doc[m.end() :]


def cut(doc: bytes, rng: random.Random) -> bytes:
    return doc[: _at(doc, rng)]


def swap_tags(doc: bytes, rng: random.Random) -> bytes:
    found = list(_TAG.finditer(doc))
    if len(found) < 2:
        return piece(doc, rng)
    a, b = rng.sample(found, 2)
    name = b.group(1)
    return doc[: a.start(1)] + name + doc[a.end(1) :]


def long_run(doc: bytes, rng: random.Random, *, longest: int = 20_000) -> bytes:
    at = _at(doc, rng)
    unit = rng.choice([b" ", b"a", b"\n", b"<!---->", b"<url></url>", b"&amp;", b"]", b"\r"])
    return doc[:at] + unit * rng.randint(1, max(1, longest // len(unit))) + doc[at:]


def repeat(doc: bytes, rng: random.Random) -> bytes:
    at = _at(doc, rng)
    return doc[:at] + doc[at : at + rng.randint(1, 400)] + doc[at:]


def delete(doc: bytes, rng: random.Random) -> bytes:
    at = _at(doc, rng)
    return doc[:at] + doc[at + rng.randint(1, 40) :]


def second_document(doc: bytes, rng: random.Random) -> bytes:
    return doc + rng.choice([doc, b"\n" + doc, b"<url><loc>https://e.com/z</loc></url>"])


def encoding(doc: bytes, rng: random.Random) -> bytes:
    kind = rng.choice(["bom", "utf-16", "utf-32", "latin"])
    if kind == "bom":
        return b"\xef\xbb\xbf" + doc
    if kind == "latin":
        return doc.replace(b'encoding="UTF-8"', b'encoding="ISO-8859-1"', 1)
    text = doc.decode("utf-8", "replace")
    return text.encode(kind)


MUTATIONS: list[Callable[[bytes, random.Random], bytes]] = [
    flip,
    reference,
    piece,
    in_text,
    in_text,
    duplicate_attribute,
    cut,
    swap_tags,
    long_run,
    repeat,
    delete,
    second_document,
    encoding,
]


def mutate(doc: bytes, rng: random.Random) -> tuple[bytes, list[str]]:
    names = []
    for _ in range(rng.randint(1, 4)):
        mutation = rng.choice(MUTATIONS)
        names.append(mutation.__name__)
        doc = mutation(doc, rng)
    if rng.random() < 0.1:
        names.append("gzip")
        doc = gzip.compress(doc, compresslevel=1, mtime=0)
    return doc, names


# --- reading four ways


@dataclass
class Outcome:
    """What one case gave: ``ways`` names each reading (lane, chunks) and its result."""

    ways: dict[str, Result | str]

    @property
    def raised(self) -> list[str]:
        return [f"{way}: {r}" for way, r in self.ways.items() if isinstance(r, str)]

    @property
    def unknown_codes(self) -> set[str]:
        return {
            i.code
            for r in self.ways.values()
            if not isinstance(r, str)
            for i in r[1]
            if i.code not in CODES and i.code not in EXT_CODES and i.code != "too-many-errors"
        }

    @property
    def agree(self) -> bool:
        results = list(self.ways.values())
        return all(r == results[0] for r in results[1:])


def read_four_ways(doc: bytes, chunk: int) -> Outcome:
    ways: dict[str, Result | str] = {}
    for fast in (True, False):
        lane = "compiled" if fast else "careful"
        for name, sizes in ((f"{lane} whole", [len(doc) or 1]), (f"{lane} in {chunk}s", [chunk])):
            try:
                ways[name] = feed_all(doc, sizes, fast=fast)
            except Exception as exc:  # what the fuzzing is for: any exception at all
                ways[name] = f"{type(exc).__name__}: {exc}"[:300]
    return Outcome(ways)


def known(doc: bytes, outcome: Outcome) -> str | None:
    """The name of the row of ``KNOWN`` that explains a disagreement, or None."""
    for name, (matches, _reason) in KNOWN.items():
        if matches(doc, outcome.ways):
            return name
    return None


@dataclass
class Tally:
    """Counts of a run, and the cases that failed (at most ``keep``)."""

    cases: int = 0
    by_mutation: Counter[str] = field(default_factory=Counter)
    known: Counter[str] = field(default_factory=Counter)
    failures: list[tuple[str, list[str], bytes, Outcome]] = field(default_factory=list)
    keep: int = 20

    def line(self) -> str:
        return (
            f"{self.cases:,} cases, {len(self.failures)} failing, "
            f"known differences {dict(self.known) or 'none'}; "
            f"mutations {dict(sorted(self.by_mutation.items()))}"
        )


def run(
    pool: list[tuple[str, bytes]], rng: random.Random, keep_going: Callable[[int], bool]
) -> Tally:
    """Cases while ``keep_going(cases so far)``: each a seed of ``pool`` mutated and read
    four ways."""
    tally = Tally()
    while keep_going(tally.cases):
        name, seed = rng.choice(pool)
        doc, names = mutate(seed, rng)
        tally.cases += 1
        tally.by_mutation.update(names)
        outcome = read_four_ways(doc, rng.choice([1, 7, 61, 997, 4096, 65_537]))
        problem = outcome.raised or outcome.unknown_codes or not outcome.agree
        if not problem:
            continue
        if not outcome.raised and not outcome.unknown_codes:
            why = known(doc, outcome)
            if why is not None:
                tally.known[why] += 1
                continue
        if len(tally.failures) < tally.keep:
            tally.failures.append((name, names, doc, outcome))
    return tally


def describe(failure: tuple[str, list[str], bytes, Outcome]) -> Iterator[str]:
    name, names, doc, outcome = failure
    yield f"seed {name}, mutations {names}, {len(doc):,} bytes: {doc[:300]!r}"
    for way, result in outcome.ways.items():
        if isinstance(result, str):
            yield f"  {way}: raised {result}"
        else:
            entries, issues, fmt, fatal = result
            shown = [(i.code, i.line, i.column) for i in issues]
            yield f"  {way}: {len(entries)} entries {[e[0] for e in entries][:6]}, {fmt}, fatal={fatal}, {shown[:8]}"

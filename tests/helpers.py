"""Test helpers: an independent reading of what the writer produced (lxml, not urlset's reader)."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path
from types import ModuleType

from lxml import etree

NS = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def load(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


def parse(path: Path) -> etree._Element:
    return etree.fromstring(load(path), etree.XMLParser(resolve_entities=False, no_network=True))


def locs(path: Path) -> list[str]:
    return [el.text or "" for el in parse(path).iter(f"{NS}loc")]


def entries(path: Path) -> list[dict[str, str]]:
    """Each <url> as a dict of its sitemap-namespace children's text."""
    out = []
    for url in parse(path).iter(f"{NS}url"):
        out.append(
            {
                child.tag.removeprefix(NS): child.text or ""
                for child in url
                if child.tag.startswith(NS)
            }
        )
    return out


_HASHED = re.compile(r"(.+-\d+)-([0-9a-f]{16})(\.(?:xml|txt)(?:\.gz)?)")


def unhashed(out: Path, name: str) -> str:
    """A child's published name without its content hash (``sitemap-1-<16 hex>.xml.gz`` ->
    ``sitemap-1.xml.gz``), once the hash is checked to be the file's own: the first 16 hex
    digits of the SHA-256 of its bytes in ``out``. Other names come back as they are."""
    match = _HASHED.fullmatch(name)
    if match is None:
        return name
    assert hashlib.sha256((out / name).read_bytes()).hexdigest()[:16] == match[2], name
    return match[1] + match[3]


def bench_module(name: str) -> ModuleType:
    """A module of ``bench/`` (its shape generators: the benchmarks' and the tests' inputs)."""
    import importlib.util

    path = Path(__file__).resolve().parent.parent / "bench" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def mixed_sitemap(n: int) -> bytes:
    """``bench/bench_read.py``'s realistic mix of ``n`` URLs (queries with & and ', IRIs, an
    IDN host, ports, long locs, distinct lastmods), the benchmarks' and the tests' one input."""
    data: bytes = bench_module("bench_read").mixed_sitemap(n)
    return data

"""Input shapes for the build benchmarks (bench_shapes.py, bench_instructions.py): prepared
(loc, lastmod, changefreq, priority) rows, every URL distinct, on https://www.example.com/.

  plain       /products/item-N, one repeated date
  amp         /search?q=N&page=2 (& escaped)
  pct         /caf%C3%A9/N-%E2%82%AC (%-escapes, kept)
  datetimes   /products/item-N with a distinct W3C datetime per URL (+02:00)
  apostrophe  /search?q=it's-N (' escaped)
  mix         the five above in turn, 20% each

Imports only ``datetime``, so a benchmark child carries nothing else.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

HOST = "https://www.example.com/"
KINDS = ("plain", "amp", "pct", "datetimes", "apostrophe")
SHAPES = (*KINDS, "mix")
_T0 = datetime(2024, 1, 1, tzinfo=timezone(timedelta(hours=2)))


def row(kind: str, i: int) -> tuple[str, str, str, str]:
    """Row number ``i`` of one shape."""
    if kind == "plain":
        return (f"{HOST}products/item-{i}", "2024-05-06", "daily", "0.5")
    if kind == "amp":
        return (f"{HOST}search?q={i}&page=2", "2024-05-06", "daily", "0.5")
    if kind == "pct":
        return (f"{HOST}caf%C3%A9/{i}-%E2%82%AC", "2024-05-06", "weekly", "0.8")
    if kind == "datetimes":
        return (
            f"{HOST}products/item-{i}",
            (_T0 + timedelta(seconds=i)).isoformat(),
            "daily",
            "0.5",
        )
    if kind == "apostrophe":
        return (f"{HOST}search?q=it's-{i}", "2024-05-06", "daily", "0.5")
    raise ValueError(kind)


def rows(shape: str, n: int) -> list[tuple[str, str, str, str]]:
    """``n`` rows of a shape ("mix": the five kinds in turn)."""
    if shape == "mix":
        return [row(KINDS[i % len(KINDS)], i) for i in range(n)]
    return [row(shape, i) for i in range(n)]


def table(shape: str, n: int) -> object:
    """The same rows as an Arrow table."""
    import pyarrow as pa

    columns = map(list, zip(*rows(shape, n), strict=True))
    return pa.table(dict(zip(("loc", "lastmod", "changefreq", "priority"), columns, strict=True)))

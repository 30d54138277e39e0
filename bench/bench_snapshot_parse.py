"""What `urlset fetch --snapshot` does per sitemap before DuckDB, for callgrind: a parse
thread's work (gunzip, reader, JSON Lines output) and the store's record batches.

    .venv/bin/python bench/bench_fetch.py --no-peers --repeat 1   # builds the site
    valgrind --tool=callgrind --callgrind-out-file=OUT PYTHON bench/bench_snapshot_parse.py MODE K

MODE ``lane``: the render lane with columns beside the text (this tree); ``usual``: Urls as
columns, their text rendered and their values made a record batch (the way before, and the
way of any tree: run it with another checkout's Python). K: how many of the site's gzipped
sitemaps; the difference between two K over the URLs between them is the instructions a
URL (BENCHMARKS.md, "fetch --snapshot in the render lane").
"""

from __future__ import annotations

import sys
from pathlib import Path

from urlset.fetching.parse_pool import _Parsing
from urlset.limits import ReadLimits
from urlset.reading.output import RENDERERS
from urlset.store.entries import Batches

SITEMAPS = Path(__file__).resolve().parent / "out" / "fetch-site" / "sitemaps"
CHUNK = 256 * 1024  # what a parse thread is handed at a time


def main() -> None:
    mode, count = sys.argv[1], int(sys.argv[2])
    held = Batches(size=1 << 62)
    for path in sorted(SITEMAPS.glob("*.xml.gz"))[:count]:
        data = path.read_bytes()
        url = f"http://127.0.0.1/sitemaps/{path.name}"
        render = ("jsonl", RENDERERS["jsonl"])
        parsing = _Parsing(render, True, columns=True) if mode == "lane" else _Parsing(render)
        parsing.handle(("o", url, url, ReadLimits()))
        for i in range(0, len(data), CHUNK):
            parsing.handle(("d", data[i : i + CHUNK]))
        _, _, columns, _, _, _, batches, _ = parsing.handle(("c",))
        if mode == "lane":
            held.add_batches(batches)
        else:
            held.add(columns, url)
    table = held.take()
    print(0 if table is None else table.num_rows)


if __name__ == "__main__":
    main()

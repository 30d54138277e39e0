"""A fetch stops downloading when its reader stops reading, and keeps what it read.

The reader stops at any of its limits (the decompressed size, a value with no markup for
longer than ``max_value_length``, the entry count) or on input it cannot read on. Each
server here streams far more than the limit; the fetch must end near the limit, not after
the whole body, and pass on the entries read before the stop, labelled partial.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from aiohttp import web

from test_fetch_support import NS, LoopbackServer, fast_http, run_fetch
from urlset.fetching.values import NodeState
from urlset.limits import ReadLimits

STREAMED = 40 * 1024 * 1024  # what each server would send in all
BLOCK = 64 * 1024
KEPT = 100  # entries before the place where the reader stops

# every case over the lean client and over aiohttp alone
pytestmark = pytest.mark.usefixtures("either_client")


def streaming(
    opening: bytes, tail: bytes
) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
    """A handler: KEPT good entries, ``opening``, then ``tail`` repeated up to STREAMED
    bytes."""

    async def handler(request: web.Request) -> web.StreamResponse:
        resp = web.StreamResponse(headers={"Content-Type": "application/xml"})
        await resp.prepare(request)
        head = f'<?xml version="1.0"?>\n<urlset {NS}>\n' + "".join(
            f"<url><loc>http://127.0.0.1/{i}</loc></url>\n" for i in range(KEPT)
        )
        await resp.write(head.encode() + opening)
        block = (tail * (BLOCK // len(tail) + 1))[:BLOCK]
        try:
            for _ in range(STREAMED // BLOCK):
                await resp.write(block)
        except ConnectionError:  # the client stopped reading: as it should
            pass
        return resp

    return handler


CASES = {
    # one value that never ends: the reader stops at max_value_length
    "value-too-long": (
        b"<url><loc>http://127.0.0.1/",
        b"a",
        ReadLimits(max_value_length=50_000),
    ),
    # entries beyond the size limit: the reader stops at max_decompressed_bytes
    "decompressed-size-limit": (
        b"",
        b"<url><loc>http://127.0.0.1/more</loc></url>\n",
        ReadLimits(max_decompressed_bytes=1_048_576),
    ),
    # entries beyond the entry limit
    "entry-limit": (
        b"",
        b"<url><loc>http://127.0.0.1/more</loc></url>\n",
        ReadLimits(max_entries=KEPT),
    ),
}


@pytest.mark.parametrize("workers", [0, 1])
@pytest.mark.parametrize("code", sorted(CASES))
def test_the_download_stops_where_the_reader_stops(code: str, workers: int) -> None:
    opening, tail, limits = CASES[code]
    with LoopbackServer() as server:
        server.handle("/big.xml", streaming(opening, tail))
        http = fast_http(total_timeout=60.0, read_limits=limits)
        run = run_fetch(server.url("/big.xml"), http=http, workers=workers)
    node = run.node(server.url("/big.xml"))
    codes = run.codes(server.url("/big.xml"))
    assert code in codes and "fetch-partial" in codes
    assert node.state is NodeState.PARTIAL
    # the entries read before the stop are passed on (the first KEPT, each once)
    locs = run.locs_from(server.url("/big.xml"))
    assert locs[:KEPT] == [f"http://127.0.0.1/{i}" for i in range(KEPT)]
    # near the limit (socket buffers and one coalesced chunk of the parse thread), not 40 MiB
    assert node.bytes < 4 * 1024 * 1024
    partial = next(i for i in node.issues if i.code == "fetch-partial")
    assert f"({code})" in partial.message and "download was stopped" in partial.message

"""The render lane's records as ``UrlColumns``, for a fetch whose Urls are read besides its
output (``--report``'s counts, ``--cache``'s stored results).

In: the Arrow buffers the compiled core read a document's canonical records into
(``RenderSpec.columns()``, beside the output text), the reader's other Urls and the
``RenderedRun``s saying where the core's records sit among them. Out: one ``UrlColumns`` in
document order, equal to what ``UrlColumns.from_urls`` gives for the Urls the reader would
give without the lane (the core writes lastmods as ``format_w3c`` does, and a record's plain
images as their JSON, read back into ``Image`` values here). No pyarrow: the buffers are
sliced with the standard library, so a ``--cache`` run loads nothing more than a plain fetch.
"""

from __future__ import annotations

import json
import operator
from array import array
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from ..model import Url
from ..reading.output import NO_PRIORITY, UrlColumns
from ..reading.rendered import RenderedRun, in_order

# the core's changefreq is an index into ChangeFreq; UrlColumns' code is 0 for none, then
# ChangeFreq in order: one more
_NEXT_CODE = bytes((i + 1) % 256 for i in range(256))
# a validity bitmap's byte -> the 8 flags it holds (least significant bit first), 0 or 1
_FLAGS = [bytes((b >> k) & 1 for k in range(8)) for b in range(256)]


def core_columns(buffers: tuple[Any, ...] | None) -> UrlColumns:
    """The core's records (``RecordRenderer.columns()``: count, then loc, lastmod,
    lastmod_at, changefreq, priority, extensions buffers, loc hashes) as UrlColumns; None:
    no records."""
    if buffers is None:
        return UrlColumns([], [], b"", array("d"), None)
    n, loc, lastmod, _, changefreq, priority, extensions, _ = buffers
    (freq_validity, freq_nulls), freq_values, _ = changefreq
    codes = freq_values[:n].translate(_NEXT_CODE)
    if freq_nulls:
        codes = bytes(map(operator.mul, codes, _flags(freq_validity, n)))
    (prio_validity, prio_nulls), prio_values, _ = priority
    priorities = array("d")
    priorities.frombytes(prio_values[: 8 * n])
    if prio_nulls == n:
        priorities = array("d", [NO_PRIORITY]) * n
    elif prio_nulls:
        flags = _flags(prio_validity, n)
        priorities = array(
            "d", [p if f else NO_PRIORITY for p, f in zip(priorities, flags, strict=True)]
        )
    return UrlColumns(
        _texts(n, loc), _texts(n, lastmod), codes, priorities, _extensions(n, extensions)
    )


def _extensions(n: int, buffers: Any) -> list[tuple[Any, ...]] | None:
    """The extensions column's JSON objects as the values they were written from (only the
    records with images make objects); None when no record has any."""
    (_, nulls), _, _ = buffers
    if nulls == n:
        return None
    from ..extensions import from_json_fields

    return [from_json_fields(json.loads(text)) if text else () for text in _texts(n, buffers)]


def _flags(validity: bytes | None, n: int) -> bytes:
    """A validity bitmap as one byte a record: 1 valid, 0 null."""
    if validity is None:
        return b"\x01" * n
    return b"".join([_FLAGS[b] for b in validity])[:n]


def _texts(n: int, buffers: Any) -> list[str]:
    """A string column's values; a null one is "" (its offsets hold no bytes for it)."""
    _, offsets_bytes, values = buffers
    offsets = memoryview(offsets_bytes).cast("i")[: n + 1].tolist()
    if values.isascii():  # byte offsets are character offsets: one decode, then slices
        text = values.decode("ascii")
        return [text[a:b] for a, b in pairwise(offsets)]
    data = bytes(values)
    return [data[a:b].decode("utf-8") for a, b in pairwise(offsets)]


def in_document_order(
    urls: Sequence[Url], core: UrlColumns, runs: Sequence[RenderedRun]
) -> UrlColumns:
    """A document's Urls as one UrlColumns: the core's records (``core``, the ``runs`` in
    order) and the reader's ``urls`` in the places between them."""
    if not urls:
        return core
    if not runs:
        return UrlColumns.from_urls(urls)
    pieces: list[UrlColumns] = []
    taken = 0
    for part in in_order(urls, runs):
        if isinstance(part, RenderedRun):
            pieces.append(_rows(core, taken, taken + part.count))
            taken += part.count
        else:
            pieces.append(UrlColumns.from_urls(part))
    return concat(pieces)


def _rows(columns: UrlColumns, start: int, stop: int) -> UrlColumns:
    extensions = columns.extensions
    return UrlColumns(
        columns.locs[start:stop],
        columns.lastmods[start:stop],
        columns.changefreqs[start:stop],
        columns.priorities[start:stop],
        None if extensions is None or not any(extensions[start:stop]) else extensions[start:stop],
    )


def concat(parts: Sequence[UrlColumns]) -> UrlColumns:
    """UrlColumns one after another, as one."""
    if len(parts) == 1:
        return parts[0]
    extensions: list[tuple[Any, ...]] | None = None
    if any(p.extensions is not None for p in parts):
        extensions = []
        for p in parts:
            extensions.extend(p.extensions if p.extensions is not None else [()] * p.count)
    priorities: array[float] = array("d")
    for p in parts:
        priorities.extend(p.priorities)
    return UrlColumns(
        [loc for p in parts for loc in p.locs],
        [t for p in parts for t in p.lastmods],
        b"".join(p.changefreqs for p in parts),
        priorities,
        extensions,
    )

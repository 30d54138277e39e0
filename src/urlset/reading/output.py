"""Entries as output text, a column at a time: ``UrlColumns`` (Urls as a few compact
columns, which pickle at C speed, e.g. between Dask workers) and the JSON
Lines, CSV, TSV and locs renderers that ``urlset read`` and ``urlset fetch`` share. A
renderer given a sitemap URL adds it to every line (fetch); given None, it does not (read).
Few distinct values recur across millions of URLs, so the pieces of a line are memoised
per value and a line is one f-string.
"""

from __future__ import annotations

import io
from array import array
from collections.abc import Callable, Sequence
from datetime import datetime
from itertools import repeat
from typing import Any

from ..dates import format_w3c, from_formatted
from ..extensions import json_fields
from ..model import ChangeFreq, Url
from ..patterns import lazy

_FREQS: tuple[ChangeFreq | None, ...] = (None, *ChangeFreq)
_FREQ_CODE: dict[ChangeFreq | None, int] = {f: i for i, f in enumerate(_FREQS)}
NO_PRIORITY = -1.0  # in UrlColumns.priorities: no <priority>


class _TextMemo(dict[Any, str]):
    """format_w3c memoised; None -> "" (few distinct lastmods recur across many URLs).

    Zoned datetimes are never keys here: two of one instant in different offsets are equal
    (and hash alike) in Python but are written differently, so they are memoised beside,
    by value and offset."""

    def __init__(self) -> None:
        super().__init__()
        self.zoned: dict[tuple[datetime, Any], str] = {}

    def __missing__(self, key: Any) -> str:
        if type(key) is datetime:
            zoned = self.zoned
            pair = (key, key.utcoffset())
            text = zoned.get(pair)
            if text is None:
                if len(zoned) > 200_000:
                    zoned.clear()
                text = zoned[pair] = format_w3c(key)
            return text
        if len(self) > 200_000:
            self.clear()
        text = self[key] = "" if key is None else format_w3c(key)
        return text


_LASTMOD_TEXT = _TextMemo()


class UrlColumns:
    """Urls as a few compact columns: what a parse thread hands back and what the output
    renderers read (a handful of large objects pickle in microseconds; 50,000 small ones
    take tens of milliseconds). ``lastmods`` are W3C text ("" for none), ``changefreqs``
    one code per URL (0 none, then ChangeFreq in order), ``priorities`` floats
    (NO_PRIORITY for none), ``extensions`` None when no URL has any."""

    __slots__ = ("_lastmods", "_locs", "changefreqs", "count", "extensions", "priorities")

    def __init__(
        self,
        locs: list[str],
        lastmods: list[str],
        changefreqs: bytes,
        priorities: array[float],
        extensions: list[tuple[Any, ...]] | None,
    ) -> None:
        self.count = len(locs)
        self._locs: list[str] | str = locs
        self._lastmods: list[str] | str = lastmods
        self.changefreqs = changefreqs
        self.priorities = priorities
        self.extensions = extensions

    @classmethod
    def from_urls(cls, urls: Sequence[Url]) -> UrlColumns:
        extensions = [u[4] for u in urls]
        return cls(
            [u[0] for u in urls],
            list(map(_LASTMOD_TEXT.__getitem__, [u[1] for u in urls])),
            bytes(map(_FREQ_CODE.__getitem__, [u[2] for u in urls])),
            array("d", [NO_PRIORITY if p is None else p for p in [u[3] for u in urls]]),
            extensions if any(extensions) else None,
        )

    @property
    def locs(self) -> list[str]:
        if isinstance(self._locs, str):
            self._locs = self._locs.split("\n") if self.count else []
        return self._locs

    @property
    def lastmods(self) -> list[str]:
        if isinstance(self._lastmods, str):
            self._lastmods = self._lastmods.split("\n") if self.count else []
        return self._lastmods

    def __reduce__(self) -> tuple[Any, ...]:
        # locs hold no line breaks (they are URIs), nor does W3C text
        locs = self._locs if isinstance(self._locs, str) else "\n".join(self._locs)
        lastmods = self._lastmods if isinstance(self._lastmods, str) else "\n".join(self._lastmods)
        state = (locs, lastmods, self.changefreqs, self.priorities.tobytes(), self.extensions)
        return (_columns_from_state, (self.count, *state))

    def head(self, n: int) -> UrlColumns:
        return UrlColumns(
            self.locs[:n],
            self.lastmods[:n],
            self.changefreqs[:n],
            self.priorities[:n],
            None if self.extensions is None else self.extensions[:n],
        )

    def urls(self) -> list[Url]:
        """The Url values (W3C text parsed back: datetime.fromisoformat reads what
        format_w3c writes)."""
        lastmods = [None if not t else from_formatted(t) for t in self.lastmods]
        freqs = [_FREQS[c] for c in self.changefreqs]
        priorities = [None if p == NO_PRIORITY else p for p in self.priorities]
        extensions = self.extensions if self.extensions is not None else [()] * self.count
        return list(map(Url._trusted, self.locs, lastmods, freqs, priorities, extensions))


def _columns_from_state(
    count: int,
    locs: str,
    lastmods: str,
    changefreqs: bytes,
    priorities: bytes,
    extensions: list[tuple[Any, ...]] | None,
) -> UrlColumns:
    columns = UrlColumns([], [], changefreqs, array("d", priorities), extensions)
    columns.count = count
    columns._locs = locs
    columns._lastmods = lastmods
    return columns


Render = Callable[[UrlColumns, str | None], str]  # (urls, sitemap URL) -> text, a line each


# a loc that JSON must escape (URIs from to_uri never need it; this is the safety net)
_COMPACT = (",", ":")  # JSON without spaces, as every line is written
# anything but printable ASCII other than " and \ (written as the complement: the range
# up to U+10FFFF took ~3 ms to compile at start-up)
_JSON_UNSAFE = lazy(r"[^ !#-\[\]-~]")


class _Memo(dict[Any, str]):
    """A dict that renders a missing key once: few distinct values recur across millions
    of URLs, and a lookup is far cheaper than formatting."""

    def __init__(self, render: Callable[[Any], str], empty: Any) -> None:
        super().__init__()
        self.render = render
        self.empty = empty
        self[empty] = ""

    def __missing__(self, key: Any) -> str:
        if len(self) > 200_000:
            self.clear()
            self[self.empty] = ""
        text = self[key] = self.render(key)
        return text


# pieces by column value: lastmod W3C text ("" none), changefreq code (0 none), priority
_LASTMOD_JSON = _Memo(lambda text: ',"lastmod":"' + text + '"', "")
_CHANGEFREQ_JSON = ("", *(',"changefreq":"' + c.value + '"' for c in ChangeFreq))
_PRIORITY_JSON = _Memo(lambda value: ',"priority":' + repr(value), NO_PRIORITY)
CHANGEFREQ_TEXT = ("", *(c.value for c in ChangeFreq))
_PRIORITY_CELL = _Memo(repr, NO_PRIORITY)
_NEEDS_QUOTES = {",": lazy(r'[",\r\n]'), "\t": lazy(r'["\t\r\n]')}


def line_tail(fmt: str, sitemap: str | None) -> str:
    """What ends each line of ``fmt`` after an entry's own cells (the render lane's
    ``RenderSpec.tail``); the renderers below end their lines the same way."""
    # json is loaded where it is used: a read whose entries the compiled core renders needs
    # none (~6M instructions of start-up)
    if fmt == "jsonl":
        return "}\n" if sitemap is None else ',"sitemap":' + _dumps(sitemap) + "}\n"
    if fmt in ("csv", "tsv") and sitemap is not None:
        d = "," if fmt == "csv" else "\t"
        cell = sitemap
        if _NEEDS_QUOTES[d].search(sitemap) is not None:
            cell = '"' + sitemap.replace('"', '""') + '"'
        return d + cell + "\n"
    return "\n"


def render_jsonl(columns: UrlColumns, sitemap: str | None) -> str:
    """One JSON object per URL. The hot path of a large read or fetch, so it works column by
    column with memoised pieces (~0.5 us per URL; json.dumps per object takes ~5 us)."""
    tail = "}\n" if sitemap is None else ',"sitemap":' + _dumps(sitemap) + "}\n"
    locs = columns.locs
    # URIs from to_uri never need JSON escaping; one scan of all of them checks it
    if _JSON_UNSAFE.search("".join(locs)) is not None:
        locs = [_dumps(loc)[1:-1] for loc in locs]
    lastmods = map(_LASTMOD_JSON.__getitem__, columns.lastmods)
    changefreqs = map(_CHANGEFREQ_JSON.__getitem__, columns.changefreqs)
    priorities = map(_PRIORITY_JSON.__getitem__, columns.priorities)
    # extensions (images, videos, news, alternates, raw) in the shape `urlset read` writes
    extras: Any = (
        repeat("")
        if columns.extensions is None
        else [_extension_json(ext) for ext in columns.extensions]
    )
    return "".join(
        [
            f'{{"loc":"{loc}"{lastmod}{changefreq}{priority}{extra}{tail}'
            for loc, lastmod, changefreq, priority, extra in zip(
                locs,
                lastmods,
                changefreqs,
                priorities,
                extras,
                strict=False,  # extras may be repeat("")
            )
        ]
    )


def _dumps(text: str) -> str:
    """``text`` as a JSON string."""
    import json

    return json.dumps(text)


def _fields_json(extensions: tuple[Any, ...]) -> str:
    """An entry's extensions as the JSON object ``urlset read`` writes."""
    import json

    return json.dumps(json_fields(extensions), ensure_ascii=False, separators=_COMPACT)


def _extension_json(extensions: tuple[Any, ...]) -> str:
    if not extensions:
        return ""
    return "," + _fields_json(extensions)[1:-1]


def _extension_cell(extensions: tuple[Any, ...]) -> str:
    """The ``extensions`` cell: the JSON object of the JSON Lines output, quoted the way
    csv.writer quotes it (JSON text escapes tabs and line breaks, so a quoted cell with its
    quotes doubled is right for CSV and TSV alike); "" when there are none."""
    if not extensions:
        return ""
    text = _fields_json(extensions)
    return '"' + text.replace('"', '""') + '"'


def _render_delimited(columns: UrlColumns, sitemap: str | None, delimiter: str) -> str:
    locs = columns.locs
    lastmods = columns.lastmods
    changefreqs = map(CHANGEFREQ_TEXT.__getitem__, columns.changefreqs)
    priorities = map(_PRIORITY_CELL.__getitem__, columns.priorities)
    extensions = columns.extensions
    last: tuple[str, ...] = () if sitemap is None else (sitemap,)
    if _NEEDS_QUOTES[delimiter].search("".join(locs) + "".join(last)) is not None:
        import csv

        cells: Any = (
            repeat("")
            if extensions is None
            else [_fields_json(ext) if ext else "" for ext in extensions]
        )
        out = io.StringIO()
        csv.writer(out, delimiter=delimiter, lineterminator="\n").writerows(
            (loc, lastmod, changefreq, priority, cell, *last)
            for loc, lastmod, changefreq, priority, cell in zip(
                locs, lastmods, changefreqs, priorities, cells, strict=False
            )
        )
        return out.getvalue()
    d = delimiter
    tail = "\n" if sitemap is None else d + sitemap + "\n"
    if extensions is None:
        # no URL has extensions: an empty cell in the constant tail, no per-URL work added
        tail = d + tail
        return "".join(
            [
                f"{loc}{d}{lastmod}{d}{changefreq}{d}{priority}{tail}"
                for loc, lastmod, changefreq, priority in zip(
                    locs, lastmods, changefreqs, priorities, strict=True
                )
            ]
        )
    return "".join(
        [
            f"{loc}{d}{lastmod}{d}{changefreq}{d}{priority}{d}{cell}{tail}"
            for loc, lastmod, changefreq, priority, cell in zip(
                locs,
                lastmods,
                changefreqs,
                priorities,
                map(_extension_cell, extensions),
                strict=True,
            )
        ]
    )


def render_csv(columns: UrlColumns, sitemap: str | None) -> str:
    return _render_delimited(columns, sitemap, ",")


def render_tsv(columns: UrlColumns, sitemap: str | None) -> str:
    return _render_delimited(columns, sitemap, "\t")


def render_locs(columns: UrlColumns, sitemap: str | None) -> str:
    return "".join([loc + "\n" for loc in columns.locs])


RENDERERS: dict[str, Render] = {
    "jsonl": render_jsonl,
    "csv": render_csv,
    "tsv": render_tsv,
    "locs": render_locs,
}

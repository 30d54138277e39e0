"""A run of the compiled core's records as the checker reads it: the render lane's Arrow
columns (``RenderSpec.columns()``) cut into ``Records``, a column at a time, and one record
made a ``Url`` (``Records.url``) only when a rule needs its value."""

from __future__ import annotations

from array import array
from functools import cache
from itertools import pairwise
from typing import TYPE_CHECKING, Any, NamedTuple

from .._core import (
    ExtensionFacts,
    column_texts_at,
    judge_extensions,
    judge_lastmods,
    loc_column_authorities,
    loc_column_starts_with,
)
from ..dates import from_formatted
from ..model import ChangeFreq, Url

if TYPE_CHECKING:
    from ..reading.rendered import RenderSpec

_FREQS = tuple(ChangeFreq)
_PLAIN_IMAGE = {"loc", "caption", "geo_location", "title"}
_LINK = {"hreflang", "href"}


def _extensions_from(fields: dict[str, Any]) -> tuple[Any, ...]:
    """A record's extensions from their JSON: plain images, one news article and hreflang
    links (the core checked them as the reader's compiled lane does) made at once, anything
    else by the registry."""
    images = fields.get("images")
    links = fields.get("alternates")
    if len(fields) == 1 and links and all(link.keys() == _LINK for link in links):
        make = _link()
        return tuple([make(link["hreflang"], link["href"]) for link in links])
    if len(fields) == 1 and type(news := fields.get("news")) is dict:  # one article
        article = _news_json()(news)
        if article is not None:
            return (article,)
    if len(fields) == 1 and images and all(image.keys() <= _PLAIN_IMAGE for image in images):
        made = _image()
        get = dict.get
        return tuple(
            [
                made(i["loc"], get(i, "caption"), get(i, "geo_location"), get(i, "title"))
                for i in images
            ]
        )
    from ..extensions import from_json_fields

    return from_json_fields(fields)


@cache
def _news_json() -> Any:
    """``trusted_news_json``, its module loaded with the first record that has news."""
    from ..extensions.news import trusted_news_json

    return trusted_news_json


@cache
def _link() -> Any:
    """``trusted_link``, its module loaded with the first record that has hreflang links."""
    from ..extensions.hreflang import trusted_link

    return trusted_link


@cache
def _image() -> Any:
    """``trusted_image``, its module loaded with the first record that has images."""
    from ..extensions.image import trusted_image

    return trusted_image


class Lastmods(NamedTuple):
    """What the core found of a run's lastmods, records counted from its first: the newest
    date's and the newest time's (by instant, the first of equals; None for none), the
    records a rule may flag (a date after the latest day, a time after now), the years and
    months (each a finding), their distinct texts (text, first record, records; first seen
    first) and each one's text (an index into ``groups``, native-endian u32s)."""

    newest_date: int | None
    newest_time: int | None
    flagged: list[int]
    reduced: list[int]
    groups: list[tuple[str, int, int]]
    group_of: bytes


class Records:
    """A run of the core's records as columns: ``locs``, the lastmods (W3C text as
    ``format_w3c`` writes it, read by ``lastmod(i)``, "" for none) and their instants
    (microseconds since 1970 UTC), judged in the core (``judge_lastmods``),
    ``extensions`` (JSON text, "" for none; None when no record has any); changefreq and
    priority read from the core's buffers for the few records that need them."""

    __slots__ = (
        "_base",
        "_ext_buffers",
        "_facts",
        "_freqs",
        "_instants",
        "_lastmods",
        "_loc_buffers",
        "_loc_hashes",
        "_locs",
        "_priorities",
        "count",
        "has_extensions",
    )

    def __init__(
        self,
        loc_buffers: Any,
        lastmods: Any,
        instants: Any,
        count: int,
        has_extensions: bool,
        freqs: Any,
        priorities: Any,
        base: int,
        ext_buffers: Any = None,
        loc_hashes: bytes = b"",
        facts: ExtensionFacts | None = None,
    ) -> None:
        self.count = count
        self._facts = facts  # the extension rules' facts the core recorded beside the columns
        self._loc_hashes = loc_hashes
        self._ext_buffers = ext_buffers
        self._loc_buffers = loc_buffers
        self._locs: list[str] | None = None
        self._lastmods = lastmods
        self._instants = instants  # the instant column's values buffer (i64s)
        self.has_extensions = has_extensions  # whether any record has extensions
        self._freqs = freqs
        self._priorities = priorities
        self._base = base  # the first record's row in the column buffers

    @property
    def locs(self) -> list[str]:
        """Every record's loc, made strings at the first use (a run of plain records on one
        known authority needs none: ``loc_hashes``, ``all_start_with``)."""
        if self._locs is None:
            self._locs = _texts(self._loc_buffers, self._base, self._base + self.count)
        return self._locs

    def loc(self, i: int) -> str:
        """Record ``i``'s loc."""
        if self._locs is not None:
            return self._locs[i]
        return _texts(self._loc_buffers, self._base + i, self._base + i + 1)[0]

    def loc_hashes(self) -> bytes:
        """Each record's loc hashed as ``_core.loc_hashes`` hashes it: the hashes the
        reader's duplicate test made (native-endian u64s)."""
        return self._loc_hashes[8 * self._base : 8 * (self._base + self.count)]

    def authorities(self) -> list[tuple[str, int, int]] | None:
        """Each distinct scheme://authority of the locs, first seen first, with its first
        record and number of records (``_core.loc_column_authorities``; None when a loc
        must be cut as a string)."""
        _, offsets, values = self._loc_buffers
        stop = self._base + self.count
        return loc_column_authorities(offsets, values or b"", self._base, stop)

    def all_start_with(self, prefix: str) -> bool:
        """Whether every record's loc starts with ``prefix``, judged on the buffers."""
        _, offsets, values = self._loc_buffers
        stop = self._base + self.count
        return loc_column_starts_with(offsets, values or b"", self._base, stop, prefix.encode())

    def column_buffers(self) -> tuple[Any, Any, Any, Any, int]:
        """The extensions' offsets and values, the locs' offsets and values, and the first
        record's row: what the set rule reads records' links from in the core."""
        _, ext_offsets, ext_values = self._ext_buffers
        _, loc_offsets, loc_values = self._loc_buffers
        return ext_offsets, ext_values, loc_offsets, loc_values, self._base

    def extension(self, i: int) -> str:
        """Record ``i``'s extensions' JSON ("" for none)."""
        return _texts(self._ext_buffers, self._base + i, self._base + i + 1)[0]

    def extension_texts(self, where: list[int]) -> list[str]:
        """The extensions' JSON of the records ``where`` (many decoded at once)."""
        return _texts_at(self._ext_buffers, self._base, where)

    def locs_at(self, where: list[int]) -> list[str]:
        """The locs of the records ``where`` (made in the core: no string for the others)."""
        if self._locs is not None:
            return list(map(self._locs.__getitem__, where))
        return _texts_at(self._loc_buffers, self._base, where)

    def judge_extensions(
        self,
    ) -> tuple[
        tuple[bytes, bytes, bytes, bytes, bytes, list[int], list[bytes], list[int]],
        bytes,
        bytes,
        bytes,
        list[str],
    ]:
        """The per-URL extension rules on every record's JSON, in the core
        (``_core.judge_extensions``: the records by status, counts, news items and their
        dates), from the facts the render lane recorded as it wrote the JSON when there are
        some (``RecordRenderer.extension_facts``), else from the JSON."""
        _, ext_offsets, ext_values = self._ext_buffers
        _, loc_offsets, loc_values = self._loc_buffers
        stop = self._base + self.count
        return judge_extensions(
            ext_offsets,
            ext_values or b"",
            loc_offsets,
            loc_values or b"",
            self._base,
            stop,
            self._facts,
        )

    def lastmod(self, i: int) -> str:
        """Record ``i``'s lastmod text ("" for none)."""
        _, offsets, values = self._lastmods
        i += self._base
        start, end = memoryview(offsets).cast("i")[i : i + 2].tolist()
        return bytes(values[start:end]).decode("ascii")

    def lastmod_texts_at(self, where: list[int]) -> list[str]:
        """The lastmod texts of the records ``where``."""
        return _texts_at(self._lastmods, self._base, where)

    def judge_lastmods(self, latest_day: int, now: int | None) -> Lastmods:
        """The run's lastmods judged in the core (``_core.judge_lastmods``): see
        ``Lastmods``; a date is flagged when its instant is after ``latest_day``, a time when
        after ``now`` (none when None)."""
        _, offsets, values = self._lastmods
        date, moment, flagged, reduced, groups, group_of = judge_lastmods(
            offsets,
            values or b"",
            self._instants,
            self._base,
            self._base + self.count,
            latest_day,
            now,
        )
        return Lastmods(date, moment, _rows(flagged), _rows(reduced), groups, group_of)

    def url(self, i: int) -> Url:
        """Record ``i`` (one with extensions) as a Url."""
        import json  # with the first record that has extensions (a plain check loads none)

        lastmod = self.lastmod(i)
        return Url._trusted(
            self.loc(i),
            from_formatted(lastmod) if lastmod else None,
            self.changefreq(i),
            self.priority(i),
            _extensions_from(json.loads(self.extension(i))),
        )

    def changefreq(self, i: int) -> ChangeFreq | None:
        (validity, nulls), values, _ = self._freqs
        i += self._base
        return _FREQS[values[i]] if _valid(validity, nulls, i) else None

    def priority(self, i: int) -> float | None:
        (validity, nulls), values, _ = self._priorities
        i += self._base
        if not _valid(validity, nulls, i):
            return None
        return float(memoryview(values).cast("d")[i])


def _valid(validity: bytes | None, nulls: int, i: int) -> bool:
    if validity is None:
        return nulls == 0
    return bool(validity[i >> 3] >> (i & 7) & 1)


def taken_columns(spec: RenderSpec) -> tuple[Any, ExtensionFacts | None]:
    """The core's columns of every run so far (``RenderSpec.columns()``, taken) and the
    extension rules' facts its renderer recorded beside them (None: none recorded)."""
    columns = spec.columns()
    renderer = spec.column_renderer or spec.renderer
    if columns is None or renderer is None:
        return columns, None
    return columns, renderer.extension_facts()


def records(
    columns: tuple[Any, ...], start: int, count: int, facts: ExtensionFacts | None = None
) -> Records:
    """Rows ``start`` to ``start + count`` of the core's columns (``RenderSpec.columns()``),
    with the extension facts recorded beside them (``taken_columns``)."""
    _, loc, lastmod, lastmod_at, changefreq, priority, extensions, loc_hashes = columns
    stop = start + count
    has_extensions = extensions[0][1] != columns[0] and _any_text(extensions, start, stop)
    return Records(
        loc,
        lastmod,
        lastmod_at[1],
        count,
        has_extensions,
        changefreq,
        priority,
        start,
        extensions,
        loc_hashes,
        facts,
    )


def _texts(buffers: Any, start: int, stop: int) -> list[str]:
    """Rows of a string column; a null one is "" (its offsets hold no bytes for it)."""
    _, offsets_bytes, values = buffers
    offsets = memoryview(offsets_bytes).cast("i")[start : stop + 1].tolist()
    data = bytes(memoryview(values)[offsets[0] : offsets[-1]])
    base = offsets[0]
    if data.isascii():  # byte offsets are character offsets: one decode, then slices
        text = data.decode("ascii")
        return [text[a - base : b - base] for a, b in pairwise(offsets)]
    return [data[a - base : b - base].decode("utf-8") for a, b in pairwise(offsets)]


def _texts_at(buffers: Any, start: int, where: list[int]) -> list[str]:
    """Rows ``where`` (from ``start``, counted from 0) of a string column."""
    _, offsets, values = buffers
    return column_texts_at(offsets, values or b"", start, array("I", where).tobytes())


def _rows(words: bytes) -> list[int]:
    """Row numbers from the core's native-endian u32s."""
    return memoryview(words).cast("I").tolist()


def _any_text(buffers: Any, start: int, stop: int) -> bool:
    """Whether any row (from ``start`` to ``stop``) of a string column is not empty (the
    extensions' JSON), from its first and last offsets alone."""
    _, offsets_bytes, _ = buffers
    offsets = memoryview(offsets_bytes).cast("i")
    return bool(offsets[stop] != offsets[start])

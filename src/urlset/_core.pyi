# Types of the private compiled module (rust/py); nothing here is public API.
from collections.abc import Callable, Sequence
from typing import Any

VERSION: str
OPTIMIZED: bool

class RenderedRows:
    """Entries rendered in one buffer: each entry's bytes, loc, lastmod and loc hash."""

    @property
    def locs(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def fit(self, start: int, limit: int, room: int, /) -> int: ...
    def size(self, index: int, /) -> int: ...
    def text(self, start: int, end: int, /) -> bytes: ...
    def entries(self) -> list[str]: ...
    def newest(self, start: int, end: int, /) -> str | None: ...
    def all_current(self, now: int, /) -> bool: ...
    def hashes(self) -> bytes: ...
    def select(self, keep: bytes, /) -> RenderedRows: ...

class SeenHashes:
    def __init__(self, spill_dir: str | None, seal_at: int) -> None: ...
    def first_seen(self, hashes: bytes, /) -> bytes: ...
    def close(self) -> None: ...

def render_rows(
    rows: Sequence[tuple[Any, ...]],
    prefix: str | None,
    max_length: int,
    text: bool,
    beside: bool = ...,
) -> RenderedRows | None: ...
def render_columns(
    count: int,
    loc: tuple[Any, ...] | None,
    lastmod: tuple[Any, ...] | None,
    changefreq: tuple[Any, ...] | None,
    priority: tuple[Any, ...] | None,
    prefix: str,
    max_length: int,
    text: bool,
    beside: bool = ...,
) -> RenderedRows | None: ...
def loc_hashes(locs: list[str], /) -> bytes: ...
def escape(text: str, /) -> str: ...

# --- reading (rust/py/src/read.rs) ---

# an entry some of whose values the reader judges: its line, then for each of loc, lastmod,
# changefreq, priority None, the typed value (plain), or (line, text) to judge
JudgedValue = tuple[int, str] | Any
JudgedEntry = tuple[int, JudgedValue, JudgedValue, JudgedValue, JudgedValue]

class UrlsetScanner:
    """The compiled lane's tokenizer for the body of a plain urlset or sitemap index
    (urlset.reading.xml_compiled)."""

    def __init__(
        self,
        index: bool,
        max_value: int,
        changefreqs: Sequence[Any],
        parse_date: Callable[[str], Any],
        parse_datetime: Callable[[str], Any],
    ) -> None: ...
    def scan(
        self, data: bytes, pos: int, end: int, line: int, max_records: int
    ) -> tuple[
        int,  # where reading stopped
        int,  # the line there
        # None: the end (or max_records); (start, end): a piece for lxml; (start, end,
        # fragment, line, (loc, lastmod, changefreq, priority)): a record with extensions
        tuple[int, int]
        | tuple[int, int, str | None, int, tuple[str, Any, Any, float | None]]
        | None,
        list[str],  # locs
        list[Any],  # lastmods (date, datetime or None)
        list[Any],  # changefreqs (ChangeFreq or None)
        list[float | None],  # priorities
        bytes,  # the line of each record, native unsigned 32-bit integers
        list[tuple[int, str]],  # (record, origin) where the origin changes
    ]: ...
    def scan_columns(
        self, data: bytes, pos: int, end: int, line: int, max_records: int
    ) -> tuple[
        int,  # where reading stopped
        int,  # the line there
        Any,  # why, as ``scan`` says
        tuple[
            int,  # records
            ArrowBuffers,  # loc: string
            ArrowBuffers,  # lastmod: string, as dates.format_w3c writes the value
            ArrowBuffers,  # lastmod_at: int64 microseconds since 1970 UTC (dates.instant)
            ArrowBuffers,  # changefreq: int8 index into ChangeFreq
            ArrowBuffers,  # priority: float64
        ],
    ]: ...

# ((validity bitmap or None, null count), offsets or values, values of a string or None),
# native byte order, as pyarrow.Array.from_buffers takes them
ArrowBuffers = tuple[tuple[bytes | None, int], bytes, bytes | None]

def plain_loc(text: bytes) -> bool: ...
def plain_lastmod(text: bytes) -> bool: ...

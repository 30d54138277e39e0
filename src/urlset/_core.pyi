# Types of the private compiled module (rust/py); nothing here is public API.
from collections.abc import Callable, Sequence
from typing import Any

VERSION: str
OPTIMIZED: bool

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

def plain_loc(text: bytes) -> bool: ...
def plain_lastmod(text: bytes) -> bool: ...

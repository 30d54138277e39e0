# Types of the private compiled module (rust/py); nothing here is public API.
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, TypeVar

_Row = TypeVar("_Row", bound=tuple[Any, ...])

VERSION: str
OPTIMIZED: bool

class RenderedRows:
    """Entries rendered in one buffer: each entry's bytes, loc, lastmod and loc hash."""

    @property
    def locs(self) -> list[str]: ...
    def __len__(self) -> int: ...
    def fit(self, start: int, limit: int, room: int, declared: int = ..., /) -> int: ...
    def size(self, index: int, declared: int = ..., /) -> int: ...
    def text(self, start: int, end: int, declared: int = ..., /) -> bytes: ...
    def namespaces(self, start: int, end: int, /) -> int: ...
    def findings(self) -> list[tuple[int, str, str]]: ...
    def finding_counts(self) -> list[tuple[str, int]]: ...
    def links(self) -> list[tuple[int, list[tuple[str, str]]]]: ...
    def link_maps(self) -> list[tuple[int, str, dict[str, str]]]: ...
    def has_news(self) -> bool: ...
    def news_fit(self, start: int, limit: int, room: int, first: bool, /) -> int: ...
    def news_in(self, start: int, end: int, /) -> int: ...
    def news_before(self, since: int, /) -> list[tuple[int, str, int]]: ...
    def news_count_before(self, since: int, /) -> int: ...
    def entries(self) -> list[str]: ...
    def newest(self, start: int, end: int, /) -> str | None: ...
    def all_current(self, now: int, /) -> bool: ...
    def all_with_day(self) -> bool: ...
    def hashes(self) -> bytes: ...
    def select(self, keep: bytes, /) -> RenderedRows: ...
    def spliced(self, other: RenderedRows, at: list[int], /) -> RenderedRows: ...
    def refused(self) -> list[tuple[int, str]]: ...
    def range(self, start: int, end: int, /) -> RenderedRows: ...
    def future(self, now: int, /) -> list[int]: ...
    def without_day(self) -> list[tuple[int, str]]: ...
    def without_day_texts(self) -> list[tuple[str, int]]: ...

# --- build inputs (rust/py/src/sources.rs) ---

class SourceBatch:
    """A batch of a source's (loc, lastmod, changefreq, priority) rows, parsed, unchecked."""

    def __len__(self) -> int: ...
    def count(self) -> int: ...
    def lines(self) -> list[int]: ...
    def problems(self) -> list[tuple[int, int, str]]: ...
    def sections(self) -> tuple[list[str], bytes] | None: ...
    def long_rows(self, start: int, end: int, /) -> list[tuple[int, list[bytes]]]: ...
    def rows(
        self, at: list[int] | None = None
    ) -> list[tuple[str, str | None, str | None, str | float | None]]: ...
    def render(self, prefix: str, max_length: int, text: bool, /) -> RenderedRows | None: ...

class SourceReader:
    """A build input's bytes parsed as text, csv, tsv or jsonl (urlset.writing.sources)."""

    def __init__(
        self, format: str, bom: bool, /, field_limit: int = 131072, lone_cr: bool = True
    ) -> None: ...
    def feed(self, block: bytes, /) -> None: ...
    def finish(self) -> None: ...
    def header(self) -> tuple[list[bytes] | None, str | None] | None: ...
    def set_columns(
        self,
        positions: list[int],
        width: int,
        extra: list[int] = ...,
        section: int | None = ...,
        json: int | None = ...,
    ) -> None: ...
    def read_sections(self) -> None: ...
    def rows(self, max: int, /) -> SourceBatch | None: ...
    def json_chunk(self, max: int, /) -> SourceBatch | None: ...
    def records(
        self, max: int, /
    ) -> list[tuple[int, list[str] | list[bytes] | None, str | None]] | None: ...

SET_SPILL_BYTES: int

class LinkSet:
    """hreflang reciprocity across a set on hashes (``rust/core/src/set/``)."""

    def __init__(self, spill_bytes: int = ..., string_batch: int = ...) -> None: ...
    def add_page(self, loc: str, links: list[tuple[str, str]], /) -> None: ...
    def add_plain(self, hashes: bytes, /) -> None: ...
    def add_json_rows(
        self,
        ext_offsets: bytes,
        ext_values: bytes,
        loc_offsets: bytes,
        loc_values: bytes,
        start: int,
        rows: bytes,
        /,
    ) -> None: ...
    def add_rendered(self, written: RenderedRows, plain: bool, /) -> None: ...
    @property
    def records(self) -> int: ...
    @property
    def spill_path(self) -> str | None: ...
    def close(self) -> None: ...
    def judge(
        self,
        cap: int | None,
        include_self: bool,
        known_packed: Callable[[bytes], bytes] | None = None,
        known_strings: Callable[[list[str]], list[bool]] | None = None,
    ) -> tuple[
        list[tuple[str, str, str, str]], int, list[tuple[str, str, str, bool]], int, int, int
    ]: ...

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

# the per-URL extension rules on a run's JSON (core/src/check/ext_json.rs)
EXT_JSON_CODES: list[str]  # the codes counted per record, in order
EXT_JSON_KINDS: list[str]  # then the kinds

def judge_extensions(
    ext_offsets: bytes,
    ext_values: bytes,
    loc_offsets: bytes,
    loc_values: bytes,
    start: int,
    stop: int,
    facts: ExtensionFacts | None = None,  # taken instead of the JSON when they are its
    /,
) -> tuple[
    tuple[
        bytes,  # the records flagged for the careful way (native-endian u32s)
        bytes,  # the records judged with findings (u32s)
        bytes,  # the records judged that have alternates (u32s)
        bytes,  # a byte a record: 1 for a plain page among those judged (no alternates)
        bytes,  # a byte a record: 1 for one without extensions
        list[int],  # each kind's total over the records judged
        list[bytes],  # for each code, the records judged with findings of it (u32s)
        list[int],  # and its findings over them
    ],
    bytes,  # each record's counts: the codes', then the kinds' (native-endian u32s)
    bytes,  # each news item's record (u32s)
    bytes,  # and its date (i32s: an index into the dates, -1 for none)
    list[str],  # the distinct dates
]: ...
def old_news(records: bytes, dates: bytes, old: bytes, /) -> tuple[bytes, bytes]: ...
def loc_column_authorities(
    offsets: bytes, values: bytes, start: int, stop: int, /
) -> list[tuple[str, int, int]] | None: ...
def loc_hashes_where(hashes: bytes, mask: bytes, /) -> bytes: ...
def breaks_order(window: bytes, start: int, index: bool, prefixes: bool, /) -> bool: ...
def declares_namespace(window: bytes, /) -> bool: ...
def index_run_lines(
    run: bytes,
    refs: list[Any],  # the index's SitemapRefs, or their locs
    taken: int,
    line: int,
    /,
) -> tuple[list[int], int] | None: ...
def judge_lastmods(
    offsets: bytes,
    values: bytes,
    instants: bytes,
    start: int,
    stop: int,
    latest_day: int,
    now: int | None,
    /,
) -> tuple[
    int | None,  # the newest date's record (the first of equals)
    int | None,  # the newest time's record
    bytes,  # the records flagged: dates after the latest day, then times after now (u32s)
    bytes,  # the years and months (u32s)
    list[tuple[str, int, int]],  # their distinct texts: text, first record, records
    bytes,  # each one's text (u32s: an index into the texts)
]: ...
def column_texts_at(offsets: bytes, values: bytes, start: int, rows: bytes, /) -> list[str]: ...
def loc_column_starts_with(
    offsets: bytes, values: bytes, start: int, stop: int, prefix: bytes, /
) -> bool: ...
def odd_text_lines(chunk: bytes, /) -> list[tuple[int, int, int]]: ...
def types_of(items: list[Any], /) -> set[type]: ...
def typed_declarations() -> list[tuple[str, str]]: ...
def escape(text: str, /) -> str: ...

# --- reading (rust/py/src/read.rs, gzip.rs) ---

class GzipInflater:
    """gzip inflation in pieces (urlset.reading.sniff.Gunzip)."""

    def __init__(self, piece: int, thread_from: int | None = None) -> None: ...
    def push(self, data: bytes, /) -> None: ...
    def next_piece(self, before: bytearray | None = None, /) -> bytes | None: ...
    @property
    def complete(self) -> bool: ...
    @property
    def trailing(self) -> bool: ...
    @property
    def threaded(self) -> bool: ...

def iri_to_uri(text: str, /) -> str | None: ...

# checking/raw_text.py: the loc texts of a window worth a closer look (rust/core/src/check)
LOC_NON_ASCII: int
LOC_TOO_LONG: int
LOC_JUDGE: int

def loc_texts(
    window: bytes, longest: int, line: int, carry: int, foreign: list[bytes] = ..., /
) -> tuple[tuple[bytes, bytes, bytes, bytes, bytes], int, int | None]: ...
def loc_read_iri_only(text: str, /) -> bool: ...

class ElementTexts:
    """Where needles are written as an element's text, a window at a time
    (checking/positions.py: the texts of ``>([^<]+)<``, with ``prefixes`` of
    ``>((?:p1|p2|...)[^<]*)<``): each needle's offsets found so far."""

    def __init__(self, needles: Iterable[bytes], prefixes: list[bytes] | None = None) -> None: ...
    def scan(self, window: bytes, base: int, /) -> None: ...
    @property
    def found(self) -> dict[bytes, list[int]]: ...

def resolve_loc(loc: str, prefix: str) -> str | None: ...

class SeenLocs:
    """The locs a reader passed on, by hash (urlset.reading.sink.Sink.seen)."""

    def __init__(self) -> None: ...
    def add(self, loc: str, /) -> bool: ...
    def add_all_new(self, locs: list[str], /) -> bool: ...
    def __len__(self) -> int: ...

def entity_delta(data: bytes, start: int, end: int, /) -> int: ...
def newlines(data: bytes, start: int = 0, end: int | None = None, /) -> int: ...
def find_on_line(
    data: bytes, start: int, lines: int, needle: bytes, /
) -> tuple[int, int] | None: ...
def plain_end(rest: bytes, tail: bytes, /) -> bool: ...
def run_over(data: bytes, start: int, end: int, run_before: int, cap: int, /) -> int | None: ...
def overlong(data: bytes, start: int, end: int, cap: int, /) -> int | None: ...
def untracked_rows(cls: type[_Row], n: int, columns: tuple[object, ...], /) -> list[_Row]: ...

class SlotMaker:
    """Makes a ``cls`` (a frozen dataclass with slots) of values already checked, given
    in the order of ``fields``, the others set to ``fixed``'s values
    (urlset.extensions.field_checks.trusted_maker)."""

    def __init__(
        self, cls: type, fields: Sequence[str], fixed: Mapping[str, object] | None = None
    ) -> None: ...
    def __call__(self, *values: object) -> Any: ...

# an entry some of whose values the reader judges: its line, then for each of loc, lastmod,
# changefreq, priority None, the typed value (plain), (line, text) to judge, or for a loc
# (line, text, uri) when the core made it a URI
JudgedValue = tuple[int, str] | tuple[int, str, str] | Any
JudgedEntry = tuple[int, JudgedValue, JudgedValue, JudgedValue, JudgedValue]

class UrlsetScanner:
    """The compiled lane's tokenizer for the body of a plain urlset or sitemap index
    (urlset.reading.xml_compiled)."""

    # a record whose core elements were in another order than the protocol's, in any scan
    reordered: bool

    def __init__(
        self,
        index: bool,
        max_value: int,
        changefreqs: Sequence[Any],
        # the root's prefixes for images, videos, news and hreflang links: plain ones are
        # typed in the scan
        image_prefix: str | None = None,
        video_prefix: str | None = None,
        news_prefix: str | None = None,
        xhtml_prefix: str | None = None,
        *,
        # every (prefix, URI) the root binds, and how many levels an element of another
        # namespace may nest (0: none is read here): plain ones are kept raw in the scan
        namespaces: Sequence[tuple[str, str]] = ...,
        raw_levels: int = 0,
        # what gives what the typed extensions are made with, called by the first record
        # with one: the makers of images, videos, news articles and links (each None when
        # its prefix is) and RawElement's class
        makers: Callable[
            [], tuple[SlotMaker | None, SlotMaker | None, SlotMaker | None, SlotMaker | None, type]
        ]
        | None = None,
    ) -> None: ...
    # an element (namespace, name) the reader has reported once: read by the scan from now on
    def know_stray(self, namespace: str, name: str, /) -> None: ...
    def scan(
        self,
        data: bytes,
        pos: int,
        end: int,
        line: int,
        max_records: int,
        texts: int = ...,
        judged: int = ...,
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
        # (record, origin): the first record on each origin (of the last few distinct ones)
        list[tuple[int, str]],
        # (record, loc line, text, uri): locs the core made URIs of that differ from the
        # text; the text only for the first ``texts`` of them, else None
        list[tuple[int, int, str | None, str]],
        bool,  # whether any loc was made a URI (the same text or not)
        # whether any record has plain extensions (scanned_extensions), and any of them an
        # element of another namespace (a RawElement)
        tuple[bool, bool],
    ]: ...
    # the last scan's records with plain extensions, made (ExtendedRecord each), taken
    def scanned_extensions(self) -> list[ExtendedRecord]: ...
    # the last scan's extension elements out of the schema's order (OrderNote each), taken
    def scanned_order_notes(self) -> list[OrderNote]: ...
    # the last scan's values the reader reports: the first of each code, as many as
    # note_room allows, the last record's all (ValueNote each), and how many more of each
    # code (sink._JUDGED_CODES), taken
    def scanned_value_notes(self) -> tuple[list[ValueNote], list[int]]: ...
    # the last scan's values written with whitespace around them: the first, as many as
    # note_room allows, the last record's all (PadNote each), and how many more of each
    # element, taken
    def scanned_pad_notes(self) -> tuple[list[PadNote], list[int]]: ...
    # how many of each code the next scans list (RecordRenderer.note_room)
    def note_room(self, values: list[int], pads: int, /) -> None: ...

# an extension element whose children are out of the schema's order: (record, the line of its
# start tag, its kind (0 image, 1 video, 2 news, 3 a news article's publication), the child's
# place and the place of the one it comes after, in the schema's order as the extension
# modules' IMAGE_CHILDREN, VIDEO_CHILDREN, NEWS_CHILDREN, PUBLICATION_CHILDREN list them)
OrderNote = tuple[int, int, int, int, int]

# a record's value the reader reports, as the core judged it: (record, the line of its element,
# which (1 lastmod, 2 changefreq, 3 priority), its text, whether it is invalid)
ValueNote = tuple[int, int, int, str, bool]

# a record's value written with whitespace around it: (record, the line of its element, which
# (0 loc, 1 lastmod, 2 changefreq, 3 priority), its text stripped)
PadNote = tuple[int, int, int, str]

# a record with plain extensions, as UrlsetScanner.scanned_extensions gives it: the record and
# its extensions made (by the scanner's makers), in document order
ExtendedRecord = tuple[int, tuple[Any, ...]]

# ((validity bitmap or None, null count), offsets or values, values of a string or None),
# native byte order, as pyarrow.Array.from_buffers takes them
ArrowBuffers = tuple[tuple[bytes | None, int], bytes, bytes | None]

class ColumnBuffer:
    """One of a renderer's column buffers, read-only through the buffer protocol (no copy:
    ``pyarrow.py_buffer`` wraps it); rust/py/src/views.rs."""

    def __len__(self) -> int: ...
    def __buffer__(self, flags: int, /) -> memoryview: ...

ArrowViews = tuple[tuple[ColumnBuffer | None, int], ColumnBuffer, ColumnBuffer | None]

def plain_loc(text: bytes) -> bool: ...
def printable(text: str) -> bool: ...

# the date or aware datetime the compiled lane gives a plain lastmod text, else None
def lastmod_value(text: bytes) -> date | datetime | None: ...

# what the compiled lane makes of a value's text the reader reports (element 1 lastmod, 2
# changefreq, 3 priority): (its value, False) when read, (None, True) when invalid; None for a
# plain text or one it leaves to the reader
def judged_value(
    element: int, text: bytes
) -> tuple[date | datetime | str | float | None, bool] | None: ...

# --- the render lane (rust/py/src/render.rs) ---

class RecordRenderer:
    """Canonical records of a urlset's body rendered as output text, or for ``format``
    "arrow" as Arrow buffers (urlset.reading.rendered)."""

    # a loc made a URI whose text is not loc_read_iri_only (check reads it again), or (text
    # formats) a record with images, in any run so far
    odd_made: bool
    # a record whose core elements were in another order than the protocol's, in any run
    reordered: bool

    # with the root's prefixes for the image, video and news namespaces, records with plain
    # images, videos and news are rendered with them (their JSON; in columns, the
    # ``extensions`` text)
    def __init__(
        self,
        format: str,
        tail: str,
        max_value: int,
        image_prefix: str | None = None,
        video_prefix: str | None = None,
        news_prefix: str | None = None,
        xhtml_prefix: str | None = None,
        *,
        # every (prefix, URI) the root binds, and how many levels an element of another
        # namespace may nest (0: none is read here): plain ones are kept raw in the scan
        namespaces: Sequence[tuple[str, str]] = ...,
        raw_levels: int = 0,
        # a sitemap index's records (loc and lastmod), rendered as ``urlset read`` writes
        # a SitemapRef
        index: bool = False,
        # "arrow": each loc text made a URI judged for check's ``odd_made`` (False: a reader
        # of the columns alone)
        judge_locs: bool = True,
    ) -> None: ...
    def render(
        self, data: bytes, pos: int, end: int, line: int, max_records: int, listed: int = ..., /
    ) -> tuple[
        int,  # where rendering stopped: the end, or the start of an entry it left
        int,  # the line there
        int,  # records rendered
        bytes | None,  # their lines; None for "arrow" (the records stay in ``columns``)
        # (record, loc line, text, uri): the first ``listed`` (default: all) locs the core made
        # URIs of that differ from the text
        list[tuple[int, int, str, str]],
        bool,  # whether any loc was made a URI (the same text or not) or had extensions
        int,  # how many more locs it made such URIs of (only counted)
    ]: ...
    def know_stray(self, namespace: str, name: str, /) -> None: ...
    def render_text(
        self, data: bytes, pos: int, end: int, line: int, max_records: int, /
    ) -> tuple[
        int,  # where rendering stopped: the end, or the start of a line it left
        int,  # the number of the line there
        int,  # lines rendered (blank ones passed over are not counted)
        bytes | None,  # their output lines; None for "arrow"
        list[tuple[int, int, str, str]],  # as ``render``'s
        bool,  # any loc made a URI
        # the new origin of the line it stopped at (the reader judges it, then the run goes
        # on) and whether that line's loc was made a URI; None when it stopped otherwise
        tuple[str, bool] | None,
    ]:
        """A text sitemap's lines ``data[pos:end]`` (the first is line ``line``): each that is
        a URI as written, or one the core makes a URI of, rendered as a record with a loc
        only; stops at any other line, a duplicate or a new origin."""
        ...
    def columns(
        self,
    ) -> tuple[
        int,  # records
        ArrowBuffers,  # loc: string
        ArrowBuffers,  # lastmod: string, as dates.format_w3c writes the value
        ArrowBuffers,  # lastmod_at: int64 microseconds since 1970 UTC (dates.instant)
        ArrowBuffers,  # changefreq: int8 index into ChangeFreq
        ArrowBuffers,  # priority: float64
        ArrowBuffers,  # extensions: string, {"images":[...]} as json_fields gives it, or null
        bytes,  # each loc's hash (native-endian u64s), as the duplicate test and loc_hashes hash
    ]: ...
    # columns() with each buffer the core's own, not a bytes copy
    def column_views(
        self,
    ) -> tuple[int, ArrowViews, ArrowViews, ArrowViews, ArrowViews, ArrowViews, ArrowViews]: ...
    # the sink's duplicate set while it reads, as SeenLocs
    def add(self, loc: str, /) -> bool: ...
    def add_all_new(self, locs: list[str], /) -> bool: ...
    def know(self, origin: str, /) -> None: ...
    # the extension elements out of the schema's order among the records rendered since the
    # last call (OrderNote each, its record counted in its run), taken
    def order_notes(self) -> list[OrderNote]: ...
    # the values the reader reports among the records rendered since the last call: the first
    # of each code, as many as note_room allows (ValueNote each, its record counted in its
    # run), and how many more of each code (sink._JUDGED_CODES), taken
    def value_notes(self) -> tuple[list[ValueNote], list[int]]: ...
    # the values written with whitespace around them among the records rendered since the
    # last call: the first, as many as note_room allows (PadNote each), and how many more of
    # each element, taken
    def pad_notes(self) -> tuple[list[PadNote], list[int]]: ...
    # how many of each code the next takes of value_notes (sink._JUDGED_CODES' order) and of
    # pad_notes list, the others counted: the room the sink has left (at most 1,000 a take)
    def note_room(self, values: list[int], pads: int, /) -> None: ...
    # "arrow" with judge_locs: the per-URL extension rules' facts of the records columns()
    # took last, recorded as their JSON was written (for judge_extensions), taken
    def extension_facts(self) -> ExtensionFacts | None: ...

class ExtensionFacts:
    """The per-URL extension rules' facts of a take of check's columns
    (core/src/check/ext_typed.rs), read by ``judge_extensions`` instead of the JSON."""

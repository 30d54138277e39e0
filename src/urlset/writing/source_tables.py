"""CSV and TSV columns: the names a build input's header may hold, and the rows of a table
with extension columns (images, videos, news, alternates, an ``extensions`` JSON cell),
checked one by one from the records the compiled reader splits (``urlset._core.SourceReader``);
a table of the core columns only never comes here (``sources`` passes it on in batches)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import tzinfo
from functools import cache
from typing import TYPE_CHECKING, Any

from .. import extensions as ext
from ..errors import InputError, InvalidValue
from ..model import RawElement, Url
from .source_rows import checked_rows, not_utf8, resolved_row, with_notes

if TYPE_CHECKING:
    from ..extensions import Extension

IGNORED_FIELDS = frozenset({"sitemap"})  # where `urlset fetch` found the URL
COLUMNS = ("loc", "lastmod", "changefreq", "priority")
IMAGE_COLUMNS = ("image_loc", "image_caption", "image_geo_location", "image_title", "image_license")
NEWS_COLUMNS = (
    "news_name",
    "news_language",
    "news_publication_date",
    "news_title",
    "news_access",
    "news_genres",
    "news_keywords",
    "news_stock_tickers",
)


@cache
def extension_columns() -> tuple[str, ...]:
    """The extension columns; the video ones are the Video class's fields, so they are known
    at the first CSV or TSV header (a text list never loads the extensions).
    "extensions": one JSON object with the JSON Lines extension fields, the cell `urlset
    read` writes in CSV and TSV, so that its output builds again."""
    video = (f"video_{name}" for name in ext.Video.__dataclass_fields__ if name != "prices")
    return (*IMAGE_COLUMNS, *NEWS_COLUMNS, *video, "alternates", "extensions")


# a record as the compiled reader gives it: its line, its cells (None when unreadable), why
Record = tuple[int, list[str] | None, str | None]


def known_column(name: str) -> bool:
    return (
        name in COLUMNS
        or name in extension_columns()
        or name in IGNORED_FIELDS
        or name.startswith("alternate_")
    )


def extension_table(
    records: Iterator[Record],
    source: str,
    positions: list[int],
    extra: list[tuple[int, str]],
    width: int,
    default_tz: tzinfo | None,
    per_check: int,
    base: str | None = None,
) -> Iterator[Url | InputError]:
    """The rows of a table with extension columns, one at a time (rows of the core values
    only gathered and checked ``per_check`` at a time); a relative loc resolved against
    ``base``."""
    batch: list[tuple[int, tuple[Any, ...]]] = []
    for number, row, unreadable in records:
        if row is None:
            yield InputError(source, number, f"unreadable row ({unreadable})")
            continue
        if not row or (len(row) == 1 and not row[0].strip()):
            continue
        problem: str | None = None
        extensions: tuple[Extension | RawElement, ...] = ()
        if len(row) != width:
            problem = f"has {len(row)} fields; the header has {width}"
        else:
            values = tuple(row[i].strip() or None if i >= 0 else None for i in positions)
            values = resolved_row(values, base)
            if any(v is not None and not_utf8(v) for v in values):
                problem = "not valid UTF-8"
            else:
                cells = {name: row[i].strip() for i, name in extra if row[i].strip()}
                if any(map(not_utf8, cells.values())):
                    problem = "not valid UTF-8"
                elif cells:
                    notes: list[str] = []  # what is at fault is left out alone
                    extensions = table_extensions(cells, notes)
                    if notes:
                        yield from checked_rows(batch, source, default_tz)
                        batch.clear()
                        yield with_notes(source, number, (*values, extensions), notes, default_tz)
                        continue
        if problem is not None:
            yield from checked_rows(batch, source, default_tz)
            batch.clear()
            yield InputError(source, number, problem, "line")
            continue
        if extensions:  # a 5-field row: urls_from_rows checks it with Url(*row)
            batch.append((number, (values[0] or "", *values[1:], extensions)))
        else:
            batch.append((number, (values[0] or "", *values[1:])))
        if len(batch) == per_check:
            yield from checked_rows(batch, source, default_tz)
            batch.clear()
    yield from checked_rows(batch, source, default_tz)


def _parts(cells: dict[str, str], column: str, count: int) -> list[str | None]:
    """The ``|``-separated parts of an optional per-image column, one per image."""
    text = cells.get(column)
    if text is None:
        return [None] * count
    parts = [p.strip() or None for p in text.split("|")]
    if len(parts) != count:
        raise InvalidValue(column, text, f"has {len(parts)} parts for {count} images in image_loc")
    return parts


def table_extensions(
    cells: dict[str, str], notes: list[str] | None = None
) -> tuple[Extension | RawElement, ...]:
    """The extensions of one CSV/TSV row, from its non-empty extension cells (name -> text).

    Without ``notes`` any fault raises ``InvalidValue``. With it, only what is at fault is
    left out, as the reader leaves it out: an optional field, an item, or one kind's columns
    when they do not hold together; each said in ``notes`` with the extension's code."""
    out: list[Extension | RawElement] = []
    for kind, columns in _KIND_COLUMNS:
        try:
            columns(cells, out, notes)
        except InvalidValue as exc:
            if notes is None:
                raise
            notes.append(ext.Note(_LEFT_OUT[kind], f"{exc}; the {kind} columns are left out"))
    return tuple(out)


def _extensions_cell(
    cells: dict[str, str], out: list[Extension | RawElement], notes: list[str] | None
) -> None:
    if "extensions" not in cells:
        return
    import json  # loaded by the first such cell, not by a table of the core columns

    try:
        data = json.loads(cells["extensions"])
        if not isinstance(data, dict):
            raise ValueError("not an object")
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidValue(
            "extensions",
            cells["extensions"][:80],
            f"is not a JSON object of extension fields, as `urlset read` writes ({exc})",
        ) from None
    out.extend(ext.from_json_fields(data, notes))


def _typed(
    out: list[Extension | RawElement], kind: str, values: dict[str, Any], notes: list[str] | None
) -> None:
    value = ext.typed_item(kind, values, notes)
    if value is not None:
        out.append(value)


def _image_columns(
    cells: dict[str, str], out: list[Extension | RawElement], notes: list[str] | None
) -> None:
    if "image_loc" in cells:
        locs = [p.strip() for p in cells["image_loc"].split("|")]
        n = len(locs)
        captions, geos, titles, licenses = (_parts(cells, c, n) for c in IMAGE_COLUMNS[1:])
        for i, loc in enumerate(locs):
            values = {"loc": loc, "caption": captions[i], "geo_location": geos[i]}
            _typed(out, "images", {**values, "title": titles[i], "license": licenses[i]}, notes)
    elif any(c in cells for c in IMAGE_COLUMNS):
        raise InvalidValue("image_loc", None, "is empty but other image columns are not")


def _video_columns(
    cells: dict[str, str], out: list[Extension | RawElement], notes: list[str] | None
) -> None:
    video: dict[str, Any] = {k[6:]: v for k, v in cells.items() if k.startswith("video_")}
    if not video:
        return
    if "tags" in video:
        video["tags"] = tuple(t.strip() for t in video["tags"].split("|") if t.strip())
    for name in ("restriction", "platform"):
        if name in video:
            relationship, _, rest = video[name].partition(" ")
            video[name] = ext.Relationship(relationship, tuple(rest.split()))
    for name in ("thumbnail_loc", "title", "description"):
        if name not in video:
            raise InvalidValue(f"video_{name}", None, "is empty but other video columns are not")
    _typed(out, "videos", video, notes)


def _news_columns(
    cells: dict[str, str], out: list[Extension | RawElement], notes: list[str] | None
) -> None:
    if not any(c in cells for c in NEWS_COLUMNS):
        return
    for name in NEWS_COLUMNS[:4]:
        if name not in cells:
            raise InvalidValue(name, None, "is empty but other news columns are not")
    values = {
        "publication_name": cells["news_name"],
        "language": cells["news_language"],
        "publication_date": cells["news_publication_date"],
        "title": cells["news_title"],
        "access": cells.get("news_access"),
        "genres": cells.get("news_genres", ()),
        "keywords": cells.get("news_keywords", ()),
        "stock_tickers": cells.get("news_stock_tickers", ()),
    }
    _typed(out, "news", values, notes)


def _alternate_columns(
    cells: dict[str, str], out: list[Extension | RawElement], notes: list[str] | None
) -> None:
    for name, text in cells.items():
        if name.startswith("alternate_"):
            _typed(out, "alternates", {"hreflang": name[len("alternate_") :], "href": text}, notes)
    if "alternates" in cells:
        for pair in cells["alternates"].split("|"):
            if not pair.strip():
                continue
            code, sep, href = pair.partition("=")
            if not sep:
                error = InvalidValue("alternates", pair, "write hreflang=href pairs separated by |")
                if notes is None:
                    raise error
                notes.append(ext.Note("invalid-alternate", f"{error}; the pair is left out"))
                continue
            _typed(out, "alternates", {"hreflang": code, "href": href}, notes)


_ColumnReader = Callable[[dict[str, str], list["Extension | RawElement"], list[str] | None], None]
# each kind's columns, in the order a row's extensions are written
_KIND_COLUMNS: tuple[tuple[str, _ColumnReader], ...] = (
    ("extensions", _extensions_cell),
    ("image", _image_columns),
    ("video", _video_columns),
    ("news", _news_columns),
    ("alternate", _alternate_columns),
)
# the code of one kind's columns left out whole
_LEFT_OUT = {
    "extensions": "invalid-extensions",
    "image": "invalid-image",
    "video": "invalid-video",
    "news": "invalid-news",
    "alternate": "invalid-alternate",
}

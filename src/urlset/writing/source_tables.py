"""CSV and TSV columns: the names a build input's header may hold, and the rows of a table
with extension columns (images, videos, news, alternates, an ``extensions`` JSON cell),
checked one by one from the records the compiled reader splits (``urlset._core.SourceReader``);
a table of the core columns only never comes here (``sources`` passes it on in batches)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import tzinfo
from functools import cache
from typing import TYPE_CHECKING, Any

from .. import extensions as ext
from ..errors import InputError, InvalidValue
from ..model import RawElement, Url
from .source_rows import checked_rows, not_utf8, without_extensions

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
) -> Iterator[Url | InputError]:
    """The rows of a table with extension columns, one at a time (rows of the core values
    only gathered and checked ``per_check`` at a time)."""
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
            if any(v is not None and not_utf8(v) for v in values):
                problem = "not valid UTF-8"
            else:
                cells = {name: row[i].strip() for i, name in extra if row[i].strip()}
                if any(map(not_utf8, cells.values())):
                    problem = "not valid UTF-8"
                elif cells:
                    try:
                        extensions = table_extensions(cells)
                    except InvalidValue as exc:
                        yield from checked_rows(batch, source, default_tz)
                        batch.clear()
                        yield without_extensions(source, number, values, exc, default_tz)
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


def table_extensions(cells: dict[str, str]) -> tuple[Extension | RawElement, ...]:
    """The extensions of one CSV/TSV row, from its non-empty extension cells (name -> text)."""
    out: list[Extension | RawElement] = []
    if "extensions" in cells:
        try:
            data = json.loads(cells["extensions"])
            if not isinstance(data, dict):
                raise ValueError("not an object")
            out.extend(ext.from_json_fields(data))
        except InvalidValue:
            raise
        except (ValueError, KeyError, TypeError) as exc:
            raise InvalidValue(
                "extensions",
                cells["extensions"][:80],
                f"is not a JSON object of extension fields, as `urlset read` writes ({exc})",
            ) from None
    if "image_loc" in cells:
        locs = [p.strip() for p in cells["image_loc"].split("|")]
        n = len(locs)
        captions, geos, titles, licenses = (_parts(cells, c, n) for c in IMAGE_COLUMNS[1:])
        out.extend(
            ext.Image(loc, captions[i], geos[i], titles[i], licenses[i])
            for i, loc in enumerate(locs)
        )
    elif any(c in cells for c in IMAGE_COLUMNS):
        raise InvalidValue("image_loc", None, "is empty but other image columns are not")
    video: dict[str, Any] = {k[6:]: v for k, v in cells.items() if k.startswith("video_")}
    if video:
        if "tags" in video:
            video["tags"] = tuple(t.strip() for t in video["tags"].split("|") if t.strip())
        for name in ("restriction", "platform"):
            if name in video:
                relationship, _, rest = video[name].partition(" ")
                video[name] = ext.Relationship(relationship, tuple(rest.split()))
        for name in ("thumbnail_loc", "title", "description"):
            if name not in video:
                raise InvalidValue(
                    f"video_{name}", None, "is empty but other video columns are not"
                )
        out.append(ext.Video(**video))
    if any(c in cells for c in NEWS_COLUMNS):
        for name in NEWS_COLUMNS[:4]:
            if name not in cells:
                raise InvalidValue(name, None, "is empty but other news columns are not")
        news: dict[str, Any] = cells
        out.append(
            ext.News(
                news["news_name"],
                news["news_language"],
                news["news_publication_date"],
                news["news_title"],
                news.get("news_access"),
                news.get("news_genres", ()),
                news.get("news_keywords", ()),
                news.get("news_stock_tickers", ()),
            )
        )
    for name, text in cells.items():
        if name.startswith("alternate_"):
            out.append(ext.Alternate(name[len("alternate_") :], text))
    if "alternates" in cells:
        for pair in cells["alternates"].split("|"):
            if not pair.strip():
                continue
            code, sep, href = pair.partition("=")
            if not sep:
                raise InvalidValue("alternates", pair, "write hreflang=href pairs separated by |")
            out.append(ext.Alternate(code, href))
    return tuple(out)

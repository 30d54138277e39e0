"""The read side's shape matrix: sitemap documents of one shape each (and a mix of all), for
the read benchmarks (bench_read_shapes.py) and the tests that hold the compiled lane to every
shape (tests/test_read_shapes.py).

  plain       /products/item-N, one repeated date, changefreq and priority
  iri         /café/N-€ (raw non-ASCII, made a URI and reported as normalized-url)
  amp         /search?q=N&amp;page=2
  apostrophe  /search?q=it's-N (raw ')
  pct         /caf%C3%A9/N (%-escapes kept)
  port        https://shop.example.com:44300/N (a 5-digit port)
  devhost     https://localhost:3000/N (a development host: one dev-host finding)
  date, utc, offset, fraction, micro, minutes, year, month
              one lastmod form each: 2024-05-06, ...Z, +05:30 / -05:00 / +01:00 in turn,
              .123 (milliseconds), .123456, hh:mm without seconds, 2024, 2024-05
  image, video, news, hreflang, unknown
              one extension on every entry (unknown: an element of another namespace)
  unordered   extensions as CMS plugins write them, out of the schema's order (each
              reported: extension-order), in turn: an image with its title before its caption
              (Shopify, WordPress SEO plugins; the caption empty, in CDATA or plain) and an
              hreflang link written another way (href first in single quotes, an end tag,
              hreflang first), a video with its title and description before its thumbnail,
              a news article with its title before its date and its publication's language
              before its name
  mix         all of the above in turn but unordered (the mix of the matrix's first runs,
              kept so that its figures compare across them)

Each document is a urlset (``urlset``), a sitemap index of the same locs (``index``) or a
text sitemap (``text``). Imports only the standard library.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

HOST = "https://www.example.com/"
NAMESPACES = (
    'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" '
    'xmlns:video="http://www.google.com/schemas/sitemap-video/1.1" '
    'xmlns:news="http://www.google.com/schemas/sitemap-news/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml" '
    'xmlns:other="https://other.example/ns"'
)
LOCS = ("plain", "iri", "amp", "apostrophe", "pct", "port", "devhost")
LASTMODS = ("date", "utc", "offset", "fraction", "micro", "minutes", "year", "month")
EXTENSIONS = ("image", "video", "news", "hreflang", "unknown", "unordered")
KINDS = (*LOCS, *LASTMODS, *EXTENSIONS)
SHAPES = (*KINDS, "mix")
MIXED = tuple(kind for kind in KINDS if kind != "unordered")
_T0 = datetime(2024, 1, 1, tzinfo=UTC)
_OFFSETS = ("+05:30", "-05:00", "+01:00")


def loc(kind: str, i: int) -> str:
    """The loc of entry ``i`` of a shape, as written in XML (escaped)."""
    if kind == "iri":
        return f"{HOST}café/{i}-€"
    if kind == "amp":
        return f"{HOST}search?q={i}&amp;page=2"
    if kind == "apostrophe":
        return f"{HOST}search?q=it's-{i}"
    if kind == "pct":
        return f"{HOST}caf%C3%A9/{i}"
    if kind == "port":
        return f"https://shop.example.com:44300/{i}"
    if kind == "devhost":
        return f"https://localhost:3000/{i}"
    return f"{HOST}products/item-{i}"


def lastmod(kind: str, i: int) -> str:
    """The lastmod text of entry ``i`` of a shape."""
    moment = _T0 + timedelta(seconds=7 * i)
    stamp = moment.strftime("%Y-%m-%dT%H:%M:%S")
    if kind == "utc":
        return stamp + "Z"
    if kind == "offset":
        return stamp + _OFFSETS[i % 3]
    if kind == "fraction":
        return f"{stamp}.{i % 1000:03d}{_OFFSETS[i % 3]}"
    if kind == "micro":
        return f"{stamp}.{i % 1_000_000:06d}Z"
    if kind == "minutes":
        return moment.strftime("%Y-%m-%dT%H:%M") + "Z"
    if kind == "year":
        return "2024"
    if kind == "month":
        return "2024-05"
    return "2024-05-06"


def extension(kind: str, i: int) -> str:
    """The extension elements of entry ``i`` of a shape ("" for none)."""
    if kind == "image":
        return f"<image:image><image:loc>{HOST}img/{i}.jpg</image:loc></image:image>"
    if kind == "video":
        return (
            f"<video:video><video:thumbnail_loc>{HOST}thumb/{i}.jpg</video:thumbnail_loc>"
            f"<video:title>Video {i}</video:title><video:description>About {i}"
            f"</video:description><video:content_loc>{HOST}v/{i}.mp4</video:content_loc>"
            "</video:video>"
        )
    if kind == "news":
        return (
            "<news:news><news:publication><news:name>Example News</news:name>"
            "<news:language>en</news:language></news:publication>"
            "<news:publication_date>2024-05-06T10:00:00Z</news:publication_date>"
            f"<news:title>Story {i}</news:title></news:news>"
        )
    if kind == "hreflang":
        return (
            f'<xhtml:link rel="alternate" hreflang="de" href="{HOST}de/{i}"/>'
            f'<xhtml:link rel="alternate" hreflang="en" href="{HOST}products/item-{i}"/>'
        )
    if kind == "unknown":
        return f"<other:rating>{i % 5}</other:rating>"
    if kind == "unordered":
        return _unordered(i)
    return ""


def _unordered(i: int) -> str:
    """Entry ``i``'s extension of the ``unordered`` shape."""
    if i % 5 == 3:
        return (
            f"<video:video><video:title>Video {i}</video:title><video:description>About {i}"
            f"</video:description><video:thumbnail_loc>{HOST}thumb/{i}.jpg</video:thumbnail_loc>"
            f"<video:content_loc>{HOST}v/{i}.mp4</video:content_loc></video:video>"
        )
    if i % 5 == 4:
        return (
            "<news:news><news:publication><news:language>en</news:language>"
            "<news:name>Example News</news:name></news:publication>"
            f"<news:title>Story {i}</news:title>"
            "<news:publication_date>2024-05-06T10:00:00Z</news:publication_date></news:news>"
        )
    caption = ("", f"<![CDATA[Item {i} & more]]>", f"Item {i} &amp; more")[i % 5]
    link = (
        f"<xhtml:link rel='alternate' href='{HOST}de/{i}' hreflang='de'/>",
        f'<xhtml:link rel="alternate" hreflang="de" href="{HOST}de/{i}"></xhtml:link>',
        f'<xhtml:link hreflang="de" rel="alternate" href="{HOST}de/{i}" />',
    )[i % 5]
    return (
        f"<image:image><image:loc>{HOST}img/{i}.jpg?v=1654753469</image:loc>"
        f"<image:title>Item {i}</image:title><image:caption>{caption}</image:caption>"
        f"</image:image>{link}"
    )


def kind_of(shape: str, i: int) -> str:
    return MIXED[i % len(MIXED)] if shape == "mix" else shape


def entry(shape: str, i: int) -> str:
    """Entry ``i`` of a urlset of one shape."""
    kind = kind_of(shape, i)
    lastmod_kind = kind if kind in LASTMODS else "date"
    changefreq = "<changefreq>daily</changefreq><priority>0.5</priority>" if i % 2 else ""
    return (
        f"<url><loc>{loc(kind, i)}</loc><lastmod>{lastmod(lastmod_kind, i)}</lastmod>"
        f"{changefreq}{extension(kind, i)}</url>\n"
    )


def urlset(shape: str, n: int) -> bytes:
    """A urlset of ``n`` entries of one shape."""
    body = "".join(entry(shape, i) for i in range(n))
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NAMESPACES}>\n{body}</urlset>\n'.encode()
    )


def index(shape: str, n: int) -> bytes:
    """A sitemap index of ``n`` children with the shape's locs and lastmods."""
    parts = []
    for i in range(n):
        kind = kind_of(shape, i)
        lastmod_kind = kind if kind in LASTMODS else "date"
        parts.append(
            f"<sitemap><loc>{loc(kind, i)}.xml</loc>"
            f"<lastmod>{lastmod(lastmod_kind, i)}</lastmod></sitemap>\n"
        )
    ns = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<sitemapindex {ns}>\n{"".join(parts)}</sitemapindex>\n'.encode()


def text(shape: str, n: int) -> bytes:
    """A text sitemap of ``n`` lines with the shape's locs (unescaped)."""
    lines = (loc(kind_of(shape, i), i).replace("&amp;", "&") for i in range(n))
    return "".join(f"{line}\n" for line in lines).encode()

"""The table of issue codes: code -> (severity, short title, hint).

Every ``Issue`` urlset reports carries one of these stable kebab-case codes. The reader's
codes come first; the checker adds its own rows to this same table. Keep entries small and
the table a plain dict so that tools (docs, ``--issues-json`` consumers) can list it.
"""

from __future__ import annotations

from typing import NamedTuple

from .model import Severity


class Code(NamedTuple):
    severity: Severity
    title: str
    hint: str


E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES: dict[str, Code] = {
    # --- the document as a whole (reader) ---
    "empty-document": Code(E, "document is empty", "the file or response has no content"),
    "unknown-format": Code(
        E,
        "not a sitemap",
        "a sitemap is XML (urlset, sitemapindex, RSS, Atom) or plain text with one URL per line",
    ),
    "html-page": Code(
        E,
        "an HTML page, not a sitemap",
        "the URL serves a web page (often an error page or a redirect); point at the XML file",
    ),
    "unknown-root": Code(
        E,
        "unknown root element",
        "the root must be <urlset>, <sitemapindex>, <rss> or <feed>",
    ),
    "doctype-refused": Code(
        E,
        "DOCTYPE refused",
        "sitemaps need no DOCTYPE; it is refused so that no entity can expand or read files",
    ),
    "not-well-formed": Code(
        E,
        "XML is not well-formed",
        "fix the markup at this place; entries around it were recovered",
    ),
    "undefined-entity": Code(
        E,
        "undefined entity",
        "only &amp; &lt; &gt; &quot; &apos; and character references exist in a sitemap; "
        "write & as &amp;",
    ),
    "unescaped-ampersand": Code(
        E,
        "unescaped &",
        "write & as &amp; in URLs and text; it was read as a literal &",
    ),
    "invalid-character": Code(
        E, "character not allowed in XML", "remove control characters and NUL bytes"
    ),
    "invalid-encoding": Code(
        E,
        "bytes invalid in the document's encoding",
        "save the file as UTF-8 (or declare the encoding it really uses)",
    ),
    "leading-whitespace": Code(
        W,
        "XML declaration not at the start",
        "remove whatever precedes <?xml (blank lines, spaces, a second byte order mark); "
        "strict XML parsers reject it, search engines read it",
    ),
    "junk-before-root": Code(
        E,
        "text before the XML",
        "the file starts with text that is not XML (a template header, a browser banner); "
        "remove it",
    ),
    "content-after-root": Code(
        E,
        "content after the root element",
        "a document ends with its root's end tag; a second document after it (two files "
        "joined, a second gzip member) or stray markup was not read: publish one per file",
    ),
    "truncated": Code(
        E, "document ends too early", "the file or download was cut; publish or fetch it whole"
    ),
    "truncated-entry": Code(
        E,
        "last entry cut off",
        "the document ends inside this entry, so it was not passed on as if whole",
    ),
    "nested-entry": Code(
        E,
        "entry inside an entry",
        "close each <url> (or <sitemap>) before the next one starts; the open entry was "
        "ended where the next one starts, and both were read",
    ),
    "gzip-truncated": Code(
        E, "gzip stream cut off", "the compressed file is incomplete; entries read so far were kept"
    ),
    "gzip-corrupt": Code(
        E, "gzip stream corrupt", "the compressed data is damaged (bad CRC or deflate data)"
    ),
    "decompressed-size-limit": Code(
        E,
        "size limit reached",
        "the document is larger than the reader's limit (a gzip bomb, or a file far over 50 MB); "
        "raise ReadLimits.max_decompressed_bytes if it is genuine",
    ),
    "entry-limit": Code(
        E, "entry limit reached", "raise ReadLimits.max_entries if the file is genuine"
    ),
    "depth-limit": Code(
        E,
        "elements nested too deeply",
        "sitemaps nest 4 or 5 levels deep; raise ReadLimits.max_depth if needed",
    ),
    "value-too-long": Code(
        E,
        "value too long",
        "a single value or line exceeds ReadLimits.max_value_length; it was skipped",
    ),
    "too-many-errors": Code(
        W, "more errors not shown", "fix the errors shown first; the rest are counted only"
    ),
    "non-utf8-encoding": Code(
        W, "not UTF-8", "the protocol requires UTF-8; the document was decoded as declared"
    ),
    "wrong-namespace": Code(
        W,
        "wrong namespace",
        'use xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" exactly (http, no trailing slash)',
    ),
    "missing-namespace": Code(
        W,
        "no namespace",
        'declare xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" on the root element',
    ),
    "prefixed-elements": Code(
        INFO,
        "sitemap elements use a prefix",
        "valid XML, but some consumers only understand the default namespace",
    ),
    "too-many-entries": Code(
        W,
        "more than 50,000 entries",
        "split the file: a sitemap lists at most 50,000 URLs (an index 50,000 sitemaps)",
    ),
    # --- one entry (reader) ---
    "missing-loc": Code(E, "entry without <loc>", "every <url> and <sitemap> needs a <loc>"),
    "loc-as-text": Code(
        W, "URL written without <loc>", "wrap the URL in <loc>...</loc>; it was read anyway"
    ),
    "relative-url": Code(
        E,
        "relative URL",
        "locs must be absolute (https://host/path); pass base_url / --base-url to resolve them",
    ),
    "resolved-url": Code(
        W,
        "relative URL resolved",
        "the URL was resolved against the base URL; publish absolute URLs",
    ),
    "normalized-url": Code(
        W,
        "URL not in URI form",
        "escape spaces and non-ASCII characters (%20, %C3%A4), write hosts in lower case or "
        "punycode; it was read as shown",
    ),
    "url-userinfo": Code(
        E,
        "URL with user info",
        "list URLs without 'user:password@' before the host: search engines reject them, and "
        "a sitemap is public",
    ),
    "invalid-url": Code(
        E, "invalid URL", "write an absolute http(s) URL of at most 2,048 characters"
    ),
    "whitespace-in-value": Code(
        W, "whitespace around a value", "remove spaces and line breaks inside the element"
    ),
    "unexpected-child": Code(
        W, "markup inside a value", "a value element holds child elements; its text was used"
    ),
    "invalid-lastmod": Code(
        E,
        "unreadable lastmod",
        "use W3C Datetime: YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00; the value was dropped",
    ),
    "lenient-lastmod": Code(
        W,
        "lastmod not in W3C form",
        "use W3C Datetime: YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00; it was read leniently",
    ),
    "invalid-changefreq": Code(
        W,
        "unknown changefreq",
        "use always, hourly, daily, weekly, monthly, yearly or never; the value was dropped",
    ),
    "changefreq-case": Code(
        W, "changefreq not lower case", "write the value in lower case; it was read anyway"
    ),
    "invalid-priority": Code(
        W, "priority out of range", "use a number from 0.0 to 1.0; the value was dropped"
    ),
    "duplicate-loc": Code(W, "duplicate URL", "list each URL once per sitemap"),
    "dev-host": Code(
        W,
        "development, local or preview host",
        "the URL names a host that is not the public site (localhost, .local, .test, a private "
        "address, a deploy preview); set the site's public URL in the generator",
    ),
    "unknown-element": Code(
        W,
        "unknown element",
        "not part of the protocol at this place; extensions need their own namespace",
    ),
    "repeated-element": Code(
        W, "element repeated", "an entry holds this element once; the first value was used"
    ),
    "invalid-pubdate": Code(
        W,
        "unreadable feed date",
        "RSS dates are RFC 822 (Thu, 05 Jan 2017 12:34:50 GMT); Atom dates RFC 3339",
    ),
    "missing-link": Code(W, "feed entry without a link", "give each item or entry a link"),
}


def code(name: str) -> Code:
    """The table row of ``name``; a KeyError names an unknown code (a bug in urlset)."""
    return CODES[name]

"""The one table of rules: code -> (severity, title, hint, Search Console's name).

Every ``Issue`` urlset reports carries one of these stable kebab-case codes, and every stage
that reports it (read, check, build, fetch, the reports) takes its severity, title and hint
from here: one problem has one code and one severity whatever the command. The reader's
rows come first, then what only a check looks at, then fetching's; each extension adds
its own rows (``add_rows``, done by ``urlset.extensions`` when it loads), so ``rule`` and
``all_codes`` answer for all of them. A reader forgives what it can and reads on; that is
what it does, not how severe the problem is. One piece because it is the one table: a
reader of it (or of a code's row) finds every code in one place.

``gsc`` is the name Google Search Console's Sitemaps report gives the same problem, where it
has one ("Empty sitemap", "Path mismatch: Includes www" ...); empty where it has none.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from .model import Severity


class Code(NamedTuple):
    severity: Severity
    title: str
    hint: str
    gsc: str = ""


E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

CODES: dict[str, Code] = {
    # --- the document as a whole (reader) ---
    "empty-document": Code(
        E, "document is empty", "the file or response has no content", "Empty sitemap"
    ),
    "unknown-format": Code(
        E,
        "not a sitemap",
        "a sitemap is XML (urlset, sitemapindex, RSS, Atom) or plain text with one URL per line",
        "Unsupported file format",
    ),
    "html-page": Code(
        E,
        "an HTML page, not a sitemap",
        "the URL serves a web page (often an error page or a redirect); point at the XML file",
        "Sitemap is HTML",
    ),
    "unknown-root": Code(
        E,
        "unknown root element",
        "the root must be <urlset>, <sitemapindex>, <rss> or <feed>",
        "Unsupported file format",
    ),
    "doctype-refused": Code(
        E,
        "DOCTYPE refused",
        "sitemaps need no DOCTYPE; it is refused so that no entity can expand or read files",
        "Parsing error",
    ),
    "not-well-formed": Code(
        E,
        "XML is not well-formed",
        "fix the markup at this place; entries around it were recovered",
        "Parsing error",
    ),
    "undefined-entity": Code(
        E,
        "undefined entity",
        "only &amp; &lt; &gt; &quot; &apos; and character references exist in a sitemap; "
        "write & as &amp;",
        "Parsing error",
    ),
    "unescaped-ampersand": Code(
        E,
        "unescaped &",
        "write & as &amp; in URLs and text; it was read as a literal &",
        "Parsing error",
    ),
    "invalid-character": Code(
        E,
        "character not allowed in XML",
        "remove control characters and NUL bytes",
        "Parsing error",
    ),
    "invalid-encoding": Code(
        E,
        "bytes invalid in the document's encoding",
        "save the file as UTF-8 (or declare the encoding it really uses)",
        "Unsupported file format",
    ),
    "leading-whitespace": Code(
        W,
        "XML declaration not at the start",
        "remove whatever precedes <?xml (blank lines, spaces, a second byte order mark); "
        "strict XML parsers reject it, search engines read it",
        "Leading whitespace",
    ),
    "junk-before-root": Code(
        E,
        "text before the XML",
        "the file starts with text that is not XML (a template header, a browser banner); "
        "remove it",
        "Parsing error",
    ),
    "content-after-root": Code(
        E,
        "content after the root element",
        "a document ends with its root's end tag; a second document after it (two files "
        "joined, a second gzip member) or stray markup was not read: publish one per file",
        "Parsing error",
    ),
    "truncated": Code(
        E,
        "document ends too early",
        "the file or download was cut; publish or fetch it whole",
        "Parsing error",
    ),
    "truncated-entry": Code(
        E,
        "last entry cut off",
        "the document ends inside this entry, so it was not passed on as if whole",
        "Parsing error",
    ),
    "nested-root": Code(
        E,
        "root element repeated inside itself",
        "remove the inner <urlset> (or <sitemapindex>) wrapper; its entries were read, as "
        "crawler-commons, Scrapy, sitemap.js and ultimate-sitemap-parser read them, but the "
        "document is not valid under the protocol's schema",
    ),
    "nested-entry": Code(
        E,
        "entry inside an entry",
        "close each <url> (or <sitemap>) before the next one starts; the open entry was "
        "ended where the next one starts, and both were read",
    ),
    "gzip-truncated": Code(
        E,
        "gzip stream cut off",
        "the compressed file is incomplete; entries read so far were kept",
        "Compression error",
    ),
    "gzip-corrupt": Code(
        E,
        "gzip stream corrupt",
        "the compressed data is damaged (bad CRC or deflate data)",
        "Compression error",
    ),
    "decompressed-size-limit": Code(
        E,
        "size limit reached",
        "the document is larger than the reader's limit (a gzip bomb, or a file far over 50 MB); "
        "raise ReadLimits.max_decompressed_bytes if it is genuine",
        "Sitemap file size error",
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
        E,
        "not UTF-8",
        "the protocol requires UTF-8; the document was decoded as declared",
        "Unsupported file format",
    ),
    "wrong-namespace": Code(
        E,
        "wrong namespace",
        'use xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" exactly (http, no trailing slash)',
        "Incorrect namespace",
    ),
    "missing-namespace": Code(
        E,
        "no namespace",
        'declare xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" on the root element',
        "Incorrect namespace",
    ),
    "prefixed-elements": Code(
        INFO,
        "sitemap elements use a prefix",
        "valid XML, but some consumers only understand the default namespace",
    ),
    # --- one entry (reader) ---
    "missing-loc": Code(
        E, "entry without <loc>", "every <url> and <sitemap> needs a <loc>", "Missing XML tag"
    ),
    "loc-as-text": Code(
        W,
        "URL written without <loc>",
        "wrap the URL in <loc>...</loc>; it was read anyway",
        "Missing XML tag",
    ),
    "relative-url": Code(
        E,
        "relative URL",
        "locs must be absolute (https://host/path); pass base_url / --base-url to resolve them",
        "Invalid URL",
    ),
    "resolved-url": Code(
        W,
        "relative URL resolved",
        "the URL was resolved against the base URL; publish absolute URLs",
    ),
    "normalized-url": Code(
        W,
        "URL not in URI form",
        "percent-encode non-ASCII characters as UTF-8 (ü is %C3%BC), write hosts in lower case "
        "or punycode; it was read as the URI shown (IRIs are read, URIs are safer)",
    ),
    "url-userinfo": Code(
        E,
        "URL with user info",
        "list URLs without 'user:password@' before the host: search engines reject them, and "
        "a sitemap is public",
        "Invalid URL",
    ),
    "invalid-url": Code(
        E, "invalid URL", "write an absolute http(s) URL of at most 2,048 characters", "Invalid URL"
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
        "Invalid date",
    ),
    "lenient-lastmod": Code(
        E,
        "lastmod not in W3C form",
        "use W3C Datetime: YYYY-MM-DD or YYYY-MM-DDThh:mm:ss+00:00; it was read leniently",
        "Invalid date",
    ),
    "invalid-changefreq": Code(
        E,
        "unknown changefreq",
        "use always, hourly, daily, weekly, monthly, yearly or never; the value was dropped",
        "Invalid XML tag value",
    ),
    "changefreq-case": Code(
        E,
        "changefreq not lower case",
        "write the value in lower case; it was read anyway",
        "Invalid XML tag value",
    ),
    "invalid-priority": Code(
        E,
        "priority out of range",
        "use a number from 0.0 to 1.0; the value was dropped",
        "Invalid XML tag value",
    ),
    "duplicate-loc": Code(W, "duplicate URL", "list each URL once per sitemap"),
    "dev-host": Code(
        W,
        "development, local or preview host",
        "the URL names a host that is not the public site (localhost, .local, .test, a private "
        "address, a deploy preview); set the site's public URL in the generator",
        "URL not allowed",
    ),
    "unknown-element": Code(
        W,
        "unknown element",
        "not part of the protocol at this place (search engines skip it, the XML schema "
        "rejects it); put extensions in their own namespace. Reported once per tag, at its "
        "first place",
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
    # --- the checker: what only a check looks at ---
    # (the document)
    "cannot-read": Code(
        E,
        "file cannot be read",
        "check the path or URL: that it exists, is readable, and answers 200",
        "Couldn't fetch",
    ),
    "no-sitemaps": Code(
        E,
        "no sitemap found",
        "no sitemap where one was looked for: the directory holds no sitemap file, or the site "
        "names none in robots.txt and answers at none of the usual places",
        "Couldn't fetch",
    ),
    "dangling-link": Code(
        E,
        "symbolic link to nothing",
        "the name links to a file that does not exist, so the server answers 404 for it; "
        "publish the target or remove the link",
        "Couldn't fetch",
    ),
    "not-a-file": Code(
        W,
        "not a regular file",
        "a named pipe, device or socket in the sitemaps' directory is never opened (it could "
        "block); remove it from the published directory",
    ),
    "byte-order-mark": Code(
        W,
        "byte-order mark at the start",
        "save the file as UTF-8 without a BOM; some consumers reject it",
    ),
    "no-xml-declaration": Code(
        W,
        "no XML declaration",
        'start the file with <?xml version="1.0" encoding="UTF-8"?>; it states the encoding',
    ),
    "empty-sitemap": Code(
        E,
        "sitemap lists no URLs",
        "a sitemap holds at least one <url> (an index one <sitemap>); remove the file or fill it",
        "Empty sitemap",
    ),
    # --- audit: the pages a sitemap lists, as a search engine requests them ---
    "page-redirect": Code(
        W, "listed URL redirects", "list the URL the redirect ends at", "Page with redirect"
    ),
    "page-redirect-chain": Code(
        W, "listed URL redirects more than once", "list the final URL", "Redirect error"
    ),
    "page-redirect-loop": Code(
        E, "redirect loop or too many redirects", "list the final URL", "Redirect error"
    ),
    "page-not-found": Code(
        E, "listed URL not found (404, 410)", "remove the URL", "Submitted URL not found (404)"
    ),
    "page-unauthorized": Code(
        E,
        "listed URL refuses access (401, 403)",
        "list only public pages",
        "Submitted URL returns unauthorized request (401)",
    ),
    "page-client-error": Code(
        E,
        "listed URL answers another 4xx",
        "list only URLs that answer 200",
        "Submitted URL blocked due to other 4xx issue",
    ),
    "page-server-error": Code(
        E, "listed URL answers 5xx", "fix the server error", "Server error (5xx)"
    ),
    "page-unreachable": Code(
        E, "listed URL timed out or refused", "check the server", "Submitted URL has crawl issue"
    ),
    "page-noindex": Code(
        E,
        "listed URL says noindex",
        "remove the URL or the noindex (meta robots, X-Robots-Tag)",
        "Submitted URL marked 'noindex'",
    ),
    "page-canonical-elsewhere": Code(
        W,
        "listed URL names another canonical",
        "list the canonical URL instead",
        "Duplicate, submitted URL not selected as canonical",
    ),
    "page-disallowed": Code(
        E,
        "listed URL disallowed by robots.txt",
        "allow it in robots.txt or remove the URL",
        "Submitted URL blocked by robots.txt",
    ),
    "page-not-html": Code(
        W, "listed URL is not an HTML page", "check that the file is meant to be indexed"
    ),
    "lastmod-mismatch": Code(
        W, "lastmod disagrees with Last-Modified", "write the date the page last changed"
    ),
    "uniform-lastmod": Code(
        W, "every URL has the same lastmod", "write each page's own change date, not a build time"
    ),
    "listed-in-several-sitemaps": Code(
        W, "URL listed in several sitemaps", "list each URL in one sitemap of the site"
    ),
    "listed-variants": Code(
        W,
        "several listed forms of one page",
        "list only the form the others redirect to",
        "Duplicate, submitted URL not selected as canonical",
    ),
    "unlisted-page": Code(
        W,
        "indexable linked page not listed",
        "add it to a sitemap",
        "Indexed, not submitted in sitemap",
    ),
    "orphan-page": Code(W, "listed URL linked from no page", "link it, or remove it"),
    "lastmod-without-day": Code(
        W,
        "lastmod without a day",
        "write the day at least (YYYY-MM-DD): a year or a month alone is a W3C Datetime, but "
        "sitemap.xsd types lastmod as a date and search engines read one",
        "Invalid date",
    ),
    "element-order": Code(
        W,  # search engines read any order; an error under --schema, which follows the XSD
        "elements out of order",
        "write <loc>, <lastmod>, <changefreq>, <priority> in this order, extensions after them",
    ),
    "misplaced-element": Code(
        E,
        "sitemap element in the wrong place",
        "this protocol element is not allowed here (e.g. <url> in an index, <loc> outside an entry)",
    ),
    "schema-error": Code(
        E,
        "not valid under the protocol's XML schema",
        "fix the element or value named; the schema is sitemaps.org 0.9 as urlset ships it",
    ),
    # --- one entry ---
    "url-not-escaped": Code(
        E,
        "URL not escaped",
        "percent-encode spaces and control characters in URLs (a space is %20)",
        "Invalid URL",
    ),
    "url-too-long": Code(
        E, "URL over 2,048 characters", "shorten the URL to at most 2,048 characters", "Invalid URL"
    ),
    "future-lastmod": Code(
        W,
        "lastmod in the future",
        "write the date the page last changed; a date in the future is ignored",
        "Invalid date",
    ),
    # --- limits of the chosen profile ---
    "too-many-urls": Code(
        E,
        "too many URLs",
        "split the sitemap (or text file) into files of at most the profile's URL limit "
        "(50,000), listed in an index",
        "Too many URLs",
    ),
    "file-too-large": Code(
        E,
        "sitemap too large (uncompressed)",
        "split the sitemap: the limit applies to the uncompressed size, gzip does not help",
        "Sitemap file size error",
    ),
    "too-many-sitemaps": Code(
        E,
        "too many sitemaps in the index",
        "split the index into several indexes, each submitted on its own",
        "Too many sitemaps",
    ),
    # --- location ---
    "url-not-allowed": Code(
        E,
        "URL outside the sitemap's scope",
        "list only URLs on the sitemap's scheme, host and port, in its directory or below; "
        "or move the sitemap up (usually to the site's root)",
        "URL not allowed",
    ),
    "www-variant": Code(
        E,
        "www. variant of the sitemap's host",
        "use one host name everywhere: the sitemap's URLs and the sitemap itself on the same "
        "www. or bare host",
        "Path mismatch: Missing www / Includes www",
    ),
    "placeholder-host": Code(
        W,
        "placeholder host",
        "example.com/.org/.net are reserved for documentation; set the site's public URL",
    ),
    "mixed-hosts": Code(
        W,
        "URLs on several hosts",
        "a sitemap lists URLs of its own host; give each host its own sitemap "
        "(pass --base-url to check the scope exactly)",
        "URL not allowed",
    ),
    # --- indexes ---
    "nested-index": Code(
        E,
        "index lists another index",
        "an index lists sitemaps only; list the inner index's sitemaps directly",
        "Nested indexes",
    ),
    "index-other-site": Code(
        E,
        "index entry on another site",
        "an index lists sitemaps of its own scheme, host and port only",
        "URL not allowed",
    ),
    "missing-child": Code(
        E,
        "listed sitemap not found",
        "the index names a sitemap that is not there (no such file in the directory, or 404 "
        "over HTTP); publish it or remove the entry",
        "Couldn't fetch",
    ),
    "missing-index-lastmod": Code(
        W,
        "index entries without lastmod",
        "give each <sitemap> a <lastmod> so that crawlers fetch only the sitemaps that changed",
    ),
    "stale-index-lastmod": Code(
        W,
        "index lastmod older than its sitemap's entries",
        "set the index entry's lastmod to the time the child sitemap last changed",
    ),
    # --- text sitemaps ---
    "text-not-url": Code(
        E,
        "line is not a URL",
        "a text sitemap holds one absolute URL per line and nothing else",
        "Invalid URL",
    ),
    "text-header-line": Code(
        E,
        "header or footer line",
        "a text sitemap has no title, header or footer lines; remove them",
    ),
}


# fetching's rows: what a download, a redirect or the discovery found (a probe's expected
# failure is reported as information: ``fetching.issues.quiet``)
_FETCH_ROWS: dict[str, Code] = {
    "http-status": Code(
        E,
        "HTTP error status",
        "the server answered with an error; publish the file at this URL",
        "Couldn't fetch",
    ),
    "fetch-failed": Code(
        E,
        "could not be downloaded",
        "the connection failed after the retries (refused, reset, DNS); check the host and port",
        "Couldn't fetch",
    ),
    "fetch-timeout": Code(
        E,
        "download timed out",
        "the server was too slow (connect, a read, or the whole download); raise --timeout",
        "Couldn't fetch",
    ),
    "fetch-retried": Code(
        INFO, "read after retrying", "the server failed at first; it answered on a retry"
    ),
    "fetch-partial": Code(
        E,
        "download cut off",
        "the body ended early (reset or timeout); the entries read are kept",
        "Couldn't fetch",
    ),
    "deadline": Code(
        W,
        "cut off by the run's deadline",
        "the run's --deadline passed before this was read whole; raise it",
    ),
    "redirect-loop": Code(
        E, "redirect loop", "the redirects lead back to a URL already visited", "Couldn't fetch"
    ),
    "too-many-redirects": Code(
        E, "too many redirects", "point at the sitemap's final URL", "Couldn't fetch"
    ),
    "cross-host-redirect": Code(
        W,
        "redirect to another host",
        "a sitemap that redirects to another host lists URLs outside its scope; submit the "
        "final URL",
    ),
    "content-type": Code(
        W,
        "unexpected content type",
        "serve sitemaps as application/xml, text/xml, text/plain or application/gzip",
    ),
    "not-a-sitemap": Code(
        E,
        "not a sitemap",
        "the URL answers with a page or a file that is no sitemap",
        "Unsupported file format",
    ),
    "index-loop": Code(
        E,
        "index loop",
        "an index lists itself or an index above it; remove the entry",
        "Nested indexes",
    ),
    "duplicate-sitemap": Code(
        INFO, "sitemap listed twice", "list each sitemap once; it was read once"
    ),
    "cross-host-sitemap": Code(
        W,
        "sitemap on another host",
        "an index or robots.txt lists a sitemap on another host; it counts only with "
        "cross-submission (the other host's robots.txt naming it)",
        "URL not allowed",
    ),
    "index-depth-limit": Code(
        W,
        "indexes nested too deeply",
        "indexes list sitemaps, not other indexes",
        "Nested indexes",
    ),
    "sitemap-limit": Code(
        W, "sitemap cap reached", "the run's --max-sitemaps cap left sitemaps out; raise it"
    ),
    "url-limit": Code(W, "URL cap reached", "the run's --max-urls cap left URLs out; raise it"),
    "unchanged": Code(
        INFO, "not changed since the last run", "the index's lastmod says it did not change"
    ),
    "not-modified": Code(INFO, "not modified (304)", "the stored result was reused"),
    "http-fallback": Code(
        W,
        "read over http",
        "https could not be connected to; serve the site and its sitemaps over https",
    ),
    "cache-outdated": Code(
        INFO, "cache of an older version", "the stored result was not reused; it is replaced"
    ),
    "robots-unavailable": Code(
        E,
        "robots.txt cannot be read",
        "robots.txt answered with an error (not 404); search engines may stop crawling",
    ),
    "robots-too-large": Code(
        W, "robots.txt too large", "keep robots.txt under 500 KiB; the rest is ignored"
    ),
    # "should be the complete URL" (sitemaps.org): a fetch resolves it and reads on
    "robots-relative-sitemap": Code(
        W,
        "relative Sitemap: line",
        "write the sitemap's absolute URL in robots.txt; Google reads complete URLs only",
    ),
    "robots-bad-sitemap": Code(
        E, "unusable Sitemap: line", "write one absolute http(s) URL after Sitemap:"
    ),
    "robots-no-sitemaps": Code(
        W, "robots.txt names no sitemap", "add a Sitemap: line: urlset robots FILE --sitemap URL"
    ),
    # --- robots.txt as `urlset robots` checks it ---
    "robots-missing": Code(
        E, "no robots.txt", "publish /robots.txt with a Sitemap: line naming the sitemap"
    ),
    "robots-duplicate-sitemap": Code(
        W, "sitemap named twice in robots.txt", "name each sitemap once"
    ),
    "cross-submission": Code(
        INFO,
        "sitemap on another site, accepted by cross-submission",
        "the robots.txt of a site may name a sitemap hosted elsewhere; its URLs on this site count",
    ),
    "sitemap-disallowed": Code(
        E,
        "sitemap disallowed by robots.txt",
        "allow the sitemap's path for crawlers, or they never read it",
    ),
    "url-blocked": Code(
        E,
        "URLs disallowed by robots.txt",
        "list only URLs crawlers may fetch, or allow them in robots.txt",
        "Sitemap contains URLs which are blocked by robots.txt",
    ),
    "robots-location-assumed": Code(
        INFO,
        "robots.txt's site assumed",
        "give --site URL to say where the robots.txt is served",
    ),
}
CODES.update(_FETCH_ROWS)

# rows added by other parts (the extensions' codes): looked up after CODES
_MORE: list[Mapping[str, Code]] = []


def add_rows(rows: Mapping[str, Code]) -> None:
    """Add a part's rows to the table (``urlset.extensions`` adds every extension's)."""
    if not any(rows is known for known in _MORE):
        _MORE.append(rows)


def rule(name: str) -> Code:
    """The row of ``name``; a KeyError names an unknown code (a bug in urlset)."""
    row = CODES.get(name)
    if row is not None:
        return row
    for rows in _MORE:
        row = rows.get(name)
        if row is not None:
            return row
    raise KeyError(name)


def all_codes() -> dict[str, Code]:
    """Every row, the extensions' too (for docs, SARIF and the tests that hold the stages to
    it)."""
    table = dict(CODES)
    for rows in _MORE:
        table.update(rows)
    return table


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 URL``, ``2 URLs``, ``1 entry``, ``3 entries``: the count with its noun, plural
    unless it is one (``nouns``, when the plural is not the noun plus s). Every summary
    that counts says it so."""
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {nouns or noun + 's'}"


def unlisted_message(code: str, n: int, cap: int) -> str:
    """What a ``too-many-errors`` line says of ``n`` issues of ``code`` when ``cap`` are
    listed (the reader's and the checker's alike: the checker knows the reader's by it)."""
    return f"{n - cap} more {code} issues not listed ({n} in all)"

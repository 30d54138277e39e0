"""The checker's rules: one function each, with a stable kebab-case code.

A rule function looks at one thing (a value, a count, a host, a piece of raw text) and
returns the message of its finding, or None. It never reads files or the clock: the
checker (``document.py``) runs the reader, feeds the rules and turns findings into ``Issue``
values with the severity, hint and Google Search Console wording of the code table below.

The reader reports what it finds while reading (its table is ``urlset.codes.CODES``); this
module adds the rules only a checker applies, and sets the severity some reader codes have
when a document is checked (a reader forgives and reads on; a checker reports strictly).
``lookup(code)`` answers for both tables.

``gsc`` is the name Google Search Console's Sitemaps report gives the same problem, where
it has one ("Empty sitemap", "Path mismatch: Includes www" ...); empty where it has none.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ..codes import CODES
from ..dates import Lastmod, latest_moment
from ..extensions import EXT_CODES
from ..limits import Limits
from ..model import Issue, Severity
from ..patterns import lazy
from ..urls import Scope


class RuleCode(NamedTuple):
    """A row of the code table: ``codes.Code`` plus the wording Search Console uses, if any."""

    severity: Severity
    title: str
    hint: str
    gsc: str = ""


E, W = Severity.ERROR, Severity.WARNING

CHECK_CODES: dict[str, RuleCode] = {
    # --- the document ---
    "cannot-read": RuleCode(
        E,
        "file cannot be read",
        "check the path or URL: that it exists, is readable, and answers 200",
        "Couldn't fetch",
    ),
    "no-sitemaps": RuleCode(
        E,
        "no sitemap in the directory",
        "the directory holds no *.xml, *.gz or *sitemap*.txt file; check the build's output path",
        "Couldn't fetch",
    ),
    "byte-order-mark": RuleCode(
        W,
        "byte-order mark at the start",
        "save the file as UTF-8 without a BOM; some consumers reject it",
    ),
    "no-xml-declaration": RuleCode(
        W,
        "no XML declaration",
        'start the file with <?xml version="1.0" encoding="UTF-8"?>; it states the encoding',
    ),
    "empty-sitemap": RuleCode(
        E,
        "sitemap lists no URLs",
        "a sitemap holds at least one <url> (an index one <sitemap>); remove the file or fill it",
        "Empty sitemap",
    ),
    "element-order": RuleCode(
        W,  # search engines read any order; an error under --schema, which follows the XSD
        "elements out of order",
        "write <loc>, <lastmod>, <changefreq>, <priority> in this order, extensions after them",
    ),
    "misplaced-element": RuleCode(
        E,
        "sitemap element in the wrong place",
        "this protocol element is not allowed here (e.g. <url> in an index, <loc> outside an entry)",
    ),
    "unknown-sitemap-element": RuleCode(
        E,
        "unknown element in the sitemap namespace",
        "the sitemaps.org namespace has only urlset, url, sitemapindex, sitemap, loc, lastmod, "
        "changefreq and priority; put extensions in their own namespace",
    ),
    "schema-error": RuleCode(
        E,
        "not valid under the protocol's XML schema",
        "fix the element or value named; the schema is sitemaps.org 0.9 as urlset ships it",
    ),
    # --- one entry ---
    "url-not-escaped": RuleCode(
        E,
        "URL not escaped",
        "percent-encode spaces and control characters in URLs (a space is %20)",
        "Invalid URL",
    ),
    "unescaped-ampersand": RuleCode(
        E,
        "raw & in the XML",
        "write & as &amp; inside XML values (a URL's query string too)",
        "Parsing error",
    ),
    "url-not-ascii": RuleCode(
        W,
        "URL has non-ASCII characters",
        "percent-encode non-ASCII characters as UTF-8 (ü is %C3%BC); IRIs are read, URIs are safer",
    ),
    "url-too-long": RuleCode(
        E, "URL over 2,048 characters", "shorten the URL to at most 2,048 characters", "Invalid URL"
    ),
    "future-lastmod": RuleCode(
        W,
        "lastmod in the future",
        "write the date the page last changed; a date in the future is ignored",
        "Invalid date",
    ),
    # --- limits of the chosen profile ---
    "too-many-urls": RuleCode(
        E,
        "too many URLs",
        "split the sitemap into files of at most the profile's URL limit, listed in an index",
        "Too many URLs",
    ),
    "file-too-large": RuleCode(
        E,
        "sitemap too large (uncompressed)",
        "split the sitemap: the limit applies to the uncompressed size, gzip does not help",
        "Sitemap file size error",
    ),
    "too-many-sitemaps": RuleCode(
        E,
        "too many sitemaps in the index",
        "split the index into several indexes, each submitted on its own",
        "Too many sitemaps",
    ),
    # --- location ---
    "url-not-allowed": RuleCode(
        E,
        "URL outside the sitemap's scope",
        "list only URLs on the sitemap's scheme, host and port, in its directory or below; "
        "or move the sitemap up (usually to the site's root)",
        "URL not allowed",
    ),
    "www-variant": RuleCode(
        E,
        "www. variant of the sitemap's host",
        "use one host name everywhere: the sitemap's URLs and the sitemap itself on the same "
        "www. or bare host",
        "Path mismatch: Missing www / Includes www",
    ),
    "dev-host": RuleCode(
        W,
        "development, local or preview host",
        "the URL names a host that is not the public site (localhost, .local, .test, a private "
        "address, a deploy preview); set the site's public URL in the generator",
        "URL not allowed",
    ),
    "placeholder-host": RuleCode(
        W,
        "placeholder host",
        "example.com/.org/.net are reserved for documentation; set the site's public URL",
    ),
    "mixed-hosts": RuleCode(
        W,
        "URLs on several hosts",
        "a sitemap lists URLs of its own host; give each host its own sitemap "
        "(pass --base-url to check the scope exactly)",
        "URL not allowed",
    ),
    # --- indexes ---
    "nested-index": RuleCode(
        E,
        "index lists another index",
        "an index lists sitemaps only; list the inner index's sitemaps directly",
        "Nested indexes",
    ),
    "index-other-site": RuleCode(
        E,
        "index entry on another site",
        "an index lists sitemaps of its own scheme, host and port only",
        "URL not allowed",
    ),
    "missing-child": RuleCode(
        E,
        "listed sitemap not found",
        "the index names a file that is not in the directory; publish it or remove the entry",
        "Couldn't fetch",
    ),
    "missing-index-lastmod": RuleCode(
        W,
        "index entries without lastmod",
        "give each <sitemap> a <lastmod> so that crawlers fetch only the sitemaps that changed",
    ),
    "stale-index-lastmod": RuleCode(
        W,
        "index lastmod older than its sitemap's entries",
        "set the index entry's lastmod to the time the child sitemap last changed",
    ),
    # --- text sitemaps ---
    "text-not-url": RuleCode(
        E,
        "line is not a URL",
        "a text sitemap holds one absolute URL per line and nothing else",
        "Invalid URL",
    ),
    "text-header-line": RuleCode(
        E,
        "header or footer line",
        "a text sitemap has no title, header or footer lines; remove them",
    ),
    "too-many-lines": RuleCode(
        E,
        "more than 50,000 lines",
        "a text sitemap holds at most 50,000 URLs; split it into several files",
        "Too many URLs",
    ),
}

# Reader codes reported with another severity when a document is checked: each breaks a
# "must" of the protocol or its schema, which the reader forgives so that it can read on.
CHECK_SEVERITY: dict[str, Severity] = {
    "wrong-namespace": E,
    "missing-namespace": E,
    "non-utf8-encoding": E,
    "lenient-lastmod": E,
    "invalid-changefreq": E,
    "changefreq-case": E,
    "invalid-priority": E,
    "too-many-entries": E,
}

# Search Console's wording for the problems the reader reports.
GSC_WORDING: dict[str, str] = {
    "empty-document": "Empty sitemap",
    "unknown-format": "Unsupported file format",
    "html-page": "Sitemap is HTML",
    "unknown-root": "Unsupported file format",
    "doctype-refused": "Parsing error",
    "not-well-formed": "Parsing error",
    "undefined-entity": "Parsing error",
    "invalid-character": "Parsing error",
    "invalid-encoding": "Unsupported file format",
    "leading-whitespace": "Leading whitespace",
    "junk-before-root": "Parsing error",
    "content-after-root": "Parsing error",
    "truncated": "Parsing error",
    "truncated-entry": "Parsing error",
    "gzip-truncated": "Compression error",
    "gzip-corrupt": "Compression error",
    "decompressed-size-limit": "Sitemap file size error",
    "non-utf8-encoding": "Unsupported file format",
    "wrong-namespace": "Incorrect namespace",
    "missing-namespace": "Incorrect namespace",
    "too-many-entries": "Too many URLs",
    "missing-loc": "Missing XML tag",
    "loc-as-text": "Missing XML tag",
    "relative-url": "Invalid URL",
    "invalid-url": "Invalid URL",
    "url-userinfo": "Invalid URL",
    "invalid-lastmod": "Invalid date",
    "lenient-lastmod": "Invalid date",
    "invalid-changefreq": "Invalid XML tag value",
    "changefreq-case": "Invalid XML tag value",
    "invalid-priority": "Invalid XML tag value",
}


def lookup(code: str) -> RuleCode:
    """The table row of any code urlset reports, with the severity a check gives it."""
    row = CHECK_CODES.get(code)
    if row is not None:
        return row
    base = CODES.get(code) or EXT_CODES[code]
    return RuleCode(
        CHECK_SEVERITY.get(code, base.severity), base.title, base.hint, GSC_WORDING.get(code, "")
    )


def row_of(issue: Issue) -> RuleCode:
    """The table row of ``issue``'s code; for a code of another stage (fetching's, in a
    check over HTTP), the issue's own severity and hint."""
    try:
        return lookup(issue.code)
    except KeyError:
        return RuleCode(issue.severity, issue.code, issue.hint)


def all_codes() -> dict[str, RuleCode]:
    """Every code the checker can report, reader codes included (for docs and SARIF)."""
    table = {name: lookup(name) for name in [*CODES, *EXT_CODES]}
    table.update(CHECK_CODES)
    return table


def make_issue(code: str, message: str, line: int = 0, column: int = 0, source: str = "") -> Issue:
    row = lookup(code)
    return Issue(code, row.severity, message, line, column, source, row.hint)


def shown(text: str, width: int = 120) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


# --- the document ------------------------------------------------------------------------


def byte_order_mark(plain: bytes) -> str | None:
    """The protocol asks for UTF-8; a BOM is allowed by XML but trips naive consumers."""
    if plain.startswith(b"\xef\xbb\xbf"):
        return "the document starts with a UTF-8 byte-order mark"
    return None


_DECLARATION = lazy(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*<\?xml[ \t\r\n]")


def no_xml_declaration(plain: bytes) -> str | None:
    """The protocol's examples and "must be UTF-8 encoded" rely on the declaration; XML
    itself makes it optional, so this is a warning."""
    if _DECLARATION.match(plain):
        return None
    return "the document does not start with an XML declaration"


def empty_sitemap(fmt: str | None, entries: int, fatal: bool) -> str | None:
    """sitemap.xsd: <urlset> holds one or more <url>, <sitemapindex> one or more <sitemap>."""
    if fatal or entries or fmt not in ("urlset", "sitemapindex", "text"):
        return None
    what = {"urlset": "<url>", "sitemapindex": "<sitemap>", "text": "URL line"}[fmt]
    return f"the sitemap has no {what}"


# --- one entry -----------------------------------------------------------------------------

_INNER_SPACE = lazy(r"\S\s+\S")
_CONTROL = lazy(r"[\x00-\x1f\x7f]")
_BARE_AMP = lazy(r"&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);)")


def url_not_escaped(raw: str) -> str | None:
    """ "all URLs ... must be URL-escaped" (Entity escaping): no spaces or control characters.

    ``raw`` is the loc text as written in the file, not the URI the reader made of it.
    """
    text = raw.strip()
    if _INNER_SPACE.search(text) or _CONTROL.search(text):
        return f"{shown(text)!r} contains spaces or control characters"
    return None


def url_not_ascii(raw: str) -> str | None:
    """An IRI is accepted by the protocol (RFC 3987) but not percent-encoded as advised."""
    if not raw.isascii():
        return f"{shown(raw.strip())!r} contains non-ASCII characters"
    return None


def unescaped_ampersand(raw: str) -> str | None:
    """ "any data values (including URLs) must use entity escape codes": & is written &amp;."""
    if "&" in raw and _BARE_AMP.search(raw):
        return f"{shown(raw.strip())!r} has a raw & (write &amp;)"
    return None


def url_too_long(uri_text: str, limits: Limits) -> str | None:
    """sitemap.xsd tLoc maxLength 2048; the protocol page says "less than 2,048 characters"."""
    if len(uri_text) > limits.max_loc_length:
        return f"the URL is {len(uri_text):,} characters; the limit is {limits.max_loc_length:,}"
    return None


# --- limits ----------------------------------------------------------------------------------


def too_many_urls(count: int, limits: Limits) -> str | None:
    """ "no more than 50,000 URLs" per sitemap file."""
    if count > limits.max_urls:
        return f"{count:,} URLs; profile {limits.name} allows {limits.max_urls:,} per sitemap"
    return None


def file_too_large(size: int, limits: Limits) -> str | None:
    """ "no larger than 50MB (52,428,800 bytes)" uncompressed (10 MB in the 2008 text)."""
    if size > limits.max_bytes:
        return f"{size:,} bytes uncompressed; profile {limits.name} allows {limits.max_bytes:,}"
    return None


def too_many_sitemaps(count: int, limits: Limits) -> str | None:
    """An index lists at most 50,000 sitemaps (1,000 in the 2008 text)."""
    if count > limits.max_sitemaps_per_index:
        return (
            f"{count:,} sitemaps; profile {limits.name} allows "
            f"{limits.max_sitemaps_per_index:,} per index"
        )
    return None


# --- location ------------------------------------------------------------------------------


def host_of(uri: str) -> str:
    """The host of an http(s) URI, lower case, without port or brackets."""
    rest = uri.split("://", 1)[-1]
    authority = rest.split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]
    if authority.startswith("["):
        return authority[1 : authority.find("]")].lower()
    return authority.split(":", 1)[0].lower()


def _bare(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def www_variant(uri: str, scope: Scope) -> str | None:
    """The URL is on the www. (or bare) twin of the sitemap's host: a frequent, named mistake."""
    host = host_of(uri)
    if host != scope.host and _bare(host) == _bare(scope.host):
        return f"{shown(uri)} is on {host}, the sitemap on {scope.host}"
    return None


def url_not_allowed(uri: str, scope: Scope) -> str | None:
    """ "A Sitemap file located at http://example.com/catalog/sitemap.xml can include any URLs
    starting with http://example.com/catalog/ but can not include URLs starting with
    http://example.com/images/" (Sitemap file location). The www. case is ``www_variant``."""
    if uri.startswith(scope.prefix):
        return None
    if www_variant(uri, scope) is not None:
        return None
    why = scope.violation(uri)
    return None if why is None else f"{shown(uri)}: {why}"


def mixed_hosts(host: str, first_host: str) -> str | None:
    """Without the sitemap's own URL the scope is unknown; a second host still stands out."""
    if host != first_host:
        return f"host {host} differs from {first_host}, the host of the first URL"
    return None


# --- indexes -------------------------------------------------------------------------------


def nested_index(child_format: str | None) -> str | None:
    """ "Sitemap index files may not list other Sitemap index files" (Google); the protocol's
    index lists Sitemaps."""
    if child_format == "sitemapindex":
        return "the listed file is itself a sitemap index"
    return None


def index_other_site(uri: str, index_scope: Scope) -> str | None:
    """ "A Sitemap index file can only specify Sitemaps that are found on the same site"."""
    site = Scope(index_scope.scheme, index_scope.host, index_scope.port, "/")
    if uri.startswith(site.prefix):
        return None
    why = site.violation(uri)
    return None if why is None else f"{shown(uri)}: {why}"


def missing_child(uri: str, local: str) -> str | None:
    return f"{shown(uri)} should be at {local}, which does not exist"


def missing_index_lastmod(without: int, entries: int, excused: int = 0) -> str | None:
    """ "lastmod (optional): Identifies the time that the corresponding Sitemap file was
    modified" - without it a crawler must fetch every child to see what changed. ``excused``
    entries lack it too, but their sitemaps have no lastmod to give: counted apart."""
    if without - excused <= 0:
        return None
    message = f"{without:,} of {entries:,} index entries have no <lastmod>"
    if excused:
        message += f" ({excused:,} of them list sitemaps without any lastmod, so lose nothing)"
    return message


def stale_index_lastmod(ref_lastmod: Lastmod, newest: Lastmod) -> str | None:
    """The index entry's lastmod should be the time its sitemap changed: no child entry is newer."""
    if latest_moment(newest) > latest_moment(ref_lastmod):
        return (
            f"the index says {ref_lastmod.isoformat()} but the sitemap lists a lastmod of "
            f"{newest.isoformat()}"
        )
    return None


def newest(values: list[Lastmod]) -> Lastmod | None:
    if not values:
        return None
    return max(values, key=latest_moment)


# --- text sitemaps -------------------------------------------------------------------------

_URLISH = lazy(r"[^\s<>\"{}|\\^`]+")
_PATHISH = lazy(r"(?:[a-z][a-z0-9+.\-]*:)?/?[^\s/]*[./][^\s]*", re.IGNORECASE)


def text_not_url(line: str) -> str | None:
    """ "The text file must have one URL per line": spaces, markup or prose are not URLs."""
    text = line.strip()
    if not text:
        return None
    if _URLISH.fullmatch(text) and _PATHISH.fullmatch(text):
        return None
    return f"{shown(text)!r} is not a URL"


def text_header_line(line: str) -> str | None:
    """ "The text file should contain no header or footer information": a first or last line
    that is not a URL (the caller passes only those lines)."""
    if text_not_url(line) is None:
        return None
    return f"{shown(line.strip())!r} looks like a header or footer, not a URL"


def too_many_lines(count: int, limits: Limits) -> str | None:
    """ "Each text file can contain a maximum of 50,000 URLs"."""
    if count > limits.max_urls:
        return f"{count:,} lines; a text sitemap holds at most {limits.max_urls:,} URLs"
    return None

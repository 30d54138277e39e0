"""The checker's rules: one function each, with a stable kebab-case code.

A rule function looks at one thing (a value, a count, a host, a piece of raw text) and
returns the message of its finding, or None. It never reads files or the clock: the
checker (``document.py``) runs the reader, feeds the rules and turns findings into ``Issue``
values with the severity, hint and Google Search Console wording of the one table of codes,
``urlset.codes`` (which the reader, the build and fetching read too: a problem has the same
code and severity whichever command finds it).
"""

from __future__ import annotations

import re

from ..codes import Code, rule
from ..codes import all_codes as all_codes  # every row, for docs and SARIF
from ..dates import Lastmod, latest_moment
from ..limits import Limits
from ..model import Issue, issue_of
from ..patterns import lazy
from ..urls import Scope, authority_host, not_escaped_message

# the location rules the build shares (--include-sitemap) live with the URL core
from ..urls import index_other_site as index_other_site
from ..urls import shown as shown
from ..urls import www_variant as www_variant

host_of = authority_host

# a row of the one table (``codes.Code``: severity, title, hint, Search Console's name)
RuleCode = Code


def lookup(code: str) -> Code:
    """The table row of any code urlset reports (``codes.rule``)."""
    return rule(code)


def row_of(issue: Issue) -> Code:
    """The table row of ``issue``'s code; for a code of no row (a bug), the issue's own
    severity and hint."""
    try:
        return rule(issue.code)
    except KeyError:
        return Code(issue.severity, issue.code, issue.hint)


def make_issue(code: str, message: str, line: int = 0, column: int = 0, source: str = "") -> Issue:
    row = rule(code)
    return issue_of((code, row.severity, message, line, column, source, row.hint))


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

_BARE_AMP = lazy(r"&(?!(?:amp|lt|gt|quot|apos|#[0-9]+|#x[0-9A-Fa-f]+);)")


def url_not_escaped(raw: str) -> str | None:
    """ "all URLs ... must be URL-escaped" (Entity escaping): no spaces or control characters.

    ``raw`` is the loc text as written in the file, not the URI the reader made of it; the
    reader says the same of a loc it makes a URI of (``urls.made_uri_finding``). A loc's
    other forms (an IRI, an upper-case host) are the reader's ``normalized-url``: check
    passes it on.
    """
    return not_escaped_message(raw)


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

"""URL rules of the protocol: IRI -> URI, the loc length limit, and location scope.

"loc: URL of the page. This URL must begin with the protocol (such as http) ... and must be
less than 2,048 characters" and "All data values in a Sitemap must be entity-escaped"
(sitemaps.org 0.9). Escaping for XML is the writer's job; this module makes the URL itself
an RFC 3986 URI: non-ASCII percent-encoded as UTF-8, host names in IDNA, fragments dropped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat

from ._core import iri_to_uri, resolve_loc
from .errors import InvalidValue
from .limits import MAX_LOC_LENGTH
from .patterns import lazy

# The hot path: an ASCII http(s) URL with a lowercase host name (its last label starting
# with a letter, so no IPv4 form WHATWG would rewrite), no default or zero-padded port, a path
# with no dot segments (nor %2e, which WHATWG reads as a dot), only characters RFC 3986 allows
# and valid %XX escapes, and no fragment is already the URI the full WHATWG parse below would
# produce, so it is taken as it is.
# a host name whose last label starts with a letter, or a canonical dotted-quad IPv4 address
# (no leading zeros, each part 0-255: the forms WHATWG keeps as they are)
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
PLAIN_HOST = (
    r"(?:(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)*[a-z](?:[a-z0-9\-]*[a-z0-9])?"
    rf"|{_OCTET}(?:\.{_OCTET}){{3}})"
)
_PLAIN_ORIGIN = lazy(rf"(https?)://{PLAIN_HOST}(?::([1-9][0-9]{{0,4}}))?/")


@lru_cache(maxsize=1024)
def _plain_origin(origin: str) -> bool:
    """``scheme://host[:port]/`` as the WHATWG parse writes it (sites have few origins)."""
    m = _PLAIN_ORIGIN.fullmatch(origin)
    if m is None:
        return False
    port = m[2]
    return port is None or (int(port) <= 65_535 and int(port) != _DEFAULT_PORT[m[1]])


def is_plain_uri(loc: str) -> bool:
    """True when ``loc`` is certainly the URI ``to_uri`` would return (the per-URL fast path).

    The origin is looked up in a cache; the rest is checked with a byte translation: only
    characters RFC 3986 allows as they are, '%' only in a valid escape other than %2E, no dot
    segment.
    """
    start = loc.find("://")
    cut = loc.find("/", start + 3) if 4 <= start <= 5 else -1
    if cut < 0 or not _plain_origin(loc[: cut + 1]):
        return False
    rest = loc[cut + 1 :]
    if not rest.isascii() or rest.encode().translate(None, _LOC_ALLOWED) or "/." in loc:
        return False
    return not ("%" in rest and _BAD_ESCAPE.search(rest))


_AUTHORITY = lazy(r"https?://[^/\\?#]", re.IGNORECASE)
_CONTROL = lazy(r"[\x00-\x1f\x7f]")
# After the WHATWG parse: a '%' that starts no escape, and characters RFC 3986 never allows.
_NOT_URI = lazy(r"%(?![0-9A-Fa-f]{2})|[\\^`{|}\"<> \[\]]")
_DEFAULT_PORT = {"http": 80, "https": 443}


def to_uri(loc: str, *, max_length: int = MAX_LOC_LENGTH, field: str = "loc") -> str:
    """Make ``loc`` an absolute http(s) URI, or raise InvalidValue saying why it can't be.

    Existing %XX escapes are kept, a stray '%' becomes %25, spaces and non-ASCII are
    percent-encoded (UTF-8), an internationalised host becomes punycode, a default port
    and the fragment are dropped. The length limit applies to the result.
    """
    if not isinstance(loc, str):
        raise InvalidValue(field, loc, "must be a string")
    if len(loc) <= max_length and is_plain_uri(loc):
        return loc
    # the shapes sitemaps hold, in the compiled core (the same answer as full_uri, tested
    # by tests/test_iri_property.py); the rest, and every error, the long way
    uri = iri_to_uri(loc)
    if uri is not None and len(uri) <= max_length:
        return uri
    return full_uri(loc, max_length=max_length, field=field)


def resolved_loc(loc: str, base: str | None) -> str:
    """A build input's ``loc`` made absolute against ``base`` (the build's base directory, a
    URI ending in '/') when it is a relative reference, as the compiled core resolves it
    (``_core.resolve_loc``: ``/x`` from the base's origin, ``x`` from its directory, as a
    browser and sitemap.js resolve a link); anything else as it is, for ``to_uri`` to judge
    (an absolute URL, a relative one without a base, a host written without its scheme)."""
    if base is None or loc.startswith(("https://", "http://")):
        return loc
    text = loc.strip()
    joined = resolve_loc(text, base) if text else None
    return loc if joined is None or joined == text else joined


def full_uri(loc: str, *, max_length: int = MAX_LOC_LENGTH, field: str = "loc") -> str:
    """``to_uri`` without its fast path: every URL through the WHATWG parse."""
    if _CONTROL.search(loc):
        raise InvalidValue(field, loc, "contains a control character or line break")
    text = loc.strip()
    if not text:
        raise InvalidValue(field, loc, "is empty")
    scheme = text.split(":", 1)[0].lower() if ":" in text else ""
    if scheme not in ("http", "https"):
        if "://" in text or scheme in ("ftp", "mailto", "javascript", "file", "data"):
            raise InvalidValue(field, loc, "only http and https URLs are allowed")
        raise InvalidValue(
            field, loc, "not an absolute URL; it must begin with http:// or https://"
        )
    if not _AUTHORITY.match(text):
        # WHATWG parsers quietly repair "http:/x" and "http:///x"; a sitemap must not rely on that
        raise InvalidValue(field, loc, "not a valid URL: expected scheme://host/...")
    # WHATWG escapes "'" in the query of http(s) URLs; RFC 3986 allows it there and the
    # protocol's own table entity-escapes it, so it is kept: it travels through the parse as a
    # character the input does not hold and that the query keeps as it is
    apostrophe = _apostrophe_stand_in(text)
    if apostrophe:
        text = text.replace("'", apostrophe)
    import ada_url  # loaded on first use: most locs are plain and never need it

    try:
        parsed = ada_url.URL(text)
    except ValueError:
        raise InvalidValue(field, loc, "not a valid URL (bad host, port or syntax)") from None
    if not parsed.hostname:
        raise InvalidValue(field, loc, "has no host")
    parsed.hash = ""
    href = parsed.href
    if apostrophe:
        href = _restore_apostrophes(href, apostrophe)
    path_at = href.find("/", href.find("//") + 2)  # brackets stay legal in an IPv6 host only
    uri = href[:path_at] + _NOT_URI.sub(_escape_match, href[path_at:]) if path_at > 0 else href
    if len(uri) > max_length:
        raise InvalidValue(
            field, loc, f"is {len(uri)} characters once encoded; the limit is {max_length}"
        )
    return uri


# Characters a URI path or query may hold as they are (RFC 3986); "/." (dot segments) is left
# to the per-URL check, and so is a '%' that starts no escape or one of a dot (WHATWG reads
# %2E as '.').
_LOC_ALLOWED = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@/?%"
_BATCH_ALLOWED = _LOC_ALLOWED + b"\n"  # the separator of a joined batch
# Characters WHATWG leaves as they are everywhere after the host, then a private-use one that
# it writes as %EE%80%80 (for a URL holding all of those)
_STAND_INS = ("!", "$", "(", ")", "*", ",", ";", "~", "+", "@", "\ue000")
_STAND_IN_WRITTEN = {"\ue000": "%EE%80%80"}


def _apostrophe_stand_in(text: str) -> str:
    """A character to carry "'" through the WHATWG parse, one the URL does not hold in any
    form ('' when it holds no "'", or every candidate: then WHATWG's %27 stays)."""
    if "'" not in text:
        return ""
    upper = text.upper()
    return next(
        (c for c in _STAND_INS if c not in text and _STAND_IN_WRITTEN.get(c, c) not in upper), ""
    )


def _restore_apostrophes(href: str, stand_in: str) -> str:
    path_at = href.find("/", href.find("//") + 2)
    if path_at < 0:
        return href
    return href[:path_at] + href[path_at:].replace(_STAND_IN_WRITTEN.get(stand_in, stand_in), "'")


_BAD_ESCAPE = lazy(r"%(?![0-9A-Fa-f]{2})|%2[eE]")
_DOT_SEGMENT = lazy(r"/\.")  # a regex finds it twice as fast as `in` here


def plain_uri_flags(locs: list[str], max_length: int = MAX_LOC_LENGTH) -> list[bool]:
    """For each loc, True when it is certainly the URI ``to_uri`` would return, unchanged.

    A batch check for the build's hot path: the scheme://host/ prefix of the first loc is
    validated once, every loc must start with it (counted in the joined batch), and the rest
    of all locs is checked in one ``bytes.translate`` pass. A False only means "check this
    one on its own".
    """
    if not locs:
        return []
    first = locs[0]
    cut = first.find("/", first.find("://") + 3) + 1 if "://" in first else 0
    prefix = first[:cut]
    if not cut or not plain_directory(prefix):
        return [False] * len(locs)
    joined = "\n".join(locs)
    separators = len(locs) - 1
    no_breaks = joined.count("\n") == separators  # no loc holds a line break
    if no_breaks and joined.count("\n" + prefix) == separators:
        flags = [True] * len(locs)  # each loc after the first starts a line with the prefix
    else:
        flags = list(map(str.startswith, locs, repeat(prefix)))
    if (
        not no_breaks
        or not joined.isascii()
        or joined.encode().translate(None, _BATCH_ALLOWED)
        or _DOT_SEGMENT.search(joined)
        or ("%" in joined and _BAD_ESCAPE.search(joined))
        or max(map(len, locs)) > max_length
    ):
        flags = [ok and _plain_alone(loc, max_length) for ok, loc in zip(flags, locs, strict=True)]
    return flags


def plain_directory(prefix: str) -> bool:
    """True when the origin of a directory URI is one ``to_uri`` keeps as it is (checked once
    for a batch of locs under it)."""
    origin = prefix[: prefix.find("/", prefix.find("://") + 3) + 1] if "://" in prefix else ""
    return _plain_origin(origin)


def _plain_alone(loc: str, max_length: int) -> bool:
    return (
        len(loc) <= max_length
        and loc.isascii()
        and not loc.encode().translate(None, _LOC_ALLOWED)
        and "/." not in loc
        and not ("%" in loc and _BAD_ESCAPE.search(loc))
    )


def _escape_match(m: re.Match[str]) -> str:
    return "%" + format(ord(m.group()), "02X")


@dataclass(frozen=True, slots=True)
class Scope:
    """Where URLs listed by a sitemap may lie: the sitemap's scheme, host, port and directory.

    "A Sitemap file located at http://example.com/catalog/sitemap.xml can include any URLs
    starting with http://example.com/catalog/ but can not include URLs starting with
    http://example.com/images/" (sitemaps.org 0.9, "Sitemap file location").
    """

    scheme: str
    host: str
    port: int
    directory: str

    @classmethod
    def of(cls, base_url: str) -> Scope:
        """The scope of a sitemap served at ``base_url`` (a file URL, or a directory ending in /)."""
        uri = to_uri(base_url, field="base URL")
        if is_plain_uri(uri):  # as the WHATWG parse writes it already: taken apart as it is
            start = uri.find("://") + 3
            cut = uri.find("/", start)
            origin = _PLAIN_ORIGIN.fullmatch(uri[: cut + 1])
            assert origin is not None
            path = uri[cut:].partition("?")[0]
            scheme = origin[1]
            port = int(origin[2]) if origin[2] else _DEFAULT_PORT[scheme]
            host = uri[start:cut].partition(":")[0]
            return cls(scheme, host, port, path[: path.rfind("/") + 1])
        import ada_url  # the rest: non-default forms, IDNA hosts, IPv6

        parsed = ada_url.URL(uri)
        path = parsed.pathname
        directory = path[: path.rfind("/") + 1] or "/"
        scheme = parsed.protocol.rstrip(":")
        port = int(parsed.port) if parsed.port else _DEFAULT_PORT[scheme]
        return cls(scheme, parsed.hostname, port, directory)

    @property
    def prefix(self) -> str:
        port = "" if self.port == _DEFAULT_PORT[self.scheme] else f":{self.port}"
        return f"{self.scheme}://{self.host}{port}{self.directory}"

    def violation(self, uri: str) -> str | None:
        """Why ``uri`` (already a URI from to_uri) lies outside this scope, or None."""
        if uri.startswith(self.prefix):
            return None
        import ada_url

        parsed = ada_url.URL(uri)
        if parsed.username or parsed.password:
            return f"holds user info before its host {parsed.hostname} ({userinfo_shown(uri)})"
        scheme = parsed.protocol.rstrip(":")
        if scheme != self.scheme:
            return f"scheme {scheme} differs from the sitemap's {self.scheme}"
        if parsed.hostname != self.host:
            a, b = parsed.hostname, self.host
            if a.removeprefix("www.") == b.removeprefix("www."):
                return f"host {a} differs from the sitemap's {b} (the www. variant)"
            return f"host {a} differs from the sitemap's {b}"
        port = int(parsed.port) if parsed.port else _DEFAULT_PORT[scheme]
        if port != self.port:
            return f"port {port} differs from the sitemap's {self.port}"
        return f"path lies outside the sitemap's directory {self.directory}"


def userinfo_shown(uri: str) -> str:
    """What the user info of ``uri`` (``scheme://user:password@host/...``) says, its password
    masked, and why it matters; for the reader's, the checker's and the build's findings."""
    authority = uri[uri.find("//") + 2 :].partition("/")[0]
    user, colon, _ = authority.rpartition("@")[0].partition(":")
    return f"'{user}{':***' if colon else ''}@': search engines reject URLs with credentials"


def shown(text: str, width: int = 120) -> str:
    """``text`` cut to ``width`` characters for a message."""
    return text if len(text) <= width else text[: width - 3] + "..."


def authority_host(uri: str) -> str:
    """The host of an http(s) URI, lower case, without port or brackets (no parsing)."""
    rest = uri.split("://", 1)[-1]
    authority = rest.split("/", 1)[0].split("?", 1)[0].rsplit("@", 1)[-1]
    if authority.startswith("["):
        return authority[1 : authority.find("]")].lower()
    return authority.split(":", 1)[0].lower()


def _bare(host: str) -> str:
    return host[4:] if host.startswith("www.") else host


def www_variant(uri: str, scope: Scope) -> str | None:
    """The URL is on the www. (or bare) twin of the sitemap's host: a frequent, named mistake
    (check's ``www-variant``)."""
    host = authority_host(uri)
    if host != scope.host and _bare(host) == _bare(scope.host):
        return f"{shown(uri)} is on {host}, the sitemap on {scope.host}"
    return None


def index_other_site(uri: str, index_scope: Scope) -> str | None:
    """ "A Sitemap index file can only specify Sitemaps that are found on the same site"
    (check's ``index-other-site``; the build's ``--include-sitemap`` too)."""
    site = Scope(index_scope.scheme, index_scope.host, index_scope.port, "/")
    if uri.startswith(site.prefix):
        return None
    why = site.violation(uri)
    return None if why is None else f"{shown(uri)}: {why}"


def host_of(url: str) -> str:
    """The lower-case host name of a URL ('' when it has none)."""
    from urllib.parse import urlsplit  # here: a read starts without it (~7M instructions)

    return (urlsplit(url).hostname or "").lower()


# RFC 6761/6762 special-use names and common private ones
_LOCAL_SUFFIXES = (".localhost", ".local", ".test", ".invalid", ".internal", ".lan", ".home.arpa")
# deploy previews and branch deploys of static hosting: Netlify and Firebase Hosting write
# "<preview>--<site>", Vercel "<project>-git-<branch>-<team>", Cloudflare Pages
# "<hash or branch>.<project>.pages.dev", Render "<service>-pr-<n>.onrender.com"
_PREVIEW_HOSTS = lazy(
    r"[^.]+--[^.]+\.(?:netlify\.app|web\.app|firebaseapp\.com)"
    r"|[^.]+-git-[^.]+\.vercel\.app"
    r"|[^.]+\.[^.]+\.pages\.dev"
    r"|[^.]+-pr-\d+\.onrender\.com"
)


def non_production_host(host: str) -> str | None:
    """Why ``host`` is clearly not a public production site (a local or reserved name, a
    name without a dot, a loopback or private address, a deploy preview), or None."""
    if not host:
        return None
    host = host.lower().rstrip(".")
    if host == "localhost" or host.endswith(_LOCAL_SUFFIXES):
        return f"host {host} is a local or development name"
    import ipaddress  # here: a read starts without it (~5M instructions)

    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        pass
    else:
        if address.is_private or address.is_loopback or address.is_link_local:
            return f"host {host} is a private or loopback address"
        return None
    if "." not in host:
        return f"host {host} has no dot: not a public domain name"
    if _PREVIEW_HOSTS.fullmatch(host):
        return f"host {host} is a deploy preview or branch deploy, not the production site"
    return None


_PLACEHOLDERS = ("example.com", "example.org", "example.net")


def placeholder_host(host: str) -> str | None:
    """example.com/.org/.net and .example are reserved for documentation (RFC 2606)."""
    if host.endswith(".example") or any(
        host == name or host.endswith("." + name) for name in _PLACEHOLDERS
    ):
        return f"host {host} is a documentation placeholder"
    return None


_INNER_SPACE = lazy(r"\S\s+\S")
_CONTROL = lazy(r"[\x00-\x1f\x7f]")
_FORBIDDEN = lazy(r"[`^{}|\\\"]")
# any character of the three above: most texts hold none, and are judged by one search
_ANY_UNESCAPED = lazy(r"[\s\x00-\x1f\x7f`^{}|\\\"]")


def unescaped(text: str) -> str | None:
    """Why a loc text (as the XML gives it: entities decoded) is not URL-escaped, or None:
    spaces inside it, control characters, or characters RFC 3986 never allows ("all URLs
    ... must be URL-escaped", Entity escaping). The reader and the checker judge a loc by
    this, so both give it the same code."""
    if _ANY_UNESCAPED.search(text) is None:
        return None
    text = text.strip()
    if _INNER_SPACE.search(text) or _CONTROL.search(text):
        return "contains spaces or control characters"
    forbidden = _FORBIDDEN.search(text)
    if forbidden is not None:
        return f"contains {forbidden.group()!r}, which must be percent-encoded"
    return None


# how much of a URL text the findings on its form quote
_QUOTED = 200


def not_escaped_message(text: str) -> str | None:
    """``url-not-escaped``'s message for a URL text as written (entities decoded), or None
    when ``unescaped`` finds nothing: read and check both say it in these words."""
    why = unescaped(text)
    return None if why is None else f"{shown(text.strip(), _QUOTED)!r} {why}"


def made_uri_finding(text: str, uri: str) -> tuple[str, str]:
    """The code and message of a URL text (stripped; entities decoded) that was read as
    ``uri``, another text: ``url-not-escaped`` when it holds what a URI never holds
    (``unescaped``), else ``normalized-url`` (its non-ASCII characters named when it holds
    any). The one wording of both: the reader reports every URL it makes a URI of (a loc,
    an extension's URL) by it, and check passes those findings on."""
    message = not_escaped_message(text)
    if message is not None:
        return "url-not-escaped", message
    held = "" if text.isascii() else " holds non-ASCII characters:"
    return "normalized-url", f"{shown(text, _QUOTED)!r}{held} read as {uri}"

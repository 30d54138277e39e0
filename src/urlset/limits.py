"""Named protocol limits and the profiles that group them.

Sources: sitemaps.org protocol 0.9 ("Sitemap file limits"; "Using Sitemap index files")
and the official sitemap.xsd (``tLoc`` maxLength 2048).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

# "each Sitemap file ... must have no more than 50,000 URLs"
MAX_URLS_PER_SITEMAP = 50_000
# "... and must be no larger than 50MB (52,428,800 bytes)" (current protocol page)
MAX_SITEMAP_BYTES = 52_428_800
# 2008 text: "no larger than 10MB (10,485,760 bytes)"
MAX_SITEMAP_BYTES_2008 = 10_485_760
# current: an index lists up to 50,000 sitemaps; 2008 text: "may not list more than 1,000 Sitemaps"
MAX_SITEMAPS_PER_INDEX = 50_000
MAX_SITEMAPS_PER_INDEX_2008 = 1_000
# sitemap.xsd tLoc: maxLength 2048 (the protocol page says "less than 2,048 characters";
# the schema, which validators and search engines apply, admits 2,048)
MAX_LOC_LENGTH = 2_048


@dataclass(frozen=True, slots=True)
class Limits:
    """The limits a sitemap set is written and checked under."""

    name: str
    max_urls: int = MAX_URLS_PER_SITEMAP
    max_bytes: int = MAX_SITEMAP_BYTES
    max_sitemaps_per_index: int = MAX_SITEMAPS_PER_INDEX
    max_loc_length: int = MAX_LOC_LENGTH

    def lowered(self, *, max_urls: int | None = None, max_bytes: int | None = None) -> Limits:
        """These limits with a user-set lower maximum; raising a protocol limit is refused."""
        from .errors import InvalidValue

        if max_urls is not None and not 1 <= max_urls <= self.max_urls:
            raise InvalidValue("max_urls", max_urls, f"must be between 1 and {self.max_urls}")
        # the smallest useful file holds the XML header, footer and one short URL
        if max_bytes is not None and not 512 <= max_bytes <= self.max_bytes:
            raise InvalidValue("max_bytes", max_bytes, f"must be between 512 and {self.max_bytes}")
        return replace(
            self,
            max_urls=max_urls if max_urls is not None else self.max_urls,
            max_bytes=max_bytes if max_bytes is not None else self.max_bytes,
        )


CURRENT = Limits("current")
SITEMAPS_2008 = Limits(
    "sitemaps-0.9-2008",
    max_bytes=MAX_SITEMAP_BYTES_2008,
    max_sitemaps_per_index=MAX_SITEMAPS_PER_INDEX_2008,
)
PROFILES: dict[str, Limits] = {CURRENT.name: CURRENT, SITEMAPS_2008.name: SITEMAPS_2008}


def profile(name: str) -> Limits:
    """The named limit profile; a clear error names the valid ones."""
    try:
        return PROFILES[name]
    except KeyError:
        from .errors import InvalidValue

        raise InvalidValue(
            "profile", name, f"unknown; choose one of {', '.join(PROFILES)}"
        ) from None


@dataclass(frozen=True, slots=True)
class ReadLimits:
    """Safety limits of the reader; each is configurable and reported when hit."""

    # 4x the protocol's uncompressed size limit: room for oversized real files, not for bombs
    max_decompressed_bytes: int = 4 * MAX_SITEMAP_BYTES
    # real files exceed 50,000 entries; the reader reports that, and stops only far beyond
    max_entries: int = 1_000_000
    max_depth: int = 32
    max_value_length: int = 1_048_576

"""Check rules for extension values: one plain function per rule, each returning Issues.

Per URL: ``check_url(url, now=...)`` runs every per-URL rule (``RULES``) and also reads any
raw element in a typed namespace (``check_raw``), so a checker that only has the reader's
``RawElement`` values still reports bad images, videos, news and alternates precisely.
Across a document or a set: ``SetChecks`` counts news per sitemap and checks hreflang
reciprocity (``hreflang.Reciprocity``).

Every code is in ``EXT_CODES`` (severity, title, hint), in the shape of ``codes.CODES``.
Rules take the time as an argument (``now``); nothing here reads the clock.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from datetime import datetime, timedelta

from ..codes import Code
from ..dates import instant
from ..extensions import (
    IMAGE_NS,
    MAX_IMAGES_PER_URL,
    MAX_NEWS_PER_SITEMAP,
    NEWS_NS,
    VIDEO_NS,
    XHTML_NS,
    Alternate,
    Image,
    News,
    Video,
    parse,
)
from ..model import Issue, RawElement, Severity, Url
from .reciprocity import Reciprocity, describe

E, W, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO

EXT_CODES: dict[str, Code] = {
    "invalid-image": Code(
        E,
        "image extension not valid",
        "<image:image> needs an absolute <image:loc>; see the message for the field at fault",
    ),
    "invalid-video": Code(
        E,
        "video extension not valid",
        "a video needs thumbnail_loc, title (<= 100 chars), description (<= 2,048 chars) and "
        "content_loc or player_loc; duration 1-28,800 s, rating 0.0-5.0, yes/no flags",
    ),
    "invalid-news": Code(
        E,
        "news extension not valid",
        "news needs publication name and language (ISO 639, zh-cn, zh-tw), publication_date "
        "(W3C Datetime) and title",
    ),
    "invalid-alternate": Code(
        E,
        "hreflang alternate not valid",
        'write <xhtml:link rel="alternate" hreflang="en-GB" href="https://..."/>: an ISO 639-1 '
        "language, optionally an ISO 3166-1 region, or x-default; an absolute href",
    ),
    "extension-order": Code(
        W,
        "extension children out of order",
        "the official schema fixes the order of the children; strict validators reject others",
    ),
    "too-many-images": Code(
        E, "more than 1,000 images", "list at most 1,000 <image:image> per <url>"
    ),
    "image-deprecated-field": Code(
        INFO,
        "image field no longer used",
        "Google ignores image caption, title, geo_location and license since 2022; "
        "they are harmless but can be dropped",
    ),
    "video-loc-is-page": Code(
        E,
        "video URL is the page URL",
        "content_loc must be the media file and player_loc the player; neither may equal "
        "the <loc> of the page",
    ),
    "news-too-old": Code(
        W,
        "news article older than two days",
        "news sitemaps list articles published in the last two days; move older ones "
        "to a regular sitemap",
    ),
    "news-repeated": Code(
        W, "more than one news entry in a URL", "give each article URL one <news:news>"
    ),
    "too-many-news": Code(
        E,
        "more than 1,000 news entries",
        "a news sitemap holds at most 1,000 <news:news>; split it",
    ),
    "hreflang-missing-self": Code(
        W,
        "page does not list itself",
        "each page's alternates include the page itself, with its own hreflang",
    ),
    "hreflang-duplicate": Code(
        E,
        "hreflang given twice",
        "one hreflang value names one URL; remove the second link or correct its code",
    ),
    "hreflang-not-reciprocal": Code(
        W,
        "missing hreflang return link",
        "every variant must list all the others and itself, or the annotations are ignored",
    ),
    "hreflang-unlisted": Code(
        W,
        "variant lists no alternates",
        "the variant is in this set but has no hreflang links; give it the same set of links",
    ),
    "hreflang-unverified": Code(
        INFO,
        "variant not in this set",
        "its return links could not be checked here; check the sitemap or page that lists it",
    ),
}

NEWS_MAX_AGE = timedelta(days=2)  # Google: "articles published in the last two days"
# the code for an element of a typed namespace that could not be typed
INVALID_CODES = {
    IMAGE_NS: "invalid-image",
    VIDEO_NS: "invalid-video",
    NEWS_NS: "invalid-news",
    XHTML_NS: "invalid-alternate",
}


def issue(code: str, message: str, *, line: int = 0, source: str = "") -> Issue:
    """An Issue with the severity and hint of ``code`` (from EXT_CODES)."""
    row = EXT_CODES[code]
    return Issue(code, row.severity, message, line, 0, source, row.hint)


# ---------------------------------------------------------------- per element


def check_raw(raw: RawElement, *, loc: str = "", line: int = 0, source: str = "") -> list[Issue]:
    """Why a raw element in a typed namespace could not be typed, and order problems."""
    if raw.namespace not in INVALID_CODES:
        return []
    parsed = parse(raw)
    where = f"{loc}: " if loc else ""
    out = []
    if parsed.error is not None and not parsed.unmodelled:
        out.append(
            issue(INVALID_CODES[raw.namespace], where + parsed.error, line=line, source=source)
        )
    out.extend(
        issue("extension-order", where + warning, line=line, source=source)
        for warning in parsed.warnings
    )
    return out


# ---------------------------------------------------------------- per URL rules


def too_many_images(url: Url, now: datetime | None = None) -> list[Issue]:
    count = sum(1 for e in url.extensions if type(e) is Image)
    if count <= MAX_IMAGES_PER_URL:
        return []
    return [issue("too-many-images", f"{url.loc}: {count:,} images; the limit is 1,000")]


def image_deprecated_fields(url: Url, now: datetime | None = None) -> list[Issue]:
    used: Counter[str] = Counter()
    for e in url.extensions:
        if type(e) is Image:
            for name in ("caption", "title", "geo_location", "license"):
                if getattr(e, name) is not None:
                    used[name] += 1
    if not used:
        return []
    fields = ", ".join(f"{name} ({count})" for name, count in used.items())
    return [issue("image-deprecated-field", f"{url.loc}: images use {fields}")]


def video_loc_is_page(url: Url, now: datetime | None = None) -> list[Issue]:
    out = []
    for e in url.extensions:
        if type(e) is Video:
            for name in ("content_loc", "player_loc"):
                if getattr(e, name) == url.loc:
                    out.append(
                        issue(
                            "video-loc-is-page",
                            f"{url.loc}: video {e.title!r} has {name} equal to the page URL",
                        )
                    )
    return out


def news_too_old(url: Url, now: datetime | None = None) -> list[Issue]:
    """Articles published more than two days before ``now`` (skipped when ``now`` is None)."""
    if now is None:
        return []
    out = []
    for e in url.extensions:
        if type(e) is News:
            age = now - instant(e.publication_date)
            if age > NEWS_MAX_AGE:
                out.append(
                    issue(
                        "news-too-old",
                        f"{url.loc}: {e.title!r} was published {age.days} days before {now:%Y-%m-%d}",
                    )
                )
    return out


def news_repeated(url: Url, now: datetime | None = None) -> list[Issue]:
    count = sum(1 for e in url.extensions if type(e) is News)
    if count <= 1:
        return []
    return [issue("news-repeated", f"{url.loc}: {count} <news:news> elements")]


def hreflang_missing_self(url: Url, now: datetime | None = None) -> list[Issue]:
    links = [e for e in url.extensions if type(e) is Alternate]
    if not links or any(link.href == url.loc for link in links):
        return []
    codes = ", ".join(link.hreflang for link in links)
    return [
        issue(
            "hreflang-missing-self",
            f"{url.loc}: lists alternates ({codes}) but none points to the page itself",
        )
    ]


def hreflang_duplicate(url: Url, now: datetime | None = None) -> list[Issue]:
    seen: dict[str, str] = {}
    out = []
    for e in url.extensions:
        if type(e) is not Alternate:
            continue
        first = seen.setdefault(e.hreflang.lower(), e.href)
        if first != e.href:
            out.append(
                issue(
                    "hreflang-duplicate",
                    f"{url.loc}: hreflang {e.hreflang!r} names both {first} and {e.href}",
                )
            )
    return out


Rule = Callable[[Url, "datetime | None"], list[Issue]]
RULES: tuple[Rule, ...] = (
    too_many_images,
    image_deprecated_fields,
    video_loc_is_page,
    news_too_old,
    news_repeated,
    hreflang_missing_self,
    hreflang_duplicate,
)


def check_url(
    url: Url,
    *,
    now: datetime | None = None,
    line: int = 0,
    source: str = "",
    raw: bool = True,
) -> list[Issue]:
    """Every extension rule for one URL; ``line``/``source`` are copied into the issues.
    Plain URLs return at once. ``raw=False`` skips ``check_raw`` on raw elements (for a
    reader that already reported why they stayed raw)."""
    extensions = url.extensions
    if not extensions:
        return []
    out: list[Issue] = []
    if raw:
        for ext in extensions:
            if type(ext) is RawElement:
                out.extend(check_raw(ext, loc=url.loc, line=line, source=source))
    for rule in RULES:
        out.extend(rule(url, now))
    if line or source:
        out = [i._replace(line=i.line or line, source=i.source or source) for i in out]
    return out


# ---------------------------------------------------------------- across URLs


class SetChecks:
    """Rules that need more than one URL. ``add`` each URL (with the sitemap it is in), then
    ``finish()``: news per sitemap (at most 1,000) and hreflang reciprocity over all URLs."""

    def __init__(self, *, max_examples: int = 1_000) -> None:
        self.reciprocity = Reciprocity()
        self._news: Counter[str] = Counter()
        self._max_examples = max_examples

    def add(self, url: Url, *, source: str = "") -> None:
        if url.extensions:
            news = sum(1 for e in url.extensions if type(e) is News)
            if news:
                self._news[source] += news
        self.reciprocity.add(url)

    def add_all(self, urls: Iterable[Url], *, source: str = "") -> None:
        for url in urls:
            self.add(url, source=source)

    def finish(self) -> list[Issue]:
        out = [
            issue(
                "too-many-news",
                f"{count:,} news entries; the limit is {MAX_NEWS_PER_SITEMAP:,} per sitemap",
                source=source,
            )
            for source, count in self._news.items()
            if count > MAX_NEWS_PER_SITEMAP
        ]
        missing = 0
        for link in self.reciprocity.missing(include_self=False):
            missing += 1
            if missing <= self._max_examples:
                out.append(issue("hreflang-not-reciprocal", describe(link)))
        if missing > self._max_examples:
            out.append(
                issue(
                    "hreflang-not-reciprocal",
                    f"{missing - self._max_examples:,} more missing return links not shown",
                )
            )
        for unlisted in self.reciprocity.unlisted():
            code = "hreflang-unlisted" if unlisted.in_set else "hreflang-unverified"
            what = (
                "is in this set but lists no alternates"
                if unlisted.in_set
                else "is not in this set; its return links were not checked"
            )
            out.append(
                issue(
                    code,
                    f"{unlisted.variant} (hreflang {unlisted.hreflang!r} of {unlisted.named_by}) "
                    + what,
                )
            )
        return out

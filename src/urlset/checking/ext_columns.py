"""The extension rules on a run of the core's records, from the JSON the core wrote for them,
without a value per record.

The compiled core types and checks a record's images, videos, news and hreflang links as the
reader's careful lane does before it writes them as JSON, so the per-URL rules are all that
is left, and each reads one or two fields: ``image-deprecated-field`` and
``too-many-images``, ``video-loc-is-page``, ``news-too-old`` and ``news-repeated``,
``hreflang-missing-self`` and ``hreflang-duplicate``. ``judged`` reads those fields from the
decoded JSON (one ``json.loads`` for the run) and returns the records a rule flags: only
those become ``Url`` values (``Records.url``) and go through ``rules.check_url``, which
words each finding; the others are counted for the set rules here (their kinds; their
hreflang links, handed back for the reciprocity in document order). An element of another
namespace (the JSON's ``extensions``) has no per-URL rule once the reader has said why it
stayed raw, so a record of those alone is a plain page to the set rules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from ..dates import from_formatted, instant

_KNOWN = {"images", "videos", "news", "alternates", "extensions"}
_MAX_IMAGES = 1_000  # image.MAX_IMAGES_PER_URL, without loading the module


class Judged:
    """What ``judged`` found in a run: ``flagged``, the records a per-URL rule flags (to be
    made values, in document order); ``links``, the others' hreflang links ({href: hreflang})
    by record; ``plain``, the records with no typed extension (raw elements only)."""

    __slots__ = ("flagged", "links", "plain")

    def __init__(self) -> None:
        self.flagged: list[int] = []
        self.links: dict[int, dict[str, str]] = {}
        self.plain: list[int] = []


class NewsAges:
    """Whether a publication date (the core's JSON text) is older than the news window at
    ``now``, computed once per distinct text (a news sitemap repeats its dates)."""

    def __init__(self, now: datetime | None) -> None:
        self.now = now
        self._old: dict[str, bool] = {}

    def too_old(self, text: object) -> bool:
        if self.now is None:
            return False
        if not isinstance(text, str):
            return True  # not the core's text: the value's own rule judges it
        old = self._old.get(text)
        if old is None:
            from ..extensions.news import NEWS_MAX_AGE

            try:
                old = self.now - instant(from_formatted(text)) > NEWS_MAX_AGE
            except ValueError:
                old = True
            self._old[text] = old
        return old


def judged(
    locs: Sequence[str], texts: Sequence[str], where: list[int], ages: NewsAges, kinds: Counter[str]
) -> Judged:
    """The records ``where`` (their extensions' JSON in ``texts``) judged by the per-URL rules
    (see the module doc); the typed extensions of the records not flagged counted in
    ``kinds``."""
    import json  # with the first record that has extensions (a plain check loads none)

    out = Judged()
    decoded = json.loads("[" + ",".join(map(texts.__getitem__, where)) + "]")
    for i, fields in zip(where, decoded, strict=True):
        loc = locs[i]
        if not isinstance(fields, dict) or not fields.keys() <= _KNOWN:
            out.flagged.append(i)
            continue
        news = fields.get("news")
        if isinstance(news, dict):
            news = [news]
        images = fields.get("images", ())
        videos = fields.get("videos", ())
        alternates = fields.get("alternates", ())
        if (
            (images and _images_flagged(images))
            or (videos and _videos_flagged(videos, loc))
            or (news and (len(news) > 1 or ages.too_old(news[0].get("publication_date"))))
            or (alternates and _links_flagged(alternates, loc))
        ):
            out.flagged.append(i)
            continue
        typed = False
        for kind, items in (
            ("images", images),
            ("videos", videos),
            ("news", news),
            ("alternates", alternates),
        ):
            if items:
                kinds[kind] += len(items)
                typed = True
        if alternates:
            out.links[i] = {link["href"]: link["hreflang"] for link in alternates}
        elif not typed:
            out.plain.append(i)
    return out


def _images_flagged(images: list[dict[str, Any]]) -> bool:
    """Too many images, or one with a field other than its loc (each a deprecated one)."""
    return len(images) > _MAX_IMAGES or any(len(image) != 1 for image in images)


def _videos_flagged(videos: list[dict[str, Any]], loc: str) -> bool:
    """A video whose content or player URL is the page."""
    return any(loc in (video.get("content_loc"), video.get("player_loc")) for video in videos)


def _links_flagged(alternates: list[dict[str, Any]], loc: str) -> bool:
    """Links none of which names the page, or two hrefs for one hreflang (in any case)."""
    if not any(link.get("href") == loc for link in alternates):
        return True
    seen: dict[str, Any] = {}
    for link in alternates:
        code = link.get("hreflang")
        if not isinstance(code, str) or seen.setdefault(code.lower(), link.get("href")) != link.get(
            "href"
        ):
            return True
    return False

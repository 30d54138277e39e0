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
from .findings import Findings

_KNOWN = {"images", "videos", "news", "alternates", "extensions"}
_MAX_IMAGES = 1_000  # image.MAX_IMAGES_PER_URL, without loading the module


class Judged:
    """What ``judged`` found in a run: ``flagged``, the records a per-URL rule flags (to be
    made values, in document order); ``links``, the others' hreflang links ({href: hreflang})
    by record; ``plain``, the records with no typed extension (raw elements only)."""

    __slots__ = ("flagged", "hreflangs", "links", "plain")

    def __init__(self, hreflangs: dict[str, str]) -> None:
        self.flagged: list[int] = []
        self.links: dict[int, dict[str, str]] = {}
        self.plain: list[int] = []
        self.hreflangs = hreflangs  # one string per hreflang code, for the whole document


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
    locs: Sequence[str],
    texts: Sequence[str],
    where: list[int],
    ages: NewsAges,
    kinds: Counter[str],
    found: Findings,
    hreflangs: dict[str, str],
) -> Judged:
    """The records ``where`` (their extensions' JSON in ``texts``) judged by the per-URL rules
    (see the module doc); the typed extensions of the records not flagged counted in
    ``kinds``. A record whose every finding is past its code's cap in ``found`` is not
    flagged: its findings are counted there (as listing them would count them)."""
    import json  # with the first record that has extensions (a plain check loads none)

    out = Judged(hreflangs)
    decoded = json.loads("[" + ",".join(map(texts.__getitem__, where)) + "]")
    for i, fields in zip(where, decoded, strict=True):
        if not isinstance(fields, dict) or not fields.keys() <= _KNOWN:
            out.flagged.append(i)
            continue
        news = fields.get("news")
        if isinstance(news, dict):
            news = [news]
        images = fields.get("images", ())
        videos = fields.get("videos", ())
        alternates = fields.get("alternates", ())
        codes = _codes(locs[i], images, videos, news, alternates, ages)
        if codes:
            if any(map(found.has_room, codes)):
                out.flagged.append(i)
                continue
            for code in codes:
                found.count(code)
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
            # held for the whole set: the page's own loc and one string per hreflang code
            # stand for their copies (a third of the set rule's memory on a set of them)
            loc, codes_seen = locs[i], out.hreflangs
            out.links[i] = {
                (loc if (href := link["href"]) == loc else href): codes_seen.setdefault(
                    code := link["hreflang"], code
                )
                for link in alternates
            }
        elif not typed:
            out.plain.append(i)
    return out


def _codes(
    loc: str,
    images: Sequence[dict[str, Any]],
    videos: Sequence[dict[str, Any]],
    news: Sequence[dict[str, Any]] | None,
    alternates: Sequence[dict[str, Any]],
    ages: NewsAges,
) -> list[str]:
    """The code of each finding the per-URL rules give a page (``extensions.rules.RULES``,
    in their order; the messages are theirs)."""
    out: list[str] = []
    if images:
        if len(images) > _MAX_IMAGES:
            out.append("too-many-images")
        if any(len(image) != 1 for image in images):  # a field besides the loc: deprecated
            out.append("image-deprecated-field")
    for video in videos:
        out += ["video-loc-is-page"] * (
            (video.get("content_loc") == loc) + (video.get("player_loc") == loc)
        )
    if news:
        out += ["news-too-old"] * sum(ages.too_old(item.get("publication_date")) for item in news)
        if len(news) > 1:
            out.append("news-repeated")
    if alternates:
        if not any(link["href"] == loc for link in alternates):
            out.append("hreflang-missing-self")
        seen: dict[str, str] = {}
        for link in alternates:
            if seen.setdefault(link["hreflang"].lower(), link["href"]) != link["href"]:
                out.append("hreflang-duplicate")
    return out

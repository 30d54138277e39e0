"""The news extension: ``<news:news>`` as the value ``News``.

Here: the value (checked on construction; ``body()`` writes it in the schema's order), the
reader from an lxml element, the news codes and the per-URL rules. The count per sitemap
(at most ``MAX_NEWS_PER_SITEMAP``) needs the whole sitemap: ``rules.SetChecks`` does it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, ClassVar

from ..codes import Code
from ..dates import Lastmod, format_w3c, from_formatted, instant
from ..errors import InvalidValue
from ..model import Issue, Severity, Url
from ..patterns import lazy
from .common import (
    ExtensionSpec,
    Note,
    Untypable,
    checked_children,
    coded_issue,
    declared,
    no_repeats,
    schema_tags,
    shown,
    without_faults,
)
from .field_checks import (
    ISO_639_1,
    escape,
    optional_date,
    required_text,
    set_field,
    text_list,
    trusted_maker,
)

NEWS_NS = "http://www.google.com/schemas/sitemap-news/0.9"
PREFIX = "news"
MAX_NEWS_PER_SITEMAP = 1_000  # news sitemaps: at most 1,000 <news:news> per sitemap
MAX_STOCK_TICKERS = 5  # sitemap-news.xsd: up to 5 tickers
NEWS_MAX_AGE = timedelta(days=2)  # Google: "articles published in the last two days"

_TICKER = lazy(r"\w+:\w+")
_NEWS_LANGUAGE = lazy(r"zh-cn|zh-tw|[a-z]{2,3}")

GENRES = ("PressRelease", "Satire", "Blog", "OpEd", "Opinion", "UserGenerated")
ACCESS = ("Subscription", "Registration")
_GENRES = {g.lower(): g for g in GENRES}
_ACCESS = {a.lower(): a for a in ACCESS}


@dataclass(frozen=True, slots=True)
class News:
    """``<news:news>``: an article. publication name and language, publication_date and title
    are required; access, genres, keywords and stock_tickers are optional."""

    publication_name: str
    language: str
    publication_date: Lastmod
    title: str
    access: str | None = None
    genres: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    stock_tickers: tuple[str, ...] = ()

    namespace: ClassVar[str] = NEWS_NS
    name: ClassVar[str] = "news"
    kind: ClassVar[str] = "news"

    def __post_init__(self) -> None:
        set_field(
            self, "publication_name", required_text("news publication name", self.publication_name)
        )
        set_field(self, "language", news_language(self.language))
        published = optional_date("news publication_date", self.publication_date)
        if published is None:
            raise InvalidValue("news publication_date", None, "is missing")
        set_field(self, "publication_date", published)
        set_field(self, "title", required_text("news title", self.title))
        if self.access is not None:
            found = _ACCESS.get(str(self.access).strip().lower())
            if found is None:
                raise InvalidValue(
                    "news access",
                    self.access,
                    "must be Subscription or Registration (omit it for free articles)",
                )
            set_field(self, "access", found)
        genres = []
        for genre in text_list("news genres", self.genres):
            known = _GENRES.get(genre.lower())
            if known is None:
                raise InvalidValue("news genres", genre, f"must be one of {', '.join(GENRES)}")
            genres.append(known)
        set_field(self, "genres", tuple(genres))
        keywords = text_list("news keywords", self.keywords)
        for word in keywords:
            if "," in word:
                raise InvalidValue("news keywords", word, "a keyword cannot hold a comma")
        set_field(self, "keywords", keywords)
        tickers = text_list("news stock_tickers", self.stock_tickers)
        for ticker in tickers:
            if not _TICKER.fullmatch(ticker):
                raise InvalidValue(
                    "news stock_tickers", ticker, "must be EXCHANGE:SYMBOL, e.g. NASDAQ:AMAT"
                )
        if len(tickers) > MAX_STOCK_TICKERS:
            raise InvalidValue(
                "news stock_tickers", len(tickers), f"at most {MAX_STOCK_TICKERS} tickers"
            )
        set_field(self, "stock_tickers", tickers)

    def body(self) -> str:
        p = [
            "<news:news><news:publication><news:name>",
            escape(self.publication_name),
            f"</news:name><news:language>{self.language}</news:language></news:publication>",
        ]
        if self.access is not None:
            p.append(f"<news:access>{self.access}</news:access>")
        if self.genres:
            p.append(f"<news:genres>{', '.join(self.genres)}</news:genres>")
        p.append(
            f"<news:publication_date>{format_w3c(self.publication_date)}</news:publication_date>"
        )
        p += ["<news:title>", escape(self.title), "</news:title>"]
        if self.keywords:
            p += ["<news:keywords>", escape(", ".join(self.keywords)), "</news:keywords>"]
        if self.stock_tickers:
            p.append(f"<news:stock_tickers>{', '.join(self.stock_tickers)}</news:stock_tickers>")
        p.append("</news:news>")
        return "".join(p)

    @property
    def xml(self) -> str:
        return declared(self.body(), PREFIX, self.namespace, self.name)


_FIELDS = (
    "publication_name", "language", "publication_date", "title", "access", "genres",
    "keywords", "stock_tickers",
)  # fmt: skip


# a News of values already checked as ``__post_init__`` checks them (by the reader's
# compiled tokenizer, rust/core/src/read/media.rs), in the fields' order
trusted_article = trusted_maker(News, _FIELDS)


def trusted_news_json(item: dict[str, Any]) -> News | None:
    """The article of a JSON object the compiled core wrote for a ``News`` it had checked
    (``to_json``'s fields, its date as ``format_w3c`` writes it), made without checking it
    again; None for any other shape (``from_json`` judges it)."""
    if not _JSON_REQUIRED <= item.keys() <= _JSON_FIELDS:
        return None
    get = item.get
    return trusted_article(
        item["publication_name"],
        item["language"],
        from_formatted(item["publication_date"]),
        item["title"],
        get("access"),
        tuple(get("genres", ())),
        tuple(get("keywords", ())),
        tuple(get("stock_tickers", ())),
    )


_JSON_FIELDS = frozenset(_FIELDS)
_JSON_REQUIRED = frozenset(_FIELDS[:4])


def news_language(value: object) -> str:
    """A news language: an ISO 639 code (two letters from ISO 639-1, or three), zh-cn or zh-tw."""
    if not isinstance(value, str):
        raise InvalidValue("news language", value, "must be a string")
    code = value.strip().lower()
    if not _NEWS_LANGUAGE.fullmatch(code):
        hint = "; Chinese is zh-cn or zh-tw" if code.startswith("zh") else ""
        raise InvalidValue(
            "news language", value, f"must be an ISO 639 code such as en or fr{hint}"
        )
    if len(code) == 2 and code not in ISO_639_1:
        raise InvalidValue("news language", value, "is not an ISO 639-1 language code")
    return code


# ---------------------------------------------------------------- reading an lxml element

NEWS_CHILDREN = (
    "publication",
    "access",
    "genres",
    "publication_date",
    "title",
    "keywords",
    "stock_tickers",
)
_NEWS_TAGS = schema_tags(NEWS_NS, NEWS_CHILDREN)
PUBLICATION_CHILDREN = ("name", "language")
_PUBLICATION_TAGS = schema_tags(NEWS_NS, PUBLICATION_CHILDREN)
_HOLDERS = frozenset({"publication"})  # holds name and language, not a value


def _read_news(el: Any, warnings: list[str]) -> News:
    items = checked_children(el, NEWS_NS, PREFIX, _NEWS_TAGS, {}, warnings, holders=_HOLDERS)
    no_repeats(items, PREFIX)
    values = {local: text for local, text, _, _ in items}
    publication = next((child for local, _, _, child in items if local == "publication"), None)
    if publication is None:
        raise Untypable("<news:news> without <news:publication>")
    pub = checked_children(publication, NEWS_NS, PREFIX, _PUBLICATION_TAGS, {}, warnings)
    no_repeats(pub, PREFIX)
    names = {local: text for local, text, _, _ in pub}
    for required in ("name", "language"):
        if required not in names:
            raise Untypable(f"<news:publication> without <news:{required}>")
    for required in ("publication_date", "title"):
        if required not in values:
            raise Untypable(f"<news:news> without <news:{required}>")
    language = _language(names["language"], warnings)
    args = {
        "publication_name": names["name"],
        "language": language,
        "publication_date": values["publication_date"],
        "title": values["title"],
        "access": values.get("access") or None,
        "genres": values.get("genres") or (),
        "keywords": values.get("keywords") or (),
        "stock_tickers": values.get("stock_tickers") or (),
    }
    return without_faults(_news, args, _OPTIONAL, warnings, "news-field-dropped", "news entry")


def _news(values: dict[str, Any]) -> News:
    return News(**values)


# InvalidValue's field -> (the child as written, the keys it gives): what news is read
# without when its value is at fault (sitemap-news.xsd: minOccurs=0)
_OPTIONAL = {
    f"news {name}": (f"news:{name}", (name,))
    for name in ("access", "genres", "keywords", "stock_tickers")
}
# a language tag with more than the language (en-US, pt_BR)
_TAGGED = lazy(r"([A-Za-z]{2,3})[-_][A-Za-z0-9]+(?:[-_][A-Za-z0-9]+)*")


def _language(written: str, warnings: list[str]) -> str:
    """The news language as read: a tag with a region or script whose language is a valid
    news language (``en-US``) is read as that language, noted in ``warnings``: the
    publication's language is required, and sitemap-news.xsd allows only
    ``zh-cn|zh-tw|([a-z]{2,3})``. Anything else raises (the entry stays raw)."""
    try:
        return news_language(written)
    except InvalidValue as exc:
        tagged = _TAGGED.fullmatch(written.strip())
        if tagged is None:
            raise
        try:
            code = news_language(tagged.group(1))
        except InvalidValue:
            raise exc from None
        warnings.append(
            Note(
                "news-language",
                f"<news:language> {shown(written)}: {exc.reason}; read as {code!r}",
            )
        )
        return code


# ---------------------------------------------------------------- codes and per-URL rules

CODES: dict[str, Code] = {
    "invalid-news": Code(
        Severity.ERROR,
        "news extension not valid",
        "news needs publication name and language (ISO 639, zh-cn, zh-tw), publication_date "
        "(W3C Datetime) and title",
    ),
    "news-language": Code(
        Severity.WARNING,
        "news language with a region or script",
        "the publication language is an ISO 639 code (en, fr; Chinese zh-cn or zh-tw), as "
        "sitemap-news.xsd requires; the language part of the tag was read",
    ),
    "news-field-dropped": Code(
        Severity.WARNING,
        "news field not valid; the entry is read without it",
        "the message names the field and its value; fix it or leave it out (access, genres, "
        "keywords and stock_tickers are optional)",
    ),
    "news-too-old": Code(
        Severity.WARNING,
        "news article older than two days",
        "news sitemaps list articles published in the last two days; move older ones "
        "to a regular sitemap",
    ),
    "news-repeated": Code(
        Severity.WARNING,
        "more than one news entry in a URL",
        "give each article URL one <news:news>",
    ),
    "too-many-news": Code(
        Severity.ERROR,
        "more than 1,000 news entries",
        "a news sitemap holds at most 1,000 <news:news>; split it",
    ),
}


def news_too_old(url: Url, now: datetime | None = None) -> list[Issue]:
    """Articles published more than two days before ``now`` (skipped when ``now`` is None)."""
    if now is None:
        return []
    out = []
    for e in url.extensions:
        if type(e) is News:
            age = now - instant(e.publication_date)
            if age > NEWS_MAX_AGE:
                out.append(too_old_issue(url.loc, e.title, age, now))
    return out


def too_old_issue(loc: str, title: str, age: timedelta, now: datetime) -> Issue:
    """``news-too-old`` for the article ``title`` of the page ``loc``, ``age`` old at ``now``
    (the build's compiled core gives the same of the articles it writes)."""
    message = f"{loc}: {title!r} was published {age.days} days before {_day_of(now)}"
    return coded_issue(CODES, "news-too-old", message)


def _day_of(now: datetime) -> str:
    """``now``'s day as the message writes it: strftime once for a check's one ``now`` (the
    same object: an equal instant in another zone may be another day)."""
    global _last_day
    last = _last_day
    if last[0] is not now:
        last = _last_day = (now, f"{now:%Y-%m-%d}")
    return last[1]


_last_day: tuple[datetime | None, str] = (None, "")


def news_repeated(url: Url, now: datetime | None = None) -> list[Issue]:
    if len(url.extensions) <= 1:
        return []  # at most one article, uncounted
    count = sum(1 for e in url.extensions if type(e) is News)
    if count <= 1:
        return []
    return [repeated_issue(url.loc, count)]


def repeated_issue(loc: str, count: int) -> Issue:
    """``news-repeated`` for the page ``loc`` with ``count`` news elements."""
    return coded_issue(CODES, "news-repeated", f"{loc}: {count} <news:news> elements")


SPEC = ExtensionSpec(
    News,
    PREFIX,
    _read_news,
    None,
    "invalid-news",
    CODES,
    (news_too_old, news_repeated),
    optional=_OPTIONAL,
    dropped="news-field-dropped",
    item="news entry",
)

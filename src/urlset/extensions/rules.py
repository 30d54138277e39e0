"""Check rules for extension values, across the extensions: each returns Issues.

Per URL: ``check_url(url, now=...)`` runs every extension's per-URL rules (``RULES``, from
each module's ``SPEC``) and also reads any raw element in a typed namespace
(``check_raw``), so a checker that only has the reader's ``RawElement`` values still
reports bad images, videos, news and alternates precisely.
Across a document or a set: ``SetChecks`` counts news per sitemap and checks hreflang
reciprocity (``reciprocity.Reciprocity``).

Every code is in ``EXT_CODES`` (severity, title, hint), in the shape of ``codes.CODES``,
assembled from each extension's codes. Rules take the time as an argument (``now``);
nothing here reads the clock.
"""

from __future__ import annotations

from datetime import datetime

from ..codes import Code
from ..model import Issue, RawElement, Severity, Url
from .common import Rule, coded_issue, warning_code
from .registry import REGISTRY, parse
from .set_checks import SetChecks as SetChecks  # the rules across URLs, with the rest

# the codes of elements that stay raw first, then each extension's own, in REGISTRY order
EXT_CODES: dict[str, Code] = {
    **{spec.invalid: spec.codes[spec.invalid] for spec in REGISTRY},
    "extension-order": Code(
        Severity.WARNING,
        "extension children out of order",
        "the official schema fixes the order of the children; strict validators reject others",
    ),
    **{code: row for spec in REGISTRY for code, row in spec.codes.items() if code != spec.invalid},
}

# the code for an element of a typed namespace that could not be typed
INVALID_CODES = {spec.value.namespace: spec.invalid for spec in REGISTRY}


def issue(code: str, message: str, *, line: int = 0, source: str = "") -> Issue:
    """An Issue with the severity and hint of ``code`` (from EXT_CODES)."""
    return coded_issue(EXT_CODES, code, message, line=line, source=source)


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
        issue(warning_code(warning), where + warning, line=line, source=source)
        for warning in parsed.warnings
    )
    return out


# ---------------------------------------------------------------- per URL

RULES: tuple[Rule, ...] = tuple(rule for spec in REGISTRY for rule in spec.rules)
# error code -> (the URL's extensions without what breaks the rule, what that is)
REPAIRS = {code: repair for spec in REGISTRY for code, repair in spec.repairs.items()}


def repaired(url: Url, code: str) -> tuple[Url, str] | None:
    """``url`` without what makes the per-URL rule ``code`` an error, and what was left out
    (a build writes that instead of a URL check would call an error); None when ``code`` is
    not such a rule."""
    found = REPAIRS.get(code)
    if found is None:
        return None
    keep, what = found
    return url._replace(extensions=keep(url)), what


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

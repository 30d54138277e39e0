"""A robots.txt's verdicts explained: may this user agent fetch this URL, and which rule, on
which line, decides it (``urlset robots FILE --test URL --user-agent A``, as advertools'
``robotstxt_test``).

In: the robots.txt bytes, URLs and user agents. Out: a ``RobotsVerdict`` per URL and agent.
Pure: no file, no socket. The verdict is protego's ``can_fetch``, the one matcher every
command uses (RFC 9309: the group of the most specific user agent, else ``*``; in it the
longest matching path wins, an Allow over a Disallow of the same length; ``*`` and ``$``
patterns; ``/robots.txt`` always allowed). The rule that decided is read from the same
parse (protego's group for the agent, its rules in the order it tries them), and found in
the file's lines by the pattern protego made of each; a rule protego keeps that no line
gives as written (a misspelt ``Dissallow``, say) is shown as protego reads it, without a
line.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any
from urllib.parse import urlsplit

from .robots_check import parse_rules
from .robots_text import Line, split_lines

_USER_AGENT = {"user-agent", "useragent", "user agent"}
_SITE_WIDE = {"sitemap", "sitemaps", "site-map", "host"}  # no part of a group


@dataclass(frozen=True, slots=True)
class RobotsVerdict:
    """Whether ``user_agent`` may fetch ``url``; ``rule`` ("Disallow: /private/", as the file
    writes it) and ``line`` say what decided (None: no rule matches, or none applies to the
    agent: allowed); ``group`` is the User-agent value whose group applies (None: none)."""

    url: str
    user_agent: str
    allowed: bool
    rule: str | None
    line: int | None
    group: str | None

    def as_dict(self) -> dict[str, object]:
        return {
            "url": self.url,
            "user_agent": self.user_agent,
            "allowed": self.allowed,
            "rule": self.rule,
            "line": self.line,
            "group": self.group,
        }


@dataclass(frozen=True, slots=True)
class _RuleLine:
    number: int
    field: str  # "allow" or "disallow" as protego reads the line
    value: str
    text: str  # the directive as written, without a comment
    agents: frozenset[str]  # the group's user agents, lower case, as protego keys them


# the group directives protego knows besides User-agent, Allow and Disallow (and their
# misspellings, which ``_field_of`` asks protego about)
_OTHERS = {"crawl-delay", "crawl delay", "request-rate", "request rate", "visit-time", "visit time"}


def _known(field: str) -> bool:
    return field in _USER_AGENT or field in _SITE_WIDE or field in _OTHERS or bool(_field_of(field))


def _directive(text: str) -> tuple[str, str] | None:
    """A line's field (lower case) and value, without a comment, read as protego reads it
    (``Field: value``, or ``Field value`` without the colon when Field is a directive it
    knows); None for no directive."""
    text = text.split("#", 1)[0].strip()
    field = value = None
    if ":" in text:
        field, value = text.split(":", 1)
        field = field.strip().lower()
        if _known(field) or not value or value[0].isspace():
            return field, value.strip()
    words = text.split()
    for count in (1, 2):
        candidate = " ".join(words[:count]).lower()
        if _known(candidate):
            return candidate, " ".join(words[count:])
    return None if field is None or value is None else (field, value.strip())


@dataclass
class Group:
    """One group of a robots.txt as protego reads it: its User-agent lines and what follows,
    up to the next User-agent line after a rule (Sitemap and Host lines belong to none).
    Lines are indexes into ``split_lines``."""

    agents: list[str]  # the User-agent values as written
    agent_lines: list[int]
    rule_lines: list[int]  # its Allow and Disallow lines (as protego reads them: misspelt too)
    end: int  # the index after its last line of any kind but Sitemap and Host

    def keys(self) -> frozenset[str]:
        return agent_keys(self.agents)


def agent_keys(agents: Iterable[str]) -> frozenset[str]:
    """User agents as protego keys their rules (lower case; ``googlebot*`` also as
    ``googlebot``)."""
    lowered = (a.lower() for a in agents)
    return frozenset(k for a in lowered for k in (a, a.replace("*", "")) if k)


def read_groups(lines: Sequence[Line]) -> list[Group]:
    """The groups of a robots.txt's lines, in order."""
    groups: list[Group] = []
    group: Group | None = None
    previous: str | None = None
    for index, line in enumerate(lines):
        found = _directive(line.text.decode("utf-8", errors="replace"))
        if found is None:
            continue
        field, value = found
        if field in _SITE_WIDE:
            continue
        if field in _USER_AGENT:
            if group is None or (previous is not None and previous not in _USER_AGENT):
                group = Group([], [], [], index + 1)
                groups.append(group)
            group.agent_lines.append(index)
            if value:
                group.agents.append(value)
        elif group is not None and value and _field_of(field) is not None:
            group.rule_lines.append(index)
        if group is not None:
            group.end = index + 1
        previous = field
    return groups


def _rule_lines(body: bytes) -> list[_RuleLine]:
    """The Allow and Disallow lines of each group, with the group's user agents."""
    lines = split_lines(body)
    out = []
    for group in read_groups(lines):
        keys = group.keys()
        for index in group.rule_lines:
            line = lines[index]
            text = line.text.decode("utf-8", errors="replace").split("#", 1)[0].strip()
            field, value = _directive(text) or ("", "")
            out.append(_RuleLine(line.number, _field_of(field) or "", value, text, keys))
    return out


def rule_of(text: bytes) -> tuple[str, str] | None:
    """("allow" or "disallow", the path) of an Allow or Disallow line, as protego reads the
    field (None: another line, or no path)."""
    found = _directive(text.decode("utf-8", errors="replace"))
    if found is None or not found[1]:
        return None
    field = _field_of(found[0])
    return None if field is None else (field, found[1])


@lru_cache(maxsize=1024)
def _field_of(field: str) -> str | None:
    """ "allow" or "disallow" for a field protego reads as one (its misspellings too)."""
    probe = parse_rules(f"User-agent: *\n{field}: /x\n".encode())
    rules = _rules_of(probe, "*")
    return None if not rules else str(rules[0].field)


def _rules_of(parsed: Any, agent: str) -> list[Any]:
    """protego's rules for ``agent`` in the order it tries them (none: no group applies).
    Reads protego's parse itself: its public API gives the verdict, not the rule."""
    rule_set = parsed._get_matching_rule_set(agent)
    return [] if rule_set is None else list(rule_set._rules)


@lru_cache(maxsize=4096)
def _patterns_of(field: str, value: str) -> frozenset[str]:
    """The patterns protego makes of one rule line (a ``$`` or ``index.html`` rule gives two)."""
    probe = parse_rules(f"User-agent: *\n{field}: {value}\n".encode())
    return frozenset(r.value._pattern for r in _rules_of(probe, "*"))


class RobotsRules:
    """One robots.txt, asked about URLs and user agents."""

    def __init__(self, body: bytes) -> None:
        self.parsed = parse_rules(body)
        self.lines = _rule_lines(body)

    def verdict(self, url: str, user_agent: str) -> RobotsVerdict:
        """May ``user_agent`` fetch ``url`` (a URL, or a path), and what decided."""
        allowed = bool(self.parsed.can_fetch(url, user_agent))
        rule_set = self.parsed._get_matching_rule_set(user_agent)
        group = None if rule_set is None else str(rule_set.user_agent)
        if group is None or urlsplit(url).path == "/robots.txt":  # always allowed
            return RobotsVerdict(url, user_agent, allowed, None, None, group)
        decided = self._decided(url, user_agent)
        if decided is None or (decided.field == "allow") != allowed:
            return RobotsVerdict(url, user_agent, allowed, None, None, group)
        pattern = decided.value._pattern
        for line in self.lines:
            if (
                group in line.agents
                and line.field == decided.field
                and pattern in _patterns_of(line.field, line.value)
            ):
                return RobotsVerdict(url, user_agent, allowed, line.text, line.number, group)
        shown = f"{decided.field.capitalize()}: {pattern}"
        return RobotsVerdict(url, user_agent, allowed, shown, None, group)

    def _decided(self, url: str, user_agent: str) -> Any:
        """The first of protego's rules for the agent that matches ``url`` (None: none)."""
        from protego._utils import _quote_path

        quoted = _quote_path(url)
        return next((r for r in _rules_of(self.parsed, user_agent) if r.value.match(quoted)), None)


def robots_test(
    body: bytes, urls: Iterable[str], user_agents: Sequence[str] = ("*",)
) -> list[RobotsVerdict]:
    """The verdict of the robots.txt ``body`` on each URL for each user agent: URL by URL,
    the agents in the order given."""
    rules = RobotsRules(body)
    return [rules.verdict(url, agent) for url in urls for agent in user_agents]

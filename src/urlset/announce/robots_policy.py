"""robots.txt policies: User-agent groups with their Allow and Disallow rules, written into a
robots.txt beside its Sitemap lines without touching any other byte.

In: the bytes of a robots.txt and the ``Policy`` values to hold (from ``parse_policy``, the
``--policy 'Googlebot: disallow /private/, allow /private/public'`` form, or
``parse_policy_file``, groups written as in robots.txt). Out: the new bytes and what changed
(``edit_policies``). Pure: no file, no clock.

A policy says the whole rule list of the group of exactly its user agents. The group whose
User-agent lines name those agents (compared as crawlers compare them, without case) has its
Allow and Disallow lines replaced by the policy's, where the first of them stood; its other
lines (comments, Crawl-delay) stay. Without such a group, one is added at the end of the
file, after a blank line. A group that already holds the policy's rules, in its order, is
left as written, so that applying a policy twice changes nothing. An agent that shares a
group with agents the policy does not name, or has more than one group (crawlers merge them),
is refused with where: rewriting either would change the rules of what the policy does not
name, or leave rules of the agent in force.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import InvalidValue
from .robots_rules import Group, agent_keys, read_groups, rule_of
from .robots_text import BOM, Line, PolicyChange, RobotsEdit, _common_ending, split_lines

_AGENT = re.compile(r"\*|[A-Za-z0-9_.*-]+")  # RFC 9309's product token (a few more characters)
_FIELDS = {"allow": "Allow", "disallow": "Disallow"}


@dataclass(frozen=True, slots=True)
class Policy:
    """The rules of one group: its user agents and its (``"allow"`` or ``"disallow"``, path)
    rules, in the order written."""

    agents: tuple[str, ...]
    rules: tuple[tuple[str, str], ...]

    def __post_init__(self) -> None:
        if not self.agents:
            raise InvalidValue("policy", self.rules, "names no user agent")
        for agent in self.agents:
            if not _AGENT.fullmatch(agent):
                raise InvalidValue(
                    "user agent", agent, "must be a crawler's name (letters, digits, - and _) or *"
                )
        if not self.rules:
            raise InvalidValue(
                "policy", " ".join(self.agents), "has no rule; to allow everything write 'allow /'"
            )
        for field, path in self.rules:
            if field not in _FIELDS:
                raise InvalidValue("policy rule", field, "must be allow or disallow")
            if not path.startswith(("/", "*")) or any(c.isspace() or c == "#" for c in path):
                raise InvalidValue(
                    "policy path", path, "must start with / or * and hold no space or #"
                )

    def keys(self) -> frozenset[str]:
        return agent_keys(self.agents)

    def text(self, eol: bytes = b"\n") -> bytes:
        """The group as robots.txt lines."""
        lines = [f"User-agent: {a}" for a in self.agents]
        lines += [f"{_FIELDS[field]}: {path}" for field, path in self.rules]
        return b"".join(line.encode() + eol for line in lines)

    def rule_lines(self, eol: bytes) -> bytes:
        return b"".join(f"{_FIELDS[f]}: {p}".encode() + eol for f, p in self.rules)


def parse_policy(text: str) -> Policy:
    """``'Googlebot Bingbot: disallow /private/, allow /private/public'``: user agents (space
    or comma separated) before the colon, then rules (``allow PATH`` or ``disallow PATH``,
    comma separated). InvalidValue names what is wrong."""
    agents_text, colon, rules_text = text.partition(":")
    if not colon:
        raise InvalidValue(
            "policy",
            text,
            "write 'AGENT: disallow /path/, allow /path/public' (a colon after the agents)",
        )
    agents = tuple(a for a in re.split(r"[\s,]+", agents_text.strip()) if a)
    if not rules_text.strip():
        return Policy(agents, ())  # refused, with what to write instead
    rules = []
    for part in (p.strip() for p in rules_text.split(",")):
        field, _, path = part.partition(" ")
        if not part or field.lower() not in _FIELDS or not path.strip():
            raise InvalidValue(
                "policy rule", part, "write 'allow PATH' or 'disallow PATH', comma separated"
            )
        rules.append((field.lower(), path.strip()))
    return Policy(agents, tuple(rules))


def parse_policy_file(data: bytes) -> list[Policy]:
    """The groups of a policy file, written as in robots.txt (``User-agent:`` lines, then
    ``Allow:`` and ``Disallow:`` lines; comments and blank lines allowed). InvalidValue, with
    the line, for any other line."""
    lines = split_lines(data)
    policies = []
    for group in read_groups(lines):
        rules = tuple(r for i in group.rule_lines if (r := rule_of(lines[i].text)) is not None)
        policies.append(Policy(tuple(group.agents), rules))
    grouped = {i for g in read_groups(lines) for i in (*g.agent_lines, *g.rule_lines)}
    for index, line in enumerate(lines):
        text = line.text.split(b"#", 1)[0].strip()
        if text and index not in grouped:
            raise InvalidValue(
                f"policy file line {line.number}",
                text.decode("utf-8", errors="replace"),
                "is not a User-agent, Allow or Disallow line of a group",
            )
    if not policies:
        raise InvalidValue("policy file", "", "holds no User-agent group")
    return policies


def edit_policies(data: bytes, policies: Sequence[Policy]) -> RobotsEdit:
    """``data`` with each policy's group holding exactly its rules (``RobotsEdit.groups``
    says what each did); see the module. InvalidValue when a policy's group is unclear."""
    bom = BOM if data.startswith(BOM) else b""
    lines = split_lines(data)
    eol = _common_ending(data.removeprefix(bom))
    seen: set[str] = set()
    for policy in policies:
        again = seen & policy.keys()
        if again:
            raise InvalidValue("policy", sorted(again)[0], "is given in two policies")
        seen |= policy.keys()
    groups = read_groups(lines)
    targets = [_target(policy, groups, lines) for policy in policies]
    replaced: dict[int, bytes] = {}  # line index -> what it becomes (b"": taken out)
    changes: list[tuple[Policy, str, Group | None]] = []
    for policy, group in zip(policies, targets, strict=True):
        if group is None:
            changes.append((policy, "added", None))
            continue
        rules = [rule_of(lines[i].text) for i in group.rule_lines]
        if rules == list(policy.rules):
            changes.append((policy, "unchanged", group))
            continue
        changes.append((policy, "replaced", group))
        at = group.rule_lines[0] if group.rule_lines else group.agent_lines[-1] + 1
        for i in group.rule_lines:
            replaced[i] = b""
        before = b"" if lines[at - 1].ending or at != len(lines) else eol  # a last line
        replaced[at] = before + policy.rule_lines(eol) + replaced.get(at, _whole(lines, at))
    # one piece more than lines: rules after a group that ends the file go there
    pieces = [replaced.get(i, _whole(lines, i)) for i in range(len(lines) + 1)]
    added = [p for p, change, _ in changes if change == "added"]
    # new groups go at the end; before a last group of User-agent lines alone, which would
    # otherwise take the first of them in (a group runs until a rule ends it)
    last = groups[-1] if groups else None
    at = len(lines)
    if added and last is not None and last.agent_lines[-1] == last.end - 1:
        at = last.agent_lines[0]
        added_text = b"".join(p.text(eol) + eol for p in added)
        pieces[at] = added_text + pieces[at]
        added = []
    text = b"".join(pieces)
    if added:
        if text and not text.endswith((b"\n", b"\r")):
            text += eol
        blank = b"" if not text or text.endswith(eol + eol) or text == eol else eol
        text += blank + eol.join(p.text(eol) for p in added)
    if data and not data.endswith((b"\n", b"\r")):  # a file that ended without one still does
        text = text.removesuffix(eol)
    out = bom + text
    return RobotsEdit(out, (), (), (), data, tuple(_where(out, changes)))


def _whole(lines: list[Line], index: int) -> bytes:
    if index >= len(lines):
        return b""
    return lines[index].text + lines[index].ending


def _target(policy: Policy, groups: list[Group], lines: list[Line]) -> Group | None:
    """The group the policy rewrites (None: it adds one); InvalidValue when that is unclear."""
    keys = policy.keys()
    holding = [g for g in groups if g.keys() & keys]
    mine = [g for g in holding if g.keys() == keys]
    for group in holding:
        if group.keys() != keys:
            shared = ", ".join(group.agents)
            line = lines[group.agent_lines[0]].number
            raise InvalidValue(
                "policy",
                " ".join(policy.agents),
                f"differs from the group at line {line} (User-agent: {shared}); give a policy "
                "for exactly those agents, or edit that group by hand",
            )
    if len(mine) > 1:
        numbers = " and ".join(str(lines[g.agent_lines[0]].number) for g in mine)
        raise InvalidValue(
            "policy",
            " ".join(policy.agents),
            f"has groups at lines {numbers} (crawlers merge them); make them one group first",
        )
    return mine[0] if mine else None


def _where(out: bytes, changes: list[tuple[Policy, str, Group | None]]) -> list[PolicyChange]:
    """Each change with the line its group starts at in ``out``."""
    firsts: dict[frozenset[str], int] = {}
    new_lines = split_lines(out)
    for group in read_groups(new_lines):
        firsts.setdefault(group.keys(), new_lines[group.agent_lines[0]].number)
    return [
        PolicyChange(policy.agents, change, firsts.get(policy.keys(), 0))
        for policy, change, _ in changes
    ]

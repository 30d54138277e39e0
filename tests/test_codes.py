"""The one table of rules (``urlset.codes``): every code any stage can emit has its row, and
one problem has one code and one severity whichever stage reports it.

How the codes are enumerated: every string literal handed as the code to an issue-making
call in ``src/urlset`` (``issue``, ``make_issue``, ``fetch_issue``, ``Issue``, the
checker's ``add``/``at_entry``/``per_host`` and the extensions' ``coded_issue``), every
(code, message) tuple a rule walk returns, fetching's code constants, and each
extension's rows (``EXT_CODES``, assembled from each extension's ``SPEC``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import urlset
from urlset.codes import CODES, all_codes, rule
from urlset.extensions import EXT_CODES
from urlset.fetching.issues import FETCH_CODES
from urlset.model import Severity

PACKAGE = Path(urlset.__file__).parent
_CODE = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)*")  # "truncated", "unknown-root"
_KEBAB = re.compile(r"[a-z][a-z0-9]*(?:-[a-z0-9]+)+")
_ISSUE_CALLS = frozenset(
    ("issue", "make_issue", "fetch_issue", "Issue", "_issue", "add", "at_entry", "per_host")
)
_ISSUE_CALLS |= {"coded_issue"}


def emitted_codes(under: Path = PACKAGE) -> dict[str, set[str]]:
    """code -> the places (file:line) that emit it, found in the source under ``under``."""
    found: dict[str, set[str]] = {}
    for path in sorted(under.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            literal = None
            if isinstance(node, ast.Call) and node.args:
                func = node.func
                name = getattr(func, "attr", None) or getattr(func, "id", "")
                first = node.args[0]
                if name in _ISSUE_CALLS and isinstance(first, ast.Constant):
                    literal = first.value
                if name == "coded_issue" and len(node.args) > 1:  # (table, code, message)
                    second = node.args[1]
                    literal = second.value if isinstance(second, ast.Constant) else None
            elif isinstance(node, ast.Tuple) and len(node.elts) >= 2:
                first = node.elts[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    literal = first.value if _KEBAB.fullmatch(first.value) else None
            if isinstance(literal, str) and _CODE.fullmatch(literal):
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                found.setdefault(literal, set()).add(where)
    return found


def test_every_emitted_code_has_its_row() -> None:
    table = all_codes()
    emitted = emitted_codes()
    assert len(emitted) > 80  # the scan finds the codes (a broken scan finds none)
    missing = {code: sorted(where)[:2] for code, where in emitted.items() if code not in table}
    assert not missing
    assert set(FETCH_CODES) <= set(table)
    assert set(EXT_CODES) <= set(table)


def test_the_table_is_one_table() -> None:
    table = all_codes()
    for code, row in table.items():
        assert _CODE.fullmatch(code), code
        assert isinstance(row.severity, Severity)
        assert row.title and row.hint, code
        assert rule(code) == row
    # the extensions' rows are found through the same lookup as the core's
    some = next(iter(EXT_CODES))
    assert rule(some) is EXT_CODES[some] and some not in CODES

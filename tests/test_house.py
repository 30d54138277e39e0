"""The package's shape: imports pointing down the stages, rooms of a readable size (the public
API is pinned in test_api.py).

These read the source tree (``ast``), not a running import, so every import counts: those
inside functions and under ``TYPE_CHECKING`` too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

import urlset

PACKAGE = Path(urlset.__file__).parent

# stage -> rank; a module may import its own stage or a lower rank, never a higher one or a
# sibling of its own rank (reading and writing, checking and fetching stay apart)
# _core is the compiled extension (rust/): it imports nothing of the package
CORE = ("model", "urls", "dates", "limits", "codes", "errors", "patterns", "_core")
STAGES = {
    **{name: 0 for name in CORE},
    "extensions": 1,
    "reading": 2,
    "writing": 2,
    "checking": 3,
    "fetching": 3,
    "announce": 4,
    "store": 4,
    "reports": 4,
    "sitecheck": 4,
    "serve": 4,
    "sources": 4,
    "dask": 5,
    "auditing": 5,
    "cli": 6,
}

MAX_MODULE_LINES = 600
MAX_CLASS_LINES = 300
MAX_FUNCTION_LINES = 80
ONE_PIECE = "One piece because"  # a docstring with this sentence says why a room is larger


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


MODULES = _modules()


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def _package_of(module: str, path: Path) -> str:
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _targets(module: str, node: ast.ImportFrom | ast.Import, path: Path) -> Iterator[str]:
    """The urlset modules one import statement loads (a name imported from a package that is
    a submodule of it counts as that submodule)."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] == "urlset":
                yield alias.name
        return
    if node.level:
        base = _package_of(module, path).split(".")
        base = base[: len(base) - node.level + 1]
        origin = ".".join([*base, node.module] if node.module else base)
    elif node.module and node.module.split(".")[0] == "urlset":
        origin = node.module
    else:
        return
    for alias in node.names:
        sub = f"{origin}.{alias.name}"
        yield sub if sub in MODULES else origin


def _imports(module: str, *, load_time_only: bool) -> set[str]:
    """urlset modules that ``module`` imports; with ``load_time_only``, only those run when it
    is imported (not inside functions, not under ``TYPE_CHECKING``)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()

    def visit(nodes: list[ast.stmt]) -> None:
        for node in nodes:
            if isinstance(node, ast.Import | ast.ImportFrom):
                found.update(_targets(module, node, path))
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                if not load_time_only:
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                if not load_time_only or isinstance(node, ast.ClassDef):
                    visit(node.body)
            elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While):
                for field in ("body", "orelse", "finalbody", "handlers"):
                    for child in getattr(node, field, []):
                        visit(child.body if isinstance(child, ast.ExceptHandler) else [child])

    visit(tree.body)
    found.discard(module)
    # importing a submodule runs its packages' __init__ first (the top package is the façade),
    # except the importer's own packages: they are already being imported when it runs
    own = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
    for target in list(found):
        parts = target.split(".")
        found.update(
            ".".join(parts[:n]) for n in range(2, len(parts)) if ".".join(parts[:n]) not in own
        )
    found.discard(module)
    return found


def test_every_module_belongs_to_a_stage() -> None:
    homeless = [m for m in MODULES if m != "urlset" and _stage(m) not in STAGES]
    assert homeless == []


def test_imports_point_down_the_stages() -> None:
    wrong = []
    for module in MODULES:
        stage = _stage(module)
        if stage is None:
            continue  # the package façade may name anything
        for target in _imports(module, load_time_only=False):
            other = _stage(target)
            if other is None:
                wrong.append(f"{module} -> {target} (the façade)")
            elif not (other == stage or STAGES[other] < STAGES[stage] or STAGES[other] == 0):
                wrong.append(f"{module} -> {target}")
    assert wrong == []


def _cycles(graph: dict[str, set[str]]) -> list[str]:
    cycles = []
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def walk(node: str, path: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*path[path.index(nxt) :], nxt]))
            elif nxt not in state:
                walk(nxt, [*path, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            walk(node, [node])
    return cycles


def test_no_circular_imports_at_load_time() -> None:
    assert _cycles({m: _imports(m, load_time_only=True) for m in MODULES}) == []


# Packages whose files import one another one way only, counting every import (inside
# functions and under TYPE_CHECKING too): shared option, report and sink types sit below
# the modules that use them (DESIGN.md; cli/shared.py for the commands).
ONE_WAY_PACKAGES = sorted({m.rpartition(".")[0] for m in MODULES if m.count(".") >= 2})


@pytest.mark.parametrize("package", ONE_WAY_PACKAGES)
def test_no_circular_imports_inside_a_package(package: str) -> None:
    inside = {m for m in MODULES if m.startswith(package + ".")}
    graph = {m: _imports(m, load_time_only=False) & inside for m in inside}
    assert _cycles(graph) == []


def test_the_cycle_search_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == ["a -> b -> c -> a"]


def _oversized() -> Iterator[str]:
    for module, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        lines = len(text.splitlines())
        if lines > MAX_MODULE_LINES and ONE_PIECE not in (ast.get_docstring(tree) or ""):
            yield f"{module}: {lines} lines"
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                limit = MAX_CLASS_LINES
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                limit = MAX_FUNCTION_LINES
            else:
                continue
            size = (node.end_lineno or node.lineno) - node.lineno + 1
            if size > limit and ONE_PIECE not in (ast.get_docstring(node) or ""):
                yield f"{module}.{node.name}: {size} lines"


def test_rooms_are_a_readable_size() -> None:
    assert list(_oversized()) == []


@pytest.mark.parametrize("bad", ["import urlset.cli", "from ..cli import main"])
def test_the_import_walk_sees_an_upward_import(bad: str) -> None:
    """The walk above is itself tested: an upward import written into a module is found."""
    module = "urlset.reading.sniff"
    tree = ast.parse(bad)
    node = tree.body[0]
    assert isinstance(node, ast.Import | ast.ImportFrom)
    targets = set(_targets(module, node, MODULES[module]))
    assert "urlset.cli" in targets


# the stages whose modules import one way only, counting imports inside functions and under
# TYPE_CHECKING too: shared option, report and sink types sit below the modules that use them.
# Every stage but ``extensions``, whose package is a lazy facade its modules take constants from
ONE_WAY_STAGES = sorted({_stage(m) for m in MODULES} - {None, "extensions"})


@pytest.mark.parametrize("stage", ONE_WAY_STAGES)
def test_a_one_way_stage_has_no_cycle_even_through_deferred_imports(stage: str) -> None:
    inside = [m for m in MODULES if _stage(m) == stage]
    graph = {m: {t for t in _imports(m, load_time_only=False) if t in inside} for m in inside}
    assert _cycles(graph) == []

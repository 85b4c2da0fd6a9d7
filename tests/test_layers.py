"""The package is layered: every import of certify goes to the same or a lower layer, and no import circle exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "certify"

# Layer of each module, by the longest matching dotted prefix (lower imports nothing higher).
RANKS = {
    "certify.core": 0,
    "certify.io": 1,
    "certify.markov": 2,
    "certify.templates": 3,
    "certify.exact": 4,
    "certify.certificates": 5,
    "certify.search": 5,
    "certify.simulation": 5,
    "certify.stationary": 5,
    "certify.proof": 6,
    "certify.explain": 6,
    "certify.workflows": 7,
    "certify.cli": 8,
    "certify.__main__": 8,
    "certify": 8,
}

# The checker's side (the exact level and below) never loads these at module level.
NUMERIC = ("numpy", "scipy", "cvxpy", "numba")
CHECKER_RANK = 4


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["certify", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def rank(module: str) -> int:
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        if ".".join(parts[:n]) in RANKS:
            return RANKS[".".join(parts[:n])]
    raise KeyError(f"{module}: no layer assigned in tests/test_layers.py")


def _type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _walk(tree: ast.AST, top: bool = True, typing: bool = False):
    """Yield (import node, at module level), skipping ``if TYPE_CHECKING:`` blocks unless ``typing``."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            body = node.orelse + (node.body if typing else [])
            yield from _walk(ast.Module(body=body, type_ignores=[]), top, typing)
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, top
        inner = top and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        yield from _walk(node, inner, typing)


def imports(module: str, typing: bool = False) -> list[tuple[str, int, bool]]:
    """(imported certify module, line, at module level) for every import of certify in ``module`` (type-only ones too if ``typing``)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out = []
    for node, top in _walk(ast.parse(path.read_text(), str(path)), typing=typing):
        if isinstance(node, ast.Import):
            out += [(a.name, node.lineno, top) for a in node.names if a.name.split(".")[0] == "certify"]
            continue
        if node.level:
            base = package.split(".")[: len(package.split(".")) - node.level + 1]
            target = ".".join(base + ([node.module] if node.module else []))
        else:
            target = node.module or ""
        if target.split(".")[0] != "certify":
            continue
        for alias in node.names:  # `from pkg import submodule` imports the submodule
            sub = f"{target}.{alias.name}"
            out.append((sub if sub in MODULES else target, node.lineno, top))
    return out


def numeric_imports(module: str) -> list[tuple[str, int]]:
    """(numeric library, line) for every module-level import of numpy, scipy, cvxpy or numba in ``module``."""
    out = []
    for node, top in _walk(ast.parse(MODULES[module].read_text())):
        if not top:
            continue
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if not node.level else []
        out += [(n, node.lineno) for n in names if n.split(".")[0] in NUMERIC]
    return out


def graph(typing: bool = True) -> dict[str, set[str]]:
    """The module import graph, type-only imports included unless ``typing`` is False."""
    return {m: {t for t, _, _ in imports(m, typing) if t in MODULES and t != m} for m in MODULES}


def package_of(module: str) -> str:
    """The package of a module: ``certify.X`` (the top-level modules are their own package)."""
    return ".".join(module.split(".")[:2])


def package_graph() -> dict[str, set[str]]:
    """The package import graph (type-only imports included): an edge for every import between two packages."""
    edges: dict[str, set[str]] = {}
    for m, targets in graph().items():
        edges.setdefault(package_of(m), set()).update(package_of(t) for t in targets if package_of(t) != package_of(m))
    return edges


def find_cycle(edges: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``edges`` (as a closed path), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                return stack[stack.index(t) :] + [t]
            if t not in state and (found := visit(t)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(edges):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_every_module_has_a_layer():
    """Every module of the package is assigned a layer."""
    for m in MODULES:
        rank(m)


def test_imports_go_downward():
    """Every import of certify, at any depth, goes to a module of the same or a lower layer."""
    upward = [
        f"{m}:{line} imports {t} (layer {rank(m)} -> {rank(t)})"
        for m in MODULES
        for t, line, _ in imports(m)
        if rank(t) > rank(m)
    ]
    assert not upward, "\n".join(upward)


def test_imports_resolve():
    """Every import of certify names a module of the package."""
    missing = [f"{m}:{line} imports {t}" for m in MODULES for t, line, _ in imports(m) if t not in MODULES]
    assert not missing, "\n".join(missing)


def test_no_import_circles():
    """The module import graph (lazy and type-only imports included) has no circle."""
    cycle = find_cycle(graph())
    assert cycle is None, "import circle: " + " -> ".join(cycle or [])


def test_no_package_circles():
    """The package import graph (lazy and type-only imports included) has no circle."""
    cycle = find_cycle(package_graph())
    assert cycle is None, "package circle: " + " -> ".join(cycle or [])


def test_checker_imports_no_search_layer():
    """The exact level and everything below it import nothing of certify.search, at any depth."""
    bad = [
        f"{m}:{line} imports {t}"
        for m in MODULES
        if rank(m) <= CHECKER_RANK
        for t, line, _ in imports(m)
        if t == "certify.search" or t.startswith("certify.search.")
    ]
    assert not bad, "\n".join(bad)


def test_checker_imports_no_numeric_library():
    """The exact level and everything below it import neither numpy, scipy, cvxpy nor numba at module level."""
    bad = [f"{m}:{line} imports {n}" for m in MODULES if rank(m) <= CHECKER_RANK for n, line in numeric_imports(m)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    ("edges", "cycle"),
    [({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"]), ({"a": {"b"}, "b": {"c"}, "c": set()}, None)],
)
def test_find_cycle(edges, cycle):
    """find_cycle reports a circle as a closed path and None for an acyclic graph."""
    assert find_cycle(edges) == cycle


def _layout_table() -> dict[str, set[str]]:
    """The modules CONTRIBUTING.md's layer table names, by package (``core/`` -> {"errors", ...})."""
    text = (PACKAGE.parent / "CONTRIBUTING.md").read_text()
    out: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) < 5 or not cells[2].startswith("`") or not cells[2].endswith("/`"):
            continue
        names = set(re.findall(r"`([a-z_]+(?:/[a-z_]+)?)`", cells[3]))
        out.setdefault(cells[2].strip("`").rstrip("/"), set()).update(names)
    return out


def test_every_module_is_in_the_layout_table():
    """Every module of certify/ is named in CONTRIBUTING.md's layer table, under its package."""
    table = _layout_table()
    named = {f"{pkg}.{n}" if "/" not in n else n.replace("/", ".") for pkg, names in table.items() for n in names}
    missing = []
    for module in MODULES:
        parts = module.split(".")[1:]
        if len(parts) != 2 or parts[1] in ("__main__",):
            continue  # top-level modules and package __init__ files are named by their package
        if ".".join(parts) not in named:
            missing.append(module)
    assert not missing, "modules not named in CONTRIBUTING.md's layer table: " + ", ".join(missing)


def test_every_module_has_an_api_page():
    """Every module of certify (package __init__ files aside) is documented by an automodule in docs/api."""
    root = Path(__file__).resolve().parents[1]
    mods = {".".join(p.relative_to(root).with_suffix("").parts) for p in (root / "certify").rglob("*.py")
            if p.stem not in ("__init__", "__main__")}
    documented = {m for page in (root / "docs" / "api").glob("*.md") for m in re.findall(r"automodule:: (\S+)", page.read_text())}
    assert not sorted(mods - documented), f"modules without an API page: {sorted(mods - documented)}"

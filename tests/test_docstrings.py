"""Every public function of certify has a numpydoc docstring: Parameters, Returns, and a runnable example."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "certify"

# Public functions documented without a ``>>>`` example, and why.
NO_EXAMPLE = {
    "certify.simulation.kernel.init": "a numba kernel: compiling it takes seconds (documented, exercised by tests/test_simulate.py)",
    "certify.simulation.kernel.run": "a numba kernel: compiling it takes seconds (documented, exercised by tests/test_simulate.py)",
    "certify.simulation.kernel.sample_law": "a numba kernel: compiling it takes seconds (tests/test_simulate.py samples it)",
    "certify.workflows.pytest_plugin.pytest_addoption": "a pytest hook: it needs a pytest session (tests/test_regression.py)",
    "certify.workflows.pytest_plugin.pytest_collect_file": "a pytest hook: it needs a pytest session (tests/test_regression.py)",
    "certify.workflows.pytest_plugin.pytest_collection_modifyitems": "a pytest hook: it needs a pytest session",
    "certify.cli.main": "shown in the CLI pages; its examples are the command lines",
}


def _public_definitions() -> tuple[list[tuple[str, ast.FunctionDef]], list[tuple[str, ast.ClassDef]]]:
    out: list[tuple[str, ast.FunctionDef]] = []
    classes: list[tuple[str, ast.ClassDef]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = ["certify", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        module = ".".join(parts)
        tree = ast.parse(path.read_text())
        names = None
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
                elts = node.value.elts if isinstance(node.value, (ast.List, ast.Tuple)) else []
                names = {e.value for e in elts if isinstance(e, ast.Constant)}  # a starred part re-exports
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                if names is None or node.name in names:
                    if isinstance(node, ast.FunctionDef):
                        out.append((f"{module}.{node.name}", node))
                    else:
                        classes.append((f"{module}.{node.name}", node))
    return out, classes


FUNCTIONS, CLASSES = _public_definitions()


def _takes_arguments(fn: ast.FunctionDef) -> bool:
    a = fn.args
    return bool(a.posonlyargs or a.args or a.kwonlyargs or a.vararg or a.kwarg)


def _returns_something(fn: ast.FunctionDef) -> bool:
    return not (fn.returns is not None and ast.unparse(fn.returns) in ("None", "NoReturn"))


def test_public_functions_are_found():
    """The scan finds the public API (a scan that finds nothing would pass every check below)."""
    names = {n for n, _ in FUNCTIONS}
    assert {"certify.io.loader.load", "certify.proof.pipeline.prove", "certify.certificates.verifier.verify"} <= names
    assert len(names) > 150


@pytest.mark.parametrize("name,fn", FUNCTIONS, ids=[n for n, _ in FUNCTIONS])
def test_numpydoc_sections(name, fn):
    """A public function's docstring has Parameters (if it takes any), Returns (if it returns), and Examples."""
    doc = ast.get_docstring(fn) or ""
    assert doc, f"{name}: no docstring"
    missing = []
    if _takes_arguments(fn) and "Parameters\n----------" not in doc:
        missing.append("Parameters")
    if _returns_something(fn) and not ("Returns\n-------" in doc or "Yields\n------" in doc):
        missing.append("Returns")
    if name not in NO_EXAMPLE and ">>>" not in doc:
        missing.append("a >>> example")
    assert not missing, f"{name}: no {', '.join(missing)} in its docstring"


@pytest.mark.parametrize("name,cls", CLASSES, ids=[n for n, _ in CLASSES])
def test_public_class_documented(name, cls):
    """A public class has a docstring with a >>> example, and each of its public methods a docstring."""
    doc = ast.get_docstring(cls) or ""
    assert ">>>" in doc, f"{name}: no >>> example in its docstring"
    bare = [m.name for m in cls.body if isinstance(m, ast.FunctionDef) and not m.name.startswith("_") and not ast.get_docstring(m)]
    assert not bare, f"{name}: methods without a docstring: {', '.join(bare)}"

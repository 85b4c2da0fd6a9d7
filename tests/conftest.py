"""Shared pytest fixtures and helpers."""

import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "public"


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The directory of public known-answer network files (``corpus/public`` in the repository)."""
    assert CORPUS.is_dir(), f"the known-answer corpus is part of the repository, but {CORPUS} is missing"
    return CORPUS


def assert_runs_without_numpy(code: str) -> None:
    """Run ``code`` in a fresh interpreter and assert it succeeds without importing numpy, scipy or cvxpy."""
    check = "\nimport sys\nbad = [m for m in ('numpy', 'scipy', 'cvxpy') if m in sys.modules]\nprint(bad)\nsys.exit(1 if bad else 0)\n"
    out = subprocess.run([sys.executable, "-c", code + check], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr

"""The canonical models in ``models/``: certify's verdicts against the known answers."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import certify

MODELS = Path(__file__).resolve().parents[1] / "models"
FILES = sorted(p for p in MODELS.iterdir() if p.suffix in (".json", ".toml"))
OPPOSITE = {"stable": "unstable", "unstable": "stable"}


def _criteria():
    spec = importlib.util.spec_from_file_location("models_criteria", MODELS / "criteria.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_enough_models():
    """models/ holds at least eight network files, one of them TOML."""
    assert len(FILES) >= 8
    assert any(p.suffix == ".toml" for p in FILES)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_prove_matches_expected(path):
    """certify.prove returns the expected verdict, or for models needing future templates never the opposite one."""
    doc = _criteria().read(path)
    net = certify.load(path)
    expected = net.expected["verdict"]
    res = certify.prove(net, time_limit=30)
    if doc["x-model"]["provable"]:
        assert res.verdict == expected, res.table()
    else:
        assert res.verdict != OPPOSITE[expected], res.table()


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_expected_matches_independent_criterion(path):
    """The expected verdict agrees with the independent criterion and lies at least 5% from the boundary."""
    r = _criteria().evaluate(path)
    assert r["verdict"] == r["expected"], r["numbers"]
    assert r["distance"] >= 0.05, r["numbers"]

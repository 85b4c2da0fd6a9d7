"""Simulation checks when every search fails: evidence with numbers, never called a proof (fixed seeds)."""

import json

import pytest

from certify.io.loader import load
from certify.simulation.evidence import simulation_check
from tests.conftest import CORPUS


def _verdict_cases(expected):
    out = []
    for f in sorted(CORPUS.glob("*.json")):
        doc = json.loads(f.read_text())
        if doc.get("format") == "jsq-network/1" and doc.get("expected", {}).get("verdict") == expected:
            out.append(pytest.param(f, id=f.stem))
    return out


def test_unstable_network_gets_likely_unstable_with_its_rate(corpus_dir):
    """An unstable tie-breaking network: the simulation checks say likely-unstable, with the growth rate and throughputs."""
    net = load(corpus_dir / "ce-tie-expA-g1.00.json")
    ev = simulation_check(net, directions=[(1, 1, 0), (0, 0, 1)], budget_s=8, seed=1)
    assert ev.verdict == "likely-unstable" and ev.starts
    assert any("grows at" in r for r in ev.reasons) and any("throughputs" in r for r in ev.reasons)
    assert [s for s in ev.starts if s.growth[1] > 0]


def test_failed_searches_fall_back_to_simulation(corpus_dir, monkeypatch):
    """A stable network whose only search (quadratic Foster, no fluid stages) fails gets likely-stable from prove."""
    import certify.proof.sink

    monkeypatch.setattr(certify.proof.sink, "LATE_MIN_J", 10**6)  # the late sink-drain stage proves it stable
    net = load(corpus_dir / "ce-tie-expB-g0.50.json")
    res = certify.prove(net, time_limit=30, templates=["quadratic"], fluid=False, simulate=True, sim_budget=8, seed=2)
    assert res.verdict == "likely-stable" and res.certificate is None and "not a proof" in res.method
    assert any("no start grows over horizon" in r for r in res.reasons) and res.simulation["starts"]


def test_same_seed_same_evidence(corpus_dir):
    """Simulation checks with the same seed and budget-independent horizon give identical numbers."""
    net = load(corpus_dir / "dhk2-B-m1.03.json")
    a = simulation_check(net, [(1, 0)], budget_s=3, seed=5)
    b = simulation_check(net, [(1, 0)], budget_s=3, seed=5)
    if a.horizon == b.horizon:  # the horizon is sized from a timing pilot
        assert a.to_json()["starts"] == b.to_json()["starts"]
    assert a.verdict == b.verdict == "likely-unstable"


@pytest.mark.slow
@pytest.mark.parametrize("path", _verdict_cases("unstable"))
def test_every_unstable_public_case_looks_unstable(path):
    """Every unstable public case gets likely-unstable from the simulation checks alone (fixed seed)."""
    net = load(path)
    ev = simulation_check(net, [tuple(1 for _ in net.stations)], budget_s=6, seed=11)
    assert ev.verdict == "likely-unstable", ev.reasons


@pytest.mark.slow
@pytest.mark.parametrize("path", _verdict_cases("stable"))
def test_no_stable_public_case_looks_unstable(path):
    """No stable public case gets likely-unstable from the simulation checks (fixed seed)."""
    net = load(path)
    ev = simulation_check(net, [tuple(1 for _ in net.stations)], budget_s=6, seed=11)
    assert ev.verdict != "likely-unstable", ev.reasons

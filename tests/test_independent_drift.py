"""Certificates against an independent generator: AV(x) evaluated state by state from the JSQ rules."""

from fractions import Fraction

import numpy as np
import pytest

import certify
from certify.io.loader import load
from tests.independent import drift, generator, lyapunov

__all__ = ["generator", "drift", "lyapunov"]  # re-exported: other test modules import them from here


CASES = [
    "ce-tie-expB-g0.50.json",
    "dhk2-A-m0.97.json",
    "dhk-hom-J3-s12-m0.97.json",
    "ce-tie-expA-g0.00.json",
    "gjn-J3-s91-m0.95.json",
    "bramson-J5-s33-m0.90.json",
]


@pytest.mark.parametrize("name", CASES)
def test_far_states_drift_below_minus_delta(corpus_dir, name):
    """At random states beyond the certified bound (many near ties), AV(x) <= -delta computed from the JSQ rules."""
    net = load(corpus_dir / name)
    res = certify.prove(net, fluid=False)
    assert res.verdict == "stable"
    cert = res.certificate
    if name.startswith("ce-tie-expB"):
        assert cert["template"] == "table"
    delta = Fraction(cert["claims"]["delta"])
    N = int(Fraction(cert["claims"]["exceptional_set"]["bound"]))
    V = lyapunov(cert, net.station_ids)
    rng = np.random.default_rng(7)
    J = net.J
    for _ in range(300):
        base = int(rng.integers(N, 3 * N))
        x = [max(0, base + int(d)) for d in rng.integers(-2, 3, size=J)]
        if rng.random() < 0.4:  # small fast queues, where the table matters
            x = [int(rng.integers(0, 9)) if k < J - 1 else N + int(rng.integers(0, N)) for k in range(J)]
        # sometimes empty some stations or make one queue dominate
        if rng.random() < 0.3:
            x[int(rng.integers(J))] = int(rng.integers(0, 2))
        if rng.random() < 0.3:
            x = [v if k == int(rng.integers(J)) else int(rng.integers(0, 3)) for k, v in enumerate(x)]
            x[int(rng.integers(J))] += N
        if sum(x) < N:
            continue
        assert drift(net, V, tuple(x)) <= -delta, x


def test_unstable_growth_is_positive(corpus_dir):
    """The growth certificate's w'x has drift >= delta at random large states, from the JSQ rules."""
    net = load(corpus_dir / "ce-tie-expA-g1.00.json")
    res = certify.prove(net)
    assert res.certificate["kind"] == "growth"
    w = [Fraction(res.certificate["weights"][s]) for s in net.station_ids]
    delta = Fraction(res.certificate["claims"]["delta"])
    level = Fraction(res.certificate["claims"]["level"])

    def f(x):
        return sum(a * b for a, b in zip(w, x))

    rng = np.random.default_rng(3)
    checked = 0
    for _ in range(400):
        x = tuple(int(v) for v in rng.integers(0, 60, size=net.J))
        if f(x) > level:
            checked += 1
            assert drift(net, f, x) >= delta, x
    assert checked > 100


def test_table_growth_is_positive(corpus_dir):
    """A growth certificate with a bounded table (distribution counterexample, exponential): Af >= delta from the JSQ rules."""
    net = load(corpus_dir / "ce-dist-A-exp.json")
    res = certify.prove(net)
    cert = res.certificate
    assert res.verdict == "unstable" and cert["kind"] == "growth" and "table" in cert
    ids = net.station_ids
    w = [Fraction(cert["weights"][s]) for s in ids]
    tab = cert["table"]
    fast = [ids.index(s) for s in tab["fast"]]
    T = {tuple(int(c) for c in k.split(",")): Fraction(v) for k, v in tab["values"].items()}
    delta = Fraction(cert["claims"]["delta"])
    level = Fraction(cert["claims"]["level"])

    def f(x):
        return sum(a * b for a, b in zip(w, x)) + T[tuple(min(x[a], tab["K"]) for a in fast)]

    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(600):
        x = [int(v) for v in rng.integers(0, 12, size=net.J)]
        x[int(rng.integers(net.J))] += int(rng.integers(0, 200))  # one queue large, the others small
        x = tuple(x)
        if f(x) > level:
            checked += 1
            assert drift(net, f, x) >= delta, x
    assert checked > 200

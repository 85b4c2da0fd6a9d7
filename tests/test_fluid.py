"""Fluid certificates (general distributions): independent velocity sets, boundaries, counterexamples."""

import json
from fractions import Fraction as F

import numpy as np
import pytest
from scipy.optimize import linprog

import certify
from certify.chain import compile_chain
from certify.fluid import fluid_faces
from certify.loader import from_dict, load, to_dict


def true_max_rate(chain, z, c_vec):
    """max c'v over the fluid velocities at z, written from the JSQ rules (scipy LP, independent of certify.fluid).

    Flows f_{k,j} >= 0 go from each source (stream set, or feedback (i, C) at rate p mu_i u_i) to
    argmin_C z; u_j = 1 where z_j > 0, u_j in [0, 1] where z_j = 0; v_j = inflow_j - mu_j u_j; and
    v is tangent at z: v_j = 0 where z_j = 0, v_a = v_b wherever z_a = z_b (a.e. along any fluid path).
    Returns None when no velocity is admissible (no fluid path stays at z's face).
    """
    J = chain.J
    mu = [float(m) for m in chain.mu]
    sources = [(None, C, float(r)) for C, r in chain.arrivals] + [(i, C, float(p)) for i, C, p in chain.feedback]
    cols = []
    for k, (_, C, _) in enumerate(sources):
        m = min(z[j] for j in C)
        cols += [(k, j) for j in C if z[j] == m]
    nf = len(cols)
    n = nf + J
    A_eq, b_eq = [], []
    for k, (src, _, r) in enumerate(sources):
        row = np.zeros(n)
        for col, (kk, _) in enumerate(cols):
            if kk == k:
                row[col] = 1.0
        if src is None:
            b_eq.append(r)
        else:
            row[nf + src] = -r * mu[src]
            b_eq.append(0.0)
        A_eq.append(row)
    V = np.zeros((J, n))  # v = V @ (f, u)
    for col, (_, j) in enumerate(cols):
        V[j, col] = 1.0
    for j in range(J):
        V[j, nf + j] = -mu[j]
    for j in range(J):
        if z[j] == 0:
            A_eq.append(V[j])
            b_eq.append(0.0)
    for a in range(J):
        for b in range(a + 1, J):
            if z[a] == z[b] and z[a] > 0:
                A_eq.append(V[a] - V[b])
                b_eq.append(0.0)
    bounds = [(0, None)] * nf + [((1, 1) if z[j] > 0 else (0, 1)) for j in range(J)]
    obj = -(np.array([float(x) for x in c_vec]) @ V)
    res = linprog(obj, A_eq=np.array(A_eq), b_eq=np.array(b_eq), bounds=bounds, method="highs")
    if res.status == 2:
        return None
    assert res.status == 0, res.message
    return -res.fun


def random_points(J, rng, count):
    """Random fluid states with many ties and zeros."""
    for _ in range(count):
        z = rng.integers(0, 4, size=J).astype(float)
        if rng.random() < 0.5:
            z[rng.integers(J)] = 0.0
        if z.sum() == 0:
            z[rng.integers(J)] = 1.0
        yield z


CASES = ["dhk2-A-m0.97.json", "dhk-hom-J4-s13-m0.90.json", "bramson-J5-s33-m0.90.json", "fm-gsq1-m0.90.json", "gjn-J3-s91-m0.95.json"]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("kind", ["linear", "quadratic"])
def test_certificate_decreases_along_true_velocities(corpus_dir, name, kind):
    """At random fluid states (ties, zeros) every admissible velocity, from an independent LP, decreases V."""
    from certify.exact import check_fluid
    from certify.fluid_search import fluid_candidates, solve_fluid

    net = load(corpus_dir / name)
    chain = compile_chain(net)
    faces = fluid_faces(chain)
    lp = solve_fluid(chain, faces, kind)
    assert lp.found
    coeffs = next(c for c in fluid_candidates(chain, kind, lp.coeffs) if check_fluid(chain, kind, c, faces).ok)
    delta = float(check_fluid(chain, kind, coeffs, faces).facts["delta"])
    rng = np.random.default_rng(1)
    checked = 0
    for z in random_points(chain.J, rng, 300):
        if kind == "linear":
            c = [float(w) for w in coeffs]
            bound = -delta
        else:
            P = np.array([[float(v) for v in row] for row in coeffs])
            c = 2 * P @ z
            bound = -delta * z.sum()
        best = true_max_rate(chain, z, c)
        if best is None:
            continue
        checked += 1
        assert best <= bound + 1e-7, (z, best, bound)
    assert checked > 40


def scaled(net, s):
    doc = to_dict(net)
    for st in doc["streams"]:
        st["rate"] = str(F(str(st["rate"])) * s)
    return from_dict(doc)


@pytest.mark.parametrize(
    "name", ["dhk2-G-m0.98.json", "dhk-hom-J3-s23-m0.97.json", "bramson-J5-s33-m0.90.json", "fm-gsq1-m0.90.json", "gjn-J3-s91-m0.95.json"]
)
def test_fluid_certificate_reaches_the_boundary(corpus_dir, name):
    """At 0.99 of the true critical load the fluid certificate proves stability (general); at 1.01 nothing does."""
    path = corpus_dir / name
    margin = F(str(json.loads(path.read_text())["x-case"]["margin"]))
    net = load(path)
    res = certify.prove(scaled(net, F(99, 100) / margin))
    assert res.verdict == "stable" and res.semantics == "general" and res.certificate["kind"] == "fluid", res.reasons
    assert certify.verify(scaled(net, F(99, 100) / margin), res.certificate).ok
    over = certify.prove(scaled(net, F(101, 100) / margin), templates=["quadratic"], fluid=True)
    assert over.verdict != "stable"


@pytest.mark.parametrize("name", ["ce-tie-expB-g0.50.json", "ce-tie-expA-g0.00.json", "ce-dist-A-exp.json"])
def test_tie_breaking_counterexamples_get_no_fluid_certificate(corpus_dir, name):
    """Where stability depends on gamma or the distribution, only a Markovian certificate is found, and the report says so."""
    net = load(corpus_dir / name)
    res = certify.prove(net)
    if res.verdict == "stable":
        assert res.semantics == "markovian"
        assert any("exponential network with the given tie-breaking only" in r for r in res.reasons)
    assert not any(a.outcome.startswith("found") for a in res.attempts if a.stage.startswith("fluid"))


def test_general_distributions_proved_stable():
    """Deterministic and lognormal laws (no phase form): stable with semantics general through the fluid model."""
    doc = {
        "format": "jsq-network/1",
        "name": "general",
        "stations": {"1": {"mu": 1, "service": {"dist": "deterministic"}}, "2": {"mu": 2, "service": {"dist": "lognormal", "scv": 3}}},
        "streams": [{"choice": ["1", "2"], "rate": 2.5, "interarrival": {"dist": "gamma", "scv": 0.5}}],
        "feedback": [{"from": "2", "choice": ["1"], "prob": 0.1}],
    }
    res = certify.prove(from_dict(doc))
    assert res.verdict == "stable" and res.semantics == "general"
    assert "every i.i.d." in res.reasons[0] and "spread out" in res.reasons[0]

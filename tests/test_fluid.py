"""Fluid certificates (general distributions): independent velocity sets, boundaries, counterexamples."""

import json
from fractions import Fraction as F

import numpy as np
import pytest

import certify
from certify.io.loader import from_dict, load, to_dict
from certify.markov.chain import compile_chain
from certify.markov.fluid import fluid_faces

from .independent import fluid_max_rate, small_fluid_state


def random_points(J, rng, count):
    """Random fluid states with many ties and zeros."""
    for _ in range(count):
        yield np.array(small_fluid_state(rng, J), dtype=float)


CASES = ["dhk2-A-m0.97.json", "dhk-hom-J4-s13-m0.90.json", "bramson-J5-s33-m0.90.json", "fm-gsq1-m0.90.json", "gjn-J3-s91-m0.95.json"]


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("kind", ["linear", "quadratic"])
def test_certificate_decreases_along_true_velocities(corpus_dir, name, kind):
    """At random fluid states (ties, zeros) every admissible velocity, from an independent LP, decreases V."""
    from certify.exact import check_fluid
    from certify.search.fluid import fluid_candidates, solve_fluid

    net = load(corpus_dir / name)
    chain = compile_chain(net)
    faces = fluid_faces(chain)
    lp = solve_fluid(chain, faces, kind)
    assert lp.found
    coeffs = next(c for c in fluid_candidates(chain, kind, lp.coeffs) if check_fluid(chain, kind, c, faces).ok)
    delta = float(check_fluid(chain, kind, coeffs, faces).facts.delta)
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
        best = fluid_max_rate(net, z, c)
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
    """At 0.99 of the true critical load a fluid certificate proves stability (general), by the faces and by the default
    pipeline (the max-flow bound, where it goes first); at 1.01 nothing does."""
    path = corpus_dir / name
    margin = F(str(json.loads(path.read_text())["x-case"]["margin"]))
    net = load(path)
    for flow_bound, kinds in ((False, ("fluid",)), (True, ("fluid", "fluid-flow"))):
        res = certify.prove(scaled(net, F(99, 100) / margin), flow_bound=flow_bound)
        assert res.verdict == "stable" and res.semantics == "general" and res.certificate["kind"] in kinds, res.reasons
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


def _dbm_tie_classes(region, J):
    """Tie classes of the non-empty stations read off the closed DBM: x_a = x_b on the whole region."""
    empty = set(region.empty)
    out = []
    for a in range(J):
        if a in empty:
            continue
        for cl in out:
            b = cl[0]
            if region.dbm[a + 1][b + 1] == 0 and region.dbm[b + 1][a + 1] == 0:
                cl.append(a)
                break
        else:
            out.append([a])
    return sorted(tuple(c) for c in out)


@pytest.mark.parametrize("name", ["dhk2-A-m0.97.json", "ce-tie-expA-g1.00.json", "mmjsq-k6-m1.05.json"])
def test_tie_classes_from_the_signature_equal_the_dbm_ones(corpus_dir, name):
    """On every fluid region the tie classes the faces use (from the argmin signature) equal those read off the DBM."""
    from certify.markov.fluid import _tie_classes, fluid_chain
    from certify.markov.regions import iter_regions

    ch = compile_chain(load(corpus_dir / name))
    regions = list(iter_regions(fluid_chain(ch)))
    assert regions
    for r in regions:
        assert sorted(_tie_classes(r, ch.J)) == _dbm_tie_classes(r, ch.J), r.describe(ch.ids)
